//! Applying one filter to a captured run: a pure function from the
//! artifact to the digest's body (which raw lines stay, which are rewritten
//! by the filter's `replace` rules, which regions leave under a marker).
//!
//! Failure is never hidden: when the run did not exit 0, every line text/v1
//! calls decisive is protected — never stripped, never rewritten, never
//! cut by head/tail, never folded into a repeat — and no short-circuit
//! fires.

use regex::Regex;

use crate::artifact::{Artifact, Exit, Span, Stream};
use crate::normalize;
use crate::profiles::Profile;
use crate::profiles::text::Text;
use crate::render::{CTX_PREFIX, count};

use super::spec::{LineRules, Spec, SpecError, compile};

/// Runs of at least this many identical kept lines are folded.
const MIN_RUN: usize = 3;

/// One filter's rules, compiled.
pub struct Compiled {
    common: Rules,
    stdout: Rules,
    stderr: Rules,
    shortcuts: Vec<(Regex, Regex, String)>,
}

struct Rules {
    replace: Vec<(Regex, String)>,
    strip: Vec<Regex>,
    keep: Vec<Regex>,
}

impl Rules {
    fn compile(rules: &LineRules) -> Result<Rules, regex::Error> {
        Ok(Rules {
            replace: rules
                .replace
                .iter()
                .map(|r| Ok((compile(&r.pattern)?, r.with.clone())))
                .collect::<Result<_, regex::Error>>()?,
            strip: rules
                .strip
                .iter()
                .map(|p| compile(p))
                .collect::<Result<_, _>>()?,
            keep: rules
                .keep
                .iter()
                .map(|p| compile(p))
                .collect::<Result<_, _>>()?,
        })
    }
}

impl Compiled {
    pub fn new(spec: &Spec) -> Result<Compiled, SpecError> {
        let invalid = |e: regex::Error| SpecError {
            file: format!("{}.toml", spec.name),
            why: e.to_string(),
        };
        let mut shortcuts = Vec::new();
        for s in &spec.match_output {
            let unless = s.unless.as_deref().ok_or_else(|| SpecError {
                file: format!("{}.toml", spec.name),
                why: "match_output without `unless`".into(),
            })?;
            shortcuts.push((
                compile(&s.pattern).map_err(invalid)?,
                compile(unless).map_err(invalid)?,
                s.message.clone(),
            ));
        }
        Ok(Compiled {
            common: Rules::compile(&spec.common()).map_err(invalid)?,
            stdout: Rules::compile(&spec.stdout).map_err(invalid)?,
            stderr: Rules::compile(&spec.stderr).map_err(invalid)?,
            shortcuts,
        })
    }
}

/// One piece of a filtered digest, in output order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Raw line n, normalized.
    Raw(usize),
    /// Raw line n as the filter's `replace` rules rewrote it.
    Rewritten(usize, String),
    /// `count` lines of `span` left out (`ctx expand H --lines A-B`).
    Omitted(Span),
    /// The line before repeated `count` more times within `span`.
    Repeats { count: usize, span: Span },
    /// A ctx line (without the prefix).
    Note(String),
}

/// What a filter made of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body {
    pub pieces: Vec<Piece>,
    /// The lines text/v1 calls decisive in a failed run (all printed raw).
    pub protected: Vec<usize>,
}

struct Kept {
    n: usize,
    text: String,
    rewritten: bool,
    protected: bool,
}

/// The filter's body for `artifact`.
pub fn apply(spec: &Spec, rules: &Compiled, artifact: &Artifact) -> Body {
    let total = artifact.line_count();
    let succeeded = artifact.exit == Exit::Code(0);
    let (decisive, _) = Text.extract(artifact);
    // The evidence layer's findings and the decisive lines, in line order.
    let mut decisive: Vec<usize> = decisive
        .items
        .iter()
        .filter_map(|i| i.headline.map(|s| s.first))
        .collect();
    decisive.sort_unstable();
    decisive.dedup();
    let protected = if succeeded {
        Vec::new()
    } else {
        decisive.clone()
    };

    if succeeded
        && decisive.is_empty()
        && let Some(message) = shortcut(rules, artifact)
    {
        return Body {
            pieces: vec![Piece::Note(message)],
            protected,
        };
    }

    let streams = line_streams(artifact);
    let mut kept: Vec<Kept> = Vec::new();
    let mut stripped: Vec<usize> = Vec::new();
    let mut next_protected = protected.iter().peekable();
    for n in 1..=total {
        let is_protected = next_protected.next_if_eq(&&n).is_some();
        let original = normalize::line(artifact.line(n));
        if is_protected {
            kept.push(Kept {
                n,
                text: original.into_owned(),
                rewritten: false,
                protected: true,
            });
            continue;
        }
        let own = match streams[n - 1] {
            Stream::Stdout => &rules.stdout,
            Stream::Stderr => &rules.stderr,
        };
        let mut text = original.to_string();
        for (pattern, with) in rules.common.replace.iter().chain(&own.replace) {
            if pattern.is_match(&text) {
                text = pattern.replace_all(&text, with.as_str()).into_owned();
            }
        }
        let strip = rules
            .common
            .strip
            .iter()
            .chain(&own.strip)
            .any(|p| p.is_match(&text));
        let keeps = rules.common.keep.iter().chain(&own.keep);
        let kept_by_keep = rules.common.keep.is_empty() && own.keep.is_empty()
            || keeps.clone().any(|p| p.is_match(&text));
        if strip || !kept_by_keep {
            stripped.push(n);
            continue;
        }
        let rewritten = text != original;
        kept.push(Kept {
            n,
            text,
            rewritten,
            protected: false,
        });
    }

    let units = fold(spec, kept);
    let chosen = choose(spec, &units);
    let mut pieces = Vec::new();
    let mut omitted_ranges: Vec<Span> = Vec::new();
    let mut rewritten = 0;
    let mut i = 0;
    while i < units.len() {
        if chosen[i] {
            let unit = &units[i];
            if unit.line.rewritten {
                rewritten += 1;
                pieces.push(Piece::Rewritten(unit.line.n, unit.line.text.clone()));
            } else {
                pieces.push(Piece::Raw(unit.line.n));
            }
            if let Some(span) = unit.repeats {
                pieces.push(Piece::Repeats {
                    count: unit.repeat_count,
                    span,
                });
            }
            i += 1;
            continue;
        }
        let first = units[i].line.n;
        let mut last = units[i].last();
        while i < units.len() && !chosen[i] {
            last = units[i].last();
            i += 1;
        }
        let span = Span::new(first, last);
        omitted_ranges.push(span);
        pieces.push(Piece::Omitted(span));
    }
    let outside = stripped
        .iter()
        .filter(|n| !omitted_ranges.iter().any(|s| s.contains(**n)))
        .count();
    if units.is_empty() {
        let message = spec
            .on_empty
            .clone()
            .unwrap_or_else(|| format!("filter {}: no line kept", spec.name));
        pieces.push(Piece::Note(message));
    }
    if outside > 0 {
        pieces.push(Piece::Note(format!(
            "{} {} by filter {}",
            count(outside),
            if outside == 1 {
                "line stripped"
            } else {
                "lines stripped"
            },
            spec.name
        )));
    }
    if rewritten > 0 {
        pieces.push(Piece::Note(format!(
            "{} {} by filter {}'s replace rules",
            count(rewritten),
            if rewritten == 1 {
                "line rewritten"
            } else {
                "lines rewritten"
            },
            spec.name
        )));
    }
    Body { pieces, protected }
}

/// The first short-circuit whose pattern matches the visible output and
/// whose `unless` does not.
fn shortcut(rules: &Compiled, artifact: &Artifact) -> Option<String> {
    if rules.shortcuts.is_empty() {
        return None;
    }
    let visible: Vec<String> = (1..=artifact.line_count())
        .map(|n| normalize::line(artifact.line(n)).into_owned())
        .collect();
    let visible = visible.join("\n");
    rules
        .shortcuts
        .iter()
        .find(|(pattern, unless, _)| pattern.is_match(&visible) && !unless.is_match(&visible))
        .map(|(_, _, message)| message.clone())
}

/// The stream of every line, in one walk of the segments.
fn line_streams(artifact: &Artifact) -> Vec<Stream> {
    let ranges: Vec<(Stream, std::ops::Range<usize>)> = artifact.segment_ranges().collect();
    let mut at = 0;
    (1..=artifact.line_count())
        .map(|n| {
            let offset = artifact.line_start(n).unwrap_or(0);
            while at + 1 < ranges.len() && ranges[at].1.end <= offset {
                at += 1;
            }
            ranges.get(at).map_or(Stream::Stdout, |(s, _)| *s)
        })
        .collect()
}

/// A kept line and the identical lines folded after it.
struct Unit {
    line: Kept,
    repeat_count: usize,
    repeats: Option<Span>,
}

impl Unit {
    fn last(&self) -> usize {
        self.repeats.map_or(self.line.n, |s| s.last)
    }
}

/// Folds runs of identical kept lines (never a protected one).
fn fold(spec: &Spec, kept: Vec<Kept>) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    let mut run: Vec<Kept> = Vec::new();
    let flush = |run: &mut Vec<Kept>, units: &mut Vec<Unit>| {
        if run.len() >= MIN_RUN {
            let last = run.last().map_or(0, |k| k.n);
            let second = run[1].n;
            let repeat_count = run.len() - 1;
            let line = run.drain(..).next().expect("a run has a first line");
            units.push(Unit {
                line,
                repeat_count,
                repeats: Some(Span::new(second, last)),
            });
        } else {
            units.extend(run.drain(..).map(|line| Unit {
                line,
                repeat_count: 0,
                repeats: None,
            }));
        }
    };
    for k in kept {
        let joins = spec.collapse_repeats
            && !k.protected
            && run
                .last()
                .is_some_and(|prev| !prev.protected && prev.text == k.text);
        if !joins {
            flush(&mut run, &mut units);
        }
        run.push(k);
    }
    flush(&mut run, &mut units);
    units
}

/// Which units stay: all when within `max_lines`, else the head, the tail
/// (summaries live at the end) and every protected line.
fn choose(spec: &Spec, units: &[Unit]) -> Vec<bool> {
    let max = spec.max_lines.or(match (spec.head, spec.tail) {
        (None, None) => None,
        (h, t) => Some(h.unwrap_or(0) + t.unwrap_or(0)),
    });
    let Some(max) = max.filter(|&m| units.len() > m) else {
        return vec![true; units.len()];
    };
    let head = spec.head.unwrap_or(0).min(max);
    let tail = spec.tail.unwrap_or(max - head);
    let len = units.len();
    (0..len)
        .map(|i| i < head || i + tail >= len || units[i].line.protected)
        .collect()
}

/// The body as lines: the marker and note wording, with `key` in each
/// `ctx expand` address.
pub fn lines(body: &Body, artifact: &Artifact, key: &str) -> Vec<Line> {
    body.pieces
        .iter()
        .map(|piece| match piece {
            Piece::Raw(n) => Line::Raw(*n, normalize::line(artifact.line(*n)).into_owned()),
            Piece::Rewritten(n, text) => Line::Rewritten(*n, text.clone()),
            Piece::Omitted(span) => Line::Ctx(format!(
                "{CTX_PREFIX} … {} {} omitted: ctx expand {key} --lines {}-{}",
                count(span.len()),
                if span.len() == 1 { "line" } else { "lines" },
                span.first,
                span.last
            )),
            Piece::Repeats { count: n, span } => Line::Ctx(format!(
                "{CTX_PREFIX} … previous line repeated {} more {}: ctx expand {key} --lines {}-{}",
                count(*n),
                if *n == 1 { "time" } else { "times" },
                span.first,
                span.last
            )),
            Piece::Note(text) => Line::Ctx(format!("{CTX_PREFIX} {text}")),
        })
        .collect()
}

/// A line of a filtered digest and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Raw(usize, String),
    Rewritten(usize, String),
    Ctx(String),
}

impl Line {
    pub fn text(&self) -> &str {
        match self {
            Line::Raw(_, t) | Line::Rewritten(_, t) | Line::Ctx(t) => t,
        }
    }
}
