//! The arithmetic of `ctx gain`, kept apart from SQL and printing so that
//! it can be tested on its own.
//!
//! - Size-weighted: a group's ratio is its summed savings over its summed
//!   raw tokens, never a mean of per-run ratios (one huge log saved counts
//!   for more than ten one-liners).
//! - Signed: a run whose digest came out bigger than its output adds a
//!   negative saving.
//! - Net of expands: tokens that `ctx expand` printed are subtracted from
//!   the run whose record was expanded (the latest run with that key at or
//!   before the expand). An expand whose run is not in the ledger is
//!   reported apart and subtracted from nothing.
//! - Exact where possible: a run counts exactly when both its original and
//!   what it delivered have exact o200k counts; otherwise both sides are
//!   its hot-path estimates, so that a saving never mixes the two.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::{DAY_MS, DayRow, ExpandRow, RunRow};

/// How runs are grouped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum By {
    /// Program name plus first subcommand: `cargo test`, `pytest`.
    Command,
    /// The profile family that read the output: `pytest`, `text`.
    Family,
    /// The UTC day of the run (`2026-11-01`): a trend, oldest first.
    Day,
}

/// Sums over a set of runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub runs: u64,
    /// Runs that delivered a digest (the others delivered their output).
    pub digested: u64,
    pub raw_tokens: u64,
    pub delivered_tokens: u64,
    /// Tokens read back through `ctx expand`.
    pub expanded_tokens: u64,
    pub expands: u64,
    /// raw − delivered − expanded; negative when ctx cost tokens.
    pub saved_tokens: i64,
    /// Runs whose two figures are exact counts (the rest are estimates).
    pub exact_runs: u64,
    /// Runs that delivered a re-run delta instead of the normal digest.
    pub delta_runs: u64,
    /// What those deltas saved beyond the normal digests (estimates;
    /// already part of `saved_tokens`).
    pub delta_saved_tokens: u64,
}

impl Tally {
    /// Saved over raw, size-weighted; 0 for no tokens.
    pub fn saved_ratio(&self) -> f64 {
        if self.raw_tokens == 0 {
            0.0
        } else {
            self.saved_tokens as f64 / self.raw_tokens as f64
        }
    }

    fn add_run(&mut self, raw: u64, delivered: u64, digest: bool, exact: bool) {
        self.runs += 1;
        self.digested += digest as u64;
        self.raw_tokens += raw;
        self.delivered_tokens += delivered;
        self.saved_tokens += raw as i64 - delivered as i64;
        self.exact_runs += exact as u64;
    }

    fn add_day(&mut self, d: &DayRow, use_exact: bool) {
        let (raw, delivered) = if use_exact {
            (d.raw_best, d.delivered_best)
        } else {
            (d.raw_tokens, d.delivered_tokens)
        };
        self.runs += d.runs;
        self.digested += d.digested;
        self.raw_tokens += raw;
        self.delivered_tokens += delivered;
        self.saved_tokens += raw as i64 - delivered as i64 - d.expanded_tokens as i64;
        self.exact_runs += if use_exact { d.exact_runs } else { 0 };
        self.expands += d.expands;
        self.expanded_tokens += d.expanded_tokens;
    }

    fn add_delta(&mut self, saved: Option<u64>) {
        if let Some(saved) = saved {
            self.delta_runs += 1;
            self.delta_saved_tokens += saved;
        }
    }

    fn add_expand(&mut self, tokens: u64) {
        self.expands += 1;
        self.expanded_tokens += tokens;
        self.saved_tokens -= tokens as i64;
    }
}

/// One group's line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    pub name: String,
    #[serde(flatten)]
    pub tally: Tally,
    pub saved_ratio: f64,
}

/// Everything `ctx gain` shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The tokenizer every figure is counted in.
    pub tokens: &'static str,
    /// Runs recorded at or after this unix millisecond (None: all).
    pub since_ms: Option<i64>,
    pub by: By,
    pub totals: Tally,
    pub saved_ratio: f64,
    /// Largest savings first; ties by name.
    pub groups: Vec<Group>,
    /// Groups left out by `--top`.
    pub groups_omitted: usize,
    /// Expands of records no run in the ledger made (not subtracted).
    pub unattributed_expands: u64,
    pub unattributed_expanded_tokens: u64,
}

/// Builds the report. `runs` are the runs in the window; `keyed` is
/// (run id, unix ms, key) for every run that archived, in or out of the
/// window; `expands` is every expand. With `use_exact` false every figure
/// is an estimate.
// The four row sets and the four view settings are each the report's own
// inputs; a struct around them would only rename the arguments.
#[allow(clippy::too_many_arguments)]
pub fn report(
    runs: &[RunRow],
    keyed: &[(i64, i64, String)],
    expands: &[ExpandRow],
    days: &[DayRow],
    since_ms: Option<i64>,
    by: By,
    top: Option<usize>,
    use_exact: bool,
) -> Report {
    let mut totals = Tally::default();
    let mut groups: BTreeMap<String, Tally> = BTreeMap::new();
    // Days summed out of per-run rows (older than the retention window)
    // carry their expands with them.
    for day in days {
        let name = match by {
            By::Command => day.group.clone(),
            By::Family => day.family.clone(),
            By::Day => utc_date(day.day),
        };
        totals.add_day(day, use_exact);
        groups.entry(name).or_default().add_day(day, use_exact);
    }
    let mut group_of_run: HashMap<i64, String> = HashMap::new();
    for run in runs {
        let name = match by {
            By::Command => command_group(&run.argv, run.label.as_deref(), &run.family),
            By::Family => run.family.clone(),
            By::Day => utc_date(run.at_ms.div_euclid(DAY_MS)),
        };
        let (raw, delivered, exact) = match (use_exact, run.raw_exact, run.delivered_exact) {
            (true, Some(r), Some(d)) => (r, d, true),
            _ => (run.raw_tokens, run.delivered_tokens, false),
        };
        totals.add_run(raw, delivered, run.digest, exact);
        totals.add_delta(run.delta_saved);
        let tally = groups.entry(name.clone()).or_default();
        tally.add_run(raw, delivered, run.digest, exact);
        tally.add_delta(run.delta_saved);
        group_of_run.insert(run.id, name);
    }

    let in_window: HashSet<i64> = runs.iter().map(|r| r.id).collect();
    let (mut unattributed, mut unattributed_tokens) = (0u64, 0u64);
    for (ex, run) in expands.iter().zip(attribute(keyed, expands)) {
        let Some(run) = run else {
            if since_ms.is_none_or(|s| ex.at_ms >= s) {
                unattributed += 1;
                unattributed_tokens += ex.tokens;
            }
            continue;
        };
        if !in_window.contains(&run) {
            continue;
        }
        totals.add_expand(ex.tokens);
        if let Some(tally) = group_of_run.get(&run).and_then(|name| groups.get_mut(name)) {
            tally.add_expand(ex.tokens);
        }
    }

    let mut groups: Vec<Group> = groups
        .into_iter()
        .map(|(name, tally)| Group {
            saved_ratio: round4(tally.saved_ratio()),
            name,
            tally,
        })
        .collect();
    let keep = top.unwrap_or(usize::MAX).min(groups.len());
    let groups_omitted = groups.len() - keep;
    if by == By::Day {
        // A trend reads oldest first (ISO dates sort as days do); `--top`
        // keeps the latest days.
        groups.drain(..groups_omitted);
    } else {
        groups.sort_by(|a, b| {
            b.tally
                .saved_tokens
                .cmp(&a.tally.saved_tokens)
                .then_with(|| a.name.cmp(&b.name))
        });
        groups.truncate(keep);
    }
    Report {
        tokens: "o200k_base",
        since_ms,
        by,
        saved_ratio: round4(totals.saved_ratio()),
        totals,
        groups,
        groups_omitted,
        unattributed_expands: unattributed,
        unattributed_expanded_tokens: unattributed_tokens,
    }
}

/// The run each expand is attributed to: the latest run with its key at
/// or before the expand (the first one if the clocks disagree); None when
/// no run has that key. `keyed` is (run id, unix ms, key).
pub fn attribute(keyed: &[(i64, i64, String)], expands: &[ExpandRow]) -> Vec<Option<i64>> {
    let mut by_key: HashMap<&str, Vec<(i64, i64)>> = HashMap::new();
    for (id, at_ms, key) in keyed {
        by_key.entry(key.as_str()).or_default().push((*at_ms, *id));
    }
    for list in by_key.values_mut() {
        list.sort_unstable();
    }
    expands
        .iter()
        .map(|ex| {
            let list = by_key.get(ex.key_hex.as_str())?;
            // Sorted by time: the last one at or before the expand.
            let after = list.partition_point(|(at, _)| *at <= ex.at_ms);
            let (_, id) = if after == 0 { list[0] } else { list[after - 1] };
            Some(id)
        })
        .collect()
}

/// JSON and text show ratios to four places; rounding here keeps the two
/// in agreement and the output byte-stable.
fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// A day since the Unix epoch as its UTC date, `2026-11-01`.
pub fn utc_date(day: i64) -> String {
    let ms = day.max(0).saturating_mul(DAY_MS) as u64;
    let stamp = humantime::format_rfc3339_seconds(
        std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms),
    )
    .to_string();
    stamp.get(..10).unwrap_or(&stamp).to_string()
}

/// What a run is called in `--by command`: the program's file name and its
/// first subcommand, when the first non-option argument looks like one
/// (`cargo test`, `git status`; `pytest` for `pytest -x tests/`). Runs
/// without argv (pipe, digest) use their `--label` the same way, and
/// without one are grouped by the family that read them (`pytest
/// (input)`): a saved log's file name (`in.log`) says nothing of what it
/// held.
pub fn command_group(argv: &[String], label: Option<&str>, family: &str) -> String {
    let words: Vec<&str> = if !argv.is_empty() {
        argv.iter().map(String::as_str).collect()
    } else if let Some(label) = label.filter(|l| !l.trim().is_empty()) {
        label.split_whitespace().collect()
    } else {
        let family = if family.is_empty() { "text" } else { family };
        return format!("{family} (input)");
    };
    let program = crate::command::basename(words[0]);
    // The subcommand is the first argument (after a `+toolchain`), never a
    // word further on: past an option, a word may be that option's value
    // (`pytest -p no:cacheprovider`), and flags do not make a new group.
    let mut args = words[1..].iter().skip_while(|w| w.starts_with('+'));
    match args.next() {
        Some(&"-m") if program.starts_with("python") => match args.next() {
            Some(module) => format!("{program} -m {module}"),
            None => program.to_string(),
        },
        Some(sub) if is_subcommand(sub) && takes_subcommands(program) => {
            format!("{program} {sub}")
        }
        _ => program.to_string(),
    }
}

/// False for a program a profile serves by its name alone (`pytest`,
/// `jest`, `eslint`): its first argument is a path or a test name, so
/// `pytest tests` is `pytest`. Others (`cargo`, `git`, `npm`) may have one,
/// and so do runners of named targets (`make build`).
fn takes_subcommands(program: &str) -> bool {
    if matches!(program, "make" | "gmake" | "just" | "ninja") {
        return true;
    }
    let commands = || {
        crate::profiles::registry()
            .iter()
            .flat_map(|p| p.commands().iter().copied())
    };
    let alone = commands().any(|c| c == program);
    let with_sub = commands().any(|c| {
        c.strip_prefix(program)
            .is_some_and(|rest| rest.starts_with(' '))
    });
    !alone || with_sub
}

fn is_subcommand(word: &str) -> bool {
    word.len() <= 32
        && word.starts_with(|c: char| c.is_ascii_lowercase())
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | ':'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;

    fn run(id: i64, argv: &str, raw: u64, delivered: u64, key: Option<&str>) -> RunRow {
        RunRow {
            id,
            at_ms: id * 1000,
            argv: argv.split_whitespace().map(String::from).collect(),
            label: None,
            family: argv.split_whitespace().next().unwrap_or("text").to_string(),
            profile: "x/v1".into(),
            exit: Exit::Code(0),
            raw_bytes: raw * 4,
            raw_tokens: raw,
            delivered_tokens: delivered,
            digest: raw != delivered,
            rejection: None,
            key_hex: key.map(String::from),
            raw_exact: None,
            delivered_exact: None,
            delta_saved: None,
        }
    }

    fn keyed(runs: &[RunRow]) -> Vec<(i64, i64, String)> {
        runs.iter()
            .filter_map(|r| r.key_hex.clone().map(|k| (r.id, r.at_ms, k)))
            .collect()
    }

    fn expand(at_ms: i64, key: &str, tokens: u64) -> ExpandRow {
        ExpandRow {
            at_ms,
            key_hex: key.into(),
            tokens,
        }
    }

    fn group<'a>(r: &'a Report, name: &str) -> &'a Group {
        r.groups.iter().find(|g| g.name == name).expect("group")
    }

    #[test]
    fn savings_are_size_weighted() {
        let runs = [
            run(1, "cargo test", 1000, 100, None),
            run(2, "cargo test", 10, 5, None),
        ];
        let r = report(&runs, &[], &[], &[], None, By::Command, None, true);
        let g = group(&r, "cargo test");
        assert_eq!((g.tally.raw_tokens, g.tally.delivered_tokens), (1010, 105));
        assert_eq!(g.tally.saved_tokens, 905);
        // 905 / 1010, not the mean of 90 % and 50 %.
        assert_eq!(g.saved_ratio, 0.896);
        assert_eq!(r.totals.runs, 2);
        assert_eq!(r.totals.digested, 2);
    }

    #[test]
    fn a_digest_that_grew_is_a_loss() {
        let runs = [
            run(1, "ls -la", 100, 130, None),
            run(2, "pytest -x", 500, 50, None),
        ];
        let r = report(&runs, &[], &[], &[], None, By::Command, None, true);
        assert_eq!(group(&r, "ls").tally.saved_tokens, -30);
        assert_eq!(group(&r, "ls").saved_ratio, -0.3);
        assert_eq!(r.totals.saved_tokens, 450 - 30);
        // Largest saving first, the loss last.
        assert_eq!(r.groups[0].name, "pytest");
        assert_eq!(r.groups[1].name, "ls");
    }

    #[test]
    fn expands_are_subtracted_from_their_run() {
        let runs = [
            run(1, "cargo test", 1000, 100, Some("aa")),
            run(2, "pytest", 400, 40, Some("bb")),
        ];
        let expands = [
            expand(1500, "aa", 300),
            expand(2500, "bb", 10),
            expand(2600, "cc", 99),
        ];
        let r = report(
            &runs,
            &keyed(&runs),
            &expands,
            &[],
            None,
            By::Command,
            None,
            true,
        );
        assert_eq!(group(&r, "cargo test").tally.saved_tokens, 900 - 300);
        assert_eq!(group(&r, "cargo test").tally.expanded_tokens, 300);
        assert_eq!(group(&r, "pytest").tally.saved_tokens, 360 - 10);
        assert_eq!(r.totals.expanded_tokens, 310);
        assert_eq!(r.totals.saved_tokens, 900 + 360 - 310);
        // The record no run made is reported, not subtracted.
        assert_eq!(
            (r.unattributed_expands, r.unattributed_expanded_tokens),
            (1, 99)
        );
    }

    #[test]
    fn an_expand_goes_to_the_latest_run_of_its_key() {
        let runs = [
            run(1, "make", 100, 10, Some("aa")),
            run(3, "cargo build", 100, 10, Some("aa")),
        ];
        let expands = [expand(2000, "aa", 5), expand(9000, "aa", 7)];
        let r = report(
            &runs,
            &keyed(&runs),
            &expands,
            &[],
            None,
            By::Command,
            None,
            true,
        );
        assert_eq!(group(&r, "make").tally.expanded_tokens, 5);
        assert_eq!(group(&r, "cargo build").tally.expanded_tokens, 7);
        // With the window after the first run, its expand is left out.
        let window = &runs[1..];
        let r = report(
            window,
            &keyed(&runs),
            &expands,
            &[],
            Some(2500),
            By::Command,
            None,
            true,
        );
        assert_eq!(r.totals.expanded_tokens, 7);
        assert_eq!(r.totals.runs, 1);
        assert_eq!(r.unattributed_expands, 0);
    }

    #[test]
    fn exact_counts_are_used_only_in_pairs() {
        let mut a = run(1, "pytest", 1000, 100, None);
        a.raw_exact = Some(900);
        a.delivered_exact = Some(95);
        let mut b = run(2, "pytest", 1000, 100, None);
        b.delivered_exact = Some(95);
        let runs = [a, b];
        let r = report(&runs, &[], &[], &[], None, By::Command, None, true);
        assert_eq!(r.totals.raw_tokens, 900 + 1000);
        assert_eq!(r.totals.delivered_tokens, 95 + 100);
        assert_eq!(r.totals.exact_runs, 1);
        let r = report(&runs, &[], &[], &[], None, By::Command, None, false);
        assert_eq!(r.totals.raw_tokens, 2000);
        assert_eq!(r.totals.exact_runs, 0);
    }

    #[test]
    fn groups_by_family_and_top() {
        let runs = [
            run(1, "cargo test", 100, 10, None),
            run(2, "pytest", 300, 10, None),
            run(3, "go test", 50, 10, None),
        ];
        let r = report(&runs, &[], &[], &[], None, By::Family, Some(2), true);
        let names: Vec<&str> = r.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["pytest", "cargo"]);
        assert_eq!(r.groups_omitted, 1);
        assert_eq!(r.totals.runs, 3);
    }

    #[test]
    fn command_names() {
        let g = |argv: &str| {
            let v: Vec<String> = argv.split_whitespace().map(String::from).collect();
            command_group(&v, None, "x")
        };
        assert_eq!(g("cargo test --release"), "cargo test");
        assert_eq!(g("cargo +nightly build"), "cargo build");
        assert_eq!(g("pytest -x tests/test_api.py"), "pytest");
        assert_eq!(g("/usr/bin/git status --short"), "git status");
        assert_eq!(g("python3 -m pytest"), "python3 -m pytest");
        assert_eq!(
            g("python3 -m pytest -p no:cacheprovider"),
            "python3 -m pytest"
        );
        // Options and their values are not subcommands.
        assert_eq!(g("pytest -p no:cacheprovider"), "pytest");
        assert_eq!(g("pytest -k test_api tests"), "pytest");
        assert_eq!(g("pytest tests"), "pytest");
        assert_eq!(g("jest unit"), "jest");
        assert_eq!(g("cargo --color never test"), "cargo");
        assert_eq!(g("cargo +nightly test --release"), "cargo test");
        assert_eq!(g("go test ./..."), "go test");
        assert_eq!(g("make"), "make");
        assert_eq!(g("make test"), "make test");
        assert_eq!(g("ls -la /tmp"), "ls");
        assert_eq!(g("npm run build"), "npm run");
        assert_eq!(g("tool Build"), "tool");
        assert_eq!(
            command_group(&[], Some("cargo test"), "cargo_test"),
            "cargo test"
        );
        assert_eq!(command_group(&[], Some("  "), "pytest"), "pytest (input)");
        assert_eq!(command_group(&[], None, "ci_log"), "ci_log (input)");
    }
}
