//! git's listings against real git runs (fixtures/git_log, git_status,
//! git_merge, git_sync; truth from `git log --format=%H%x00%h%x00%s…`,
//! `git status --porcelain=v2 -z`, `git diff --name-only --diff-filter=U`):
//! every commit keeps its short sha and subject, every path its state,
//! every conflicted path and error line survives — at the default budget
//! and a squeezed one — or, over the ceiling, is counted and listed by
//! `--items`; `--item SHA` brings back one commit whole.

use std::path::{Path, PathBuf};
use std::process::Command;

use ctx::archive::Known;
use ctx::artifact::Artifact;
use ctx::pipeline::{self, Options, Output};
use ctx::store::sqlite::{Options as StoreOptions, SqliteStore};
use ctx::store::{ArchiveKey, Store};
use ctx::zoom;
use serde_json::Value;

fn cases(family: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(family);
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no {family} fixtures");
    out
}

fn truth(case: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(case.join("truth.json")).ok()?;
    Some(serde_json::from_str(&text).unwrap())
}

/// The digest at `budget` (None: the contract's), or the raw text when
/// the raw output went out.
fn digest_at(artifact: &Artifact, budget: Option<usize>) -> (String, bool) {
    let options = Options {
        budget,
        ..Options::default()
    };
    let d = pipeline::digest(artifact, &Known(ArchiveKey([0x5c; 32])), &options).unwrap();
    match d.output {
        Output::Digest(bytes) => (String::from_utf8(bytes).unwrap(), true),
        Output::Raw => (
            String::from_utf8_lossy(artifact.bytes()).into_owned(),
            false,
        ),
    }
}

/// The budget a digest at `budget` was planned within, as its FLOOD note
/// words it (`1,200-token budget`).
fn budget_words(artifact: &Artifact, budget: Option<usize>) -> String {
    let (_, _, contract) = zoom::evidence(artifact).unwrap();
    let b = ctx::plan::Budget::from_contract(&contract, budget);
    format!("exceed the {}-token budget", ctx::render::count(b.census))
}

/// Every census identity `--items` lists.
fn listed(artifact: &Artifact) -> Vec<String> {
    let (_, graph, contract) = zoom::evidence(artifact).unwrap();
    zoom::items(&contract, &graph, &zoom::ItemFilter::default())
}

const BUDGETS: [Option<usize>; 2] = [None, Some(256)];

#[test]
fn every_commit_keeps_its_sha_and_subject() {
    let mut flooded = 0;
    for case in cases("git_log") {
        let artifact = ctx::fixture::load(&case).unwrap();
        let truth = truth(&case).unwrap();
        let commits = truth["commits"].as_array().unwrap();
        for budget in BUDGETS {
            let (text, digested) = digest_at(&artifact, budget);
            let items = listed(&artifact);
            let mut missing = 0;
            for c in commits {
                let (short, subject) =
                    (c["short"].as_str().unwrap(), c["subject"].as_str().unwrap());
                let inline = text
                    .lines()
                    .any(|l| l.contains(short) && l.contains(subject));
                if inline {
                    continue;
                }
                missing += 1;
                assert!(
                    items.iter().any(|i| i.starts_with(short)),
                    "{case:?} at {budget:?}: {short} {subject} neither inline nor listed\n{text}"
                );
            }
            if missing > 0 {
                flooded += 1;
                assert!(digested, "{case:?}: raw output lacks commits");
                let n = ctx::render::count(commits.len());
                let words = budget_words(&artifact, budget);
                assert!(
                    text.contains(&format!("[ctx] {n} commits {words}")),
                    "{case:?}: the exact count is not said\n{text}"
                );
                assert!(text.contains(&format!("{} more", ctx::render::count(missing))));
            }
        }
    }
    assert!(flooded >= 2, "the FLOOD cases were not exercised");
}

#[test]
fn flood_names_the_date_range_and_the_authors_with_counts() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/git_log/flood-default");
    let artifact = ctx::fixture::load(&case).unwrap();
    let (text, _) = digest_at(&artifact, None);
    let truth = truth(&case).unwrap();
    let commits = truth["commits"].as_array().unwrap();
    let note = text
        .lines()
        .find(|l| l.contains("commits exceed"))
        .expect("a FLOOD note");
    // The commits not listed are the oldest: their authors, counted.
    let more: usize = note
        .split(" more from ")
        .next()
        .and_then(|h| h.rsplit(' ').next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .expect("a count of the rest");
    let rest = &commits[commits.len() - more..];
    for author in ["Ada Example", "Grace Hopper-Example", "Ken Example"] {
        let n = rest.iter().filter(|c| c["author"] == author).count();
        assert!(
            note.contains(&format!("{author} ×{n}")),
            "{author} ×{n}: {note}"
        );
    }
    let times: Vec<i64> = rest.iter().map(|c| c["time"].as_i64().unwrap()).collect();
    let (from, to) = (
        day(*times.iter().min().unwrap()),
        day(*times.iter().max().unwrap()),
    );
    assert!(note.contains(&format!("from {from} to {to}")), "{note}");
}

/// `YYYY-MM-DD` (UTC) of a unix time: the civil-from-days algorithm.
fn day(unix: i64) -> String {
    let z = unix.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[test]
fn item_returns_one_commit_whole() {
    let home = tempfile::tempdir().unwrap();
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/git_log/stat");
    let artifact = ctx::fixture::load(&case).unwrap();
    let store = SqliteStore::open(&home.path().join("store.db"), StoreOptions::default())
        .expect("open store");
    let key = store.put(&artifact).expect("put");
    let truth = truth(&case).unwrap();
    let second = &truth["commits"][1];
    let sha = second["sha"].as_str().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(["expand", &key.short(), "--item", &sha[..12]])
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
    let start = raw.find(&format!("commit {sha}")).unwrap();
    let end = raw[start + 1..]
        .find("\ncommit ")
        .map_or(raw.len(), |e| start + e + 2);
    assert!(text.contains(raw[start..end].trim_end()), "{text}");
    assert!(
        !text.contains(truth["commits"][2]["sha"].as_str().unwrap()),
        "{text}"
    );
}

#[test]
fn every_status_path_survives_under_its_state() {
    let mut checked = 0;
    for case in cases("git_status") {
        let artifact = ctx::fixture::load(&case).unwrap();
        let truth = truth(&case).unwrap();
        for budget in BUDGETS {
            let (text, _) = digest_at(&artifact, budget);
            let items = listed(&artifact);
            for p in truth["paths"].as_array().unwrap() {
                let path = p["path"].as_str().unwrap();
                let inline = text.lines().any(|l| {
                    !l.starts_with("[ctx]")
                        && (l.ends_with(&format!(" {path}"))
                            || l.ends_with(&format!("\t{path}"))
                            || l.ends_with(&format!("-> {path}"))
                            || l.contains(&format!(" {path}\t")))
                });
                if inline {
                    continue;
                }
                // Collapsed with its directory's exact count, or past the
                // budget behind the FLOOD note; listed either way.
                let dir = path.rsplit_once('/').map_or("./", |(d, _)| d);
                assert!(
                    text.lines()
                        .any(|l| l.starts_with(&format!("[ctx] {dir}/ ×")))
                        || text.contains(&budget_words(&artifact, budget)),
                    "{case:?} at {budget:?}: {path} neither inline nor grouped\n{text}"
                );
                assert!(
                    items.iter().any(|i| i == path),
                    "{case:?}: {path} not listed"
                );
            }
            // The branch and its distance from the upstream.
            let branch = &truth["branch"];
            let head = branch["branch.head"].as_str().unwrap();
            // `-s` and `--porcelain` without `-b` print no branch at all.
            let printed = artifact
                .argv
                .iter()
                .any(|a| a == "-sb" || a == "-b" || a == "--branch")
                || !artifact
                    .argv
                    .iter()
                    .any(|a| a == "-s" || a.starts_with("--porcelain"));
            if !printed {
                checked += 1;
                continue;
            }
            assert!(text.contains(head), "{case:?}: branch {head} lost\n{text}");
            if let Some(ab) = branch["branch.ab"].as_str() {
                let ahead = ab.split(' ').next().unwrap().trim_start_matches('+');
                if ahead != "0" {
                    assert!(
                        text.contains(&format!("ahead {ahead}"))
                            || text.contains(&format!("by {ahead} commit"))
                            || text.contains(&format!("+{ahead} ")),
                        "{case:?}: ahead {ahead} lost\n{text}"
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 12);
}

/// The collapsed groups' counts are exact: they add up to the truth's
/// untracked paths under each directory.
#[test]
fn untracked_bulk_collapses_with_exact_counts() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/git_status/untracked-flood");
    let artifact = ctx::fixture::load(&case).unwrap();
    let (text, digested) = digest_at(&artifact, None);
    assert!(digested);
    let truth = truth(&case).unwrap();
    let mut groups = 0;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("[ctx] ") else {
            continue;
        };
        let Some((dir, n)) = rest.split_once(" ×") else {
            continue;
        };
        let Some(n) = n.strip_suffix(" untracked") else {
            continue;
        };
        let expected = truth["paths"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["state"] == "??")
            .filter(|p| {
                let path = p["path"].as_str().unwrap();
                path.rsplit_once('/')
                    .is_some_and(|(d, _)| format!("{d}/") == dir)
            })
            .count();
        assert_eq!(
            n.replace(',', "").parse::<usize>().unwrap(),
            expected,
            "{line}"
        );
        groups += 1;
    }
    assert_eq!(groups, 4, "{text}");
    assert!(
        text.len() * 5 < artifact.bytes().len(),
        "not reduced by 80 %"
    );
}

#[test]
fn every_conflicted_path_and_error_line_survives() {
    let mut conflicts = 0;
    for family in ["git_merge", "git_sync"] {
        for case in cases(family) {
            let artifact = ctx::fixture::load(&case).unwrap();
            let raw = String::from_utf8_lossy(artifact.bytes()).into_owned();
            for budget in BUDGETS {
                let (text, _) = digest_at(&artifact, budget);
                for path in truth(&case)
                    .and_then(|t| t["conflicts"].as_array().cloned())
                    .unwrap_or_default()
                {
                    let path = path.as_str().unwrap();
                    assert!(
                        text.lines()
                            .any(|l| l.starts_with("CONFLICT (") && l.ends_with(path)),
                        "{case:?}: conflict in {path} lost\n{text}"
                    );
                    conflicts += 1;
                }
                // Errors and refusals verbatim; progress never.
                let visible: Vec<String> = raw
                    .lines()
                    .map(|l| ctx::normalize::line(l.as_bytes()).into_owned())
                    .collect();
                for l in &visible {
                    if l.starts_with("error:") || l.starts_with("fatal:") || l.starts_with(" ! [") {
                        assert!(text.lines().any(|t| t == l), "{case:?}: {l:?} lost\n{text}");
                    }
                }
                if text.starts_with("git ") {
                    assert!(
                        !text.contains("Counting objects"),
                        "{case:?}: progress kept\n{text}"
                    );
                    assert!(!text.contains("hint:"), "{case:?}: hints kept\n{text}");
                }
            }
        }
    }
    assert!(conflicts >= 12, "{conflicts}");
}

/// A pull's or merge's diffstat names every changed file: each one is an
/// identity of the census, listed up to the ceiling, never cut to a
/// summary line (truth: `git diff --numstat`).
#[test]
fn every_file_a_pull_changed_survives() {
    let mut files = 0;
    for family in ["git_merge", "git_sync"] {
        for case in cases(family) {
            let Some(changed) = truth(&case).and_then(|t| t["changed"].as_array().cloned()) else {
                continue;
            };
            let artifact = ctx::fixture::load(&case).unwrap();
            let items = listed(&artifact);
            for budget in BUDGETS {
                let (text, digested) = digest_at(&artifact, budget);
                for path in &changed {
                    let path = path.as_str().unwrap();
                    let named = text
                        .lines()
                        .any(|l| l.trim_start().starts_with(&format!("{path} ")));
                    assert!(
                        named
                            || (text.contains("--items") && items.iter().any(|i| i.contains(path))),
                        "{case:?} at {budget:?}: {path} lost (digested: {digested})\n{text}"
                    );
                    files += 1;
                }
            }
        }
    }
    assert!(files >= 100, "{files}");
}

#[test]
fn failed_merges_and_refused_pushes_never_read_as_ok() {
    for family in ["git_merge", "git_sync"] {
        for case in cases(family) {
            let artifact = ctx::fixture::load(&case).unwrap();
            let (_, graph, _) = zoom::evidence(&artifact).unwrap();
            if artifact.exit.is_failure() {
                assert_ne!(graph.outcome, ctx::evidence::Outcome::Ok, "{case:?}");
            }
        }
    }
}

/// A warning or error line next to a listing over the budget is printed
/// once, verbatim, and the digest is not turned away by the guard (a line
/// planned twice overlaps itself).
#[test]
fn error_and_warning_lines_beside_a_long_listing_are_kept_once() {
    let mut log = String::from("warning: refname 'main' is ambiguous.\n");
    for i in 0..300 {
        log.push_str(&format!(
            "{:07x} Commit number {i} with a subject\n",
            0x1a2b3c0 + i
        ));
    }
    let mut status =
        String::from("warning: could not open directory 'secret/': Permission denied\n");
    status.push_str("error: unable to read tree 0123456\n");
    // Over the ceiling: a status printed whole would not be smaller.
    for i in 0..800 {
        status.push_str(&format!(" M src/module_{i}/file_{i}.rs\n"));
    }
    for (text, argv) in [
        (log, ["git", "log", "--oneline"]),
        (status, ["git", "status", "-s"]),
    ] {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        let artifact = Artifact::from_stdout(
            text.clone().into_bytes(),
            ctx::artifact::Exit::Code(0),
            argv,
        );
        let d = pipeline::digest(
            &artifact,
            &Known(ArchiveKey([0x5c; 32])),
            &Options::default(),
        )
        .unwrap();
        assert_eq!(d.rejection, None, "{text}");
        let Output::Digest(bytes) = d.output else {
            panic!("raw output went out")
        };
        let digest = String::from_utf8(bytes).unwrap();
        for line in text
            .lines()
            .filter(|l| l.starts_with("warning:") || l.starts_with("error:"))
        {
            assert_eq!(digest.lines().filter(|l| l == &line).count(), 1, "{digest}");
        }
    }
}

/// Every branch and tag `git for-each-ref` knows is named by the listing's
/// digest, or (over the ceiling) counted by prefix and listed by `--items`.
#[test]
fn every_branch_and_tag_survives() {
    let mut checked = 0;
    for case in cases("git_refs") {
        let Some(truth) = truth(&case) else { continue };
        let artifact = ctx::fixture::load(&case).unwrap();
        let tags = artifact.argv.iter().any(|a| a == "tag");
        for budget in BUDGETS {
            let (text, _) = digest_at(&artifact, budget);
            let items = listed(&artifact);
            for r in truth["refs"].as_array().unwrap() {
                let full = r["ref"].as_str().unwrap();
                let name = match (tags, full.strip_prefix("refs/tags/")) {
                    (true, Some(t)) => t.to_string(),
                    (true, None) => continue,
                    (false, _) => match full.strip_prefix("refs/heads/") {
                        Some(b) => b.to_string(),
                        None => match full.strip_prefix("refs/remotes/") {
                            Some(b) => format!("remotes/{b}"),
                            None => continue,
                        },
                    },
                };
                let inline = text.lines().any(|l| {
                    l == name
                        || l.get(2..)
                            .is_some_and(|b| b.split(' ').next() == Some(&name))
                });
                if !inline {
                    assert!(
                        items.contains(&name) && text.contains(&budget_words(&artifact, budget)),
                        "{case:?} at {budget:?}: {name} lost\n{text}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

/// Every commit that owns lines of the blamed file is named with its exact
/// line count (truth: `git blame --porcelain`), and `--item SHA` returns
/// every line it owns.
#[test]
fn every_blamed_commit_survives_with_its_line_count() {
    for case in cases("git_blame") {
        let artifact = ctx::fixture::load(&case).unwrap();
        let truth = truth(&case).unwrap();
        let (profile, graph, contract) = zoom::evidence(&artifact).unwrap();
        let items = listed(&artifact);
        for budget in BUDGETS {
            let (text, digested) = digest_at(&artifact, budget);
            let words = budget_words(&artifact, budget);
            for c in truth["commits"].as_array().unwrap() {
                let sha = c["sha"].as_str().unwrap();
                let lines = c["lines"].as_u64().unwrap();
                if digested {
                    let noun = if lines == 1 { "line" } else { "lines" };
                    let count = format!(": {} {noun} (", ctx::render::count(lines as usize));
                    // Inline with its count, or past the budget behind the
                    // FLOOD note and listed by `--items`.
                    let inline = text.lines().any(|l| {
                        l.starts_with(&format!("[ctx] {}", &sha[..7])) && l.contains(&count)
                    });
                    let behind =
                        text.contains(&words) && items.iter().any(|i| sha.starts_with(i.as_str()));
                    assert!(
                        inline || behind,
                        "{case:?} at {budget:?}: {sha} ×{lines} lost\n{text}"
                    );
                }
                let id = contract
                    .census(&graph)
                    .find(|i| sha.starts_with(&i.identity))
                    .map(|i| i.identity.clone())
                    .unwrap_or_else(|| panic!("{case:?}: no item for {sha}"));
                let spans = zoom::item_spans(profile, &graph, &id).unwrap();
                let owned: usize = spans.iter().map(|s| s.len()).sum();
                assert_eq!(owned as u64, lines, "{case:?}: --item {id}");
            }
        }
    }
}
