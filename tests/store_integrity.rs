//! Records are verified when read: a damaged chunk or record is reported
//! (`record H is damaged`, exit 1), never printed as if it were the
//! output, and quarantined so that the next identical run archives afresh.
//! `ctx store check` finds the same damage across the whole store.

use std::path::Path;
use std::process::Output;

use tempfile::TempDir;

use support::{ctx_cmd, pipe, text};

mod support;

fn ctx(home: &Path, args: &[&str]) -> Output {
    ctx_cmd(home, args).output().expect("run ctx")
}

/// Archives `input` through `ctx pipe`; the key its digest names.
fn archive(home: &Path, input: &[u8]) -> String {
    let out = pipe(home, input);
    let t = text(&out.stdout);
    let at = t.rfind("ctx expand ").expect("the digest names a record");
    t[at + 11..]
        .chars()
        .take_while(|c| c.is_ascii_hexdigit())
        .collect()
}

/// Several MiB of log lines (lz4 shrinks them: compressed chunks).
fn log(tag: &str) -> Vec<u8> {
    (1..=120_000)
        .map(|i| {
            format!(
                "{tag} line {i}: processing item {} of the batch\n",
                i * 7919 % 10007
            )
        })
        .collect::<String>()
        .into_bytes()
}

/// Lines lz4 cannot shrink (stored uncompressed).
fn noise(n: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = Vec::with_capacity(n + 80);
    while out.len() < n {
        for _ in 0..60 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.push(
                b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
                    [(x % 64) as usize],
            );
        }
        out.push(b'\n');
    }
    out
}

fn db(home: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(home.join("store.db")).expect("open store.db")
}

/// Flips bytes in the middle of chunk `seq` of the record `key` names;
/// returns the chunk's codec (0 stored as is, 1 lz4).
fn flip(home: &Path, key: &str, seq: i64) -> i64 {
    let c = db(home);
    let (rowid, codec, mut data): (i64, i64, Vec<u8>) = c
        .query_row(
            "SELECT c.rowid, c.codec, c.data FROM chunks c JOIN records r ON c.record = r.id
             WHERE r.hex LIKE ?1 || '%' AND c.seq = ?2",
            rusqlite::params![key, seq],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .expect("the chunk exists");
    let mid = data.len() / 2;
    for b in &mut data[mid..mid + 4] {
        *b ^= 0x5a;
    }
    c.execute(
        "UPDATE chunks SET data = ?1 WHERE rowid = ?2",
        rusqlite::params![data, rowid],
    )
    .expect("write the flipped chunk");
    codec
}

fn assert_damaged(out: &Output, key: &str, what: &str) {
    assert_eq!(out.status.code(), Some(1), "{what}: {}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!("record {key} is damaged")),
        "{what}: {}",
        text(&out.stderr)
    );
}

#[test]
fn a_flipped_chunk_is_reported_quarantined_and_archived_afresh() {
    for (name, input, codec) in [("compressed", log("cmp"), 1), ("stored", noise(3 << 20), 0)] {
        let h = TempDir::new().expect("tempdir");
        let key = archive(h.path(), &input);
        assert_eq!(flip(h.path(), &key, 1), codec, "{name}: codec");

        let all = ctx(h.path(), &["expand", &key, "--all"]);
        assert_damaged(&all, &key, name);
        // Nothing past the damage is printed as if it were the output.
        assert!(all.stdout.len() < input.len(), "{name}: printed it all");
        assert!(
            input.starts_with(&all.stdout),
            "{name}: printed wrong bytes"
        );

        // Quarantined: the key now reads as damaged, not as the output.
        let again = ctx(h.path(), &["expand", &key]);
        assert_damaged(&again, &key, name);

        // The next identical run archives it afresh, whole.
        assert_eq!(archive(h.path(), &input), key, "{name}: same key");
        let back = ctx(h.path(), &["expand", &key, "--all"]);
        assert_eq!(
            back.status.code(),
            Some(0),
            "{name}: {}",
            text(&back.stderr)
        );
        assert!(back.stdout == input, "{name}: re-archived bytes differ");
    }
}

#[test]
fn zooms_check_the_chunks_they_read() {
    let h = TempDir::new().expect("tempdir");
    let input = log("zoom");
    let key = archive(h.path(), &input);
    flip(h.path(), &key, 2);
    // Line 1 lies in chunk 0, which is intact.
    let head = ctx(h.path(), &["expand", &key, "--lines", "1-3"]);
    assert_eq!(head.status.code(), Some(0), "{}", text(&head.stderr));
    // The last line lies in the damaged chunk's neighbourhood or beyond:
    // a grep over everything reads every chunk.
    let grep = ctx(h.path(), &["expand", &key, "--grep", "line 119999:"]);
    assert_damaged(&grep, &key, "grep");
}

#[test]
fn a_record_that_does_not_match_its_key_is_damaged() {
    let h = TempDir::new().expect("tempdir");
    let input = log("key");
    let key = archive(h.path(), &input);
    // Every chunk intact, but the record claims another exit status.
    db(h.path())
        .execute(
            "UPDATE records SET exit_kind = 0, exit_value = 3 WHERE hex LIKE ?1 || '%'",
            [&key],
        )
        .expect("tamper");
    assert_damaged(&ctx(h.path(), &["expand", &key, "--all"]), &key, "key");
}

#[test]
fn store_check_verifies_every_record() {
    let h = TempDir::new().expect("tempdir");
    let good = archive(h.path(), &log("good"));
    let bad = archive(h.path(), &noise(2 << 20));

    let clean = ctx(h.path(), &["store", "check"]);
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean.stdout));
    assert!(
        text(&clean.stdout).contains("checked 2 records"),
        "{}",
        text(&clean.stdout)
    );

    flip(h.path(), &bad, 0);
    let found = ctx(h.path(), &["store", "check"]);
    let report = text(&found.stdout);
    assert_eq!(found.status.code(), Some(1), "{report}");
    assert!(
        report.contains(&format!("record {bad} is damaged")),
        "{report}"
    );
    assert!(!report.contains(&good), "{report}");
    assert!(report.contains("1 intact, 1 damaged"), "{report}");

    // Quarantined by the check: expand says so, the good one still reads.
    assert_damaged(&ctx(h.path(), &["expand", &bad]), &bad, "after check");
    assert_eq!(
        ctx(h.path(), &["expand", &good, "--lines", "1"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(ctx(h.path(), &["store", "check"]).status.code(), Some(0));
}
