//! The content address of a record: blake3 of its canonical encoding
//! (see `record.rs`), shown as 12 hex; any unique prefix of 6+ resolves.

use std::fmt;

/// How many hex digits a key is shown with.
pub const SHORT_HEX: usize = 12;

/// The shortest prefix a reader may type: shorter ones collide too often
/// to be worth resolving.
pub const MIN_PREFIX: usize = 6;

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

    /// Parses the full 64-hex form (as the store keeps it).
    pub fn from_hex(hex: &str) -> Option<ArchiveKey> {
        if hex.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, pair) in hex.as_bytes().chunks(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16)?;
            let lo = (pair[1] as char).to_digit(16)?;
            out[i] = (hi * 16 + lo) as u8;
        }
        Some(ArchiveKey(out))
    }
}

/// A hash as a reader typed it, checked and lowercased: 6 to 64 hex digits.
pub fn parse_prefix(typed: &str) -> Result<String, String> {
    let p = typed.trim().to_ascii_lowercase();
    if p.len() < MIN_PREFIX || p.len() > 64 {
        return Err(format!(
            "`{typed}` is not a record hash: give {MIN_PREFIX} to 64 hex digits"
        ));
    }
    if !p.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`{typed}` is not a record hash: only 0-9 and a-f"));
    }
    Ok(p)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        let k = ArchiveKey(*blake3::hash(b"x").as_bytes());
        assert_eq!(ArchiveKey::from_hex(&k.hex()), Some(k));
        assert_eq!(k.short().len(), SHORT_HEX);
        assert_eq!(ArchiveKey::from_hex("zz"), None);
        assert_eq!(ArchiveKey::from_hex(&"g".repeat(64)), None);
    }

    #[test]
    fn prefixes() {
        assert_eq!(parse_prefix("ABCDEF").as_deref(), Ok("abcdef"));
        assert!(parse_prefix("abcde").is_err());
        assert!(parse_prefix("abcdeg").is_err());
        assert!(parse_prefix(&"a".repeat(65)).is_err());
    }
}
