//! Moving an archive between backends (`ctx store copy`): every record of
//! one store written into another under the same key.
//!
//! Each record is read whole and verified on the way (`Store::load` checks
//! every chunk; the key the destination computes must equal the source's),
//! so a damaged record is reported and skipped, never copied. Records the
//! destination already holds are left as they are. Ages restart at the
//! copy: the destination's clock says when it first held the record,
//! which only ever makes retention keep a record longer.

use super::{ArchiveKey, Store, StoreError};

/// What a copy did.
#[derive(Debug, Default)]
pub struct CopyReport {
    pub copied: u64,
    pub copied_bytes: u64,
    /// Records the destination already had.
    pub present: u64,
    /// Records that could not be copied, with the reason.
    pub failed: Vec<(ArchiveKey, String)>,
}

/// Copies every record of `from` missing in `to`. Fails only when the
/// source cannot be listed; a record that fails is reported and the copy
/// goes on.
pub fn copy(from: &dyn Store, to: &dyn Store) -> Result<CopyReport, StoreError> {
    let mut report = CopyReport::default();
    for key in from.keys()? {
        match to.meta(&key) {
            Ok(_) => {
                report.present += 1;
                continue;
            }
            Err(StoreError::NotFound(_)) => {}
            Err(e) => {
                report.failed.push((key, e.to_string()));
                continue;
            }
        }
        let outcome = from.load(&key).and_then(|artifact| {
            let bytes = artifact.bytes().len() as u64;
            to.put(&artifact).map(|written| (written, bytes))
        });
        match outcome {
            Ok((written, bytes)) if written == key => {
                report.copied += 1;
                report.copied_bytes += bytes;
            }
            Ok((written, _)) => report.failed.push((
                key,
                format!("the destination filed it as {}", written.hex()),
            )),
            Err(e) => report.failed.push((key, e.to_string())),
        }
    }
    Ok(report)
}
