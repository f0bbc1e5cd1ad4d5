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
        if bytes.is_empty() {
            return LineIndex::default();
        }
        let starts = std::iter::once(0).chain(
            memchr::memchr_iter(b'\n', bytes)
                .map(|nl| nl + 1)
                .filter(|&s| s < bytes.len()),
        );
        if u32::try_from(bytes.len()).is_ok() {
            let mut v = Vec::with_capacity(bytes.len() / 64 + 1);
            // Every start is below the length, which fits.
            v.extend(starts.map(|s| s as u32));
            v.shrink_to_fit();
            LineIndex(Starts::Narrow(v))
        } else {
            let mut v: Vec<usize> = Vec::with_capacity(bytes.len() / 64 + 1);
            v.extend(starts);
            v.shrink_to_fit();
            LineIndex(Starts::Wide(v))
        }
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
}
