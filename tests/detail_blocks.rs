//! A detail block in a digest is its item's block shown whole, or cut
//! with a marker where lines are left out: in every fixture's digest, at
//! the default budget and at a budget where every detail fits, two raw
//! lines of one detail that are not neighbours in the output have between
//! them either a `[ctx] … N lines omitted: ctx expand H --lines A-B` marker
//! counting exactly the block's lines left out there, or only blank lines
//! and lines outside the item's own block.

#[path = "support/fixture_cases.rs"]
mod fixture_cases;

use ctx::classify;
use ctx::contract;
use ctx::evidence::{EvidenceItem, ItemKind, Severity};
use ctx::plan::{self, Block, Budget};
use ctx::render::{self, Origin, Rendered};

/// The `--lines A-B` a marker line names, with the count it claims.
fn cut(text: &str) -> Option<(usize, usize, usize)> {
    let rest = text.strip_prefix("[ctx] … ")?;
    let (count, rest) = rest.split_once(" line")?;
    let (_, range) = rest.split_once("--lines ")?;
    let (a, b) = range.split_once('-')?;
    Some((
        count.replace(',', "").parse().ok()?,
        a.parse().ok()?,
        b.parse().ok()?,
    ))
}

/// Why the lines between `prev` and `next` are missing unannounced, if
/// they are: a line of the item's block that holds something.
fn unannounced(
    artifact: &ctx::artifact::Artifact,
    item: &EvidenceItem,
    prev: usize,
    next: usize,
) -> Option<usize> {
    (prev + 1..next).find(|&n| {
        let inside = item.block.is_none_or(|b| b.contains(n));
        inside && !ctx::normalize::line(artifact.line(n)).trim().is_empty()
    })
}

fn check(
    name: &str,
    artifact: &ctx::artifact::Artifact,
    item: &EvidenceItem,
    shown: &Rendered,
) -> Result<usize, String> {
    let mut prev: Option<usize> = None;
    let mut marked: Option<(usize, usize)> = None;
    let mut cuts = 0;
    for line in &shown.lines {
        match line.origin {
            Origin::Raw(n) => {
                if let Some(p) = prev
                    && n > p + 1
                    && let Some(lost) = unannounced(artifact, item, p, n)
                {
                    match marked {
                        Some((a, b)) if a <= lost && b < n && a > p => cuts += 1,
                        _ => {
                            return Err(format!(
                                "{name}: {}: line {lost} left out between {p} and {n} with no marker",
                                item.identity
                            ));
                        }
                    }
                }
                prev = Some(prev.map_or(n, |p| p.max(n)));
                marked = None;
            }
            Origin::Ctx => {
                if let Some((count, a, b)) = cut(&line.text) {
                    if count != b + 1 - a {
                        return Err(format!("{name}: `{}` miscounts", line.text));
                    }
                    marked = Some((a, b));
                }
            }
            _ => {}
        }
    }
    Ok(cuts)
}

#[test]
fn every_detail_shown_is_whole_or_cut_with_a_marker() {
    let mut details = 0;
    let mut cuts = 0;
    let mut failures = Vec::new();
    for dir in fixture_cases::cases() {
        let name = fixture_cases::name(&dir);
        let artifact = ctx::fixture::load(&dir).unwrap();
        let (profile, graph, receipt) = classify::read(&artifact, None).unwrap();
        let contract = contract::for_family(profile.family()).unwrap();
        let raw = ctx::tokens::estimate_bulk(artifact.bytes());
        for asked in [None, Some(100_000)] {
            let budget = Budget::from_contract(&contract, asked);
            let plan = plan::resolve(&artifact, &graph, &receipt, &contract, budget, raw);
            for block in &plan.blocks {
                let index = match block {
                    Block::Detail(i)
                    | Block::Item {
                        index: i,
                        detail: true,
                    } => *i,
                    _ => continue,
                };
                let mut shown = Rendered::default();
                render::block_lines(&mut shown, &artifact, &graph, &plan, "k", block);
                details += 1;
                match check(&name, &artifact, &graph.items[index], &shown) {
                    Ok(n) => cuts += n,
                    Err(e) => failures.push(e),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // The check saw details, and cuts among them: it can fail.
    assert!(details > 100, "{details} details");
    assert!(cuts > 5, "{cuts} cuts");
}

#[test]
fn the_check_catches_a_silent_cut() {
    let text = "FAIL t\n  frame 1\n  frame 2\n  frame 3\n  frame 4\nassert 1 == 2\n";
    let artifact = ctx::artifact::Artifact::from_stdout(
        text.as_bytes().to_vec(),
        ctx::artifact::Exit::Code(1),
        Vec::new(),
    );
    let mut item = EvidenceItem::new(ItemKind::FailingTest, Severity::Error, "t");
    item.block = Some(ctx::artifact::Span::new(1, 6));
    let silent = Rendered {
        lines: [1, 6]
            .iter()
            .map(|&n| render::RenderedLine {
                origin: Origin::Raw(n),
                text: String::new(),
            })
            .collect(),
    };
    assert!(check("t", &artifact, &item, &silent).is_err());
}
