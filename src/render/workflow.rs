//! GitHub Actions workflow commands: one `::error file=…,line=…::reason`
//! (or `::warning`, `::notice`) per finding that names a file and a line,
//! so that the runner shows it on the pull request's diff.
//!
//! The syntax is the runner's (`ActionCommand.TryParseV2` in
//! actions/runner): a line that starts with `::`, the command name, a
//! space, `key=value` properties split on `,`, then `::` and the message.
//! Property values escape `%`, CR, LF, `:` and `,`; the message escapes
//! `%`, CR and LF (docs/ci.md). The runner keeps at most ten annotations
//! of each level per step ([`PER_STEP`]): the rest are counted in one
//! `[ctx]` line instead of being printed for nothing.
//!
//! Pure: the findings come from the graph, the paths are placed by a
//! [`Workspace`] handed in.

use std::collections::BTreeSet;

use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind, LABEL_FIELD, Severity};
use crate::words::{CTX_PREFIX, counted};
use crate::workspace::Workspace;

/// Annotations of one level GitHub keeps per step (actions/runner's
/// `_maxIssueCount`); the API documentation states the same limit.
pub const PER_STEP: usize = 10;

/// An annotation's level, and its workflow command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Error,
    Warning,
    Notice,
}

impl Level {
    pub fn command(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }

    fn of(severity: Severity) -> Level {
        match severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
            Severity::Note | Severity::Help | Severity::Info => Level::Notice,
        }
    }

    fn plural(self) -> &'static str {
        match self {
            Level::Error => "errors",
            Level::Warning => "warnings",
            Level::Notice => "notices",
        }
    }
}

/// One annotation, unescaped.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Annotation {
    pub level: Level,
    pub file: String,
    pub line: u32,
    pub col: Option<u32>,
    pub title: String,
    pub message: String,
}

impl Annotation {
    /// The workflow command: one line, without its `\n`.
    pub fn command(&self) -> String {
        let mut props = vec![
            format!("file={}", escape_property(&self.file)),
            format!("line={}", self.line),
        ];
        if let Some(col) = self.col {
            props.push(format!("col={col}"));
        }
        props.push(format!("title={}", escape_property(&self.title)));
        format!(
            "::{} {}::{}",
            self.level.command(),
            props.join(","),
            escape_data(&self.message)
        )
    }
}

/// The annotations a run gets, and how many GitHub would not show.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Annotations {
    pub shown: Vec<Annotation>,
    /// Per level, the annotations past [`PER_STEP`], in level order.
    pub withheld: Vec<(Level, usize)>,
}

impl Annotations {
    /// What is printed: the commands, then one `[ctx]` line counting what
    /// was held back, if anything was.
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self.shown.iter().map(Annotation::command).collect();
        if !self.withheld.is_empty() {
            let held: Vec<String> = self
                .withheld
                .iter()
                .map(|(level, n)| counted(*n, level.plural()))
                .collect();
            out.push(format!(
                "{CTX_PREFIX} not annotated: {} (GitHub shows {PER_STEP} of each kind per step)",
                held.join(", ")
            ));
        }
        out
    }

    /// [`Annotations::lines`] as bytes, each line ending with `\n`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for line in self.lines() {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        out
    }
}

/// The findings of `graph` that name a file and a line, as annotations,
/// in the graph's order, each once, at most [`PER_STEP`] per level.
pub fn annotations(graph: &EvidenceGraph, workspace: &Workspace) -> Annotations {
    let mut seen = BTreeSet::new();
    let mut out = Annotations::default();
    let mut counts: Vec<(Level, usize)> = Vec::new();
    for item in &graph.items {
        let Some(annotation) = annotation(graph, item, workspace) else {
            continue;
        };
        if !seen.insert(annotation.clone()) {
            continue;
        }
        let level = annotation.level;
        let n = match counts.iter_mut().find(|(l, _)| *l == level) {
            Some((_, n)) => n,
            None => {
                counts.push((level, 0));
                &mut counts.last_mut().expect("pushed").1
            }
        };
        *n += 1;
        if *n <= PER_STEP {
            out.shown.push(annotation);
        }
    }
    counts.sort();
    out.withheld = counts
        .into_iter()
        .filter(|(_, n)| *n > PER_STEP)
        .map(|(level, n)| (level, n - PER_STEP))
        .collect();
    out
}

/// The kinds of finding a reader acts on: failures and diagnostics, not
/// the entries of a listing or a search.
pub fn is_finding(kind: ItemKind) -> bool {
    matches!(
        kind,
        ItemKind::FailingTest
            | ItemKind::TestError
            | ItemKind::SuiteNotRun
            | ItemKind::Diagnostic
            | ItemKind::BuildFailure
            | ItemKind::Warning
    )
}

/// Whether the item is named by a test identity (its title is the test).
pub fn is_test(kind: ItemKind) -> bool {
    matches!(
        kind,
        ItemKind::FailingTest | ItemKind::TestError | ItemKind::SuiteNotRun
    )
}

fn annotation(
    graph: &EvidenceGraph,
    item: &EvidenceItem,
    workspace: &Workspace,
) -> Option<Annotation> {
    if !is_finding(item.kind) {
        return None;
    }
    let location = item.location.as_ref()?;
    let line = location.line.filter(|&l| l > 0)?;
    if location.file.trim().is_empty() {
        return None;
    }
    Some(Annotation {
        level: Level::of(item.severity),
        file: workspace.place(&location.file).as_str().to_string(),
        line,
        col: location.column.filter(|&c| c > 0),
        title: title(graph, item),
        message: reason(item),
    })
}

/// What the annotation is about: the test, or the tool and the code.
pub fn title(graph: &EvidenceGraph, item: &EvidenceItem) -> String {
    let tool = graph
        .reader
        .tool()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or("ctx");
    let title = if is_test(item.kind) {
        format!("{tool}: {}", item.identity)
    } else {
        match item.class.as_deref().map(str::trim) {
            Some(code) if !code.is_empty() => format!("{tool} {code}"),
            _ => format!("{tool} {}", item.severity.word()),
        }
    };
    // The runner trims the properties' ends; an empty value drops the
    // property.
    title.trim().to_string()
}

/// Why: the tool's one-line summary, with the compiler's label under the
/// code when it has one; the identity when the tool said nothing more.
pub fn reason(item: &EvidenceItem) -> String {
    let summary = item
        .summary
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or(&item.identity);
    match item.fields.get(LABEL_FIELD).map(|l| l.trim()) {
        Some(label) if !label.is_empty() => format!("{summary}: {label}"),
        _ => summary.to_string(),
    }
}

/// A message (the part after `::`): `%`, CR and LF escaped.
pub fn escape_data(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// A property value: as a message, and `:` and `,` too (they delimit the
/// command and the properties).
pub fn escape_property(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' => out.push_str("%3A"),
            ',' => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{Location, Outcome};

    fn item(kind: ItemKind, severity: Severity, id: &str, file: &str, line: u32) -> EvidenceItem {
        let mut item = EvidenceItem::new(kind, severity, id);
        item.location = Some(Location {
            file: file.into(),
            line: Some(line),
            column: None,
        });
        item.summary = Some(format!("{id} broke"));
        item
    }

    fn graph(items: Vec<EvidenceItem>) -> EvidenceGraph {
        EvidenceGraph {
            reader: crate::evidence::Reader::family("tsc"),
            outcome: Outcome::Failed,
            counts: Vec::new(),
            items,
            conclusion: Vec::new(),
        }
    }

    #[test]
    fn escapes_follow_the_runner() {
        assert_eq!(escape_data("50% a:b,c\r\nd"), "50%25 a:b,c%0D%0Ad");
        assert_eq!(escape_property("50% a:b,c\r\nd"), "50%25 a%3Ab%2Cc%0D%0Ad");
    }

    #[test]
    fn ten_of_each_level_then_a_count() {
        let mut items = Vec::new();
        for n in 1..=13 {
            items.push(item(ItemKind::Diagnostic, Severity::Error, "e", "a.ts", n));
        }
        for n in 1..=3 {
            items.push(item(
                ItemKind::Diagnostic,
                Severity::Warning,
                "w",
                "a.ts",
                n,
            ));
        }
        // The same finding twice is annotated once.
        items.push(item(
            ItemKind::Diagnostic,
            Severity::Warning,
            "w",
            "a.ts",
            1,
        ));
        // No line: not annotated, not counted.
        let mut unplaced = item(ItemKind::BuildFailure, Severity::Error, "ld", "x", 1);
        unplaced.location = None;
        items.push(unplaced);
        let a = annotations(&graph(items), &Workspace::default());
        assert_eq!(a.shown.len(), 13);
        assert_eq!(a.withheld, vec![(Level::Error, 3)]);
        let lines = a.lines();
        assert_eq!(lines.len(), 14);
        assert!(lines[0].starts_with("::error file=a.ts,line=1,title=tsc error::"));
        assert!(
            lines[13].starts_with("[ctx] not annotated: 3 errors"),
            "{}",
            lines[13]
        );
    }
}
