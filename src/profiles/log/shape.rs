//! What one log line is: the start of an event (a timestamp or a level at
//! its start, or an access-log request), the start of a stack trace
//! printed without a log prefix, or the continuation of the event above
//! (a traceback frame, a wrapped message, PostgreSQL's `DETAIL:` and
//! `STATEMENT:` lines). Read on raw bytes with hand-written scanners: a
//! 100 MB log passes here once per line, where capturing regexes would
//! cost seconds.

use super::structured;

/// Which log format a line is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// nginx/Apache combined (or common) access log.
    Access,
    /// `2026/11/30 23:10:01 [error] 12#12: …`
    NginxError,
    /// `2026-11-30 23:10:01.123 UTC [4242] ERROR:  …`
    Postgres,
    /// Python `logging`'s default `LEVEL:name:message`.
    Python,
    /// `Nov 30 23:10:01 host program[pid]: …` (syslog, journalctl).
    Syslog,
    /// Any other line that opens with a timestamp or a level.
    Generic,
    /// One JSON object per line with a level and a message.
    Json,
    /// logfmt pairs: `time=… level=… msg="…"`.
    Logfmt,
}

impl Format {
    /// The tool name of the digest header.
    pub fn name(self) -> &'static str {
        match self {
            Format::Access => "access log",
            Format::NginxError => "nginx error log",
            Format::Postgres => "postgresql log",
            Format::Python => "python log",
            Format::Syslog => "syslog",
            Format::Generic => "log",
            Format::Json => "JSON log",
            Format::Logfmt => "logfmt log",
        }
    }
}

/// A severity word as a log wrote it, folded to one spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Panic,
    Fatal,
    Critical,
    Error,
    Warning,
    Notice,
    Info,
    Log,
    Debug,
    Trace,
}

impl Level {
    pub const ALL: [Level; 10] = [
        Level::Panic,
        Level::Fatal,
        Level::Critical,
        Level::Error,
        Level::Warning,
        Level::Notice,
        Level::Info,
        Level::Log,
        Level::Debug,
        Level::Trace,
    ];

    /// The word of the header's count.
    pub fn word(self) -> &'static str {
        match self {
            Level::Panic => "PANIC",
            Level::Fatal => "FATAL",
            Level::Critical => "CRITICAL",
            Level::Error => "ERROR",
            Level::Warning => "WARNING",
            Level::Notice => "NOTICE",
            Level::Info => "INFO",
            Level::Log => "LOG",
            Level::Debug => "DEBUG",
            Level::Trace => "TRACE",
        }
    }

    /// The header's count word (lowercase: the header form admits no other).
    pub fn count_word(self) -> &'static str {
        match self {
            Level::Panic => "panics",
            Level::Fatal => "fatal",
            Level::Critical => "critical",
            Level::Error => "errors",
            Level::Warning => "warnings",
            Level::Notice => "notices",
            Level::Info => "info",
            Level::Log => "log",
            Level::Debug => "debug",
            Level::Trace => "trace",
        }
    }

    /// An event the reader must see whole.
    pub fn is_error(self) -> bool {
        self <= Level::Error
    }

    /// A level word, any case (`ERR`, `warn`, `DEBUG2`, `emerg`).
    pub(super) fn parse(word: &[u8]) -> Option<Level> {
        let mut up = [0u8; 9];
        if word.len() > up.len() || word.is_empty() {
            return None;
        }
        for (u, b) in up.iter_mut().zip(word) {
            *u = b.to_ascii_uppercase();
        }
        Some(match &up[..word.len()] {
            b"PANIC" | b"EMERG" | b"EMERGENCY" | b"ALERT" => Level::Panic,
            b"FATAL" => Level::Fatal,
            b"CRITICAL" | b"CRIT" | b"SEVERE" => Level::Critical,
            b"ERROR" | b"ERR" => Level::Error,
            b"WARNING" | b"WARN" => Level::Warning,
            b"NOTICE" => Level::Notice,
            b"INFO" => Level::Info,
            b"LOG" => Level::Log,
            b"DEBUG" | b"DEBUG1" | b"DEBUG2" | b"DEBUG3" | b"DEBUG4" | b"DEBUG5" => Level::Debug,
            b"TRACE" | b"FINE" | b"FINER" | b"FINEST" => Level::Trace,
            _ => return None,
        })
    }
}

/// PostgreSQL's lines that belong to the message above them.
const POSTGRES_TAILS: [&[u8]; 6] = [
    b"DETAIL:",
    b"HINT:",
    b"STATEMENT:",
    b"CONTEXT:",
    b"QUERY:",
    b"LOCATION:",
];

/// What one line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// An event's first line; `stamp` the byte range of its timestamp,
    /// `message` that of its message when the line names it (a structured
    /// line: the rest of it is fields, not the statement).
    Start {
        format: Format,
        level: Option<Level>,
        stamp: Option<(usize, usize)>,
        message: Option<(usize, usize)>,
    },
    /// A stack trace or crash report that opens without a log prefix.
    Exception,
    /// Part of the event above.
    Continuation,
}

/// How far into a line levels are looked for.
const LEVEL_WINDOW: usize = 160;

pub fn read(line: &[u8]) -> Line {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() {
        return Line::Continuation;
    }
    if line[0] == b' ' || line[0] == b'\t' {
        return Line::Continuation;
    }
    let structured = if line[0] == b'{' {
        structured::json(line).map(|f| (Format::Json, f))
    } else {
        structured::logfmt(line).map(|f| (Format::Logfmt, f))
    };
    if let Some((format, f)) = structured {
        return Line::Start {
            format,
            level: Some(f.level),
            stamp: f.stamp,
            message: Some(f.message),
        };
    }
    if let Some(stamp) = access_stamp(line) {
        return Line::Start {
            format: Format::Access,
            level: None,
            stamp: Some(stamp),
            message: None,
        };
    }
    if let Some(end) = iso_stamp(line) {
        let rest = &line[end..];
        if rest.starts_with(b" [") && line[4] == b'/' {
            return start(Format::NginxError, bracketed_level(rest), (0, end));
        }
        if let Some(level) = postgres_level(rest) {
            return match level {
                None => Line::Continuation,
                Some(l) => start(Format::Postgres, Some(l), (0, end)),
            };
        }
        return start(Format::Generic, level_in(rest), (0, end));
    }
    if let Some(end) = bracketed_iso(line) {
        return start(Format::Generic, level_in(&line[end..]), (0, end));
    }
    if let Some(end) = syslog_stamp(line) {
        return start(Format::Syslog, syslog_level(&line[end..]), (0, end));
    }
    if let Some(level) = python_default(line) {
        return Line::Start {
            format: Format::Python,
            level: Some(level),
            stamp: None,
            message: None,
        };
    }
    if let Some(level) = leading_level(line) {
        return Line::Start {
            format: Format::Generic,
            level: Some(level),
            stamp: None,
            message: None,
        };
    }
    if is_exception(line) {
        return Line::Exception;
    }
    Line::Continuation
}

fn start(format: Format, level: Option<Level>, stamp: (usize, usize)) -> Line {
    Line::Start {
        format,
        level,
        stamp: Some(stamp),
        message: None,
    }
}

fn digits(s: &[u8], at: usize, n: usize) -> bool {
    s.len() >= at + n && s[at..at + n].iter().all(u8::is_ascii_digit)
}

/// `2026-11-30 23:10:01`, `2026/11/30 23:10:01`, `2026-11-30T23:10:01.5Z`,
/// with fraction and zone: the end of the stamp.
fn iso_stamp(s: &[u8]) -> Option<usize> {
    let sep = *s.get(4)?;
    let date = digits(s, 0, 4)
        && (sep == b'-' || sep == b'/')
        && digits(s, 5, 2)
        && s.get(7) == Some(&sep)
        && digits(s, 8, 2);
    let time = matches!(s.get(10), Some(b' ' | b'T'))
        && digits(s, 11, 2)
        && s.get(13) == Some(&b':')
        && digits(s, 14, 2)
        && s.get(16) == Some(&b':')
        && digits(s, 17, 2);
    if !(date && time) {
        return None;
    }
    let mut end = 19;
    if matches!(s.get(end), Some(b'.' | b',')) {
        end += 1;
        while s.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
    }
    match s.get(end) {
        Some(b'Z') => end += 1,
        Some(b'+' | b'-') if digits(s, end + 1, 2) => {
            end += 3;
            if s.get(end) == Some(&b':') {
                end += 1;
            }
            while s.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
        }
        // A zone name: `UTC`, `CET`, `+0000` after a space.
        Some(b' ') => {
            let zone = s[end + 1..]
                .iter()
                .take_while(|b| b.is_ascii_uppercase())
                .count();
            let word = &s[end + 1..end + 1 + zone];
            if (2..=5).contains(&zone)
                && s.get(end + 1 + zone) == Some(&b' ')
                && Level::parse(word).is_none()
            {
                end += 1 + zone;
            }
        }
        _ => {}
    }
    Some(end)
}

/// `[2026-11-30 23:10:01,123] …`: the end of the closing bracket.
fn bracketed_iso(s: &[u8]) -> Option<usize> {
    if s.first() != Some(&b'[') {
        return None;
    }
    let end = 1 + iso_stamp(&s[1..])?;
    let close = s[end..].iter().take(8).position(|&b| b == b']')?;
    Some(end + close + 1)
}

/// `Nov 30 23:10:01 ` or `Dec  1 04:00:00 `: the end of the stamp.
fn syslog_stamp(s: &[u8]) -> Option<usize> {
    if s.len() <= 16 {
        return None;
    }
    let month = s[0].is_ascii_uppercase()
        && s[1].is_ascii_lowercase()
        && s[2].is_ascii_lowercase()
        && s[3] == b' ';
    let day = (s.get(4) == Some(&b' ') || digits(s, 4, 1)) && digits(s, 5, 1) && s[6] == b' ';
    let time = digits(s, 7, 2)
        && s[9] == b':'
        && digits(s, 10, 2)
        && s[12] == b':'
        && digits(s, 13, 2)
        && s[15] == b' ';
    (month && day && time).then_some(15)
}

/// `HOST IDENT USER [dd/Mon/yyyy:HH:MM:SS +zone] "`: the stamp's range
/// (inside the brackets).
fn access_stamp(s: &[u8]) -> Option<(usize, usize)> {
    let open = memchr::memchr(b'[', &s[..s.len().min(300)])?;
    // Three fields before the bracket, the first of them the client.
    let fields = s[..open].split(|&b| b == b' ').filter(|f| !f.is_empty());
    if fields.count() != 3 || !s[0].is_ascii_alphanumeric() && s[0] != b':' {
        return None;
    }
    let t = &s[open + 1..];
    let stamp = digits(t, 0, 2)
        && t.get(2) == Some(&b'/')
        && t.get(6) == Some(&b'/')
        && digits(t, 7, 4)
        && t.get(11) == Some(&b':');
    let close = open + 1 + memchr::memchr(b']', t)?;
    (stamp && s[close + 1..].starts_with(b" \"")).then_some((open + 1, close))
}

/// ` [error] 12#12: …` → error.
fn bracketed_level(rest: &[u8]) -> Option<Level> {
    let inner = rest.get(2..)?;
    let close = memchr::memchr(b']', &inner[..inner.len().min(12)])?;
    Level::parse(&inner[..close])
}

/// After a PostgreSQL stamp: ` [4242] ERROR:  …` (with `%m [%p] ` as the
/// line prefix, Debian's default). `Some(None)` for a DETAIL/STATEMENT
/// line, which belongs to the message above.
fn postgres_level(rest: &[u8]) -> Option<Option<Level>> {
    let rest = rest.strip_prefix(b" [")?;
    let close = memchr::memchr(b']', &rest[..rest.len().min(12)])?;
    if !rest[..close].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let msg = rest[close + 1..].trim_ascii_start();
    // A session prefix (`user@db `) may come before the level.
    let msg = match msg.iter().position(|&b| b == b' ') {
        Some(sp) if msg[..sp].contains(&b'@') => msg[sp + 1..].trim_ascii_start(),
        _ => msg,
    };
    if POSTGRES_TAILS.iter().any(|t| msg.starts_with(t)) {
        return Some(None);
    }
    let colon = memchr::memchr(b':', &msg[..msg.len().min(10)])?;
    Level::parse(&msg[..colon]).map(Some)
}

/// `ERROR:root:message`, `WARNING:app.db:…`.
fn python_default(s: &[u8]) -> Option<Level> {
    let colon = memchr::memchr(b':', &s[..s.len().min(10)])?;
    let level = Level::parse(&s[..colon])?;
    let word = &s[..colon];
    let upper = word.iter().all(u8::is_ascii_uppercase);
    let named = s[colon + 1..]
        .iter()
        .take_while(|&&b| b != b':')
        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    (upper && named && s[colon + 1..].contains(&b':')).then_some(level)
}

/// `ERROR something`, `[WARN] x`, `INFO  x`: an uppercase level first.
fn leading_level(s: &[u8]) -> Option<Level> {
    let s = s.strip_prefix(b"[").unwrap_or(s);
    let end = s.iter().position(|b| !b.is_ascii_uppercase())?;
    if !matches!(s[end], b' ' | b']' | b':') {
        return None;
    }
    Level::parse(&s[..end])
}

/// The first level word in the window after a stamp: uppercase and
/// standing alone (`ERROR`, `[WARN]`, `<INFO>`), or lowercase in brackets
/// or after `level=`.
fn level_in(rest: &[u8]) -> Option<Level> {
    let w = &rest[..rest.len().min(LEVEL_WINDOW)];
    let mut i = 0;
    while i < w.len() {
        if !w[i].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        while i < w.len() && w[i].is_ascii_alphanumeric() {
            i += 1;
        }
        let word = &w[start..i];
        let before = if start == 0 { b' ' } else { w[start - 1] };
        let after = w.get(i).copied().unwrap_or(b' ');
        let upper = word
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
        let framed = matches!((before, after), (b'[', b']') | (b'<', b'>'))
            || (before == b'=' && w[..start].ends_with(b"level="));
        let alone = matches!(before, b' ' | b'[' | b'<' | b'|' | b'-')
            && matches!(after, b' ' | b':' | b']' | b'>' | b'|');
        if ((upper && alone) || framed)
            && let Some(l) = Level::parse(word)
        {
            return Some(l);
        }
    }
    None
}

/// syslog and journalctl lines carry no level: a message that says it
/// failed counts as an error.
fn syslog_level(rest: &[u8]) -> Option<Level> {
    if let Some(l) = level_in(rest) {
        return Some(l);
    }
    let lower: Vec<u8> = rest.iter().take(400).map(u8::to_ascii_lowercase).collect();
    let says = |w: &[u8]| {
        memchr::memmem::find_iter(&lower, w).any(|at| {
            let before = at == 0 || !lower[at - 1].is_ascii_alphabetic();
            let after = lower
                .get(at + w.len())
                .is_none_or(|b| !b.is_ascii_alphabetic());
            before && after
        })
    };
    if says(b"panic") || says(b"fatal") || says(b"critical") {
        return Some(Level::Critical);
    }
    (says(b"error") || says(b"failed") || says(b"failure") || says(b"segfault"))
        .then_some(Level::Error)
}

/// A stack trace or crash report's first line, printed with no prefix:
/// Python's `Traceback`, Go's `panic:`, Rust's `thread '…' (id) panicked`,
/// Java's `Exception in thread`, and `SomeError: …` / `a.b.SomeException`
/// (the last line of a Python traceback, Node's and Java's first).
pub fn is_exception(s: &[u8]) -> bool {
    if s.starts_with(b"Traceback (most recent call last):")
        || s.starts_with(b"panic: ")
        || s.starts_with(b"fatal error: ")
        || s.starts_with(b"Exception in thread ")
        || s.starts_with(b"Uncaught ")
        || (s.starts_with(b"thread '") && memchr::memmem::find(s, b" panicked at ").is_some())
    {
        return true;
    }
    let name_end = s
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$')))
        .unwrap_or(s.len());
    let name = &s[..name_end];
    let named = name.first().is_some_and(u8::is_ascii_alphabetic)
        && (name.ends_with(b"Error") || name.ends_with(b"Exception"));
    named && (name_end == s.len() || s[name_end..].starts_with(b": "))
}

/// Lines that continue a stack trace once one has begun (frames, causes).
pub fn continues_trace(s: &[u8]) -> bool {
    s.starts_with(b"Caused by: ")
        || s.starts_with(b"goroutine ")
        || s.starts_with(b"During handling of the above exception")
        || s.starts_with(b"The above exception was the direct cause")
        || s.starts_with(b"note: run with `RUST_BACKTRACE")
        || s.starts_with(b"stack backtrace:")
        || s.ends_with(b")") && s.contains(&b'(') && !s.contains(&b' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(line: &str) -> Option<Level> {
        match read(line.as_bytes()) {
            Line::Start { level, .. } => level,
            other => panic!("{line:?} read as {other:?}"),
        }
    }

    fn format(line: &str) -> Format {
        match read(line.as_bytes()) {
            Line::Start { format, .. } => format,
            other => panic!("{line:?} read as {other:?}"),
        }
    }

    #[test]
    fn formats_and_levels() {
        let access = r#"127.0.0.1 - - [30/Nov/2026:23:10:01 +0000] "GET / HTTP/1.1" 200 612 "-" "curl/7.88.1""#;
        assert_eq!(format(access), Format::Access);
        let nginx = "2026/11/30 23:10:01 [error] 12#12: *5 connect() failed";
        assert_eq!(
            (format(nginx), level(nginx)),
            (Format::NginxError, Some(Level::Error))
        );
        let pg = "2026-11-30 23:10:01.123 UTC [4242] ERROR:  relation \"x\" does not exist";
        assert_eq!(
            (format(pg), level(pg)),
            (Format::Postgres, Some(Level::Error))
        );
        let pg_user = "2026-11-30 23:10:01.123 UTC [4242] app@shop FATAL:  password";
        assert_eq!(level(pg_user), Some(Level::Fatal));
        let tail = "2026-11-30 23:10:01.123 UTC [4242] STATEMENT:  select * from x";
        assert_eq!(read(tail.as_bytes()), Line::Continuation);
        assert_eq!(level("WARNING:app.db:slow query"), Some(Level::Warning));
        assert_eq!(format("ERROR:root:boom"), Format::Python);
        assert_eq!(
            level("2026-11-30 23:10:01,123 - app - ERROR - boom"),
            Some(Level::Error)
        );
        assert_eq!(
            level("2026-11-30T23:10:01Z level=warn msg=x"),
            Some(Level::Warning)
        );
        let sys = "Nov 30 23:10:01 host sshd[12]: error: kex_exchange_identification";
        assert_eq!(
            (format(sys), level(sys)),
            (Format::Syslog, Some(Level::Error))
        );
        assert_eq!(level("Dec  1 04:00:00 host cron[9]: (root) CMD (x)"), None);
        assert_eq!(level("[2026-11-30 23:10:01,5] INFO x"), Some(Level::Info));
        // A level right after the time is not a zone name.
        let py = "2026-11-30 23:16:21,072 ERROR shop.api: failed";
        assert_eq!(level(py), Some(Level::Error));
        assert_eq!(
            read(py.as_bytes()),
            start(Format::Generic, Some(Level::Error), (0, 23))
        );
        // A level word inside the message is not the line's level.
        assert_eq!(level("2026-11-30 23:10:01 started; errors=0 ERRORS"), None);
    }

    /// Any prefix of any shape reads without a panic (classification
    /// runs on every output).
    #[test]
    fn every_prefix_reads() {
        let lines = [
            "Nov 30 23:10:01 host sshd[12]: error: x",
            "2026-11-30 23:10:01.123 UTC [4242] app@db ERROR:  x",
            "2026/11/30 23:10:01 [error] 12#12: x",
            r#"1.2.3.4 - - [30/Nov/2026:23:10:01 +0000] "GET / HTTP/1.1" 200 5 "-" "c" 0.1"#,
            "[2026-11-30 23:10:01,5] INFO x",
            "ERROR:root:x",
            "thread 'main' panicked at x",
        ];
        for l in lines {
            for end in 0..=l.len() {
                let _ = read(&l.as_bytes()[..end]);
                let mut out = Vec::new();
                super::super::template::abstract_into(&l.as_bytes()[..end], &mut out);
            }
        }
    }

    #[test]
    fn traces() {
        for l in [
            "Traceback (most recent call last):",
            "ValueError: bad input",
            "java.lang.IllegalStateException: boom",
            "panic: runtime error: index out of range [3] with length 3",
            "thread 'main' panicked at src/main.rs:4:5:",
            "thread 'main' (9306) panicked at src/main.rs:4:27:",
            "TypeError: Cannot read properties of undefined (reading 'x')",
        ] {
            assert_eq!(read(l.as_bytes()), Line::Exception, "{l}");
        }
        for l in [
            "  File \"a.py\", line 3, in f",
            "\tat a.B.c(B.java:3)",
            "plain words",
        ] {
            assert_eq!(read(l.as_bytes()), Line::Continuation, "{l}");
        }
    }
}
