//! The last checks before a digest is printed. Any doubt prints the raw
//! output instead: a digest must be smaller than what it replaces (invariant
//! 3), declare each omission with exactly one marker (5), contain only raw
//! lines or visibly-ctx lines (9), and never come from a profile that
//! panicked (8).

use std::panic::{self, AssertUnwindSafe};

use crate::artifact::Artifact;
use crate::normalize;
use crate::plan::{Address, Block, DeliveryPlan};
use crate::render::{CTX_PREFIX, Origin, Rendered, census};
use crate::store::ArchiveKey;
use crate::tokens;

/// Why the raw output was printed instead of a digest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error("the digest would not be smaller than the output")]
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
}

/// Runs `f`, turning a panic into a `Rejection` (and keeping the default
/// panic message off the reader's terminal).
pub fn isolate<T>(stage: &'static str, f: impl FnOnce() -> T) -> Result<T, Rejection> {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(previous);
    result.map_err(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Rejection::Panicked(stage, msg)
    })
}

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
    if tokens::estimate(&bytes) >= raw_tokens {
        return Err(Rejection::NotSmaller);
    }
    Ok(bytes)
}

/// Invariant 9: the 1-based number of the first line that is neither the
/// raw line it claims to be (after normalization), nor a `[ctx]` line, nor
/// a line of a compact census block, nor the header — which may only be
/// the first line, once, in the documented form (docs/invariants.md):
/// `<tool>: <OUTCOME>[ · <counts>][ · <exit>]`. A census block is visibly
/// ctx's by its shape: a `[ctx] census` opening line, then only indented
/// census lines until the first line of any other kind.
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
            Origin::Ctx => line.text.starts_with(census::CENSUS_OPENING),
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
