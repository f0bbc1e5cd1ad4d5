//! `tree`: a root line, then one line per entry drawn under its folder
//! (`├── `, `└── `, `│   ` in UTF-8; `|-- `, `` `-- ``, `|   ` in the C
//! locale), and a closing `N directories, M files` line. The depth is the
//! number of four-character steps before the name; the path is the names
//! of the folders above joined with `/` (tree's `-f` prints it whole).

use crate::artifact::Artifact;
use crate::profiles::visible;

use super::entry::{Entry, Kind, is_mode, parse_size};
use super::options::Options;
use super::read::{Listing, join};

/// The drawn prefix of one depth step, before the name.
const CONNECTORS: [&str; 4] = ["├── ", "└── ", "|-- ", "`-- "];
const STEPS: [&str; 3] = ["│   ", "|   ", "    "];

pub fn read(artifact: &Artifact, o: &Options, lines: &[usize], l: &mut Listing) {
    // The folders above the current line, by depth (0: the root).
    let mut stack: Vec<String> = Vec::new();
    let mut last_depth = 0usize;
    let mut last_entry: Option<usize> = None;
    for &n in lines {
        let t = visible(artifact, n);
        let t = t.as_ref();
        if t.is_empty() {
            continue;
        }
        if is_summary(t) {
            l.conclusion.push(n);
            continue;
        }
        let Some((depth, rest)) = drawn(t) else {
            // An undrawn line is a root (the first, or another operand).
            stack.clear();
            stack.push(t.to_string());
            l.roots.push((n, t.to_string()));
            last_depth = 0;
            last_entry = None;
            continue;
        };
        if stack.is_empty() {
            l.unmatched += 1;
            continue;
        }
        // A line deeper than the last one: the last entry is a folder.
        if depth > last_depth
            && let Some(i) = last_entry
        {
            l.entries[i].kind = Kind::Dir;
        }
        let (name, mut e) = bracketed(n, rest);
        let (name, target) = match name.split_once(" -> ") {
            Some((a, b)) => (a, Some(b.to_string())),
            None => (name, None),
        };
        let mut name = name.to_string();
        if o.classify && name.len() > 1 && name.ends_with('/') {
            name.pop();
            e.kind = Kind::Dir;
        }
        if target.is_some() {
            e.kind = Kind::Link;
        }
        e.target = target;
        stack.truncate(depth);
        e.path = if o.full_paths {
            name.clone()
        } else {
            join(stack.last().map(String::as_str), &name)
        };
        stack.push(e.path.clone());
        last_depth = depth;
        last_entry = Some(l.entries.len());
        l.entries.push(e);
    }
}

/// `10 directories, 63 files` (`1 directory`, `-d`: directories alone).
fn is_summary(t: &str) -> bool {
    let mut words = t.split([' ', ',']).filter(|w| !w.is_empty());
    let ok = |n: Option<&str>, w: Option<&str>, nouns: &[&str]| {
        n.is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            && w.is_some_and(|w| nouns.contains(&w))
    };
    ok(words.next(), words.next(), &["directory", "directories"])
        && match (words.next(), words.next()) {
            (None, _) => true,
            (n, w) => ok(n, w, &["file", "files"]) && words.next().is_none(),
        }
}

/// The depth and the text after the connector, when `t` is drawn.
fn drawn(t: &str) -> Option<(usize, &str)> {
    let mut rest = t;
    let mut depth = 1;
    loop {
        if let Some(r) = CONNECTORS.iter().find_map(|c| rest.strip_prefix(c)) {
            return Some((depth, r));
        }
        rest = STEPS.iter().find_map(|s| rest.strip_prefix(s))?;
        depth += 1;
    }
}

/// `[-rw-r--r-- 4.0K]  name` (tree -p, -s, -h, -u, -D): the bracket's
/// mode and size, and the name after it.
fn bracketed(n: usize, rest: &str) -> (&str, Entry) {
    let mut e = Entry::new(n, String::new(), Kind::File);
    let Some(inner) = rest.strip_prefix('[') else {
        return (rest, e);
    };
    let Some((fields, name)) = inner.split_once("]  ") else {
        return (rest, e);
    };
    for f in fields.split_whitespace() {
        if is_mode(f) {
            e.kind = Kind::from_mode(f);
            e.mode = Some(f.to_string());
        } else if let Some(s) = parse_size(f) {
            e.size = Some(s);
        }
    }
    (name, e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;

    fn listing(cmd: &str, out: &str) -> Listing {
        let argv: Vec<String> = cmd.split(' ').map(String::from).collect();
        let o = Options::from_argv(&argv).expect("a listing");
        let a = Artifact::from_stdout(out.as_bytes().to_vec(), Exit::Code(0), argv);
        super::super::read::read(&a, &o)
    }

    #[test]
    fn ascii_and_utf8_drawings() {
        for out in [
            ".\n|-- a\n|   `-- b.rs\n`-- c.md\n\n1 directory, 2 files\n",
            ".\n├── a\n│   └── b.rs\n└── c.md\n\n1 directory, 2 files\n",
        ] {
            let l = listing("tree", out);
            let got: Vec<(&str, Kind)> = l
                .entries
                .iter()
                .map(|e| (e.path.as_str(), e.kind))
                .collect();
            assert_eq!(
                got,
                [
                    ("./a", Kind::Dir),
                    ("./a/b.rs", Kind::File),
                    ("./c.md", Kind::File)
                ]
            );
            assert_eq!(l.conclusion, [6]);
            assert_eq!(l.unmatched, 0);
        }
    }

    #[test]
    fn brackets_links_and_summaries() {
        let l = listing(
            "tree -ph",
            ".\n`-- [lrwxrwxrwx   18]  d.txt -> gone.txt\n\n0 directories, 1 file\n",
        );
        assert_eq!(l.entries[0].kind, Kind::Link);
        assert_eq!(l.entries[0].path, "./d.txt");
        assert_eq!(l.entries[0].target.as_deref(), Some("gone.txt"));
        assert!(is_summary("1 directory"));
        assert!(is_summary("10 directories, 63 files"));
        assert!(!is_summary("10 directories, 63 files, 2 links"));
    }
}
