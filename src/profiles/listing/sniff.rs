//! The listers' own shapes, for output that no longer names its command,
//! and the command each shape stands for (the reader follows flags: `-l`,
//! `-R`, `-s`).
//!
//! Claimed, when every line of the head is of the shape and there are at
//! least three: `ls -l` (mode strings such as `-rw-r--r--` and
//! `drwxr-xr-x`, then the link count; `total N` lines, and with `-R` the
//! `dir:` headers and blank lines between); `ls -R` (a `.:` or `./dir:`
//! header first); `find -ls` (inode, blocks, mode string); `du`
//! (`size⇥path`, the tab being du's); `tree` (a root line, then
//! `├── `/`|-- ` branches); `find` (a root, then only paths under it:
//! `.`, `./a`, `./a/b`).
//!
//! Refused, as they cannot be told by content: a bare path list with no
//! root line (`fd`, `rg --files`, `git ls-files`, `find` with several
//! roots: the shape of `grep -l` and `gofmt -l` too), and plain `ls`
//! (names in columns, the shape of any word list).

use std::sync::LazyLock;

use regex::Regex;

use crate::profiles::sniff;

/// `-rw-r--r-- 1 …`, `drwxr-xr-x. 2 …`, `lrwxrwxrwx 1 …`.
static LONG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[-dlcbpsD][rwxsStT-]{9}[.+@]? +\d+ \S").expect("static")
});
/// `find -ls`: inode, blocks, mode string, links.
static FIND_LS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ *\d+ +\d+ +[-dlcbps][rwxsStT-]{9}[.+@]? +\d+ ").expect("static")
});
/// `du`: a size, a tab, a path.
static DU: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d+(?:[.,]\d+)?)([KMGTPE]?)\t(\S.*)$").expect("static"));

/// The least number of entries a shape must hold.
const RUN: usize = 3;

/// The shape of a head: the command it stands for, and why.
pub fn shape(head: &str) -> Option<(&'static [&'static str], &'static str)> {
    let lines = sniff::lines(head);
    let first = *lines.first()?;
    if lines.len() < RUN {
        return None;
    }
    let header = |l: &str| l.ends_with(':') && (l == ".:" || l.starts_with("./") || l.starts_with('/'));
    if long(&lines) {
        let recursive = header(first);
        let dots = lines.iter().any(|l| l.ends_with(" .") || l.ends_with(" .."));
        return Some(match (recursive, dots) {
            (true, _) => (&["ls", "-lR"], "`ls -lR` sections of mode-string lines"),
            (false, true) => (&["ls", "-la"], "a run of `ls -l` mode-string lines"),
            (false, false) => (&["ls", "-l"], "a run of `ls -l` mode-string lines"),
        });
    }
    if first == ".:" {
        return Some((&["ls", "-R"], "`ls -R` sections (`.:` first)"));
    }
    if sniff::all_of(&lines, RUN, |l| FIND_LS.is_match(l)) {
        return Some((&["find", ".", "-ls"], "a run of `find -ls` lines"));
    }
    if let Some(du) = du(&lines) {
        return Some((du, "a run of `size⇥path` lines (du)"));
    }
    if tree(&lines) {
        return Some((&["tree"], "a `tree` drawing"));
    }
    if first == "." && lines[1..].iter().all(|l| l.starts_with("./") || find_error(l)) {
        return Some((&["find", "."], "a `find .` path list (the root first)"));
    }
    None
}

/// Why a head is a lister's, when it is: its shape, read by the profile as
/// the command the shape stands for.
pub fn detect(head: &str) -> Option<String> {
    let (argv, why) = shape(head)?;
    let lines = sniff::lines(head);
    sniff::reads_whole(&super::ListingProfile, &lines, argv, 0).then(|| why.to_string())
}

fn find_error(line: &str) -> bool {
    line.starts_with("find: ")
}

/// Every line an `ls -l` entry, a `total N`, a blank line, a section
/// header or an `ls:` error; at least [`RUN`] entries.
fn long(lines: &[&str]) -> bool {
    let mut entries = 0;
    for l in lines {
        if LONG.is_match(l) {
            entries += 1;
        } else if !(l.is_empty()
            || l.ends_with(':')
            || l.starts_with("ls: ")
            || l.strip_prefix("total ").is_some_and(|n| n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.')))
        {
            return false;
        }
    }
    entries >= RUN
}

/// du's flags for a run of `size⇥path` lines: `-h` when a size carries a
/// unit, `-s` when no path is nested (the operands summarized).
fn du(lines: &[&str]) -> Option<&'static [&'static str]> {
    let (mut human, mut nested) = (false, false);
    for l in lines {
        let c = DU.captures(l)?;
        human |= !c[2].is_empty() || c[1].contains(['.', ',']);
        nested |= c[3].contains('/');
    }
    Some(match (human, nested) {
        (true, true) => &["du", "-h"],
        (true, false) => &["du", "-sh"],
        (false, true) => &["du"],
        (false, false) => &["du", "-s"],
    })
}

/// A root line, then branches (`├── `, `└── `, `|-- `, `` `-- ``) with
/// their rails; at least [`RUN`] branches.
fn tree(lines: &[&str]) -> bool {
    let branch = |l: &str| {
        let mut l = l;
        while let Some(rest) = ["│\u{a0}\u{a0} ", "│   ", "|   ", "    "]
            .iter()
            .find_map(|rail| l.strip_prefix(rail))
        {
            l = rest;
        }
        ["├── ", "└── ", "|-- ", "`-- "].iter().any(|b| l.starts_with(b))
    };
    let first = lines[0];
    !first.starts_with(char::is_whitespace)
        && lines[1..].iter().filter(|l| branch(l)).count() >= RUN
        && lines[1..].iter().all(|l| branch(l) || l.is_empty() || l.ends_with(" files") || l.ends_with(" file"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let ls = "total 8\ndrwxr-xr-x 2 a a 4096 Nov 30 12:00 .\n-rw-r--r-- 1 a a 1 Nov 30 12:00 x\n-rw-r--r-- 1 a a 1 Nov 30 12:00 y\n";
        assert_eq!(shape(ls).map(|s| s.0), Some(&["ls", "-la"][..]));
        let du = "4.0K\t./a\n8.0K\t./b\n12K\t.\n";
        assert_eq!(shape(du).map(|s| s.0), Some(&["du", "-h"][..]));
        let find = ".\n./a\n./a/b\n";
        assert_eq!(shape(find).map(|s| s.0), Some(&["find", "."][..]));
    }

    #[test]
    fn refusals() {
        // A bare path list, a word list, a table with tabs.
        assert!(shape("src/a.rs\nsrc/b.rs\nsrc/c.rs\n").is_none());
        assert!(shape("alpha beta\ngamma\ndelta\n").is_none());
        assert!(shape("name\tvalue\nx\t1\ny\t2\n").is_none());
    }
}
