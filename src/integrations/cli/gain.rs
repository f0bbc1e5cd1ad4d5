//! `ctx gain`: tokens saved, in total and per command (the arithmetic is in
//! `ledger::gain`; docs/ledger.md explains it).
//!
//! Before reporting, runs in the window that lack exact o200k counts get
//! them: the digest from the bytes the ledger kept, the original from the
//! archive while it still holds the record. Counts are cached in the
//! ledger, so each run is counted once.

use std::io::{self, Write};
use std::time::{Duration, Instant, UNIX_EPOCH};

use crate::ledger::gain::{self, By, Group, Report};
use crate::ledger::{self, DAY_MS, Ledger};
use crate::store::{self, ArchiveKey, Store};
use crate::tokens;

/// Arguments of `ctx gain`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Only runs since then: `today`, `yesterday`, a weekday (`monday`:
    /// its most recent start, today's if today is one), a duration
    /// (`7d`, `24h`) or a date (`2026-11-01`, `2026-11-01T12:00:00Z`). Days
    /// begin at midnight UTC, as the ledger's daily rows do.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Group runs by command (program and subcommand), by output family,
    /// or by UTC day (a trend, oldest first).
    #[arg(long, value_enum, default_value = "command")]
    pub by: ByArg,
    /// Show only the N groups that saved the most (with `--by day`, the
    /// N latest days).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Count nothing exactly: every figure is the hot path's estimate.
    #[arg(long, conflicts_with = "exact")]
    pub estimate: bool,
    /// Count every archived original exactly now, however long that takes
    /// (without it one call counts for at most about a tenth of a second
    /// and the next calls count the rest).
    #[arg(long)]
    pub exact: bool,
}

/// How long one `ctx gain` spends counting archived originals exactly,
/// once the tokenizer is up: after 10,000 runs, counting every original
/// took 10 s in one call. What is left keeps its estimate (marked `≈`)
/// and is counted by the next calls, each within the same budget.
const COUNT_BUDGET: Duration = Duration::from_millis(100);

/// ctx's own reports print as text or JSON (`crate::format`).
pub use crate::format::ReportFormat as Format;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByArg {
    Command,
    Family,
    Day,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    let now = ledger::now_ms();
    let since_ms = args
        .since
        .as_deref()
        .map(|s| parse_since(s, now))
        .transpose()?;
    let by = match args.by {
        ByArg::Command => By::Command,
        ByArg::Family => By::Family,
        ByArg::Day => By::Day,
    };
    let mut left = 0;
    let report = match Ledger::open_existing_default()? {
        None => gain::report(&[], &[], &[], &[], since_ms, by, args.top, !args.estimate),
        Some(ledger) => {
            if !args.estimate {
                let budget = (!args.exact).then_some(COUNT_BUDGET);
                left = count_exactly(&ledger, since_ms, budget)?;
            }
            let runs = ledger.runs(since_ms)?;
            let keyed = ledger.keyed_runs()?;
            let expands = ledger.expands()?;
            let days = ledger.days(since_ms)?;
            gain::report(
                &runs,
                &keyed,
                &expands,
                &days,
                since_ms,
                by,
                args.top,
                !args.estimate,
            )
        }
    };
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&report)? + "\n",
        Format::Text if left > 0 => {
            render(&report)
                + &format!(
                    "not counted yet: {} (the next `ctx gain` counts more; \
                     `ctx gain --exact` counts them all now)\n",
                    crate::render::counted(left, "archived originals")
                )
        }
        Format::Text => render(&report),
    };
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        // A reader that went away (`| head`) is not ctx's failure.
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(0),
    }
}

/// `today`, `yesterday`, a weekday, `7d`, `24h`, `2026-11-01`, or an
/// RFC 3339 time, as unix milliseconds (days start at midnight UTC).
pub fn parse_since(text: &str, now_ms: i64) -> anyhow::Result<i64> {
    let text = text.trim();
    if let Some(day) = named_day(&text.to_ascii_lowercase(), now_ms.div_euclid(DAY_MS)) {
        return Ok(day * DAY_MS);
    }
    if let Ok(d) = humantime::parse_duration(text) {
        return Ok(now_ms.saturating_sub(d.as_millis().min(i64::MAX as u128) as i64));
    }
    let time = if text.len() == 10 {
        humantime::parse_rfc3339(&format!("{text}T00:00:00Z"))
    } else {
        humantime::parse_rfc3339_weak(text)
    };
    let time = time.map_err(|_| {
        anyhow::anyhow!(
            "--since {text:?} is not a time ctx knows: use today, yesterday, a weekday \
             (monday), a duration (7d, 24h) or a date (2026-11-01)"
        )
    })?;
    let ms = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    Ok(ms)
}

/// The weekdays `--since` takes (or their first three letters or more),
/// Monday first; the completion scripts offer them.
pub const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// The UTC day (days since the epoch) a word names, counted from `today`:
/// `today`, `yesterday`, a weekday's most recent occurrence (today's when
/// today is that day; `last monday` is the one before today).
fn named_day(word: &str, today: i64) -> Option<i64> {
    match word {
        "today" => return Some(today),
        "yesterday" => return Some(today - 1),
        _ => {}
    }
    let (strictly_before, name) = match word.strip_prefix("last ") {
        Some(rest) => (true, rest.trim()),
        None => (false, word),
    };
    let target = WEEKDAYS
        .iter()
        .position(|d| name == *d || (name.len() >= 3 && d.starts_with(name)))?
        as i64;
    // 1970-01-01, day 0, was a Thursday (index 3 from Monday).
    let weekday = (today + 3).rem_euclid(7);
    let mut back = (weekday - target).rem_euclid(7);
    if strictly_before && back == 0 {
        back = 7;
    }
    Some(today - back)
}

/// Counts exactly the archived originals that runs since `since_ms`
/// point at and that were never counted: each record once, however many
/// runs share it, newest first, until `budget` has passed (timed from the
/// first count, which also starts the tokenizer). A record the archive no
/// longer holds is marked as such and leaves its runs on estimates.
/// (Digests were counted when the journal was folded.) Returns how many
/// are left for a later call.
fn count_exactly(
    ledger: &Ledger,
    since_ms: Option<i64>,
    budget: Option<Duration>,
) -> anyhow::Result<usize> {
    // No store, or a damaged one: originals stay uncounted (and are tried
    // again next time).
    let Some(archive) = store::open_existing_to_read().ok().flatten() else {
        return Ok(0);
    };
    let mut todo = ledger.uncounted(since_ms)?;
    todo.reverse();
    let mut started: Option<Instant> = None;
    for (done, record) in todo.iter().enumerate() {
        if let (Some(budget), Some(at)) = (budget, started)
            && at.elapsed() >= budget
        {
            return Ok(todo.len() - done);
        }
        let raw = ArchiveKey::from_hex(&record.key_hex)
            .and_then(|key| archive.load(&key).ok())
            .and_then(|artifact| tokens::try_exact(artifact.bytes()))
            .map(|n| n as u64);
        ledger.set_record_exact(record.record, raw)?;
        started.get_or_insert_with(Instant::now);
    }
    Ok(0)
}

/// Width of the longest bar, in terminal cells.
const BAR: usize = 24;

fn render(r: &Report) -> String {
    let t = &r.totals;
    let mut s = String::new();
    let window = match r.since_ms {
        None => "all time".to_string(),
        Some(ms) => format!(
            "since {}",
            humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64))
        ),
    };
    s += &format!("ctx gain · {window} · {} tokens\n", r.tokens);
    if t.runs == 0 {
        s += if r.since_ms.is_some() {
            "no runs recorded in this window\n"
        } else {
            "no runs recorded\n"
        };
        return s;
    }
    s += &format!(
        "runs {} ({} digested) · raw {} · delivered {} · read back {} ({})\n",
        num(t.runs as i64),
        num(t.digested as i64),
        num(t.raw_tokens as i64),
        num(t.delivered_tokens as i64),
        num(t.expanded_tokens as i64),
        crate::render::counted(t.expands as usize, "expands"),
    );
    s += &format!(
        "saved {} tokens ({})\n",
        num(t.saved_tokens),
        pct(r.saved_ratio)
    );
    if t.delta_runs > 0 {
        s += &format!(
            "of which re-run deltas: {} tokens over {} (beyond their normal digests)\n",
            num(t.delta_saved_tokens as i64),
            runs(t.delta_runs),
        );
    }
    s += "\n";

    let heading = match r.by {
        By::Command => "command",
        By::Family => "family",
        By::Day => "day (UTC)",
    };
    let name_w = r
        .groups
        .iter()
        .map(|g| g.name.chars().count())
        .chain([heading.len()])
        .max()
        .unwrap_or(0);
    let widest = r
        .groups
        .iter()
        .map(|g| g.tally.saved_tokens.unsigned_abs())
        .max()
        .unwrap_or(0);
    s += &format!(
        "{heading:<name_w$}  {:>5}  {:>11}  {:>11}  {:>11}  {:>7}\n",
        "runs", "raw", "read back", "saved", "%"
    );
    for g in &r.groups {
        s += &row(g, name_w, widest);
    }
    if r.groups_omitted > 0 {
        s += &format!("({} more)\n", r.groups_omitted);
    }
    s += "\n";
    let rest = t.runs - t.exact_runs;
    s += &format!(
        "exact: {} of {} counted with tiktoken-rs (original and delivered); {}\n",
        num(t.exact_runs as i64),
        runs(t.runs),
        if rest == 0 {
            "every read-back figure is an estimate (≈)".to_string()
        } else {
            format!(
                "the other {} and every read-back figure are estimates (≈)",
                runs(rest)
            )
        },
    );
    if r.unattributed_expands > 0 {
        s += &format!(
            "not subtracted: {} ({} tokens) of records no run in this ledger made\n",
            crate::render::counted(r.unattributed_expands as usize, "expands"),
            num(r.unattributed_expanded_tokens as i64),
        );
    }
    s
}

fn row(g: &Group, name_w: usize, widest: u64) -> String {
    let name = &g.name;
    let pad = name_w.saturating_sub(name.chars().count());
    // A group any of whose runs was not counted exactly shows its token
    // figures as estimates.
    let about = if g.tally.exact_runs < g.tally.runs {
        "≈"
    } else {
        ""
    };
    format!(
        "{name}{:pad$}  {:>5}  {:>11}  {:>11}  {:>11}  {:>7}  {}\n",
        "",
        num(g.tally.runs as i64),
        format!("{about}{}", num(g.tally.raw_tokens as i64)),
        match g.tally.expanded_tokens {
            0 => "0".to_string(),
            n => format!("≈{}", num(n as i64)),
        },
        format!("{about}{}", num(g.tally.saved_tokens)),
        pct(g.saved_ratio),
        bar(g.tally.saved_tokens, widest),
    )
    .trim_end()
    .to_string()
        + "\n"
}

/// A savings bar in eighths of a cell; a loss is drawn in light shade.
fn bar(saved: i64, widest: u64) -> String {
    if saved == 0 || widest == 0 {
        return String::new();
    }
    let eighths =
        (saved.unsigned_abs() as u128 * (BAR as u128 * 8)).div_ceil(widest as u128) as usize;
    if saved < 0 {
        return "░".repeat(eighths.div_ceil(8));
    }
    const PARTIAL: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    "█".repeat(eighths / 8) + PARTIAL[eighths % 8]
}

fn runs(n: u64) -> String {
    format!("{} run{}", num(n as i64), if n == 1 { "" } else { "s" })
}

/// 1234567 → "1,234,567".
fn num(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

fn pct(ratio: f64) -> String {
    format!("{:.1}%", ratio * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_forms() {
        let now = 1_800_000_000_000;
        assert_eq!(parse_since("7d", now).expect("7d"), now - 7 * 86_400_000);
        assert_eq!(parse_since("24h", now).expect("24h"), now - 86_400_000);
        assert_eq!(
            parse_since("2026-11-01", now).expect("date"),
            1_793_491_200_000
        );
        assert_eq!(
            parse_since("2026-11-01T12:00:00Z", now).expect("time"),
            1_793_491_200_000 + 43_200_000
        );
        assert!(parse_since("next tuesday", now).is_err());
    }

    #[test]
    fn named_days_are_utc_midnights() {
        // 1_800_000_000_000 is Friday 2027-01-15 08:00 UTC.
        let now = 1_800_000_000_000;
        assert_eq!(parse_since("today", now).expect("today"), 1_799_971_200_000);
        assert_eq!(parse_since("Yesterday", now).expect("y"), 1_799_884_800_000);
        assert_eq!(parse_since("friday", now).expect("fri"), 1_799_971_200_000);
        assert_eq!(parse_since("mon", now).expect("mon"), 1_799_625_600_000);
        assert_eq!(
            parse_since("monday", now).expect("monday"),
            1_799_625_600_000
        );
        assert_eq!(
            parse_since("last friday", now).expect("last"),
            1_799_366_400_000
        );
        let e = parse_since("fortnight", now).expect_err("unknown");
        assert!(e.to_string().contains("yesterday"), "{e}");
    }

    #[test]
    fn numbers_and_bars() {
        assert_eq!(num(0), "0");
        assert_eq!(num(999), "999");
        assert_eq!(num(1000), "1,000");
        assert_eq!(num(-1_234_567), "-1,234,567");
        assert_eq!(bar(100, 100), "█".repeat(BAR));
        assert_eq!(bar(50, 100), "█".repeat(BAR / 2));
        assert_eq!(bar(1, 1000), "▏");
        assert_eq!(bar(-50, 100), "░".repeat(BAR / 2));
        assert_eq!(bar(0, 100), "");
        assert_eq!(pct(-0.3), "-30.0%");
    }
}
