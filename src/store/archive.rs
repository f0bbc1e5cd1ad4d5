//! The archive stage: the original goes into the store before anything is
//! omitted. A failed archive is not an error for the command: the digest
//! simply omits nothing.

use std::cell::{Cell, OnceCell, RefCell};

use crate::artifact::Artifact;
use crate::store::backend::{self, Choice};
use crate::store::outbox::{self, Entry};
use crate::store::postgres::{PgOptions, PgStore};
use crate::store::{self, AnyStore, ArchiveKey, SqliteStore, Store, StoreError};

/// Where the pipeline archives originals.
pub trait Archive {
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError>;

    /// A `[ctx]` line the reader must see with the digest: where the
    /// record went when it is not where the configuration says.
    fn note(&self) -> Option<String> {
        None
    }
}

/// How many waiting records a run that reached the server sends along
/// with its own (`ctx store sync` sends them all): a machine that was cut
/// off for a day must not make its first run after pay for the whole day.
const SENT_PER_RUN: usize = 8;

/// An archive that refuses everything (`--no-archive`, tests of fail-open).
pub struct Disabled(pub String);

impl Archive for Disabled {
    fn put(&self, _artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        Err(StoreError::Unavailable(self.0.clone()))
    }
}

/// A record already stored under this key: `ctx explain` re-reads an
/// archived record through the pipeline, and tests and receipts run it
/// without a store.
pub struct Known(pub ArchiveKey);

impl Archive for Known {
    fn put(&self, _artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        Ok(self.0)
    }
}

/// The default store, opened on the first `put`: a digest that omits
/// nothing (most small outputs) never touches the database at all.
///
/// When the store is a server and the put fails for any reason
/// (unreachable, hung, full, refused), the record goes into this
/// machine's SQLite store and its key into the outbox, and the digest is
/// printed as usual with one note: the raw output in its place would be
/// the costliest outcome for the reader. A later run whose put reaches
/// the server sends what waits (`sync.rs`).
#[derive(Default)]
pub struct Lazy {
    /// The open store, or why it could not be opened (not retried within
    /// one process: a broken store stays broken for this run).
    store: OnceCell<Result<AnyStore, StoreError>>,
    /// This machine's store, once the server did not take a record.
    local: OnceCell<Result<SqliteStore, StoreError>>,
    note: RefCell<Option<String>>,
    /// The outbox was looked at in this run.
    sent_waiting: Cell<bool>,
}

impl Archive for Lazy {
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        // The connection made while the command ran, if any.
        let opened = self
            .store
            .get_or_init(|| store::early::take().unwrap_or_else(store::open_to_archive));
        let (put, server) = match opened {
            Ok(AnyStore::Postgres(p)) => (Store::put(p, artifact), Some(Some(p))),
            Ok(s) => (Store::put(s, artifact), None),
            Err(why) => (
                Err(why.clone()),
                matches!(backend::choice(), Ok(Choice::Postgres(_))).then_some(None),
            ),
        };
        match (put, server) {
            (Ok(key), Some(Some(p))) => {
                self.send_waiting(p);
                Ok(key)
            }
            (Err(why), Some(p)) => self.keep_locally(artifact, why, p),
            (put, _) => put,
        }
    }

    fn note(&self) -> Option<String> {
        self.note.borrow().clone()
    }
}

impl Lazy {
    /// The server did not take the record: this machine keeps it, queued
    /// for the server. Should even that fail, the server's refusal stands
    /// (the run prints its raw output).
    fn keep_locally(
        &self,
        artifact: &Artifact,
        why: StoreError,
        server: Option<&PgStore>,
    ) -> Result<ArchiveKey, StoreError> {
        let Ok(local) = self.local.get_or_init(SqliteStore::open_default) else {
            return Err(why);
        };
        let Ok(key) = Store::put(local, artifact) else {
            return Err(why);
        };
        // Name the server, as a failure to connect already does.
        let why = match (server, why) {
            (Some(p), StoreError::Unavailable(w)) if !w.starts_with(p.location()) => {
                StoreError::Unavailable(format!("{}: {w}", p.location()))
            }
            (_, why) => why,
        };
        let namespace = match server {
            Some(p) => p.options().namespace.clone(),
            None => PgOptions::from_env().0.namespace,
        };
        let queued = outbox::add(&Entry { key, namespace });
        let note = match queued {
            Ok(()) => format!(
                "[ctx] the shared store did not take the record ({why}); it is on this machine \
                 only until the next run that reaches the server, or `ctx store sync`, sends it"
            ),
            Err(e) => format!(
                "[ctx] the shared store did not take the record ({why}); it is on this machine \
                 only (not queued for the server: {e})"
            ),
        };
        *self.note.borrow_mut() = Some(note);
        Ok(key)
    }

    /// After a put that reached the server: the records waiting for it,
    /// a few per run, best effort (what fails stays queued).
    fn send_waiting(&self, server: &PgStore) {
        if self.sent_waiting.replace(true) {
            return;
        }
        let namespace = &server.options().namespace;
        let waiting = outbox::pending()
            .map(|entries| entries.iter().any(|e| &e.namespace == namespace))
            .unwrap_or(false);
        if !waiting {
            return;
        }
        if let Ok(local) = self.local.get_or_init(SqliteStore::open_default) {
            let _ = store::sync::sync(local, server, namespace, Some(SENT_PER_RUN));
        }
    }
}

/// Any store is an archive.
impl Archive for SqliteStore {
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        Store::put(self, artifact)
    }
}

/// The archive the CLI uses: the default store, opened on first use.
pub fn open_default() -> Box<dyn Archive> {
    Box::new(Lazy::default())
}
