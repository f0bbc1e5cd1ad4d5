//! ci_log/v1 — whole CI job logs: GitHub Actions raw job logs (a timestamp
//! before every line, `##[group]Run …` step headers, `##[error]` and
//! `##[warning]` lines, `::error file=…,line=…::` workflow commands,
//! "Process completed with exit code N"), `gh run view --log` and
//! `--log-failed` output (job and step columns before the timestamp),
//! GitLab job traces (`section_start`/`section_end` markers, "ERROR: Job
//! failed: exit code N"), Azure Pipelines logs (`##[section]Starting:`),
//! Jenkins pipeline console logs (`[Pipeline] { (stage)`, `Finished:
//! FAILURE`), and timestamped GitHub logs without step markers. They arrive through `ctx digest job.log` and `ctx pipe`, so the
//! family is told by content alone.
//!
//! **Decision.** Which step failed, why, and what to open next: the
//! failing step's own output read by the family that prints it (a pytest
//! step's failures, a cargo step's errors), every annotation the job
//! raised, and the outcome of every other step.
//!
//! **Unsafe loss.** The failing step unnamed, an `##[error]` or
//! `##[warning]` annotation dropped or reworded, the embedded test run's or
//! compiler's census cut, or a job with an error read as a success.
//!
//! **Typed facts.** One `Step` item per step (GitLab: per section):
//! identity its name, class `failed` or `succeeded`, block its lines,
//! fields `number`, `exit`, and for a step read as a window `family`,
//! `content_first`, `items_from`, `items_count`. One `Annotation` item
//! per annotation: identity `<step>: <line>`, severity error, warning or
//! note, headline its line, location the `file=`/`line=` it names. Then,
//! for each failing step (or the whole of an unmarked log), the items its
//! family's extractor found in it, their spans moved to the log's own
//! line numbers; such a step holding several tools' output one after the
//! other is first cut into parts, one per family (`parts.rs`). The digest shows lines without their timestamps
//! (`Profile::view`); the archive keeps them.
//!
//! **Ladder.** VERBATIM (fits the budget) → DENSE (the failing steps
//! first, each with its family's digest and its annotations, then one
//! line per step and the other steps' annotations) → the steps that
//! succeeded counted behind `--items --code succeeded` when the list does
//! not fit; the embedded digest takes its own family's rungs down to FLOOD.

use std::sync::LazyLock;

use crate::artifact::{Artifact, Exit, Span};
use crate::contract;
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome, Severity,
};

use super::{Pattern, Profile, ProfileSpec, ReceiptGroup};

pub mod parts;
pub mod prefix;
pub mod steps;
mod verdict;
pub mod window;

use steps::{Dialect, Job};

pub struct CiLog;

static SPEC: ProfileSpec = ProfileSpec {
    sniff_reason: "a CI job log",
    decisive_words: &[
        "##[",
        "section_start:",
        "section_end:",
        "[Pipeline] Start of Pipeline",
    ],
    ..ProfileSpec::new("ci_log/v1", "ci_log", ReceiptGroup::Data)
};

/// A GitLab section marker left on a line of its own (a trace saved with
/// its `\r` turned into a line break).
static SECTION_LINE: Pattern = LazyLock::new(|| {
    regex::Regex::new(r"^section_(?:start|end):\d{9,}:[A-Za-z0-9_.\-]+").expect("a valid pattern")
});

/// The step classes, as `--items --code` filters them.
pub const FAILED: &str = "failed";
pub const SUCCEEDED: &str = "succeeded";
/// A step the CI did not run (a Jenkins stage skipped).
pub const SKIPPED: &str = "skipped";

/// Field keys of a step item.
pub const NUMBER: &str = "number";
pub const EXIT: &str = "exit";
pub const FAMILY: &str = "family";
pub const CONTENT_FIRST: &str = "content_first";
pub const ITEMS_FROM: &str = "items_from";
pub const ITEMS_COUNT: &str = "items_count";
/// The field of an annotation or window item naming its step's number.
pub const STEP: &str = "step";

impl Profile for CiLog {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    /// A head whose lines all open with GitHub's own timestamp (seven
    /// fraction digits and a `Z`; `gh run view` puts the job and step
    /// before it), three at least, or the first line of a GitLab trace.
    fn by_content(&self, head: &str) -> Option<String> {
        let mut lines: Vec<&str> = head.lines().collect();
        if head.len() >= SNIFF_HEAD && !head.ends_with('\n') {
            lines.pop();
        }
        let first = lines.iter().find(|l| !l.trim().is_empty())?;
        if first.starts_with("Running with gitlab-runner")
            || first.starts_with("Running with gitlab-ci-multi-runner")
        {
            return Some("a GitLab job trace".into());
        }
        if azure_step(first) {
            return Some("an Azure Pipelines step marker first".into());
        }
        let stamped = lines.iter().filter(|l| github_stamped(l)).count();
        (stamped >= 3 && stamped == lines.len())
            .then(|| "GitHub Actions timestamps on every line".into())
    }

    /// A GitHub timestamp followed by `##[group]`, `##[error]`,
    /// `##[warning]` or `##[endgroup]`, or a GitLab section marker on a
    /// line of its own.
    fn decisive_line(&self, line: &str) -> Option<String> {
        if SECTION_LINE.is_match(line) {
            return Some("a GitLab section marker".into());
        }
        if line.trim_end() == "[Pipeline] Start of Pipeline" {
            return Some("a Jenkins pipeline's start".into());
        }
        if azure_step(line) {
            return Some("an Azure Pipelines step marker".into());
        }
        let at = github_stamp_end(line)?;
        let rest = &line[at..];
        ["##[group]", "##[error]", "##[warning]", "##[endgroup]"]
            .iter()
            .any(|m| rest.starts_with(m))
            .then(|| "a GitHub Actions step marker behind its timestamp".into())
    }

    fn view(&self, artifact: &Artifact) -> Option<Artifact> {
        prefix::view(artifact)
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let job = parts::divide(artifact, steps::read(artifact));
        graph(artifact, &job)
    }
}

/// How much of the output a head holds (`classify`).
const SNIFF_HEAD: usize = super::SNIFF_BYTES;

/// Where GitHub's timestamp ends on a shown line (after a byte-order mark
/// and `gh run view`'s two columns), when the line has one.
fn github_stamp_end(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let bom = prefix::bom_len(bytes);
    if let Some(n) = prefix::stamp_len(&bytes[bom..], true) {
        return Some(bom + n);
    }
    let mut tabs = memchr::memchr_iter(b'\t', &bytes[bom..]);
    let (_, b) = (tabs.next()?, tabs.next()?);
    let mut from = bom + b + 1;
    from += prefix::bom_len(&bytes[from..]);
    prefix::stamp_len(&bytes[from..], true).map(|n| from + n)
}

/// `##[section]Starting: NAME`, behind a timestamp or not: the marker
/// Azure Pipelines opens each step with.
fn azure_step(line: &str) -> bool {
    let at = github_stamp_end(line).unwrap_or(0);
    line[at..]
        .strip_prefix("##[section]Starting: ")
        .is_some_and(|name| !name.trim().is_empty())
}

fn github_stamped(line: &str) -> bool {
    github_stamp_end(line).is_some()
}

/// The job's facts as items: steps, annotations, then each window's
/// items under its family's kinds.
fn graph(artifact: &Artifact, job: &Job) -> (EvidenceGraph, CoverageReceipt) {
    let mut g = EvidenceGraph::empty();
    g.reader = crate::evidence::Reader::family(job.dialect.tool());
    let name = |k: usize| -> String {
        let s = &job.steps[k];
        match (&s.job, distinct_jobs(job)) {
            (Some(j), true) => format!("{j} / {}", s.name),
            _ => s.name.clone(),
        }
    };
    for (k, s) in job.steps.iter().enumerate() {
        let severity = if s.failed { Severity::Error } else { Severity::Info };
        let mut item = EvidenceItem::new(ItemKind::Step, severity, name(k));
        let class = match (s.failed, s.skipped) {
            (true, _) => FAILED,
            (false, true) => SKIPPED,
            (false, false) => SUCCEEDED,
        };
        item.class = Some(class.to_string());
        item.headline = Some(Span::line(s.first));
        item.block = Some(Span::new(s.first, s.last));
        item.fields.insert(NUMBER.into(), (k + 1).to_string());
        if let Some(code) = s.exit {
            item.fields.insert(EXIT.into(), code.to_string());
            item.summary = Some(format!("exit {code}"));
        }
        g.items.push(item);
    }
    for a in &job.annotations {
        let identity = match job.steps.get(a.step) {
            Some(_) => format!("{}: {}", name(a.step), a.text),
            None => a.text.clone(),
        };
        let mut item = EvidenceItem::new(ItemKind::Annotation, a.severity, identity);
        item.class = Some(a.severity.word().to_string());
        item.headline = Some(Span::line(a.line));
        item.location = a.location.clone();
        item.fields.insert(STEP.into(), (a.step + 1).to_string());
        g.items.push(item);
    }
    // Each failing step, and the whole of a log without step markers, is
    // read by the family its lines belong to; a window its family reads
    // as a failure (a compiler's errors in a log cut before the step's
    // `##[error]`) fails its step.
    let whole = job.dialect == Dialect::Plain || job.steps.len() == 1;
    let mut failed_steps: Vec<bool> = job.steps.iter().map(|s| s.failed).collect();
    for (k, s) in job.steps.iter().enumerate() {
        if !(s.failed || s.part || whole) || s.content_first > s.last {
            continue;
        }
        let exit = s.exit.map_or(Exit::Unknown, Exit::Code);
        let w = window::artifact(artifact, s.content_first, s.last, exit, true);
        let (family, items, outcome) = read_window(&w);
        if !s.failed && matches!(outcome, Outcome::Failed | Outcome::Error) {
            failed_steps[k] = true;
            let step = &mut g.items[k];
            step.severity = Severity::Error;
            step.class = Some(FAILED.to_string());
        }
        let from = g.items.len();
        let offset = s.content_first - 1;
        for mut item in items {
            shift(&mut item, offset);
            item.fields.insert(STEP.into(), (k + 1).to_string());
            g.items.push(item);
        }
        let total = g.items.len();
        let step = &mut g.items[k];
        step.fields.insert(FAMILY.into(), family.to_string());
        step.fields
            .insert(CONTENT_FIRST.into(), s.content_first.to_string());
        step.fields.insert(ITEMS_FROM.into(), from.to_string());
        step.fields
            .insert(ITEMS_COUNT.into(), (total - from).to_string());
    }

    let failed = failed_steps.iter().filter(|&&f| f).count();
    let skipped = job.steps.iter().filter(|s| s.skipped && !s.failed).count();
    let errors = count(job, Severity::Error);
    let warnings = count(job, Severity::Warning);
    let (_, steps_noun) = job.dialect.step_noun();
    g.counts.push((steps_noun.to_string(), job.steps.len() as u64));
    for (what, n) in [
        ("failed", failed),
        ("skipped", skipped),
        ("errors", errors),
        ("warnings", warnings),
    ] {
        if n > 0 {
            g.counts.push((what.to_string(), n as u64));
        }
    }
    // The job's own failure verdicts: never a passed job while one stands
    // in the log. One the steps and annotations did not already report is
    // an error annotation of its own, so that the digest shows it.
    let verdicts = verdict::lines(artifact);
    if failed == 0 && errors == 0 {
        for &n in &verdicts {
            let step = job
                .steps
                .iter()
                .position(|s| s.first <= n && n <= s.last)
                .unwrap_or(0);
            let text = crate::normalize::line(artifact.line(n)).trim().to_string();
            let identity = match job.steps.get(step) {
                Some(_) => format!("{}: {text}", name(step)),
                None => text,
            };
            let mut item = EvidenceItem::new(ItemKind::Annotation, Severity::Error, identity);
            item.class = Some(Severity::Error.word().to_string());
            item.headline = Some(Span::line(n));
            item.fields.insert(STEP.into(), (step + 1).to_string());
            g.items.push(item);
        }
    }
    g.outcome = if failed > 0 || errors > 0 || !verdicts.is_empty() {
        Outcome::Failed
    } else if job.completed && !artifact.exit.is_failure() {
        Outcome::Passed
    } else {
        Outcome::Unknown
    };

    let mut receipt = CoverageReceipt::new(artifact.line_count() as u64);
    receipt.items_parsed = (failed + job.annotations.len()) as u64;
    receipt.truncated = artifact.truncated;
    (g, receipt)
}

/// The family that reads a window, its items and the outcome it reads.
/// A family whose census
/// rule would leave out an item this family's contract requires (so the
/// window's digest could drop it) is passed over for text/v1.
pub fn read_window(w: &Artifact) -> (&'static str, Vec<EvidenceItem>, Outcome) {
    let profile = window::family(w);
    let (graph, _) = profile.extract(w);
    if agrees(profile.family(), &graph) {
        return (profile.family(), graph.items, graph.outcome);
    }
    let text = *super::registry().last().expect("text/v1 is last");
    let graph = text.extract(w).0;
    (text.family(), graph.items, graph.outcome)
}

/// The profile a window was read with (`read_window`'s choice again).
pub fn window_profile(family: &str) -> &'static dyn Profile {
    super::by_family(family).unwrap_or_else(|| *super::registry().last().expect("text/v1"))
}

/// True when every item the CI log's contract requires is required by the
/// window family's contract too.
fn agrees(family: &str, graph: &EvidenceGraph) -> bool {
    let (Ok(own), Ok(theirs)) = (contract::for_family("ci_log"), contract::for_family(family))
    else {
        return false;
    };
    graph
        .items
        .iter()
        .all(|i| !own.requires(i) || theirs.requires(i))
}

fn shift(item: &mut EvidenceItem, by: usize) {
    let moved = |s: Span| Span::new(s.first + by, s.last + by);
    item.headline = item.headline.map(moved);
    item.block = item.block.map(moved);
    for d in &mut item.detail {
        *d = moved(*d);
    }
}

fn count(job: &Job, severity: Severity) -> usize {
    job.annotations
        .iter()
        .filter(|a| a.severity == severity)
        .count()
}

/// `gh run view --log` of a whole run names several jobs: steps then
/// carry their job's name.
fn distinct_jobs(job: &Job) -> bool {
    let mut jobs = job.steps.iter().filter_map(|s| s.job.as_deref());
    let first = jobs.next();
    jobs.any(|j| Some(j) != first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_it_claims_and_heads_it_leaves() {
        let gh = "2024-07-08T16:48:09.3763139Z Current runner version: '2.317.0'\n\
2024-07-08T16:48:09.3763139Z ##[group]Operating System\n\
2024-07-08T16:48:09.3763139Z Ubuntu\n";
        assert!(CiLog.by_content(gh).is_some());
        let gl = "Running with gitlab-runner 18.4.0 (71914659)\n  on runner\n";
        assert!(CiLog.by_content(gl).is_some());
        // A service's log with millisecond UTC timestamps is a log's.
        let log = "2024-07-08T16:48:09.376Z INFO start\n\
2024-07-08T16:48:09.377Z INFO ready\n2024-07-08T16:48:09.378Z WARN slow\n";
        assert!(CiLog.by_content(log).is_none());
        // One stamped line among others is not a job log.
        let mixed = "2024-07-08T16:48:09.3763139Z a\nplain\n2024-07-08T16:48:09.3763139Z b\n2024-07-08T16:48:09.3763139Z c\n";
        assert!(CiLog.by_content(mixed).is_none());
        assert!(
            CiLog
                .decisive_line("2024-07-08T16:56:59.8649160Z ##[error]Process completed with exit code 1.")
                .is_some()
        );
        assert!(CiLog.decisive_line("##[error]no timestamp").is_none());
        assert!(CiLog.decisive_line("echo section_start:1:x").is_none());
        assert!(CiLog.decisive_line("section_end:1764431856:step_script").is_some());
    }
}
