//! search/v1 — `grep` (`-n`, `-r`, `-c`, `-l`, context), `rg` (plain, `-n`,
//! `--heading`, `--vimgrep`, `-C N`, `-c`, `-l`, `--json`) and `git grep`.
//!
//! **Decision.** Where is this used: which files match, how often each, and
//! the first few matches of each, so the reader knows which file to open
//! or which narrower search to run next.
//!
//! **Unsafe loss.** A matching file left unnamed, a per-file count that is
//! not exact, a match line rewritten, a permission error or binary-file
//! notice dropped (the search was not complete), or exit 1 (no match, the
//! tool's normal answer) read as a failure.
//!
//! **Typed facts.** One `MatchingFile` item per file: identity its path as
//! printed, field `matches` (the exact count: matching lines for grep, rg
//! and git grep, one per occurrence for `--vimgrep`, the tool's own number
//! for `-c`), detail the match lines in file order, block every line of the
//! file's run (heading, context) for `ctx expand H --item PATH`. A binary-
//! file notice is a matching file with field `binary` and no count. Each
//! error line (`grep: x: Permission denied`) is an error `Diagnostic`. How
//! lines are read follows argv (`-c`, `-l`, `--heading`, `-n`, `--json`);
//! with no command named (a pipe, a saved log) the flags are told by the
//! output's shape (`sniff`: what it claims and what it refuses).
//!
//! **Ladder.** VERBATIM (fits the budget) → DENSE (every file, its count,
//! its first matches; more matches round by round, each file's first
//! before any file's second; context lines only with a whole file; per
//! file the exact number left and its `--item` address) → compact (the
//! first matches exceed the budget: every file named with its count, one
//! marker for their matches) → FLOOD (even the names exceed it: files named
//! while they fit, the rest counted by folder, all of them behind
//! `--items`).

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Outcome, Severity,
};

use super::{Profile, ProfileSpec, ReceiptGroup};

mod groups;
mod json;
mod notices;
pub(crate) mod options;
mod read;
mod sniff;

use groups::Found;
use options::{Mode, Options};

pub struct Search;

/// The first message of `rg --json` output.
const RG_JSON_BEGIN: &str = r#"{"type":"begin","data":{"path":"#;

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["grep", "egrep", "fgrep", "rg", "git grep"],
    ..ProfileSpec::new("search/v1", "search", ReceiptGroup::Everyday)
};

impl Profile for Search {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn by_command(&self, argv: &[String]) -> Option<String> {
        let o = Options::from_argv(argv)?;
        Some(format!("{} (search)", o.name))
    }

    fn by_content(&self, head: &str) -> Option<String> {
        if head.starts_with(RG_JSON_BEGIN) {
            return Some("rg --json messages".to_string());
        }
        sniff::detect(head)
    }

    /// A file name's control bytes escaped (`super::escaped`): shown as
    /// the tool printed them, never as another, existing-looking name.
    fn view(&self, artifact: &Artifact) -> Option<Artifact> {
        super::escaped::view(artifact)
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        // Names are read as the view shows them, so that the census and
        // the `--item` addresses name the files that exist.
        let view = super::escaped::view(artifact);
        let artifact = view.as_ref().unwrap_or(artifact);
        // No command named (a pipe, a saved log, `--as search`): the
        // label's, else the one the output's shape stands for.
        let o = Options::from_argv(&super::sniff::stated_argv(artifact))
            .or_else(|| {
                let (argv, _) = sniff::shape(&super::sniff::head(artifact))?;
                let argv: Vec<String> = argv.iter().map(|w| w.to_string()).collect();
                Options::from_argv(&argv)
            })
            .unwrap_or_else(|| json_options(artifact));
        let found = match o.mode {
            Mode::Json => json::read(artifact),
            _ => read::read(artifact, &o),
        };
        graph(artifact, &o, found)
    }
}

/// Output claimed by its content (`ctx digest` of a saved `rg --json`).
fn json_options(artifact: &Artifact) -> Options {
    let argv = ["rg".to_string(), "--json".to_string()];
    let mut o = Options::from_argv(&argv).expect("rg is a search command");
    o.mode = Mode::Json;
    if !artifact.bytes().starts_with(RG_JSON_BEGIN.as_bytes()) {
        o.mode = Mode::Lines;
    }
    o
}

fn graph(artifact: &Artifact, o: &Options, found: Found) -> (EvidenceGraph, CoverageReceipt) {
    let mut items = Vec::new();
    let mut total = 0u64;
    let mut zero = 0usize;
    let mut binary = 0usize;
    for g in &found.groups {
        let mut item = EvidenceItem::new(ItemKind::MatchingFile, Severity::Info, g.path.clone());
        item.location = Some(Location {
            file: g.path.clone(),
            line: None,
            column: None,
        });
        item.headline = g.heading.or(g.matches.first().copied()).map(Span::line);
        item.detail = g.matches.iter().map(|&n| Span::line(n)).collect();
        item.block = Some(Span::new(g.first, g.last));
        if let Some(c) = g.match_count() {
            total += c;
            zero += usize::from(c == 0);
            item.fields.insert("matches".into(), c.to_string());
        }
        if g.binary {
            binary += 1;
            item.fields.insert("binary".into(), "true".into());
        }
        items.push(item);
    }
    for &n in &found.errors {
        let text = crate::profiles::visible(artifact, n);
        let mut item = EvidenceItem::new(
            ItemKind::Diagnostic,
            Severity::Error,
            notices::error_identity(&text),
        );
        item.headline = Some(Span::line(n));
        item.block = Some(Span::line(n));
        items.push(item);
    }
    let files = found.groups.len() - zero;
    let mut counts = Vec::new();
    if o.mode != Mode::Files {
        counts.push((word(total, "match", "matches"), total));
    }
    counts.push((word(files as u64, "file", "files"), files as u64));
    if zero > 0 {
        counts.push((
            word(zero as u64, "file without a match", "files without a match"),
            zero as u64,
        ));
    }
    if binary > 0 {
        counts.push((
            word(binary as u64, "binary file", "binary files"),
            binary as u64,
        ));
    }
    if !found.errors.is_empty() {
        let e = found.errors.len() as u64;
        counts.push((word(e, "error", "errors"), e));
    }
    // Without an exit status, only rg --json's closing summary shows the
    // search ran to its end: a cut grep output reads like a whole one.
    let outcome = match artifact.exit {
        Exit::Signal(_) => Outcome::Interrupted,
        Exit::Code(c) if c >= 2 => Outcome::Error,
        _ if !found.errors.is_empty() => Outcome::Error,
        Exit::Unknown if found.conclusion.is_empty() => Outcome::Unknown,
        _ => Outcome::Ok,
    };
    let receipt = super::coverage::Coverage::of(artifact)
        .parsed(items.len() as u64)
        .blocks(found.groups.len() as u64)
        .unmatched(found.unmatched)
        .doubts(found.degraded)
        .finish();
    let graph = EvidenceGraph {
        reader: crate::evidence::Reader::family(o.name.clone()),
        outcome,
        counts,
        items,
        conclusion: found.conclusion.iter().map(|&n| Span::line(n)).collect(),
    };
    (graph, receipt)
}

/// The noun that agrees with `n`: the header adds no plural of its own.
fn word(n: u64, one: &str, many: &str) -> String {
    if n == 1 { one } else { many }.to_string()
}
