//! Structured log lines: one JSON object per line (Python's JSON
//! formatters, structlog, pino and bunyan, PostgreSQL's `jsonlog`, Go's
//! `slog.JSONHandler`) or logfmt pairs (`time=… level=error msg="…"`, Go's
//! `slog.TextHandler`, logrus). Such a line is an event when it names its
//! level and its message; its template is the message alone, so that two
//! records differing only in their other fields (ids, durations, hosts)
//! count as one statement.
//!
//! Read with a hand-written scanner over the top level of the line: a
//! JSON-lines log of 100 MB passes here once per line, and a
//! `serde_json::Value` per record would cost more than the rest of the
//! log reader together.

use super::shape::Level;

/// What a structured line says about itself, as byte ranges of the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fields {
    pub level: Level,
    /// The message's value (inside its quotes when quoted).
    pub message: (usize, usize),
    /// The time's value, when the line has one.
    pub stamp: Option<(usize, usize)>,
}

/// The key names a level goes by (compared without case).
const LEVEL_KEYS: [&[u8]; 7] = [
    b"level",
    b"lvl",
    b"levelname",
    b"loglevel",
    b"log_level",
    b"severity",
    b"error_severity",
];
const MESSAGE_KEYS: [&[u8]; 4] = [b"msg", b"message", b"event", b"@m"];
const TIME_KEYS: [&[u8]; 7] = [
    b"time",
    b"timestamp",
    b"ts",
    b"@timestamp",
    b"t",
    b"asctime",
    b"datetime",
];

fn is_key(keys: &[&[u8]], key: &[u8]) -> bool {
    keys.iter().any(|k| k.eq_ignore_ascii_case(key))
}

/// A JSON object on one line with a level and a message at its top level.
pub fn json(line: &[u8]) -> Option<Fields> {
    let line = line.trim_ascii_end();
    if line.first() != Some(&b'{') || line.last() != Some(&b'}') {
        return None;
    }
    let mut found = Found::default();
    let mut i = skip_ws(line, 1);
    while i < line.len() && line[i] != b'}' {
        let (key_from, key_to) = string(line, i)?;
        i = skip_ws(line, key_to + 1);
        if line.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(line, i + 1);
        let (from, to, quoted) = value(line, i)?;
        let (inner_from, inner_to) = if quoted { (from + 1, to) } else { (from, to + 1) };
        found.pair(&line[key_from + 1..key_to], line, (inner_from, inner_to));
        i = skip_ws(line, to + 1);
        match line.get(i) {
            Some(b',') => i = skip_ws(line, i + 1),
            Some(b'}') => break,
            _ => return None,
        }
    }
    found.fields()
}

/// logfmt pairs with a level and a message, the first pair a time or a
/// level (`time=2026-12-01T10:00:00Z level=ERROR msg="boom" err=…`).
pub fn logfmt(line: &[u8]) -> Option<Fields> {
    let line = line.trim_ascii_end();
    let first = line.iter().position(|&b| b == b'=')?;
    let opens = &line[..first];
    if !is_key(&TIME_KEYS, opens) && !is_key(&LEVEL_KEYS, opens) {
        return None;
    }
    let mut found = Found::default();
    let mut i = 0;
    while i < line.len() {
        let key_to = i + line[i..].iter().position(|&b| b == b'=' || b == b' ')?;
        if line[key_to] != b'=' || key_to == i {
            return None;
        }
        let key = &line[i..key_to];
        let at = key_to + 1;
        let (from, to, next) = if line.get(at) == Some(&b'"') {
            let (_, close) = string(line, at)?;
            (at + 1, close, close + 1)
        } else {
            let end = line[at..]
                .iter()
                .position(|&b| b == b' ')
                .map_or(line.len(), |p| at + p);
            (at, end, end)
        };
        found.pair(key, line, (from, to));
        i = next;
        while line.get(i) == Some(&b' ') {
            i += 1;
        }
    }
    found.fields()
}

#[derive(Default)]
struct Found {
    level: Option<Level>,
    message: Option<(usize, usize)>,
    stamp: Option<(usize, usize)>,
}

impl Found {
    /// Notes one top-level pair; the first of each kind wins.
    fn pair(&mut self, key: &[u8], line: &[u8], (from, to): (usize, usize)) {
        let v = &line[from..to];
        if self.level.is_none() && is_key(&LEVEL_KEYS, key) {
            self.level = Level::parse(v).or_else(|| numeric_level(v));
        } else if self.message.is_none() && is_key(&MESSAGE_KEYS, key) {
            self.message = Some((from, to));
        } else if self.stamp.is_none() && is_key(&TIME_KEYS, key) && !v.is_empty() {
            self.stamp = Some((from, to));
        }
    }

    fn fields(self) -> Option<Fields> {
        Some(Fields {
            level: self.level?,
            message: self.message?,
            stamp: self.stamp,
        })
    }
}

/// A quoted value's text without its escapes (`\"` → `"`, `\\` → `\`,
/// `\n`, `\t`, `\r` → a space), written into `out` (cleared first): the
/// template of `relation \"x\" does not exist` is then the text log's
/// `relation "<*>" does not exist`. Other escapes (`\u00e9`) stay as
/// written.
pub fn unescape_into(value: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    while i < value.len() {
        if value[i] == b'\\' && i + 1 < value.len() {
            match value[i + 1] {
                b'"' | b'\\' | b'/' => out.push(value[i + 1]),
                b'n' | b't' | b'r' => out.push(b' '),
                _ => {
                    out.extend_from_slice(&value[i..i + 2]);
                }
            }
            i += 2;
            continue;
        }
        out.push(value[i]);
        i += 1;
    }
}

/// pino's and bunyan's numbers: 10 trace … 60 fatal.
fn numeric_level(v: &[u8]) -> Option<Level> {
    Some(match v {
        b"10" => Level::Trace,
        b"20" => Level::Debug,
        b"30" => Level::Info,
        b"40" => Level::Warning,
        b"50" => Level::Error,
        b"60" => Level::Fatal,
        _ => return None,
    })
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while s.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// A JSON string opening at `at`: its quotes' positions.
fn string(s: &[u8], at: usize) -> Option<(usize, usize)> {
    if s.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 2,
            b'"' => return Some((at, i)),
            _ => i += 1,
        }
    }
    None
}

/// A JSON value opening at `at`: its first and last byte, and whether it
/// is a string. Objects and arrays are skipped whole, strings in them
/// respected.
fn value(s: &[u8], at: usize) -> Option<(usize, usize, bool)> {
    match *s.get(at)? {
        b'"' => string(s, at).map(|(a, b)| (a, b, true)),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < s.len() {
                match s[i] {
                    b'"' => i = string(s, i)?.1,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some((at, i, false));
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let end = s[at..]
                .iter()
                .position(|&b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                .map_or(s.len(), |p| at + p);
            (end > at).then_some((at, end - 1, false))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &str, (a, b): (usize, usize)) -> &str {
        &line[a..b]
    }

    #[test]
    fn a_python_json_record_is_read_by_its_top_level_keys() {
        let l = r#"{"time": "2026-11-30 23:16:21,072", "level": "ERROR", "logger": "shop", "message": "order 7 failed: \"boom\"", "extra": {"level": "INFO", "message": "x"}}"#;
        let f = json(l.as_bytes()).unwrap();
        assert_eq!(f.level, Level::Error);
        assert_eq!(text(l, f.message), r#"order 7 failed: \"boom\""#);
        assert_eq!(text(l, f.stamp.unwrap()), "2026-11-30 23:16:21,072");
    }

    #[test]
    fn pino_numbers_are_levels() {
        let l = r#"{"level":50,"time":1764633600000,"pid":1,"msg":"db down"}"#;
        let f = json(l.as_bytes()).unwrap();
        assert_eq!(f.level, Level::Error);
        assert_eq!(text(l, f.stamp.unwrap()), "1764633600000");
        assert_eq!(text(l, f.message), "db down");
    }

    #[test]
    fn a_record_without_a_level_or_a_message_is_data() {
        assert!(json(br#"{"id":1,"status":"failed","msg":"x"}"#).is_none());
        assert!(json(br#"{"level":"error","status":"failed"}"#).is_none());
        assert!(json(br#"{"level":"error","msg":"cut"#).is_none());
        assert!(json(b"{").is_none());
    }

    #[test]
    fn logfmt_pairs_are_read_with_quoted_values() {
        let l = r#"time=2026-12-01T10:00:00.000Z level=ERROR msg="payment failed" order=7 err="card \"declined\"""#;
        let f = logfmt(l.as_bytes()).unwrap();
        assert_eq!(f.level, Level::Error);
        assert_eq!(text(l, f.message), "payment failed");
        assert_eq!(text(l, f.stamp.unwrap()), "2026-12-01T10:00:00.000Z");
    }

    #[test]
    fn escapes_are_read_back() {
        let mut out = Vec::new();
        unescape_into(br#"relation \"x\" at C:\\tmp\nnext \u00e9"#, &mut out);
        assert_eq!(out, br#"relation "x" at C:\tmp next \u00e9"#);
    }

    #[test]
    fn prose_with_an_equals_sign_is_not_logfmt() {
        assert!(logfmt(b"x = 1").is_none());
        assert!(logfmt(b"level=info but no message here").is_none());
        assert!(logfmt(b"CFLAGS=-O2 make all").is_none());
        assert!(logfmt(b"time=now level=info msg=\"open").is_none());
    }
}
