//! What each o200k piece costs, in 1/64 tokens, calibrated against
//! tiktoken-rs on a corpus of tool output, source code, prose, JSON, logs and
//! non-ASCII text (docs/tokens.md has the method and the numbers).
//!
//! The tables hold the mean token count of pieces of each shape, made
//! non-decreasing in length and raised by 3 %, so that the estimate errs
//! high: planning against it leaves room rather than overruns the budget.

use std::ops::Range;

use super::scan::{Punct, Sink, Word};

/// Fixed-point unit: costs are in 1/64 tokens.
const UNIT: u64 = 64;

const WORD_MAX: usize = 24;
/// Each ASCII letter past [`WORD_MAX`].
const WORD_TAIL: u64 = 19;
const VOWEL_MAX: usize = 16;
/// First two-byte letter of a word, and each one after it.
const WIDE2_FIRST: u64 = 64;
const WIDE2_NEXT: u64 = 21;
/// Each letter of three or four bytes.
const WIDE3: u64 = 45;

const PUNCT_MAX: usize = 16;
/// Each ASCII symbol past [`PUNCT_MAX`], in a run of one character or mixed.
const PUNCT_TAIL_SAME: u64 = 6;
const PUNCT_TAIL_MIXED: u64 = 32;
/// Each control character, priced apart from the rest of its run.
const CONTROL: u64 = 96;
const SLASH: u64 = 32;
/// A single-token non-ASCII symbol repeating the one before it.
const REPEAT: u64 = 22;

/// Word costs by prefix (none, space, other blank, ASCII punctuation,
/// non-ASCII), shape (UPPER, lower, Capitalised, MiXed) and ASCII letters.
static WORD: [[[u16; WORD_MAX + 1]; 4]; 5] = [
    [
        [
            0, 66, 68, 91, 91, 91, 127, 127, 127, 127, 191, 208, 224, 241, 257, 274, 290, 307, 323,
            340, 356, 373, 389, 406, 422,
        ],
        [
            0, 66, 66, 69, 69, 82, 82, 82, 99, 111, 111, 130, 137, 137, 142, 180, 196, 213, 229,
            246, 262, 279, 295, 312, 328,
        ],
        [
            0, 66, 68, 68, 71, 71, 72, 75, 80, 80, 80, 90, 92, 92, 105, 121, 138, 154, 171, 187,
            204, 220, 237, 253, 270,
        ],
        [
            0, 66, 66, 78, 94, 111, 127, 144, 160, 177, 193, 210, 226, 243, 259, 276, 292, 309,
            325, 342, 358, 375, 391, 408, 424,
        ],
    ],
    [
        [
            7, 66, 67, 78, 79, 80, 80, 80, 80, 87, 87, 88, 88, 88, 88, 88, 88, 104, 120, 137, 153,
            169, 186, 202, 219,
        ],
        [
            7, 66, 66, 67, 68, 69, 71, 71, 79, 79, 81, 87, 87, 87, 87, 106, 141, 157, 174, 190,
            207, 223, 239, 256, 272,
        ],
        [
            7, 66, 67, 67, 69, 75, 77, 77, 89, 89, 95, 95, 98, 98, 98, 98, 109, 125, 142, 158, 175,
            191, 208, 224, 241,
        ],
        [
            7, 66, 66, 69, 116, 135, 144, 152, 169, 185, 202, 218, 235, 251, 268, 284, 301, 317,
            334, 350, 367, 383, 400, 416, 433,
        ],
    ],
    [
        [
            66, 66, 83, 99, 116, 132, 149, 165, 182, 198, 215, 231, 248, 264, 281, 297, 314, 330,
            347, 363, 380, 396, 412, 429, 445,
        ],
        [
            66, 66, 66, 87, 107, 128, 144, 161, 177, 194, 210, 227, 243, 259, 276, 292, 309, 325,
            342, 358, 375, 391, 408, 424, 441,
        ],
        [
            66, 112, 128, 128, 139, 173, 196, 206, 219, 239, 239, 253, 269, 286, 302, 319, 335,
            352, 368, 385, 401, 418, 434, 451, 467,
        ],
        [
            66, 132, 149, 165, 182, 198, 215, 231, 248, 264, 281, 297, 314, 330, 347, 363, 380,
            396, 412, 429, 445, 462, 478, 495, 511,
        ],
    ],
    [
        [
            60, 74, 94, 107, 107, 109, 126, 126, 161, 161, 161, 177, 193, 210, 226, 243, 259, 275,
            292, 308, 325, 341, 358, 374, 391,
        ],
        [
            60, 71, 87, 88, 88, 88, 98, 106, 140, 141, 146, 159, 173, 211, 232, 232, 232, 245, 262,
            278, 295, 311, 327, 344, 360,
        ],
        [
            60, 96, 109, 109, 109, 109, 119, 127, 162, 162, 164, 164, 171, 188, 204, 221, 237, 254,
            270, 286, 303, 319, 336, 352, 369,
        ],
        [
            60, 99, 116, 132, 149, 165, 182, 198, 215, 231, 248, 264, 281, 297, 314, 330, 347, 363,
            380, 396, 412, 429, 445, 462, 478,
        ],
    ],
    [
        [
            66, 74, 94, 97, 101, 109, 126, 126, 161, 161, 161, 177, 193, 210, 226, 243, 259, 275,
            292, 308, 325, 341, 358, 374, 391,
        ],
        [
            66, 70, 85, 85, 85, 85, 95, 106, 119, 133, 146, 159, 173, 211, 232, 232, 232, 245, 262,
            278, 295, 311, 327, 344, 360,
        ],
        [
            66, 96, 104, 104, 104, 105, 116, 127, 162, 162, 164, 164, 171, 188, 204, 221, 237, 254,
            270, 286, 303, 319, 336, 352, 369,
        ],
        [
            66, 132, 149, 165, 182, 198, 215, 231, 248, 264, 281, 297, 314, 330, 347, 363, 380,
            396, 412, 429, 445, 462, 478, 495, 511,
        ],
    ],
];

/// Multipliers (x64) for vowel-free, vowel-poor (under a quarter) and
/// other words, by ASCII letters.
static VOWELS: [[u16; VOWEL_MAX + 1]; 3] = [
    [
        64, 64, 64, 74, 98, 120, 156, 156, 156, 156, 156, 156, 156, 156, 156, 156, 156,
    ],
    [
        64, 64, 64, 64, 64, 64, 75, 112, 129, 129, 129, 129, 129, 129, 129, 129, 129,
    ],
    [
        64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
    ],
];

/// Punctuation-run costs by leading space, one repeated character, trailing
/// newline, and ASCII symbols in the run.
static PUNCT: [[[[u16; PUNCT_MAX + 1]; 2]; 2]; 2] = [
    [
        [
            [
                0, 66, 67, 77, 124, 151, 189, 243, 265, 298, 331, 364, 397, 430, 463, 496, 528,
            ],
            [
                0, 66, 67, 76, 93, 131, 181, 221, 229, 237, 245, 253, 261, 269, 276, 284, 292,
            ],
        ],
        [
            [
                0, 66, 66, 66, 73, 80, 86, 93, 99, 106, 113, 119, 126, 132, 139, 146, 152,
            ],
            [
                0, 67, 70, 84, 90, 97, 103, 109, 116, 122, 129, 135, 141, 148, 154, 161, 167,
            ],
        ],
    ],
    [
        [
            [
                0, 66, 71, 120, 136, 155, 155, 170, 203, 236, 269, 302, 335, 368, 401, 434, 467,
            ],
            [
                0, 66, 67, 98, 134, 173, 191, 210, 230, 249, 268, 288, 307, 326, 346, 365, 384,
            ],
        ],
        [
            [
                0, 66, 66, 66, 73, 80, 86, 93, 99, 106, 113, 119, 126, 132, 139, 146, 152,
            ],
            [
                0, 66, 70, 70, 81, 95, 108, 121, 135, 148, 161, 174, 188, 201, 214, 228, 241,
            ],
        ],
    ],
];

/// Sums piece costs.
#[derive(Default)]
pub(crate) struct Cost {
    total: u64,
}

impl Cost {
    /// Whole tokens, rounded up.
    pub(crate) fn tokens(&self) -> usize {
        self.total.div_ceil(UNIT) as usize
    }
}

/// [`WORD`] scaled by [`VOWELS`], for words of up to [`WORD_MAX`] letters.
static WORD_VOWELS: [[[[u16; WORD_MAX + 1]; 3]; 4]; 5] = {
    let mut t = [[[[0u16; WORD_MAX + 1]; 3]; 4]; 5];
    let mut p = 0;
    while p < 5 {
        let mut s = 0;
        while s < 4 {
            let mut v = 0;
            while v < 3 {
                let mut n = 0;
                while n <= WORD_MAX {
                    let m = if n < VOWEL_MAX { n } else { VOWEL_MAX };
                    t[p][s][v][n] = (WORD[p][s][n] as u64 * VOWELS[v][m] as u64 / UNIT) as u16;
                    n += 1;
                }
                v += 1;
            }
            s += 1;
        }
        p += 1;
    }
    t
};

/// The cost of one word piece.
#[inline]
pub(crate) fn word(w: &Word) -> u64 {
    let letters = (w.upper + w.lower) as usize;
    let shape = if w.lower == 0 {
        0
    } else if w.upper == 0 {
        1
    } else if w.upper == 1 {
        2
    } else {
        3
    };
    let vowels = if letters <= 2 || 4 * w.vowels as usize >= letters {
        2
    } else if w.vowels == 0 {
        0
    } else {
        1
    };
    let mut c = if letters <= WORD_MAX {
        WORD_VOWELS[w.prefix as usize][shape][vowels][letters] as u64
    } else {
        let base = WORD[w.prefix as usize][shape][WORD_MAX] as u64
            + (letters - WORD_MAX) as u64 * WORD_TAIL;
        base * VOWELS[vowels][VOWEL_MAX] as u64 / UNIT
    };
    if w.prefix == 4 {
        c += (w.prefix_cost.max(1) - 1) as u64 * UNIT;
    }
    if w.wide2 > 0 {
        c += WIDE2_FIRST + (w.wide2 - 1) as u64 * WIDE2_NEXT;
    }
    c + w.wide3 as u64 * WIDE3 + w.wide_extra as u64 * UNIT
}

/// The cost of one punctuation piece.
#[inline]
pub(crate) fn punct(p: &Punct) -> u64 {
    let symbols = (p.ascii - p.controls) as usize;
    let tail = if p.same {
        PUNCT_TAIL_SAME
    } else {
        PUNCT_TAIL_MIXED
    };
    PUNCT[p.space as usize][p.same as usize][(p.newlines > 0) as usize][symbols.min(PUNCT_MAX)]
        as u64
        + symbols.saturating_sub(PUNCT_MAX) as u64 * tail
        + p.controls as u64 * CONTROL
        + p.slashes as u64 * SLASH
        + p.wide_cost as u64 * UNIT
        - p.repeats as u64 * (UNIT - REPEAT)
}

/// The cost of a whitespace piece: one token up to 63 bytes.
#[inline]
pub(crate) fn blank(len: usize) -> u64 {
    UNIT + (len as u64 >> 6) * UNIT
}

impl Sink for Cost {
    #[inline]
    fn word(&mut self, _span: Range<usize>, w: &Word) {
        self.total += word(w);
    }
    #[inline]
    fn digits(&mut self, _span: Range<usize>) {
        // o200k has every string of one to three digits as a single token.
        self.total += UNIT;
    }
    #[inline]
    fn punct(&mut self, _span: Range<usize>, p: &Punct) {
        self.total += punct(p);
    }
    #[inline]
    fn blank(&mut self, span: Range<usize>, _newline: bool) {
        self.total += blank(span.len());
    }
}
