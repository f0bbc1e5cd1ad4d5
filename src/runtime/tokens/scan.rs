//! A one-pass emulation of o200k_base's pre-tokenizer.
//!
//! o200k_base first cuts text with a regular expression into pieces (a word
//! with at most one leading non-letter, up to three digits, a run of
//! punctuation with its trailing newlines, a run of whitespace), then runs
//! byte-pair merges inside each piece. The pieces are where nearly all of the
//! count is decided, and finding them needs no vocabulary: this module finds
//! the same boundaries as the regex (checked against tiktoken in the tests)
//! and hands each piece's shape to a [`Sink`]. What a piece costs is the
//! sink's business (`cost.rs`).
//!
//! ASCII is classified through a 256-entry table. Other characters go
//! through `o200k_chars.bin`: for every code point below U+20000, its class
//! under the regex (upper, lower, caseless letter, mark, digit, whitespace,
//! other) and the number of tokens it costs on its own, read off the
//! `regex` crate's Unicode classes and tiktoken-rs; a test regenerates it
//! and compares.

use std::ops::Range;

pub(crate) const LOWER: u8 = 0;
pub(crate) const UPPER: u8 = 1;
/// Lm and Lo: fits both the upper- and the lower-case part of a word.
pub(crate) const LETTER: u8 = 2;
pub(crate) const DIGIT: u8 = 3;
/// Whitespace other than `\r`, `\n` and the ASCII space.
pub(crate) const BLANK: u8 = 4;
pub(crate) const NEWLINE: u8 = 5;
pub(crate) const PUNCT: u8 = 6;
/// U+0020 alone: the only character the punctuation rule takes as a prefix.
pub(crate) const SPACE: u8 = 7;
/// Combining marks: letters inside a word, punctuation inside a run.
pub(crate) const MARK: u8 = 8;

/// Set on ASCII vowels in [`ASCII`]: vowel-poor words cost more tokens.
const VOWEL: u8 = 0x10;

/// What [`ASCII`] says of a byte of a multi-byte character.
const HIGH: u8 = 9;

const fn ascii_classes() -> [u8; 256] {
    let mut t = [HIGH; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = match b {
            b'a'..=b'z' => LOWER,
            b'A'..=b'Z' => UPPER,
            b'0'..=b'9' => DIGIT,
            b' ' => SPACE,
            b'\t' | 0x0b | 0x0c => BLANK,
            b'\r' | b'\n' => NEWLINE,
            _ => PUNCT,
        };
        if matches!(b | 0x20, b'a' | b'e' | b'i' | b'o' | b'u' | b'y') {
            t[c] |= VOWEL;
        }
        c += 1;
    }
    t
}

static ASCII: [u8; 256] = ascii_classes();

/// Two levels: 512 little-endian u16 block numbers (one per 256 code points
/// below U+20000), then the 256-byte blocks; each byte is
/// `class | isolated_cost << 4`.
pub(crate) static CHARS: &[u8] = include_bytes!("o200k_chars.bin");
pub(crate) const CHARS_PLANES: u32 = 0x20000;
const L1_BYTES: usize = (CHARS_PLANES as usize >> 8) * 2;

/// Class and isolated token cost of a non-ASCII code point.
#[inline]
pub(crate) fn lookup(cp: u32) -> (u8, u8) {
    if cp >= CHARS_PLANES {
        // CJK extensions and rarer: letters that cost several tokens each.
        return (LETTER, 3);
    }
    let hi = (cp >> 8) as usize;
    let block = u16::from_le_bytes([CHARS[2 * hi], CHARS[2 * hi + 1]]) as usize;
    let v = CHARS[L1_BYTES + block * 256 + (cp & 0xff) as usize];
    (v & 0x0f, v >> 4)
}

/// The non-ASCII character at `i`: (code point, length). A byte that does
/// not start valid UTF-8 reads as U+FFFD, as it does for the exact count.
#[inline]
fn decode(b: &[u8], i: usize) -> (u32, usize) {
    let cont = |k: usize| -> Option<u32> {
        match b.get(i + k) {
            Some(&d) if d & 0xC0 == 0x80 => Some((d & 0x3F) as u32),
            _ => None,
        }
    };
    let c = b[i];
    let decoded = match c {
        0xC2..=0xDF => cont(1).map(|c1| ((((c & 0x1F) as u32) << 6) | c1, 2)),
        0xE0..=0xEF => match (cont(1), cont(2)) {
            (Some(c1), Some(c2)) => {
                let cp = (((c & 0x0F) as u32) << 12) | (c1 << 6) | c2;
                (cp >= 0x800 && !(0xD800..0xE000).contains(&cp)).then_some((cp, 3))
            }
            _ => None,
        },
        0xF0..=0xF4 => match (cont(1), cont(2), cont(3)) {
            (Some(c1), Some(c2), Some(c3)) => {
                let cp = (((c & 0x07) as u32) << 18) | (c1 << 12) | (c2 << 6) | c3;
                (0x10000..0x110000).contains(&cp).then_some((cp, 4))
            }
            _ => None,
        },
        _ => None,
    };
    decoded.unwrap_or((0xFFFD, 1))
}

/// (class, isolated cost, length) of the character at `i` (`i < b.len()`).
#[inline]
fn char_at(b: &[u8], i: usize) -> (u8, u8, usize) {
    let c = b[i];
    if c < 0x80 {
        (ASCII[c as usize] & 0x0f, 1, 1)
    } else {
        let (cp, len) = decode(b, i);
        let (class, cost) = lookup(cp);
        (class, cost, len)
    }
}

/// The class at `i`, or `u8::MAX` past the end.
#[inline]
fn class_at(b: &[u8], i: usize) -> u8 {
    match b.get(i) {
        None => u8::MAX,
        Some(&c) if c < 0x80 => ASCII[c as usize] & 0x0f,
        Some(_) => lookup(decode(b, i).0).0,
    }
}

#[inline]
fn is_letter(class: u8) -> bool {
    class <= LETTER || class == MARK
}

/// A word piece: an optional leading non-letter, then letters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Word {
    /// 0 none, 1 space, 2 other blank, 3 ASCII punctuation, 4 non-ASCII.
    pub prefix: u8,
    /// Isolated token cost of a non-ASCII prefix.
    pub prefix_cost: u8,
    pub upper: u32,
    pub lower: u32,
    pub vowels: u32,
    /// Two-byte letters (Latin, Greek, Cyrillic, Hebrew, Arabic).
    pub wide2: u32,
    /// Longer letters (CJK, kana, Hangul, Indic scripts).
    pub wide3: u32,
    /// What the non-ASCII letters cost on their own above one token each.
    pub wide_extra: u32,
}

/// A punctuation piece: an optional space, a run of symbols, then any
/// newlines and slashes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Punct {
    pub space: bool,
    /// ASCII symbols, control characters included.
    pub ascii: u32,
    /// ASCII control characters (the ESC of colour codes above all): o200k
    /// never merges them with a neighbour.
    pub controls: u32,
    /// Every symbol in the run is the same character.
    pub same: bool,
    pub wide: u32,
    /// Isolated costs of the non-ASCII symbols, summed.
    pub wide_cost: u32,
    /// Single-token non-ASCII symbols that repeat the one before (box
    /// drawing): o200k merges such runs.
    pub repeats: u32,
    pub newlines: u32,
    pub slashes: u32,
}

/// Receives the pieces in order; together their spans cover the input.
pub(crate) trait Sink {
    fn word(&mut self, span: Range<usize>, word: &Word);
    fn digits(&mut self, span: Range<usize>);
    fn punct(&mut self, span: Range<usize>, punct: &Punct);
    /// Whitespace; `newline` when the run ends with a line break.
    fn blank(&mut self, span: Range<usize>, newline: bool);
}

/// Cuts `b` into o200k pieces. The rules are the regex's alternatives, tried
/// in its order at each position.
pub(crate) fn scan<S: Sink>(b: &[u8], sink: &mut S) {
    let n = b.len();
    let mut i = 0;
    while i < n {
        let a = ASCII[b[i] as usize] & 0x0f;
        i = match a {
            LOWER | UPPER => word(b, i, i, Word::default(), sink),
            DIGIT => digits(b, i, 1, sink),
            HIGH => piece(b, i, sink),
            _ => {
                let next = class_at(b, i + 1);
                if a != NEWLINE && is_letter(next) {
                    let prefix = Word {
                        prefix: match a {
                            SPACE => 1,
                            BLANK => 2,
                            _ => 3,
                        },
                        prefix_cost: 1,
                        ..Word::default()
                    };
                    word(b, i, i + 1, prefix, sink)
                } else if a == PUNCT || (a == SPACE && next == PUNCT) {
                    punct(b, i, a == SPACE, sink)
                } else {
                    blank(b, i, sink)
                }
            }
        };
    }
}

/// A piece that starts with a non-ASCII character.
#[cold]
#[inline(never)]
fn piece<S: Sink>(b: &[u8], i: usize, sink: &mut S) -> usize {
    let (c0, cost0, len0) = char_at(b, i);
    let next = class_at(b, i + len0);
    if is_letter(c0) {
        word(b, i, i, Word::default(), sink)
    } else if c0 != NEWLINE && c0 != DIGIT && is_letter(next) {
        let prefix = Word {
            prefix: if c0 == BLANK { 2 } else { 4 },
            prefix_cost: cost0,
            ..Word::default()
        };
        word(b, i, i + len0, prefix, sink)
    } else if c0 == DIGIT {
        digits(b, i, len0, sink)
    } else if c0 == PUNCT {
        punct(b, i, false, sink)
    } else {
        blank(b, i, sink)
    }
}

/// `[^\r\n\p{L}\p{N}]?[upper]*[lower]+('s|…)?` or `…[upper]+[lower]*…`;
/// the prefix, if any, is already in `w` and the letters start at `body`.
#[inline]
fn word<S: Sink>(b: &[u8], start: usize, body: usize, mut w: Word, sink: &mut S) -> usize {
    let n = b.len();
    let mut j = body;
    // Counted in locals: the loops stay in registers.
    let (mut upper, mut lower, mut vowels) = (0u32, 0u32, 0u32);
    while j < n {
        let a = ASCII[b[j] as usize];
        if a & 0x0f != UPPER {
            break;
        }
        upper += 1;
        vowels += (a >> 4) as u32;
        j += 1;
    }
    while j < n {
        let a = ASCII[b[j] as usize];
        if a & 0x0f != LOWER {
            break;
        }
        lower += 1;
        vowels += (a >> 4) as u32;
        j += 1;
    }
    w.upper += upper;
    w.lower += lower;
    w.vowels += vowels;
    if j < n && b[j] >= 0x80 {
        j = wide_word(b, j, &mut w);
    }
    if j < n && b[j] == b'\'' {
        let lower = |k: usize| b.get(j + k).map(u8::to_ascii_lowercase);
        j += match (lower(1), lower(2)) {
            (Some(b'r'), Some(b'e')) | (Some(b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => 3,
            (Some(b's' | b't' | b'm' | b'd'), _) => 2,
            _ => 0,
        };
    }
    sink.word(start..j, &w);
    j
}

/// The rest of a word from its first non-ASCII character at `j`.
#[cold]
#[inline(never)]
fn wide_word(b: &[u8], mut j: usize, w: &mut Word) -> usize {
    let n = b.len();
    let mut in_lower = w.lower > 0;
    // When upper-case letters end without a lower-case one, the regex
    // backtracks to the last caseless letter it passed, if any.
    let mut last_caseless: Option<(usize, Word)> = None;
    while j < n {
        let d = b[j];
        if d < 0x80 {
            let a = ASCII[d as usize];
            match a & 0x0f {
                UPPER if !in_lower => w.upper += 1,
                LOWER => {
                    in_lower = true;
                    w.lower += 1;
                }
                _ => break,
            }
            w.vowels += (a >> 4) as u32;
            j += 1;
        } else {
            let (class, cost, len) = char_at(b, j);
            let caseless = match class {
                UPPER if !in_lower => false,
                LOWER => {
                    in_lower = true;
                    false
                }
                LETTER | MARK => true,
                _ => break,
            };
            if len == 2 {
                w.wide2 += 1;
            } else {
                w.wide3 += 1;
            }
            w.wide_extra += cost.saturating_sub(1) as u32;
            j += len;
            if caseless && !in_lower {
                last_caseless = Some((j, w.clone()));
            }
        }
    }
    if !in_lower
        && let Some((end, at)) = last_caseless
        && end < j
    {
        *w = at;
        return end;
    }
    j
}

/// `\p{N}{1,3}`.
#[inline]
fn digits<S: Sink>(b: &[u8], start: usize, len0: usize, sink: &mut S) -> usize {
    let mut j = start + len0;
    for _ in 1..3 {
        if j >= b.len() {
            break;
        }
        let (class, _, len) = char_at(b, j);
        if class != DIGIT {
            break;
        }
        j += len;
    }
    sink.digits(start..j);
    j
}

/// ` ?[^\s\p{L}\p{N}]+[\r\n/]*`.
#[inline]
fn punct<S: Sink>(b: &[u8], start: usize, space: bool, sink: &mut S) -> usize {
    let n = b.len();
    let mut p = Punct {
        same: true,
        ..Punct::default()
    };
    p.space = space;
    let mut j = start + space as usize;
    let first = j;
    let first_len = char_at(b, j).2;
    while j < n {
        let d = b[j];
        let a = ASCII[d as usize] & 0x0f;
        if a == PUNCT {
            p.ascii += 1;
            p.controls += (d < 0x20 || d == 0x7f) as u32;
            p.same &= d == b[first];
            j += 1;
        } else if a != HIGH {
            break;
        } else {
            let (class, cost, len) = char_at(b, j);
            if class != PUNCT && class != MARK {
                break;
            }
            p.same &= b[j..j + len] == b[first..first + first_len];
            if cost == 1 && j >= first + len && b[j - len..j] == b[j..j + len] {
                p.repeats += 1;
            }
            p.wide += 1;
            p.wide_cost += cost as u32;
            j += len;
        }
    }
    while j < n {
        match b[j] {
            b'\r' | b'\n' => p.newlines += 1,
            b'/' => p.slashes += 1,
            _ => break,
        }
        j += 1;
    }
    sink.punct(start..j, &p);
    j
}

/// `\s*[\r\n]+`, else `\s+(?!\S)`, else `\s+`.
#[inline]
fn blank<S: Sink>(b: &[u8], start: usize, sink: &mut S) -> usize {
    let n = b.len();
    let mut j = start;
    let mut newline_end = None;
    let mut last = start;
    while j < n {
        let (class, len) = match ASCII[b[j] as usize] & 0x0f {
            HIGH => {
                let (class, _, len) = char_at(b, j);
                (class, len)
            }
            a => (a, 1),
        };
        match class {
            NEWLINE => newline_end = Some(j + len),
            SPACE | BLANK => {}
            _ => break,
        }
        last = j;
        j += len;
    }
    if let Some(end) = newline_end {
        sink.blank(start..end, true);
        return end;
    }
    // Before a non-space, the last blank goes with what follows.
    let end = if j < n && last > start { last } else { j };
    sink.blank(start..end, false);
    end
}
