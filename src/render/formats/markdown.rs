//! `--format markdown`: the digest for `$GITHUB_STEP_SUMMARY`, pull
//! request comments and chat. Built block by block from the same plan as
//! the text digest, with the text digest's own lines (`render::block_lines`),
//! so it says what the text says and is never longer than the text plus
//! its markup:
//!
//! - a heading with the tool and the outcome, a table of the counts;
//! - the census as a list grouped by file, each file linked when a base
//!   URL is given (`--link-base URL`: `URL/<path>#L<line>`);
//! - raw lines and detail blocks in fenced code, each fence longer than
//!   any run of backticks inside it;
//! - ctx's own lines (omissions, notes, the expand commands) as list
//!   items, each command in a code span.
//!
//! Everything taken from the output is inside code (a span or a fence),
//! so nothing a command printed is read as markup, HTML or a mention.

use std::fmt::Write;

use crate::delivery_plan::Block;
use crate::render::census::{CENSUS_OPENING, FILE_INDENT, ITEM_INDENT};
use crate::render::{CTX_PREFIX, Origin, Rendered, RenderedLine, block_lines, count};
use crate::store::ArchiveKey;

use super::{Delivered, Report};

/// The markdown document (ends with a newline).
pub fn document(report: &Report, link_base: Option<&str>) -> String {
    let mut md = Markdown::new(link_base, report.artifact.cwd.as_deref());
    let artifact = report.artifact;
    match (report.delivered, report.facts) {
        (Delivered::Digest(_), Some(facts)) => {
            let key = report
                .key
                .map_or_else(|| "<not archived>".to_string(), ArchiveKey::short);
            for block in &facts.plan.blocks {
                let mut lines = Rendered::default();
                block_lines(&mut lines, artifact, facts.graph, facts.plan, &key, block);
                match block {
                    Block::Header => md.heading(report, &lines),
                    Block::Census { .. } => md.census(&lines),
                    Block::Item {
                        index,
                        detail: false,
                    } => {
                        let location = facts.graph.items[*index].location.as_ref();
                        md.census_item(
                            location.map(|l| l.file.as_str()),
                            location.and_then(|l| l.line),
                            &lines,
                        );
                    }
                    Block::Raw(_) | Block::Item { detail: true, .. } => md.output(&lines),
                    Block::Detail(_) => {
                        let (title, rest) = lines
                            .lines
                            .split_first()
                            .map_or((None, &[][..]), |(t, r)| (Some(t), r));
                        let title = title
                            .map(|t| strip_ctx(&t.text).trim_start_matches("--- ").to_string());
                        md.code(
                            &Rendered {
                                lines: rest.to_vec(),
                            },
                            title.as_deref(),
                        );
                    }
                    // ctx's words between output lines stay with them,
                    // as the text digest has them.
                    Block::Notice(_) | Block::Delta(_) if md.in_output() => md.output(&lines),
                    Block::Marker(_)
                    | Block::Next(_)
                    | Block::Footer
                    | Block::Notice(_)
                    | Block::Delta(_) => md.notes(&lines),
                }
            }
        }
        (Delivered::Digest(bytes), None) => {
            // A declarative filter's digest: lines, no typed facts.
            let name = crate::render::clip(&artifact.display_command(), 80);
            let _ = write!(md.out, "### {}\n\n", span(&name));
            let text = String::from_utf8_lossy(bytes);
            let lines = Rendered {
                lines: text
                    .lines()
                    .map(|l| RenderedLine {
                        origin: Origin::Ctx,
                        text: l.to_string(),
                    })
                    .collect(),
            };
            md.code(&lines, None);
        }
        (delivered, _) => {
            md.raw_heading(report, delivered);
            let mut lines = Rendered::default();
            for n in 1..=artifact.line_count() {
                lines.lines.push(RenderedLine {
                    origin: Origin::Raw(n),
                    text: crate::normalize::line(artifact.line(n)).into_owned(),
                });
            }
            md.code(&lines, None);
        }
    }
    md.finish()
}

/// `--items` as markdown: a heading naming the record, then every item's
/// `--items` line, grouped by file (each linked with `link_base`).
pub fn items(listing: &super::items::Listing, link_base: Option<&str>) -> String {
    let artifact = listing.artifact;
    let mut md = Markdown::new(link_base, artifact.cwd.as_deref());
    let _ = write!(
        md.out,
        "### {} · {}\n\n",
        span(&crate::words::counted(listing.items.len(), "items")),
        span(&crate::render::clip(&artifact.display_command(), 80))
    );
    // Files in the order they first occur, each item under its file.
    let mut files: Vec<Option<&str>> = Vec::new();
    for item in listing.items {
        let file = item.location.as_ref().map(|l| l.file.as_str());
        if !files.contains(&file) {
            files.push(file);
        }
    }
    for file in files {
        for (item, line) in listing.items.iter().zip(listing.lines) {
            let location = item.location.as_ref();
            if location.map(|l| l.file.as_str()) != file {
                continue;
            }
            let lines = Rendered {
                lines: vec![RenderedLine {
                    origin: Origin::Ctx,
                    text: line.clone(),
                }],
            };
            md.census_item(file, location.and_then(|l| l.line), &lines);
        }
    }
    md.finish()
}

/// The document being written, and which list or section is open.
struct Markdown<'a> {
    out: String,
    link_base: Option<&'a str>,
    cwd: Option<&'a str>,
    /// The file the census list's last entry was under.
    census_file: Option<Option<String>>,
    /// A list of ctx lines is open.
    in_notes: bool,
    /// Output lines waiting for their fence: consecutive raw blocks share one.
    pending: Vec<String>,
}

impl<'a> Markdown<'a> {
    fn new(link_base: Option<&'a str>, cwd: Option<&'a str>) -> Self {
        Markdown {
            out: String::new(),
            link_base: link_base.map(|b| b.trim_end_matches('/')),
            cwd,
            census_file: None,
            in_notes: false,
            pending: Vec::new(),
        }
    }

    /// Output lines, to be fenced with the lines of the next output blocks.
    fn output(&mut self, lines: &Rendered) {
        if self.pending.is_empty() {
            self.section();
        }
        self.pending
            .extend(lines.lines.iter().map(|l| l.text.clone()));
    }

    fn in_output(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Writes the output lines waiting for their fence.
    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        self.fence(pending.iter().map(String::as_str));
    }

    /// Ends any open list or fence: a new section starts after a blank line.
    fn section(&mut self) {
        self.flush();
        if self.census_file.take().is_some() || self.in_notes {
            self.out.push('\n');
        }
        self.in_notes = false;
    }

    fn heading(&mut self, report: &Report, lines: &Rendered) {
        self.section();
        let header = lines.lines.first().map_or("", |l| l.text.as_str());
        match report
            .facts
            .and_then(|f| f.graph.reader.tool().map(|tool| (f, tool)))
        {
            Some((facts, tool)) => {
                let outcome = facts.plan.outcome.unwrap_or(facts.graph.outcome).word();
                let exit = report.artifact.exit.describe();
                let _ = write!(self.out, "### {}: {outcome}", span(tool));
                if let Some(exit) = exit {
                    let _ = write!(self.out, " · {exit}");
                }
                // `ctx digest` labels each digest with its file.
                if let Some(label) = &report.artifact.label {
                    let _ = write!(self.out, " · {}", span(&crate::render::clip(label, 80)));
                }
                self.out.push_str("\n\n");
                let counts = &facts.graph.counts;
                if !counts.is_empty() {
                    let names: Vec<String> = counts.iter().map(|(n, _)| cell(n)).collect();
                    let values: Vec<String> =
                        counts.iter().map(|(_, v)| count(*v as usize)).collect();
                    let _ = writeln!(self.out, "| {} |", names.join(" | "));
                    let _ = writeln!(self.out, "|{}", "---:|".repeat(counts.len()));
                    let _ = writeln!(self.out, "| {} |\n", values.join(" | "));
                }
            }
            None => {
                let _ = write!(self.out, "### {}\n\n", span(strip_ctx(header)));
            }
        }
    }

    fn raw_heading(&mut self, report: &Report, delivered: Delivered) {
        let name = report
            .facts
            .and_then(|f| f.graph.reader.tool())
            .map_or_else(|| report.artifact.display_command(), str::to_string);
        let _ = write!(
            self.out,
            "### {}: raw output",
            span(&crate::render::clip(&name, 80))
        );
        if let Some(exit) = report.artifact.exit.describe() {
            let _ = write!(self.out, " · {exit}");
        }
        self.out.push_str("\n\n");
        match delivered {
            Delivered::Fallback(why) => {
                let _ = write!(self.out, "ctx did not digest it: {}\n\n", span(why));
            }
            _ => {
                let _ = write!(
                    self.out,
                    "{}, within the budget: shown whole.\n\n",
                    crate::words::counted(report.artifact.line_count(), "lines")
                );
            }
        }
    }

    /// A compact census block: its opening line, then each file as a list
    /// entry with its items nested under it.
    fn census(&mut self, lines: &Rendered) {
        self.section();
        let mut in_file: Option<String> = None;
        let lines = &lines.lines;
        for (at, line) in lines.iter().enumerate() {
            let text = line.text.as_str();
            if text.starts_with(CENSUS_OPENING) {
                let _ = write!(self.out, "**{}**\n\n", span(strip_ctx(text)));
            } else if let Some(entry) = text.strip_prefix(ITEM_INDENT) {
                let link = in_file
                    .as_deref()
                    .zip(place_line(entry))
                    .and_then(|(f, n)| self.link(f, Some(n)));
                let _ = writeln!(self.out, "  - {}", linked(entry, link));
            } else {
                let file = text.strip_prefix(FILE_INDENT).unwrap_or(text);
                // A file's line has its items under it; a line without
                // them is an item written whole (a Go package's test).
                let has_items = lines
                    .get(at + 1)
                    .is_some_and(|next| next.text.starts_with(ITEM_INDENT));
                let link = has_items.then(|| self.link(file, None)).flatten();
                let _ = writeln!(self.out, "- {}", linked(file, link));
                in_file = has_items.then(|| file.to_string());
            }
        }
        self.out.push('\n');
    }

    /// One census line (a raw headline or ctx's line for the item), under
    /// its file's entry.
    fn census_item(&mut self, file: Option<&str>, line: Option<u32>, lines: &Rendered) {
        let file = file.map(|f| self.relative(f).to_string());
        if self.in_notes || self.in_output() {
            self.section();
        }
        if self.census_file.as_ref() != Some(&file) {
            let heading = match &file {
                Some(f) => format!("- {}", linked(f, self.link(f, None))),
                None => "- (no file)".to_string(),
            };
            let _ = writeln!(self.out, "{heading}");
            self.census_file = Some(file.clone());
        }
        let link = file
            .as_deref()
            .zip(line)
            .and_then(|(f, n)| self.link(f, Some(n)));
        for rendered in &lines.lines {
            let _ = writeln!(
                self.out,
                "  - {}",
                linked(strip_ctx(&rendered.text), link.clone())
            );
        }
    }

    /// Lines in a fence, after an optional bold title.
    fn code(&mut self, lines: &Rendered, title: Option<&str>) {
        self.section();
        if let Some(title) = title {
            let _ = write!(self.out, "**{}**\n\n", span(title));
        }
        self.fence(lines.lines.iter().map(|l| l.text.as_str()));
    }

    /// Lines in a fence longer than any run of backticks among them.
    fn fence<'l>(&mut self, lines: impl Iterator<Item = &'l str> + Clone) {
        let longest = lines
            .clone()
            .map(|l| longest_run(l, '`'))
            .max()
            .unwrap_or(0);
        let fence = "`".repeat((longest + 1).max(3));
        let _ = writeln!(self.out, "{fence}text");
        for line in lines {
            self.out.push_str(line);
            self.out.push('\n');
        }
        let _ = write!(self.out, "{fence}\n\n");
    }

    /// ctx's own lines, each a list item: the words, then the `ctx
    /// expand` command in a code span.
    fn notes(&mut self, lines: &Rendered) {
        self.flush();
        if self.census_file.take().is_some() {
            self.out.push('\n');
        }
        for line in &lines.lines {
            let text = strip_ctx(&line.text);
            let item = match text.find("ctx expand ") {
                Some(at) => {
                    let words = text[..at].trim_end();
                    // The command runs to the end or to `; ` (the footer
                    // names two: the capped view and `--all`).
                    let commands: Vec<String> = text[at..]
                        .split("; ")
                        .map(|c| match c.find("ctx expand ") {
                            Some(0) => span(c),
                            Some(i) => format!("{} {}", c[..i].trim_end(), span(&c[i..])),
                            None => c.to_string(),
                        })
                        .collect();
                    format!("{} {}", escape(words), commands.join("; "))
                }
                None => escape(text),
            };
            let _ = writeln!(self.out, "- {}", item.trim_start());
        }
        self.in_notes = true;
    }

    /// `URL/<path>#L<line>` for a file relative to the working directory.
    fn link(&self, file: &str, line: Option<u32>) -> Option<String> {
        let base = self.link_base?;
        let file = self.relative(file);
        if file.starts_with('/') || file.contains("://") || file.split('/').any(|p| p == "..") {
            return None;
        }
        let path: String = file
            .trim_start_matches("./")
            .split('/')
            .map(encode)
            .collect::<Vec<_>>()
            .join("/");
        Some(match line {
            Some(n) => format!("{base}/{path}#L{n}"),
            None => format!("{base}/{path}"),
        })
    }

    fn relative<'f>(&self, file: &'f str) -> &'f str {
        self.cwd
            .and_then(|c| file.strip_prefix(c.trim_end_matches('/')))
            .and_then(|r| r.strip_prefix('/'))
            .unwrap_or(file)
    }

    fn finish(mut self) -> String {
        self.section();
        while self.out.ends_with("\n\n") {
            self.out.pop();
        }
        self.out
    }
}

/// A census entry's line number: it starts `LINE:COL ` or `LINE `, or
/// says `(line N)`.
fn place_line(entry: &str) -> Option<u32> {
    let place = entry.split(' ').next()?;
    if let Ok(n) = place.split(':').next()?.parse() {
        return Some(n);
    }
    let (_, after) = entry.split_once("(line ")?;
    after.split(')').next()?.parse().ok()
}

/// `text` as a code span, inside a link when there is one.
fn linked(text: &str, link: Option<String>) -> String {
    match link {
        Some(url) => format!("[{}]({url})", span(text)),
        None => span(text),
    }
}

fn strip_ctx(text: &str) -> &str {
    text.strip_prefix(CTX_PREFIX).map_or(text, str::trim_start)
}

/// `text` as a code span: delimited by more backticks than any run in it,
/// padded with a space where it starts or ends with a backtick.
pub fn span(text: &str) -> String {
    let ticks = "`".repeat(longest_run(text, '`') + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// A table cell: escaped, `|` included (it would end the cell).
fn cell(text: &str) -> String {
    escape(text)
}

/// Plain words of ctx's own, with markdown's punctuation escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\`*_[]<>#|~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A path segment percent-encoded for a URL: everything but the
/// unreserved characters (RFC 3986), so `#`, `?`, `%`, spaces and
/// non-ASCII names stay one segment.
fn encode(segment: &str) -> String {
    use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
    const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    utf8_percent_encode(segment, SEGMENT).to_string()
}

fn longest_run(text: &str, c: char) -> usize {
    let mut best = 0;
    let mut run = 0;
    for ch in text.chars() {
        if ch == c {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_outlast_backticks_inside() {
        assert_eq!(span("a"), "`a`");
        assert_eq!(span("x ``y`` z"), "```x ``y`` z```");
        assert_eq!(span("`q`"), "`` `q` ``");
    }

    #[test]
    fn paths_are_encoded_per_segment() {
        let md = Markdown::new(Some("https://h/o/r/blob/abc/"), Some("/w"));
        assert_eq!(
            md.link("/w/src/a b.rs", Some(12)).as_deref(),
            Some("https://h/o/r/blob/abc/src/a%20b.rs#L12")
        );
        assert_eq!(md.link("/etc/passwd", None), None);
        assert_eq!(md.link("../x.rs", None), None);
    }

    #[test]
    fn ctx_words_are_escaped() {
        assert_eq!(escape("a*b_c"), "a\\*b\\_c");
        assert_eq!(cell("a|b"), "a\\|b");
    }
}
