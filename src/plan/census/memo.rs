//! What the census planner learns about a raw line, learned once.
//!
//! Many items can point at the same line: JUnit XML written on one line
//! (as pytest writes it) puts every failing test case on line 1, and a
//! compiler can repeat one header's line in a thousand diagnostics. Asking
//! the line's cost or text once per item would normalize that line once per
//! item, quadratic in the input; the memo normalizes each line at most once.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::artifact::Artifact;
use crate::normalize;
use crate::tokens;

/// A line's token cost (with its newline) and a digest of its visible
/// text, which stands for the text when detail blocks are compared.
#[derive(Clone, Copy)]
pub(super) struct Seen {
    pub cost: usize,
    pub text: [u8; 16],
}

pub(super) struct LineMemo<'a> {
    artifact: &'a Artifact,
    seen: RefCell<HashMap<usize, Seen>>,
}

impl<'a> LineMemo<'a> {
    pub fn new(artifact: &'a Artifact) -> Self {
        LineMemo {
            artifact,
            seen: RefCell::new(HashMap::new()),
        }
    }

    pub fn get(&self, n: usize) -> Seen {
        if let Some(&s) = self.seen.borrow().get(&n) {
            return s;
        }
        let text = normalize::line(self.artifact.line(n));
        let mut digest = [0u8; 16];
        digest.copy_from_slice(&blake3::hash(text.as_bytes()).as_bytes()[..16]);
        let s = Seen {
            cost: tokens::estimate(text.as_bytes()) + 1,
            text: digest,
        };
        self.seen.borrow_mut().insert(n, s);
        s
    }
}
