//! The last checks before a digest is printed. Any doubt prints the raw
//! output instead: a digest must be smaller than what it replaces (invariant
//! 3), declare each omission with exactly one marker (5), contain only raw
//! lines or visibly-ctx lines (9), and never come from a profile that
//! panicked (8).

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use crate::artifact::{Artifact, SpanSet};
use crate::contract::Contract;
use crate::evidence::EvidenceGraph;
use crate::normalize;
use crate::plan::{Address, Block, DeliveryPlan, Omitted};
use crate::render::{CTX_PREFIX, Origin, Rendered, census};
use crate::store::ArchiveKey;
use crate::tokens;

/// Why the raw output was printed instead of a digest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// Also a FLOOD digest that saves less than a fifth of the output
    /// (`FLOOD_SHARE_PERCENT`): its grouped identities would cost the
    /// reader a hop that the whole output, nearly as small, does not.
    #[error("the digest would not be clearly smaller than the output")]
    NotSmaller,
    #[error("the original could not be archived: {0}")]
    NotArchived(String),
    #[error("{0} panicked: {1}")]
    Panicked(&'static str, String),
    #[error("the plan breaks the marker invariant: {0}")]
    Markers(String),
    #[error("line {0} of the digest is neither raw output nor a ctx line")]
    Untruthful(usize),
    #[error("no usable contract: {0}")]
    Contract(String),
    #[error("{0}")]
    Unclassified(String),
    #[error("the plan leaves out census identity {0:?} without declaring it")]
    CensusLost(String),
    #[error("{0:?} is a failure its family did not read")]
    FindingLost(String),
}

/// Runs `f`, turning a panic into a `Rejection` (and keeping the panic
/// message off the reader's terminal: ctx's one-line note replaces it).
///
/// The process-wide panic hook is never swapped here: a take/set/restore
/// pair on one thread races with the same pair on another (the planning
/// thread isolates while the main thread archives) and can leave the quiet
/// hook installed for good or the loud one in the middle of a boundary.
/// Instead one hook, installed once, asks a per-thread depth whether the
/// panicking thread is inside a boundary.
pub fn isolate<T>(stage: &'static str, f: impl FnOnce() -> T) -> Result<T, Rejection> {
    install_panic_hook();
    ISOLATED.with(|d| d.set(d.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    ISOLATED.with(|d| d.set(d.get() - 1));
    result.map_err(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Rejection::Panicked(stage, msg)
    })
}

thread_local! {
    /// How many `isolate` calls this thread is inside.
    static ISOLATED: Cell<usize> = const { Cell::new(0) };
}

/// Installs (once per process) the hook that keeps panics inside an
/// isolation boundary quiet and reports every other panic as before. The
/// CLI calls it first thing on the main thread; `isolate` calls it too, in
/// case a library user did not, and `Once` makes the second call a no-op.
pub fn install_panic_hook() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if ISOLATED.with(|d| d.get()) == 0 {
                previous(info);
            }
        }));
    });
}

/// The most a FLOOD digest may cost, in percent of the output's tokens.
pub const FLOOD_SHARE_PERCENT: usize = 80;

/// Accepts the rendered digest, or says why the raw output must go instead.
pub fn accept(
    artifact: &Artifact,
    plan: &DeliveryPlan,
    rendered: &Rendered,
    key: Option<&ArchiveKey>,
    raw_tokens: usize,
) -> Result<Vec<u8>, Rejection> {
    if plan.omits() && key.is_none() {
        return Err(Rejection::NotArchived("no archive key".into()));
    }
    check_markers(artifact, plan)?;
    if let Some(i) = first_untruthful_line(artifact, rendered) {
        return Err(Rejection::Untruthful(i));
    }
    let bytes = rendered.to_bytes();
    let spent = tokens::estimate(&bytes);
    let grouped = plan.rung == crate::plan::Rung::Flood;
    if spent >= raw_tokens || (grouped && spent * 100 >= raw_tokens * FLOOD_SHARE_PERCENT) {
        return Err(Rejection::NotSmaller);
    }
    Ok(bytes)
}

/// Invariant 9: the 1-based number of the first line that is neither the
/// raw line it claims to be (after normalization), nor a `[ctx]` line, nor
/// a line of a compact census block, nor the header — which may only be
/// the first line, once, in the documented form (docs/invariants.md):
/// `<tool>: <OUTCOME>[ · <counts>][ · <exit>]`. A census block is visibly
/// ctx's by its shape: a `[ctx] census` opening line (or a re-run delta's
/// list opening, `render::delta`), then only indented census lines until
/// the first line of any other kind.
fn first_untruthful_line(artifact: &Artifact, rendered: &Rendered) -> Option<usize> {
    let mut in_census = false;
    rendered.lines.iter().enumerate().find_map(|(i, line)| {
        let truthful = !line.text.contains('\n')
            && match line.origin {
                Origin::Raw(n) => n >= 1 && line.text == normalize::line(artifact.line(n)),
                Origin::Ctx => line.text.starts_with(CTX_PREFIX),
                Origin::Census => {
                    in_census
                        && line.text.starts_with(census::FILE_INDENT)
                        && !line.text.trim().is_empty()
                }
                Origin::Header => i == 0 && is_header_form(&line.text),
            };
        in_census = match line.origin {
            Origin::Ctx => {
                line.text.starts_with(census::CENSUS_OPENING)
                    || crate::render::delta::opens_a_list(&line.text)
            }
            Origin::Census => in_census,
            _ => false,
        };
        (!truthful).then_some(i + 1)
    })
}

/// The one line ctx writes without its prefix. Its outcome is one of the
/// closed vocabulary of `Outcome::word`, so no tool line (`error: …`,
/// `FAILED …`) can pass for it; counts are `N word…`; the exit part is
/// `Exit::describe`'s.
pub fn is_header_form(text: &str) -> bool {
    static FORM: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        let count = r"\d{1,3}(?:,\d{3})* [a-z][a-z ()-]*";
        regex::Regex::new(&format!(
            r"^[^\s\[:·][^:·]*: (?:PASSED|FAILED|ERROR|OK|INTERRUPTED|UNKNOWN)(?: · {count}(?:, {count})*)?(?: · (?:exit \d+|killed by signal \d+))?$"
        ))
        .expect("a valid pattern")
    });
    FORM.is_match(text)
}

/// Every omission has exactly one marker; raw spans and omitted line
/// ranges never overlap and stay inside the artifact.
fn check_markers(artifact: &Artifact, plan: &DeliveryPlan) -> Result<(), Rejection> {
    let bad = |why: String| Err(Rejection::Markers(why));
    let mut referenced = vec![0usize; plan.omissions.len()];
    let mut ranges = Vec::new();
    for block in &plan.blocks {
        match block {
            Block::Marker(i) => match referenced.get_mut(*i) {
                Some(r) => *r += 1,
                None => return bad(format!("marker for omission {i}, which does not exist")),
            },
            Block::Raw(span) => ranges.push(*span),
            _ => {}
        }
    }
    if let Some(i) = referenced.iter().position(|&r| r != 1) {
        return bad(format!("omission {i} has {} markers", referenced[i]));
    }
    for o in &plan.omissions {
        if let Address::Lines(span) = &o.address {
            if span.len() != o.count {
                return bad(format!("{:?} claims {} lines", span, o.count));
            }
            ranges.push(*span);
        }
    }
    ranges.sort();
    for pair in ranges.windows(2) {
        if pair[0].last >= pair[1].first {
            return bad(format!("{:?} overlaps {:?}", pair[0], pair[1]));
        }
    }
    if let Some(last) = ranges.last()
        && (last.last > artifact.line_count() || ranges[0].first == 0)
    {
        return bad(format!("{last:?} is outside the output"));
    }
    Ok(())
}

/// Invariant 4 with 5: every census identity of the graph is named by the
/// plan (its census line or detail, a raw span holding its headline, a
/// typed note naming it by index: `Note::names`), or counted by a declared omission of items that `ctx
/// expand … --items` / `--details` brings back. A plan that drops an
/// identity with no marker is rejected, so the raw output goes instead.
pub fn check_census(
    contract: &Contract,
    graph: &EvidenceGraph,
    plan: &DeliveryPlan,
) -> Result<(), Rejection> {
    if !plan.omits() {
        return Ok(());
    }
    let mut shown = std::collections::BTreeSet::new();
    for block in &plan.blocks {
        let indices: Vec<usize> = match block {
            Block::Item { index, .. } | Block::Detail(index) => vec![*index],
            Block::Census { entries, .. } => entries.iter().map(|e| e.index).collect(),
            // A note that names items (a FLOOD group's first items, a
            // diff's file line, a search's files…).
            Block::Notice(note) => note.names(),
            _ => Vec::new(),
        };
        for index in indices {
            if let Some(item) = graph.items.get(index) {
                shown.insert(item.identity.as_str());
            }
        }
        // A re-run delta names the unchanged failures itself.
        if let Block::Delta(d) = block {
            shown.extend(d.still.iter().map(String::as_str));
        }
    }
    let raw: SpanSet = plan
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Raw(span) => Some(*span),
            _ => None,
        })
        .collect();
    // An identity is named once any of its occurrences is (a log's
    // repeated error: its first event whole, the others counted by
    // template with `--item`).
    for item in contract.census(graph) {
        if item.headline.is_some_and(|h| raw.holds(h.first)) {
            shown.insert(item.identity.as_str());
        }
    }
    // In census order, each identity once (a set beside the list: with
    // many failures unnamed, a search of the list per item was quadratic).
    let mut unnamed: Vec<&str> = Vec::new();
    let mut listed = std::collections::HashSet::new();
    for item in contract.census(graph) {
        let id = item.identity.as_str();
        if !shown.contains(id) && listed.insert(id) {
            unnamed.push(id);
        }
    }
    // An omission of items covers identities only when it points at the
    // whole list: `--items`, which names every census identity, and
    // counts census items (a count of warnings stands for no failure).
    let declared: usize = plan
        .omissions
        .iter()
        .filter(|o| matches!(o.address, Address::Items(None)))
        .filter(|o| !matches!(&o.what, Omitted::Items(left) if !left.of_census()))
        .map(|o| o.count)
        .sum();
    match unnamed.get(declared) {
        Some(id) => Err(Rejection::CensusLost((*id).to_string())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod census_block_tests {
    use super::*;
    use crate::artifact::Exit;
    use crate::render::RenderedLine;

    fn lines(spec: &[(Origin, &str)]) -> Rendered {
        Rendered {
            lines: spec
                .iter()
                .map(|(origin, text)| RenderedLine {
                    origin: *origin,
                    text: text.to_string(),
                })
                .collect(),
        }
    }

    #[test]
    fn census_lines_stand_only_under_their_opening_line() {
        let artifact = Artifact::from_stdout(b"raw\n".to_vec(), Exit::Code(1), vec![]);
        let good = lines(&[
            (Origin::Ctx, "[ctx] census: 2 errors"),
            (Origin::Census, "  src/a.ts"),
            (
                Origin::Census,
                "    1:2 TS2322 Type 'string' is not assignable",
            ),
            (Origin::Census, "  src/b.ts:3:4 TS2304 Cannot find name 'x'"),
            (Origin::Ctx, "[ctx] full output (1 line): ctx expand abc"),
        ]);
        assert_eq!(first_untruthful_line(&artifact, &good), None);
        // Outside a block, after a raw line, or unindented: not ctx's visibly.
        let stray = lines(&[(Origin::Census, "  src/a.ts")]);
        assert_eq!(first_untruthful_line(&artifact, &stray), Some(1));
        let after_raw = lines(&[
            (Origin::Ctx, "[ctx] census: 1 error"),
            (Origin::Raw(1), "raw"),
            (Origin::Census, "  src/a.ts"),
        ]);
        assert_eq!(first_untruthful_line(&artifact, &after_raw), Some(3));
        let flush = lines(&[
            (Origin::Ctx, "[ctx] census: 1 error"),
            (Origin::Census, "src/a.ts(1,2): error TS2322: fake"),
        ]);
        assert_eq!(first_untruthful_line(&artifact, &flush), Some(2));
    }
}
