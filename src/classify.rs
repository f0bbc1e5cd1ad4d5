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

/// The profile for this artifact, and why.
pub fn choose(
    artifact: &Artifact,
    forced: Option<&str>,
) -> Result<(&'static dyn Profile, Match), UnknownFamily> {
    if let Some(name) = forced {
        let profile = profiles::by_family(name).ok_or_else(|| UnknownFamily(name.to_string()))?;
        let reason = format!("--as {name}");
        return Ok((
            profile,
            Match {
                by: MatchedBy::Forced,
                reason,
            },
        ));
    }
    let registry = profiles::registry();
    for profile in registry {
        if let Some(reason) = profile.by_command(&artifact.argv) {
            return Ok((
                *profile,
                Match {
                    by: MatchedBy::Command,
                    reason,
                },
            ));
        }
    }
    let head = sniff_head(artifact.bytes());
    for profile in registry {
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
    let fallback = *registry.last().expect("registry is never empty");
    let reason = "no command or content rule matched".to_string();
    Ok((
        fallback,
        Match {
            by: MatchedBy::Fallback,
            reason,
        },
    ))
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
