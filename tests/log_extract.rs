//! log/v1 against the machine-readable twin of each captured log
//! (fixtures/log/capture.sh): nginx's JSON access log beside the combined
//! one, PostgreSQL's jsonlog beside its stderr log, a Python JSON logging
//! handler beside the text one; the JSON twins of the last two are read
//! as logs too (structured lines: level and message fields), as are a
//! structlog logfmt log against its JSON twin and pino's JSON lines
//! against their own records (fixtures/log/capture-structured.sh). Every
//! count of the truth is exact in the
//! header, every failing endpoint is named with its count, every error
//! event of the truth is in the digest (whole, or its template counted
//! with its `--item` address) at the default and the squeezed budget, and
//! the digest does not change when only the timestamps do. Each digest is
//! an insta snapshot, at the default and the squeezed budget.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ctx::archive::Known;
use ctx::artifact::{Artifact, Exit};
use ctx::evidence::ItemKind;
use ctx::pipeline::{self, Options, Output};
use ctx::store::ArchiveKey;
use ctx::{classify, zoom};
use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/log")
}

/// A case as `ctx pipe` captured it: the log on stdin, no command.
fn piped(name: &str) -> Artifact {
    ctx::fixture::load(&dir().join(name.trim_end_matches(".log"))).unwrap()
}

fn log_text(name: &str) -> String {
    std::fs::read_to_string(dir().join(name.trim_end_matches(".log")).join("stdout")).unwrap()
}

fn truth(name: &str) -> Vec<Value> {
    let case = name.trim_end_matches(".truth.jsonl");
    std::fs::read_to_string(dir().join(case).join("truth.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn digest(artifact: &Artifact, budget: Option<usize>) -> String {
    let options = Options {
        budget,
        ..Options::default()
    };
    let d = pipeline::digest(artifact, &Known(ArchiveKey([0x10; 32])), &options).unwrap();
    match d.output {
        Output::Digest(bytes) => String::from_utf8(bytes).unwrap(),
        Output::Raw => panic!("a log of this size is digested"),
    }
}

/// The header's `N word` counts.
fn header_counts(digest: &str) -> BTreeMap<String, u64> {
    let header = digest.lines().next().unwrap();
    let counts = header.split(" · ").nth(1).unwrap();
    counts
        .split(", ")
        .map(|c| {
            let (n, word) = c.split_once(' ').unwrap();
            (word.to_string(), n.replace(',', "").parse().unwrap())
        })
        .collect()
}

const BUDGETS: [Option<usize>; 2] = [None, Some(256)];

#[test]
fn every_log_is_told_by_content() {
    for (name, tool) in [
        ("nginx-access.log", "access log"),
        ("nginx-access-timed.log", "access log"),
        ("nginx-error.log", "nginx error log"),
        ("postgresql.log", "postgresql log"),
        ("python-app.log", "log"),
        ("supervisor-traces.log", "log"),
        ("python-app-jsonl.log", "JSON log"),
        ("postgresql-jsonlog.log", "JSON log"),
    ] {
        let a = piped(name);
        let (profile, m) = classify::choose(&a, None).unwrap();
        assert_eq!(profile.version(), "log/v1", "{name}: {}", m.reason);
        let (graph, _) = profile.extract(&a);
        assert_eq!(graph.reader.tool(), Some(tool), "{name}");
    }
}

#[test]
fn access_log_counts_and_failing_endpoints_match_the_json_twin() {
    let twin = truth("nginx-access.truth.jsonl");
    let mut classes = [0u64; 6];
    let mut failing: BTreeMap<String, u64> = BTreeMap::new();
    for r in &twin {
        let status = r["status"].as_u64().unwrap();
        classes[(status / 100) as usize] += 1;
        if status >= 400 {
            let id = format!(
                "{status} {} {}",
                r["method"].as_str().unwrap(),
                r["uri"].as_str().unwrap()
            );
            *failing.entry(id).or_default() += 1;
        }
    }
    for name in ["nginx-access.log", "nginx-access-timed.log"] {
        let a = piped(name);
        let (_, graph, _) = zoom::evidence(&a).unwrap();
        let found: BTreeMap<String, u64> = graph
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Endpoint)
            .map(|i| (i.identity.clone(), i.fields["count"].parse().unwrap()))
            .collect();
        assert_eq!(found, failing, "{name}: failing endpoints");
        for budget in BUDGETS {
            let d = digest(&a, budget);
            let counts = header_counts(&d);
            assert_eq!(counts["lines"], twin.len() as u64, "{name}");
            assert_eq!(counts["requests"], twin.len() as u64, "{name}");
            assert_eq!(counts.get("successful").copied().unwrap_or(0), classes[2]);
            assert_eq!(
                counts.get("client errors").copied().unwrap_or(0),
                classes[4]
            );
            assert_eq!(
                counts.get("server errors").copied().unwrap_or(0),
                classes[5]
            );
            for (id, n) in &failing {
                // Named with its count, or (past the budget as asked)
                // counted under its status with the address that lists
                // every endpoint of it.
                let status = id.split(' ').next().unwrap_or_default();
                let by_status = d.contains(&format!("[ctx]   {status}: "))
                    && d.contains(&format!(": --items --code {status}\n"));
                assert!(
                    d.contains(&format!("{id} ×{n} (")) || by_status,
                    "{name} at {budget:?}: {id} ×{n} missing\n{d}"
                );
            }
            assert!(
                d.len() * 20 < a.bytes().len(),
                "{name}: not reduced by 95 %"
            );
        }
    }
}

#[test]
fn slowest_requests_are_the_twins_slowest() {
    let twin = truth("nginx-access.truth.jsonl");
    let mut times: Vec<f64> = twin
        .iter()
        .map(|r| r["request_time"].as_f64().unwrap())
        .collect();
    times.sort_by(|a, b| b.total_cmp(a));
    let a = piped("nginx-access-timed.log");
    let (_, graph, _) = zoom::evidence(&a).unwrap();
    let slow: Vec<f64> = graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::SlowRequest)
        .map(|i| i.fields["seconds"].parse().unwrap())
        .collect();
    assert_eq!(slow, times[..5].to_vec());
    // The combined format has no duration: no slowest requests claimed.
    let (_, graph, _) = zoom::evidence(&piped("nginx-access.log")).unwrap();
    assert!(!graph.items.iter().any(|i| i.kind == ItemKind::SlowRequest));
}

/// The error events of a truth, as (message, level), in order.
fn check_errors(log: &str, errors: &[(String, String)], levels: &BTreeMap<String, u64>) {
    let a = piped(log);
    let (_, graph, _) = zoom::evidence(&a).unwrap();
    let events: Vec<_> = graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Diagnostic)
        .collect();
    assert_eq!(events.len(), errors.len(), "{log}: error events");
    for (e, (message, level)) in events.iter().zip(errors) {
        let line = String::from_utf8_lossy(a.line(e.headline.unwrap().first)).into_owned();
        // A structured line holds the message JSON-escaped.
        let escaped = serde_json::to_string(message).unwrap();
        let escaped = &escaped[1..escaped.len() - 1];
        assert!(
            line.contains(message.as_str()) || line.contains(escaped),
            "{log}: {line:?} is not {message:?}"
        );
        assert_eq!(e.class.as_deref(), Some(level.as_str()), "{log}: {line}");
    }
    for budget in BUDGETS {
        let d = digest(&a, budget);
        let counts = header_counts(&d);
        for (word, n) in levels {
            assert_eq!(
                counts.get(word),
                Some(n),
                "{log} at {budget:?}: {word}\n{d}"
            );
        }
        assert_eq!(counts["lines"], a.line_count() as u64);
        // Every error event: its line whole, or its template counted with
        // the address that prints every event of it, or (past the budget
        // as asked) its template behind the marker `--items` answers.
        let (_, _, contract) = zoom::evidence(&a).unwrap();
        let listed = zoom::items(&contract, &graph, &zoom::ItemFilter::default());
        for e in &events {
            let line = String::from_utf8_lossy(a.line(e.headline.unwrap().first)).into_owned();
            let whole = d.lines().any(|l| l == line);
            let grouped = d.contains(&format!("--item {}", ctx::plan::shell_quote(&e.identity)));
            let behind = (d.contains("error templates not shown whole")
                || d.contains("1 error template not shown whole"))
                && d.contains("--items")
                && listed.iter().any(|i| i == &e.identity);
            assert!(
                whole || grouped || behind,
                "{log} at {budget:?}: {line} lost\n{d}"
            );
            let spans =
                zoom::item_spans(zoom::evidence(&a).unwrap().0, &graph, &e.identity).unwrap();
            assert!(spans.iter().any(|s| s.first == e.headline.unwrap().first));
        }
        assert!(d.len() * 10 < a.bytes().len(), "{log}: not reduced by 90 %");
    }
}

#[test]
fn postgresql_levels_and_errors_match_jsonlog() {
    let twin = truth("postgresql.truth.jsonl");
    let mut levels: BTreeMap<String, u64> = BTreeMap::new();
    let mut errors = Vec::new();
    for r in &twin {
        let sev = r["error_severity"].as_str().unwrap();
        let word = match sev {
            "LOG" => "log",
            "ERROR" => "errors",
            "FATAL" => "fatal",
            "WARNING" => "warnings",
            other => panic!("unexpected severity {other}"),
        };
        *levels.entry(word.to_string()).or_default() += 1;
        if matches!(sev, "ERROR" | "FATAL" | "PANIC") {
            errors.push((r["message"].as_str().unwrap().to_string(), sev.to_string()));
        }
    }
    check_errors("postgresql.log", &errors, &levels);
    // The twin itself is a log: the same counts and error events.
    check_errors("postgresql-jsonlog.log", &errors, &levels);
}

#[test]
fn python_levels_and_tracebacks_match_the_json_handler() {
    let twin = truth("python-app.truth.jsonl");
    let mut levels: BTreeMap<String, u64> = BTreeMap::new();
    let mut errors = Vec::new();
    for r in &twin {
        let level = r["level"].as_str().unwrap();
        let word = match level {
            "DEBUG" => "debug",
            "INFO" => "info",
            "WARNING" => "warnings",
            "ERROR" => "errors",
            "CRITICAL" => "critical",
            other => panic!("unexpected level {other}"),
        };
        *levels.entry(word.to_string()).or_default() += 1;
        if matches!(level, "ERROR" | "CRITICAL") {
            assert!(r["exc"].as_bool().unwrap());
            errors.push((
                r["message"].as_str().unwrap().to_string(),
                level.to_string(),
            ));
        }
    }
    check_errors("python-app.log", &errors, &levels);
    // The twin itself is a log: the same counts and error events.
    check_errors("python-app-jsonl.log", &errors, &levels);
    // Each error event's block holds its whole traceback, to the exception.
    let a = piped("python-app.log");
    let (_, graph, _) = zoom::evidence(&a).unwrap();
    for e in graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Diagnostic)
    {
        let b = e.block.unwrap();
        let last = String::from_utf8_lossy(a.line(b.last)).into_owned();
        assert!(
            last.contains("Error: "),
            "{}: block ends at {last:?}",
            e.identity
        );
        assert_eq!(
            String::from_utf8_lossy(a.line(e.headline.unwrap().first + 1)),
            "Traceback (most recent call last):"
        );
    }
}

/// The structured loggers' own records: structlog's JSON twin of its
/// logfmt log (`level`, `event`) and pino's JSON lines (numeric `level`,
/// `msg`). The header's level counts and every error event (its level
/// and its message) come from the records, never from the reader.
fn structured_truth(case: &str, level_key: &str, message_key: &str) -> Truth {
    let mut levels: BTreeMap<String, u64> = BTreeMap::new();
    let mut errors = Vec::new();
    for r in truth(&format!("{case}.truth.jsonl")) {
        let level = match &r[level_key] {
            Value::Number(n) => match n.as_u64() {
                Some(10) => "trace",
                Some(20) => "debug",
                Some(30) => "info",
                Some(40) => "warning",
                Some(50) => "error",
                Some(60) => "fatal",
                other => panic!("{case}: level {other:?}"),
            }
            .to_string(),
            Value::String(s) => s.clone(),
            other => panic!("{case}: level {other:?}"),
        };
        let (word, class) = match level.as_str() {
            "trace" => ("trace", None),
            "debug" => ("debug", None),
            "info" => ("info", None),
            "warning" | "warn" => ("warnings", None),
            "error" => ("errors", Some("ERROR")),
            "critical" => ("critical", Some("CRITICAL")),
            "fatal" => ("fatal", Some("FATAL")),
            other => panic!("{case}: level {other}"),
        };
        *levels.entry(word.to_string()).or_default() += 1;
        if let Some(class) = class {
            let message = r[message_key].as_str().unwrap().to_string();
            errors.push((message, class.to_string()));
        }
    }
    (levels, errors)
}

type Truth = (BTreeMap<String, u64>, Vec<(String, String)>);

#[test]
fn structured_logs_match_their_loggers_records() {
    for (case, level, message, tool) in [
        ("structlog-logfmt", "level", "event", "logfmt log"),
        ("pino-json", "level", "msg", "JSON log"),
    ] {
        let a = piped(case);
        let (profile, m) = classify::choose(&a, None).unwrap();
        assert_eq!(profile.version(), "log/v1", "{case}: {}", m.reason);
        let (graph, _) = profile.extract(&a);
        assert_eq!(graph.reader.tool(), Some(tool), "{case}");
        let (levels, errors) = structured_truth(case, level, message);
        assert!(errors.len() >= 100, "{case}: the fixture's error events");
        check_errors(case, &errors, &levels);
    }
}

/// Warnings come right after the errors: every template logged at
/// warning level is listed before the templates by count, so the sum of
/// their counts is the twin's number of WARNING records, in the text log
/// and in its JSON twin read as a log.
#[test]
fn warning_templates_come_first() {
    let warnings = truth("python-app.truth.jsonl")
        .iter()
        .filter(|r| r["level"] == "WARNING")
        .count() as u64;
    assert!(warnings > 0);
    for name in ["python-app.log", "python-app-jsonl.log"] {
        let d = digest(&piped(name), None);
        let lines: Vec<&str> = d.lines().collect();
        let heading = lines
            .iter()
            .position(|l| l.contains("warnings first ("))
            .unwrap_or_else(|| panic!("{name}: no warnings first\n{d}"));
        let listed: Vec<&str> = lines[heading + 1..]
            .iter()
            .take_while(|l| l.starts_with("[ctx]   ×"))
            .copied()
            .collect();
        let n: usize = lines[heading]
            .split("warnings first (")
            .nth(1)
            .and_then(|r| r.split(')').next())
            .unwrap()
            .parse()
            .unwrap();
        let counted: u64 = listed[..n]
            .iter()
            .map(|l| {
                let count = l.trim_start_matches("[ctx]   ×").split(' ').next().unwrap();
                count.replace(',', "").parse::<u64>().unwrap()
            })
            .sum();
        assert_eq!(counted, warnings, "{name}: warning templates\n{d}");
    }
}

#[test]
fn nginx_error_levels_are_counted_exactly() {
    let text = log_text("nginx-error.log");
    let count = |level: &str| {
        text.lines()
            .filter(|l| {
                l.contains(&format!("] [{level}] "))
                    || l.split(' ').nth(2) == Some(&format!("[{level}]"))
            })
            .count() as u64
    };
    let mut levels = BTreeMap::new();
    levels.insert("errors".to_string(), count("error"));
    levels.insert("notices".to_string(), count("notice"));
    levels.insert("info".to_string(), count("info"));
    let errors: Vec<(String, String)> = text
        .lines()
        .filter(|l| l.split(' ').nth(2) == Some("[error]"))
        .map(|l| (l.to_string(), "ERROR".to_string()))
        .collect();
    assert!(errors.len() > 100);
    check_errors("nginx-error.log", &errors, &levels);
}

/// A supervisor's log into which real Go, Node, Java and Rust programs
/// crashed: each crash is an error event whose block holds its whole
/// report (the panic or exception line through its last frame), shown in
/// the digest, and each supervisor ERROR line is one too.
#[test]
fn stack_traces_of_four_runtimes_stay_whole() {
    let a = piped("supervisor-traces.log");
    let (_, graph, _) = zoom::evidence(&a).unwrap();
    // 76 lines (1,410 tokens) fit the default budget whole: squeezed
    // below that, with room asked for the four reports, they are digested.
    let d = digest(&a, Some(1_100));
    let crashes = truth("supervisor-traces.truth.jsonl");
    assert_eq!(crashes.len(), 4);
    let line = |n: usize| String::from_utf8_lossy(a.line(n)).into_owned();
    for c in &crashes {
        let first = c["first"].as_str().unwrap();
        let worker = c["worker"].as_str().unwrap();
        let event = graph
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Diagnostic)
            .find(|i| {
                let b = i.block.unwrap();
                (b.first..=b.last).any(|n| line(n) == first)
            })
            .unwrap_or_else(|| panic!("{worker}: no error event holds {first:?}"));
        let b = event.block.unwrap();
        // The block runs to the line before the supervisor's next line.
        assert!(
            line(b.last + 1).contains("supervisor: worker"),
            "{worker}: block ends early at {:?}",
            line(b.last)
        );
        for n in b.first..=b.last {
            assert!(
                d.lines().any(|l| l == line(n)),
                "{worker}: {:?} not in the digest\n{d}",
                line(n)
            );
        }
        let status = format!("worker {worker} exited with status {}", c["exit"]);
        assert!(
            d.lines().any(|l| l.ends_with(&status)),
            "{worker}: {status}"
        );
    }
    let counts = header_counts(&d);
    assert_eq!(counts["exceptions"], 4);
    assert_eq!(counts["errors"], 4);
}

/// The same log an hour and a day later: the same digest once the
/// timestamps are masked (choices, counts and order never follow times).
#[test]
fn only_timestamps_changing_keeps_the_digest() {
    for (name, from, to) in [
        ("postgresql.log", "2026-11-30 23:", "2026-12-01 04:"),
        ("python-app.log", "2026-11-30 23:", "2026-12-01 04:"),
        ("nginx-access.log", "30/Nov/2026:23:", "01/Dec/2026:04:"),
        ("nginx-error.log", "2026/11/30 23:", "2026/12/01 04:"),
        ("structlog-logfmt.log", "2026-12-08T00:", "2026-12-09T04:"),
        ("python-app-jsonl.log", "2026-11-30 23:", "2026-12-01 04:"),
    ] {
        let original = log_text(name);
        let shifted = original.replace(from, to);
        assert_ne!(original, shifted);
        let a = Artifact::from_stdout(original.into_bytes(), Exit::Unknown, Vec::new());
        let b = Artifact::from_stdout(shifted.into_bytes(), Exit::Unknown, Vec::new());
        let (da, db) = (digest(&a, None), digest(&b, None));
        assert_eq!(da, digest(&a, None), "{name}: not deterministic");
        let mask = |d: &str| {
            d.replace(from, "T")
                .replace(to, "T")
                .lines()
                .filter(|l| !l.starts_with("[ctx] full output") && !l.contains("ctx expand"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(mask(&da), mask(&db), "{name}");
    }
}

#[test]
fn digests_as_snapshotted() {
    for name in [
        "nginx-access.log",
        "nginx-access-timed.log",
        "nginx-error.log",
        "postgresql.log",
        "python-app.log",
        "supervisor-traces.log",
        "python-app-jsonl.log",
        "postgresql-jsonlog.log",
        "structlog-logfmt.log",
        "pino-json.log",
    ] {
        let stem = name.trim_end_matches(".log");
        let a = piped(name);
        let options = Options::default();
        let d = pipeline::digest(&a, &Known(ArchiveKey([0x10; 32])), &options).unwrap();
        let default = match d.output {
            Output::Digest(bytes) => String::from_utf8(bytes).unwrap(),
            Output::Raw => "(the output, unchanged: it fits the budget)".to_string(),
        };
        insta::assert_snapshot!(stem, default);
        insta::assert_snapshot!(format!("{stem}-squeezed"), digest(&piped(name), Some(256)));
    }
}

/// A log with more error events than the extractor itemises (10,000):
/// the digest says it itemised only the first of them, and each count it
/// draws from them is marked as the lower bound it is, while the header
/// and the templates by count stay exact. Grown from the python-app
/// fixture's own error lines.
#[test]
fn a_log_past_the_itemised_cap_marks_its_counts_as_lower_bounds() {
    let text = log_text("python-app");
    let errors: Vec<&str> = text.lines().filter(|l| l.contains(" ERROR ")).collect();
    assert!(!errors.is_empty());
    let copies = 10_000 / errors.len() + 2;
    let mut grown = String::new();
    for _ in 0..copies {
        for line in &errors {
            grown.push_str(line);
            grown.push('\n');
        }
    }
    let all = copies * errors.len();
    let artifact = Artifact::from_stdout(grown.into_bytes(), Exit::Unknown, vec![]);
    let shown = digest(&artifact, None);
    let all_word = ctx::words::count(all);
    assert!(
        shown.contains(&format!("the first 10,000 of {all_word} error events")),
        "{shown}"
    );
    for line in shown
        .lines()
        .filter(|l| l.contains("more events of this template"))
    {
        assert!(line.contains("at least"), "an unmarked count: {line}");
    }
    for line in shown.lines().filter(|l| l.starts_with("[ctx] ×")) {
        assert!(
            line.contains('+') || !line.contains(" events ("),
            "an unmarked count: {line}"
        );
    }
    assert!(shown.contains(&format!("{all_word} errors")), "{shown}");
}
