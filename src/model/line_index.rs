//! Where each line of an artifact starts, kept as compactly as the input
//! allows: 4 bytes per line for inputs under 4 GiB (every offset fits a
//! `u32`), 8 beyond. The index is the one structure besides the bytes
//! that grows with the input (a 500 MB log of 70-byte lines has 7 M
//! lines: 28 MB instead of 57 MB).

/// Offsets of the first byte of every line, in order.
#[derive(Clone, Debug, Default)]
pub struct LineIndex(Starts);

#[derive(Clone, Debug)]
enum Starts {
    Narrow(Vec<u32>),
    Wide(Vec<usize>),
}

impl Default for Starts {
    fn default() -> Self {
        Starts::Narrow(Vec::new())
    }
}

impl LineIndex {
    /// The line starts of `bytes` under the `Artifact` rule: a line ends
    /// at `\n`, a final line without one counts, a trailing `\n` opens no
    /// line.
    pub fn of(bytes: &[u8]) -> LineIndex {
        let mut b = Builder::new(bytes.len());
        b.push(bytes);
        b.finish()
    }

    pub fn len(&self) -> usize {
        match &self.0 {
            Starts::Narrow(v) => v.len(),
            Starts::Wide(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The start of the line at 0-based index `i`.
    pub fn get(&self, i: usize) -> Option<usize> {
        match &self.0 {
            Starts::Narrow(v) => v.get(i).map(|&s| s as usize),
            Starts::Wide(v) => v.get(i).copied(),
        }
    }

    /// How many lines start at or before `offset`.
    pub fn starting_at_or_before(&self, offset: usize) -> usize {
        match &self.0 {
            Starts::Narrow(v) => v.partition_point(|&s| (s as usize) <= offset),
            Starts::Wide(v) => v.partition_point(|&s| s <= offset),
        }
    }
}

/// Builds an index from the bytes in order, a piece at a time (so that a
/// mapped input's pages can be released behind the scan).
pub struct Builder {
    starts: Starts,
    /// Bytes seen so far.
    at: usize,
    total: usize,
}

impl Builder {
    /// For an input of `total` bytes.
    pub fn new(total: usize) -> Builder {
        let guess = total / 64 + 1;
        let starts = if u32::try_from(total).is_ok() {
            Starts::Narrow(Vec::with_capacity(guess))
        } else {
            Starts::Wide(Vec::with_capacity(guess))
        };
        Builder {
            starts,
            at: 0,
            total,
        }
    }

    /// The next bytes of the input.
    pub fn push(&mut self, bytes: &[u8]) {
        let (base, total) = (self.at, self.total);
        if base == 0 && !bytes.is_empty() {
            self.add(0);
        }
        for nl in memchr::memchr_iter(b'\n', bytes) {
            let start = base + nl + 1;
            if start < total {
                self.add(start);
            }
        }
        self.at += bytes.len();
    }

    fn add(&mut self, start: usize) {
        match &mut self.starts {
            // `new` chose Narrow only when every offset fits.
            Starts::Narrow(v) => v.push(start as u32),
            Starts::Wide(v) => v.push(start),
        }
    }

    pub fn finish(mut self) -> LineIndex {
        match &mut self.starts {
            Starts::Narrow(v) => v.shrink_to_fit(),
            Starts::Wide(v) => v.shrink_to_fit(),
        }
        LineIndex(self.starts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_follow_the_artifact_rule() {
        let idx = LineIndex::of(b"a\n\nbc\nd");
        assert_eq!(
            (0..idx.len())
                .filter_map(|i| idx.get(i))
                .collect::<Vec<_>>(),
            vec![0, 2, 3, 6]
        );
        assert_eq!(LineIndex::of(b"a\n").len(), 1);
        assert!(LineIndex::of(b"").is_empty());
        assert_eq!(idx.starting_at_or_before(0), 1);
        assert_eq!(idx.starting_at_or_before(2), 2);
        assert_eq!(idx.starting_at_or_before(5), 3);
        assert_eq!(idx.starting_at_or_before(100), 4);
        assert_eq!(idx.get(4), None);
    }

    #[test]
    fn built_in_pieces_it_is_the_same() {
        let bytes = b"one\ntwo\n\nthree\nfour";
        let whole = LineIndex::of(bytes);
        for step in 1..bytes.len() {
            let mut b = Builder::new(bytes.len());
            for piece in bytes.chunks(step) {
                b.push(piece);
            }
            let idx = b.finish();
            assert_eq!(idx.len(), whole.len());
            for i in 0..whole.len() {
                assert_eq!(idx.get(i), whole.get(i), "step {step}");
            }
        }
    }
}
