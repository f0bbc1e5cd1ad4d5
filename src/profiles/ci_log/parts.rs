//! A step that holds several tools' output one after the other (a
//! build, then a test run: a log without step markers, or a step that
//! runs `make ci`) cut into parts, each read by its own family: where one
//! family's decisive lines give way to another's.

use std::collections::BTreeSet;

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::Severity;
use crate::normalize;
use crate::profiles::decisive::WORDS;
use crate::profiles::{Profile, registry};

use super::steps::{Dialect, Job, Step};
use super::window::artifact;

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
    // One line is one tool's.
    if first == last {
        return whole;
    }
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

/// The job with each step that is read as a window (a failing step, or
/// the one step of a log without step markers) cut into the parts `split`
/// finds: each part a step of its own, named after the step with its
/// place (`Run make ci (part 2 of 2)`, `(whole log, part 1 of 2)`) and
/// read by its own family. A part fails when an error annotation stands
/// in it (or its family reads a failure, `graph`); a failing step whose
/// error no part holds (GitLab's `Job failed`, Jenkins' verdict, told
/// after the step's lines) fails its last part, which takes the step's
/// exit status and those annotations too.
pub fn divide(log: &Artifact, job: Job) -> Job {
    let unmarked = job.dialect == Dialect::Plain || job.steps.len() == 1;
    let mut steps: Vec<Step> = Vec::with_capacity(job.steps.len());
    // For each old step, the new steps it became: first index and count.
    let mut became: Vec<(usize, usize)> = Vec::with_capacity(job.steps.len());
    for step in &job.steps {
        let read = unmarked || step.failed;
        let parts = if read && step.content_first <= step.last {
            split(log, step.content_first, step.last)
        } else {
            Vec::new()
        };
        became.push((steps.len(), parts.len().max(1)));
        if parts.len() < 2 {
            steps.push(step.clone());
            continue;
        }
        let count = parts.len();
        for (k, s) in parts.iter().enumerate() {
            steps.push(Step {
                name: part_name(&step.name, k + 1, count),
                job: step.job.clone(),
                // The step's header lines open its first part.
                first: if k == 0 { step.first } else { s.first },
                last: s.last,
                content_first: s.first,
                failed: false,
                exit: None,
                part: true,
                skipped: false,
            });
        }
    }
    let mut annotations = job.annotations;
    for a in &mut annotations {
        let Some(&(from, count)) = became.get(a.step) else {
            continue;
        };
        if count < 2 {
            a.step = from;
            continue;
        }
        a.step = (from..from + count)
            .find(|&k| steps[k].first <= a.line && a.line <= steps[k].last)
            .unwrap_or(from + count - 1);
        if a.severity == Severity::Error {
            let part = &mut steps[a.step];
            part.failed = true;
            if let Some(code) = super::steps::exit_code(&a.text) {
                part.exit = Some(code);
            }
        }
    }
    for (old, &(from, count)) in job.steps.iter().zip(&became) {
        if count < 2 {
            continue;
        }
        let parts = &mut steps[from..from + count];
        if old.failed && !parts.iter().any(|p| p.failed) {
            parts[count - 1].failed = true;
        }
        if parts.iter().all(|p| p.exit.is_none()) {
            parts[count - 1].exit = old.exit;
        }
    }
    Job {
        steps,
        annotations,
        ..job
    }
}

/// `(whole log, part 2 of 3)` for a name the log does not give, `Run make
/// ci (part 2 of 3)` for one it gives.
fn part_name(name: &str, k: usize, count: usize) -> String {
    match name.strip_suffix(')').filter(|_| name.starts_with('(')) {
        Some(inner) => format!("{inner}, part {k} of {count})"),
        None => format!("{name} (part {k} of {count})"),
    }
}
