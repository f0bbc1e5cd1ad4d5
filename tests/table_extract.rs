//! table/v1 against the truth of each captured fixture (the command's
//! machine-readable twin: `df --output`, `lsblk -J`, `dpkg-query -W`, the
//! same query through psql or sqlite3 `--csv`): the exact row count, every
//! anomalous row found, and every one of them in the digest as its raw,
//! aligned line at the default budget and at a squeezed one.

use std::path::{Path, PathBuf};

use ctx::archive::Known;
use ctx::evidence::ItemKind;
use ctx::pipeline::{self, Options, Output};
use ctx::store::ArchiveKey;
use ctx::{normalize, zoom};

#[path = "support/markers.rs"]
mod markers;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/table");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("truth.json").is_file())
        .collect();
    out.sort();
    out
}

struct Truth {
    rows: u64,
    anomalies: Vec<u64>,
}

fn truth(case: &Path) -> Truth {
    let text = std::fs::read_to_string(case.join("truth.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    Truth {
        rows: v["rows"].as_u64().unwrap(),
        anomalies: v["anomalies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_u64().unwrap())
            .collect(),
    }
}

fn name(case: &Path) -> String {
    case.file_name().unwrap().to_string_lossy().into_owned()
}

fn digest(artifact: &ctx::artifact::Artifact, budget: Option<usize>) -> Option<String> {
    let options = Options {
        budget,
        ..Options::default()
    };
    let d = pipeline::digest(artifact, &Known(ArchiveKey([0x7a; 32])), &options).unwrap();
    assert_eq!(d.profile, "table/v1");
    match d.output {
        Output::Digest(bytes) => Some(String::from_utf8(bytes).unwrap()),
        Output::Raw => None,
    }
}

#[test]
fn row_counts_and_anomalies_match_the_twin() {
    let all = cases();
    assert!(all.len() >= 10, "table fixtures missing: {}", all.len());
    for case in all {
        let name = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (profile, graph, _) = zoom::evidence(&artifact).unwrap();
        assert_eq!(profile.version(), "table/v1", "{name}");
        let truth = truth(&case);
        assert_eq!(graph.counts[0], ("rows".to_string(), truth.rows), "{name}");
        let found: Vec<u64> = graph
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Record)
            .map(|i| i.identity.trim_start_matches("row ").parse().unwrap())
            .collect();
        assert_eq!(found, truth.anomalies, "{name}: anomalous rows");
    }
}

#[test]
fn every_anomaly_survives_default_and_squeezed_budgets() {
    for case in cases() {
        let name = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (_, graph, _) = zoom::evidence(&artifact).unwrap();
        let header = graph
            .items
            .iter()
            .find(|i| i.fields.get("role").is_some_and(|r| r == "table"))
            .and_then(|t| t.headline)
            .unwrap_or_else(|| panic!("{name}: no table read"));
        let header = normalize::line(artifact.line(header.first)).into_owned();
        for budget in [None, Some(300)] {
            // A small table passes unchanged (its raw output fits).
            let Some(text) = digest(&artifact, budget) else {
                continue;
            };
            let at = format!("{name} at {budget:?}");
            if std::env::var_os("SHOW").is_some() {
                eprintln!("==== {at}\n{text}");
            }
            assert!(text.lines().any(|l| l == header), "{at}: header line");
            let rows = truth(&case).rows as usize;
            assert!(
                text.lines()
                    .next()
                    .unwrap()
                    .contains(&format!("{} row", ctx::render::count(rows))),
                "{at}: exact row count"
            );
            // Every anomalous row raw, or (when the rows and the markers
            // between them exceed the budget) the ones past it counted by
            // reason behind one `--items` hop: shown + counted = all.
            let anomalous: Vec<_> = graph
                .items
                .iter()
                .filter(|i| i.kind == ItemKind::Record)
                .collect();
            let shown = anomalous
                .iter()
                .filter(|item| {
                    let line = normalize::line(artifact.line(item.headline.unwrap().first));
                    text.lines().any(|l| l == line)
                })
                .count();
            let counted = markers::counted_behind_items(&text, "more anomalous row");
            if budget.is_none() {
                assert_eq!(counted, 0, "{at}: every anomalous row shown at the default");
            }
            assert_eq!(
                shown + counted,
                anomalous.len(),
                "{at}: {shown} anomalous rows shown, {counted} counted"
            );
            if counted > 0 {
                assert!(
                    text.contains("[ctx] anomalies by reason: "),
                    "{at}: the counted rows' reasons"
                );
            }
            // Nothing rewritten: every line is raw output or ctx's own.
            for line in text.lines().skip(1) {
                let raw =
                    (1..=artifact.line_count()).any(|n| normalize::line(artifact.line(n)) == line);
                assert!(raw || line.starts_with("[ctx] "), "{at}: {line:?}");
            }
        }
    }
}

/// A table whose anomalous rows exceed the ceiling: shown while they fit,
/// the rest grouped by reason with exact counts behind `--items`.
#[test]
fn a_flood_of_anomalous_rows_is_grouped() {
    let mut out = String::from("NAME                 READY   STATUS             RESTARTS   AGE\n");
    for i in 0..3000 {
        let (ready, status, restarts) = if i % 3 == 0 {
            ("0/1", "CrashLoopBackOff", "12")
        } else {
            ("1/1", "Running", "0")
        };
        out.push_str(&format!(
            "web-{i:<16} {ready:<7} {status:<18} {restarts:<10} 3d\n"
        ));
    }
    let a = ctx::artifact::Artifact::from_stdout(
        out.into_bytes(),
        ctx::artifact::Exit::Code(0),
        vec!["kubectl".into(), "get".into(), "pods".into()],
    );
    let text = digest(&a, None).expect("a digest");
    assert!(
        text.starts_with("kubectl: OK · 3,000 rows, 1,000 flagged · exit 0\n"),
        "{text}"
    );
    assert!(
        text.contains("[ctx] anomalies by reason: READY 0/1"),
        "{text}"
    );
    assert!(text.contains("more anomalous rows: ctx expand"), "{text}");
    let (_, graph, contract) = zoom::evidence(&a).unwrap();
    let listed = zoom::items(&contract, &graph, &zoom::ItemFilter::default());
    assert_eq!(listed.len(), 1000);
    assert_eq!(listed[0], "row 1");
}
