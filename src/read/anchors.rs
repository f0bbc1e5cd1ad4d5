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

/// Lines named as where an anchored content went, at most.
const MOVED_SHOWN: usize = 5;

/// Each anchor checked against the file's current lines.
pub fn verify(lines: &[&[u8]], anchors: &[Anchor]) -> Vec<(Anchor, Drift)> {
    let mut check = Check::new(anchors);
    for line in lines {
        check.line(&hash(line));
    }
    check.report()
}

/// Each anchor checked against the lines `reader` holds, read in chunks:
/// memory is the anchors' and one chunk's, whatever the file's size or
/// the length of its lines.
pub fn verify_stream(
    mut reader: impl std::io::Read,
    anchors: &[Anchor],
) -> std::io::Result<Vec<(Anchor, Drift)>> {
    let mut check = Check::new(anchors);
    let mut hasher = blake3::Hasher::new();
    // A `\r` is held back until the next byte says whether it ends the
    // line (`\r\n`, left out of the hash as `hash` leaves it out).
    let (mut in_line, mut held_cr) = (false, false);
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let mut rest = &chunk[..n];
        while !rest.is_empty() {
            in_line = true;
            let end = rest.iter().position(|&b| b == b'\n');
            let body = &rest[..end.unwrap_or(rest.len())];
            if held_cr && (!body.is_empty() || end.is_none()) {
                hasher.update(b"\r");
            }
            held_cr = false;
            let body = match body.strip_suffix(b"\r") {
                Some(b) => {
                    held_cr = true;
                    b
                }
                None => body,
            };
            hasher.update(body);
            let Some(end) = end else { break };
            held_cr = false;
            check.line(&short(&hasher));
            hasher.reset();
            in_line = false;
            rest = &rest[end + 1..];
        }
    }
    if in_line {
        check.line(&short(&hasher));
    }
    Ok(check.report())
}

fn short(hasher: &blake3::Hasher) -> String {
    hasher.finalize().to_hex()[..HASH_HEX].to_string()
}

/// What the lines seen so far say of each anchor: the hash now at its
/// line, and the first lines that hold its content.
struct Check<'a> {
    anchors: &'a [Anchor],
    now: Vec<Option<String>>,
    moved: Vec<Vec<usize>>,
    lines: usize,
}

impl<'a> Check<'a> {
    fn new(anchors: &'a [Anchor]) -> Self {
        Check {
            anchors,
            now: vec![None; anchors.len()],
            moved: vec![Vec::new(); anchors.len()],
            lines: 0,
        }
    }

    fn line(&mut self, h: &str) {
        self.lines += 1;
        for (i, a) in self.anchors.iter().enumerate() {
            if a.line == self.lines {
                self.now[i] = Some(h.to_string());
            }
            if a.hash == h && self.moved[i].len() < MOVED_SHOWN {
                self.moved[i].push(self.lines);
            }
        }
    }

    fn report(self) -> Vec<(Anchor, Drift)> {
        let lines = self.lines;
        self.anchors
            .iter()
            .zip(self.now)
            .zip(self.moved)
            .map(|((a, now), moved_to)| {
                let drift = match now {
                    Some(now) if now == a.hash => Drift::Unchanged,
                    Some(now) => Drift::Changed { now, moved_to },
                    None => Drift::Gone { lines, moved_to },
                };
                (a.clone(), drift)
            })
            .collect()
    }
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

    /// The streamed check says what the whole-file check says, whatever
    /// the chunk boundaries (one byte at a time here) and line endings.
    #[test]
    fn streamed_as_whole() {
        struct Trickle<'a>(&'a [u8]);
        impl std::io::Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let Some((&b, rest)) = self.0.split_first() else {
                    return Ok(0);
                };
                buf[0] = b;
                self.0 = rest;
                Ok(1)
            }
        }
        let texts: [&[u8]; 7] = [
            b"",
            b"a\nb\nc\n",
            b"a\r\nb\r\nc",
            b"x\ra\n\r\n\r",
            b"\n\n\n",
            b"a\r\r\nb\n",
            b"a\nb\na\nb\na\nb\na\nb\na\nb\na\nb\n",
        ];
        for text in texts {
            let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
            let anchors: Vec<Anchor> = [(1, "a"), (2, "b"), (3, "c"), (9, "a"), (2, "")]
                .iter()
                .map(|&(line, content)| Anchor {
                    line,
                    hash: hash(content.as_bytes()),
                })
                .collect();
            let whole = verify(&lines, &anchors);
            let streamed = verify_stream(Trickle(text), &anchors).unwrap();
            assert_eq!(whole, streamed, "{:?}", String::from_utf8_lossy(text));
            let chunked = verify_stream(text, &anchors).unwrap();
            assert_eq!(whole, chunked, "{:?}", String::from_utf8_lossy(text));
        }
    }
}
