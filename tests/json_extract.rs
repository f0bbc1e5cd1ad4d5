//! json/v1 against the truth of each captured fixture (`json.loads` of the
//! document): every array's exact length, every record that needs
//! attention flagged and named in the digest at the default and a
//! squeezed budget, `--item POINTER` returning exactly the subtree, and
//! the lossless tier never changing a value (fixtures and a property test).

use std::path::{Path, PathBuf};

use ctx::archive::Known;
use ctx::artifact::Artifact;
use ctx::evidence::ItemKind;
use ctx::pipeline::{self, Options, Output};
use ctx::plan::Rung;
use ctx::profiles::json::{raw, subtree};
use ctx::store::ArchiveKey;
use ctx::zoom;
use proptest::prelude::*;
use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/json");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("truth.json").is_file())
        .collect();
    out.sort();
    out
}

fn truth(case: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(case.join("truth.json")).unwrap()).unwrap()
}

fn name(case: &Path) -> String {
    case.file_name().unwrap().to_string_lossy().into_owned()
}

fn digest(artifact: &Artifact, budget: Option<usize>) -> (Option<String>, pipeline::Delivery) {
    let options = Options {
        budget,
        ..Options::default()
    };
    let d = pipeline::digest(artifact, &Known(ArchiveKey([0x6b; 32])), &options).unwrap();
    let text = match &d.output {
        Output::Digest(bytes) => Some(String::from_utf8(bytes.clone()).unwrap()),
        Output::Raw => None,
    };
    (text, d)
}

/// The anomaly (census record) covering a truth pointer: itself or an ancestor.
fn covering<'g>(graph: &'g ctx::evidence::EvidenceGraph, pointer: &str) -> Option<&'g str> {
    // Anomalies: records of severity warning (contracts/json.toml).
    graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Record && i.severity == ctx::evidence::Severity::Warning)
        .map(|i| i.identity.as_str())
        .find(|id| pointer == *id || pointer.starts_with(&format!("{id}/")))
}

#[test]
fn lengths_and_anomalies_match_the_document() {
    let all = cases();
    assert!(all.len() >= 6, "json fixtures missing: {}", all.len());
    for case in all {
        let name = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (profile, graph, _) = zoom::evidence(&artifact).unwrap();
        assert_eq!(profile.version(), "json/v1", "{name}");
        let truth = truth(&case);
        for (pointer, len) in truth["lengths"].as_object().unwrap() {
            let len = len.as_u64().unwrap();
            // Through --item: the subtree is the array, with its exact length.
            let sub = subtree(&artifact, if pointer == "/" { "" } else { pointer })
                .unwrap_or_else(|| panic!("{name}: --item {pointer}"));
            let v: Value = serde_json::from_str(&sub).unwrap();
            assert_eq!(
                v.as_array().map(Vec::len),
                Some(len as usize),
                "{name}: {pointer}"
            );
            // In the facts: a collection with that length, when ctx crushed it.
            if let Some(c) = graph.items.iter().find(|i| {
                i.identity == *pointer && i.fields.get("role").is_some_and(|r| r == "collection")
            }) {
                assert_eq!(c.fields["length"], len.to_string(), "{name}: {pointer}");
            }
        }
        for a in truth["anomalies"].as_array().unwrap() {
            let a = a.as_str().unwrap();
            assert!(covering(&graph, a).is_some(), "{name}: {a} not flagged");
        }
    }
}

#[test]
fn every_anomaly_survives_default_and_squeezed_budgets() {
    for case in cases() {
        let name = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (_, graph, _) = zoom::evidence(&artifact).unwrap();
        for budget in [None, Some(400)] {
            let at = format!("{name} at {budget:?}");
            let (text, d) = digest(&artifact, budget);
            let Some(text) = text else {
                // Small documents pass unchanged; a digest never larger
                // than the document (never worse) is the only other reason.
                assert!(
                    matches!(d.rejection, None | Some(ctx::guard::Rejection::NotSmaller)),
                    "{at}: {:?}",
                    d.rejection
                );
                continue;
            };
            if std::env::var_os("SHOW").is_some() {
                eprintln!("==== {at}\n{text}");
            }
            let trace = d.trace.as_ref().unwrap();
            let flood = trace.plan.rung == Rung::Flood;
            for a in truth(&case)["anomalies"].as_array().unwrap() {
                let id = covering(&graph, a.as_str().unwrap()).unwrap();
                assert!(
                    text.contains(&format!("[ctx] {id} ")) || flood,
                    "{at}: anomaly {id} not in the digest"
                );
            }
            for line in text.lines().skip(1) {
                assert!(line.starts_with("[ctx] "), "{at}: {line:?}");
            }
        }
    }
}

#[test]
fn items_bring_back_exact_subtrees() {
    for case in cases() {
        let name = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (_, graph, _) = zoom::evidence(&artifact).unwrap();
        let text = String::from_utf8(artifact.bytes().to_vec()).unwrap();
        let whole: Option<Value> = serde_json::from_str(&text).ok();
        for item in graph.items.iter().filter(|i| i.kind == ItemKind::Record) {
            let sub = subtree(&artifact, &item.identity).unwrap();
            let got: Value = serde_json::from_str(&sub).unwrap();
            if let Some(whole) = &whole {
                assert_eq!(Some(&got), whole.pointer(&item.identity), "{name}");
            }
            // The record's text in the facts is the same value, minified.
            let shown: Value = serde_json::from_str(&item.fields["json"]).unwrap();
            assert_eq!(shown, got, "{name}: {}", item.identity);
            assert!(raw::same_value(&sub, &item.fields["json"]), "{name}");
        }
    }
}

#[test]
fn the_lossless_tier_keeps_every_fixture_value() {
    for case in cases() {
        let text = std::fs::read_to_string(case.join("stdout")).unwrap();
        let Ok(original) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let min = raw::minify(&text);
        assert_eq!(serde_json::from_str::<Value>(&min).unwrap(), original);
        assert!(raw::same_value(&text, &min), "{}", name(&case));
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        "[ -~\\t\\n\"\\\\é]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z \"/~]{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn minified_parses_to_the_original(v in json_value()) {
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        let min = raw::minify(&pretty);
        let original: Value = serde_json::from_str(&pretty).unwrap();
        prop_assert_eq!(serde_json::from_str::<Value>(&min).unwrap(), original);
        prop_assert!(raw::same_value(&pretty, &min));
    }
}

/// More anomalies than the ceiling holds: named while they fit, the rest
/// grouped by reason with exact counts, and `--items` lists every one.
#[test]
fn a_flood_of_anomalies_is_grouped_with_exact_counts() {
    let mut doc = String::from("[");
    for i in 0..5000 {
        let status = if i % 5 == 0 { "failed" } else { "ok" };
        if i > 0 {
            doc.push(',');
        }
        doc.push_str(&format!(
            r#"{{"id":{i},"status":"{status}","n":{}}}"#,
            i % 7
        ));
    }
    doc.push(']');
    let a = Artifact::from_stdout(
        doc.into_bytes(),
        ctx::artifact::Exit::Code(0),
        vec!["gh".into(), "api".into(), "runs".into()],
    );
    let (text, d) = digest(&a, None);
    let text = text.expect("a digest");
    let trace = d.trace.as_ref().unwrap();
    assert_eq!(trace.plan.rung, Rung::Flood, "{text}");
    assert!(text.starts_with("json: OK · 5,000 objects in an array, 1,000 flagged · exit 0\n"));
    assert!(
        text.contains("[ctx] anomalies by reason: status failed ×"),
        "{text}"
    );
    assert!(text.contains("--items"), "{text}");
    let listed = zoom::items(&trace.contract, &trace.graph, &zoom::ItemFilter::default());
    assert_eq!(listed.len(), 1000);
    assert_eq!(listed[1], "/5");
    assert!(ctx::tokens::estimate(text.as_bytes()) <= trace.budget.ceiling + 200);
}

/// The built binary end to end: `ctx pipe` digests a JSON array, and
/// `ctx expand H --item POINTER` prints that item exactly as the document
/// spells it; `--items` lists every anomaly.
#[test]
fn expand_item_prints_the_subtree_through_the_binary() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/json/psql-json-agg");
    let doc = std::fs::read(case.join("stdout")).unwrap();
    let home = tempfile::tempdir().unwrap();
    let ctx = |args: &[&str], input: Option<&[u8]>| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ctx"))
            .args(args)
            .env("CTX_HOME", home.path())
            .env("CTX_CONFIG", home.path().join("none.toml"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        if let Some(bytes) = input {
            stdin.write_all(bytes).unwrap();
        }
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let digest = ctx(&["pipe"], Some(&doc));
    let key = digest
        .lines()
        .last()
        .and_then(|l| l.split("ctx expand ").nth(1))
        .map(|k| k.split([' ', ';']).next().unwrap().to_string())
        .unwrap_or_else(|| panic!("no footer: {digest}"));
    let item = ctx(&["expand", &key, "--item", "/310"], None);
    let text = String::from_utf8(doc.clone()).unwrap();
    let root = raw::document(text.trim_end()).unwrap();
    assert_eq!(item.trim_end(), raw::pointer(root, "/310").unwrap().get());
    assert!(item.contains(r#""status":"failed""#), "{item}");
    let listed = ctx(&["expand", &key, "--items"], None);
    assert_eq!(listed.lines().count(), 7, "{listed}");
    assert!(
        listed
            .lines()
            .next()
            .unwrap()
            .starts_with("/310 - status failed"),
        "{listed}"
    );
}

/// Lists of records name their identities (`name@version`, a direct
/// dependency's name) at the default budget: every name truth.json asks
/// for (what was requested, what is depended on directly) is on a `[ctx]`
/// line of the digest, or the digest is the document itself.
#[test]
fn identities_are_named_at_the_default_budget() {
    for case in cases() {
        let name = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        let (text, _) = digest(&artifact, None);
        let Some(text) = text else { continue };
        for n in truth(&case)["names"].as_array().unwrap() {
            let n = n.as_str().unwrap();
            assert!(
                named_on_a_ctx_line(&text, n),
                "{name}: {n} not named in\n{text}"
            );
        }
    }
}

fn named_on_a_ctx_line(text: &str, n: &str) -> bool {
    text.lines()
        .filter(|l| l.starts_with("[ctx] "))
        .any(|l| l.split([' ', ',', ':', '(', ')']).any(|w| w == n))
}

/// Squeezed, a list that does not fit is counted: every name is in the
/// digest or behind its `--items --code name` hop, which lists it with the
/// pointer of its record.
#[test]
fn names_that_do_not_fit_are_listed_by_items() {
    for case in cases() {
        let name = name(&case);
        let artifact = ctx::fixture::load(&case).unwrap();
        for budget in [300, 600] {
            let (text, d) = digest(&artifact, Some(budget));
            let Some(text) = text else { continue };
            let trace = d.trace.as_ref().unwrap();
            let filter = zoom::ItemFilter {
                code: Some("name".into()),
                ..Default::default()
            };
            let listed = zoom::listing(&artifact, &trace.contract, &trace.graph, &filter);
            for n in truth(&case)["names"].as_array().unwrap() {
                let n = n.as_str().unwrap();
                if named_on_a_ctx_line(&text, n) {
                    continue;
                }
                assert!(
                    text.contains("more names, listed: ctx expand ")
                        && text.contains(" --items --code name"),
                    "{name} at {budget}: {n} neither named nor behind a hop\n{text}"
                );
                assert!(
                    listed.iter().any(|l| l.split(' ').next() == Some(n)),
                    "{name} at {budget}: {n} not listed"
                );
            }
        }
    }
}
