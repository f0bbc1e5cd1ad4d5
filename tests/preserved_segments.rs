//! Preserved segments: paths, URLs, versions, hashes, numbers and
//! identifiers pass byte-exact through every lossy path. A digest may drop
//! whole lines and whole words, never part of one: a path cut to
//! `src/servi…`, a sha cut to seven of its forty digits, a URL without its
//! query would each send the reader to the wrong place.
//!
//! Property, over text/v1, search/v1 and git_diff/v1 digests of generated
//! outputs (and the command line in the header): no token of the digest is
//! a cut segment — a strict prefix of a token of the raw output or of the
//! command, marked with `…` — and no shown line is a raw line cut inside a
//! token.

use std::collections::HashSet;

use ctx::archive::Known;
use ctx::artifact::{Artifact, Exit};
use ctx::pipeline::{self, Options, Output};
use ctx::store::ArchiveKey;
use proptest::prelude::*;

/// One segment a reader may copy from the output.
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        // Paths.
        "(src|tests|crates/[a-z]{3,8})/[a-z_]{3,14}/[a-z_]{3,16}\\.(rs|py|ts|go)",
        "/home/[a-z]{3,8}/[a-z_]{4,12}/[a-z_.]{4,20}",
        // URLs.
        "https://[a-z]{4,10}\\.(com|org|io)/[a-z0-9/_-]{4,40}(\\?[a-z]{1,6}=[0-9]{1,6})?",
        // Versions.
        "v?[0-9]{1,2}\\.[0-9]{1,3}\\.[0-9]{1,3}(-(rc|beta)\\.[0-9]{1,2})?",
        // Hashes.
        "[0-9a-f]{40}",
        "[0-9a-f]{7,12}",
        // Numbers.
        "[0-9]{1,12}",
        "[0-9]{1,4}\\.[0-9]{1,6}",
        // Identifiers.
        "[a-zA-Z_][a-zA-Z0-9_]{2,24}(::[a-zA-Z_][a-zA-Z0-9_]{2,20}){0,3}",
    ]
}

fn words() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            3 => segment(),
            1 => prop::sample::select(vec![
                "error:", "warning:", "at", "in", "failed", "ok", "note:", "=>", "-",
            ])
            .prop_map(String::from),
        ],
        1..9,
    )
    .prop_map(|w| w.join(" "))
}

/// A command line long enough that the header must shorten it.
fn argv() -> impl Strategy<Value = Vec<String>> {
    (
        prop::sample::select(vec!["make", "./run.sh", "python3 tool.py", "npm run build"]),
        prop::collection::vec(segment(), 2..10),
    )
        .prop_map(|(program, args)| {
            let mut argv: Vec<String> = program.split(' ').map(String::from).collect();
            argv.extend(args);
            argv
        })
}

fn path() -> impl Strategy<Value = String> {
    "(src|tests|lib)/[a-z_]{3,14}/[a-z_]{3,16}\\.(rs|py|ts)"
}

/// `grep -rn` output: `path:line:text`, many files.
fn search_output() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        (path(), prop::collection::vec((1u32..5000, words()), 1..12)),
        8..60,
    )
    .prop_map(|files| {
        let mut out = String::new();
        for (path, hits) in files {
            for (n, text) in hits {
                out.push_str(&format!("{path}:{n}:{text}\n"));
            }
        }
        out.into_bytes()
    })
}

/// A `git diff` of many files, each with one consistent hunk.
fn diff_output() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        (
            path(),
            "[0-9a-f]{7}",
            "[0-9a-f]{7}",
            prop::collection::vec((0u8..3, words()), 1..30),
        ),
        4..40,
    )
    .prop_map(|files| {
        let mut out = String::new();
        for (path, a, b, lines) in files {
            let old = lines.iter().filter(|(k, _)| *k != 1).count();
            let new = lines.iter().filter(|(k, _)| *k != 2).count();
            out.push_str(&format!(
                "diff --git a/{path} b/{path}\nindex {a}..{b} 100644\n--- a/{path}\n+++ b/{path}\n@@ -1,{old} +1,{new} @@\n"
            ));
            for (kind, text) in lines {
                let mark = [' ', '+', '-'][kind as usize];
                out.push_str(&format!("{mark}{text}\n"));
            }
        }
        out.into_bytes()
    })
}

fn text_output() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(words(), 50..400).prop_map(|lines| {
        let mut out = lines.join("\n");
        out.push('\n');
        out.into_bytes()
    })
}

fn digest(artifact: &Artifact) -> Option<String> {
    let d = pipeline::digest(
        artifact,
        &Known(ArchiveKey([0x5c; 32])),
        &Options::default(),
    )
    .ok()?;
    match d.output {
        Output::Digest(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Output::Raw => None,
    }
}

/// The first violation of the property, if any.
fn cut_segment(raw: &[u8], argv: &[String], digest: &str) -> Option<String> {
    let raw = String::from_utf8_lossy(raw);
    let raw_lines: Vec<&str> = raw.lines().collect();
    let line_set: HashSet<&str> = raw_lines.iter().copied().collect();
    let mut tokens: HashSet<&str> = raw.split_whitespace().collect();
    tokens.extend(argv.iter().flat_map(|a| a.split_whitespace()));
    for line in digest.lines() {
        for word in line.split_whitespace() {
            // `src/ma…:` in a header: the cut, then ctx's own punctuation.
            let word = word.trim_end_matches([':', ',', ';', ')', '·']);
            let Some(kept) = word.strip_suffix('…') else {
                continue;
            };
            if !kept.is_empty()
                && !tokens.contains(kept)
                && tokens
                    .iter()
                    .any(|t| t.len() > kept.len() && t.starts_with(kept))
            {
                return Some(format!("`{word}` cuts a segment, in: {line}"));
            }
        }
        if line.is_empty() || line_set.contains(line) {
            continue;
        }
        let cut = raw_lines.iter().any(|r| {
            r.len() > line.len()
                && r.starts_with(line)
                && !r[line.len()..].starts_with(char::is_whitespace)
        });
        if cut {
            return Some(format!("a raw line cut inside a token: {line}"));
        }
    }
    None
}

fn check(raw: Vec<u8>, argv: Vec<String>) -> Result<(), TestCaseError> {
    let artifact = Artifact::from_stdout(raw.clone(), Exit::Code(1), argv.clone());
    if let Some(d) = digest(&artifact) {
        let violation = cut_segment(&raw, &argv, &d);
        prop_assert!(
            violation.is_none(),
            "{}\n--- digest:\n{d}",
            violation.unwrap_or_default()
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn text_digests_keep_segments_whole(raw in text_output(), argv in argv()) {
        check(raw, argv)?;
    }

    #[test]
    fn search_digests_keep_segments_whole(raw in search_output(), extra in segment()) {
        let argv = vec!["grep".into(), "-rn".into(), extra, "src".into(), "tests".into(), "lib".into()];
        check(raw, argv)?;
    }

    #[test]
    fn diff_digests_keep_segments_whole(raw in diff_output(), rev in "[0-9a-f]{40}") {
        let argv = vec!["git".into(), "diff".into(), rev];
        check(raw, argv)?;
    }
}

/// The example behind the property: a long command in text/v1's header.
#[test]
fn a_long_command_is_shortened_between_words() {
    let argv: Vec<String> = [
        "make",
        "https://downloads.example.org/releases/v1.24.3/toolchain-x86_64-unknown-linux-gnu.tar.gz",
        "0123456789abcdef0123456789abcdef01234567",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let raw: Vec<u8> = (0..2000)
        .flat_map(|i| format!("step {i} done\n").into_bytes())
        .collect();
    let artifact = Artifact::from_stdout(raw.clone(), Exit::Code(1), argv.clone());
    let d = digest(&artifact).expect("a digest");
    assert_eq!(cut_segment(&raw, &argv, &d), None, "{d}");
    assert!(d.lines().next().is_some_and(|h| h.contains("make")), "{d}");
}
