//! A record's last use, refreshed by a read without writing the store.
//!
//! `ctx expand` refreshes the last use of what it read, so that retention
//! spares records someone is looking at. An `UPDATE` for that made a read
//! a writer (WAL pages, a checkpoint, fsyncs). Instead a read appends one
//! line, `<hex> <unix ms>`, to `store.db-touched` beside the database (one
//! `O_APPEND` write, no fsync, no lock against other readers), and a
//! writer folds the lines into `records.used_ms` in the transaction where
//! the last use matters: before it evicts (`make_room`), in `gc`, and in
//! `purge --older-than`. Every new record's put goes through `make_room`,
//! so the file stays a few lines long.
//!
//! Folding renames the file aside first, so reads finishing meanwhile
//! start a new one; a reader that opened the old file just before holds a
//! shared `flock` while it writes, and the fold takes an exclusive one
//! before reading. A refresh is best effort, as it always was: one lost
//! to a crash only lets its record be evicted a little sooner.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use rusqlite::{Transaction, params};

use super::SqliteStore;
use crate::store::ArchiveKey;

/// The suffix of the file beside the database.
pub const SUFFIX: &str = "-touched";

/// `store.db-touched` beside `db`.
pub fn path_of(db: &Path) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(SUFFIX);
    PathBuf::from(p)
}

/// Appends one refresh as one `write(2)`, under a shared lock.
pub fn append(db: &Path, key: &ArchiveKey, at_ms: i64) -> io::Result<()> {
    let line = format!("{} {at_ms}\n", key.hex());
    let file = crate::home::open_private_append(&path_of(db))?;
    let mut locked =
        Flock::lock(file, FlockArg::LockShared).map_err(|(_, e)| io::Error::from(e))?;
    locked.write_all(line.as_bytes())
}

/// Takes every refresh written so far (the file is gone afterwards);
/// lines that do not parse (a torn write) are skipped.
pub fn take(db: &Path) -> io::Result<Vec<(String, i64)>> {
    let live = path_of(db);
    let mut aside = live.as_os_str().to_owned();
    aside.push(format!(".folding.{}", std::process::id()));
    let aside = PathBuf::from(aside);
    // A planted link or a stranger's file is refused where it is.
    crate::home::check_existing(&live)?;
    match std::fs::rename(&live, &aside) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    }
    let file = crate::home::open_private_read(&aside)?;
    let locked = Flock::lock(file, FlockArg::LockExclusive).map_err(|(_, e)| io::Error::from(e))?;
    let mut touches = Vec::new();
    let reader = BufReader::new(locked.as_fd().try_clone_to_owned().map(File::from)?);
    for line in reader.split(b'\n') {
        let line = line?;
        if let Some(touch) = parse(&line) {
            touches.push(touch);
        }
    }
    drop(locked);
    let _ = std::fs::remove_file(&aside);
    Ok(touches)
}

fn parse(line: &[u8]) -> Option<(String, i64)> {
    let text = std::str::from_utf8(line).ok()?;
    let (hex, at) = text.trim().split_once(' ')?;
    let key = ArchiveKey::from_hex(hex)?;
    Some((key.hex(), at.parse().ok()?))
}

impl SqliteStore {
    /// Folds the refreshes written by reads into `used_ms`, inside the
    /// writer's transaction `tx`. The lines are taken once per store and
    /// kept, so a transaction retried after SQLITE_BUSY applies them
    /// again (the update only ever moves a last use forward).
    pub(super) fn apply_touches(&self, tx: &Transaction) -> rusqlite::Result<()> {
        let mut touched = self.touched.borrow_mut();
        if let Ok(more) = take(&self.path) {
            touched.extend(more);
        }
        if touched.is_empty() {
            return Ok(());
        }
        let mut q = tx.prepare_cached(
            "UPDATE records SET used_ms = max(used_ms, ?2) WHERE hex = ?1 AND pending = 0",
        )?;
        for (hex, at_ms) in touched.iter() {
            q.execute(params![hex, at_ms])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refreshes_round_trip_and_torn_lines_are_skipped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("store.db");
        let key = ArchiveKey([7; 32]);
        append(&db, &key, 5).expect("append");
        append(&db, &key, 9).expect("append");
        std::fs::OpenOptions::new()
            .append(true)
            .open(path_of(&db))
            .and_then(|mut f| f.write_all(b"0707"))
            .expect("torn");
        assert_eq!(
            take(&db).expect("take"),
            vec![(key.hex(), 5), (key.hex(), 9)]
        );
        assert!(!path_of(&db).exists());
        assert_eq!(take(&db).expect("again"), vec![]);
    }
}
