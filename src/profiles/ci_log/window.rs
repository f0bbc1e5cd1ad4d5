//! A window of a job log (a failing step's lines, or the whole of a log
//! without markers) as an artifact of its own, and the family that reads
//! it: the other profiles' own detectors (head sniffing, decisive lines),
//! asked in registry order as classification asks them, so a pytest step
//! gets the pytest census and a cargo step the diagnostics census.
//!
//! A log without step markers can hold several tools' output one after
//! the other (a build, then a test run): `split` cuts it where one
//! family's decisive lines give way to another's, so each part is read by
//! its own family.

use std::collections::BTreeSet;

use crate::artifact::{Artifact, Exit, Span};
use crate::normalize;
use crate::profiles::decisive::WORDS;
use crate::profiles::{Profile, SNIFF_BYTES, mentions_any, registry, window};

use super::prefix;
use super::steps::{Dialect, Job, Step};

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

/// The most stretches a window is cut into: beyond this, claims that
/// alternate so often are one tool's output quoting another's words, and
/// the window is read whole.
const MOST_PARTS: usize = 16;

/// A stretch of a window whose decisive lines some family claims all of:
/// its first and last decisive line, and the families (bits by registry
/// index) that claim every one of them.
struct Stretch {
    first: usize,
    last: usize,
    claim: u64,
}

/// Lines `first..=last` of a log without step markers, cut into the parts
/// each family reads: one span (log numbering) per part, in order,
/// covering every line; the whole span when one family (or none) claims
/// the window.
///
/// 1. One pass of the decisive-word automaton finds the lines some
///    family's detector claims (the words first, the detector only on a
///    line holding one of its words); a run of such lines that one family
///    claims all of is a stretch.
/// 2. Between two stretches, the later family's part opens at the first
///    line its own extractor makes an item of (a compiler's diagnostics
///    come before its closing verdict), and never before the earlier
///    family's last decisive line: the lines between go with the earlier
///    part (a test run's closing count line follows its verdicts).
/// 3. Neighbouring parts are joined again when the family that reads the
///    two together names every item each names alone: a cut is only kept
///    where reading whole would lose an identity.
pub fn split(log: &Artifact, first: usize, last: usize) -> Vec<Span> {
    let whole = vec![Span::new(first, last)];
    let w = artifact(log, first, last, Exit::Unknown, true);
    let stretches = stretches(&w);
    if stretches.len() < 2 || stretches.len() > MOST_PARTS {
        return whole;
    }
    let total = w.line_count();
    let mut cuts = vec![1];
    for k in 1..stretches.len() {
        let (before, this) = (&stretches[k - 1], &stretches[k]);
        let end = stretches.get(k + 1).map_or(total, |next| next.first - 1);
        let reader = registry()[this.claim.trailing_zeros() as usize];
        let probe = artifact(&w, before.last + 1, end, Exit::Unknown, false);
        let opens = reader
            .extract(&probe)
            .0
            .items
            .iter()
            .filter_map(|i| i.block.or(i.headline).map(|s| s.first))
            .min()
            .map_or(this.first, |m| before.last + m);
        cuts.push(opens.clamp(before.last + 1, this.first));
    }
    let parts: Vec<Span> = cuts
        .iter()
        .enumerate()
        .map(|(k, &c)| Span::new(c, cuts.get(k + 1).map_or(total, |next| next - 1)))
        .collect();
    joined(&w, parts)
        .into_iter()
        .map(|s| Span::new(first + s.first - 1, first + s.last - 1))
        .collect()
}

/// The stretches of a window, in order.
fn stretches(w: &Artifact) -> Vec<Stretch> {
    let Some(words) = WORDS.as_ref() else {
        return Vec::new();
    };
    let all = registry();
    let eligible = |p: &dyn Profile| p.family() != "ci_log" && p.family() != "text";
    let mut out: Vec<Stretch> = Vec::new();
    let mut from = 0;
    while let Some((n, raw, held)) = words.next_line(w, from) {
        let line = normalize::line(raw);
        let claim = (0..all.len())
            .filter(|&at| held & (1 << at) != 0 && eligible(all[at]))
            .filter(|&at| all[at].decisive_line(&line).is_some())
            .fold(0u64, |set, at| set | 1 << at);
        if claim != 0 {
            match out.last_mut() {
                Some(s) if s.claim & claim != 0 => {
                    s.claim &= claim;
                    s.last = n;
                }
                _ => out.push(Stretch {
                    first: n,
                    last: n,
                    claim,
                }),
            }
            if out.len() > MOST_PARTS {
                break;
            }
        }
        match w.line_start(n + 1) {
            Some(next) => from = next,
            None => break,
        }
    }
    out
}

/// The parts, neighbours joined where reading them together loses no
/// identity either names alone.
fn joined(w: &Artifact, parts: Vec<Span>) -> Vec<Span> {
    let names = |s: Span| -> BTreeSet<String> {
        let part = artifact(w, s.first, s.last, Exit::Unknown, false);
        super::read_window(&part)
            .1
            .into_iter()
            .map(|i| i.identity)
            .collect()
    };
    let mut out: Vec<Span> = Vec::new();
    let mut iter = parts.into_iter();
    let Some(mut current) = iter.next() else {
        return out;
    };
    let mut current_names = names(current);
    for next in iter {
        let next_names = names(next);
        let both = Span::new(current.first, next.last);
        let both_names = names(both);
        if current_names.is_subset(&both_names) && next_names.is_subset(&both_names) {
            current = both;
            current_names = both_names;
        } else {
            out.push(current);
            current = next;
            current_names = next_names;
        }
    }
    out.push(current);
    out
}

/// A job whose log has no step markers (one step, or none of GitHub's or
/// GitLab's markers at all), its one step cut into the parts `split`
/// finds: each part a step of its own, named after the step with its
/// place (`(whole log, part 2 of 3)`), failed when an error annotation
/// stands in it, and the annotations moved to the part that holds them.
/// Any other job is returned as it is.
pub fn divide(log: &Artifact, job: Job) -> Job {
    let unmarked = job.dialect == Dialect::Plain || job.steps.len() == 1;
    let Some(step) = job.steps.first().filter(|_| unmarked) else {
        return job;
    };
    if step.content_first > step.last {
        return job;
    }
    let parts = split(log, step.content_first, step.last);
    if parts.len() < 2 {
        return job;
    }
    let count = parts.len();
    let base = step.name.strip_suffix(')').unwrap_or(&step.name).to_string();
    let close = if base.len() < step.name.len() { ")" } else { "" };
    let mut steps: Vec<Step> = parts
        .iter()
        .enumerate()
        .map(|(k, s)| Step {
            name: format!("{base}, part {} of {count}{close}", k + 1),
            job: step.job.clone(),
            // The step's header lines (none in most logs) open the first part.
            first: if k == 0 { step.first } else { s.first },
            last: s.last,
            content_first: s.first,
            failed: false,
            exit: None,
        })
        .collect();
    let mut annotations = job.annotations;
    for a in &mut annotations {
        a.step = parts.iter().position(|s| s.contains(a.line)).unwrap_or(0);
    }
    let gitlab = job.dialect == Dialect::GitLab;
    for a in &annotations {
        if a.severity == crate::evidence::Severity::Error {
            let part = &mut steps[a.step];
            part.failed = true;
            if gitlab || part.exit.is_none() {
                part.exit = super::steps::exit_code(&a.text).or(part.exit);
            }
        }
    }
    // The job's exit status, told by no annotation of a part, stays with the last.
    if steps.iter().all(|s| s.exit.is_none())
        && let Some(last) = steps.last_mut()
    {
        last.exit = step.exit;
    }
    Job {
        steps,
        annotations,
        parts: true,
        ..job
    }
}
