//! The ledger's reads for `ctx gain`, and the exact counts it caches.

use std::collections::HashMap;

use rusqlite::params;

use super::db::Ledger;
use super::error::sqlite;
use super::rows::{DayRow, ExpandRow, RunRow, Uncounted};
use super::{DAY_MS, LedgerError};
use crate::artifact::Exit;

/// A record whose original could not be counted (evicted, or the
/// tokenizer failed): not tried again.
const UNCOUNTABLE: i64 = -1;

impl Ledger {
    /// Runs recorded at or after `since_ms` (all when None), oldest first.
    pub fn runs(&self, since_ms: Option<i64>) -> Result<Vec<RunRow>, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        // Command lines are few and shared by many runs: parsed once each.
        let mut commands: HashMap<i64, Command> = HashMap::new();
        let mut st = self
            .conn
            .prepare("SELECT id, argv, label, family, profile FROM commands")
            .map_err(err)?;
        let mut rows = st.query([]).map_err(err)?;
        while let Some(r) = rows.next().map_err(err)? {
            let argv: String = r.get(1).map_err(err)?;
            let label: String = r.get(2).map_err(err)?;
            commands.insert(
                r.get(0).map_err(err)?,
                Command {
                    argv: serde_json::from_str(&argv).unwrap_or_default(),
                    label: Some(label).filter(|l| !l.is_empty()),
                    family: r.get(3).map_err(err)?,
                    profile: r.get(4).map_err(err)?,
                },
            );
        }
        let mut st = self
            .conn
            .prepare(
                "SELECT r.id, r.at_ms, r.command, r.exit, r.raw_bytes, r.raw_tokens,
                        r.delivered_tokens, r.digest, r.rejection, rec.key, rec.raw_exact,
                        r.delivered_exact, r.delta_saved
                 FROM runs r LEFT JOIN records rec ON rec.id = r.record
                 WHERE r.at_ms >= ?1 ORDER BY r.at_ms, r.id",
            )
            .map_err(err)?;
        let none = Command::default();
        let rows = st
            .query_map([since_ms.unwrap_or(i64::MIN)], |r| {
                let command = commands.get(&r.get::<_, i64>(2)?).unwrap_or(&none);
                let exit: Option<i32> = r.get(3)?;
                let digest: bool = r.get(7)?;
                let key: Option<Vec<u8>> = r.get(9)?;
                // Binary output is no text an agent reads: its original
                // counts as what was delivered (its estimate), never as the
                // tokens a tokenizer finds in a billion NULs.
                let binary = command.profile == crate::delivery::BINARY_PROFILE;
                let raw_exact = r
                    .get::<_, Option<i64>>(10)?
                    .filter(|&n| n >= 0 && !binary)
                    .map(count);
                let delivered_exact = if digest {
                    r.get::<_, Option<i64>>(11)?.map(count)
                } else {
                    // The raw output went out: what was delivered is the original.
                    raw_exact
                };
                Ok(RunRow {
                    id: r.get(0)?,
                    at_ms: r.get(1)?,
                    argv: command.argv.clone(),
                    label: command.label.clone(),
                    family: command.family.clone(),
                    profile: command.profile.clone(),
                    exit: match exit {
                        Some(c) if c >= 0 => Exit::Code(c),
                        Some(s) => Exit::Signal(-s),
                        None => Exit::Unknown,
                    },
                    raw_bytes: count(r.get(4)?),
                    raw_tokens: count(r.get(5)?),
                    delivered_tokens: count(r.get(6)?),
                    digest,
                    rejection: r.get(8)?,
                    key_hex: key.map(|k| hex(&k)),
                    raw_exact,
                    delivered_exact,
                    delta_saved: r.get::<_, Option<i64>>(12)?.map(count),
                })
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// The re-run deltas delivered for the record `key`, latest first:
    /// (unix ms, the short key of the run compared with, tokens saved).
    pub fn deltas_of(&self, key: &[u8; 32]) -> Result<Vec<(i64, String, u64)>, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let mut st = self
            .conn
            .prepare(
                "SELECT r.at_ms, r.delta_against, IFNULL(r.delta_saved, 0)
                 FROM runs r JOIN records rec ON rec.id = r.record
                 WHERE rec.key = ?1 AND r.delta_against IS NOT NULL
                 ORDER BY r.at_ms DESC, r.id DESC",
            )
            .map_err(err)?;
        let rows = st
            .query_map([&key[..]], |r| Ok((r.get(0)?, r.get(1)?, count(r.get(2)?))))
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// Every expand still held (those of runs summed into days are in
    /// the days), oldest first.
    pub fn expands(&self) -> Result<Vec<ExpandRow>, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let mut st = self
            .conn
            .prepare(
                "SELECT e.at_ms, lower(hex(rec.key)), e.tokens
                 FROM expands e JOIN records rec ON rec.id = e.record
                 ORDER BY e.at_ms, e.id",
            )
            .map_err(err)?;
        let rows = st
            .query_map([], |r| {
                Ok(ExpandRow {
                    at_ms: r.get(0)?,
                    key_hex: r.get(1)?,
                    tokens: count(r.get(2)?),
                })
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// (run id, unix ms, key) of every run that archived its output, for
    /// attributing expands to runs outside a `--since` window.
    pub fn keyed_runs(&self) -> Result<Vec<(i64, i64, String)>, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let mut st = self
            .conn
            .prepare(
                "SELECT r.id, r.at_ms, rec.key
                 FROM runs r JOIN records rec ON rec.id = r.record",
            )
            .map_err(err)?;
        let rows = st
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, hex(&r.get::<_, Vec<u8>>(2)?)))
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// Days summed out of the per-run rows, those starting at or after
    /// `since_ms` (all when None).
    pub fn days(&self, since_ms: Option<i64>) -> Result<Vec<DayRow>, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let mut st = self
            .conn
            .prepare(
                "SELECT day, grp, family, runs, digested, raw_tokens, delivered_tokens,
                        raw_best, delivered_best, exact_runs, expands, expanded_tokens
                 FROM days WHERE day * ?1 >= ?2 ORDER BY day, grp, family",
            )
            .map_err(err)?;
        let rows = st
            .query_map(params![DAY_MS, since_ms.unwrap_or(i64::MIN)], |r| {
                Ok(DayRow {
                    day: r.get(0)?,
                    group: r.get(1)?,
                    family: r.get(2)?,
                    runs: count(r.get(3)?),
                    digested: count(r.get(4)?),
                    raw_tokens: count(r.get(5)?),
                    delivered_tokens: count(r.get(6)?),
                    raw_best: count(r.get(7)?),
                    delivered_best: count(r.get(8)?),
                    exact_runs: count(r.get(9)?),
                    expands: count(r.get(10)?),
                    expanded_tokens: count(r.get(11)?),
                })
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// Archive records that runs since `since_ms` point at and that have
    /// no exact count yet: each is counted once, however many runs share it.
    /// Only records a run can use: one that delivered its output (the two
    /// sides are the same count) or whose digest was counted. A run whose
    /// digest a fold dropped stays on estimates whatever its original
    /// counts, and counting those originals was most of the first
    /// `ctx gain` after thousands of runs.
    pub fn uncounted(&self, since_ms: Option<i64>) -> Result<Vec<Uncounted>, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let mut st = self
            .conn
            .prepare(
                "SELECT rec.id, lower(hex(rec.key)) FROM records rec
                 WHERE rec.raw_exact IS NULL
                   AND EXISTS (SELECT 1 FROM runs r WHERE r.record = rec.id AND r.at_ms >= ?1
                               AND (r.digest = 0 OR r.delivered_exact IS NOT NULL))
                 ORDER BY rec.id",
            )
            .map_err(err)?;
        let rows = st
            .query_map([since_ms.unwrap_or(i64::MIN)], |r| {
                Ok(Uncounted {
                    record: r.get(0)?,
                    key_hex: r.get(1)?,
                })
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// Caches a record's exact count; None marks it as not countable (its
    /// original is gone), so that it is not tried again.
    pub fn set_record_exact(&self, record: i64, raw_exact: Option<u64>) -> Result<(), LedgerError> {
        let value = raw_exact.map_or(UNCOUNTABLE, |n| n as i64);
        self.conn
            .prepare_cached("UPDATE records SET raw_exact = ?2 WHERE id = ?1")
            .and_then(|mut st| st.execute(params![record, value]))
            .map(drop)
            .map_err(|e| sqlite(&self.path, e))
    }
}

/// A command line as stored once in `commands`.
#[derive(Default)]
struct Command {
    argv: Vec<String>,
    label: Option<String>,
    family: String,
    profile: String,
}

/// Lower-case hex, as keys are written everywhere else.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

pub(super) fn count(n: i64) -> u64 {
    n.max(0) as u64
}
