//! A window of a job log (a failing step's lines, a part of one, or the
//! whole of a log without markers) as an artifact of its own, and the family that reads
//! it: the other profiles' own detectors (head sniffing, decisive lines),
//! asked in registry order as classification asks them, so a pytest step
//! gets the pytest census and a cargo step the diagnostics census.

use crate::artifact::{Artifact, Exit};
use crate::normalize;
use crate::profiles::{Profile, SNIFF_BYTES, mentions_any, registry, window};

use super::prefix;

/// Lines `first..=last` of `artifact` as a one-stream artifact ending with
/// `exit`; with `strip`, each line without its CI prefix (the extractor
/// reads the captured lines, the planner the view that has none). Line k
/// of the window is line `first + k - 1` of the log.
pub fn artifact(artifact: &Artifact, first: usize, last: usize, exit: Exit, strip: bool) -> Artifact {
    let mut out = Vec::new();
    for n in first..=last {
        let raw = artifact.line(n);
        let from = if strip { prefix::of(raw).len } else { 0 };
        out.extend_from_slice(&raw[from..]);
        out.push(b'\n');
    }
    let mut w = Artifact::from_stdout(out, exit, Vec::new());
    w.cwd = artifact.cwd.clone();
    // What a window no family reads is called in its `read as` line.
    w.label = Some("text/v1".into());
    w
}

/// The family that reads a window: the first profile in registry order
/// (the CI log's own and the text fallback aside) whose head sniffing
/// matches the window's first KiB or whose decisive line occurs in it;
/// text/v1 when none does.
pub fn family(w: &Artifact) -> &'static dyn Profile {
    let all = registry();
    let eligible = |p: &&dyn Profile| p.family() != "ci_log" && p.family() != "text";
    let head = head(w.bytes());
    let mut best = all
        .iter()
        .position(|p| eligible(p) && p.by_content(&head).is_some())
        .unwrap_or(all.len());
    for n in 1..=w.line_count() {
        if best == 0 {
            break;
        }
        let raw = window(w.line(n));
        let line = normalize::line(raw);
        for (at, p) in all[..best].iter().enumerate() {
            let words = p.decisive_words();
            if eligible(p)
                && !words.is_empty()
                && mentions_any(&line, words)
                && p.decisive_line(&line).is_some()
            {
                best = at;
                break;
            }
        }
    }
    all.get(best)
        .copied()
        .unwrap_or_else(|| *all.last().expect("the registry ends with text/v1"))
}

/// The first KiB, normalized line by line, as classification reads a head.
fn head(bytes: &[u8]) -> String {
    let end = bytes.len().min(SNIFF_BYTES);
    bytes[..end]
        .split(|&b| b == b'\n')
        .map(normalize::line)
        .collect::<Vec<_>>()
        .join("\n")
}
