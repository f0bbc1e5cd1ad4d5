//! listing/v1 against the truth of each captured fixture (`find -printf`
//! over the listed tree): every folder found and named in the digest at
//! the default budget and at squeezed ones, the exact entry count, every
//! anomaly the file system shows kept whole, and no listed line rewritten
//! or moved out of the listing's order.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctx::archive::Known;
use ctx::artifact::Artifact;
use ctx::evidence::{EvidenceGraph, ItemKind};
use ctx::pipeline::{self, Options, Output};
use ctx::plan::Rung;
use ctx::store::ArchiveKey;
use ctx::{normalize, zoom};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/listing");
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

/// A truth path (relative, no `./`) as the tool names it.
fn as_listed(case: &str, path: &str) -> String {
    if case.starts_with("ls-la") || case.starts_with("du-sh") {
        path.to_string()
    } else {
        format!("./{path}")
    }
}

fn folders(graph: &EvidenceGraph) -> BTreeSet<String> {
    graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Directory && !i.fields.contains_key("root"))
        .map(|i| i.identity.clone())
        .collect()
}

#[test]
fn every_folder_entry_and_anomaly_is_found() {
    let all = cases();
    assert!(all.len() >= 15, "listing fixtures missing: {}", all.len());
    for case in all {
        let n = name(&case);
        let t = truth(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (profile, graph, _) = zoom::evidence(&artifact).unwrap();
        assert_eq!(profile.version(), "listing/v1", "{n}");
        let want: BTreeSet<String> = t["directories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| as_listed(&n, d.as_str().unwrap()))
            .collect();
        let got = folders(&graph);
        // Plain `ls -R` names folders by their sections; `du -sh *` names
        // entries without saying which are folders.
        if n != "du-sh" {
            assert_eq!(got, want, "{n}: folders");
        }
        let entries = graph.counts[0].1;
        assert_eq!(entries, t["entries"].as_u64().unwrap(), "{n}: entries");
        let anomalies: BTreeSet<String> = graph
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Anomaly)
            .map(|i| i.identity.clone())
            .collect();
        // Modes and sizes are printed by ls -l, find -ls and tree -p only.
        let long = n.starts_with("ls-l") || n == "find-ls";
        if long {
            for a in t["anomalies"].as_array().unwrap() {
                let path = as_listed(&n, a["path"].as_str().unwrap());
                assert!(anomalies.contains(&path), "{n}: anomaly {path} ({a})");
            }
            // The fourth largest size: files tied with it may rank either way.
            let mut sizes: Vec<u64> = t["all"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["type"] == "f")
                .map(|e| e["size"].as_u64().unwrap())
                .collect();
            sizes.sort_unstable_by(|a, b| b.cmp(a));
            let tie = sizes.get(3).copied().unwrap_or(0);
            for l in t["largest"].as_array().unwrap() {
                let size = l["size"].as_u64().unwrap();
                if size > tie && t["files"].as_u64().unwrap() > 3 {
                    let path = as_listed(&n, l["path"].as_str().unwrap());
                    assert!(anomalies.contains(&path), "{n}: largest {path}");
                }
            }
        }
    }
}

fn digest(artifact: &Artifact, budget: Option<usize>) -> (String, pipeline::Delivery) {
    let options = Options {
        budget,
        ..Options::default()
    };
    let d = pipeline::digest(artifact, &Known(ArchiveKey([0x1c; 32])), &options).unwrap();
    let text = match &d.output {
        Output::Digest(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Output::Raw => String::from_utf8_lossy(artifact.bytes()).into_owned(),
    };
    (text, d)
}

#[test]
fn every_folder_and_anomaly_survives_at_every_budget() {
    for case in cases() {
        let n = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let raw_tokens = ctx::tokens::estimate(artifact.bytes());
        for budget in [None, Some(256), Some(600)] {
            let (text, d) = digest(&artifact, budget);
            assert!(
                ctx::tokens::estimate(text.as_bytes()) <= raw_tokens,
                "{n} at {budget:?}: digest larger than the output"
            );
            let Some(trace) = &d.trace else { continue };
            if d.output == Output::Raw {
                continue;
            }
            let contract = ctx::contract::for_family("listing").unwrap();
            let listed = zoom::items(&contract, &trace.graph, &zoom::ItemFilter::default());
            for item in contract.census(&trace.graph) {
                let headline = item.headline.is_some_and(|h| {
                    let raw = normalize::line(artifact.line(h.first));
                    text.lines().any(|l| l == raw)
                });
                let named = headline || text.contains(&item.identity);
                let grouped = trace.plan.rung == Rung::Flood && listed.contains(&item.identity);
                assert!(
                    named || grouped,
                    "{n} at {budget:?}: {:?} {:?} lost",
                    item.kind,
                    item.identity
                );
            }
        }
    }
}

#[test]
fn listed_lines_keep_their_text_and_order() {
    for case in cases() {
        let n = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (text, d) = digest(&artifact, None);
        if d.output == Output::Raw {
            continue;
        }
        let raw: Vec<String> = (1..=artifact.line_count())
            .map(|k| normalize::line(artifact.line(k)).into_owned())
            .collect();
        // Each non-ctx line after the header is the next raw line at or
        // after the last one matched.
        let mut at = 0;
        for line in text.lines().skip(1) {
            if line.starts_with("[ctx] ") {
                continue;
            }
            let found = raw[at..].iter().position(|r| r == line);
            assert!(found.is_some(), "{n}: {line:?} is not a raw line in order");
            at += found.unwrap() + 1;
        }
    }
}

#[test]
fn items_bring_back_a_folder_and_the_types_add_up() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/listing/ls-lr");
    let artifact = ctx::fixture::load(&case).unwrap();
    let (profile, graph, _) = zoom::evidence(&artifact).unwrap();
    let spans = zoom::item_spans(profile, &graph, "./logs").unwrap();
    let lines: Vec<String> = spans
        .iter()
        .flat_map(|s| s.first..=s.last)
        .map(|k| normalize::line(artifact.line(k)).into_owned())
        .collect();
    assert_eq!(lines[0], "./logs:");
    assert!(lines.iter().any(|l| l.ends_with(" empty.log")), "{lines:?}");
    assert!(lines.iter().any(|l| l.ends_with(" open.log")), "{lines:?}");
    let t = truth(&case);
    let files: u64 = graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::FileType && !i.identity.starts_with('('))
        .chain(
            graph
                .items
                .iter()
                .filter(|i| i.identity == "(no extension)"),
        )
        .map(|i| i.fields["files"].parse::<u64>().unwrap())
        .sum();
    assert_eq!(files, t["files"].as_u64().unwrap());
    let bytes: u64 = graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::FileType && i.identity != "(symlink)")
        .filter_map(|i| i.fields.get("bytes"))
        .map(|b| b.parse::<u64>().unwrap())
        .sum();
    assert_eq!(bytes, t["bytes"].as_u64().unwrap());
}

fn ctx(home: &Path, cwd: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(args)
        .env("CTX_HOME", home)
        .env("LC_ALL", "C")
        .env_remove("CTX_STORE")
        .env_remove("CTX_BUDGET")
        .current_dir(cwd)
        .output()
        .expect("run ctx")
}

/// The built binary on a generated tree: 12 folders of 40 files, a
/// dangling symlink, a setuid and a world-writable file and an empty one.
#[test]
fn ls_lr_of_a_generated_tree_keeps_every_folder_and_anomaly() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for d in 0..12 {
        let sub = dir.path().join(format!("pkg{d:02}"));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..40 {
            std::fs::write(sub.join(format!("module_{f:02}.py")), "x = 1\n").unwrap();
        }
    }
    let odd = dir.path().join("pkg05");
    std::os::unix::fs::symlink("no-such-file.py", odd.join("broken.py")).unwrap();
    std::fs::write(odd.join("runner"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(odd.join("runner"), std::fs::Permissions::from_mode(0o4755)).unwrap();
    std::fs::set_permissions(
        odd.join("module_07.py"),
        std::fs::Permissions::from_mode(0o666),
    )
    .unwrap();
    std::fs::write(odd.join("empty.txt"), "").unwrap();
    let out = ctx(
        home.path(),
        dir.path(),
        &["run", "--digest", "--", "ls", "-lR"],
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.starts_with("ls: OK · 495 entries, 12 directories, 482 files, 1 symlink · exit 0\n"),
        "{text}"
    );
    for d in 0..12 {
        assert!(
            text.contains(&format!("./pkg{d:02}")),
            "pkg{d:02} missing\n{text}"
        );
    }
    for name in [
        "broken.py -> no-such-file.py",
        " runner",
        " module_07.py",
        " empty.txt",
    ] {
        assert!(
            text.lines()
                .any(|l| !l.starts_with("[ctx]") && l.ends_with(name)),
            "{name} not kept whole\n{text}"
        );
    }
    assert!(text.contains("dangling symlink ×1"), "{text}");
    let key = text
        .lines()
        .last()
        .and_then(|l| l.split("ctx expand ").nth(1))
        .and_then(|r| r.split([' ', ';']).next())
        .unwrap()
        .to_string();
    let back = ctx(
        home.path(),
        dir.path(),
        &["expand", &key, "--item", "./pkg03"],
    );
    let back = String::from_utf8_lossy(&back.stdout).into_owned();
    assert_eq!(back.lines().next(), Some("./pkg03:"), "{back}");
    assert_eq!(
        back.lines().filter(|l| l.contains("module_")).count(),
        40,
        "{back}"
    );
}

/// `find` without `-type` or `-printf` cannot tell an empty folder from a
/// file: the header states no count it cannot know. The folders it names
/// are those with entries under them, and says so; with none such, no
/// folder count at all (never `0 directories` over a tree that has some).
#[test]
fn find_states_no_folder_count_it_cannot_know() {
    let argv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    let flat: String = (1..=120)
        .map(|i| format!("./file_{i}.txt\n"))
        .chain(["./empty_dir\n".to_string(), "./other_dir\n".to_string()])
        .collect();
    let out = format!(".\n{flat}");
    let a = Artifact::from_stdout(
        out.into_bytes(),
        ctx::artifact::Exit::Code(0),
        argv("find ."),
    );
    let (text, _) = digest(&a, Some(256));
    let header = text.lines().next().unwrap_or("");
    assert!(header.contains("122 entries"), "{header}");
    assert!(!header.contains("director"), "{header}");

    let nested: String = (1..=120)
        .map(|i| format!("./src/file_{i}.rs\n"))
        .chain(["./empty_dir\n".to_string()])
        .collect();
    let out = format!(".\n./src\n{nested}");
    let a = Artifact::from_stdout(
        out.into_bytes(),
        ctx::artifact::Exit::Code(0),
        argv("find ."),
    );
    let (text, _) = digest(&a, Some(256));
    let header = text.lines().next().unwrap_or("");
    assert!(header.contains("1 directory with entries"), "{header}");
}
