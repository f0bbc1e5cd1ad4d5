//! The evidence layer alone keeps what the typed families keep.
//!
//! Every fixture of every typed family that reports failures (test
//! runners, compilers, linters, formatters, CI logs: the census items of
//! the kinds the layer yields) is read twice: as it is (its
//! family's profile, by its command), and with its command hidden and
//! every family but text/v1 disabled, so that only the evidence layer
//! under text/v1 reads it. Each census identity the typed profile keeps
//! must then be kept by the generic digest too — its line printed, its
//! identity or place named, or the layer's own finding on its line counted
//! by the `--items` marker — or the generic digest is the raw output.
//! The share kept is printed per family; the test fails when it falls
//! below the floor measured when the layer landed (docs/evidence.md).

use std::collections::{BTreeMap, BTreeSet};

use ctx::archive::Known;
use ctx::artifact::Artifact;
use ctx::pipeline::{self, Options, Output};
use ctx::profiles::registry;
use ctx::store::ArchiveKey;

#[path = "support/census_text.rs"]
mod census_text;

#[path = "support/fixture_cases.rs"]
mod fixture_cases;
use fixture_cases::{cases, name};

/// The share of typed census identities the generic layer keeps, over
/// every fixture, below which this test fails (percent).
const FLOOR_PERCENT: usize = 98;

fn digest(artifact: &Artifact, options: &Options) -> (String, pipeline::Delivery) {
    let d = pipeline::digest(artifact, &Known(ArchiveKey([0x5c; 32])), options).unwrap();
    let text = match &d.output {
        Output::Digest(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Output::Raw => String::new(),
    };
    (text, d)
}

#[test]
fn the_layer_alone_keeps_what_typed_families_keep() {
    let generic = Options {
        disabled: registry()
            .iter()
            .map(|p| p.family().to_string())
            .filter(|f| f != "text")
            .collect(),
        ..Options::default()
    };
    // family → (kept, total), and the identities lost, for the report.
    let mut shares: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut lost: Vec<String> = Vec::new();
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let (_, typed) = digest(&artifact, &Options::default());
        let Some(trace) = &typed.trace else { continue };
        if typed.profile == "text/v1" {
            continue;
        }
        // The failures a reader acts on; a listing's folders or a log's
        // commits are no finding of the layer.
        let census: Vec<_> = trace
            .contract
            .census(&trace.graph)
            .filter(|i| ctx::recognise::KINDS.contains(&i.kind))
            .collect();
        if census.is_empty() {
            continue;
        }
        let hidden = Artifact::new(
            artifact.bytes().to_vec(),
            artifact.segments().to_vec(),
            artifact.exit,
            Vec::new(),
        );
        let (text, d) = digest(&hidden, &generic);
        assert_eq!(d.profile, "text/v1", "{}: not read by text/v1", name(&case));
        // The lines the layer found a finding on, all counted by the
        // `--items` marker when the digest did not print them.
        let counted: BTreeSet<usize> = d.trace.as_ref().map_or_else(BTreeSet::new, |t| {
            t.contract
                .census(&t.graph)
                .filter_map(|i| i.headline.map(|h| h.first))
                .collect()
        });
        let entry = shares.entry(typed.profile.to_string()).or_default();
        let mut seen = BTreeSet::new();
        for item in census {
            if !seen.insert(item.identity.clone()) {
                continue;
            }
            entry.1 += 1;
            let kept = d.output == Output::Raw
                || census_text::names(&text, &hidden, item)
                || item.headline.is_some_and(|h| counted.contains(&h.first))
                || item
                    .block
                    .is_some_and(|b| counted.iter().any(|&n| b.first <= n && n <= b.last));
            if kept {
                entry.0 += 1;
            } else {
                lost.push(format!("{}: {}", name(&case), item.identity));
            }
        }
    }
    let (kept, total) = shares
        .values()
        .fold((0, 0), |(k, t), (dk, dt)| (k + dk, t + dt));
    for (family, (k, t)) in &shares {
        eprintln!("{family:>18}: {k}/{t} kept by the layer alone");
    }
    eprintln!("{:>18}: {kept}/{total}", "all");
    for l in lost.iter().take(400) {
        eprintln!("  lost {l}");
    }
    assert!(total > 100, "too few census identities: {total}");
    assert!(
        kept * 100 >= total * FLOOR_PERCENT,
        "the layer alone keeps {kept} of {total} typed census identities"
    );
}

/// A typed family that leaves a failure unread does not get to drop it:
/// cargo_build reads the type error and the link error of this build but
/// not the panic of the -sys crate's build script (indented under cargo's
/// `--- stderr`), which the evidence layer finds. The digest then comes
/// from text/v1, which plans from the layer: the panic's line is printed.
#[test]
fn a_failure_the_family_did_not_read_hands_the_digest_to_text() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cargo_build/build-link-and-script");
    let artifact = ctx::fixture::load(&dir).unwrap();
    // The panic's place, from the build script itself.
    let script = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/cargo_build/projects/link_and_script/sys/build.rs"),
    )
    .unwrap();
    let line = script.lines().position(|l| l.contains("panic!(")).unwrap() + 1;
    let place = format!("panicked at sys/build.rs:{line}:");
    let options = Options {
        budget: Some(256),
        ..Options::default()
    };
    let (text, d) = digest(&artifact, &options);
    assert_eq!(d.profile, "text/v1", "{:?}", d.rejection);
    assert!(
        d.matched.reason.contains("cargo_build/v1 left"),
        "{}",
        d.matched.reason
    );
    assert!(matches!(d.output, Output::Digest(_)), "{:?}", d.rejection);
    assert!(text.contains(&place), "{text}");
    // Every finding of the layer is in the digest or counted by its marker.
    for needle in ["undefined symbol: foo_checksum", "build command for `sys"] {
        assert!(
            text.contains(needle) || text.contains("--items"),
            "{needle}: {text}"
        );
    }
}

/// The long tail: real runs of tools no family reads (fixtures/text,
/// `regen-long-tail.sh`). Every identity of each one's truth — derived
/// from the tool's own machine output — is a finding of the layer, and
/// the digest at the default budget and at the floor names it or counts
/// it by the `--items` marker that lists it.
#[test]
fn long_tail_truth_survives_through_the_layer() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text");
    let mut checked = 0;
    for case in [
        "mocha-spec",
        "esbuild-bundle",
        "python-chained-crash",
        "ctest-failures",
        "minitest-rake",
        "ci-script-mixed",
    ] {
        let dir = root.join(case);
        let artifact = ctx::fixture::load(&dir).unwrap();
        let truth: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("truth.json")).unwrap()).unwrap();
        let mut expected: Vec<String> = Vec::new();
        for key in ["failed", "not_run"] {
            for id in truth[key].as_array().into_iter().flatten() {
                expected.push(id.as_str().unwrap().to_string());
            }
        }
        for key in ["errors", "warnings"] {
            for d in truth[key].as_array().into_iter().flatten() {
                expected.push(format!(
                    "{}:{}:{}",
                    d["file"].as_str().unwrap(),
                    d["line"],
                    d["col"]
                ));
            }
        }
        if let Some(exception) = truth["exception"].as_str() {
            expected.push(format!(
                "{exception} at {}:{}",
                truth["file"].as_str().unwrap(),
                truth["line"]
            ));
        }
        assert!(!expected.is_empty(), "{case}: empty truth");
        let found: Vec<String> = ctx::recognise::recognise(&artifact)
            .items
            .into_iter()
            .map(|i| i.identity)
            .collect();
        for id in &expected {
            assert!(
                found.contains(id),
                "{case}: the layer did not find {id:?} in {found:?}"
            );
        }
        for budget in [None, Some(256)] {
            let options = Options {
                budget,
                ..Options::default()
            };
            let (text, d) = digest(&artifact, &options);
            // Named, or counted by the marker whose `--items` lists it.
            let listed = text.contains("--items");
            for id in &expected {
                assert!(
                    d.output == Output::Raw || text.contains(id.as_str()) || listed,
                    "{case} at {budget:?} ({}): {id:?} neither named nor counted:\n{text}",
                    d.profile
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "{checked}");
}
