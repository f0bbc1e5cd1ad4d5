//! Classification: which profile reads this artifact. The command table
//! (argv) is asked first, then content sniffing of the first KiB; text/v1
//! takes whatever is left.

use crate::artifact::Artifact;
use crate::normalize;
use crate::profiles::{self, Match, MatchedBy, Profile};

/// How much of the output content sniffing looks at.
pub const SNIFF_BYTES: usize = 1024;

#[derive(Debug, thiserror::Error)]
#[error("no profile for family {0:?} (`ctx profiles` lists them)")]
pub struct UnknownFamily(pub String);

/// The profile for this artifact, and why: `--as`, then the command table,
/// then the first KiB of content, then text/v1.
pub fn choose(
    artifact: &Artifact,
    forced: Option<&str>,
) -> Result<(&'static dyn Profile, Match), UnknownFamily> {
    choose_except(artifact, forced, &[])
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
    let head = sniff_head(artifact.bytes());
    for profile in enabled(disabled) {
        if let Some(reason) = profile.by_content(&head) {
            return Ok((
                *profile,
                Match {
                    by: MatchedBy::Content,
                    reason,
                },
            ));
        }
    }
    Ok(fallback("no command or content rule matched"))
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
    Ok(enabled(disabled).find_map(|profile| {
        let reason = profile.by_command(&artifact.argv)?;
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
