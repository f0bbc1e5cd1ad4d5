//! The renderer: a pure function of (artifact, graph, plan, key) → lines.
//! No clock, no environment, no I/O, no decisions: what to show is the
//! plan's; how a ctx line is worded is here, in one place.

use crate::artifact::Artifact;
use crate::delivery_plan::{Address, Block, DeliveryPlan, Header, Left, Note, Omission, Omitted};
use crate::evidence::{EvidenceGraph, EvidenceItem, Location, Reader};
use crate::normalize;
use crate::store::{ArchiveKey, zoom};
use crate::words::agree;
pub use crate::words::{CTX_PREFIX, count, counted};

pub mod census;
pub mod delta;
pub mod detail;
pub mod formats;
pub mod notes;
pub mod workflow;

/// Where a rendered line came from, so the guard can check invariant 9.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The family header (`pytest: FAILED · … · exit 1`).
    Header,
    /// Line n of the artifact, normalized.
    Raw(usize),
    /// A line of ctx's own, starting with `[ctx]`.
    Ctx,
    /// A line of a compact census block: indented, under the block's
    /// `[ctx] census` opening line (`census`).
    Census,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderedLine {
    pub origin: Origin,
    pub text: String,
}

/// A rendered digest, line by line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    pub lines: Vec<RenderedLine>,
}

impl Rendered {
    /// The digest's bytes: every line ends with `\n`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for line in &self.lines {
            out.extend_from_slice(line.text.as_bytes());
            out.push(b'\n');
        }
        out
    }

    fn push(&mut self, origin: Origin, text: String) {
        self.lines.push(RenderedLine { origin, text });
    }
}

/// Executes the plan.
pub fn render(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    plan: &DeliveryPlan,
    key: Option<&ArchiveKey>,
) -> Rendered {
    let key = key.map_or_else(|| "<not archived>".to_string(), |k| k.short());
    let mut out = Rendered::default();
    for block in &plan.blocks {
        block_lines(&mut out, artifact, graph, plan, &key, block);
    }
    out
}

/// `[ctx] --- identity (location)`: the line above an item's detail, the
/// place left out when the identity already says it.
pub fn detail_heading(item: &EvidenceItem) -> String {
    let location = item
        .location
        .as_ref()
        .map(location)
        .filter(|l| !item.identity.contains(l.as_str()))
        .map(|l| format!(" ({l})"));
    format!(
        "{CTX_PREFIX} --- {}{}",
        item.identity,
        location.unwrap_or_default()
    )
}

/// `[ctx] next: ctx expand H <address>`: the step the digest suggests.
pub fn next_line(key: &str, address: &Address) -> String {
    format!("{CTX_PREFIX} next: ctx expand {key} {}", address.args())
}

/// The lines of one block of the plan, as the text digest prints them
/// (`key` the short archive key). Other shapes (`formats::markdown`) take
/// their words from here, block by block, so that they say what the text
/// says.
pub fn block_lines(
    out: &mut Rendered,
    artifact: &Artifact,
    graph: &EvidenceGraph,
    plan: &DeliveryPlan,
    key: &str,
    block: &Block,
) {
    match block {
        Block::Header => header(out, artifact, graph, plan),
        Block::Item {
            index,
            detail: false,
        } => out
            .lines
            .push(census::item_line(artifact, &graph.items[*index])),
        Block::Census {
            entries,
            unit,
            form,
        } => out
            .lines
            .extend(census::compact(artifact, graph, entries, unit, *form)),
        Block::Item {
            index,
            detail: true,
        } => detail_lines(out, artifact, &graph.items[*index], key),
        Block::Detail(index) => {
            let item = &graph.items[*index];
            out.push(Origin::Ctx, detail_heading(item));
            detail_lines(out, artifact, item, key);
        }
        Block::Next(address) => out.push(Origin::Ctx, next_line(key, address)),
        Block::Raw(span) => {
            for n in span.first..=span.last {
                out.push(
                    Origin::Raw(n),
                    normalize::line(artifact.line(n)).into_owned(),
                );
            }
        }
        Block::Marker(i) => out.push(Origin::Ctx, marker(&plan.omissions[*i], key)),
        Block::Notice(note) => out.push(
            Origin::Ctx,
            format!("{CTX_PREFIX} {}", notes::words(note, artifact, graph)),
        ),
        Block::Delta(d) => {
            for line in delta::lines(d) {
                let origin = if line.starts_with(CTX_PREFIX) {
                    Origin::Ctx
                } else {
                    Origin::Census
                };
                out.push(origin, line);
            }
        }
        Block::Footer => out.push(Origin::Ctx, footer(artifact, key)),
    }
}

/// The last line: how long the output is and what `ctx expand H` returns.
/// Its default view is capped (`store::zoom`), so when the output is past
/// the cap the footer says how many lines that view prints and names
/// `--all` for everything: a reader must not take a zoom for the whole.
pub(crate) fn footer(artifact: &Artifact, key: &str) -> String {
    let total = artifact.line_count();
    let shown = lines_in_default_view(artifact);
    if shown >= total {
        return format!(
            "{CTX_PREFIX} full output ({} {}): ctx expand {key}",
            count(total),
            plural(total, "line", "lines")
        );
    }
    format!(
        "{CTX_PREFIX} full output ({}): first {} {}: ctx expand {key}; everything: ctx expand {key} --all",
        counted(total, "lines"),
        count(shown),
        plural(shown, "line", "lines")
    )
}

/// How many lines `ctx expand H` prints before its cap, by the rule the
/// view itself applies to the archived bytes (each line with its `\n`).
fn lines_in_default_view(artifact: &Artifact) -> usize {
    let total = artifact.line_count();
    let ends_with_newline = artifact.bytes().last() == Some(&b'\n');
    let mut bytes = 0;
    for n in 1..=total {
        let newline = usize::from(n < total || ends_with_newline);
        let len = artifact.line(n).len() + newline;
        if !zoom::room(n - 1, bytes, len) {
            return n - 1;
        }
        bytes += len;
    }
    total
}

/// A detail's lines, each cut between its picks declared in place
/// (`detail`).
fn detail_lines(out: &mut Rendered, artifact: &Artifact, item: &EvidenceItem, key: &str) {
    for part in detail::parts(artifact, &item.detail, item.block) {
        match part {
            detail::Part::Lines(span) => {
                for n in span.first..=span.last {
                    out.push(
                        Origin::Raw(n),
                        normalize::line(artifact.line(n)).into_owned(),
                    );
                }
            }
            detail::Part::Cut(span) => out.push(Origin::Ctx, detail::marker(span, key)),
        }
    }
}

fn location(loc: &Location) -> String {
    let mut s = loc.file.clone();
    if let Some(line) = loc.line {
        s.push_str(&format!(":{line}"));
        if let Some(col) = loc.column {
            s.push_str(&format!(":{col}"));
        }
    }
    s
}

fn header(out: &mut Rendered, artifact: &Artifact, graph: &EvidenceGraph, plan: &DeliveryPlan) {
    out.lines
        .push(header_line(&Header::of(artifact, graph, plan)));
}

/// The header line of a digest with these facts: the family's own, or a
/// ctx line for output no family read.
fn header_line(h: &Header) -> RenderedLine {
    let words = header_text(h);
    match h.reader {
        Reader::Text => RenderedLine {
            origin: Origin::Ctx,
            text: format!("{CTX_PREFIX} {words}"),
        },
        Reader::Family(_) => RenderedLine {
            origin: Origin::Header,
            text: words,
        },
    }
}

/// The archive key a planner prices lines with: as long as the short key
/// the renderer prints (`store::key::SHORT_HEX`), which is not known
/// until the run is archived.
pub const KEY_FOR_PRICING: &str = "3f9a0c7e5b21";

/// Tokens of the header (with facts `h`) and the footer of a digest of
/// `artifact`, each with its newline, as `render` prints them: the
/// planner prices its frame with this, never with a guess.
pub fn frame_tokens(artifact: &Artifact, h: &Header) -> usize {
    let header = header_line(h);
    let footer = footer(artifact, KEY_FOR_PRICING);
    crate::tokens::estimate(header.text.as_bytes())
        + 1
        + crate::tokens::estimate(footer.as_bytes())
        + 1
}

/// The header's words: `<tool>: <OUTCOME> · <counts> · exit N`, or for
/// output no family reads, `<command>: N lines · exit N` (which the
/// digest prints as a ctx line). A CI log's digest names the family that
/// read its failing step with them.
pub fn header_words(artifact: &Artifact, graph: &EvidenceGraph, plan: &DeliveryPlan) -> String {
    header_text(&Header::of(artifact, graph, plan))
}

/// A header's words from its facts (also a CI step's `read as` note).
pub fn header_text(h: &Header) -> String {
    let exit = h.exit.describe();
    let Reader::Family(tool) = &h.reader else {
        let mut parts = vec![counted(h.lines, "lines")];
        // The evidence layer's findings, counted in words that agree alone.
        let found: Vec<String> = h
            .counts
            .iter()
            .filter(|(what, _)| what != "lines")
            .map(|(what, n)| format!("{} {}", count(*n as usize), crate::words::agree(what, *n)))
            .collect();
        if !found.is_empty() {
            parts.push(found.join(", "));
        }
        parts.extend(exit);
        let name = clip(&h.command, 80);
        return format!("{name}: {}", parts.join(" · "));
    };
    let mut parts = vec![h.outcome.word().to_string()];
    if !h.counts.is_empty() {
        let counts: Vec<String> = h
            .counts
            .iter()
            .map(|(what, n)| format!("{} {}", count(*n as usize), agree_first(what, *n)))
            .collect();
        parts.push(counts.join(", "));
    }
    parts.extend(exit);
    format!("{tool}: {}", parts.join(" · "))
}

/// Tokens of `note`'s line with its newline, as `render` prints it (its
/// words behind the ctx prefix): a planner prices each note with this.
pub fn notice_tokens(note: &Note, artifact: &Artifact, graph: &EvidenceGraph) -> usize {
    let words = notes::words(note, artifact, graph);
    crate::tokens::estimate(format!("{CTX_PREFIX} {words}").as_bytes()) + 1
}

/// Tokens of `omission`'s marker line with its newline, as `render`
/// prints it: the planner prices each marker it adds with this.
pub fn marker_tokens(omission: &Omission) -> usize {
    crate::tokens::estimate(marker(omission, KEY_FOR_PRICING).as_bytes()) + 1
}

fn marker(omission: &Omission, key: &str) -> String {
    let args = omission.address.args();
    let n = omission.count;
    let what = match &omission.what {
        Omitted::Lines => format!("{} {} omitted", count(n), plural(n, "line", "lines")),
        Omitted::Repeats => format!(
            "previous line repeated {} more {}",
            count(n),
            plural(n, "time", "times")
        ),
        Omitted::Items(left) => items_left(n, left),
    };
    format!("{CTX_PREFIX} … {what}: ctx expand {key} {args}")
}

/// `n` items left out, worded: `3 failures without their detail`.
pub fn items_left(n: usize, left: &Left) -> String {
    counted(n, &left_phrase(n, left))
}

/// The plural noun of findings outside the census.
fn findings(warnings: bool) -> &'static str {
    if warnings { "warnings" } else { "findings" }
}

/// The plural phrase of `left` (`counted` makes it agree with `n`).
pub fn left_phrase(n: usize, left: &Left) -> String {
    match left {
        Left::WithoutDetail { unit } => format!("{} without their detail", unit.many),
        Left::WithDetail { unit, more: true } => format!("more {} with detail", unit.many),
        Left::WithDetail { unit, more: false } => format!("{} with detail", unit.many),
        Left::CountedNotNamed { unit } => format!("{} counted above but not named", unit.many),
        Left::FindingsNotNamed { warnings: true } => "warnings not named".into(),
        Left::FindingsNotNamed { warnings: false } => "findings not named".into(),
        Left::FindingsAsBefore { warnings } => {
            format!("{} as in the last run", findings(*warnings))
        }
        Left::FindingsLeftOf { warnings, before } => {
            format!("{} left of the last run's {before}", findings(*warnings))
        }
        Left::NotNamed { unit } => format!("{} not named", unit.many),
        Left::More { unit } => format!("more {}", unit.many),
        Left::MoreListed { unit } => format!("more {}, listed", unit.many),
        Left::ShownWithoutDetail { unit } => format!(
            "{} shown without their detail (each whole by --item)",
            unit.many
        ),
        Left::CollapsedByDirectory { unit } => {
            format!("{} collapsed by directory above, listed", unit.many)
        }
        Left::CountedByStatus { unit } => format!("{}, counted above by status", unit.many),
        Left::OtherSucceeded { unit } => format!("other {} that succeeded", unit.of(n)),
        Left::OtherSkipped { unit } => format!("other {} skipped", unit.of(n)),
        Left::Counted { unit } => unit.many.clone(),
        Left::FilesWithoutMatch => "files without a match".into(),
        Left::MoreMatches { total } => {
            format!("more {} ({total} in all)", plural(n, "match", "matches"))
        }
        Left::MoreOfTemplate {
            total,
            last,
            itemised: None,
        } => format!(
            "more events of this template ({} in all, last at line {})",
            count(*total),
            count(*last)
        ),
        Left::MoreOfTemplate {
            total,
            last,
            itemised: Some(itemised),
        } => format!(
            "more events of this template (at least {} in all: {} among the first {} error events, \
             the last of them at line {})",
            count(*total),
            count(*total),
            count(*itemised),
            count(*last)
        ),
        Left::TemplatesNotWhole { uncounted: 0 } => "error templates not shown whole".into(),
        Left::TemplatesNotWhole { uncounted } => format!(
            "error templates not shown whole ({} events not even counted here)",
            count(*uncounted)
        ),
        Left::MoreTemplates { lines } => format!(
            "more templates ({} {})",
            count(*lines),
            plural(*lines, "line", "lines")
        ),
        Left::HeaderLinesOf { path } => format!("header lines left out of {path}"),
        Left::HunksOf { path } => format!("hunks left out of {path}"),
        Left::FilesAndCommits => "changed files and commits, listed".into(),
        Left::MoreElements => "more items".into(),
        Left::MoreFoldersAndAnomalies => "more listed folders and anomalies".into(),
    }
}

/// An extractor's count words (`errors`, `packages failed`, `no test
/// files`) lead with their noun when they have one: only the first word
/// may lose its `s` (`1 no test files` stays as the tool means it).
fn agree_first(what: &str, n: u64) -> String {
    let (first, rest) = what.split_once(' ').unwrap_or((what, ""));
    if rest.is_empty() {
        agree(first, n)
    } else {
        format!("{} {rest}", agree(first, n))
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// `s` (a command line or a label) shortened to about `max` characters
/// between its words, never inside one: a path, URL, version or hash the
/// header shows is shown whole (a first word longer than `max` included),
/// and `…` says words were left out.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    // Shell words, so a quoted argument (`'fn main'`) stays one word.
    let words: Vec<String> = match shell_words::split(s) {
        Ok(words) => words
            .iter()
            .map(|w| shell_words::quote(w).into_owned())
            .collect(),
        Err(_) => s.split(' ').map(String::from).collect(),
    };
    let mut out = String::new();
    for word in &words {
        let width = out.chars().count() + 1 + word.chars().count();
        if !out.is_empty() && width + " …".len() > max {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.push_str(" …");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_between_words() {
        let url = "https://example.org/releases/v1.24.3/toolchain.tar.gz";
        let line = format!("make {url} 0123456789abcdef0123456789abcdef01234567");
        assert_eq!(clip(&line, 80), format!("make {url} …"));
        assert_eq!(clip("short", 80), "short");
        // A first word longer than the width is kept whole.
        let long = "x".repeat(100);
        assert_eq!(clip(&format!("{long} y"), 80), format!("{long} …"));
        // Quoted words stay one word, quoted.
        assert_eq!(
            clip(&format!("grep -rn 'fn main' {}", "s".repeat(80)), 30),
            "grep -rn 'fn main' …"
        );
    }

    #[test]
    fn count_words_lead_with_their_noun() {
        assert_eq!(agree_first("no test files", 1), "no test files");
        assert_eq!(agree_first("packages failed", 1), "package failed");
    }

    /// The header's kind comes from who read the output, never from
    /// whether the tool's name happens to be empty.
    #[test]
    fn the_header_follows_the_reader_not_the_name() {
        use crate::evidence::{Outcome, Reader};
        let facts = |reader| Header {
            reader,
            outcome: Outcome::Passed,
            counts: vec![("passed".to_string(), 3)],
            exit: crate::artifact::Exit::Code(0),
            lines: 12,
            command: "make check".to_string(),
        };
        // A family whose name is empty still heads with its own line.
        let family = header_line(&facts(Reader::family("")));
        assert_eq!(family.origin, Origin::Header);
        assert_eq!(family.text, ": PASSED · 3 passed · exit 0");
        let named = header_line(&facts(Reader::family("pytest")));
        assert_eq!(named.origin, Origin::Header);
        assert_eq!(named.text, "pytest: PASSED · 3 passed · exit 0");
        // Output no family read is headed by a ctx line naming the
        // command, with the evidence layer's counts after its lines.
        let text = header_line(&facts(Reader::Text));
        assert_eq!(text.origin, Origin::Ctx);
        assert_eq!(
            text.text,
            format!("{CTX_PREFIX} make check: 12 lines · 3 passed · exit 0")
        );
        let bare = Header {
            counts: vec![("lines".to_string(), 12)],
            ..facts(Reader::Text)
        };
        assert_eq!(
            header_line(&bare).text,
            format!("{CTX_PREFIX} make check: 12 lines · exit 0")
        );
    }
}
