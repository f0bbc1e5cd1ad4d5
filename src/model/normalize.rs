//! Turning a raw line into what a reader of a terminal saw: ANSI and other
//! control sequences removed, carriage-return progress collapsed to its final
//! state, each byte that is not UTF-8 shown as `\xNN` (a U+FFFD would
//! turn two different file names into one, and says nothing of the byte). Extractors match on this form and the
//! renderer prints it; the archive keeps the raw bytes.

use std::borrow::Cow;

/// The visible text of one raw line (without its `\n`).
pub fn line(raw: &[u8]) -> Cow<'_, str> {
    #[cfg(test)]
    work::add(raw.len());
    // One pass over the bytes: no control byte (escape, carriage return,
    // bell…) and valid UTF-8 means the line is already what a terminal shows.
    let plain = raw.iter().all(|&b| (b >= 0x20 && b != 0x7f) || b == b'\t');
    if plain && let Ok(s) = std::str::from_utf8(raw) {
        return Cow::Borrowed(s);
    }
    let last = final_overwrite(raw);
    let mut visible = Visible(String::with_capacity(last.len()));
    let mut parser = vte::Parser::new();
    for chunk in last.utf8_chunks() {
        parser.advance(&mut visible, chunk.valid().as_bytes());
        for byte in chunk.invalid() {
            visible.0.push_str(&format!("\\x{byte:02x}"));
        }
    }
    Cow::Owned(visible.0)
}

/// Collects what a terminal would print: text and tabs; escape sequences,
/// other control characters handled by `vte`; bytes that are not UTF-8
/// never reach it (`line` writes them as `\xNN`).
struct Visible(String);

impl vte::Perform for Visible {
    fn print(&mut self, c: char) {
        self.0.push(c);
    }

    fn execute(&mut self, byte: u8) {
        if byte == b'\t' {
            self.0.push('\t');
        }
    }
}

/// What remains visible after carriage returns: the last non-empty segment
/// (`50%\r100%\r` shows `100%`; a CRLF ending shows the line itself).
fn final_overwrite(bytes: &[u8]) -> &[u8] {
    bytes
        .split(|&b| b == b'\r')
        .rev()
        .find(|seg| !seg.is_empty())
        .unwrap_or(&[])
}

/// Bytes this thread has normalized, for tests that prove a stage linear
/// by counting its work instead of timing it (timing is noisy on shared
/// machines; a quadratic path shows as a ratio that grows with the input).
#[cfg(test)]
pub mod work {
    use std::cell::Cell;

    thread_local! {
        static BYTES: Cell<usize> = const { Cell::new(0) };
    }

    pub(super) fn add(n: usize) {
        BYTES.with(|b| b.set(b.get() + n));
    }

    /// Bytes normalized by this thread since the last call.
    pub fn take() -> usize {
        BYTES.with(|b| b.replace(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(line(b"hello world"), Cow::Borrowed("hello world")));
    }

    #[test]
    fn ansi_is_removed() {
        assert_eq!(line(b"\x1b[31mFAILED\x1b[0m test_x"), "FAILED test_x");
        assert_eq!(
            line(b"\x1b[1m\x1b[38;5;9merror\x1b[0m: boom"),
            "error: boom"
        );
    }

    #[test]
    fn carriage_returns_collapse_to_final_state() {
        assert_eq!(line(b"10%\r50%\r100%"), "100%");
        assert_eq!(line(b"done\r"), "done");
        assert_eq!(line(b"a line\r"), "a line");
        assert_eq!(line(b"\r\r"), "");
    }

    #[test]
    fn invalid_utf8_and_controls() {
        assert_eq!(line(b"a\xffb"), "a\\xffb");
        assert_eq!(line(b"bad\xff\xfename.txt"), "bad\\xff\\xfename.txt");
        assert_eq!(line(b"\xc3\xa9\xc3"), "é\\xc3");
        assert_eq!(line(b"bell\x07 tab\tend"), "bell tab\tend");
        assert_eq!(line(b"nul\x00"), "nul");
    }
}
