//! A filter's digest, as the pipeline delivers it: the body between the
//! usual header and footer, the original archived first, and every check
//! a typed digest passes (invariants 3, 5, 9, 10). Any doubt returns
//! `None` and text/v1 reads the output instead.

use crate::archive::Archive;
use crate::artifact::Artifact;
use crate::contract;
use crate::delivery::{Delivery, Output};
use crate::guard::{self, Rejection};
use crate::normalize;
use crate::plan::Budget;
use crate::profiles::{Match, MatchedBy};
use crate::render::{self, CTX_PREFIX};
use crate::tokens;

use super::engine::{self, Line};
use super::{Filter, for_command};

/// The digest of the filter that reads this command's output, or `None`
/// when no filter does, or when its result cannot be trusted to be
/// better than text/v1's (over the budget's ceiling, a decisive line of a
/// failed run missing, a broken pattern, a panic).
pub fn deliver(
    artifact: &Artifact,
    archive: &dyn Archive,
    budget: Option<usize>,
    disabled: &[String],
    raw_tokens: usize,
) -> Option<Delivery> {
    let filter = for_command(&artifact.argv, disabled)?;
    let text_contract = contract::for_family("text").ok()?;
    let budget = Budget::from_contract(&text_contract, budget);
    let body = guard::isolate("filter", || {
        let rules = filter.rules().ok()?;
        Some(engine::apply(filter.spec().ok()?, rules, artifact))
    })
    .ok()
    .flatten()?;
    // Priced with a placeholder key of the real key's length.
    let draft = lines(filter, artifact, &body, "000000000000");
    let estimate = tokens::estimate(&to_bytes(&draft));
    if estimate > budget.ceiling || !keeps_decisive(&draft, &body.protected) {
        return None;
    }
    let mut delivery = Delivery {
        output: Output::Raw,
        profile: filter.label,
        matched: Match {
            by: MatchedBy::Command,
            reason: format!(
                "filter {} ({}): command matches {:?}",
                filter.label,
                filter.origin.describe(),
                filter.pattern
            ),
        },
        key: None,
        raw_tokens,
        delivered_tokens: raw_tokens,
        rejection: None,
        trace: None,
        compared: false,
        delta: None,
    };
    if estimate >= raw_tokens {
        delivery.rejection = Some(Rejection::NotSmaller);
        return Some(delivery);
    }
    let key = match archive.put(artifact) {
        Ok(key) => key,
        Err(e) => {
            delivery.rejection = Some(Rejection::NotArchived(e.to_string()));
            return Some(delivery);
        }
    };
    let rendered = lines(filter, artifact, &body, &key.short());
    if let Some(n) = first_untruthful(artifact, &rendered) {
        delivery.rejection = Some(Rejection::Untruthful(n));
        return Some(delivery);
    }
    let bytes = to_bytes(&rendered);
    let delivered = tokens::estimate(&bytes);
    if delivered >= raw_tokens {
        delivery.rejection = Some(Rejection::NotSmaller);
        return Some(delivery);
    }
    delivery.key = Some(key);
    delivery.delivered_tokens = delivered;
    delivery.output = Output::Digest(bytes);
    Some(delivery)
}

/// Header, body, footer.
fn lines(filter: &Filter, artifact: &Artifact, body: &engine::Body, key: &str) -> Vec<Line> {
    let mut parts = vec![render::counted(artifact.line_count(), "lines")];
    parts.extend(artifact.exit.describe());
    parts.push(format!("filter {}", filter.label));
    let mut out = vec![Line::Ctx(format!(
        "{CTX_PREFIX} {}: {}",
        crate::render::clip(&artifact.display_command(), 80),
        parts.join(" · ")
    ))];
    out.extend(engine::lines(body, artifact, key));
    out.push(Line::Ctx(render::footer(artifact, key)));
    out
}

fn to_bytes(lines: &[Line]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in lines {
        out.extend_from_slice(line.text().as_bytes());
        out.push(b'\n');
    }
    out
}

/// Every decisive line of a failed run is printed as it is (invariant 10).
fn keeps_decisive(lines: &[Line], protected: &[usize]) -> bool {
    protected
        .iter()
        .all(|n| lines.iter().any(|l| matches!(l, Line::Raw(m, _) if m == n)))
}

/// Invariant 9, for a filtered digest: a raw line is the line it claims to
/// be; a rewritten line claims a real line (and the digest says lines were
/// rewritten); ctx's own lines carry the prefix; nothing spans two lines.
fn first_untruthful(artifact: &Artifact, lines: &[Line]) -> Option<usize> {
    let rewrites_declared = lines
        .iter()
        .any(|l| matches!(l, Line::Ctx(t) if t.contains("replace rules")));
    lines
        .iter()
        .position(|line| {
            let ok = match line {
                Line::Raw(n, text) => *n >= 1 && *text == normalize::line(artifact.line(*n)),
                Line::Rewritten(n, text) => {
                    rewrites_declared
                        && *n >= 1
                        && *n <= artifact.line_count()
                        && !text.contains('\n')
                }
                Line::Ctx(text) => text.starts_with(CTX_PREFIX) && !text.contains('\n'),
            };
            !ok
        })
        .map(|i| i + 1)
}
