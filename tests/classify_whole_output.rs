//! Classification sees the whole output, not its first KiB: build logs
//! whose decisive lines come late (after a screen of compile commands or
//! `Downloading`/`Compiling` lines) or on the other stream are read by
//! their family, captured from real runs (see each fixture's regen script).

use std::path::Path;

use ctx::archive::Known;
use ctx::artifact::{Artifact, Exit};
use ctx::classify;
use ctx::pipeline::{self, Options, Output};
use ctx::profiles::MatchedBy;
use ctx::store::ArchiveKey;

fn load(case: &str) -> Artifact {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(case);
    ctx::fixture::load(&dir).unwrap_or_else(|e| panic!("{case}: {e}"))
}

/// The run as `ctx pipe` sees it: no argv, no exit status, both streams
/// as they were interleaved, in one.
fn piped(a: &Artifact) -> Artifact {
    Artifact::from_stdout(a.bytes().to_vec(), Exit::Unknown, Vec::new())
}

/// Both streams kept apart, argv and status unknown (a capture with no
/// command table entry).
fn anonymous(a: &Artifact) -> Artifact {
    let mut b = a.clone();
    b.argv.clear();
    b.exit = Exit::Unknown;
    b
}

fn family(a: &Artifact) -> &'static str {
    classify::choose(a, None)
        .expect("no forced family")
        .0
        .version()
}

fn digest(a: &Artifact) -> String {
    let d = pipeline::digest(a, &Known(ArchiveKey([0x5c; 32])), &Options::default()).unwrap();
    match d.output {
        Output::Digest(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Output::Raw => String::from_utf8_lossy(a.bytes()).into_owned(),
    }
}

#[test]
fn late_gcc_diagnostics_behind_compile_lines_pick_gcc() {
    let a = load("gcc/gcc-make-k-late");
    // The premise: the first KiB of the interleaved view is compile commands.
    let head = &a.bytes()[..1024];
    assert!(
        !head
            .windows(8)
            .any(|w| w == b"warning:" || w == b"error: [")
    );
    let (p, how) = classify::choose(&a, None).unwrap();
    assert_eq!(p.version(), "gcc/v1", "{how:?}");
    assert_eq!(how.by, MatchedBy::Content);
    assert_eq!(family(&anonymous(&a)), "gcc/v1");
    // A saved `make -k 2>&1` log: the warnings come after 120 lines.
    let log = piped(&a);
    assert_eq!(family(&log), "gcc/v1");
    let text = digest(&log);
    for want in [
        "src/x_types.c:5:23",
        "src/x_types.c:6:19",
        "undefined_total",
        "make: *** [Makefile:13: build/x_types.o] Error 1",
    ] {
        assert!(text.contains(want), "{want} missing from:\n{text}");
    }
}

#[test]
fn cold_cargo_test_log_keeps_its_panic() {
    let a = load("cargo_test/cold-deps");
    assert!(a.bytes()[..1024].windows(11).any(|w| w == b"Downloaded "));
    // Streams apart: stdout's own head opens with `running 2 tests`.
    assert_eq!(family(&anonymous(&a)), "cargo_test/v1");
    // A CI log: one stream, `Downloading`/`Compiling` first.
    let log = piped(&a);
    assert_eq!(family(&log), "cargo_test/v1");
    let text = digest(&log);
    assert!(text.contains("tests::snake_case_of_camel"), "{text}");
    assert!(text.contains("src/lib.rs:57:9"), "{text}");
    assert!(text.contains("\"http_server\""), "{text}");
}

#[test]
fn cold_clippy_log_picks_cargo_build() {
    let a = load("cargo_build/clippy-cold-deps");
    assert!(!a.bytes()[..1024].windows(8).any(|w| w == b"warning:"));
    assert_eq!(family(&anonymous(&a)), "cargo_build/v1");
    let log = piped(&a);
    assert_eq!(family(&log), "cargo_build/v1");
    let text = digest(&log);
    assert!(text.contains("src/lib.rs"), "{text}");
}

/// A decisive line of a family-specific profile outranks a more generic
/// family's head: a cold `cargo test` whose build warns first (a rustc
/// `warning:` with `-->` in the first KiB) is still a test run.
#[test]
fn a_later_test_verdict_outranks_build_warnings_in_the_head() {
    let clippy = load("cargo_build/clippy-cold-deps");
    let test = load("cargo_test/cold-deps");
    let warnings: Vec<u8> = clippy
        .bytes()
        .split(|&b| b == b'\n')
        .filter(|l| !l.starts_with(b"  Downloaded") && !l.starts_with(b"   Compiling"))
        .flat_map(|l| l.iter().copied().chain(std::iter::once(b'\n')))
        .collect();
    let mut log = warnings;
    log.extend_from_slice(test.bytes());
    let a = Artifact::from_stdout(log, Exit::Unknown, Vec::new());
    assert_eq!(family(&a), "cargo_test/v1");
}

/// The whole-output scan claims nothing on its own words: a diff that
/// mentions errors is a diff (never a compiler's or test runner's output),
/// and a JSON document that mentions them stays text.
#[test]
fn words_in_a_diff_or_json_claim_no_family() {
    for (case, expected) in [
        ("text/git-diff-error-words", "git_diff/v1"),
        ("text/npm-view-json", "text/v1"),
    ] {
        let a = load(case);
        assert_eq!(family(&a), expected, "{case}");
        assert_eq!(family(&piped(&a)), expected, "{case}");
    }
}

/// The word scan is exact: in every fixture, read as one anonymous stream,
/// the profile chosen comes at or before (registry order) each profile
/// that has a decisive line anywhere, found here by asking every line.
#[test]
fn the_word_scan_misses_no_decisive_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let registry = ctx::profiles::registry();
    let mut checked = 0;
    for family in std::fs::read_dir(&root).unwrap().flatten() {
        for case in std::fs::read_dir(family.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if !case.path().join("case.json").is_file() {
                continue;
            }
            let a = piped(&ctx::fixture::load(&case.path()).unwrap());
            let chosen = family_index(&a);
            let lines: Vec<String> = (1..=a.line_count())
                .map(|n| ctx::normalize::line(a.line(n)).into_owned())
                .collect();
            let first_decisive = registry
                .iter()
                .position(|p| lines.iter().any(|l| p.decisive_line(l).is_some()));
            if let Some(at) = first_decisive {
                assert!(
                    chosen <= at,
                    "{}: chose {} though {} has a decisive line",
                    case.path().display(),
                    registry[chosen].version(),
                    registry[at].version()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "fixtures missing: {checked}");
}

fn family_index(a: &Artifact) -> usize {
    let version = family(a);
    ctx::profiles::registry()
        .iter()
        .position(|p| p.version() == version)
        .expect("a registered profile")
}
