//! A detail block as the digest shows it: the item's decisive lines in
//! order, and in place of each run of lines between two of them that
//! held something, either those lines (when they cost no more than a
//! marker) or one marker naming the exact lines left out.
//!
//! Only the block's own lines count: a detail that joins a line from
//! elsewhere (rspec's `rspec ./spec/x_spec.rb:6` rerun line at the end
//! of the run) left out other items' blocks between, not part of its own.
//!
//! Extractors pick a block's decisive lines (a traceback's header, the
//! failing assertion, its location) and leave frames and snippets out. A
//! block printed as its picks back to back would read as the tool's whole
//! block with nothing missing: a reader who has seen lines vanish silently
//! cannot trust any block. So the cut is visible where it is, and the
//! planner prices a detail through [`tokens`], the same parts the
//! renderer prints.

use crate::artifact::{Artifact, Span};
use crate::delivery_plan::{Address, Omission, Omitted};
use crate::normalize;

/// A gap at most this long is judged line by line (left out when blank,
/// shown when cheaper than its marker); a longer one is always marked,
/// so a detail far apart in a long output costs no scan of what lies
/// between.
const JUDGED_GAP: usize = 3;

/// One run of a shown detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Raw lines, shown as the tool printed them.
    Lines(Span),
    /// Lines left out, declared by one marker.
    Cut(Span),
}

/// The parts of a detail made of `spans`, picked from the item's own
/// `block` (when the family knows it; else every gap is the block's).
/// Spans out of order or overlapping a shown line are printed as they
/// come, with no cut.
pub fn parts(artifact: &Artifact, spans: &[Span], block: Option<Span>) -> Vec<Part> {
    let mut out = Vec::new();
    let mut shown_to: Option<usize> = None;
    for span in spans {
        if let Some(last) = shown_to
            && span.first > last + 1
        {
            let (mut first, mut end) = (last + 1, span.first - 1);
            if let Some(b) = block {
                first = first.max(b.first);
                end = end.min(b.last);
            }
            if first <= end {
                gap(artifact, Span::new(first, end), &mut out);
            }
        }
        out.push(Part::Lines(*span));
        shown_to = Some(shown_to.map_or(span.last, |s| s.max(span.last)));
    }
    out
}

/// A gap's parts: nothing when its lines are blank (a blank line says
/// nothing), its visible lines when they cost no more than the marker,
/// else the marker.
fn gap(artifact: &Artifact, gap: Span, out: &mut Vec<Part>) {
    let cut = Part::Cut(gap);
    if gap.len() > JUDGED_GAP {
        out.push(cut);
        return;
    }
    let visible: Vec<(usize, usize)> = (gap.first..=gap.last)
        .filter_map(|n| {
            let text = normalize::line(artifact.line(n));
            (!text.trim().is_empty()).then(|| (n, crate::tokens::estimate(text.as_bytes()) + 1))
        })
        .collect();
    let cost: usize = visible.iter().map(|(_, c)| c).sum();
    if cost <= cut_tokens(gap) {
        out.extend(visible.iter().map(|&(n, _)| Part::Lines(Span::line(n))));
    } else {
        out.push(cut);
    }
}

/// The omission a cut declares: its lines, by their numbers.
pub fn omission(cut: Span) -> Omission {
    Omission {
        what: Omitted::Lines,
        count: cut.len(),
        address: Address::Lines(cut),
    }
}

/// A cut's marker line under the short archive key `key`.
pub fn marker(cut: Span, key: &str) -> String {
    super::marker(&omission(cut), key)
}

fn cut_tokens(cut: Span) -> usize {
    super::marker_tokens(&omission(cut))
}

/// Tokens of the detail's lines and markers, each with its newline, as
/// the renderer prints them; `line_cost` prices a raw line (the planner's
/// memo, so a line shared by many items is normalized once).
pub fn tokens(
    artifact: &Artifact,
    spans: &[Span],
    block: Option<Span>,
    line_cost: impl Fn(usize) -> usize,
) -> usize {
    parts(artifact, spans, block)
        .into_iter()
        .map(|part| match part {
            Part::Lines(s) => (s.first..=s.last).map(&line_cost).sum(),
            Part::Cut(s) => cut_tokens(s),
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;

    fn artifact(text: &str) -> Artifact {
        Artifact::from_stdout(text.as_bytes().to_vec(), Exit::Code(1), Vec::new())
    }

    #[test]
    fn adjacent_spans_have_no_cut() {
        let a = artifact("a\nb\nc\n");
        let p = parts(&a, &[Span::line(1), Span::new(2, 3)], None);
        assert_eq!(
            p,
            vec![Part::Lines(Span::line(1)), Part::Lines(Span::new(2, 3))]
        );
    }

    #[test]
    fn blank_lines_between_picks_are_no_cut() {
        let a = artifact("def test():\n\n   \nE assert 1 == 2\n");
        let p = parts(&a, &[Span::line(1), Span::line(4)], None);
        assert_eq!(
            p,
            vec![Part::Lines(Span::line(1)), Part::Lines(Span::line(4))]
        );
    }

    #[test]
    fn a_short_visible_gap_is_shown_when_cheaper_than_its_marker() {
        let a = artifact("header\n^\nnote\n");
        let p = parts(&a, &[Span::line(1), Span::line(3)], None);
        assert_eq!(
            p,
            vec![
                Part::Lines(Span::line(1)),
                Part::Lines(Span::line(2)),
                Part::Lines(Span::line(3))
            ]
        );
    }

    #[test]
    fn a_costly_or_long_gap_is_cut_with_its_lines_named() {
        let long = "frame ".repeat(40);
        let text = format!("header\n{long}\nlast\n");
        let a = artifact(&text);
        let p = parts(&a, &[Span::line(1), Span::line(3)], None);
        assert_eq!(p[1], Part::Cut(Span::line(2)));

        let many: String = (0..10).map(|i| format!("  at f{i}\n")).collect();
        let a = artifact(&format!("Error\n{many}caused here\n"));
        let p = parts(&a, &[Span::line(1), Span::line(12)], None);
        assert_eq!(p[1], Part::Cut(Span::new(2, 11)));
        let o = omission(Span::new(2, 11));
        assert_eq!(o.count, 10);
    }

    #[test]
    fn lines_outside_the_items_block_are_no_cut() {
        let text = "1) fails\n  expected 3\n2) other\n  expected 4\n  got 5\n3) more\nrerun 1\n";
        let a = artifact(text);
        let p = parts(&a, &[Span::new(1, 2), Span::line(7)], Some(Span::new(1, 2)));
        assert_eq!(
            p,
            vec![Part::Lines(Span::new(1, 2)), Part::Lines(Span::line(7))]
        );
        // Inside the block, the same lines are a cut.
        let p = parts(&a, &[Span::new(1, 2), Span::line(7)], Some(Span::new(1, 7)));
        assert_eq!(p[1], Part::Cut(Span::new(3, 6)));
    }

    #[test]
    fn priced_as_printed() {
        let many: String = (0..10).map(|i| format!("  at f{i}\n")).collect();
        let a = artifact(&format!("Error\n{many}caused here\n"));
        let spans = [Span::line(1), Span::line(12)];
        let line = |n: usize| crate::tokens::estimate(normalize::line(a.line(n)).as_bytes()) + 1;
        let marker = super::super::marker_tokens(&omission(Span::new(2, 11)));
        assert_eq!(tokens(&a, &spans, None, line), line(1) + line(12) + marker);
    }
}
