//! Token counts, in o200k_base tokens (docs/tokens.md).
//!
//! - [`estimate`] is for the hot path: one pass, no start-up, no
//!   allocation, deterministic, and meant to err high (about +6 % in the
//!   median on the fixtures; docs/tokens.md has the measurements). It
//!   finds the same pieces as o200k's pre-tokenizer (`scan`) and prices
//!   each by its shape (`cost`), from tables calibrated against tiktoken-rs.
//! - [`exact`] is tiktoken-rs itself, for the ledger and for measurement.
//!   Its first call builds the encoder (about 0.15 s), so nothing on the
//!   path of a command's output may call it.

mod cost;
mod exact;
mod scan;

pub use exact::try_exact;

/// An estimate of the o200k_base token count of `bytes`, on the high side.
pub fn estimate(bytes: &[u8]) -> usize {
    let mut cost = cost::Cost::default();
    scan::scan(bytes, &mut cost);
    cost.tokens()
}

/// Inputs larger than this are estimated from evenly spaced samples.
pub const BULK_BYTES: usize = 16 << 20;

/// [`estimate`] for a whole captured output. Above [`BULK_BYTES`] it prices
/// 32 evenly spaced 128 KiB windows and scales by size: a digest's
/// decisions (does it fit? is it smaller?) need the magnitude of a 100 MB
/// log, not its last token, and a full pass would cost a quarter second.
/// Deterministic: the windows depend only on the length.
pub fn estimate_bulk(bytes: &[u8]) -> usize {
    const WINDOWS: usize = 32;
    const WINDOW: usize = 128 << 10;
    if bytes.len() <= BULK_BYTES {
        return estimate(bytes);
    }
    let stride = bytes.len() / WINDOWS;
    let (mut tokens, mut sampled) = (0u128, 0u128);
    for k in 0..WINDOWS {
        let start = k * stride;
        let window = &bytes[start..(start + WINDOW).min(bytes.len())];
        tokens += estimate(window) as u128;
        sampled += window.len() as u128;
    }
    (tokens * bytes.len() as u128 / sampled.max(1)) as usize
}

/// The exact o200k_base token count of `bytes` (invalid UTF-8 counted as
/// U+FFFD). Slow to start: see the module documentation. Should tiktoken-rs
/// ever fail, this falls back to [`estimate`]; callers that must know use
/// [`try_exact`].
pub fn exact(bytes: &[u8]) -> usize {
    try_exact(bytes).unwrap_or_else(|| estimate(bytes))
}

#[cfg(test)]
mod tests {
    use std::ops::Range;

    use super::scan::{Punct, Sink, Word};
    use super::*;
    use crate::testing::synthetic;

    /// `exact` of each synthetic sample, computed once with tiktoken-rs
    /// (`pinned_counts_are_current` keeps them honest).
    const PINNED: &[(&str, usize)] = &[
        ("prose", 9525),
        ("rust", 15172),
        ("python", 15645),
        ("json-pretty", 22689),
        ("json-compact", 21602),
        ("log", 23498),
        ("test-output", 14926),
        ("hex-base64", 22233),
        ("ansi", 16877),
        ("non-ascii", 8084),
        ("table", 14601),
    ];

    #[test]
    fn bulk_estimates_track_the_full_pass() {
        let mut log = Vec::new();
        let mut i = 0u64;
        while log.len() < BULK_BYTES + (3 << 20) {
            log.extend_from_slice(
                format!(
                    "2026-11-29T12:00:00Z INFO worker {}: batch {i} done in {} ms\n",
                    i % 16,
                    i % 997
                )
                .as_bytes(),
            );
            i += 1;
        }
        let (full, bulk) = (estimate(&log) as f64, estimate_bulk(&log) as f64);
        assert!(
            (bulk - full).abs() / full < 0.02,
            "bulk {bulk} vs full {full}"
        );
        assert_eq!(estimate_bulk(b"small"), estimate(b"small"));
    }

    /// The promise docs/tokens.md makes for any one input of some size.
    const LOW: f64 = -0.10;
    const HIGH: f64 = 0.35;

    fn pinned(name: &str) -> usize {
        PINNED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c)
            .unwrap_or_else(|| panic!("no pinned count for {name}"))
    }

    #[test]
    fn estimate_within_bounds_on_synthetic_corpus() {
        let mut failures = Vec::new();
        let (mut est_total, mut exact_total) = (0usize, 0usize);
        for sample in synthetic::corpus() {
            let exact = pinned(sample.name);
            let est = estimate(&sample.bytes);
            let err = (est as f64 - exact as f64) / exact as f64;
            if !(LOW..=HIGH).contains(&err) {
                failures.push(format!(
                    "{}: estimate {est}, exact {exact} ({err:+.3})",
                    sample.name
                ));
            }
            est_total += est;
            exact_total += exact;
        }
        assert!(failures.is_empty(), "outside {LOW}..{HIGH}: {failures:#?}");
        // Conservative overall: the pooled estimate is not below the truth.
        assert!(
            est_total >= exact_total,
            "pooled {est_total} < {exact_total}"
        );
    }

    #[test]
    fn pinned_counts_are_current() {
        let corpus = synthetic::corpus();
        assert_eq!(corpus.len(), PINNED.len());
        for sample in corpus {
            assert_eq!(
                try_exact(&sample.bytes),
                Some(pinned(sample.name)),
                "{}",
                sample.name
            );
        }
    }

    /// Records piece spans.
    struct Spans(Vec<Range<usize>>);

    impl Sink for Spans {
        fn word(&mut self, span: Range<usize>, _: &Word) {
            self.0.push(span);
        }
        fn digits(&mut self, span: Range<usize>) {
            self.0.push(span);
        }
        fn punct(&mut self, span: Range<usize>, _: &Punct) {
            self.0.push(span);
        }
        fn blank(&mut self, span: Range<usize>, _: bool) {
            self.0.push(span);
        }
    }

    fn pieces(text: &str) -> Vec<&str> {
        let mut spans = Spans(Vec::new());
        scan::scan(text.as_bytes(), &mut spans);
        spans.0.into_iter().map(|r| &text[r]).collect()
    }

    /// The pieces are o200k's: tokenizing them one by one gives the count of
    /// the whole. (Were a boundary wrong, merges across it would be lost
    /// and the sums would differ somewhere in this corpus.)
    #[test]
    fn pieces_are_o200k_pieces() {
        let mut texts: Vec<String> = synthetic::corpus()
            .into_iter()
            .map(|s| String::from_utf8_lossy(&s.bytes).into_owned())
            .collect();
        texts.push(TRICKY.to_string());
        for text in &texts {
            let ps = pieces(text);
            assert_eq!(ps.concat(), *text);
            let sum: usize = ps.iter().map(|p| exact(p.as_bytes())).sum();
            assert_eq!(
                sum,
                exact(text.as_bytes()),
                "{}",
                &text[..text.len().min(60)]
            );
        }
    }

    const TRICKY: &str = "fooBar HTTPServer ABC def's it'LL we've  two  spaces\t\ttabs\n\n  \n\
        x.y (z) ::a , b 1234567 a1b2c3 \x1b[1;31mred\x1b[0m --flag=/usr/lib/ //x\n\
        切換顯示行尾及TAB Größe ÉCOLE Привет мир 日本語のテキスト ⏱\u{fe0f} ✓ ok ─────── ⎯⎯⎯\n\
        'quoted' \"dq\" end   ";

    #[test]
    fn pieces_follow_the_regex() {
        assert_eq!(pieces("fooBar HTTPServer"), ["foo", "Bar", " HTTPServer"]);
        assert_eq!(pieces("a  b"), ["a", " ", " b"]);
        assert_eq!(pieces("x (y"), ["x", " (", "y"]);
        assert_eq!(pieces("a.b ::c"), ["a", ".b", " ::", "c"]);
        assert_eq!(pieces("1234567"), ["123", "456", "7"]);
        assert_eq!(pieces("x;\n\ny"), ["x", ";\n\n", "y"]);
        assert_eq!(pieces("a \n  b"), ["a", " \n", " ", " b"]);
        assert_eq!(pieces("don't"), ["don't"]);
        assert_eq!(pieces("及TAB("), ["及", "TAB", "("]);
    }

    #[test]
    fn small_and_odd_inputs() {
        assert_eq!(estimate(b""), 0);
        assert_eq!(exact(b""), 0);
        assert!(estimate(b"hello") >= 1);
        // Invalid UTF-8, lone continuation bytes, a truncated sequence.
        let odd = b"ok \xff\xfe \x80abc \xe2\x94 \xf0\x9f\x8e";
        assert!(estimate(odd) >= exact(odd) / 2);
        assert_eq!(estimate(odd), estimate(odd));
        // Whitespace runs that make tiktoken's own regex overflow its stack.
        let mut spaces = vec![b' '; 3_000_000];
        spaces.push(b'x');
        assert!(try_exact(&spaces).is_some());
    }

    /// o200k_chars.bin against the `regex` crate's Unicode classes and
    /// tiktoken-rs's isolated counts. To rebuild it after a tiktoken-rs
    /// upgrade: `CTX_WRITE_CHAR_TABLE=1 cargo test -p ctx char_table`.
    #[test]
    fn char_table_is_current() {
        let table = build_char_table();
        if std::env::var_os("CTX_WRITE_CHAR_TABLE").is_some() {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/src/runtime/tokens/o200k_chars.bin"
            );
            std::fs::write(path, &table).expect("write o200k_chars.bin");
        }
        assert!(
            table == scan::CHARS,
            "o200k_chars.bin is stale; see this test's doc"
        );
    }

    fn build_char_table() -> Vec<u8> {
        use regex::Regex;
        let class = |re: &str| Regex::new(re).expect("valid class");
        let lower = class(r"^\p{Ll}$");
        let upper = class(r"^[\p{Lu}\p{Lt}]$");
        let letter = class(r"^[\p{Lm}\p{Lo}]$");
        let mark = class(r"^\p{M}$");
        let digit = class(r"^\p{N}$");
        let blank = class(r"^\s$");
        let planes = scan::CHARS_PLANES as usize;
        let mut flat = vec![0u8; planes];
        for (cp, slot) in flat.iter_mut().enumerate() {
            let Some(ch) = char::from_u32(cp as u32) else {
                // Surrogates: never decoded; priced like U+FFFD's neighbours.
                *slot = scan::PUNCT | (3 << 4);
                continue;
            };
            let s = ch.to_string();
            let c = if ch == '\r' || ch == '\n' {
                scan::NEWLINE
            } else if lower.is_match(&s) {
                scan::LOWER
            } else if upper.is_match(&s) {
                scan::UPPER
            } else if letter.is_match(&s) {
                scan::LETTER
            } else if mark.is_match(&s) {
                scan::MARK
            } else if digit.is_match(&s) {
                scan::DIGIT
            } else if blank.is_match(&s) {
                scan::BLANK
            } else {
                scan::PUNCT
            };
            let cost = exact(s.as_bytes()).min(7) as u8;
            *slot = c | (cost << 4);
        }
        let mut blocks: Vec<&[u8]> = Vec::new();
        let mut index = Vec::new();
        for block in flat.chunks(256) {
            let id = match blocks.iter().position(|b| *b == block) {
                Some(id) => id,
                None => {
                    blocks.push(block);
                    blocks.len() - 1
                }
            };
            index.extend_from_slice(&(id as u16).to_le_bytes());
        }
        index.extend(blocks.concat());
        index
    }
}
