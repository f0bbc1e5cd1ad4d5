//! Census lines: how each identity the contract requires is written.
//!
//! Two forms, chosen by the planner, priced by these same functions:
//!
//! - **Raw headlines.** When every item's raw headline names it by itself
//!   (tsc and mypy plain lines, ruff concise, pytest's `FAILED id - msg`),
//!   the census is those lines, as the tool printed them.
//! - **Compact.** Otherwise one `[ctx] census` opening line, then each
//!   file once, indented, with its items indented under it:
//!
//!   ```text
//!   [ctx] census: 108 errors in 12 files
//!     src/services/svc000.ts
//!       8:25 TS2345 Argument of type 'string' is not assignable…
//!   ```
//!
//!   Under a file, five or more items with one code and one message share
//!   a line (`E0308 mismatched types: … ×30 at 5:20, …`). The planner's
//!   `CensusForm` says the rest: each identity whole with its reason
//!   (`Whole`), whole without it or its place (`Bare`: the ids alone, each
//!   still copyable into the runner),
//!   or the parametrized cases of one test on one line (`Grouped`:
//!   `test_x ×19 [a], [b], …`, GoogleTest's `Suite.Test ×64 /0, /1, …`):
//!   every identity is still named, in fewer
//!   tokens, but no longer each one copyable.
//!
//!   Paths under the working directory are shown relative; when every file
//!   is absolute and outside it, their common folder is named once on the
//!   opening line. Items that do not live in a file their identity starts
//!   with (a Go package's test, a file-less error) are written whole, at
//!   the files' indentation. The block is visibly ctx's by its opening
//!   line and its indentation (invariant 9, `guard`).

use std::collections::HashMap;

use crate::artifact::Artifact;
use crate::delivery_plan::{CensusEntry, CensusForm};
use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind, LABEL_FIELD, Location};
use crate::normalize;

use super::{CTX_PREFIX, Origin, RenderedLine, count, counted, location};

/// The opening line of a compact census block starts with this.
pub const CENSUS_OPENING: &str = "[ctx] census";
/// Indentation of a file (or a whole item) inside a census block.
pub const FILE_INDENT: &str = "  ";
/// Indentation of an item under its file.
pub const ITEM_INDENT: &str = "    ";

/// Items of one file with one code and one message share a census line
/// listing their places from this many on.
pub const SAME_MESSAGE_LINE: usize = 5;

/// A raw headline longer than this is never an item's census line (the
/// item gets a ctx line built from its typed fields): a census line that
/// long would not be a census line, and checking whether a megabyte-long
/// line (a one-line JUnit report) names each of the thousands of items on
/// it would be quadratic. The planner prices and the renderer prints
/// through this one rule.
pub const LONGEST_HEADLINE_BYTES: usize = 4096;

/// True when the item's raw headline names it by itself: it holds the
/// identity, or the item's file, line and code.
pub fn names_itself(artifact: &Artifact, item: &EvidenceItem) -> bool {
    let Some(h) = item.headline else {
        return false;
    };
    let raw = artifact.line(h.first);
    if raw.len() > LONGEST_HEADLINE_BYTES {
        return false;
    }
    let text = normalize::line(raw);
    // A line the tool cut (pytest's `- AssertionError: assert datetime.d...`)
    // names the item but not its reason, when the facts hold the reason
    // whole: the line built from them says what was compared.
    let cut = text.trim_end().ends_with("...")
        && item
            .summary
            .as_deref()
            .and_then(|s| s.lines().next())
            .is_some_and(|s| !text.contains(s.trim()));
    if cut {
        return false;
    }
    if text.contains(item.identity.as_str()) {
        return true;
    }
    let Some(loc) = &item.location else {
        return false;
    };
    text.contains(loc.file.as_str())
        && loc.line.is_none_or(|l| has_number(&text, l))
        && item.class.as_deref().is_none_or(|c| text.contains(c))
}

/// True when `n` stands in `text` as a number of its own (`:12:`, `(12,`),
/// not as digits inside another (`E0125`, `112`).
fn has_number(text: &str, n: u32) -> bool {
    let digits = n.to_string();
    let bytes = text.as_bytes();
    text.match_indices(&digits).any(|(at, _)| {
        let end = at + digits.len();
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(end).copied();
        !before.is_some_and(|b| b.is_ascii_alphanumeric())
            && !after.is_some_and(|b| b.is_ascii_digit())
    })
}

/// An item's identity line: its raw headline when that names it, else a
/// ctx line built from the typed fields.
pub fn item_line(artifact: &Artifact, item: &EvidenceItem) -> RenderedLine {
    if names_itself(artifact, item)
        && let Some(h) = item.headline
    {
        return RenderedLine {
            origin: Origin::Raw(h.first),
            text: normalize::line(artifact.line(h.first)).into_owned(),
        };
    }
    let word = match item.kind {
        ItemKind::FailingTest => "FAILED",
        ItemKind::TestError => "ERROR",
        ItemKind::SuiteNotRun => "NOT RUN",
        ItemKind::BuildFailure => "BUILD FAILED",
        ItemKind::Crash => "CRASHED",
        ItemKind::ChangedFile => "changed",
        ItemKind::Commit => "commit",
        ItemKind::Directory => "folder",
        ItemKind::FileType => "type",
        ItemKind::Anomaly => "anomaly",
        ItemKind::StatusPath => "path",
        ItemKind::Conflict => "CONFLICT",
        ItemKind::RefUpdate | ItemKind::RefName => "ref",
        ItemKind::Record => "record",
        ItemKind::Field => "field",
        ItemKind::Step => "step",
        ItemKind::Endpoint
        | ItemKind::LogTemplate
        | ItemKind::Period
        | ItemKind::SlowRequest
        | ItemKind::Diagnostic
        | ItemKind::Warning
        | ItemKind::DecisiveLine
        | ItemKind::Annotation
        | ItemKind::MatchingFile => item.severity.word(),
    };
    let mut line = format!("{CTX_PREFIX} {word} {}", item.identity);
    // The location is printed unless the identity already holds all of it:
    // `tests/a.py::t` names the file but not the line the reader opens.
    if let Some(loc) = &item.location
        && !item.identity.contains(&location(loc))
    {
        line.push_str(&format!(" ({})", location(loc)));
    }
    if let Some(summary) = first_line(item) {
        line.push_str(" - ");
        line.push_str(&summary);
    }
    RenderedLine {
        origin: Origin::Ctx,
        text: line,
    }
}

/// An item's one-line reason: the summary's first line (a tool's
/// multi-line message keeps its first), then the primary label when the
/// profile found one (`mismatched types: expected `u32`, found `u64``).
fn first_line(item: &EvidenceItem) -> Option<String> {
    let summary = item
        .summary
        .as_deref()
        .and_then(|s| s.lines().next())
        .filter(|s| !s.trim().is_empty());
    let label = item
        .fields
        .get(LABEL_FIELD)
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && summary.is_none_or(|s| !s.contains(l)));
    match (summary, label) {
        (Some(s), Some(l)) => Some(format!("{s}: {l}")),
        (Some(s), None) => Some(s.to_string()),
        (None, l) => l.map(str::to_string),
    }
}

/// The file an item is grouped under: its location's file, when its
/// identity starts with it (a test id `tests/a.py::t`, a diagnostic
/// `src/a.ts:3:1 TS2322`, a Go test `example.com/shop/cart TestX` whose
/// package is its location).
fn own_file(item: &EvidenceItem) -> Option<&str> {
    let file = item.location.as_ref()?.file.as_str();
    (!file.trim().is_empty() && item.identity.starts_with(file)).then_some(file)
}

/// What a file is called in the block: relative under the working directory.
fn shown_path<'p>(path: &'p str, cwd: Option<&str>) -> &'p str {
    if let Some(cwd) = cwd {
        let cwd = cwd.trim_end_matches('/');
        if !cwd.is_empty()
            && let Some(rest) = path.strip_prefix(cwd)
            && let Some(rest) = rest.strip_prefix('/')
            && !rest.is_empty()
        {
            return rest;
        }
    }
    path
}

/// The folder (ending in `/`) every path lies under, when all are absolute
/// and there are at least two distinct ones.
fn common_folder(paths: &[&str]) -> Option<String> {
    if paths.len() < 2 || !paths.iter().all(|p| p.starts_with('/')) {
        return None;
    }
    let first = paths[0];
    let mut len = first.rfind('/')? + 1;
    for p in &paths[1..] {
        while len > 1 && !(p.len() > len && p.as_bytes()[..len] == first.as_bytes()[..len]) {
            len = first[..len - 1].rfind('/')? + 1;
        }
    }
    (len > 1).then(|| first[..len].to_string())
}

/// What a grouped item's line says after its file: the identity's rest,
/// where it is when the rest does not say, the one-line message.
fn grouped_text(item: &EvidenceItem, file: &str, times: usize, reasons: bool) -> String {
    let rest = item.identity[file.len()..].trim_start_matches([':', ' ', '>']);
    let mut parts = vec![kind_word(item), rest];
    // Bare ids are ids alone: where each failed is one `--item` away.
    let place = item.location.as_ref().filter(|_| reasons).and_then(|l| {
        if l.file != file {
            Some(format!("({})", location(l)))
        } else {
            l.line
                .filter(|n| !rest.contains(&n.to_string()))
                .map(|n| format!("(line {n})"))
        }
    });
    parts.extend(place.as_deref());
    let mut line = parts
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    push_summary(&mut line, item, times, reasons);
    line
}

/// An item written whole, its file shown as the block shows files.
fn whole_text(
    item: &EvidenceItem,
    file: Option<(&str, &str)>,
    times: usize,
    reasons: bool,
) -> String {
    let identity = match file {
        Some((file, shown)) => format!("{shown}{}", &item.identity[file.len()..]),
        None => item.identity.clone(),
    };
    let mut parts = vec![kind_word(item).to_string(), identity];
    // The location is printed unless the identity already holds all of it:
    // `tests/a.py::t` names the file but not the line the reader opens.
    if let Some(loc) = item.location.as_ref().filter(|_| reasons)
        && !item.identity.contains(&location(loc))
    {
        parts.push(format!("({})", location(loc)));
    }
    let mut line = parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    push_summary(&mut line, item, times, reasons);
    line
}

/// A word for the census kinds a reader must tell apart from a plain
/// failure or error (`ERROR` for a setup error, `NOT RUN` for a suite).
fn kind_word(item: &EvidenceItem) -> &'static str {
    match item.kind {
        ItemKind::TestError => "ERROR",
        ItemKind::SuiteNotRun => "NOT RUN",
        ItemKind::BuildFailure => "BUILD FAILED",
        _ => "",
    }
}

fn push_summary(line: &mut String, item: &EvidenceItem, times: usize, reasons: bool) {
    if let Some(summary) = first_line(item).filter(|_| reasons) {
        // After a diagnostic's place and code (`8:25 TS2345`) the message
        // reads on; after a test's name a dash separates it.
        line.push_str(match (line.is_empty(), item.kind) {
            (true, _) => "",
            (false, ItemKind::Diagnostic) => " ",
            (false, _) => " - ",
        });
        line.push_str(&summary);
    }
    if line.is_empty() {
        line.push_str("(the file itself)");
    }
    if times > 1 {
        line.push_str(&format!(" ×{}", count(times)));
    }
}

/// How the members of a file's group are written: one line each, or
/// several on one line.
enum Line<'e> {
    One(&'e CensusEntry),
    /// Parametrized cases of one test (`test_easter ×19 [1990-…], …`).
    Cases(Vec<&'e CensusEntry>),
    /// Items with one code and one message, at several places
    /// (`E0308 mismatched types: … ×30 at 5:20, 11:20, …`).
    Same(Vec<&'e CensusEntry>),
}

/// The identity's rest after its file (`5:20 E0308`, `test_x[3]`).
fn rest_of<'i>(item: &'i EvidenceItem, file: &str) -> Option<&'i str> {
    item.identity
        .strip_prefix(file)
        .map(|r| r.trim_start_matches([':', ' ', '>']))
}

/// The place of an item whose identity's rest is only its place and code
/// (`5:20 E0308`, `12:3`): what a line of identical messages lists.
fn place_of<'i>(item: &'i EvidenceItem, file: &str) -> Option<&'i str> {
    let rest = rest_of(item, file)?;
    let place = match &item.class {
        Some(class) => rest.strip_suffix(class.as_str())?.trim_end(),
        None => rest,
    };
    let shaped = !place.is_empty()
        && place.bytes().all(|b| b.is_ascii_digit() || b == b':')
        && place.as_bytes()[0].is_ascii_digit();
    shaped.then_some(place)
}

/// The members of a file's group, in order: items with the same code and
/// message at several places gathered at the place of the first, and so
/// are the parametrized cases of one test in the `Grouped` form.
fn lines_of<'e>(
    graph: &EvidenceGraph,
    file: &str,
    members: &[&'e CensusEntry],
    form: CensusForm,
) -> Vec<Line<'e>> {
    let test = |e: &CensusEntry| {
        let item = &graph.items[e.index];
        (e.times == 1 && form == CensusForm::Grouped)
            .then(|| item.case().filter(|(t, _)| t.starts_with(file)))
            .flatten()
            .map(|(t, _)| t.to_string())
    };
    let key = |e: &CensusEntry| {
        let item = &graph.items[e.index];
        (e.times == 1 && place_of(item, file).is_some())
            .then(|| (kind_word(item), item.class.clone(), first_line(item)))
    };
    // A handful of identical messages read as well one per line, in their
    // order (and a tool's own lines, which may be the census, stay the
    // cheaper form): only from `SAME_MESSAGE_LINE` on do they share one.
    let keys: Vec<_> = members.iter().map(|e| key(e)).collect();
    let mut counts: HashMap<_, usize> = HashMap::new();
    for k in keys.iter().flatten() {
        *counts.entry(k.clone()).or_default() += 1;
    }
    let message = |i: usize| {
        keys[i]
            .clone()
            .filter(|k| counts.get(k).is_some_and(|&n| n >= SAME_MESSAGE_LINE))
    };
    let mut out: Vec<Line<'e>> = Vec::new();
    let mut cases: HashMap<String, usize> = HashMap::new();
    let mut messages: HashMap<_, usize> = HashMap::new();
    for (i, &e) in members.iter().enumerate() {
        let at = if let Some(t) = test(e) {
            *cases.entry(t).or_insert_with(|| {
                out.push(Line::Cases(Vec::new()));
                out.len() - 1
            })
        } else if let Some(m) = message(i) {
            *messages.entry(m).or_insert_with(|| {
                out.push(Line::Same(Vec::new()));
                out.len() - 1
            })
        } else {
            out.push(Line::One(e));
            continue;
        };
        if let Line::Cases(list) | Line::Same(list) = &mut out[at] {
            list.push(e);
        }
    }
    // A "group" of one case is a plain line.
    out.into_iter()
        .map(|line| match line {
            Line::Cases(list) if list.len() == 1 => Line::One(list[0]),
            other => other,
        })
        .collect()
}

/// One line for items of one code and one message at several places.
fn same_text(graph: &EvidenceGraph, file: &str, list: &[&CensusEntry]) -> String {
    let items: Vec<&EvidenceItem> = list.iter().map(|e| &graph.items[e.index]).collect();
    let first = items[0];
    let parts = [
        kind_word(first).to_string(),
        first.class.clone().unwrap_or_default(),
        first_line(first).unwrap_or_default(),
    ];
    let places: Vec<&str> = items.iter().filter_map(|i| place_of(i, file)).collect();
    let mut line = parts
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    line.push_str(&format!(
        " ×{} at {}",
        count(items.len()),
        places.join(", ")
    ));
    line
}

/// One line for several parametrized cases of one test: the test, the
/// count, every case as its runner writes it (`[a-1]`, `/3`), where it is,
/// and the first case's reason (marked as the first's when the cases'
/// reasons differ). `file` is the group's file the line sits under, empty
/// for cases written at the files' indentation (then the place is whole).
fn cases_text(graph: &EvidenceGraph, file: &str, cases: &[&CensusEntry]) -> String {
    let items: Vec<&EvidenceItem> = cases.iter().map(|e| &graph.items[e.index]).collect();
    let test = items[0]
        .case()
        .map_or(items[0].identity.as_str(), |(t, _)| t);
    let test = test
        .get(file.len()..)
        .unwrap_or(test)
        .trim_start_matches([':', ' ', '>']);
    let params: Vec<&str> = items
        .iter()
        .filter_map(|i| i.case().map(|(_, c)| c))
        .collect();
    let mut line = format!(
        "{} {test} ×{} {}",
        kind_word(items[0]),
        count(cases.len()),
        params.join(", ")
    )
    .trim_start()
    .to_string();
    let places: Vec<Option<&Location>> = items.iter().map(|i| i.location.as_ref()).collect();
    if let Some(Some(place)) = places
        .first()
        .filter(|_| places.windows(2).all(|w| w[0] == w[1]))
    {
        match place.line {
            Some(n) if place.file == file => line.push_str(&format!(" (line {n})")),
            _ if place.file == file => {}
            _ => line.push_str(&format!(" ({})", location(place))),
        }
    }
    let reasons: Vec<Option<String>> = items.iter().map(|i| first_line(i)).collect();
    if let Some(Some(reason)) = reasons.first() {
        let same = reasons.windows(2).all(|w| w[0] == w[1]);
        line.push_str(if same { " - " } else { " - first: " });
        line.push_str(reason);
    }
    line
}

/// The compact census block of `entries` in `form`, `unit` the plural
/// noun counted.
pub fn compact(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    entries: &[CensusEntry],
    unit: &str,
    form: CensusForm,
) -> Vec<RenderedLine> {
    let reasons = form != CensusForm::Bare;
    let cwd = artifact.cwd.as_deref();
    // Group keys: the files that prefix their items' identities; an item
    // joins the key its identity starts with (a Go test located in
    // `cart_test.go` joins its package's group), the longest one.
    let mut keys: Vec<&str> = entries
        .iter()
        .filter_map(|e| own_file(&graph.items[e.index]))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let keys: std::collections::HashSet<&str> = keys.into_iter().collect();
    // The longest key that is the identity or its start up to a `:`, ` `
    // or `>`: looked up by each such prefix (a search over every key per
    // item was quadratic with many files).
    let key_of = |item: &EvidenceItem| -> Option<&str> {
        let id = item.identity.as_str();
        if let Some(k) = keys.get(id) {
            return Some(*k);
        }
        id.bytes()
            .enumerate()
            .rev()
            .filter(|(_, b)| matches!(b, b':' | b' ' | b'>'))
            .find_map(|(at, _)| keys.get(&id[..at]).copied())
    };
    // Groups in order of first appearance: a file's items stay together,
    // and so, in the grouped form, do the cases of one test that lives in
    // no file its identity names (GoogleTest's `Suite.Test/3`).
    let mut groups: Vec<(Option<&str>, Vec<&CensusEntry>)> = Vec::new();
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    let mut cases_of: HashMap<&str, usize> = HashMap::new();
    for e in entries {
        let item = &graph.items[e.index];
        let file = key_of(item);
        let test = item
            .case()
            .map(|(t, _)| t)
            .filter(|_| file.is_none() && e.times == 1 && form == CensusForm::Grouped);
        let found = match (file, test) {
            (Some(f), _) => group_of.get(f).copied(),
            (None, Some(t)) => cases_of.get(t).copied(),
            (None, None) => None,
        };
        match found {
            Some(g) => groups[g].1.push(e),
            None => {
                match (file, test) {
                    (Some(f), _) => {
                        group_of.insert(f, groups.len());
                    }
                    (None, Some(t)) => {
                        cases_of.insert(t, groups.len());
                    }
                    (None, None) => {}
                }
                groups.push((file, vec![e]));
            }
        }
    }
    let shown: Vec<&str> = groups
        .iter()
        .filter_map(|g| g.0.map(|f| shown_path(f, cwd)))
        .collect();
    let folder = common_folder(&shown);
    let display = |file: &'_ str| -> String {
        let path = shown_path(file, cwd);
        folder
            .as_deref()
            .and_then(|f| path.strip_prefix(f))
            .unwrap_or(path)
            .to_string()
    };
    let total: usize = entries.iter().map(|e| e.times).sum();
    let mut opening = format!("{CENSUS_OPENING}: {}", counted(total, unit));
    if let Some(folder) = &folder {
        opening.push_str(&format!(" under {folder}"));
    }
    let mut out = vec![RenderedLine {
        origin: Origin::Ctx,
        text: opening,
    }];
    let census = |text: String| RenderedLine {
        origin: Origin::Census,
        text,
    };
    for (file, members) in &groups {
        match (file, members.as_slice()) {
            // A file of several items is named once, its items under it.
            (Some(file), [_, _, ..]) => {
                out.push(census(format!("{FILE_INDENT}{}", display(file))));
                for line in lines_of(graph, file, members, form) {
                    let text = match line {
                        Line::One(e) => grouped_text(&graph.items[e.index], file, e.times, reasons),
                        Line::Cases(list) => cases_text(graph, file, &list),
                        Line::Same(list) => same_text(graph, file, &list),
                    };
                    out.push(census(format!("{ITEM_INDENT}{text}")));
                }
            }
            // The cases of one test outside any file's group.
            (None, [_, _, ..]) => {
                out.push(census(format!(
                    "{FILE_INDENT}{}",
                    cases_text(graph, "", members)
                )));
            }
            // One item is one line.
            _ => {
                for e in members {
                    let shown = file.map(|f| (f, display(f)));
                    let text = whole_text(
                        &graph.items[e.index],
                        shown.as_ref().map(|(f, d)| (*f, d.as_str())),
                        e.times,
                        reasons,
                    );
                    out.push(census(format!("{FILE_INDENT}{text}")));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;
    use crate::evidence::{Location, Outcome, Severity};

    fn diag(file: &str, line: u32, code: Option<&str>, msg: &str) -> EvidenceItem {
        let id = match code {
            Some(c) => format!("{file}:{line}:1 {c}"),
            None => format!("{file}:{line}:1"),
        };
        let mut item = EvidenceItem::new(ItemKind::Diagnostic, Severity::Error, id);
        item.class = code.map(str::to_string);
        item.summary = Some(msg.to_string());
        item.location = Some(Location {
            file: file.to_string(),
            line: Some(line),
            column: Some(1),
        });
        item
    }

    fn block(cwd: Option<&str>, items: Vec<EvidenceItem>) -> Vec<String> {
        let mut artifact = Artifact::from_stdout(b"x\n".to_vec(), Exit::Code(1), vec![]);
        artifact.cwd = cwd.map(str::to_string);
        let entries: Vec<CensusEntry> = (0..items.len())
            .map(|index| CensusEntry { index, times: 1 })
            .collect();
        let graph = EvidenceGraph {
            reader: crate::evidence::Reader::family("lint"),
            outcome: Outcome::Failed,
            counts: Vec::new(),
            items,
            conclusion: Vec::new(),
        };
        compact(&artifact, &graph, &entries, "errors", CensusForm::Grouped)
            .into_iter()
            .map(|l| l.text)
            .collect()
    }

    #[test]
    fn files_named_once_items_under_them() {
        let items = vec![
            diag("/srv/app/src/a.js", 3, Some("no-var"), "Unexpected var"),
            diag(
                "/srv/app/src/b.js",
                2,
                None,
                "Parsing error: Unexpected token {",
            ),
            diag(
                "/srv/app/src/a.js",
                9,
                Some("no-undef"),
                "'x' is not defined",
            ),
        ];
        assert_eq!(
            block(None, items.clone()),
            [
                "[ctx] census: 3 errors under /srv/app/src/",
                "  a.js",
                "    3:1 no-var Unexpected var",
                "    9:1 no-undef 'x' is not defined",
                "  b.js:2:1 Parsing error: Unexpected token {",
            ]
        );
        assert_eq!(
            block(Some("/srv/app"), items),
            [
                "[ctx] census: 3 errors",
                "  src/a.js",
                "    3:1 no-var Unexpected var",
                "    9:1 no-undef 'x' is not defined",
                "  src/b.js:2:1 Parsing error: Unexpected token {",
            ]
        );
    }

    #[test]
    fn identical_messages_share_a_line_from_five_on() {
        let mut items: Vec<EvidenceItem> = (1..=5)
            .map(|n| diag("/w/a.rs", n * 10, Some("E0308"), "mismatched types"))
            .collect();
        items.insert(1, diag("/w/a.rs", 12, Some("E0425"), "not found"));
        items.push(diag("/w/b.rs", 3, Some("E0308"), "mismatched types"));
        assert_eq!(
            block(Some("/w"), items.clone()),
            [
                "[ctx] census: 7 errors",
                "  a.rs",
                "    E0308 mismatched types ×5 at 10:1, 20:1, 30:1, 40:1, 50:1",
                "    12:1 E0425 not found",
                "  b.rs:3:1 E0308 mismatched types",
            ]
        );
        items.remove(0);
        assert_eq!(
            block(Some("/w"), items)[2..4],
            [
                "    12:1 E0425 not found",
                "    20:1 E0308 mismatched types"
            ]
        );
    }

    #[test]
    fn a_line_number_stands_alone() {
        assert!(has_number("src/a.ts(12,5): error TS2322: x", 12));
        assert!(has_number("a.py:12: error", 12));
        assert!(!has_number("a.rs: error[E0125]: x", 12));
        assert!(!has_number("a.rs:112:3", 12));
        assert!(!has_number("a.rs:3:120", 12));
    }

    #[test]
    fn common_folder_of_absolute_paths() {
        assert_eq!(
            common_folder(&["/a/b/src/x.js", "/a/b/src/y/z.js"]),
            Some("/a/b/src/".to_string())
        );
        assert_eq!(
            common_folder(&["/a/bc/x.js", "/a/bd/y.js"]),
            Some("/a/".to_string())
        );
        assert_eq!(common_folder(&["/x.js", "/y.js"]), None);
        assert_eq!(common_folder(&["/a/x.js"]), None);
        assert_eq!(common_folder(&["/a/x.js", "src/y.js"]), None);
    }

    #[test]
    fn paths_under_the_working_directory_are_relative() {
        assert_eq!(shown_path("/w/p/src/a.ts", Some("/w/p")), "src/a.ts");
        assert_eq!(shown_path("/w/p/src/a.ts", Some("/w/p/")), "src/a.ts");
        assert_eq!(shown_path("/w/pq/a.ts", Some("/w/p")), "/w/pq/a.ts");
        assert_eq!(shown_path("src/a.ts", Some("/w/p")), "src/a.ts");
    }
}
