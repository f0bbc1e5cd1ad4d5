//! A large input held in a file, mapped read-only, whose resident pages do
//! not pile up.
//!
//! Every stage reads an artifact as one byte slice, and several of them
//! scan all of it (token estimate, extraction, archive). Mapped file pages
//! that were read once stay mapped, and count in the process's resident
//! size, until they are unmapped: a 500 MB input cost 500 MB of RSS
//! however little the stages kept. So a releaser thread tells the kernel,
//! every `PERIOD` (1 ms), that the pages mapped so far are not needed
//! (`MADV_DONTNEED`). For a shared mapping of a file that nobody writes,
//! that only drops the page-table entries: the next read of a page maps it
//! again from the page cache (a minor fault, or a read from the file if
//! memory was short), with the same bytes. Resident pages are then bounded
//! by what the stages touch in one period.

use std::sync::{Arc, Weak};
use std::time::Duration;

use memmap2::{Mmap, UncheckedAdvice};

/// How often scanned pages are released.
/// Releasing a range that is mostly not mapped costs little (the page
/// tables are walked, nothing is read), so this can be short; a fast scan
/// (UTF-8 validation, memchr) maps hundreds of MB a second, and on a
/// loaded machine the thread wakes late: 5 ms let 500 MB inputs peak at
/// 120–285 MB, 1 ms keeps them near 90 MB.
const PERIOD: Duration = Duration::from_millis(1);
/// Mappings smaller than this are left alone: they cost less than the
/// bound the release keeps.
const RELEASE_ABOVE: usize = 32 << 20;

/// A read-only mapping of a file that must not change while it is mapped.
pub struct MappedBytes {
    map: Arc<Mmap>,
}

impl MappedBytes {
    /// Maps `file`.
    ///
    /// # Safety
    /// Nobody may write `file` (or truncate it) while the mapping lives:
    /// the bytes are handed out as `&[u8]`, and released pages are read
    /// back from the file.
    pub unsafe fn map(file: &std::fs::File) -> std::io::Result<MappedBytes> {
        // SAFETY: forwarded to the caller.
        let map = Arc::new(unsafe { Mmap::map(file)? });
        if map.len() > RELEASE_ABOVE {
            let weak = Arc::downgrade(&map);
            // Detached: it ends by itself once the mapping is gone, and a
            // process exit need not wait for its sleep.
            let _ = std::thread::Builder::new()
                .name("ctx-release-pages".into())
                .spawn(move || release_loop(weak));
        }
        Ok(MappedBytes { map })
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.map
    }

    /// Releases the pages of `range` now (a scan that will not come back
    /// there soon); best effort.
    pub fn release(&self, range: std::ops::Range<usize>) {
        if self.map.len() <= RELEASE_ABOVE || range.is_empty() {
            return;
        }
        // SAFETY: as in `release_loop`.
        let _ = unsafe {
            self.map
                .unchecked_advise_range(UncheckedAdvice::DontNeed, range.start, range.len())
        };
    }
}

impl Clone for MappedBytes {
    fn clone(&self) -> Self {
        MappedBytes {
            map: Arc::clone(&self.map),
        }
    }
}

fn release_loop(map: Weak<Mmap>) {
    loop {
        std::thread::sleep(PERIOD);
        // Holding a strong reference while advising keeps the mapping
        // alive until the call returns: the range is never someone else's.
        let Some(map) = map.upgrade() else { return };
        // SAFETY: a shared read-only file mapping of a file nobody writes
        // (`MappedBytes::map`'s contract): after MADV_DONTNEED a read maps
        // the same bytes again from the file, so no borrower sees a change.
        if unsafe { map.unchecked_advise(UncheckedAdvice::DontNeed) }.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn released_pages_read_back_the_same() {
        let mut file = tempfile::tempfile().expect("tempfile");
        let bytes: Vec<u8> = (0..(RELEASE_ABOVE + (1 << 20)) as u32)
            .map(|i| (i % 251) as u8)
            .collect();
        file.write_all(&bytes).expect("write");
        // SAFETY: the test's own unlinked file, written before mapping.
        let mapped = unsafe { MappedBytes::map(&file) }.expect("map");
        let copy = mapped.clone();
        for _ in 0..4 {
            assert!(mapped.as_slice() == &bytes[..]);
            std::thread::sleep(PERIOD * 2);
        }
        drop(mapped);
        assert!(copy.as_slice() == &bytes[..]);
    }
}
