//! Sending the outbox (`outbox.rs`) to the shared store: `ctx store
//! sync`, and the next run whose own put reached the server.
//!
//! Each waiting record is read whole from the local store and verified on
//! the way (`Store::load` checks every chunk; the key the server computes
//! must equal the local one), then put: the put is idempotent, so a record
//! the server already has (a sync that raced this one, a server that
//! committed the put the client gave up on) is simply refreshed. Its
//! outbox entry goes only once the server holds it, so nothing is lost if
//! the sync is cut short; a record this machine no longer holds (evicted
//! by local retention) has nothing left to send, and its entry goes too.

use super::outbox::{self, Entry};
use super::{ArchiveKey, Store, StoreError};

/// What a sync did.
#[derive(Debug, Default)]
pub struct SyncReport {
    /// Records the server now holds (sent, or found there already).
    pub sent: u64,
    pub sent_bytes: u64,
    /// Entries dropped: this machine no longer holds the record.
    pub lost: Vec<ArchiveKey>,
    /// Records that stay queued, with the reason.
    pub failed: Vec<(ArchiveKey, String)>,
    /// Entries for other namespaces, left alone.
    pub other_namespaces: u64,
}

/// Sends at most `limit` of the records queued for `namespace` from
/// `local` to `server`. Stops at the first failure that is the server's
/// (unreachable, hung): the rest would only wait for it again.
pub fn sync(
    local: &dyn Store,
    server: &dyn Store,
    namespace: &str,
    limit: Option<usize>,
) -> Result<SyncReport, StoreError> {
    let entries =
        outbox::pending().map_err(|e| StoreError::Unavailable(format!("the outbox: {e}")))?;
    let mut report = SyncReport::default();
    let (mine, others): (Vec<Entry>, Vec<Entry>) =
        entries.into_iter().partition(|e| e.namespace == namespace);
    report.other_namespaces = others.len() as u64;
    for entry in mine.into_iter().take(limit.unwrap_or(usize::MAX)) {
        let key = entry.key;
        let artifact = match local.load(&key) {
            Ok(a) => a,
            Err(StoreError::NotFound(_) | StoreError::Gone { .. }) => {
                report.lost.push(key);
                let _ = outbox::remove(&entry);
                continue;
            }
            Err(e) => {
                report.failed.push((key, e.to_string()));
                continue;
            }
        };
        match server.put(&artifact) {
            Ok(written) if written == key => {
                report.sent += 1;
                report.sent_bytes += artifact.bytes().len() as u64;
                if let Err(e) = outbox::remove(&entry) {
                    report
                        .failed
                        .push((key, format!("sent, but still queued: {e}")));
                }
            }
            Ok(written) => report
                .failed
                .push((key, format!("the server filed it as {}", written.hex()))),
            Err(e @ StoreError::Unavailable(_)) => {
                report.failed.push((key, e.to_string()));
                break;
            }
            Err(e) => report.failed.push((key, e.to_string())),
        }
    }
    Ok(report)
}
