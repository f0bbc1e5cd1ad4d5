//! What a failing test's `---- t stdout ----` block says: where it
//! panicked, with what message and class, and which lines show it.

use std::sync::LazyLock;

use regex::Regex;

use super::{FRAME_AT, PANICKED, location};
use crate::artifact::{Artifact, Span};
use crate::evidence::EvidenceItem;
use crate::profiles::testrun;

/// A backtrace frame's function: `   4: arith::tests::same_name`.
static FRAME_FN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d+: \w+::(.+)$").expect("static pattern"));

/// The file of the test function's own backtrace frame (`<crate>::<test
/// path>` followed by `at ./FILE:L:C`), as the frame names it.
pub(super) fn own_frame(artifact: &Artifact, block: Span, test: &str) -> Option<String> {
    let mut previous_is_test = false;
    for n in block.first..=block.last {
        let raw = crate::profiles::visible(artifact, n);
        let t = raw.trim();
        if previous_is_test
            && let Some(c) = FRAME_AT.captures(t)
            && !c[2].starts_with('/')
        {
            return Some(c[2].to_string());
        }
        previous_is_test = FRAME_FN.captures(t).is_some_and(|c| &c[1] == test);
    }
    None
}

/// The file of the block's `panicked at FILE:L:C` line.
pub(super) fn panicked_file(artifact: &Artifact, block: Span) -> Option<String> {
    (block.first..=block.last).find_map(|n| {
        let raw = crate::profiles::visible(artifact, n);
        PANICKED
            .captures(raw.trim())
            .map(|c| c[1].trim_start_matches("./").to_string())
    })
}

/// Panic facts from a failure's block: location, class, message, detail.
pub(super) fn read_block(artifact: &Artifact, item: &mut EvidenceItem, block: Span) {
    let mut detail = Vec::new();
    let mut message_lines = 0;
    let mut in_message = false;
    let mut backtrace_frame = None;
    for n in block.first..=block.last {
        let raw = crate::profiles::visible(artifact, n);
        let t = raw.trim();
        if let Some(c) = PANICKED.captures(t) {
            detail.push(n);
            item.location = Some(location(&c[1], &c[2], Some(&c[3])));
            if t.contains("did not panic") {
                item.class = Some("should_panic".into());
                item.summary = Some(t.trim_start_matches("note: ").to_string());
            } else {
                in_message = true;
            }
            continue;
        }
        if in_message {
            if t.is_empty() || t.starts_with("note: run with") || t == "stack backtrace:" {
                in_message = false;
            } else if message_lines < 6 {
                detail.push(n);
                message_lines += 1;
                if item.summary.is_none() {
                    item.summary = Some(t.to_string());
                    let class = if t.starts_with("assertion") {
                        "assertion"
                    } else {
                        "panic"
                    };
                    item.class.get_or_insert_with(|| class.into());
                }
                if t.starts_with("note: panic did not contain") {
                    item.class = Some("should_panic".into());
                }
            }
            continue;
        }
        // A test returning `Err` prints the error and no panic.
        if item.summary.is_none() && t.starts_with("Error: ") {
            detail.push(n);
            item.summary = Some(t.to_string());
            item.class.get_or_insert_with(|| "error returned".into());
            continue;
        }
        if let Some(c) = FRAME_AT.captures(t) {
            let library = c[2].starts_with('/') || c[2].contains(".cargo/registry");
            if backtrace_frame.is_none() && !library {
                backtrace_frame = Some((n, location(&c[2], &c[3], Some(&c[4]))));
            }
        }
    }
    if let Some((n, loc)) = backtrace_frame {
        let in_library = item
            .location
            .as_ref()
            .is_none_or(|l| l.file.starts_with('/'));
        if in_library {
            item.location = Some(loc);
        }
        detail.extend([n - 1, n]);
    }
    item.detail = testrun::spans(&detail, 10);
}
