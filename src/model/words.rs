//! The word forms every stage shares: the `[ctx]` prefix, grouped
//! numbers, plurals that agree with their count, and shell quoting of an
//! address. A leaf: the store's views, the planner's pricing and the
//! renderer all use these, so none of them depends on another for it.

/// The prefix of every line ctx writes itself.
pub const CTX_PREFIX: &str = "[ctx]";

/// `1234567` → `1,234,567`, the same on every machine.
pub fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` and a plural noun phrase that agrees with it, `1,234` grouped:
/// `counted(1, "unmatched lines")` is `1 unmatched line`. ctx's phrases
/// (and the extractors' count words) are regular English plurals.
pub fn counted(n: usize, plural_phrase: &str) -> String {
    format!("{} {}", count(n), agree(plural_phrase, n as u64))
}

/// `s` cut to at most `max` characters, the last one `…` when anything
/// was cut: for a value or a template quoted inside a line, where a
/// cut mid-word is acceptable (the whole text is one `expand` away).
pub fn clip_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `1 errors` → `1 error`, `1 more failures with detail` → `1 more
/// failure with detail`: when the count is one, the first plural noun of
/// the phrase (the first word of four letters or more ending in a single
/// `s`, not in `-us` or `-is`: `anomalous`, `status`, `analysis` are no
/// plurals) loses its `s` (its `es` after `sh`, `tch`, `x` or `ss`:
/// `crashes`, `matches`).
pub fn agree(what: &str, n: u64) -> String {
    if n == 1 {
        // `1 failure without its detail`, not `their`.
        let what = what.replace(" their ", " its ");
        let mut words: Vec<&str> = what.split(' ').collect();
        if let Some(w) = words.iter_mut().find(|w| {
            w.len() >= 4 && w.ends_with('s') && !["ss", "us", "is"].iter().any(|e| w.ends_with(e))
        }) {
            // `crashes`, `matches`, `fixes`, `passes`: the plural added `es`.
            let es = ["shes", "tches", "xes", "sses"]
                .iter()
                .any(|e| w.ends_with(e));
            *w = &w[..w.len() - if es { 2 } else { 1 }];
            return words.join(" ");
        }
        return what;
    }
    what.to_string()
}

/// Quotes an argument for a POSIX shell when it needs it.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(1234567), "1,234,567");
    }

    #[test]
    fn clipping_counts_characters_not_bytes() {
        assert_eq!(clip_chars("short", 5), "short");
        assert_eq!(clip_chars("longer", 5), "long…");
        assert_eq!(clip_chars("ünïcödé", 4), "ünï…");
        assert_eq!(clip_chars("ünïcödé", 4).chars().count(), 4);
    }

    #[test]
    fn phrases_agree_with_their_count() {
        assert_eq!(
            counted(1, "errors without their detail"),
            "1 error without its detail"
        );
        assert_eq!(
            counted(3, "errors without their detail"),
            "3 errors without their detail"
        );
        assert_eq!(counted(1, "lines"), "1 line");
        assert_eq!(counted(1, "errors"), "1 error");
        assert_eq!(counted(2, "errors"), "2 errors");
        assert_eq!(counted(1, "unmatched lines"), "1 unmatched line");
        assert_eq!(
            counted(1, "more failures with detail"),
            "1 more failure with detail"
        );
        assert_eq!(counted(1, "packages failed"), "1 package failed");
        assert_eq!(counted(1, "passed"), "1 passed");
        assert_eq!(counted(1, "xfailed"), "1 xfailed");
        assert_eq!(counted(1, "filtered out"), "1 filtered out");
        assert_eq!(counted(1_000, "items"), "1,000 items");
        assert_eq!(counted(0, "items"), "0 items");
        assert_eq!(counted(1, "crashes"), "1 crash");
        assert_eq!(counted(1, "matches"), "1 match");
        assert_eq!(counted(1, "prefixes"), "1 prefix");
        assert_eq!(counted(1, "files"), "1 file");
        assert_eq!(
            counted(1, "more anomalous records"),
            "1 more anomalous record"
        );
        assert_eq!(counted(1, "status changes"), "1 status change");
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("tests/a.py::t"), "tests/a.py::t");
        assert_eq!(shell_quote("t[a b]"), "'t[a b]'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
