//! The ledger's storage: rows round-trip, a record is counted once, the
//! retention window sums old runs without changing any figure, the
//! journal is folded before it grows large, a v1 file is migrated, and a
//! run costs at most 300 bytes on disk.

use std::path::Path;

use super::gain::{self, By, Report};
use super::*;
use crate::artifact::{Artifact, Exit};
use crate::pipeline::Output;
use crate::profiles::{Match, MatchedBy};

fn delivery(output: Output, raw: usize, delivered: usize, key: Option<ArchiveKey>) -> Delivery {
    Delivery {
        output,
        profile: "pytest/v1",
        matched: Match {
            by: MatchedBy::Command,
            reason: "argv".into(),
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

fn art(argv: &[&str], exit: Exit) -> Artifact {
    Artifact::from_stdout(
        b"x\n".to_vec(),
        exit,
        argv.iter().map(|s| s.to_string()).collect(),
    )
}

fn open(dir: &Path) -> Ledger {
    Ledger::open(&dir.join(FILE_NAME), READ_WAIT).expect("open")
}

fn report(l: &Ledger, by: By, exact: bool) -> Report {
    gain::report(
        &l.runs(None).expect("runs"),
        &l.keyed_runs().expect("keyed"),
        &l.expands().expect("expands"),
        &l.days(None).expect("days"),
        None,
        by,
        None,
        exact,
    )
}

#[test]
fn records_and_reads_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = open(dir.path());
    let key = ArchiveKey([7; 32]);
    let a = art(&["pytest", "-x"], Exit::Code(1));
    let d = delivery(Output::Digest(b"d\n".to_vec()), 100, 10, Some(key));
    ledger.record_run_at(&a, &d, 5).expect("record");
    let killed = art(&["sleep", "9"], Exit::Signal(9));
    ledger
        .record_run_at(&killed, &delivery(Output::Raw, 3, 3, None), 6)
        .expect("record");
    ledger.record_expand_at(&key, 3, 6).expect("expand");
    let runs = ledger.runs(None).expect("runs");
    assert_eq!(runs.len(), 2);
    let r = &runs[0];
    assert_eq!(r.argv, ["pytest", "-x"]);
    assert_eq!(
        (r.family.as_str(), r.profile.as_str()),
        ("pytest", "pytest/v1")
    );
    assert_eq!(r.exit, Exit::Code(1));
    assert_eq!(
        (r.raw_bytes, r.raw_tokens, r.delivered_tokens),
        (2, 100, 10)
    );
    assert!(r.digest);
    assert_eq!(r.key_hex.as_deref(), Some(key.hex().as_str()));
    assert_eq!(r.delivered_exact, Some(crate::tokens::exact(b"d\n") as u64));
    assert_eq!(runs[1].exit, Exit::Signal(9));
    assert_eq!(ledger.runs(Some(6)).expect("runs").len(), 1);
    let ex = ledger.expands().expect("expands");
    assert_eq!(
        ex,
        [ExpandRow {
            at_ms: 6,
            key_hex: key.hex(),
            tokens: 3
        }]
    );
    let todo = ledger.uncounted(None).expect("uncounted");
    assert_eq!(todo.len(), 1);
    ledger
        .set_record_exact(todo[0].record, Some(90))
        .expect("set");
    let r = &ledger.runs(None).expect("runs")[0];
    assert_eq!(r.raw_exact, Some(90));
    assert!(ledger.uncounted(None).expect("uncounted").is_empty());
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(dir.path().join(FILE_NAME))
            .expect("meta")
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    drop(ledger);
    assert_eq!(open(dir.path()).runs(None).expect("runs").len(), 2);
}

#[test]
fn a_damaged_ledger_fails_to_open_and_records_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(FILE_NAME);
    std::fs::write(&path, vec![0x55u8; 8192]).expect("write");
    assert!(Ledger::open(&path, RECORD_WAIT).is_err());
}

#[test]
fn a_record_piped_many_times_is_counted_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = open(dir.path());
    let key = ArchiveKey([3; 32]);
    for i in 0..1000 {
        let d = delivery(Output::Raw, 500, 500, Some(key));
        ledger
            .record_run_at(&art(&["cat", "big.log"], Exit::Code(0)), &d, i)
            .expect("record");
    }
    let todo = ledger.uncounted(None).expect("uncounted");
    assert_eq!(todo.len(), 1, "one record to count, not one per run");
    ledger
        .set_record_exact(todo[0].record, Some(480))
        .expect("set");
    let r = report(&ledger, By::Command, true);
    assert_eq!(r.totals.exact_runs, 1000);
    assert_eq!(r.totals.raw_tokens, 480_000);
    // An original the archive no longer holds is not tried again.
    let other = ArchiveKey([4; 32]);
    let d = delivery(Output::Raw, 5, 5, Some(other));
    ledger
        .record_run_at(&art(&["cat", "gone.log"], Exit::Code(0)), &d, 2000)
        .expect("record");
    let todo = ledger.uncounted(None).expect("uncounted");
    ledger.set_record_exact(todo[0].record, None).expect("mark");
    assert!(ledger.uncounted(None).expect("uncounted").is_empty());
}

/// Runs over `days` days, a few commands, some archived, some expanded.
#[test]
fn only_originals_a_run_can_use_are_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let digest = || Output::Digest(b"pytest: 1 failed\n".to_vec());
    // A digest dropped by a fold on a run's path: its run stays on
    // estimates whatever its original counts.
    let dropped = ArchiveKey([5; 32]);
    let d = delivery(digest(), 900, 10, Some(dropped));
    let entry = journal::RunEntry::new(&art(&["pytest"], Exit::Code(1)), &d, 1);
    journal_run(dir.path(), entry);
    let ledger = open(dir.path());
    ledger
        .fold_journal_with(dir.path(), Digests::Drop)
        .expect("fold");
    assert!(ledger.uncounted(None).expect("uncounted").is_empty());
    // A counted digest, and an output delivered as it was, need theirs.
    let counted = ArchiveKey([6; 32]);
    let d = delivery(digest(), 900, 10, Some(counted));
    ledger
        .record_run_at(&art(&["pytest"], Exit::Code(1)), &d, 2)
        .expect("record");
    let raw = ArchiveKey([7; 32]);
    let d = delivery(Output::Raw, 50, 50, Some(raw));
    ledger
        .record_run_at(&art(&["cat", "x"], Exit::Code(0)), &d, 3)
        .expect("record");
    let todo: Vec<String> = ledger
        .uncounted(None)
        .expect("uncounted")
        .into_iter()
        .map(|u| u.key_hex)
        .collect();
    assert_eq!(todo, vec![counted.hex(), raw.hex()]);
}

fn busy_ledger(ledger: &Ledger, days: i64, per_day: i64) {
    let commands: [&[&str]; 4] = [
        &["cargo", "test"],
        &["pytest", "-x"],
        &["make"],
        &["go", "test", "./..."],
    ];
    for day in 0..days {
        for i in 0..per_day {
            let at = day * DAY_MS + i * 1000;
            let n = (day * per_day + i) as usize;
            let key = (!n.is_multiple_of(3)).then_some(ArchiveKey([(n % 50) as u8; 32]));
            let output = if n.is_multiple_of(5) {
                Output::Raw
            } else {
                Output::Digest(format!("digest {n}\n").into_bytes())
            };
            let d = delivery(output, 1000 + n, 100 + n % 7, key);
            let a = art(commands[n % commands.len()], Exit::Code((n % 2) as i32));
            ledger.record_run_at(&a, &d, at).expect("record");
            if n.is_multiple_of(7)
                && let Some(key) = key
            {
                ledger.record_expand_at(&key, 40, at + 500).expect("expand");
            }
        }
    }
    // Some originals counted exactly.
    for u in ledger.uncounted(None).expect("uncounted").iter().step_by(2) {
        ledger.set_record_exact(u.record, Some(900)).expect("set");
    }
}

#[test]
fn the_retention_window_changes_no_figure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = open(dir.path());
    busy_ledger(&ledger, 60, 20);
    let before: Vec<Report> = [By::Command, By::Family]
        .into_iter()
        .flat_map(|by| [report(&ledger, by, true), report(&ledger, by, false)])
        .collect();
    let now = 60 * DAY_MS;
    let summed = ledger.prune(now, 30 * DAY_MS).expect("prune");
    assert_eq!(summed, 30 * 20, "the runs of the first 30 days were summed");
    assert_eq!(ledger.runs(None).expect("runs").len(), 30 * 20);
    assert!(!ledger.days(None).expect("days").is_empty());
    let after: Vec<Report> = [By::Command, By::Family]
        .into_iter()
        .flat_map(|by| [report(&ledger, by, true), report(&ledger, by, false)])
        .collect();
    assert_eq!(before, after);
    // Pruning again changes nothing.
    assert_eq!(ledger.prune(now, 30 * DAY_MS).expect("prune"), 0);
}

#[test]
fn a_run_costs_at_most_300_bytes_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    const RUNS: usize = 3000;
    for i in 0..RUNS {
        let argv = [
            "cargo",
            "test",
            if i % 10 == 0 { "--release" } else { "-q" },
        ];
        let d = delivery(
            Output::Digest(
                format!("cargo test: FAILED · {i} failed\n")
                    .repeat(40)
                    .into_bytes(),
            ),
            5000,
            300,
            Some(ArchiveKey([(i % 200) as u8; 32])),
        );
        let entry = journal::RunEntry::new(&art(&argv, Exit::Code(101)), &d, now_ms() + i as i64);
        journal_run(dir.path(), entry);
    }
    let ledger = open(dir.path());
    ledger
        .fold_journal_with(dir.path(), Digests::Drop)
        .expect("fold");
    ledger.checkpoint();
    assert_eq!(ledger.runs(None).expect("runs").len(), RUNS);
    drop(ledger);
    let bytes: u64 = std::fs::read_dir(dir.path())
        .expect("list")
        .flatten()
        .map(|e| e.metadata().map_or(0, |m| m.len()))
        .sum();
    let per_run = bytes / RUNS as u64;
    assert!(per_run <= 300, "{per_run} bytes per run ({bytes} in all)");
}

#[test]
fn the_journal_is_folded_before_it_grows_large() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = "x".repeat(4000);
    for i in 0..200 {
        let d = delivery(Output::Digest(big.clone().into_bytes()), 5000, 1000, None);
        let entry = journal::RunEntry::new(&art(&["make"], Exit::Code(0)), &d, now_ms() + i);
        journal_run(dir.path(), entry);
        let len = std::fs::metadata(dir.path().join(journal::FILE_NAME)).map_or(0, |m| m.len());
        assert!(len <= FOLD_BYTES + 8192, "journal at {len} bytes");
    }
    let ledger = open(dir.path());
    ledger.fold_journal(dir.path()).expect("fold");
    assert_eq!(ledger.runs(None).expect("runs").len(), 200, "no run lost");
}

#[test]
fn a_v1_ledger_is_migrated() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(FILE_NAME);
    {
        let c = rusqlite::Connection::open(&path).expect("create v1");
        c.execute_batch(V1).expect("v1 schema");
    }
    let ledger = open(dir.path());
    let runs = ledger.runs(None).expect("runs");
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].argv, ["pytest", "-x"]);
    assert_eq!(runs[0].exit, Exit::Code(1));
    assert_eq!(runs[0].raw_exact, Some(90));
    assert_eq!(runs[0].delivered_exact, Some(2));
    assert_eq!(runs[1].exit, Exit::Signal(9));
    assert_eq!(runs[1].label.as_deref(), Some("job"));
    assert_eq!(ledger.expands().expect("expands").len(), 2);
    let r = report(&ledger, By::Command, true);
    assert_eq!(r.totals.expanded_tokens, 3);
    assert_eq!(r.unattributed_expands, 1);
}

const V1: &str = "
CREATE TABLE runs (id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, argv TEXT NOT NULL,
    label TEXT, family TEXT NOT NULL, profile TEXT NOT NULL, exit_kind TEXT NOT NULL,
    exit_value INTEGER, raw_bytes INTEGER NOT NULL, raw_tokens INTEGER NOT NULL,
    delivered_tokens INTEGER NOT NULL, delivered TEXT NOT NULL, rejection TEXT,
    key_hex TEXT, digest BLOB, raw_exact INTEGER, delivered_exact INTEGER);
CREATE INDEX runs_at ON runs (at_ms);
CREATE INDEX runs_key ON runs (key_hex);
CREATE TABLE expands (id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL,
    key_hex TEXT NOT NULL, tokens INTEGER NOT NULL);
CREATE INDEX expands_key ON expands (key_hex);
INSERT INTO runs VALUES (1, 5, '[\"pytest\",\"-x\"]', NULL, 'pytest', 'pytest/v1', 'code', 1,
    2, 100, 10, 'digest', NULL,
    '0707070707070707070707070707070707070707070707070707070707070707', X'640a', 90, 2);
INSERT INTO runs VALUES (2, 6, '[\"sleep\",\"9\"]', 'job', 'text', 'text/v1', 'signal', 9,
    3, 3, 3, 'raw', NULL, NULL, NULL, NULL, NULL);
INSERT INTO expands VALUES (1, 7, '0707070707070707070707070707070707070707070707070707070707070707', 3);
INSERT INTO expands VALUES (2, 8, '0909090909090909090909090909090909090909090909090909090909090909', 5);
PRAGMA user_version = 1;
";

#[test]
fn a_fold_that_cannot_write_loses_no_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    drop(open(dir.path()));
    for i in 0..3 {
        let d = delivery(Output::Raw, 10, 10, None);
        let entry = journal::RunEntry::new(&art(&["make"], Exit::Code(0)), &d, now_ms() + i);
        journal_run(dir.path(), entry);
    }
    let holder = rusqlite::Connection::open(dir.path().join(FILE_NAME)).expect("second connection");
    holder
        .execute_batch("BEGIN IMMEDIATE")
        .expect("hold the write lock");
    let ledger = Ledger::open(
        &dir.path().join(FILE_NAME),
        std::time::Duration::from_millis(50),
    )
    .expect("open");
    assert!(ledger.fold_journal(dir.path()).is_err(), "the lock is held");
    holder.execute_batch("ROLLBACK").expect("release");
    assert_eq!(ledger.fold_journal(dir.path()).expect("fold"), 3);
    assert_eq!(ledger.runs(None).expect("runs").len(), 3);
}

#[test]
fn a_v2_ledger_gains_the_delta_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(FILE_NAME);
    {
        let ledger = open(dir.path());
        let d = delivery(Output::Raw, 10, 10, None);
        ledger
            .record_run_at(&art(&["make"], Exit::Code(0)), &d, 5)
            .expect("record");
    }
    {
        // The v2 shape: the same tables without `runs.delta_saved`.
        let c = rusqlite::Connection::open(&path).expect("reopen");
        c.execute_batch(
            "ALTER TABLE runs DROP COLUMN delta_saved; ALTER TABLE runs DROP COLUMN delta_against;
             PRAGMA user_version = 2;",
        )
        .expect("back to v2");
    }
    let ledger = open(dir.path());
    let mut d = delivery(Output::Digest(b"x\n".to_vec()), 100, 20, None);
    d.delta = Some(crate::pipeline::DeltaUse {
        against: "abcdefabcdef".into(),
        age_secs: 60,
        normal_tokens: 50,
    });
    ledger
        .record_run_at(&art(&["pytest"], Exit::Code(1)), &d, 6)
        .expect("record");
    let runs = ledger.runs(None).expect("runs");
    assert_eq!(
        runs.iter().map(|r| r.delta_saved).collect::<Vec<_>>(),
        [None, Some(30)]
    );
    let r = report(&ledger, By::Command, false);
    assert_eq!((r.totals.delta_runs, r.totals.delta_saved_tokens), (1, 30));
}
