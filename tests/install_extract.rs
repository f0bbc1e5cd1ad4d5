//! install/v1 against the truth of each captured fixture (npm's lock file
//! and `--json` error, pip's `--report` and `--log`, apt's simulation): a
//! failure's decisive lines come first and verbatim at every budget, a
//! success names every package the output names, warnings are counted and
//! each comes back by its identity, and no outcome contradicts the exit.

use std::path::{Path, PathBuf};

use ctx::archive::Known;
use ctx::artifact::Artifact;
use ctx::evidence::{ItemKind, Severity};
use ctx::pipeline::{self, Options, Output};
use ctx::store::ArchiveKey;
use ctx::{normalize, zoom};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/install");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("truth.json").is_file())
        .collect();
    out.sort();
    out
}

fn truth(case: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(case.join("truth.json")).unwrap()).unwrap()
}

fn name(case: &Path) -> String {
    case.file_name().unwrap().to_string_lossy().into_owned()
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

fn digest(artifact: &Artifact, budget: Option<usize>) -> (String, pipeline::Delivery) {
    let options = Options {
        budget,
        ..Options::default()
    };
    let d = pipeline::digest(artifact, &Known(ArchiveKey([0x2c; 32])), &options).unwrap();
    let text = match &d.output {
        Output::Digest(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Output::Raw => String::from_utf8_lossy(artifact.bytes()).into_owned(),
    };
    (text, d)
}

#[test]
fn failures_come_first_and_verbatim_at_every_budget() {
    let all = cases();
    assert!(all.len() >= 25, "install fixtures missing: {}", all.len());
    let mut checked = 0;
    for case in all {
        let n = name(&case);
        let t = truth(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let mut wanted = strings(&t["errors"]);
        // pip's log holds the build's output even when pip did not print
        // it (no -v): only what the output shows can be required.
        let raw = String::from_utf8_lossy(artifact.bytes()).into_owned();
        wanted.extend(
            strings(&t["compiler_errors"])
                .into_iter()
                .filter(|e| raw.contains(e.as_str())),
        );
        for budget in [None, Some(256)] {
            let (text, d) = digest(&artifact, budget);
            assert_eq!(d.profile, "install/v1", "{n}");
            let lines: Vec<&str> = text.lines().collect();
            if d.output == Output::Digest(text.clone().into_bytes()) {
                checked += 1;
                let header = lines[0];
                let failed = artifact.exit.is_failure();
                assert_eq!(header.contains(": FAILED"), failed, "{n}: {header}");
                // The failures' block: every line after the header up to
                // the first line of ctx's own.
                let first_ctx = lines
                    .iter()
                    .position(|l| l.starts_with("[ctx] "))
                    .unwrap_or(lines.len());
                for w in &wanted {
                    let at = lines
                        .iter()
                        .position(|l| l.trim() == w || l.contains(w.as_str()));
                    assert!(
                        at.is_some_and(|at| at < first_ctx),
                        "{n} at {budget:?}: {w:?} not first and verbatim:\n{text}"
                    );
                }
            } else {
                for w in &wanted {
                    assert!(text.contains(w.as_str()), "{n}: {w:?}");
                }
            }
        }
    }
    assert!(checked >= 2, "only {checked} digests checked");
}

#[test]
fn successes_name_their_packages_and_counts() {
    for case in cases() {
        let n = name(&case);
        let t = truth(&case);
        if t["outcome"] != "ok" {
            continue;
        }
        let artifact = ctx::fixture::load(&case).unwrap();
        let (text, _) = digest(&artifact, None);
        // Package names as PEP 503 compares them: pip prints `pygments`
        // where the report's metadata says `Pygments`.
        let norm = |s: &str| s.to_lowercase().replace('_', "-");
        let hay = norm(&text);
        for p in strings(&t["named"]) {
            assert!(
                hay.contains(&norm(&p)),
                "{n}: package {p} not named:\n{text}"
            );
        }
        if n == "npm-deprecated" {
            let added = t["added"].as_u64().unwrap();
            assert!(text.contains(&format!("added {added} packages")), "{n}");
        }
        assert!(!text.lines().next().unwrap_or("").contains("FAILED"), "{n}");
    }
}

#[test]
fn every_warning_is_counted_and_comes_back_by_its_identity() {
    let mut seen = 0;
    for case in cases() {
        let n = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (profile, graph, contract) = zoom::evidence(&artifact).unwrap();
        let warnings: Vec<_> = graph
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Warning && i.severity == Severity::Warning)
            .collect();
        if warnings.is_empty() {
            continue;
        }
        seen += warnings.len();
        let counted = graph
            .counts
            .iter()
            .find(|(w, _)| w.starts_with("warning"))
            .map(|(_, c)| *c);
        assert_eq!(counted, Some(warnings.len() as u64), "{n}");
        let filter = zoom::ItemFilter {
            severity: Some("warning".to_string()),
            ..zoom::ItemFilter::default()
        };
        assert_eq!(
            zoom::items(&contract, &graph, &filter).len(),
            warnings.len(),
            "{n}"
        );
        for w in warnings {
            let spans = zoom::item_spans(profile, &graph, &w.identity).unwrap();
            let first = normalize::line(artifact.line(spans[0].first)).into_owned();
            assert!(
                first.contains(&w.identity),
                "{n}: {first:?} vs {:?}",
                w.identity
            );
        }
    }
    // npm --force prints its own warning and the overridden peer conflict.
    assert!(seen >= 2, "{seen} warnings in the fixtures");
}

/// cargo build's `Compiling` lines stay with cargo_build, which keeps every
/// compiler error; installs claim only what installs.
#[test]
fn builds_stay_builds_and_installs_are_told_by_command() {
    let argv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    let out =
        b"   Compiling foo v0.1.0\nerror[E0308]: mismatched types\n --> src/main.rs:2:5\n".to_vec();
    let a = Artifact::from_stdout(out, ctx::artifact::Exit::Code(101), argv("cargo build"));
    assert_eq!(
        ctx::classify::choose(&a, None).unwrap().0.family(),
        "cargo_build"
    );
    for cmd in [
        "npm ci",
        "sudo apt-get -y install tree",
        "python3 -m pip install requests",
        "timeout 600 pnpm install",
        "yarn add react",
    ] {
        let a = Artifact::from_stdout(b"x\n".to_vec(), ctx::artifact::Exit::Code(0), argv(cmd));
        assert_eq!(
            ctx::classify::choose(&a, None).unwrap().0.family(),
            "install",
            "{cmd}"
        );
    }
    for cmd in ["npm test", "npm run build", "pip list", "apt-get update"] {
        let a = Artifact::from_stdout(b"x\n".to_vec(), ctx::artifact::Exit::Code(0), argv(cmd));
        assert_ne!(
            ctx::classify::choose(&a, None).unwrap().0.family(),
            "install",
            "{cmd}"
        );
    }
}

/// What the extractor read from each fixture, line by line: the outcome
/// and counts, each failure and warning with its lines, and the lines that
/// name what changed. One insta snapshot per case.
#[test]
fn every_fixture_reads_as_snapshotted() {
    for case in cases() {
        let n = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (_, graph, _) = zoom::evidence(&artifact).unwrap();
        let line = |k: usize| normalize::line(artifact.line(k)).into_owned();
        let mut out = format!(
            "tool: {}\noutcome: {:?}\ncounts: {:?}\n",
            graph.reader.tool().unwrap_or_default(),
            graph.outcome,
            graph.counts
        );
        for item in &graph.items {
            out += &format!(
                "{:?} {:?} [{}] {}\n",
                item.kind,
                item.severity,
                item.class.as_deref().unwrap_or("-"),
                item.identity
            );
            let lines: Vec<usize> = if item.detail.is_empty() {
                item.block
                    .map_or(Vec::new(), |b| (b.first..=b.last).collect())
            } else {
                item.detail.iter().map(|s| s.first).collect()
            };
            for k in lines {
                out += &format!("  {k:>4} | {}\n", line(k));
            }
        }
        out += "conclusion:\n";
        for s in &graph.conclusion {
            out += &format!("  {:>4} | {}\n", s.first, line(s.first));
        }
        insta::assert_snapshot!(format!("read__{n}"), out);
    }
}

/// Each manager the family names has captured fixtures: a success and a
/// genuine failure at least.
#[test]
fn every_manager_has_a_success_and_a_failure() {
    let all: Vec<(String, String)> = cases()
        .iter()
        .map(|c| {
            let t = truth(c);
            (name(c), t["outcome"].as_str().unwrap_or("").to_string())
        })
        .collect();
    for manager in ["npm", "pnpm", "yarn", "pip", "go", "bundle"] {
        for outcome in ["ok", "error"] {
            assert!(
                all.iter()
                    .any(|(n, o)| n.starts_with(&format!("{manager}-")) && o == outcome),
                "no {outcome} fixture for {manager}"
            );
        }
    }
}

/// Messages a tool wraps at the terminal's width (pnpm's cause chain,
/// Bundler's errors) belong whole to their failure: the message from the
/// tool's machine-readable twin, whitespace and pnpm's box-drawing left
/// aside, is in the failure's own lines (what a digest shows first, at
/// every budget), and in a digest's lines before ctx's first own line.
#[test]
fn wrapped_error_messages_belong_whole_to_their_failure() {
    let squash = |s: &str| {
        s.chars()
            .filter(|c| !c.is_whitespace() && !matches!(c, '│' | '╰' | '├' | '─' | '▶' | '×'))
            .collect::<String>()
    };
    // Each part in order (pnpm's JSON joins the chain's steps with `: `).
    let holds = |hay: &str, m: &str| {
        let mut at = 0;
        m.split(": ")
            .map(squash)
            .all(|p| match hay[at..].find(p.as_str()) {
                Some(k) => {
                    at += k + p.len();
                    true
                }
                None => false,
            })
    };
    let mut checked = 0;
    for case in cases() {
        let n = name(&case);
        let messages = strings(&truth(&case)["messages"]);
        if messages.is_empty() {
            continue;
        }
        let artifact = ctx::fixture::load(&case).unwrap();
        let (_, graph, _) = zoom::evidence(&artifact).unwrap();
        let failures: Vec<String> = graph
            .items
            .iter()
            .filter(|i| i.severity == Severity::Error)
            .map(|i| {
                let lines: Vec<String> = i
                    .detail
                    .iter()
                    .map(|s| normalize::line(artifact.line(s.first)).into_owned())
                    .collect();
                squash(&lines.join("\n"))
            })
            .collect();
        for m in &messages {
            assert!(
                failures.iter().any(|f| holds(f, m)),
                "{n}: {m:?} is not one failure's lines: {failures:?}"
            );
            for budget in [None, Some(256)] {
                let (text, _) = digest(&artifact, budget);
                let first: Vec<&str> = text
                    .lines()
                    .take_while(|l| !l.starts_with("[ctx] "))
                    .collect();
                assert!(
                    holds(&squash(&first.join("\n")), m),
                    "{n} at {budget:?}: {m:?} not first:\n{text}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked} messages checked");
}

/// The counts the header states are the tool's: packages added and
/// removed as the machine-readable twin says (pnpm's stats, yarn's tree,
/// go's module list, Bundler's lock file).
#[test]
fn counts_agree_with_the_tools_own_record() {
    for case in cases() {
        let n = name(&case);
        let t = truth(&case);
        if t["outcome"] != "ok" {
            continue;
        }
        let artifact = ctx::fixture::load(&case).unwrap();
        let (_, graph, _) = zoom::evidence(&artifact).unwrap();
        let count = |w: &str| graph.counts.iter().find(|(k, _)| k == w).map(|(_, v)| *v);
        let added = t["added"].as_u64();
        let removed = t["removed_count"].as_u64().filter(|&r| r > 0);
        match t["tool"].as_str() {
            Some("pnpm") => {
                assert_eq!(count("added"), added.filter(|&a| a > 0), "{n}");
                assert_eq!(count("removed"), removed, "{n}");
            }
            Some("yarn") => assert_eq!(count("added"), added, "{n}"),
            Some("go") => assert_eq!(count("downloaded"), added, "{n}"),
            Some("bundle") => {
                // Bundler counts itself among the gems it uses; its lock
                // file does not list it.
                let used = count("installed").unwrap_or(0) + count("using").unwrap_or(0);
                assert_eq!(Some(used - 1), added, "{n}");
            }
            _ => {}
        }
    }
}
