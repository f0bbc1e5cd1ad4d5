//! table/v1 — tables from system and database CLIs: `ps aux`, `df -h`,
//! `lsblk`, `ss -tanp`, `dpkg -l`, `docker ps`/`images`, `kubectl get`,
//! `psql` (aligned and `--csv`), `sqlite3` (`-csv`, `-box`, `-column`),
//! and CSV/TSV files.
//!
//! **Decision.** What is in this table and which rows need attention: its
//! columns, its exact row count, what each column holds, and every row in
//! a state that is not normal, so the reader acts on those rows or narrows
//! the query.
//!
//! **Unsafe loss.** The header dropped; a row count that is not exact; an
//! anomalous row (a package not installed, a pod not Running or not Ready,
//! restarts above zero, a filesystem at 100 % use, an error state, an
//! empty cell in an otherwise full column) left out; a row cut mid-cell or
//! its alignment changed.
//!
//! **Typed facts.** One `Field` item (`role = table`): headline the header
//! line, detail the row lines, block the whole table. One `Field` item per
//! column (`role = stats`): cells present and empty, numeric min/max/mean
//! or distinct count and top values. One `Record` per anomalous row
//! (identity `row N`, headline its line, summary its reasons; census).
//! The exact row count and the anomaly count in the header; a tool's own
//! count (`(12 rows)`) is checked against the rows read.
//!
//! **Ladder.** VERBATIM (fits the budget) → DENSE (header line, column
//! summaries, every anomalous row, then first and last rows while the
//! budget allows, raw and aligned, each gap one marker with its `--lines`)
//! → FLOOD (anomalous rows past the budget as asked, their gaps' markers
//! priced, grouped by reason with exact counts, all behind `--items`).

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome, Precision, Severity,
};

use super::{Profile, ProfileSpec, ReceiptGroup};

mod columns;
mod layout;

pub struct Table;

/// Commands whose output is one table, by name and (where the tool
/// prints other things too) subcommand.
fn table_command(argv: &[String]) -> Option<String> {
    // Wrappers (`timeout`, `env A=1`, `sudo`, …) looked through.
    let argv: Vec<String> = crate::command::command_words(argv)
        .into_iter()
        .map(String::from)
        .collect();
    let name = argv.first().map(|a| a.rsplit('/').next().unwrap_or(a))?;
    let sub = argv.get(1).map(String::as_str).unwrap_or("");
    let json = argv
        .iter()
        .any(|a| a.contains("json") || a.contains("yaml") || a == "-J");
    // psql and sqlite3 without aligned output (`-A`, `-t`, `-At`,
    // `-json`) print values, not a table.
    let unaligned = matches!(name, "psql" | "sqlite3")
        && argv.iter().skip(1).any(|a| {
            matches!(
                a.as_str(),
                "--no-align" | "--tuples-only" | "-json" | "-line" | "-list"
            ) || (a.starts_with('-')
                && !a.starts_with("--")
                && a.len() <= 4
                && (a.contains('A') || a.contains('t')))
        });
    if json || unaligned {
        return None;
    }
    let yes = match name {
        "ps" | "df" | "lsblk" | "ss" | "netstat" | "psql" | "sqlite3" => true,
        "dpkg" => argv.iter().any(|a| a == "-l" || a == "--list"),
        "docker" | "podman" => matches!(sub, "ps" | "images" | "image" | "container"),
        "kubectl" => sub == "get",
        _ => false,
    };
    yes.then(|| name.to_string())
}

/// The CSV delimiter argv asks for (`psql --csv`, `sqlite3 -csv`), if any.
fn csv_delimiter(argv: &[String]) -> Option<u8> {
    argv.iter()
        .any(|a| a == "--csv" || a == "-csv")
        .then_some(b',')
}

/// A file name's CSV/TSV delimiter.
fn delimiter_of_name(name: &str) -> Option<u8> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".csv") {
        Some(b',')
    } else if lower.ends_with(".tsv") || lower.ends_with(".tab") {
        Some(b'\t')
    } else {
        None
    }
}

/// Header words of well-known tables, matched at the start of the head.
const HEADS: &[&str] = &[
    "USER ",
    "  PID ",
    "    PID ",
    "UID ",
    "F S UID",
    "Filesystem ",
    "NAME ",
    "State ",
    "Netid ",
    "Desired=Unknown",
    "CONTAINER ID ",
    "REPOSITORY ",
    "NAMESPACE ",
    "Proto Recv-Q",
];

static SPEC: ProfileSpec = ProfileSpec {
    commands: &[
        "ps", "df", "lsblk", "ss", "netstat", "dpkg", "docker ps", "docker images", "kubectl get",
        "psql", "sqlite3",
    ],
    ..ProfileSpec::new("table/v1", "table", ReceiptGroup::Data)
};

impl Profile for Table {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        table_command(argv).map(|n| format!("{n} (table)"))
    }

    fn by_content(&self, head: &str) -> Option<String> {
        let first = head.lines().next().unwrap_or("");
        if HEADS.iter().any(|h| first.starts_with(h)) && first.split_whitespace().count() >= 3 {
            return Some("a table header".into());
        }
        let second = head.lines().nth(1).unwrap_or("");
        let rule = !second.is_empty() && second.chars().all(|c| matches!(c, '-' | '+'));
        if (first.contains(" | ") && rule) || first.starts_with("┌─") {
            return Some("a database client's table".into());
        }
        // dpkg -l's legend, then its `||/ Name` header; a header over a
        // rule of dash runs (`sqlite3 -column`), read whole as a table.
        let dpkg = first.starts_with("Desired=Unknown/Install")
            && head.lines().take(5).any(|l| l.starts_with("||/ Name"));
        let dashes = second.split_whitespace().count();
        let column_rule = dashes >= 2
            && second.chars().all(|c| matches!(c, '-' | ' '))
            && first.split_whitespace().count() == dashes;
        if dpkg || column_rule {
            let lines = super::sniff::lines(head);
            if super::sniff::reads_whole(self, &lines, &[], 0) {
                let why = if dpkg { "dpkg -l's header" } else { "a header over a rule of dashes" };
                return Some(why.into());
            }
        }
        csv_head(head).then(|| "comma-separated values".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let csv = csv_delimiter(&artifact.argv)
            .or_else(|| artifact.label.as_deref().and_then(delimiter_of_name))
            .or_else(|| {
                let head =
                    String::from_utf8_lossy(&artifact.bytes()[..artifact.bytes().len().min(1024)]);
                (table_command(&artifact.argv).is_none() && csv_head(&head)).then_some(b',')
            });
        let tool = table_command(&artifact.argv)
            .or_else(|| csv.map(|d| if d == b'\t' { "tsv" } else { "csv" }.to_string()))
            .unwrap_or_else(|| "table".into());
        match layout::read(artifact, csv) {
            Some(l) => graph(artifact, tool, &l),
            None => {
                let mut receipt = CoverageReceipt::new(artifact.line_count() as u64);
                receipt.lines_unmatched = artifact.line_count() as u64;
                receipt.precision = Precision::Degraded("no table header found".into());
                let mut g = EvidenceGraph::empty();
                g.reader = crate::evidence::Reader::family(tool);
                (g, receipt)
            }
        }
    }
}

/// Five or more lines with the same number (≥ 1) of commas, none of them
/// starting like a log or a sentence: a CSV head.
fn csv_head(head: &str) -> bool {
    let lines: Vec<&str> = head.lines().take(6).collect();
    if lines.len() < 5 {
        return false;
    }
    let commas = |l: &str| l.bytes().filter(|b| *b == b',').count();
    let n = commas(lines[0]);
    n >= 1
        && lines[..5].iter().all(|l| commas(l) == n)
        && !lines[0].contains(": ")
        && !lines[0].trim_start().starts_with(['{', '['])
}

fn graph(
    artifact: &Artifact,
    tool: String,
    l: &layout::Layout,
) -> (EvidenceGraph, CoverageReceipt) {
    let mut items = Vec::new();
    let mut table = EvidenceItem::new(ItemKind::Field, Severity::Info, "table");
    table.fields.insert("role".into(), "table".into());
    table.headline = Some(Span::line(l.header_line));
    table.block = Some(Span::new(l.header_line, l.last_line.max(l.header_line)));
    let mut spans: Vec<Span> = Vec::new();
    for r in &l.rows {
        match spans.last_mut() {
            Some(s) if s.last + 1 == r.line => s.last = r.last,
            _ => spans.push(Span::new(r.line, r.last)),
        }
    }
    table.detail = spans;
    items.push(table);
    let stats = columns::summarize(&l.columns, &l.rows, l.format.delimited());
    for s in &stats {
        let mut item = EvidenceItem::new(ItemKind::Field, Severity::Info, s.name.clone());
        item.fields = s.fields.clone();
        item.fields.insert("role".into(), "stats".into());
        items.push(item);
    }
    let mut anomalies = 0u64;
    for (k, r) in l.rows.iter().enumerate() {
        let reasons = columns::reasons(&l.columns, &stats, r, l.format.delimited());
        if reasons.is_empty() {
            continue;
        }
        anomalies += 1;
        let mut item = EvidenceItem::new(
            ItemKind::Record,
            Severity::Warning,
            format!("row {}", k + 1),
        );
        item.summary = Some(reasons.join("; "));
        item.headline = Some(Span::line(r.line));
        item.block = Some(Span::new(r.line, r.last));
        items.push(item);
    }
    let rows = l.rows.len() as u64;
    let mut counts = vec![("rows".to_string(), rows)];
    if anomalies > 0 {
        counts.push(("flagged".to_string(), anomalies));
    }
    // Without an exit status a table cut between rows reads whole: OK only
    // when the tool closed it (psql's `(N rows)` matching, a box's bottom).
    let attested = l.closed || l.announced == Some(l.rows.len() as u64);
    let outcome = match artifact.exit {
        Exit::Signal(_) => Outcome::Interrupted,
        Exit::Code(c) if c != 0 => Outcome::Error,
        Exit::Unknown if !attested => Outcome::Unknown,
        _ => Outcome::Ok,
    };
    let mut receipt = CoverageReceipt::new(artifact.line_count() as u64);
    receipt.items_parsed = anomalies;
    receipt.blocks_parsed = rows;
    receipt.lines_unmatched = l.unmatched;
    receipt.truncated = artifact.truncated;
    if let Some(n) = l.announced
        && n != rows
    {
        receipt.precision =
            Precision::Degraded(format!("the tool counted {n} rows, {rows} were read"));
    }
    let graph = EvidenceGraph {
        reader: crate::evidence::Reader::family(tool),
        outcome,
        counts,
        items,
        conclusion: Vec::new(),
    };
    (graph, receipt)
}
