//! search/v1 against the truth of each captured fixture (`rg --json` over
//! the same pattern and paths): every matching file found with its exact
//! count, named in the digest, and `--item PATH` bringing back exactly that
//! file's match lines. Then the built binary on a generated tree: a grep
//! with many files, and a grep with no match (exit 1, not a failure).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use ctx::archive::Known;
use ctx::artifact::{Artifact, Exit};
use ctx::evidence::ItemKind;
use ctx::pipeline::{self, Options, Output};
use ctx::plan::Rung;
use ctx::store::ArchiveKey;
use ctx::{classify, normalize, zoom};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/search");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("truth.json").is_file())
        .collect();
    out.sort();
    out
}

/// The truth's files: path → (matching lines, matches).
fn truth(case: &Path) -> BTreeMap<String, (u64, u64)> {
    let text = std::fs::read_to_string(case.join("truth.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                (f["lines"].as_u64().unwrap(), f["matches"].as_u64().unwrap()),
            )
        })
        .collect()
}

fn case_name(case: &Path) -> String {
    case.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_matching_file_and_its_count_is_found() {
    let all = cases();
    assert!(all.len() >= 10, "search fixtures missing: {}", all.len());
    for case in all {
        let name = case_name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (profile, graph, _) = zoom::evidence(&artifact).unwrap();
        assert_eq!(profile.version(), "search/v1", "{name}");
        let mut found: BTreeMap<String, Option<u64>> = BTreeMap::new();
        for item in graph
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::MatchingFile)
        {
            let n = item
                .fields
                .get("matches")
                .map(|m| m.parse::<u64>().unwrap());
            // `grep -c` lists the files it searched without a match too.
            if n != Some(0) {
                found.insert(item.identity.clone(), n);
            }
        }
        let truth = truth(&case);
        assert_eq!(
            found.keys().collect::<Vec<_>>(),
            truth.keys().collect::<Vec<_>>(),
            "{name}: matching files"
        );
        for (path, (lines, matches)) in &truth {
            let want = match name.as_str() {
                "grep-l" => None,
                "rg-vimgrep" => Some(*matches),
                _ => Some(*lines),
            };
            let got = found[path];
            // A binary file's matches are withheld by the tool: no count.
            if name == "binary-denied" && path.ends_with(".bin") {
                assert_eq!(got, None, "{name}: {path}");
                continue;
            }
            assert_eq!(got, want, "{name}: count of {path}");
        }
    }
}

#[test]
fn digests_name_every_file_and_items_bring_back_its_matches() {
    for case in cases() {
        let name = case_name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let d = pipeline::digest(
            &artifact,
            &Known(ArchiveKey([0x5c; 32])),
            &Options::default(),
        )
        .unwrap();
        let Output::Digest(bytes) = &d.output else {
            continue;
        };
        let text = String::from_utf8_lossy(bytes);
        let trace = d.trace.as_ref().unwrap();
        let listed = zoom::items(&trace.contract, &trace.graph, &zoom::ItemFilter::default());
        let (profile, graph, _) = zoom::evidence(&artifact).unwrap();
        for path in truth(&case).keys() {
            let named = text.contains(path.as_str());
            let grouped = trace.plan.rung == Rung::Flood && listed.contains(path);
            assert!(named || grouped, "{name}: {path} not in the digest");
            // Every digest line is a raw line or ctx's own: nothing rewritten.
            let spans = zoom::item_spans(profile, &graph, path).unwrap();
            let lines: Vec<String> = spans
                .iter()
                .flat_map(|s| s.first..=s.last)
                .map(|n| normalize::line(artifact.line(n)).into_owned())
                .collect();
            let is_match = |l: &str| match name.as_str() {
                "rg-heading" => l
                    .split_once(':')
                    .is_some_and(|(n, _)| n.parse::<u64>().is_ok()),
                "rg-json" => l.contains(r#""type":"match""#),
                _ => l.starts_with(&format!("{path}:")),
            };
            let got = lines.iter().filter(|l| is_match(l)).count() as u64;
            let (want_lines, want_matches) = truth(&case)[path];
            let want = if name == "rg-vimgrep" {
                want_matches
            } else {
                want_lines
            };
            if !path.ends_with(".bin") && name != "grep-c" && name != "grep-l" {
                assert_eq!(got, want, "{name}: --item {path}");
            }
        }
        for line in text.lines().skip(1) {
            let raw =
                (1..=artifact.line_count()).any(|n| normalize::line(artifact.line(n)) == line);
            assert!(raw || line.starts_with("[ctx] "), "{name}: {line:?}");
        }
    }
}

fn argv(s: &str) -> Vec<String> {
    s.split(' ').map(String::from).collect()
}

#[test]
fn searches_are_told_by_command_and_compilers_stay_compilers() {
    // A grep match that reads like a gcc diagnostic is still a search.
    let grep_out = b"src/a.c:12:3: error: expected ';'\n".to_vec();
    for cmd in [
        "grep -rn error src",
        "rg error",
        "git grep -n error",
        "timeout 5 rg -n error",
    ] {
        let a = Artifact::from_stdout(grep_out.clone(), Exit::Code(0), argv(cmd));
        let (p, _) = classify::choose(&a, None).unwrap();
        assert_eq!(p.version(), "search/v1", "{cmd}");
    }
    // And a compiler's diagnostics never are.
    let a = Artifact::from_stdout(grep_out, Exit::Code(1), argv("gcc -c src/a.c"));
    assert_eq!(classify::choose(&a, None).unwrap().0.family(), "gcc");
    let a = Artifact::from_stdout(b"x\n".to_vec(), Exit::Code(0), argv("git log"));
    assert_ne!(classify::choose(&a, None).unwrap().0.family(), "search");
    // Content alone claims only rg's JSON messages.
    let json = br#"{"type":"begin","data":{"path":{"text":"a.rs"}}}"#.to_vec();
    let a = Artifact::from_stdout(json, Exit::Unknown, Vec::new());
    assert_eq!(classify::choose(&a, None).unwrap().0.family(), "search");
    let plain = b"src/a.rs:1:fn main() {}\n".to_vec();
    let a = Artifact::from_stdout(plain, Exit::Unknown, Vec::new());
    assert_ne!(classify::choose(&a, None).unwrap().0.family(), "search");
}

fn ctx(home: &Path, cwd: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(args)
        .env("CTX_HOME", home)
        .env_remove("CTX_STORE")
        .env_remove("CTX_BUDGET")
        .current_dir(cwd)
        .output()
        .expect("run ctx")
}

/// 40 files, file k holding 10 + k matching lines among others.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for k in 0..40 {
        let sub = dir.path().join(format!("d{}", k % 4));
        std::fs::create_dir_all(&sub).unwrap();
        let mut body = String::new();
        for i in 0..(10 + k) {
            body.push_str(&format!(
                "let needle_{i} = compute({k}, {i});\nother line {i}\n"
            ));
        }
        std::fs::write(sub.join(format!("f{k:02}.rs")), body).unwrap();
    }
    dir
}

/// At the default budget (1,200 tokens) the 40 files with their first
/// matches do not fit: each is named with its exact count, within the
/// budget, and one marker gives the address of a file's matches.
#[test]
fn a_large_grep_within_its_budget_names_every_file_with_its_count() {
    let home = tempfile::tempdir().unwrap();
    let dir = tree();
    let out = ctx(
        home.path(),
        dir.path(),
        &["run", "--digest", "--", "grep", "-rn", "needle", "."],
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.starts_with("grep: OK · 1,180 matches, 40 files · exit 0\n"),
        "{text}"
    );
    assert!(ctx::tokens::estimate(text.as_bytes()) <= 1_300, "{text}");
    for k in 0..40 {
        let named = format!("./d{}/f{k:02}.rs ×{}", k % 4, 10 + k);
        assert!(text.contains(&named), "{named} not named\n{text}");
    }
    assert!(
        text.lines().any(
            |l| l.starts_with("[ctx] … 40 matching files shown without their detail")
                && l.contains("--item ./d")
        ),
        "{text}"
    );
}

/// With room for them, every file's first match, and per file the exact
/// number left with its `--item` address, which returns its lines.
#[test]
fn a_large_grep_names_every_file_and_item_returns_its_lines() {
    let home = tempfile::tempdir().unwrap();
    let dir = tree();
    let out = ctx(
        home.path(),
        dir.path(),
        &[
            "run", "--digest", "--budget", "4000", "--", "grep", "-rn", "needle", ".",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // 10 + 11 + … + 49 matching lines.
    assert!(
        text.starts_with("grep: OK · 1,180 matches, 40 files · exit 0\n"),
        "{text}"
    );
    let key = text
        .lines()
        .last()
        .and_then(|l| l.split("ctx expand ").nth(1))
        .and_then(|r| r.split([' ', ';']).next())
        .unwrap()
        .to_string();
    for k in 0..40 {
        let path = format!("./d{}/f{k:02}.rs", k % 4);
        let first = format!("{path}:1:let needle_0 = compute({k}, 0);");
        assert!(
            text.lines().any(|l| l == first),
            "{path}: first match missing\n{text}"
        );
        let marker = text
            .lines()
            .find(|l| l.ends_with(&format!("--item {path}")));
        let marker = marker.unwrap_or_else(|| panic!("{path}: no marker\n{text}"));
        assert!(marker.contains(&format!("({} in all)", 10 + k)), "{marker}");
        let back = ctx(home.path(), dir.path(), &["expand", &key, "--item", &path]);
        let back = String::from_utf8_lossy(&back.stdout).into_owned();
        let want: Vec<String> = (0..10 + k)
            .map(|i| format!("{path}:{}:let needle_{i} = compute({k}, {i});", 2 * i + 1))
            .collect();
        assert_eq!(back.lines().collect::<Vec<_>>(), want, "--item {path}");
    }
}

#[test]
fn no_match_is_exit_1_and_never_a_failure() {
    let home = tempfile::tempdir().unwrap();
    let dir = tree();
    // `grep -c` prints a line per file searched, so the run is digested.
    let out = ctx(
        home.path(),
        dir.path(),
        &[
            "run", "--digest", "--budget", "256", "--", "grep", "-rc", "haystack", ".",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("grep: OK · 0 matches, 0 files, 40 files without a match · exit 1"),
        "{text}"
    );
    assert!(
        lines.next().is_some_and(|l| l
            .starts_with("[ctx] … 40 files without a match: ctx expand ")
            && l.ends_with(" --items")),
        "{text}"
    );
    let out = ctx(
        home.path(),
        dir.path(),
        &["run", "--digest", "--", "grep", "-rn", "haystack", "."],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, b"");
}

#[test]
fn a_flood_of_files_is_named_while_it_fits_and_listed_by_items() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // 900 files in 9 folders, one match each: the list alone is over the ceiling.
    for k in 0..900 {
        let sub = dir.path().join(format!("pkg{}", k % 9));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("module_{k:03}.py")), "import needle\n").unwrap();
    }
    let out = ctx(
        home.path(),
        dir.path(),
        &["run", "--digest", "--", "grep", "-rn", "needle", "."],
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.starts_with("grep: OK · 900 matches, 900 files · exit 0\n"),
        "{text}"
    );
    assert!(text.contains("[ctx] not named, by folder: ./pkg"), "{text}");
    let marker = text
        .lines()
        .find(|l| l.contains("more matching files: ctx expand "))
        .unwrap_or_else(|| panic!("no --items marker\n{text}"));
    let left: usize = marker
        .trim_start_matches("[ctx] … ")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let named = text.matches(".py ×1").count();
    assert!(named > 0, "{text}");
    assert_eq!(named + left, 900, "{text}");
    let key = marker
        .split("ctx expand ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    let items = ctx(home.path(), dir.path(), &["expand", key, "--items"]);
    assert_eq!(String::from_utf8_lossy(&items.stdout).lines().count(), 900);
}
