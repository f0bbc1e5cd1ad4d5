//! The last run of each command, kept for re-run deltas (`plan::delta`).
//!
//! A run's comparison key is its command line after transparent wrappers
//! (`timeout 60 pytest` and `pytest` are one command), its working
//! directory, its label, and the family of the profile that read it. For
//! each key the ledger keeps one small file, `$CTX_HOME/last-runs/<hash>`:
//! when the run was, its profile version and exit status, the archive key
//! of its record, and its census identities. The next run of the same key
//! compares identities with it, without re-reading or re-parsing the
//! earlier output.
//!
//! Why a file per key and not a table of `ledger.db`: a run never opens
//! the database on its path (the journal exists for that reason, see
//! `journal.rs`), and a delta must be known before the digest is printed.
//! Reading one small file costs one `open` and one `read`. Writes replace
//! the file whole (a temporary file renamed over it), so a reader sees the
//! old run or the new one, never half of either; two runs of the same
//! command finishing together leave one of them, which is all a delta
//! needs. Anything unreadable is no previous run: a normal digest.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::artifact::{Artifact, Exit};
use crate::delivery::Delivery;
use crate::plan::Rung;
use crate::plan::delta;

/// The folder under the data directory.
pub const DIR_NAME: &str = "last-runs";
/// A previous run older than this is not compared with (`CTX_DELTA_HORIZON`).
pub const DEFAULT_HORIZON: Duration = Duration::from_secs(2 * 3600);
/// A census longer than this is not kept: such a run is a grouped flood,
/// which a delta does not shorten, and the file would be large.
pub const MAX_IDENTITIES: usize = 2000;
/// Files not rewritten for this long are removed when the journal is folded.
pub const STALE: Duration = Duration::from_secs(7 * 24 * 3600);

/// One command's last run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastRun {
    /// Unix milliseconds.
    pub at_ms: i64,
    /// `<family>/vN`.
    pub profile: String,
    /// The exit status as the ledger writes it: a code, a signal negated,
    /// None when unknown.
    pub exit: Option<i32>,
    /// The archive key of its record, 64 hex.
    pub key_hex: String,
    /// Its census identities, each once.
    pub identities: Vec<String>,
    /// Their matching keys (`delta::matching_key`), one per identity;
    /// absent in files of older versions (each identity its own key).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// The matching keys of its warnings (`delta::warnings`), every
    /// occurrence; absent in files of older versions (not compared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
}

/// Where deltas look for the previous run, and how far back.
#[derive(Clone, Debug)]
pub struct DeltaSource {
    pub dir: PathBuf,
    pub now_ms: i64,
    pub horizon: Duration,
}

impl DeltaSource {
    /// The data directory's, unless `CTX_DELTA=0`, `CTX_NO_LEDGER`, or
    /// the directory cannot be named. `CTX_DELTA_HORIZON` (a duration such
    /// as `30min` or `4h`) overrides the two hours.
    pub fn from_env() -> Option<DeltaSource> {
        if std::env::var_os("CTX_DELTA").is_some_and(|v| v == "0")
            || std::env::var_os("CTX_NO_LEDGER").is_some_and(|v| !v.is_empty())
        {
            return None;
        }
        let horizon = std::env::var("CTX_DELTA_HORIZON")
            .ok()
            .and_then(|v| humantime::parse_duration(v.trim()).ok())
            .unwrap_or(DEFAULT_HORIZON);
        Some(DeltaSource {
            dir: crate::home::data_dir().ok()?.join(DIR_NAME),
            now_ms: super::now_ms(),
            horizon,
        })
    }

    /// The previous run to compare `artifact` with, read as `profile`
    /// (`<family>/vN`): the same key, the same profile version, the same
    /// exit status, within the horizon; else None.
    pub fn previous(&self, artifact: &Artifact, profile: &str) -> Option<delta::Previous> {
        let last = read(&self.dir, &comparison_key(artifact, family(profile)))?;
        let age_ms = u64::try_from(self.now_ms.checked_sub(last.at_ms)?).ok()?;
        if last.profile != profile
            || last.exit != exit_value(artifact.exit)
            || age_ms > self.horizon.as_millis() as u64
            || last.key_hex.len() != 64
        {
            return None;
        }
        Some(delta::Previous {
            age_secs: age_ms / 1000,
            key: last.key_hex[..12].to_string(),
            identities: last.identities,
            keys: last.keys,
            warnings: last.warnings,
        })
    }
}

/// The comparison key of a run read by `family`, as 32 hex.
pub fn comparison_key(artifact: &Artifact, family: &str) -> String {
    let start = crate::command::wrappers::unwrap(&artifact.argv).unwrap_or(0);
    let parts = (
        &artifact.argv[start.min(artifact.argv.len())..],
        artifact.cwd.as_deref(),
        artifact.label.as_deref(),
        family,
    );
    let json = serde_json::to_vec(&parts).unwrap_or_default();
    blake3::hash(&json).to_hex()[..32].to_string()
}

/// What the ledger keeps of a delivered run, or None when the run has no
/// census a later run could be compared with (raw output, a grouped
/// flood, a census that may be incomplete, no archived record: a verbatim
/// fit is archived for this only when deltas are on and it has failures).
pub fn from_delivery(artifact: &Artifact, delivery: &Delivery, at_ms: i64) -> Option<LastRun> {
    let trace = delivery.trace.as_ref()?;
    let key = delivery.key?;
    let comparable = matches!(
        trace.plan.rung,
        Rung::PassSummary | Rung::FailCensus | Rung::Dense | Rung::Verbatim
    ) && trace.plan.outcome.is_none()
        && trace.receipt.is_complete()
        && !artifact.truncated;
    if !comparable {
        return None;
    }
    let (identities, keys): (Vec<String>, Vec<String>) =
        delta::census(&trace.contract, &trace.graph)
            .into_iter()
            .unzip();
    let warnings = delta::warnings(&trace.contract, &trace.graph);
    if identities.len() + warnings.len() > MAX_IDENTITIES {
        return None;
    }
    Some(LastRun {
        at_ms,
        profile: delivery.profile.to_string(),
        exit: exit_value(artifact.exit),
        key_hex: key.hex(),
        identities,
        keys,
        warnings: Some(warnings),
    })
}

/// Records `delivery` as the last run of its command: replaces the file,
/// or removes it when this run cannot be compared with (so that the next
/// run is not compared with an older one). Errors are swallowed.
pub fn remember(dir: &Path, artifact: &Artifact, delivery: &Delivery, at_ms: i64) {
    let key = comparison_key(artifact, family(delivery.profile));
    let path = dir.join(&key);
    let Some(last) = from_delivery(artifact, delivery, at_ms) else {
        let _ = std::fs::remove_file(&path);
        return;
    };
    let _ = write(dir, &key, &last);
}

fn write(dir: &Path, key: &str, last: &LastRun) -> std::io::Result<()> {
    ensure_dir(dir)?;
    let bytes = serde_json::to_vec(last).map_err(std::io::Error::other)?;
    let mut tmp = tempfile::Builder::new().prefix(".tmp").tempfile_in(dir)?;
    tmp.write_all(&bytes)?;
    tmp.persist(dir.join(key)).map_err(|e| e.error)?;
    Ok(())
}

/// `dir` created 0700 if missing, and refused unless it is ours alone.
fn ensure_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    crate::home::verify_dir(dir)
}

fn read(dir: &Path, key: &str) -> Option<LastRun> {
    let mut file = crate::home::open_private_read(&dir.join(key)).ok()?;
    let mut bytes = Vec::new();
    // A file far larger than any census kept is not ours to parse.
    (&mut file)
        .take(MAX_IDENTITIES as u64 * 4096)
        .read_to_end(&mut bytes)
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Forgets every command's last run (`ctx store purge`: the records the
/// files name may be gone, and a delta must never point at a missing
/// record). Errors are swallowed: a file left behind is checked again.
pub fn forget_all() {
    if let Ok(dir) = crate::home::data_dir() {
        let dir = dir.join(DIR_NAME);
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Removes the files of commands not run for [`STALE`].
pub fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn family(profile: &str) -> &str {
    profile.split_once('/').map_or(profile, |(f, _)| f)
}

fn exit_value(exit: Exit) -> Option<i32> {
    match exit {
        Exit::Code(c) => Some(c),
        Exit::Signal(s) => Some(-s),
        Exit::Unknown => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(argv: &[&str], cwd: &str) -> Artifact {
        let mut a = Artifact::from_stdout(
            b"x\n".to_vec(),
            Exit::Code(1),
            argv.iter().map(|s| s.to_string()).collect(),
        );
        a.cwd = Some(cwd.into());
        a
    }

    #[test]
    fn wrappers_do_not_change_the_key_cwd_and_family_do() {
        let bare = comparison_key(&artifact(&["pytest", "-q"], "/p"), "pytest");
        let wrapped = comparison_key(
            &artifact(&["timeout", "60", "pytest", "-q"], "/p"),
            "pytest",
        );
        assert_eq!(bare, wrapped);
        assert_ne!(
            bare,
            comparison_key(&artifact(&["pytest", "-q"], "/q"), "pytest")
        );
        assert_ne!(
            bare,
            comparison_key(&artifact(&["pytest", "-q"], "/p"), "text")
        );
        assert_ne!(bare, comparison_key(&artifact(&["pytest"], "/p"), "pytest"));
    }

    #[test]
    fn a_run_is_read_back_and_filtered() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join(DIR_NAME);
        let a = artifact(&["pytest"], "/p");
        let last = LastRun {
            at_ms: 1_000_000,
            profile: "pytest/v1".into(),
            exit: Some(1),
            key_hex: "ab".repeat(32),
            identities: vec!["t::a".into()],
            keys: Vec::new(),
            warnings: None,
        };
        write(&d, &comparison_key(&a, "pytest"), &last).unwrap();
        let source = |now_ms| DeltaSource {
            dir: d.clone(),
            now_ms,
            horizon: DEFAULT_HORIZON,
        };
        let prev = source(1_240_000).previous(&a, "pytest/v1").unwrap();
        assert_eq!(prev.age_secs, 240);
        assert_eq!(prev.key, "abababababab");
        assert_eq!(prev.identities, vec!["t::a".to_string()]);
        assert!(
            source(1_240_000).previous(&a, "pytest/v2").is_none(),
            "another version"
        );
        let two_hours = DEFAULT_HORIZON.as_millis() as i64;
        assert!(
            source(1_000_001 + two_hours)
                .previous(&a, "pytest/v1")
                .is_none(),
            "too old"
        );
        assert!(
            source(999_999).previous(&a, "pytest/v1").is_none(),
            "from the future"
        );
        let mut green = a.clone();
        green.exit = Exit::Code(0);
        assert!(
            source(1_240_000).previous(&green, "pytest/v1").is_none(),
            "another exit"
        );
        std::fs::write(d.join(comparison_key(&a, "pytest")), b"{broken").unwrap();
        assert!(
            source(1_240_000).previous(&a, "pytest/v1").is_none(),
            "broken file"
        );
    }
}
