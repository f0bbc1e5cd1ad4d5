//! Content sniffing for every family: `cmd | ctx pipe` and `ctx digest
//! saved.log` carry no argv, so each family is told by the shapes only it
//! prints (`src/profiles/*/sniff.rs`, docs/profiles/<family>.md).
//!
//! Every fixture of every family is read with its command hidden, its
//! streams apart (a capture with no command table entry) and interleaved
//! (a saved log, status unknown): it must be read by its own family, or by
//! text/v1 with every census identity of its family kept, and never by
//! another family. The census of a saved log read by its own family must
//! equal the census of the run. What content cannot tell is listed below
//! with the reason; an entry that no longer applies fails too, so the list
//! shrinks as detectors improve.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ctx::archive::Known;
use ctx::artifact::{Artifact, Exit};
use ctx::pipeline::{self, Options, Output};
use ctx::profiles::MatchedBy;
use ctx::store::ArchiveKey;

#[path = "support/census_text.rs"]
mod census_text;
#[path = "support/fixture_cases.rs"]
mod fixture_cases;
use fixture_cases::{cases, name};

/// Fixtures whose family content does not tell, and who reads them then.
/// `*` stands for both views; `piped` for the interleaved one only.
const NOT_TOLD: &[(&str, &str, &str)] = &[
    // A build failure before any test ran: rustc's diagnostics alone,
    // which are cargo_build's shape (its census names the same errors).
    (
        "cargo_test__build-failed",
        "cargo_build/v1",
        "a test build's compile errors are cargo build's output",
    ),
    (
        "cargo_test__build-failed-many",
        "cargo_build/v1",
        "a test build's compile errors are cargo build's output",
    ),
    (
        "cargo_test__build-failed-no-fail-fast",
        "cargo_build/v1",
        "a test build's compile errors are cargo build's output",
    ),
    // A formatter's diff is a unified diff: git_diff/v1 reads every file
    // of it (the would-reformat files are its changed files).
    (
        "format_check__black-check-diff",
        "git_diff/v1",
        "a formatter's --diff is a unified diff",
    ),
    (
        "format_check__gofmt-d",
        "git_diff/v1",
        "a formatter's --diff is a unified diff",
    ),
    (
        "format_check__ruff-format-diff",
        "git_diff/v1",
        "a formatter's --diff is a unified diff",
    ),
    // A native build's compiler error inside `bundle install`: gcc's
    // decisive line claims the output (its census names the error).
    (
        "install__bundle-native",
        "gcc/v1",
        "a native extension's compiler error is gcc's shape",
    ),
    // `vitest --reporter=json` is a JSON document.
    (
        "vitest__json",
        "json/v1",
        "a JSON reporter's output is a JSON document",
    ),
];

/// Fixtures text/v1 reads with no command, with a census identity of the
/// family that its digest does not name, and why content cannot tell.
const LOSES: &[(&str, &str)] = &[
    // `git tag` prints bare names, one a line: any word list.
    (
        "git_refs__tag-flood",
        "`git tag` prints bare names, the shape of any word list",
    ),
    // rg without `-n` piped: `path:text`, the shape of any `key:value`
    // list; search/sniff.rs refuses it rather than misread a config dump.
    (
        "search__rg-plain",
        "`path:text` without a line number is any `key:value` list",
    ),
];

/// Fixtures read by their own family whose census differs between the
/// run and the saved log, and why.
const CENSUS_DIFFERS: &[(&str, &str)] = &[];

fn digest(a: &Artifact) -> (String, pipeline::Delivery) {
    let d = pipeline::digest(a, &Known(ArchiveKey([0x5c; 32])), &Options::default()).unwrap();
    let text = match &d.output {
        Output::Digest(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Output::Raw => String::new(),
    };
    (text, d)
}

/// The run as `ctx digest saved.log` sees it: one stream, no argv, no
/// status, labelled by the file.
fn saved_log(a: &Artifact) -> Artifact {
    let mut b = Artifact::from_stdout(a.bytes().to_vec(), Exit::Unknown, Vec::new());
    b.label = Some("saved.log".into());
    b.label_is_file = true;
    b
}

/// Streams apart, argv hidden.
fn anonymous(a: &Artifact) -> Artifact {
    Artifact::new(
        a.bytes().to_vec(),
        a.segments().to_vec(),
        a.exit,
        Vec::new(),
    )
}

fn census(d: &pipeline::Delivery) -> BTreeSet<String> {
    d.trace.as_ref().map_or_else(BTreeSet::new, |t| {
        t.contract
            .census(&t.graph)
            .map(|i| i.identity.clone())
            .collect()
    })
}

#[test]
fn every_fixture_is_read_by_its_family_without_its_command() {
    let mut problems = Vec::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    // family → (read by it with argv hidden, fixtures), both views.
    let mut tally: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for case in cases() {
        let n = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (_, typed) = digest(&artifact);
        let own = ctx::classify::choose(&artifact, None).unwrap().0.version();
        if own == "text/v1" || typed.profile != own {
            // text/v1's own fixtures, and fixtures a filter reads.
            continue;
        }
        for (view, hidden) in [
            ("anonymous", anonymous(&artifact)),
            ("piped", saved_log(&artifact)),
        ] {
            let (text, d) = digest(&hidden);
            let chosen = ctx::classify::choose(&hidden, None).unwrap().0.version();
            let entry = tally.entry(own.to_string()).or_default();
            entry.1 += 1;
            if chosen == own {
                entry.0 += 1;
                continue;
            }
            if let Some((_, _, _)) = NOT_TOLD.iter().find(|(c, by, _)| *c == n && *by == chosen) {
                used.insert(n.clone());
                continue;
            }
            if chosen != "text/v1" {
                problems.push(format!("{n} ({view}): {own} read by {chosen}"));
                continue;
            }
            // text/v1: every identity of the family's census kept.
            let Some(trace) = &typed.trace else { continue };
            let lost: Vec<String> = trace
                .contract
                .census(&trace.graph)
                .filter(|i| d.output != Output::Raw && !census_text::names(&text, &hidden, i))
                .map(|i| i.identity.clone())
                .collect();
            if lost.is_empty() {
                continue;
            }
            if LOSES.iter().any(|(c, _)| *c == n) {
                used.insert(n.clone());
                continue;
            }
            problems.push(format!(
                "{n} ({view}): text/v1 loses {} of {own}'s identities, e.g. {}",
                lost.len(),
                lost[0]
            ));
        }
    }
    for (family, (own, all)) in &tally {
        eprintln!("{family:>18}: {own}/{all} read by their family with argv hidden");
    }
    for (c, _, why) in NOT_TOLD {
        assert!(used.contains(*c) || !why.is_empty(), "{c}");
        if !used.contains(*c) {
            problems.push(format!("{c}: listed as not told by content, but now is"));
        }
    }
    for (c, _) in LOSES {
        if !used.contains(*c) {
            problems.push(format!(
                "{c}: listed as losing identities, but no longer does"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_saved_log_has_the_census_of_its_run() {
    let mut problems = Vec::new();
    let mut compared = 0;
    for case in cases() {
        let n = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (_, run) = digest(&artifact);
        let log = saved_log(&artifact);
        let (_, saved) = digest(&log);
        if run.profile != saved.profile || run.profile == "text/v1" {
            continue;
        }
        compared += 1;
        // `ctx digest` knows no working directory: the run's absolute
        // paths, which its census names relative to the run's cwd, are
        // compared the same way.
        let relative = |ids: BTreeSet<String>| -> BTreeSet<String> {
            let Some(cwd) = artifact.cwd.as_deref() else {
                return ids;
            };
            let prefix = format!("{}/", cwd.trim_end_matches('/'));
            ids.into_iter()
                .map(|i| i.strip_prefix(&prefix).map(str::to_string).unwrap_or(i))
                .collect()
        };
        let (a, b) = (relative(census(&run)), relative(census(&saved)));
        if a == b {
            continue;
        }
        if CENSUS_DIFFERS.iter().any(|(c, _)| *c == n) {
            continue;
        }
        let only_run: Vec<_> = a.difference(&b).take(3).collect();
        let only_log: Vec<_> = b.difference(&a).take(3).collect();
        problems.push(format!(
            "{n}: run only {only_run:?}, saved log only {only_log:?}"
        ));
    }
    assert!(compared > 150, "too few fixtures compared: {compared}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn fixture(case: &str) -> Artifact {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(case);
    ctx::fixture::load(&dir).unwrap()
}

/// A label that names a command, and `--as`, win over what the content
/// looks like.
#[test]
fn label_and_as_win_over_sniffing() {
    let log = fixture("git_log/oneline");
    let mut piped = Artifact::from_stdout(log.bytes().to_vec(), Exit::Unknown, Vec::new());
    let (p, how) = ctx::classify::choose(&piped, None).unwrap();
    assert_eq!((p.version(), how.by), ("git_log/v1", MatchedBy::Content));
    piped.label = Some("rg -n fn".into());
    let (p, how) = ctx::classify::choose(&piped, None).unwrap();
    assert_eq!((p.version(), how.by), ("search/v1", MatchedBy::Command));
    let (p, how) = ctx::classify::choose(&piped, Some("text")).unwrap();
    assert_eq!((p.version(), how.by), ("text/v1", MatchedBy::Forced));
    // A saved file's name is no command.
    piped.label = Some("git log".into());
    piped.label_is_file = true;
    let (_, how) = ctx::classify::choose(&piped, None).unwrap();
    assert_eq!(how.by, MatchedBy::Content);
}

fn ctx_pipe(args: &[&str], input: &[u8]) -> String {
    use std::io::Write;
    let home = tempfile::TempDir::new().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ctx"))
        .arg("pipe")
        .args(args)
        .env("CTX_HOME", home.path())
        .env_remove("CTX_AGENT")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn ctx_pipe_label_names_the_family() {
    let search = fixture("search/grep-rn");
    // Sniffed: grep's own shape.
    let sniffed = ctx_pipe(&[], search.bytes());
    assert!(sniffed.starts_with("grep: "), "{sniffed}");
    assert!(sniffed.contains(" 53 files"), "{sniffed}");
    // `--label 'git log'` on a commit list, `--as text` on grep's output.
    let log = fixture("git_log/default");
    let labelled = ctx_pipe(&["--label", "git log"], log.bytes());
    assert!(labelled.starts_with("git log: "), "{labelled}");
    assert!(labelled.contains("30 commits"), "{labelled}");
    let forced = ctx_pipe(&["--as", "text"], search.bytes());
    assert!(forced.starts_with("[ctx] output: "), "{forced}");
    assert!(!forced.contains(" 53 files"), "{forced}");
}
