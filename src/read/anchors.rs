//! Anchored lines: each line's number and a short hash of its content, so
//! an edit can address a line and notice when the line it addresses has
//! changed under it (`ctx read PATH --verify 12:3fa1`).

use super::error::ReadError;

/// Hex digits of a line's hash: 16 bits, so one unrelated edit in 65,536
/// goes unnoticed on the line it hits; enough to catch drift between two
/// reads, short enough to cost two tokens a line.
pub const HASH_HEX: usize = 4;

/// The short hash of a line's content (without its newline).
pub fn hash(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    blake3::hash(line).to_hex()[..HASH_HEX].to_string()
}

/// `12:3fa1` as given to `--verify`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    pub line: usize,
    pub hash: String,
}

impl std::str::FromStr for Anchor {
    type Err = ReadError;

    fn from_str(s: &str) -> Result<Anchor, ReadError> {
        let bad = || ReadError::Anchor(s.to_string());
        let (line, hash) = s.trim().split_once(':').ok_or_else(bad)?;
        let line: usize = line.parse().map_err(|_| bad())?;
        let hash = hash.split('|').next().unwrap_or("").to_ascii_lowercase();
        if line == 0 || hash.len() != HASH_HEX || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        Ok(Anchor { line, hash })
    }
}

/// What became of one anchored line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    Unchanged,
    /// The line now holds other content (its new hash); `moved_to` names
    /// the lines that now hold the anchored content, if any do.
    Changed {
        now: String,
        moved_to: Vec<usize>,
    },
    /// The file has fewer lines than the anchor's number.
    Gone {
        lines: usize,
        moved_to: Vec<usize>,
    },
}

/// Each anchor checked against the file's current lines.
pub fn verify(lines: &[&[u8]], anchors: &[Anchor]) -> Vec<(Anchor, Drift)> {
    let hashes: Vec<String> = lines.iter().map(|l| hash(l)).collect();
    let moved = |h: &str| -> Vec<usize> {
        hashes
            .iter()
            .enumerate()
            .filter(|(_, x)| x.as_str() == h)
            .map(|(i, _)| i + 1)
            .take(5)
            .collect()
    };
    anchors
        .iter()
        .map(|a| {
            let drift = match hashes.get(a.line - 1) {
                Some(now) if *now == a.hash => Drift::Unchanged,
                Some(now) => Drift::Changed {
                    now: now.clone(),
                    moved_to: moved(&a.hash),
                },
                None => Drift::Gone {
                    lines: lines.len(),
                    moved_to: moved(&a.hash),
                },
            };
            (a.clone(), drift)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_parse_as_printed() {
        let a: Anchor = "12:3FA1".parse().unwrap();
        assert_eq!((a.line, a.hash.as_str()), (12, "3fa1"));
        // The whole anchored prefix, as copied from a view, also parses.
        assert_eq!("3:00ff|".parse::<Anchor>().unwrap().line, 3);
        for bad in ["12", "0:abcd", "x:abcd", "3:abc", "3:zzzz"] {
            assert!(bad.parse::<Anchor>().is_err(), "{bad}");
        }
    }

    #[test]
    fn drift_is_named_with_where_the_line_went() {
        let before: Vec<&[u8]> = vec![b"a\n", b"b\n", b"c\n"];
        let anchors: Vec<Anchor> = (1..=3)
            .map(|n| Anchor {
                line: n,
                hash: hash(before[n - 1]),
            })
            .collect();
        let after: Vec<&[u8]> = vec![b"new\n", b"a\n", b"b\n"];
        let report = verify(&after, &anchors);
        assert!(matches!(&report[0].1, Drift::Changed { moved_to, .. } if moved_to == &vec![2]));
        assert!(matches!(&report[2].1, Drift::Changed { moved_to, .. } if moved_to.is_empty()));
        let same = verify(&before, &anchors);
        assert!(same.iter().all(|(_, d)| *d == Drift::Unchanged));
        let short: Vec<&[u8]> = vec![b"a\n"];
        assert!(matches!(
            verify(&short, &anchors)[2].1,
            Drift::Gone { lines: 1, .. }
        ));
    }
}
