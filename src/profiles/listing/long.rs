//! The long line `ls -l` and `find -ls` share: mode, link count, owner and
//! group, size, date, name, and ` -> target` for a symlink.

use std::sync::LazyLock;

use regex::Regex;

use super::entry::{Entry, Kind, is_mode, parse_size};

/// After the mode and link count: owner/group words, the size (or a
/// device's `major, minor`), a date in any of ls's time styles, the name.
static AFTER_MODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^\s*\d+\s+(?:\S+\s+){0,2}?",
        r"(?P<size>\d+(?:[.,]\d+)?[KMGTPE]?|\d+,\s*\d+)\s+",
        r"(?P<date>[A-Z][a-z]{2}\s+\d{1,2}\s+(?:\d{1,2}:\d{2}|\d{4})",
        r"|\d{1,2}\s+[A-Z][a-z]{2}\s+(?:\d{1,2}:\d{2}|\d{4})",
        r"|\d{4}-\d{2}-\d{2}(?:\s+\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s+[+-]\d{4})?)?",
        r"|\d{2}-\d{2}\s+\d{2}:\d{2})",
        r" (?P<name>.*)$",
    ))
    .expect("static")
});

/// A long line's entry, its name not yet joined to its folder; `None`
/// when the line is not one. `skip` numbers come before the mode (`ls -s`,
/// `ls -i`, `find -ls`'s inode and blocks).
pub fn parse(line: usize, text: &str, skip: usize) -> Option<Entry> {
    let mut rest = text.trim_start();
    for _ in 0..skip {
        let (n, r) = rest.split_once(char::is_whitespace)?;
        if !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        rest = r.trim_start();
    }
    let (mode, after) = rest.split_once(char::is_whitespace)?;
    if !is_mode(mode) {
        return None;
    }
    let c = AFTER_MODE.captures(after)?;
    let kind = Kind::from_mode(mode);
    let raw_name = &c["name"];
    let (name, target) = match raw_name.split_once(" -> ") {
        Some((n, t)) if kind == Kind::Link => (n, Some(t.to_string())),
        _ => (raw_name, None),
    };
    let mut e = Entry::new(line, name.to_string(), kind);
    e.size = (!c["size"].contains(','))
        .then(|| parse_size(&c["size"]))
        .flatten();
    e.mode = Some(mode.to_string());
    e.target = target;
    Some(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ls_and_find_ls_lines() {
        let e = parse(1, "-rw-r--r-- 1 root root 3000000 Nov 30 12:00 blob.bin", 0).unwrap();
        assert_eq!(
            (e.path.as_str(), e.size, e.kind),
            ("blob.bin", Some(3_000_000), Kind::File)
        );
        let e = parse(
            1,
            "lrwxrwxrwx 1 root root 18 Nov 30 12:00 dangling.txt -> missing-target.txt",
            0,
        )
        .unwrap();
        assert_eq!(e.target.as_deref(), Some("missing-target.txt"));
        assert_eq!(e.path, "dangling.txt");
        let e = parse(
            1,
            " 10514381      4 drwxr-xr-x   2 root     root         4096 Nov 30 12:00 ./src",
            2,
        )
        .unwrap();
        assert_eq!((e.path.as_str(), e.kind), ("./src", Kind::Dir));
        let e = parse(1, "-rw-r--r-- 1 u g 4.0K 2026-11-30 12:00 a b.txt", 0).unwrap();
        assert_eq!((e.path.as_str(), e.size), ("a b.txt", Some(4096)));
        let e = parse(1, "crw-rw-rw- 1 root root 1, 3 Nov 30 12:00 null", 0).unwrap();
        assert_eq!((e.kind, e.size), (Kind::Other, None));
        // ls -g / -o print one of owner and group.
        assert!(parse(1, "-rw-r--r-- 1 root 12 Nov 30 12:00 a", 0).is_some());
        assert!(parse(1, "total 16", 0).is_none());
    }
}
