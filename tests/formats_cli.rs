//! `--format json|markdown` through the built binary: `ctx run`, `ctx
//! pipe`, `ctx digest`, `ctx expand --items`, `ctx explain`. The exit
//! status is the command's, the JSON is valid against docs/schema/ and
//! the raw output is never lost, faults included.

use std::path::Path;
use std::process::{Output, Stdio};

use serde_json::Value;

mod support;
use support::{ctx_cmd, text};

#[path = "support/schema.rs"]
mod schema;

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(rel),
    )
    .unwrap()
}

/// `ctx ARGS` with `input` on stdin.
fn ctx_with_input(home: &Path, args: &[&str], input: &[u8], env: &[(&str, &str)]) -> Output {
    use std::io::Write;
    let mut cmd = ctx_cmd(home, args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ctx");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    out
}

fn ctx(home: &Path, args: &[&str]) -> Output {
    ctx_cmd(home, args)
        .stdin(Stdio::null())
        .output()
        .expect("run ctx")
}

/// The one JSON document of `out`'s stdout, checked against the schema.
fn document(out: &Output, schema: boon::SchemaIndex, schemas: &schema::Schemas) -> Value {
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches('\n').count(), 1, "one line: {stdout}");
    let value: Value = serde_json::from_str(&stdout).expect("valid JSON");
    if let Err(e) = schemas.check(&value, schema) {
        panic!("{e}\n{stdout}");
    }
    value
}

#[test]
fn run_prints_json_and_keeps_the_exit_status() {
    let home = tempfile::tempdir().unwrap();
    let schemas = schema::Schemas::load();
    // Small output: delivered raw, inside the document; stderr's line too.
    let out = ctx(
        home.path(),
        &[
            "run",
            "--format",
            "json",
            "--",
            "sh",
            "-c",
            "echo out; echo err >&2; exit 3",
        ],
    );
    assert_eq!(out.status.code(), Some(3));
    let doc = document(&out, schemas.digest, &schemas);
    assert_eq!(doc["delivery"], "raw");
    assert_eq!(doc["exit"]["kind"], "code");
    assert_eq!(doc["exit"]["value"], 3);
    assert_eq!(doc["raw"]["text"], "out\nerr\n");
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
}

/// `--format` before the command is ctx's; the command's own `--format`
/// reaches the command untouched.
#[test]
fn run_never_takes_the_commands_own_format() {
    let home = tempfile::tempdir().unwrap();
    let schemas = schema::Schemas::load();
    let out = ctx(
        home.path(),
        &["run", "--format", "json", "--", "echo", "--format", "text"],
    );
    assert_eq!(out.status.code(), Some(0));
    let doc = document(&out, schemas.digest, &schemas);
    assert_eq!(doc["raw"]["text"], "--format text\n");
    // Without ctx's flag, the command's `--format json` is its own word.
    let out = ctx(
        home.path(),
        &["run", "--digest", "echo", "--format", "json"],
    );
    assert_eq!(text(&out.stdout), "--format json\n");
}

#[test]
fn pipe_expand_and_explain_speak_json() {
    let home = tempfile::tempdir().unwrap();
    let schemas = schema::Schemas::load();
    let input = fixture("eslint/flood/stdout");
    let out = ctx_with_input(home.path(), &["pipe", "--format", "json"], &input, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc = document(&out, schemas.digest, &schemas);
    assert_eq!(doc["delivery"], "digest");
    assert_eq!(doc["rung"], "FLOOD");
    let key = doc["archive_key"].as_str().unwrap().to_string();
    for omission in doc["omissions"].as_array().unwrap() {
        assert!(
            omission["expand"]
                .as_str()
                .unwrap()
                .starts_with(&format!("ctx expand {key} "))
        );
    }

    let out = ctx(
        home.path(),
        &["expand", &key, "--items", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let items = document(&out, schemas.items, &schemas);
    assert_eq!(items["count"], 924);
    assert_eq!(items["items"].as_array().unwrap().len(), 924);
    let out = ctx(
        home.path(),
        &[
            "expand", &key, "--items", "--code", "no-var", "--format", "json",
        ],
    );
    let some = document(&out, schemas.items, &schemas);
    assert_eq!(some["filter"]["code"], "no-var");
    assert!(
        some["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["code"] == "no-var")
    );

    // --format belongs to --items only.
    let out = ctx(home.path(), &["expand", &key, "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));

    let out = ctx(home.path(), &["explain", &key, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let explained: Value = serde_json::from_slice(&out.stdout).unwrap();
    if let Err(e) = schemas.check(&explained["digest"], schemas.digest) {
        panic!("{e}");
    }
    assert_eq!(explained["digest"]["items"], doc["items"]);
}

#[test]
fn markdown_through_pipe_expand_and_explain() {
    let home = tempfile::tempdir().unwrap();
    let input = fixture("pytest/default/stdout");
    let base = "https://example.org/o/r/blob/abc";
    let out = ctx_with_input(
        home.path(),
        // A budget with room for each failure's place (the default one
        // names the 15 ids without their reasons and places).
        &[
            "pipe",
            "--format",
            "markdown",
            "--link-base",
            base,
            "--budget",
            "2000",
        ],
        &input,
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    let md = text(&out.stdout);
    assert!(md.starts_with("### `pytest`: FAILED"), "{md}");
    assert!(md.contains("| failed | passed |"), "{md}");
    assert!(
        md.contains(&format!("({base}/tests/test_inventory.py#L36)")),
        "{md}"
    );
    let key = md
        .split("ctx expand ")
        .nth(1)
        .and_then(|rest| rest.get(..12))
        .unwrap()
        .to_string();
    let out = ctx(
        home.path(),
        &["expand", &key, "--items", "--format", "markdown"],
    );
    let items = text(&out.stdout);
    assert!(items.starts_with("### `15 items`"), "{items}");
    assert_eq!(items.matches("\n  - ").count(), 15, "{items}");
    let out = ctx(home.path(), &["explain", &key, "--format", "markdown"]);
    let explained = text(&out.stdout);
    assert!(
        explained.contains("#### How ctx digested it"),
        "{explained}"
    );
}

/// Several files: one JSON document per line (JSON Lines), no `==>` lines.
#[test]
fn digest_of_several_files_is_json_lines() {
    let home = tempfile::tempdir().unwrap();
    let schemas = schema::Schemas::load();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let a = root.join("pytest/default/stdout");
    let b = root.join("tsc/plain/stdout");
    let out = ctx(
        home.path(),
        &[
            "digest",
            "--format",
            "json",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let docs: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line a document"))
        .collect();
    assert_eq!(docs.len(), 2, "{stdout}");
    for doc in &docs {
        if let Err(e) = schemas.check(doc, schemas.digest) {
            panic!("{e}");
        }
    }
    assert_eq!(docs[0]["command"], a.to_str().unwrap());
    assert_eq!(docs[1]["family"], "tsc");
}

/// A fault anywhere still prints one valid document that says the raw
/// output follows, holding it whole, with the command's exit status.
#[test]
fn faults_give_a_fallback_document() {
    let script =
        "i=0; while [ $i -lt 3000 ]; do echo \"line $i of the output\"; i=$((i+1)); done; exit 3";
    let raw: String = (0..3000)
        .map(|i| format!("line {i} of the output\n"))
        .collect();
    let schemas = schema::Schemas::load();
    for stage in ["classify", "extract", "plan", "archive", "render", "format"] {
        let home = tempfile::tempdir().unwrap();
        let out = ctx_cmd(
            home.path(),
            &["run", "--format", "json", "--", "sh", "-c", script],
        )
        .env("CTX_FAULT", stage)
        .stdin(Stdio::null())
        .output()
        .unwrap();
        assert_eq!(out.status.code(), Some(3), "{stage}: {}", text(&out.stderr));
        let doc = document(&out, schemas.digest, &schemas);
        assert_eq!(doc["delivery"], "fallback", "{stage}");
        assert_eq!(doc["raw"]["text"], raw.as_str(), "{stage}");
        assert!(doc["fallback_reason"].is_string(), "{stage}");
        let notes = text(&out.stderr);
        assert_eq!(
            notes.lines().filter(|l| l.starts_with("[ctx]")).count(),
            1,
            "{stage}: {notes}"
        );
    }
}

/// Output that is not UTF-8 comes back byte for byte (base64).
#[test]
fn bytes_that_are_not_utf8_are_kept() {
    use base64::Engine;
    let home = tempfile::tempdir().unwrap();
    let schemas = schema::Schemas::load();
    let input = b"caf\xe9 ok\n".to_vec();
    let out = ctx_with_input(home.path(), &["pipe", "--format", "json"], &input, &[]);
    let doc = document(&out, schemas.digest, &schemas);
    assert_eq!(doc["raw"]["encoding"], "base64");
    let data = base64::engine::general_purpose::STANDARD
        .decode(doc["raw"]["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(data, input);
}
