//! Classification: which profile reads this artifact. The command table
//! (argv) is asked first, then the content: the head of the output and of
//! each stream, and the decisive lines of each family wherever they are in
//! the output; text/v1 takes whatever is left.
//!
//! Build logs open with screens of compile commands, `Downloading` and
//! `Compiling` lines, and put their diagnostics on the other stream: a
//! classifier that reads only the first KiB of the interleaved view sends
//! them to text/v1 and loses what the family profile would have kept.

use crate::artifact::{Artifact, Stream};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem};
use crate::normalize;
use crate::profiles::decisive::WORDS;
use crate::profiles::{self, Match, MatchedBy, Profile};

pub use crate::profiles::SNIFF_BYTES;

#[derive(Debug, thiserror::Error)]
#[error("no profile for family {0:?} (`ctx profiles` lists them)")]
pub struct UnknownFamily(pub String);

/// The profile for this artifact, and why: `--as`, then the command table
/// (argv, or the `--label` a pipe was given), then the content (heads and decisive lines), then text/v1.
pub fn choose(
    artifact: &Artifact,
    forced: Option<&str>,
) -> Result<(&'static dyn Profile, Match), UnknownFamily> {
    choose_except(artifact, forced, &[])
}

/// A failure of the evidence layer that `profile`'s facts (`items`) leave
/// unread, when `profile` is a typed family: then text/v1, which plans
/// from the layer itself, reads the output instead (the pipeline's rule,
/// and so every `ctx expand` of its record's).
pub fn unread_failure(
    profile: &dyn Profile,
    artifact: &Artifact,
    items: &[EvidenceItem],
) -> Option<EvidenceItem> {
    if profile.family() == "text" {
        return None;
    }
    crate::recognise::unaccounted(artifact, items)
}

/// The profile that reads `artifact` and its facts, as the pipeline reads
/// them: `choose`'s profile, or text/v1 when that family leaves one of the
/// layer's failures unread (`unread_failure`).
pub fn read(
    artifact: &Artifact,
    forced: Option<&str>,
) -> Result<(&'static dyn Profile, EvidenceGraph, CoverageReceipt), UnknownFamily> {
    let (profile, _) = choose(artifact, forced)?;
    let (graph, receipt) = profile.extract(artifact);
    if unread_failure(profile, artifact, &graph.items).is_none() {
        return Ok((profile, graph, receipt));
    }
    let (text, _) = choose(artifact, Some("text"))?;
    let (graph, receipt) = text.extract(artifact);
    Ok((text, graph, receipt))
}

/// `choose`, passing over the `disabled` families unless `--as` names one
/// (the user's configuration; their output is read by whatever is next,
/// text/v1 at the latest).
pub fn choose_except(
    artifact: &Artifact,
    forced: Option<&str>,
    disabled: &[String],
) -> Result<(&'static dyn Profile, Match), UnknownFamily> {
    if let Some(chosen) = forced_or_command(artifact, forced, disabled)? {
        return Ok(chosen);
    }
    Ok(by_content(artifact, disabled)
        .map(|(at, reason)| {
            (
                profiles::registry()[at],
                Match {
                    by: MatchedBy::Content,
                    reason,
                },
            )
        })
        .unwrap_or_else(|| fallback("no command or content rule matched")))
}

/// The first profile, in registry order, whose head sniffing matches a
/// head or whose decisive line occurs anywhere: its registry index and why.
/// Registry order decides between them, so a test run's verdict at the end
/// of a log outranks the compiler warnings its build printed first.
fn by_content(artifact: &Artifact, disabled: &[String]) -> Option<(usize, String)> {
    let registry = profiles::registry();
    let allowed = |at: usize| !disabled.iter().any(|d| d == registry[at].family());
    let heads = heads(artifact);
    let by_head = (0..registry.len())
        .filter(|&at| allowed(at))
        .find_map(|at| {
            heads.iter().find_map(|(stream, head)| {
                let reason = registry[at].by_content(head)?;
                Some(match stream {
                    None => (at, reason),
                    Some(s) => (at, format!("{reason} (head of {})", s.name())),
                })
            })
        });
    // Only a profile before the head's match can still win.
    let before = by_head.as_ref().map_or(registry.len(), |(at, _)| *at);
    decisive_line(artifact, before, &allowed).or(by_head)
}

/// The first profile before `before` (registry index) that has a decisive
/// line anywhere in the output, with the line's number in the reason.
///
/// One pass of the word automaton (`profiles::decisive`) over the bytes,
/// resuming at the next line after each hit; the line is normalized once
/// and asked of each profile whose own words it holds. Profiles after the
/// best match so far are no longer asked, and the scan stops when the
/// first eligible one matches. Linear in the
/// output, and a profile whose words do not occur costs nothing.
fn decisive_line(
    artifact: &Artifact,
    before: usize,
    allowed: &dyn Fn(usize) -> bool,
) -> Option<(usize, String)> {
    let first = (0..before).find(|&at| allowed(at))?;
    let words = WORDS.as_ref()?;
    let registry = profiles::registry();
    let mut best: Option<(usize, String)> = None;
    let mut from = 0;
    while let Some((n, raw, held)) = words.next_line(artifact, from) {
        let bound = best.as_ref().map_or(before, |(b, _)| *b);
        let mut text = None;
        for at in (first..bound).filter(|&at| held & (1 << at) != 0 && allowed(at)) {
            let text = text.get_or_insert_with(|| normalize::line(raw));
            if let Some(reason) = registry[at].decisive_line(text) {
                best = Some((at, format!("{reason} (line {n})")));
                break;
            }
        }
        if best.as_ref().is_some_and(|(at, _)| *at == first) {
            break;
        }
        match artifact.line_start(n + 1) {
            Some(next) => from = next,
            None => break,
        }
    }
    best
}

/// `--as` or the command table only, never content: for output so small it
/// is printed verbatim whatever reads it, where compiling every profile's
/// sniffing patterns would cost more than the command itself.
pub fn choose_by_command(
    artifact: &Artifact,
    forced: Option<&str>,
) -> Result<(&'static dyn Profile, Match), UnknownFamily> {
    choose_by_command_except(artifact, forced, &[])
}

/// `choose_by_command`, passing over the `disabled` families.
pub fn choose_by_command_except(
    artifact: &Artifact,
    forced: Option<&str>,
    disabled: &[String],
) -> Result<(&'static dyn Profile, Match), UnknownFamily> {
    Ok(forced_or_command(artifact, forced, disabled)?
        .unwrap_or_else(|| fallback("small output: printed verbatim, content not sniffed")))
}

/// The registry without the disabled families, in order.
fn enabled(disabled: &[String]) -> impl Iterator<Item = &'static &'static dyn Profile> {
    profiles::registry()
        .iter()
        .filter(move |p| !disabled.iter().any(|d| d == p.family()))
}

fn forced_or_command(
    artifact: &Artifact,
    forced: Option<&str>,
    disabled: &[String],
) -> Result<Option<(&'static dyn Profile, Match)>, UnknownFamily> {
    if let Some(name) = forced {
        let profile = profiles::by_family(name).ok_or_else(|| UnknownFamily(name.to_string()))?;
        let reason = format!("--as {name}");
        return Ok(Some((
            profile,
            Match {
                by: MatchedBy::Forced,
                reason,
            },
        )));
    }
    // `ctx pipe --label 'git log'` names the command a pipe cannot: it
    // wins over sniffing as argv would.
    let argv = crate::profiles::sniff::stated_argv(artifact);
    Ok(enabled(disabled).find_map(|profile| {
        let reason = profile.by_command(&argv)?;
        Some((
            *profile,
            Match {
                by: MatchedBy::Command,
                reason,
            },
        ))
    }))
}

fn fallback(reason: &str) -> (&'static dyn Profile, Match) {
    let text = *profiles::registry()
        .last()
        .expect("registry is never empty");
    let reason = reason.to_string();
    (
        text,
        Match {
            by: MatchedBy::Fallback,
            reason,
        },
    )
}

/// The heads head sniffing reads: the first KiB of the interleaved output,
/// then, when both streams carry bytes, the first KiB of each stream (a
/// build's stdout of compile commands must not hide the diagnostics its
/// stderr opens with).
fn heads(artifact: &Artifact) -> Vec<(Option<Stream>, String)> {
    let mut heads = vec![(None, sniff_head(artifact.bytes()))];
    let streams = |s: Stream| {
        artifact
            .segments()
            .iter()
            .any(|g| g.stream == s && g.len > 0)
    };
    if streams(Stream::Stdout) && streams(Stream::Stderr) {
        for stream in [Stream::Stdout, Stream::Stderr] {
            heads.push((Some(stream), sniff_head(&stream_head(artifact, stream))));
        }
    }
    heads
}

/// The first `SNIFF_BYTES` of one stream, gathered from its segments.
fn stream_head(artifact: &Artifact, stream: Stream) -> Vec<u8> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    for (s, range) in artifact.segment_ranges() {
        if s != stream {
            continue;
        }
        let take = (SNIFF_BYTES - head.len()).min(range.len());
        head.extend_from_slice(&artifact.bytes()[range.start..range.start + take]);
        if head.len() == SNIFF_BYTES {
            break;
        }
    }
    head
}

/// The first KiB, normalized line by line. A line cut at the KiB boundary
/// is kept partial: a long first record (a JSON diagnostic) is often the
/// only distinctive thing in it.
fn sniff_head(bytes: &[u8]) -> String {
    let end = bytes.len().min(SNIFF_BYTES);
    bytes[..end]
        .split(|&b| b == b'\n')
        .map(normalize::line)
        .collect::<Vec<_>>()
        .join("\n")
}
