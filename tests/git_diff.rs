//! git_diff/v1 against real git runs (fixtures/git_diff, truth from
//! `git diff --numstat` / `--name-status`): every changed file survives with
//! its counts and status, `--item PATH` brings back that file's whole diff,
//! and no digest of any diff alters, invents or reorders a diff line.

use std::path::{Path, PathBuf};
use std::process::Command;

use ctx::archive::Known;
use ctx::artifact::{Artifact, Exit};
use ctx::pipeline::{self, Options, Output};
use ctx::store::sqlite::{Options as StoreOptions, SqliteStore};
use ctx::store::{ArchiveKey, Store};
use ctx::zoom;
use proptest::prelude::*;
use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/git_diff");
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    out.sort();
    out
}

fn digest_at(artifact: &Artifact, budget: Option<usize>) -> Option<String> {
    let options = Options {
        budget,
        ..Options::default()
    };
    let d = pipeline::digest(artifact, &Known(ArchiveKey([0x5c; 32])), &options).unwrap();
    match d.output {
        Output::Digest(bytes) => Some(String::from_utf8(bytes).unwrap()),
        Output::Raw => None,
    }
}

fn truth(case: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(case.join("truth.json")).unwrap()).unwrap()
}

/// Every file of the truth, from a diff's truth or each commit's of a log.
fn truth_files(truth: &Value) -> Vec<Value> {
    let mut out: Vec<Value> = truth["files"].as_array().cloned().unwrap_or_default();
    for c in truth["commits"].as_array().into_iter().flatten() {
        out.extend(c["files"].as_array().cloned().unwrap_or_default());
    }
    out
}

fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The file's census line in `text`, with its counts and status words.
fn check_file(case: &Path, text: &str, f: &Value) {
    let path = f["path"].as_str().unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("[ctx] {path} | ")))
        .unwrap_or_else(|| panic!("{case:?}: no census line for {path}\n{text}"));
    if let (Some(a), Some(d)) = (f["added"].as_u64(), f["deleted"].as_u64())
        && (a, d) != (0, 0)
    {
        let counts = format!("+{} -{}", grouped(a), grouped(d));
        assert!(line.contains(&counts), "{case:?}: {line} lacks {counts}");
    }
    let status = f["status"].as_str().unwrap();
    let word = match &status[..1] {
        "A" => Some("added".to_string()),
        "D" => Some("deleted".to_string()),
        "R" => Some(format!("renamed from {}", f["from"].as_str().unwrap())),
        _ => None,
    };
    if let Some(word) = word {
        assert!(line.contains(&word), "{case:?}: {line} lacks {word}");
    }
    if f["added"].is_null() {
        assert!(line.contains("binary"), "{case:?}: {line} lacks binary");
    }
}

#[test]
fn every_changed_file_survives_with_counts_and_status() {
    let mut digested = 0;
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let Some(text) = digest_at(&artifact, None) else {
            continue; // printed whole: every file is in it by construction
        };
        digested += 1;
        let truth = truth(&case);
        for f in truth["files"].as_array().into_iter().flatten() {
            check_file(&case, &text, f);
        }
        // `diff -r`'s one-sided entries are the tool's own lines, kept raw.
        for only in truth["only_in"].as_array().into_iter().flatten() {
            let only = only.as_str().unwrap();
            assert!(
                text.lines().any(|l| l == only),
                "{case:?}: {only} lost\n{text}"
            );
        }
        // A log names a path once per commit: each commit's files are
        // checked in that commit's part of the digest.
        for c in truth["commits"].as_array().into_iter().flatten() {
            let sha = c["sha"].as_str().unwrap();
            let at = text
                .find(&format!("\ncommit {sha}"))
                .unwrap_or_else(|| panic!("{case:?}: {sha} lost"));
            let part = &text[at + 1..];
            let part = &part[..part[1..].find("\ncommit ").map_or(part.len(), |e| e + 1)];
            for f in c["files"].as_array().into_iter().flatten() {
                check_file(&case, part, f);
            }
        }
        for s in truth["summary"].as_array().into_iter().flatten() {
            if let Some(rest) = s.as_str().and_then(|s| s.strip_prefix("mode change ")) {
                let path = rest.split(' ').next_back().unwrap();
                assert!(
                    text.lines()
                        .any(|l| l.starts_with(&format!("[ctx] {path} | "))
                            && l.contains("mode 100644 → 100755")),
                    "{case:?}: mode change of {path} lost"
                );
            }
        }
        for c in truth["commits"].as_array().into_iter().flatten() {
            let sha = c["sha"].as_str().unwrap();
            assert!(
                text.contains(&format!("commit {sha}")),
                "{case:?}: {sha} lost"
            );
        }
    }
    assert!(digested >= 5, "only {digested} fixtures digested");
}

#[test]
fn item_returns_the_files_whole_diff() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let (profile, graph, _) = zoom::evidence(&artifact).unwrap();
        assert_eq!(profile.version(), "git_diff/v1", "{case:?}");
        let truth = truth(&case);
        if truth["commits"].is_array() {
            continue; // a log names a path once per commit
        }
        for f in truth_files(&truth) {
            let path = f["path"].as_str().unwrap();
            let spans = zoom::item_spans(profile, &graph, path).unwrap();
            assert_eq!(spans.len(), 1, "{case:?} {path}");
            let lines: Vec<String> = (spans[0].first..=spans[0].last)
                .map(|n| String::from_utf8_lossy(artifact.line(n)).into_owned())
                .collect();
            assert!(lines[0].starts_with("diff "), "{case:?} {path}");
            let hunk_lines = lines.iter().skip_while(|l| !l.starts_with("@@"));
            let (mut plus, mut minus) = (0, 0);
            for l in hunk_lines {
                if l.starts_with('+') {
                    plus += 1;
                } else if l.starts_with('-') {
                    minus += 1;
                }
            }
            if let (Some(a), Some(d)) = (f["added"].as_u64(), f["deleted"].as_u64()) {
                assert_eq!((plus, minus), (a, d), "{case:?} {path}");
            }
        }
    }
}

#[test]
fn expand_item_prints_the_file_diff() {
    let home = tempfile::tempdir().unwrap();
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/git_diff/renames");
    let artifact = ctx::fixture::load(&case).unwrap();
    let store = SqliteStore::open(&home.path().join("store.db"), StoreOptions::default())
        .expect("open store");
    let key = store.put(&artifact).expect("put");
    let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(["expand", &key.short(), "--item", "src/hir/ranges.rs"])
        .env("CTX_HOME", home.path())
        .env_remove("CTX_STORE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let raw = String::from_utf8_lossy(artifact.bytes()).into_owned();
    let start = raw.find("diff --git a/src/hir/interval.rs").unwrap();
    let end = raw[start..]
        .find("\ndiff --git ")
        .map_or(raw.len(), |e| start + e + 1);
    assert!(text.contains(&raw[start..end]), "{text}");
}

/// The property: the digest's lines that are not ctx's own are raw lines,
/// byte for byte, in the raw order (a subsequence of the raw lines).
fn assert_subsequence(raw: &[u8], digest: &str) {
    let raw_lines: Vec<&str> = std::str::from_utf8(raw).unwrap().lines().collect();
    let mut at = 0;
    for (i, line) in digest.lines().enumerate() {
        if line.starts_with("[ctx]") || i == 0 {
            continue;
        }
        match raw_lines[at..].iter().position(|r| *r == line) {
            Some(p) => at += p + 1,
            None => panic!(
                "digest line {} is not a raw line in order: {line:?}\n{digest}",
                i + 1
            ),
        }
    }
}

#[test]
fn fixtures_keep_diff_lines_verbatim_at_every_budget() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        for budget in [256, 600, 1200, 3000, 8000] {
            if let Some(text) = digest_at(&artifact, Some(budget)) {
                assert_subsequence(artifact.bytes(), &text);
            }
        }
    }
}

#[test]
fn a_huge_single_file_deletion_is_one_counted_line() {
    let mut raw = String::from(
        "diff --git a/data.csv b/data.csv\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/data.csv\n+++ /dev/null\n@@ -1,150000 +0,0 @@\n",
    );
    for i in 0..150_000 {
        raw.push_str(&format!("-row {i},value {}\n", i * 7));
    }
    let argv = vec!["git".into(), "diff".into()];
    let artifact = Artifact::from_stdout(raw.into_bytes(), Exit::Code(0), argv);
    let text = digest_at(&artifact, None).expect("a digest");
    assert!(text.starts_with("git diff: OK · 1 file changed, 0 insertions, 150,000 deletions"));
    assert!(
        text.contains("[ctx] data.csv | deleted · +0 -150,000 · 1 hunk\n"),
        "{text}"
    );
    assert!(text.contains("1 hunk left out of data.csv: ctx expand 5c5c5c5c5c5c --item data.csv"));
    assert!(text.lines().count() < 10, "{text}");
}

/// A hunk's lines: (`' '`, `'+'` or `'-'`, the text after it).
type Hunk = Vec<(u8, String)>;

/// A unified diff of `files`; a file with `stray` set is followed by a
/// line outside any block, as `diff -r` prints `Only in …`.
fn diff_text(files: &[(String, Vec<Hunk>, bool)]) -> String {
    let mut out = String::new();
    for (path, hunks, stray) in files {
        out.push_str(&format!(
            "diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        ));
        let mut at = 1;
        for hunk in hunks {
            let old = hunk.iter().filter(|(k, _)| *k != b'+').count();
            let new = hunk.iter().filter(|(k, _)| *k != b'-').count();
            out.push_str(&format!("@@ -{at},{old} +{at},{new} @@ fn f()\n"));
            for (kind, text) in hunk {
                out.push(*kind as char);
                out.push_str(text);
                out.push('\n');
            }
            at += old + 10;
        }
        if *stray {
            out.push_str(&format!("Only in old: {path}.orig\n"));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_digest_of_a_diff_keeps_its_lines_verbatim_and_in_order(
        files in prop::collection::vec(
            (
                "[a-z]{1,8}(/[a-z]{1,8}){0,2}\\.rs",
                prop::collection::vec(
                    prop::collection::vec(
                        (prop::sample::select(vec![b' ', b'+', b'-']), "[ -~]{0,60}"),
                        1..40,
                    ),
                    1..6,
                ),
                any::<bool>(),
            ),
            1..12,
        ),
        budget in 256usize..4000,
    ) {
        let raw = diff_text(&files);
        let artifact = Artifact::from_stdout(
            raw.clone().into_bytes(),
            Exit::Code(0),
            vec!["git".into(), "diff".into()],
        );
        if let Some(text) = digest_at(&artifact, Some(budget)) {
            assert_subsequence(raw.as_bytes(), &text);
            for (path, _, _) in &files {
                prop_assert!(
                    text.contains(&format!("[ctx] {path} | ")),
                    "{} lost:\n{}", path, text
                );
            }
        }
    }
}

#[test]
fn a_census_over_the_ceiling_is_grouped_with_exact_counts() {
    let mut raw = String::new();
    for d in 0..30 {
        for f in 0..100 {
            let path = format!("dir{d}/sub/file{f}.txt");
            raw.push_str(&format!(
                "diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-old {f}\n+new {f}\n"
            ));
        }
    }
    let argv = vec!["git".into(), "diff".into()];
    let artifact = Artifact::from_stdout(raw.into_bytes(), Exit::Code(0), argv);
    let text = digest_at(&artifact, None).expect("a digest");
    assert!(
        text.starts_with("git diff: OK · 3,000 files changed, 3,000 insertions, 3,000 deletions"),
        "{text}"
    );
    assert!(
        text.contains("[ctx] census grouped (exceeds the 2,000-token budget)"),
        "{text}"
    );
    assert!(
        text.contains("[ctx]   dir0/ 100 files · +100 -100\n"),
        "{text}"
    );
    assert!(
        text.contains("3,000 changed files and commits, listed: ctx expand 5c5c5c5c5c5c --items"),
        "{text}"
    );
}

/// `git show REV:PATH` prints a file (a blob), `git show REV:DIR` a tree
/// listing: no diff at all. Read as one, the digest said `0 files changed`
/// and showed none of the file. Such output is not the diff family's.
#[test]
fn git_show_of_a_blob_is_not_read_as_a_diff() {
    let source: String = (0..600)
        .map(|i| format!("fn item_{i}() -> u32 {{ {i} }}\n"))
        .collect();
    for argv in [
        "git show HEAD:src/lib.rs",
        "git --no-pager show v1.2.0:Cargo.toml",
        "git show main~3:src/",
    ] {
        let argv: Vec<String> = argv.split(' ').map(String::from).collect();
        let artifact = Artifact::from_stdout(source.clone().into_bytes(), Exit::Code(0), argv);
        let d = pipeline::digest(
            &artifact,
            &Known(ArchiveKey([0x5c; 32])),
            &Options::default(),
        )
        .unwrap();
        assert_ne!(d.profile, "git_diff/v1", "{:?}", artifact.argv);
        if let Output::Digest(bytes) = &d.output {
            let text = String::from_utf8_lossy(bytes);
            assert!(text.contains("fn item_0() -> u32 { 0 }"), "{text}");
            assert!(!text.contains("0 files changed"), "{text}");
        }
    }
}
