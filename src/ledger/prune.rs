//! The retention window: per-run rows are kept for `CTX_LEDGER_DAYS`
//! (default 30) days; older runs are summed per UTC day, command group and
//! family into `days`, with the expands attributed to them, and deleted.
//! A ledger therefore grows with the days and commands used, not with the
//! number of runs.

use std::collections::{BTreeMap, HashMap};

use rusqlite::{Transaction, TransactionBehavior, params};

use super::db::Ledger;
use super::error::sqlite;
use super::gain::{attribute, command_group};
use super::{DAY_MS, LedgerError};

/// Days of per-run rows kept when `CTX_LEDGER_DAYS` says nothing.
pub const DEFAULT_DAYS: u32 = 30;

/// How long per-run rows are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    pub window_ms: i64,
}

impl Retention {
    /// `CTX_LEDGER_DAYS` (a whole number of days, at least 1), else 30.
    pub fn from_env() -> Retention {
        let days = std::env::var("CTX_LEDGER_DAYS")
            .ok()
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|&d| d >= 1)
            .unwrap_or(DEFAULT_DAYS);
        Retention {
            window_ms: i64::from(days) * DAY_MS,
        }
    }
}

/// One day's sums for one command group and family.
#[derive(Default)]
struct Sums {
    runs: i64,
    digested: i64,
    raw_tokens: i64,
    delivered_tokens: i64,
    raw_best: i64,
    delivered_best: i64,
    exact_runs: i64,
    expands: i64,
    expanded_tokens: i64,
}

impl Ledger {
    /// Sums the runs older than `window_ms` before `now_ms` into days and
    /// deletes them; returns how many runs were summed.
    pub fn prune(&self, now_ms: i64, window_ms: i64) -> Result<usize, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let cutoff = now_ms.saturating_sub(window_ms);
        let old: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM runs WHERE at_ms < ?1",
                [cutoff],
                |r| r.get(0),
            )
            .map_err(err)?;
        if old == 0 {
            return Ok(0);
        }
        let tx =
            Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate).map_err(err)?;
        let runs = self.runs(None)?;
        let old_runs: Vec<_> = runs.iter().filter(|r| r.at_ms < cutoff).collect();
        let mut sums: BTreeMap<(i64, String, String), Sums> = BTreeMap::new();
        let mut key_of = HashMap::new();
        for run in &old_runs {
            let key = (
                run.at_ms.div_euclid(DAY_MS),
                command_group(&run.argv, run.label.as_deref(), &run.family),
                run.family.clone(),
            );
            key_of.insert(run.id, key.clone());
            let s = sums.entry(key).or_default();
            let (best_raw, best_delivered, exact) = match (run.raw_exact, run.delivered_exact) {
                (Some(r), Some(d)) => (r, d, true),
                _ => (run.raw_tokens, run.delivered_tokens, false),
            };
            s.runs += 1;
            s.digested += i64::from(run.digest);
            s.raw_tokens += run.raw_tokens as i64;
            s.delivered_tokens += run.delivered_tokens as i64;
            s.raw_best += best_raw as i64;
            s.delivered_best += best_delivered as i64;
            s.exact_runs += i64::from(exact);
        }
        // Expands go with the run they are attributed to (the rule of
        // `ctx gain`); those of old runs are summed with them.
        let keyed = self.keyed_runs()?;
        let expands = self.expand_ids()?;
        let rows: Vec<_> = expands.iter().map(|(_, e)| e.clone()).collect();
        let mut gone = Vec::new();
        for ((id, e), run) in expands.iter().zip(attribute(&keyed, &rows)) {
            match run.and_then(|r| key_of.get(&r)) {
                Some(key) => {
                    let s = sums.get_mut(key).expect("summed above");
                    s.expands += 1;
                    s.expanded_tokens += e.tokens as i64;
                    gone.push(*id);
                }
                // An expand of no run's record, from before the window: it
                // was reported as unattributed while it was kept.
                None if run.is_none() && e.at_ms < cutoff => gone.push(*id),
                None => {}
            }
        }
        for ((day, grp, family), s) in &sums {
            self.conn
                .prepare_cached(
                    "INSERT INTO days (day, grp, family, runs, digested, raw_tokens,
                         delivered_tokens, raw_best, delivered_best, exact_runs, expands,
                         expanded_tokens)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
                     ON CONFLICT (day, grp, family) DO UPDATE SET
                         runs = runs + excluded.runs,
                         digested = digested + excluded.digested,
                         raw_tokens = raw_tokens + excluded.raw_tokens,
                         delivered_tokens = delivered_tokens + excluded.delivered_tokens,
                         raw_best = raw_best + excluded.raw_best,
                         delivered_best = delivered_best + excluded.delivered_best,
                         exact_runs = exact_runs + excluded.exact_runs,
                         expands = expands + excluded.expands,
                         expanded_tokens = expanded_tokens + excluded.expanded_tokens",
                )
                .and_then(|mut st| {
                    st.execute(params![
                        day,
                        grp,
                        family,
                        s.runs,
                        s.digested,
                        s.raw_tokens,
                        s.delivered_tokens,
                        s.raw_best,
                        s.delivered_best,
                        s.exact_runs,
                        s.expands,
                        s.expanded_tokens
                    ])
                })
                .map_err(err)?;
        }
        for id in gone {
            self.conn
                .prepare_cached("DELETE FROM expands WHERE id = ?1")
                .and_then(|mut st| st.execute([id]))
                .map_err(err)?;
        }
        self.conn
            .execute("DELETE FROM runs WHERE at_ms < ?1", [cutoff])
            .map_err(err)?;
        // What no run or expand points at any more.
        self.conn
            .execute_batch(
                "DELETE FROM commands WHERE id NOT IN (SELECT command FROM runs);
                 DELETE FROM records WHERE id NOT IN
                     (SELECT record FROM runs WHERE record IS NOT NULL
                      UNION SELECT record FROM expands);",
            )
            .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(old_runs.len())
    }

    /// Every expand with its row id, oldest first.
    fn expand_ids(&self) -> Result<Vec<(i64, super::ExpandRow)>, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let mut st = self
            .conn
            .prepare(
                "SELECT e.id, e.at_ms, lower(hex(rec.key)), e.tokens
                 FROM expands e JOIN records rec ON rec.id = e.record
                 ORDER BY e.at_ms, e.id",
            )
            .map_err(err)?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    super::ExpandRow {
                        at_ms: r.get(1)?,
                        key_hex: r.get(2)?,
                        tokens: super::read::count(r.get(3)?),
                    },
                ))
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }
}
