//! The views `ctx read --mode` names.

use std::fmt;
use std::str::FromStr;

use super::error::ReadError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Verbatim: an explicitly requested raw read is never altered.
    Full,
    /// The declarations with their signatures and spans, bodies omitted.
    Outline,
    /// The outline of the public API only.
    Signatures,
    /// Lines `A` to `B`, 1-based, inclusive.
    Lines(usize, usize),
    /// One declaration's whole source, by name or qualified path.
    Symbol(String),
    /// One Markdown section (of a Markdown file, or of an HTML file's
    /// Markdown conversion), its subsections included.
    Section(String),
    /// `full` when the file is small, else `outline` with the exact reads
    /// that follow it up.
    Auto,
}

impl FromStr for Mode {
    type Err = ReadError;

    fn from_str(s: &str) -> Result<Mode, ReadError> {
        let bad = |why: &str| ReadError::Mode(format!("{s:?}: {why}"));
        let (head, arg) = match s.split_once(':') {
            Some((h, a)) => (h, Some(a)),
            None => (s, None),
        };
        match (head, arg) {
            ("full", None) => Ok(Mode::Full),
            ("outline", None) => Ok(Mode::Outline),
            ("signatures", None) => Ok(Mode::Signatures),
            ("auto", None) => Ok(Mode::Auto),
            ("lines", Some(range)) => parse_range(range)
                .ok_or_else(|| bad("lines takes A-B (1-based, inclusive), A- (to the end) or A")),
            ("symbol", Some(name)) if !name.trim().is_empty() => {
                Ok(Mode::Symbol(name.trim().to_string()))
            }
            ("section", Some(heading)) if !heading.trim().is_empty() => {
                Ok(Mode::Section(heading.trim().to_string()))
            }
            ("symbol" | "section", _) => Err(bad("give a name after the colon")),
            _ => Err(bad(
                "modes are full, outline, signatures, auto, lines:A-B, symbol:NAME, section:HEADING",
            )),
        }
    }
}

fn parse_range(range: &str) -> Option<Mode> {
    let (a, b) = match range.split_once('-') {
        Some((a, "")) => (a.trim().parse().ok()?, usize::MAX),
        Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
        None => {
            let a = range.trim().parse().ok()?;
            (a, a)
        }
    };
    (a >= 1 && b >= a).then_some(Mode::Lines(a, b))
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mode::Full => f.write_str("full"),
            Mode::Outline => f.write_str("outline"),
            Mode::Signatures => f.write_str("signatures"),
            Mode::Auto => f.write_str("auto"),
            Mode::Lines(a, b) if *b == usize::MAX => write!(f, "lines:{a}-"),
            Mode::Lines(a, b) => write!(f, "lines:{a}-{b}"),
            Mode::Symbol(n) => write!(f, "symbol:{n}"),
            Mode::Section(h) => write!(f, "section:{h}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_print_back() {
        for s in [
            "full",
            "outline",
            "signatures",
            "auto",
            "lines:3-9",
            "lines:4-",
            "symbol:Parser::parse",
            "section:Getting started",
        ] {
            assert_eq!(s.parse::<Mode>().unwrap().to_string(), s);
        }
        assert_eq!("lines:7".parse::<Mode>().unwrap(), Mode::Lines(7, 7));
        for bad in [
            "lines:0-3",
            "lines:9-3",
            "lines:x",
            "symbol:",
            "nope",
            "full:x",
        ] {
            assert!(bad.parse::<Mode>().is_err(), "{bad}");
        }
    }
}
