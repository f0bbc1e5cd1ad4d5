//! Opening a store for a read (`ctx expand`, `ctx store stats`, the
//! archive lookups of `ctx gain`): nothing on disk may change.
//!
//! A read-write connection that only reads still writes: the first
//! connection to a WAL database truncates and rebuilds the `-shm` file,
//! every reader stores its read mark there, and the record's last use
//! used to be refreshed with an `UPDATE` (WAL pages, an autocheckpoint,
//! three fsyncs: half of what `expand --lines` cost). So a read opens
//! `mode=ro&readonly_shm=1`: SQLite then maps the `-shm` read-only when a
//! writer has it open, and when none has, builds the WAL index in its own
//! memory from the WAL file (`walBeginShmUnreliable`, checked against
//! writers that arrive meanwhile), which is what the usual lone opener
//! did anyway. `PRAGMA query_only` makes any write an error as well.
//!
//! Where that cannot work the read takes the writer's open, as every read
//! did before: a store whose side files are missing (restored from a
//! cache), one whose schema is behind (the open migrates it), and a
//! writer's WAL index that has no read mark to share (SQLite answers
//! `SQLITE_READONLY_CANTINIT`). Any other failure is reported by that
//! open too, so the messages stay the writer's.

use std::cell::{Cell, RefCell};
use std::ffi::OsStr;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::{Access, Options, SCHEMA_VERSION, SqliteStore};
use crate::store::StoreError;

impl SqliteStore {
    /// Opens the existing store at `path` for reading: no byte of the
    /// database or its side files changes. Writes through the result
    /// (`quarantine`, `gc`, …) open a writer of their own; `touch` is
    /// deferred (`touches.rs`).
    pub fn open_to_read(path: &Path, options: Options) -> Result<Self, StoreError> {
        match Self::connect_to_read(path, options) {
            Some(store) => Ok(store),
            None => {
                let mut store = Self::open(path, options)?;
                let _ = store.conn.pragma_update(None, "query_only", true);
                store.access = Access::Read;
                Ok(store)
            }
        }
    }

    /// The default store for a read, or `None` when it was never created
    /// (nothing is created then either).
    pub fn open_existing_to_read() -> Result<Option<Self>, StoreError> {
        let path = Self::default_path()?;
        // Not `exists()`: a planted link (even a dangling one) must be
        // refused by the open, not taken for "no store yet".
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(None);
        }
        let (options, warnings) = Options::from_env();
        let mut store = Self::open_to_read(&path, options)?;
        store.warnings = warnings;
        Ok(Some(store))
    }

    /// The read-only connection, or `None` when the writer's open has to
    /// do (see the module documentation).
    fn connect_to_read(path: &Path, options: Options) -> Option<Self> {
        // SQLite follows a link planted as a side file; refuse those.
        crate::home::check_database(path).ok()?;
        if !side_files_present(path) {
            return None;
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let uri = read_uri(path);
        let conn = Connection::open_with_flags(OsStr::new(&uri), flags).ok()?;
        let version: i64 = (|| {
            conn.busy_timeout(options.busy_timeout)?;
            conn.pragma_update(None, "query_only", true)?;
            conn.query_row("PRAGMA user_version", [], |r| r.get(0))
        })()
        .ok()?;
        if version != SCHEMA_VERSION {
            return None;
        }
        Some(SqliteStore {
            conn,
            path: path.to_path_buf(),
            options,
            warnings: Vec::new(),
            now: Cell::new(None),
            access: Access::Read,
            touched: RefCell::new(Vec::new()),
        })
    }

    /// For a write through a store opened to read: a writer's connection
    /// of its own (`None` when this one is a writer already).
    pub(super) fn writer_for(&self) -> Result<Option<SqliteStore>, StoreError> {
        if self.access == Access::Write {
            return Ok(None);
        }
        let store = Self::open(&self.path, self.options)?;
        store.now.set(self.now.get());
        Ok(Some(store))
    }

    /// Whether this store was opened to read.
    pub fn is_read_only(&self) -> bool {
        self.access == Access::Read
    }
}

/// Both WAL side files: without them a read-only connection cannot read
/// a WAL database (and could not create them).
fn side_files_present(path: &Path) -> bool {
    ["-wal", "-shm"].iter().all(|suffix| {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        std::fs::symlink_metadata(side).is_ok_and(|m| m.is_file())
    })
}

/// `file:` URI of `path` for a read that changes nothing.
fn read_uri(path: &Path) -> String {
    let mut uri = super::read_only::file_uri(path);
    uri.push_str("?mode=ro&readonly_shm=1");
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uri_asks_for_a_read_only_shm() {
        assert_eq!(
            read_uri(Path::new("/a b/store.db")),
            "file:/a%20b/store.db?mode=ro&readonly_shm=1"
        );
    }
}
