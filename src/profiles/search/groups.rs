//! What a search printed, file by file: the groups the readers build and
//! the error and binary-file notices around them.

/// One file's run of output lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub path: String,
    /// The heading line naming the file (`--heading`, `-l`, `-c` lines).
    pub heading: Option<usize>,
    /// Lines that are matches (one per match, in file order).
    pub matches: Vec<usize>,
    /// First and last line of the group, context lines included.
    pub first: usize,
    pub last: usize,
    /// The count the tool printed (`-c`), when it printed one.
    pub count: Option<u64>,
    /// Only a binary-file notice: the file matches, its lines are not shown.
    pub binary: bool,
    /// Only its name was printed (`-l`): it matches, how often is not said.
    pub named_only: bool,
}

impl Group {
    pub fn new(path: impl Into<String>, first: usize) -> Self {
        Group {
            path: path.into(),
            heading: None,
            matches: Vec::new(),
            first,
            last: first,
            count: None,
            binary: false,
            named_only: false,
        }
    }

    /// Extends the group to line `n` (a context or match line).
    pub fn reach(&mut self, n: usize) {
        self.first = self.first.min(n);
        self.last = self.last.max(n);
    }

    /// The number of matches, as exact as the output allows.
    pub fn match_count(&self) -> Option<u64> {
        if self.binary || self.named_only {
            None
        } else {
            Some(self.count.unwrap_or(self.matches.len() as u64))
        }
    }
}

/// Everything one read of the output found.
#[derive(Debug, Default)]
pub struct Found {
    pub groups: Vec<Group>,
    /// Error lines (permission denied, no such file, bad pattern).
    pub errors: Vec<usize>,
    /// The tool's closing summary lines (`rg --json`'s summary message).
    pub conclusion: Vec<usize>,
    pub unmatched: u64,
    /// Why the reading is less than exact, when it is.
    pub degraded: Option<String>,
}

impl Found {
    /// The group of `path` that ends just before line `n`, or a new one:
    /// a file's lines are contiguous, so a path seen again after another
    /// file's lines starts a group of its own.
    pub fn group_for(&mut self, path: &str, n: usize) -> &mut Group {
        let same = self.groups.last().is_some_and(|g| g.path == path);
        if !same {
            self.groups.push(Group::new(path, n));
        }
        let g = self.groups.last_mut().expect("pushed above");
        g.reach(n);
        g
    }

    /// A binary-file notice: the file matched, its lines are withheld.
    /// The notice names the file, so it is the file's heading.
    pub fn binary(&mut self, path: &str, n: usize) {
        let g = self.group_for(path, n);
        g.binary = g.matches.is_empty();
        g.heading.get_or_insert(n);
    }
}
