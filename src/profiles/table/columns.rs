//! Per-column summaries and the rules that make a row an anomaly.

use std::collections::{BTreeMap, HashMap};

use crate::profiles::json::rules;

use super::layout::Row;

pub struct ColumnStats {
    pub name: String,
    /// Cells present and not empty.
    pub full: usize,
    pub fields: BTreeMap<String, String>,
}

/// A cell as a number: `12`, `3.5`, `97%`, `-1`.
fn number(cell: &str) -> Option<f64> {
    cell.trim_end_matches('%').parse::<f64>().ok()
}

pub fn summarize(columns: &[String], rows: &[Row], delimited: bool) -> Vec<ColumnStats> {
    let n = rows.len();
    let mut out = Vec::new();
    for (c, name) in columns.iter().enumerate() {
        let cells: Vec<&str> = rows
            .iter()
            .filter_map(|r| r.cells.get(c).map(String::as_str))
            .collect();
        let full: Vec<&str> = cells.iter().copied().filter(|s| !s.is_empty()).collect();
        let mut fields = BTreeMap::new();
        fields.insert("present".into(), full.len().to_string());
        fields.insert("of".into(), n.to_string());
        if delimited && full.len() < n {
            fields.insert("empty".into(), (n - full.len()).to_string());
        }
        let nums: Vec<f64> = full.iter().filter_map(|s| number(s)).collect();
        if !full.is_empty() && nums.len() == full.len() {
            fields.insert("types".into(), "number".into());
            let (lo, hi) = nums
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(*x), b.max(*x)));
            let mean = nums.iter().sum::<f64>() / nums.len() as f64;
            fields.insert("min".into(), short(lo));
            fields.insert("max".into(), short(hi));
            fields.insert("mean".into(), short(mean));
        } else {
            fields.insert("types".into(), "text".into());
        }
        let mut counts: HashMap<&str, (usize, usize)> = HashMap::new();
        for (i, s) in full.iter().enumerate() {
            counts.entry(s).or_insert((0, i)).0 += 1;
        }
        fields.insert("distinct".into(), counts.len().to_string());
        // Top values only where values repeat: a column of unique cells
        // (PIDs, commands) says nothing by its three first.
        if counts.len() * 2 <= full.len().max(1) || counts.len() <= 3 {
            let mut top: Vec<(&&str, &(usize, usize))> = counts.iter().collect();
            top.sort_by_key(|(_, (k, first))| (std::cmp::Reverse(*k), *first));
            let words: Vec<String> = top
                .iter()
                .take(3)
                .map(|(v, (k, _))| {
                    format!("{} ×{k}", crate::words::clip_chars(v, 40))
                })
                .collect();
            fields.insert("top".into(), words.join(", "));
        }
        out.push(ColumnStats {
            name: if name.is_empty() {
                format!("column {}", c + 1)
            } else {
                name.clone()
            },
            full: full.len(),
            fields,
        });
    }
    out
}

fn short(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Why a row is an anomaly (empty when it is not).
pub fn reasons(
    columns: &[String],
    stats: &[ColumnStats],
    row: &Row,
    delimited: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let n: usize = stats
        .first()
        .and_then(|s| s.fields.get("of"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for (c, name) in columns.iter().enumerate() {
        let cell = row.cells.get(c).map(String::as_str).unwrap_or("");
        let key = name.trim().to_ascii_lowercase();
        let key = key.trim_end_matches(':');
        if delimited && cell.is_empty() {
            // Empty where the column is otherwise full: at most one cell
            // in a hundred (and at most three) empty.
            let otherwise_full = |s: &ColumnStats| {
                let empty = n - s.full.min(n);
                n >= 5 && empty > 0 && (empty * 100 <= n || empty <= 3) && empty < n / 2
            };
            if stats.get(c).is_some_and(otherwise_full) {
                out.push(format!("{name} empty"));
            }
            continue;
        }
        if let Some(r) = cell_reason(key, cell, stats.get(c), n) {
            out.push(format!("{name} {r}"));
        }
    }
    out
}

fn cell_reason(key: &str, cell: &str, stats: Option<&ColumnStats>, n: usize) -> Option<String> {
    let share = |v: &str| {
        stats
            .and_then(|s| s.fields.get("top"))
            .and_then(|t| {
                t.split(", ").find_map(|e| {
                    e.rsplit_once(" ×")
                        .filter(|(w, _)| *w == v)
                        .map(|(_, k)| k.to_string())
                })
            })
            .and_then(|k| k.parse::<usize>().ok())
            .map_or(0, |k| k * 100 / n.max(1))
    };
    match key {
        // dpkg -l: `ii` is installed; anything else is not as desired.
        "||/" => (cell != "ii").then(|| cell.to_string()),
        // ps: zombies and processes stuck in uninterruptible sleep.
        "stat" | "s" => match cell.chars().next() {
            Some('Z') => Some(format!("{cell} (zombie)")),
            Some('D') => Some(format!("{cell} (uninterruptible)")),
            _ => None,
        },
        "use%" | "capacity" | "iuse%" | "cap" => {
            let pct = number(cell)?;
            (pct >= 100.0).then(|| cell.to_string())
        }
        "restarts" => {
            let k: u64 = cell.split_whitespace().next()?.parse().ok()?;
            (k > 0).then(|| cell.to_string())
        }
        "ready" => {
            let (a, b) = cell.split_once('/')?;
            let (a, b): (u64, u64) = (a.parse().ok()?, b.parse().ok()?);
            (a < b).then(|| cell.to_string())
        }
        k if rules::STATUS_KEYS.contains(&k) || k == "health" => {
            // `Up 2 hours`, `Exited (1) 3 hours ago`: the first word is the state.
            let word = cell.split_whitespace().next().unwrap_or(cell);
            let word = word.trim_end_matches(':');
            let exited_ok = cell.starts_with("Exited (0)");
            let bad = rules::lower_in(word, rules::BAD_WORDS) && !exited_ok;
            let odd = !rules::lower_in(word, rules::OK_WORDS)
                && !rules::lower_in(word, EXTRA_OK)
                && n >= 10
                && share(cell) < 10;
            (bad || odd || cell.contains("(unhealthy)")).then(|| cell.to_string())
        }
        k if rules::ERROR_KEYS.contains(&k) => {
            (!matches!(cell, "" | "-" | "0" | "null" | "none" | "None")).then(|| cell.to_string())
        }
        _ => None,
    }
}

/// Normal states of tables beyond the shared list (sockets, containers).
const EXTRA_OK: &[&str] = &[
    "estab",
    "time-wait",
    "unconn",
    "syn-sent",
    "fin-wait-1",
    "fin-wait-2",
    "up",
    "succeeded",
    "(healthy)",
];
