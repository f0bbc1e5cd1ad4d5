//! Line templates: a log line with its variable parts abstracted, so that
//! 40,000 requests or retries read as the few statements that wrote them.
//!
//! A word (a run of letters, digits and `_ . : / - +`) that holds a digit
//! becomes `<*>`: timestamps, numbers, ids, IP addresses, ports, paths with
//! ids in them. So does a word of eight or more hex digits (a hash, an
//! address). A double-quoted string becomes `"<*>"`, and a single-quoted
//! one when the quote opens after a non-letter and closes before one
//! (`'users'`, never the apostrophe of `can't`). Everything else is kept,
//! so a template changes only when the statement that wrote the line does:
//! the same log with other timestamps has the same templates.

use rustc_hash::FxHashMap as HashMap;

/// The placeholder of an abstracted part.
pub const HOLE: &[u8] = b"<*>";

/// How many distinct templates a log keeps apart; the lines of any further
/// template are counted together (`others`), so memory stays bounded
/// whatever the log holds.
pub const MAX_TEMPLATES: usize = 4096;

/// The template of `line`, written into `out` (cleared first).
pub fn abstract_into(line: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if b == b'"' {
            if let Some(end) = closing(line, i + 1, b'"') {
                out.push(b'"');
                out.extend_from_slice(HOLE);
                out.push(b'"');
                i = end + 1;
                continue;
            }
        } else if b == b'\''
            && (i == 0 || !line[i - 1].is_ascii_alphanumeric())
            && let Some(end) = closing(line, i + 1, b'\'')
            && line.get(end + 1).is_none_or(|c| !c.is_ascii_alphanumeric())
        {
            out.extend_from_slice(b"'<*>'");
            i = end + 1;
            continue;
        }
        if CLASS[b as usize] & WORD != 0 {
            let start = i;
            // One table lookup per byte: every line of a log passes here.
            let mut any = 0u8;
            let mut all = HEX;
            while i < line.len() && CLASS[line[i] as usize] & WORD != 0 {
                let c = CLASS[line[i] as usize];
                any |= c;
                all &= c;
                i += 1;
            }
            let digit = any & DIGIT != 0;
            let hex = all & HEX != 0;
            let word = &line[start..i];
            if digit || (hex && i - start >= 8) || is_calendar(word) {
                out.extend_from_slice(HOLE);
            } else {
                out.extend_from_slice(&line[start..i]);
            }
            continue;
        }
        // Runs of blanks read as one space: alignment padding is not part
        // of the statement.
        if b == b' ' || b == b'\t' {
            while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
                i += 1;
            }
            out.push(b' ');
            continue;
        }
        out.push(b);
        i += 1;
    }
}

/// Month and weekday abbreviations (`Nov 30 23:10:01`, `Mon Nov 30`):
/// parts of a timestamp, which must not split a template when the date
/// changes.
fn is_calendar(word: &[u8]) -> bool {
    const NAMES: [&[u8]; 19] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec", b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun",
    ];
    word.len() == 3 && NAMES.contains(&word)
}

/// A byte of a word: letters, digits and `_ . : / - +`.
const WORD: u8 = 1;
/// An ASCII digit.
const DIGIT: u8 = 2;
/// A hex digit.
const HEX: u8 = 4;

/// The classes of every byte, built at compile time.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let word = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'/' | b'-' | b'+');
        if word {
            t[b] |= WORD;
        }
        if c.is_ascii_digit() {
            t[b] |= DIGIT;
        }
        if c.is_ascii_hexdigit() {
            t[b] |= HEX;
        }
        b += 1;
    }
    t
};

/// The index of the quote that closes one opened before `from`, skipping
/// backslash-escaped quotes.
fn closing(line: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut i = from;
    while i < line.len() {
        match line[i] {
            b'\\' => i += 2,
            b if b == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// One template with its exact count and first and last line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    pub text: String,
    pub count: u64,
    pub first: usize,
    pub last: usize,
    /// Some line of it was logged at warning level.
    pub warning: bool,
}

/// Templates in order of first occurrence, bounded by [`MAX_TEMPLATES`].
#[derive(Default)]
pub struct Clusters {
    index: HashMap<Vec<u8>, usize>,
    pub list: Vec<Cluster>,
    /// Lines whose template came after the table was full.
    pub others: u64,
    scratch: Vec<u8>,
}

impl Clusters {
    /// Counts line `n` (logged at warning level when `warning`); its
    /// template's index, when it has a place.
    pub fn add(&mut self, n: usize, line: &[u8], warning: bool) -> Option<usize> {
        abstract_into(line, &mut self.scratch);
        if let Some(&at) = self.index.get(self.scratch.as_slice()) {
            let c = &mut self.list[at];
            c.count += 1;
            c.last = n;
            c.warning |= warning;
            return Some(at);
        }
        if self.list.len() >= MAX_TEMPLATES {
            self.others += 1;
            return None;
        }
        let at = self.list.len();
        self.list.push(Cluster {
            text: String::from_utf8_lossy(&self.scratch).into_owned(),
            count: 1,
            first: n,
            last: n,
            warning,
        });
        self.index.insert(self.scratch.clone(), at);
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(line: &str) -> String {
        let mut out = Vec::new();
        abstract_into(line.as_bytes(), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn variable_parts_are_abstracted() {
        assert_eq!(
            t(
                r#"127.0.0.1 - - [30/Nov/2026:23:10:01 +0000] "GET /a HTTP/1.1" 404 153 "-" "curl/7.88.1""#
            ),
            r#"<*> - - [<*> <*>] "<*>" <*> <*> "<*>" "<*>""#
        );
        assert_eq!(
            t("2026-11-30 23:10:01.123 UTC [4242] ERROR:  relation \"nope\" does not exist"),
            "<*> <*> UTC [<*>] ERROR: relation \"<*>\" does not exist"
        );
        assert_eq!(t("KeyError: 'user_id' can't"), "KeyError: '<*>' can't");
        assert_eq!(t("hash deadbeefcafe ok"), "hash <*> ok");
        assert_eq!(t("level=info msg=done"), "level=info msg=done");
    }

    #[test]
    fn only_timestamps_changing_keeps_the_template() {
        assert_eq!(
            t("Nov 30 23:10:01 host sshd[12]: Accepted key"),
            t("Dec  1 04:59:59 host sshd[977]: Accepted key")
        );
    }

    #[test]
    fn clusters_count_exactly_and_stay_bounded() {
        let mut c = Clusters::default();
        for n in 1..=10 {
            c.add(n, format!("tick {n}").as_bytes(), n == 4);
        }
        c.add(11, b"other", false);
        assert_eq!(c.list[0].count, 10);
        assert_eq!((c.list[0].first, c.list[0].last), (1, 10));
        assert_eq!(c.list[1].count, 1);
        // A template is a warning's when any of its lines was.
        assert!(c.list[0].warning && !c.list[1].warning);
        let mut c = Clusters::default();
        for n in 0..MAX_TEMPLATES + 5 {
            c.add(
                n + 1,
                format!("word{} x", "a".repeat(n % 50 + 1) + &"b".repeat(n / 50)).as_bytes(),
                false,
            );
        }
        assert_eq!(c.list.len(), MAX_TEMPLATES);
        assert_eq!(c.others, 5);
    }
}
