//! Runs of kept and left-out lines, for planners that choose line by line
//! (listings, installs): each left-out run becomes one marker.

use crate::artifact::Span;

/// The maximal runs of lines `1..keep.len()` (index 0 unused), each with
/// whether its lines are kept.
pub fn runs(keep: &[bool]) -> Vec<(bool, Span)> {
    let total = keep.len().saturating_sub(1);
    let mut out = Vec::new();
    let mut n = 1;
    while n <= total {
        let start = n;
        let kept = keep[n];
        while n <= total && keep[n] == kept {
            n += 1;
        }
        out.push((kept, Span::new(start, n - 1)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternating_runs() {
        let keep = [false, true, true, false, true];
        assert_eq!(
            runs(&keep),
            [
                (true, Span::new(1, 2)),
                (false, Span::new(3, 3)),
                (true, Span::new(4, 4))
            ]
        );
        assert!(runs(&[false]).is_empty());
    }
}
