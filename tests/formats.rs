//! `--format json` and `--format markdown` over every captured fixture:
//! insta snapshots of both shapes, the JSON validated against
//! docs/schema/ctx.digest-v1.json, the JSON's items the identities the
//! text digest names (and no others), and the markdown never longer than
//! the text digest plus its markup.

use std::collections::BTreeSet;

use ctx::archive::Known;
use ctx::artifact::Artifact;
use ctx::deliver;
use ctx::format::{Format, Formatting};
use ctx::pipeline::{self, Delivery, Options, Output};
use ctx::store::ArchiveKey;

#[path = "support/census_text.rs"]
mod census_text;
#[path = "support/schema.rs"]
mod schema;

#[path = "support/fixture_cases.rs"]
mod fixture_cases;
use fixture_cases::{cases, name};

/// The delivery the CLI makes for a non-text shape (facts read at any size).
fn delivery(artifact: &Artifact) -> Delivery {
    let options = Options {
        read_small: true,
        ..Options::default()
    };
    pipeline::digest(artifact, &Known(ArchiveKey([0x5c; 32])), &options).unwrap()
}

/// The text digest, or the raw output's lines as a digest prints raw
/// lines (normalized: no escape sequences, no carriage-return progress).
fn text_of(artifact: &Artifact, d: &Delivery) -> String {
    match &d.output {
        Output::Digest(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Output::Raw => (1..=artifact.line_count())
            .map(|n| ctx::normalize::line(artifact.line(n)) + "\n")
            .collect(),
    }
}

fn shaped(artifact: &Artifact, d: &Delivery, format: Format, link_base: Option<&str>) -> String {
    let formatting = Formatting {
        format,
        link_base: link_base.map(str::to_string),
        ..Formatting::default()
    };
    String::from_utf8(deliver::shape(artifact, d, &formatting)).expect("UTF-8")
}

fn json(artifact: &Artifact, d: &Delivery) -> serde_json::Value {
    let line = shaped(artifact, d, Format::Json, None);
    assert!(
        line.ends_with('\n') && line.matches('\n').count() == 1,
        "one line"
    );
    serde_json::from_str(&line).expect("valid JSON")
}

#[test]
fn json_and_markdown_as_snapshotted() {
    let cases = cases();
    assert!(cases.len() > 20, "fixtures missing: {}", cases.len());
    for case in cases {
        let artifact = ctx::fixture::load(&case).unwrap();
        let d = delivery(&artifact);
        let pretty = deliver::with_report(&artifact, &d, ctx::render::formats::json::pretty);
        insta::assert_snapshot!(format!("json__{}", name(&case)), pretty);
        let md = shaped(
            &artifact,
            &d,
            Format::Markdown,
            Some("https://example.org/repo/blob/0123abc"),
        );
        insta::assert_snapshot!(format!("markdown__{}", name(&case)), md);
    }
}

#[test]
fn json_follows_the_schema() {
    let schemas = schema::Schemas::load();
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let value = json(&artifact, &delivery(&artifact));
        if let Err(e) = schemas.check(&value, schemas.digest) {
            panic!("{}: {e}", name(&case));
        }
    }
    // And a document that breaks it is refused: the schema can fail.
    let artifact = ctx::fixture::load(&cases()[0]).unwrap();
    let mut value = json(&artifact, &delivery(&artifact));
    value["delivery"] = "digested".into();
    assert!(schemas.check(&value, schemas.digest).is_err());
}

/// Every identity the JSON lists is named by the text digest made from
/// the same plan at the same budget, and every census identity the text
/// names is in the JSON.
#[test]
fn json_and_text_name_the_same_identities() {
    let mut compared = 0;
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let d = delivery(&artifact);
        let text = text_of(&artifact, &d);
        let value = json(&artifact, &d);
        let listed: BTreeSet<String> = value["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["identity"].as_str().unwrap().to_string())
            .collect();
        let Some(trace) = &d.trace else {
            assert!(listed.is_empty(), "{}: items without facts", name(&case));
            continue;
        };
        let census: Vec<_> = trace.contract.census(&trace.graph).collect();
        if d.output == Output::Raw {
            // The raw output names every census item: all of them listed.
            let all: BTreeSet<String> = census.iter().map(|i| i.identity.clone()).collect();
            assert_eq!(listed, all, "{}", name(&case));
            continue;
        }
        compared += 1;
        // The digest shows the profile's view (a CI log without its
        // timestamps): headlines are read in it.
        let view = ctx::profiles::by_family(d.profile.split('/').next().unwrap_or_default())
            .and_then(|p| p.view(&artifact));
        let artifact = view.as_ref().unwrap_or(&artifact);
        for item in &census {
            let in_json = listed.contains(&item.identity);
            assert!(
                !in_json || census_text::names(&text, artifact, item),
                "{}: {:?} is in the JSON but not in the text",
                name(&case),
                item.identity
            );
            assert!(
                in_json || !census_text::names_by_identity(&text, artifact, item),
                "{}: {:?} is in the text but not in the JSON",
                name(&case),
                item.identity
            );
        }
    }
    assert!(compared > 20, "only {compared} digests compared");
}

/// The markdown says what the text says (every line of the text digest,
/// less `[ctx] `, is in it) and is never longer than the text digest plus
/// its markup: a heading and a table of counts, and for each line at most
/// a list marker, a code span's backticks, a fence, a link.
#[test]
fn markdown_is_the_text_plus_markup() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let d = delivery(&artifact);
        let text = text_of(&artifact, &d);
        let md = shaped(&artifact, &d, Format::Markdown, None);
        let mut lines = text.lines();
        if let (Output::Digest(_), Some(t)) = (&d.output, &d.trace)
            && let Some(tool) = t.graph.reader.tool()
        {
            // The header becomes the heading and the table of counts.
            let header = lines.next().unwrap_or("");
            let heading = md.lines().next().unwrap_or("");
            let outcome = t.plan.outcome.unwrap_or(t.graph.outcome).word();
            assert!(
                header.contains(outcome) && heading.contains(outcome),
                "{}: {heading}",
                name(&case)
            );
            assert!(heading.contains(tool), "{}: {heading}", name(&case));
        }
        for line in lines {
            let words = line.strip_prefix("[ctx] ").unwrap_or(line).trim();
            if words.starts_with("--- ") {
                continue; // a detail's title: its identity is the bold caption
            }
            // ctx's own words are escaped, commands in code spans:
            // compare without backslashes and backticks.
            let bare = |s: &str| s.replace(['\\', '`'], "");
            assert!(
                md.contains(words) || bare(&md).contains(&bare(words)),
                "{}: {line:?} missing from the markdown",
                name(&case)
            );
        }
        let lines = text.lines().count();
        let counts = d.trace.as_ref().map_or(0, |t| t.graph.counts.len());
        // Per line: `  - ` and two backtick runs, or a fence's share.
        let markup =
            120 + 24 * counts + 12 * lines + artifact.label.as_ref().map_or(0, |l| l.len() + 6);
        assert!(
            md.len() <= text.len() + markup,
            "{}: markdown {} bytes, text {} + markup {}",
            name(&case),
            md.len(),
            text.len(),
            markup
        );
        let md_tokens = ctx::tokens::estimate(md.as_bytes());
        let text_tokens = ctx::tokens::estimate(text.as_bytes());
        assert!(
            md_tokens <= text_tokens + markup / 2,
            "{}: markdown ≈{md_tokens} tokens, text ≈{text_tokens}",
            name(&case)
        );
    }
}

/// The text the CLI delivers for a non-text shape is the text it
/// delivers for text: reading the facts of small output changes nothing
/// the reader of the text sees.
#[test]
fn reading_small_output_changes_no_text() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let plain = pipeline::digest(
            &artifact,
            &Known(ArchiveKey([0x5c; 32])),
            &Options::default(),
        )
        .unwrap();
        let read = delivery(&artifact);
        assert_eq!(plain.output, read.output, "{}", name(&case));
    }
}
