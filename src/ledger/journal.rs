//! The ledger's hot path: one JSON line appended to
//! `$CTX_HOME/ledger.journal` per run or expand, folded into `ledger.db`
//! when the ledger is read (`ctx gain`).
//!
//! Why not write SQLite directly: every ctx process is usually the only
//! connection, so each opener must rebuild the WAL index by reading and
//! checksumming the whole WAL — measured at 4–5 ms per run, three times the
//! overhead budget of `ctx run`. An `O_APPEND` write of one line costs tens
//! of microseconds and needs no lock against other writers: the kernel
//! appends each `write(2)` whole at the end of a regular file.
//!
//! Folding renames the journal first, so runs finishing meanwhile start a
//! new one; a writer that opened the old file just before the rename holds
//! a shared `flock` while it writes, and the fold takes an exclusive one
//! before reading, so such a line is not lost.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::AsFd;
use std::path::Path;

use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};

use crate::artifact::{Artifact, Exit};
use crate::delivery::{Delivery, Output};

/// The journal's file name under the data directory.
pub const FILE_NAME: &str = "ledger.journal";

/// One recorded run, exactly the columns of the `runs` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunEntry {
    pub at_ms: i64,
    /// argv as a JSON array; never the environment.
    pub argv: String,
    pub label: Option<String>,
    pub family: String,
    pub profile: String,
    pub exit_kind: String,
    pub exit_value: Option<i32>,
    pub raw_bytes: i64,
    pub raw_tokens: i64,
    pub delivered_tokens: i64,
    /// `digest` or `raw`.
    pub delivered: String,
    pub rejection: Option<String>,
    pub key_hex: Option<String>,
    /// The delivered digest (rendered text is always UTF-8).
    pub digest: Option<String>,
    /// Tokens a re-run delta saved beyond the normal digest (estimates),
    /// when one went out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_saved: Option<i64>,
    /// The short archive key of the run that delta compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_against: Option<String>,
}

impl RunEntry {
    pub fn new(artifact: &Artifact, delivery: &Delivery, at_ms: i64) -> RunEntry {
        let (exit_kind, exit_value) = match artifact.exit {
            Exit::Code(c) => ("code", Some(c)),
            Exit::Signal(s) => ("signal", Some(s)),
            Exit::Unknown => ("unknown", None),
        };
        let digest = match &delivery.output {
            Output::Digest(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
            Output::Raw => None,
        };
        RunEntry {
            at_ms,
            argv: serde_json::to_string(&artifact.argv).unwrap_or_else(|_| "[]".into()),
            // A saved file's name is not a command's name (`ctx gain`).
            label: artifact.label.clone().filter(|_| !artifact.label_is_file),
            family: delivery
                .profile
                .split_once('/')
                .map_or(delivery.profile, |(f, _)| f)
                .to_string(),
            profile: delivery.profile.to_string(),
            exit_kind: exit_kind.to_string(),
            exit_value,
            raw_bytes: artifact.bytes().len() as i64,
            raw_tokens: delivery.raw_tokens as i64,
            delivered_tokens: delivery.delivered_tokens as i64,
            delivered: if digest.is_some() { "digest" } else { "raw" }.to_string(),
            rejection: delivery.rejection.as_ref().map(|r| r.to_string()),
            key_hex: delivery.key.map(|k| k.hex()),
            digest,
            delta_saved: delivery
                .delta
                .as_ref()
                .map(|d| d.normal_tokens.saturating_sub(delivery.delivered_tokens) as i64),
            delta_against: delivery.delta.as_ref().map(|d| d.against.clone()),
        }
    }
}

/// One line of the journal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Entry {
    // Boxed: a run entry is much larger than an expand, and entries are
    // built one at a time, so the indirection costs nothing.
    Run(Box<RunEntry>),
    Expand {
        at_ms: i64,
        key_hex: String,
        tokens: i64,
    },
}

/// Appends one entry as one `write(2)`, under a shared lock; returns the
/// journal's length after it.
pub fn append(dir: &Path, entry: &Entry) -> io::Result<u64> {
    let mut line = serde_json::to_vec(entry).map_err(io::Error::other)?;
    line.push(b'\n');
    let file = crate::home::open_private_append(&dir.join(FILE_NAME))?;
    let mut locked =
        Flock::lock(file, FlockArg::LockShared).map_err(|(_, e)| io::Error::from(e))?;
    locked.write_all(&line)?;
    Ok(locked.metadata()?.len())
}

/// Takes the journal for folding: renamed aside, then read once every
/// writer that opened it before the rename is done. Lines that do not parse
/// (a torn write after a crash) are skipped and counted.
pub fn take(dir: &Path) -> io::Result<(Vec<Entry>, usize)> {
    let live = dir.join(FILE_NAME);
    // A planted link or a stranger's file is refused where it is, before
    // it is renamed.
    crate::home::check_existing(&live)?;
    let aside = dir.join(format!("{FILE_NAME}.folding.{}", std::process::id()));
    match std::fs::rename(&live, &aside) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(e),
    }
    let file = crate::home::open_private_read(&aside)?;
    let locked = Flock::lock(file, FlockArg::LockExclusive).map_err(|(_, e)| io::Error::from(e))?;
    let mut entries = Vec::new();
    let mut skipped = 0;
    for line in BufReader::new(locked.as_fd().try_clone_to_owned().map(File::from)?).split(b'\n') {
        let line = line?;
        if line.is_empty() {
            continue;
        }
        match serde_json::from_slice(&line) {
            Ok(entry) => entries.push(entry),
            Err(_) => skipped += 1,
        }
    }
    drop(locked);
    // Removed only after the caller has stored the entries: see `finish`.
    Ok((entries, skipped))
}

/// The journal's entries, read where it is (nothing renamed or locked):
/// for a home that cannot be written, where no writer appends either.
/// Lines that do not parse are skipped and counted.
pub fn read(dir: &Path) -> io::Result<(Vec<Entry>, usize)> {
    let file = match crate::home::open_private_read(&dir.join(FILE_NAME)) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(e),
    };
    let mut entries = Vec::new();
    let mut skipped = 0;
    for line in BufReader::new(file).split(b'\n') {
        let line = line?;
        if line.is_empty() {
            continue;
        }
        match serde_json::from_slice(&line) {
            Ok(entry) => entries.push(entry),
            Err(_) => skipped += 1,
        }
    }
    Ok((entries, skipped))
}

/// Deletes the folded journal once its entries are safely in the database.
pub fn finish(dir: &Path) {
    let aside = dir.join(format!("{FILE_NAME}.folding.{}", std::process::id()));
    let _ = std::fs::remove_file(aside);
}

/// Gives a journal taken for folding back when the fold failed (the
/// database was locked, say): its lines are appended to the live journal,
/// so that the next fold has them, and the taken file is removed.
pub fn restore(dir: &Path) -> io::Result<()> {
    let aside = dir.join(format!("{FILE_NAME}.folding.{}", std::process::id()));
    let bytes = match crate::home::open_private_read(&aside) {
        Ok(mut f) => {
            let mut bytes = Vec::new();
            io::Read::read_to_end(&mut f, &mut bytes)?;
            bytes
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let file = crate::home::open_private_append(&dir.join(FILE_NAME))?;
    let mut locked =
        Flock::lock(file, FlockArg::LockShared).map_err(|(_, e)| io::Error::from(e))?;
    locked.write_all(&bytes)?;
    std::fs::remove_file(aside)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let expand = Entry::Expand {
            at_ms: 5,
            key_hex: "ab".repeat(32),
            tokens: 40,
        };
        for _ in 0..3 {
            append(dir.path(), &expand).unwrap();
        }
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(FILE_NAME))
            .unwrap()
            .write_all(b"{\"kind\":\"run\",\"at_ms\":")
            .unwrap();
        let (entries, skipped) = take(dir.path()).unwrap();
        assert_eq!(entries, vec![expand.clone(), expand.clone(), expand]);
        assert_eq!(skipped, 1, "a torn line is skipped, not fatal");
        assert!(!dir.path().join(FILE_NAME).exists(), "renamed aside");
        finish(dir.path());
        assert_eq!(take(dir.path()).unwrap().0, vec![]);
    }
}
