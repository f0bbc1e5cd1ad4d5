//! Exact o200k_base counts through tiktoken-rs, for the ledger and for
//! measurement. Never on the hot path: building the encoder takes about
//! 0.15 s, and counting runs at tens of MB/s.

use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

use super::scan::{self, Punct, Sink, Word};

/// Text goes to tiktoken in chunks of about this size, cut between pieces
/// (which leaves the count unchanged), so that its token list stays small.
const CHUNK: usize = 256 * 1024;

/// Pieces longer than this are cut at character boundaries before tiktoken
/// sees them: its regex overflows its stack on a few megabytes of
/// whitespace. Each cut can move the count by about a token, and only
/// pieces of over 4 KiB of letters, symbols or whitespace are cut.
const PIECE_MAX: usize = 4096;

fn encoder() -> Option<&'static CoreBPE> {
    static ENCODER: OnceLock<Option<CoreBPE>> = OnceLock::new();
    ENCODER
        .get_or_init(|| {
            panic::catch_unwind(tiktoken_rs::o200k_base)
                .ok()
                .and_then(Result::ok)
        })
        .as_ref()
}

/// The o200k_base token count of `bytes` (invalid UTF-8 counts as U+FFFD,
/// as `String::from_utf8_lossy` makes it), or None when the encoder cannot
/// be built or fails.
pub fn try_exact(bytes: &[u8]) -> Option<usize> {
    let bpe = encoder()?;
    let text = String::from_utf8_lossy(bytes);
    let mut cuts = Cuts {
        text: text.as_bytes(),
        ends: Vec::new(),
        last: 0,
    };
    scan::scan(text.as_bytes(), &mut cuts);
    let ends = cuts.ends;
    let mut total = 0;
    let mut start = 0;
    for end in ends.into_iter().chain(std::iter::once(text.len())) {
        if end > start {
            let chunk = &text[start..end];
            total +=
                panic::catch_unwind(AssertUnwindSafe(|| bpe.encode_ordinary(chunk).len())).ok()?;
        }
        start = end;
    }
    Some(total)
}

/// Where to cut: piece boundaries every [`CHUNK`] bytes, and inside pieces
/// longer than [`PIECE_MAX`].
struct Cuts<'a> {
    text: &'a [u8],
    ends: Vec<usize>,
    last: usize,
}

impl Cuts<'_> {
    fn piece(&mut self, span: Range<usize>) {
        if span.len() > PIECE_MAX {
            self.cut(span.start);
            let mut at = span.start + PIECE_MAX;
            while at < span.end {
                // Back up to the first byte of a character.
                while self.text[at] & 0xC0 == 0x80 {
                    at -= 1;
                }
                self.cut(at);
                at += PIECE_MAX;
            }
            self.cut(span.end);
        } else if span.end - self.last >= CHUNK {
            self.cut(span.end);
        }
    }

    fn cut(&mut self, at: usize) {
        if at > self.last {
            self.ends.push(at);
            self.last = at;
        }
    }
}

impl Sink for Cuts<'_> {
    fn word(&mut self, span: Range<usize>, _word: &Word) {
        self.piece(span);
    }
    fn digits(&mut self, span: Range<usize>) {
        self.piece(span);
    }
    fn punct(&mut self, span: Range<usize>, _punct: &Punct) {
        self.piece(span);
    }
    fn blank(&mut self, span: Range<usize>, _newline: bool) {
        self.piece(span);
    }
}
