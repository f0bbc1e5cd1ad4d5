//! `ctx gain` and the ledger, end to end: rows written through the library
//! or by real runs of the binary, totals read back from
//! `ctx gain --format json`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output as ProcessOutput, Stdio};

use ctx::artifact::{Artifact, Exit};
use ctx::ledger::{FILE_NAME, Ledger, LedgerSink, READ_WAIT};
use ctx::pipeline::{Delivery, Output};
use ctx::profiles::{Match, MatchedBy};
use ctx::store::ArchiveKey;
use ctx::tokens;
use serde_json::Value;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

fn ctx(home: &Path, args: &[&str], stdin: &[u8]) -> ProcessOutput {
    let mut child = Command::new(CTX)
        .args(args)
        .env("CTX_HOME", home)
        .env_remove("CTX_NO_LEDGER")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ctx");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin).expect("write stdin");
    drop(input);
    child.wait_with_output().expect("wait ctx")
}

fn gain_json(home: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["gain", "--format", "json"];
    args.extend_from_slice(extra);
    let out = ctx(home, &args, b"");
    assert!(
        out.status.success(),
        "ctx gain failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("gain json")
}

fn delivery(
    output: Output,
    profile: &'static str,
    raw: usize,
    delivered: usize,
    key: Option<ArchiveKey>,
) -> Delivery {
    Delivery {
        output,
        profile,
        matched: Match {
            by: MatchedBy::Command,
            reason: "test".into(),
        },
        key,
        raw_tokens: raw,
        delivered_tokens: delivered,
        rejection: None,
        trace: None,
        compared: false,
        delta: None,
    }
}

fn artifact(argv: &[&str], exit: Exit) -> Artifact {
    Artifact::from_stdout(
        b"whatever\n".to_vec(),
        exit,
        argv.iter().map(|s| s.to_string()).collect(),
    )
}

fn group<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .find(|g| g["name"] == name)
        .unwrap_or_else(|| panic!("no group {name} in {report:#}"))
}

#[test]
fn totals_are_signed_weighted_and_net_of_expands() {
    let home = tempfile::tempdir().expect("tempdir");
    let ledger = Ledger::open(&home.path().join(FILE_NAME), READ_WAIT).expect("open ledger");
    let k1 = ArchiveKey([1; 32]);
    let now = ctx::ledger::now_ms();
    let digest_a = b"cargo test: FAILED \xc2\xb7 1 failed, 20 passed \xc2\xb7 exit 101\n".to_vec();
    let digest_b = b"pytest: passed \xc2\xb7 3 passed\n".to_vec();
    let runs = [
        (
            artifact(&["cargo", "test", "--quiet"], Exit::Code(101)),
            delivery(
                Output::Digest(digest_a.clone()),
                "cargo_test/v1",
                1000,
                50,
                Some(k1),
            ),
        ),
        // A digest that came out bigger than the output: a loss.
        (
            artifact(&["pytest", "-x"], Exit::Code(0)),
            delivery(
                Output::Digest(digest_b.clone()),
                "pytest/v1",
                200,
                250,
                None,
            ),
        ),
        (
            artifact(&["ls", "-la"], Exit::Code(0)),
            delivery(Output::Raw, "text/v1", 30, 30, None),
        ),
    ];
    for (a, d) in &runs {
        ledger.record(a, d);
    }
    // Ten days ago: outside `--since 7d`.
    ledger
        .record_run_at(
            &artifact(&["cargo", "build"], Exit::Code(0)),
            &delivery(
                Output::Digest(b"ok\n".to_vec()),
                "cargo_build/v1",
                5000,
                10,
                None,
            ),
            now - 10 * 86_400_000,
        )
        .expect("old run");
    ledger.record_expand_at(&k1, 100, now).expect("expand");
    ledger
        .record_expand_at(&ArchiveKey([9; 32]), 7, now)
        .expect("stray expand");
    drop(ledger);

    let r = gain_json(home.path(), &["--since", "7d"]);
    let t = &r["totals"];
    assert_eq!(t["runs"], 3);
    assert_eq!(t["digested"], 2);
    assert_eq!(t["raw_tokens"], 1000 + 200 + 30);
    assert_eq!(t["delivered_tokens"], 50 + 250 + 30);
    assert_eq!(t["expanded_tokens"], 100);
    assert_eq!(t["saved_tokens"], 1230 - 330 - 100);
    // No original is in an archive here, so no run is exact on both sides.
    assert_eq!(t["exact_runs"], 0);
    assert_eq!(r["saved_ratio"], 0.6504);
    assert_eq!(group(&r, "cargo test")["saved_tokens"], 1000 - 50 - 100);
    assert_eq!(group(&r, "pytest")["saved_tokens"], -50);
    assert_eq!(group(&r, "ls")["saved_tokens"], 0);
    assert_eq!(r["groups"][0]["name"], "cargo test");
    assert_eq!(r["unattributed_expands"], 1);
    assert_eq!(r["unattributed_expanded_tokens"], 7);

    // All time brings the old build back in.
    let all = gain_json(home.path(), &[]);
    assert_eq!(all["totals"]["runs"], 4);
    assert_eq!(all["totals"]["saved_tokens"], 800 + 4990);
    let fam = gain_json(home.path(), &["--by", "family", "--top", "1"]);
    assert_eq!(fam["groups"].as_array().expect("groups").len(), 1);
    assert_eq!(fam["groups"][0]["name"], "cargo_build");
    assert_eq!(fam["groups_omitted"], 3);

    // gain counted the kept digests exactly and cached the counts.
    let ledger = Ledger::open(&home.path().join(FILE_NAME), READ_WAIT).expect("reopen");
    let rows = ledger.runs(None).expect("runs");
    let a = rows
        .iter()
        .find(|r| r.argv[0] == "cargo" && r.argv[1] == "test")
        .expect("run a");
    assert_eq!(a.delivered_exact, Some(tokens::exact(&digest_a) as u64));
    assert_eq!(a.raw_exact, None);
    let b = rows.iter().find(|r| r.argv[0] == "pytest").expect("run b");
    assert_eq!(b.delivered_exact, Some(tokens::exact(&digest_b) as u64));
    assert_eq!(a.exit, Exit::Code(101));
    assert_eq!(a.profile, "cargo_test/v1");

    let text = ctx(home.path(), &["gain"], b"");
    let text = String::from_utf8(text.stdout).expect("utf-8");
    assert!(text.contains("cargo test"), "{text}");
    assert!(text.contains('█'), "{text}");
    assert!(text.contains('░'), "a loss is drawn: {text}");
}

fn log_lines(n: usize) -> Vec<u8> {
    let mut s = String::new();
    for i in 1..=n {
        s += &format!(
            "step {i}: compiled unit_{i} in {}ms, cache key {:08x}\n",
            i * 3,
            i * 2654435761usize % (1 << 32)
        );
    }
    s += "error: unit_1234 failed to link: undefined reference to `frobnicate'\n";
    s.into_bytes()
}

#[test]
fn real_runs_are_counted_exactly() {
    let home = tempfile::tempdir().expect("tempdir");
    let input = log_lines(3000);
    let out = ctx(home.path(), &["pipe", "--label", "make build"], &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let digest = out.stdout;
    assert!(digest.len() < input.len() / 4, "the input was digested");
    let text = String::from_utf8_lossy(&digest);
    let hash = text
        .split("ctx expand ")
        .nth(1)
        .and_then(|rest| rest.get(..12))
        .expect("an expand footer");

    let expand = ctx(home.path(), &["expand", hash, "--lines", "1-40"], b"");
    assert!(
        expand.status.success(),
        "{}",
        String::from_utf8_lossy(&expand.stderr)
    );
    let read_back = tokens::estimate(&expand.stdout) as u64;

    let r = gain_json(home.path(), &[]);
    let t = &r["totals"];
    assert_eq!(t["runs"], 1);
    assert_eq!(t["exact_runs"], 1);
    let raw = tokens::exact(&input) as u64;
    let delivered = tokens::exact(&digest) as u64;
    assert_eq!(t["raw_tokens"], raw);
    assert_eq!(t["delivered_tokens"], delivered);
    assert_eq!(t["expanded_tokens"], read_back);
    assert_eq!(
        t["saved_tokens"],
        raw as i64 - delivered as i64 - read_back as i64
    );
    assert_eq!(group(&r, "make build")["runs"], 1);

    // --estimate reports the hot path's figures instead.
    let e = gain_json(home.path(), &["--estimate"]);
    assert_eq!(e["totals"]["exact_runs"], 0);
    assert_eq!(e["totals"]["raw_tokens"], tokens::estimate(&input) as u64);

    // The footnote says what is estimated, and nothing about no run.
    let text = ctx(home.path(), &["gain"], b"");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(
            "exact: 1 of 1 run counted with tiktoken-rs (original and delivered); \
             every read-back figure is an estimate (≈)"
        ),
        "{text}"
    );
}

#[test]
fn the_environment_never_reaches_the_ledger() {
    let home = tempfile::tempdir().expect("tempdir");
    let secret = "s3cr3t-7f2c91d4-do-not-store";
    for args in [
        &["run", "--", "sh", "-c", "echo hello; echo oops >&2; exit 3"][..],
        &["pipe", "--label", "cat"][..],
    ] {
        let out = Command::new(CTX)
            .args(args)
            .env("CTX_HOME", home.path())
            .env("CTX_TEST_SECRET", secret)
            .env_remove("CTX_NO_LEDGER")
            .stdin(Stdio::null())
            .output()
            .expect("run ctx");
        if args[0] == "run" {
            assert_eq!(out.status.code(), Some(3), "exit status kept");
        }
    }
    // Before folding, the journal holds the rows: no secret there either.
    let journal =
        std::fs::read(home.path().join(ctx::ledger::journal::FILE_NAME)).expect("journal");
    assert!(
        !journal
            .windows(secret.len())
            .any(|w| w == secret.as_bytes())
    );
    let ledger = Ledger::open(&home.path().join(FILE_NAME), READ_WAIT).expect("open");
    assert_eq!(ledger.fold_journal(home.path()).expect("fold"), 2);
    let rows = ledger.runs(None).expect("runs");
    assert_eq!(rows.len(), 2, "both runs recorded");
    assert_eq!(
        rows[0].argv,
        ["sh", "-c", "echo hello; echo oops >&2; exit 3"]
    );
    assert_eq!(rows[0].exit, Exit::Code(3));
    drop(ledger);
    for suffix in ["", "-wal"] {
        let path = home.path().join(format!("{FILE_NAME}{suffix}"));
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "{} holds an environment value",
            path.display()
        );
    }
}

#[test]
fn a_broken_ledger_never_breaks_a_run() {
    let home = tempfile::tempdir().expect("tempdir");
    std::fs::write(home.path().join(FILE_NAME), vec![0x5au8; 16384]).expect("write junk");
    let out = Command::new(CTX)
        .args(["run", "--", "sh", "-c", "echo fine; exit 7"])
        .env("CTX_HOME", home.path())
        .env_remove("CTX_NO_LEDGER")
        .stdin(Stdio::null())
        .output()
        .expect("run ctx");
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(out.stdout, b"fine\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.matches("[ctx]").count() <= 1, "{stderr}");
    // gain says what is wrong instead of inventing totals.
    let gain = ctx(home.path(), &["gain"], b"");
    assert_eq!(gain.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&gain.stderr).contains("ledger"));
}

#[test]
fn no_ledger_when_disabled() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = Command::new(CTX)
        .args(["run", "--", "true"])
        .env("CTX_HOME", home.path())
        .env("CTX_NO_LEDGER", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run ctx");
    assert!(out.status.success());
    assert!(!home.path().join(FILE_NAME).exists());
    let r = gain_json(home.path(), &[]);
    assert_eq!(r["totals"]["runs"], 0);
}

#[test]
fn saved_logs_are_grouped_by_what_read_them_not_by_their_file_name() {
    let home = tempfile::tempdir().expect("tempdir");
    let logs = tempfile::tempdir().expect("logs");
    let saved = logs.path().join("in.log");
    std::fs::write(&saved, log_lines(3000)).expect("write log");
    let file = saved.to_str().expect("utf-8 path");
    let out = ctx(home.path(), &["digest", file], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = ctx(home.path(), &["pipe"], &log_lines(2000));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let r = gain_json(home.path(), &["--estimate"]);
    let names: Vec<&str> = r["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| g["name"].as_str().expect("name"))
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains("in.log") && *n != "(stdin)"),
        "no group is named after a file or the stream: {names:?}"
    );
    let family = r["groups"][0]["name"].as_str().expect("name");
    assert!(family.ends_with(" (input)"), "{names:?}");
    assert_eq!(group(&r, family)["runs"], 2, "{names:?}");
}

/// `ctx digest --label NAME`, as `ctx pipe --label`: the saved log is
/// counted under the name given, the file's name still never a group.
#[test]
fn a_labelled_saved_log_is_grouped_by_its_label() {
    let home = tempfile::tempdir().expect("tempdir");
    let logs = tempfile::tempdir().expect("logs");
    let saved = logs.path().join("in.log");
    std::fs::write(&saved, log_lines(3000)).expect("write log");
    let file = saved.to_str().expect("utf-8 path");
    let out = ctx(
        home.path(),
        &["digest", "--label", "nightly build", file],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = gain_json(home.path(), &["--estimate"]);
    assert_eq!(group(&r, "nightly build")["runs"], 1, "{r}");
}

#[test]
fn a_trend_by_day_and_named_days_in_since() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = ctx(
        home.path(),
        &["pipe", "--label", "make build"],
        &log_lines(3000),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let today = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let r = gain_json(
        home.path(),
        &["--by", "day", "--since", "yesterday", "--estimate"],
    );
    assert_eq!(r["by"], "day");
    assert_eq!(group(&r, &today[..10])["runs"], 1, "{r}");
    for when in ["today", "monday", "last sunday", "7d"] {
        let r = gain_json(home.path(), &["--since", when, "--estimate"]);
        assert_eq!(r["totals"]["runs"], 1, "--since {when}: {r}");
    }

    let text = ctx(home.path(), &["gain", "--by", "day", "--estimate"], b"");
    let text = String::from_utf8_lossy(&text.stdout);
    let row = text
        .lines()
        .find(|l| l.starts_with(&today[..10]))
        .unwrap_or_else(|| panic!("a row for today:\n{text}"));
    assert!(row.contains('█'), "the trend draws its bar: {row}");
    assert!(row.contains('≈'), "estimates are marked: {row}");

    let bad = ctx(home.path(), &["gain", "--since", "fortnight"], b"");
    assert_eq!(
        bad.status.code(),
        Some(2),
        "a bad --since is ctx's usage error"
    );
    let why = String::from_utf8_lossy(&bad.stderr);
    assert!(
        why.contains("yesterday") && !why.contains("Caused by"),
        "{why}"
    );
}

/// One `ctx gain` counts archived originals for a bounded time and leaves
/// the rest to later calls; `--exact` counts every one of them now.
#[test]
fn exact_counts_every_archived_original_in_one_call() {
    let home = tempfile::tempdir().expect("tempdir");
    for i in 0..12 {
        let mut input = log_lines(400 + i);
        input.extend_from_slice(format!("run {i}\n").as_bytes());
        let out = ctx(home.path(), &["pipe", "--label", "make build"], &input);
        assert!(out.status.success());
    }
    let r = gain_json(home.path(), &["--exact"]);
    assert_eq!(r["totals"]["runs"], 12);
    assert_eq!(r["totals"]["exact_runs"], 12);
    let both = ctx(home.path(), &["gain", "--exact", "--estimate"], b"");
    assert_eq!(both.status.code(), Some(2), "the two flags contradict");
}
