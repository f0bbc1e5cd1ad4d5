//! Records the shared store did not take, waiting on this machine to be
//! sent (`sync.rs`).
//!
//! When the put to PostgreSQL fails (unreachable, hung, full, refused),
//! the record goes into the local SQLite store instead and its key into
//! the outbox: `$CTX_HOME/outbox/`, one empty file per record, named
//! `<64 hex>-<namespace as hex>`. One file per record, not one file of
//! lines, so that adding (a run) and removing (a sync) never rewrite what
//! another process is writing: creating and unlinking a name are atomic.
//! The directory is checked as the home is (ours, 0700, no links).
//!
//! Looking for work is one directory read on every run that reached the
//! server: a missing directory (the usual case) costs one failed open.

use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;

use super::ArchiveKey;
use crate::runtime::home;

/// The directory's name under the data directory.
pub const DIR_NAME: &str = "outbox";

/// One waiting record: its key and the namespace it was meant for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: ArchiveKey,
    pub namespace: String,
}

impl Entry {
    fn file_name(&self) -> String {
        let ns: String = self.namespace.bytes().map(|b| format!("{b:02x}")).collect();
        format!("{}-{ns}", self.key.hex())
    }

    fn parse(name: &str) -> Option<Entry> {
        let (hex, ns) = name.split_once('-')?;
        let key = ArchiveKey::from_hex(hex)?;
        if ns.len() % 2 != 0 || !ns.is_ascii() {
            return None;
        }
        let bytes = (0..ns.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&ns[i..i + 2], 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        Some(Entry {
            key,
            namespace: String::from_utf8(bytes).ok()?,
        })
    }
}

fn dir() -> io::Result<PathBuf> {
    Ok(home::data_dir()?.join(DIR_NAME))
}

/// Queues a record for the shared store (idempotent: the same record
/// twice is one entry).
pub fn add(entry: &Entry) -> io::Result<()> {
    let dir = home::ensure_data_dir()?.join(DIR_NAME);
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    home::verify_dir(&dir)?;
    home::create_private_file(&dir.join(entry.file_name()))
}

/// The records waiting, in no particular order; names that are not
/// entries are ignored. A missing outbox is an empty one.
pub fn pending() -> io::Result<Vec<Entry>> {
    let dir = dir()?;
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    home::verify_dir(&dir)?;
    Ok(entries
        .flatten()
        .filter_map(|e| Entry::parse(e.file_name().to_str()?))
        .collect())
}

/// Removes a record from the outbox (sent, or nothing left to send); one
/// already removed (a concurrent sync) is fine.
pub fn remove(entry: &Entry) -> io::Result<()> {
    match std::fs::remove_file(dir()?.join(entry.file_name())) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_names_its_key_and_namespace() {
        let key = ArchiveKey::from_hex(&"ab".repeat(32)).expect("key");
        for namespace in ["", "team-a", "ünï/côde space"] {
            let e = Entry {
                key,
                namespace: namespace.to_string(),
            };
            let name = e.file_name();
            assert!(!name.contains('/'), "{name}");
            assert_eq!(Entry::parse(&name), Some(e));
        }
        assert_eq!(Entry::parse("not-an-entry"), None);
        assert_eq!(Entry::parse(&format!("{}-abc", "ab".repeat(32))), None);
    }
}
