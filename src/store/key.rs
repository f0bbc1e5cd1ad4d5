//! The content address of a record: blake3 of its canonical encoding.

use std::fmt;

/// How many hex digits a key is shown with.
pub const SHORT_HEX: usize = 12;

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArchiveKey(pub [u8; 32]);

impl ArchiveKey {
    pub fn hex(&self) -> String {
        let mut s = String::with_capacity(64);
        for b in self.0 {
            s.push_str(&format!("{b:02x}"));
        }
        s
    }

    /// The 12-hex form printed in digests.
    pub fn short(&self) -> String {
        let mut h = self.hex();
        h.truncate(SHORT_HEX);
        h
    }
}

impl fmt::Debug for ArchiveKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ArchiveKey({})", self.short())
    }
}

impl fmt::Display for ArchiveKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short())
    }
}
