//! Reads ls, find and du output into entries; tree has its own reader.
//! Each entry keeps the line that names it and its path by the tool's own
//! convention, so `--item PATH` takes what the digest shows.

use std::collections::{BTreeMap, BTreeSet};

use crate::artifact::{Artifact, Stream};
use crate::profiles::visible;

use super::entry::{Anomaly, Entry, Kind, parse_size};
use super::long;
use super::options::{Options, Tool};

/// A folder the listing prints a section for (`ls -R`, several operands).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub path: String,
    pub header: usize,
    pub last: usize,
}

/// Everything one read of a listing found.
#[derive(Debug, Default)]
pub struct Listing {
    pub entries: Vec<Entry>,
    pub sections: Vec<Section>,
    /// Lines naming a folder the command was asked to list (find's `.`,
    /// tree's first line, du's operand total): the root, not an entry.
    pub roots: Vec<(usize, String)>,
    pub errors: Vec<usize>,
    /// The tool's closing summary (tree's counts, `du -c`'s total).
    pub conclusion: Vec<usize>,
    pub unmatched: u64,
    pub degraded: Option<String>,
}

/// `dir/name`, or `name` when the listing names no folder.
pub fn join(dir: Option<&str>, name: &str) -> String {
    match dir {
        None | Some("") => name.to_string(),
        Some(d) if d.ends_with('/') => format!("{d}{name}"),
        Some(d) => format!("{d}/{name}"),
    }
}

/// The folder part of a path (`""` for a bare name).
pub fn parent(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit_once('/')
        .map_or("", |(d, _)| if d.is_empty() { "/" } else { d })
}

pub fn read(artifact: &Artifact, o: &Options) -> Listing {
    let mut l = Listing::default();
    let stdout: Vec<usize> = (1..=artifact.line_count())
        .filter(|&n| artifact.stream_of_line(n) == Stream::Stdout)
        .collect();
    match o.tool {
        Tool::Ls => read_ls(artifact, o, &stdout, &mut l),
        Tool::Find => read_find(artifact, o, &stdout, &mut l),
        Tool::Du => read_du(artifact, o, &stdout, &mut l),
        Tool::Tree => super::tree::read(artifact, o, &stdout, &mut l),
    }
    for n in (1..=artifact.line_count()).filter(|&n| artifact.stream_of_line(n) == Stream::Stderr) {
        if !visible(artifact, n).trim().is_empty() {
            l.errors.push(n);
        }
    }
    if let Some(why) = o.foreign {
        l.degraded = Some(format!("{why}: read as one path per line"));
    }
    finish(&mut l, o);
    l
}

fn read_ls(artifact: &Artifact, o: &Options, lines: &[usize], l: &mut Listing) {
    let sections_possible = o.recursive || o.operands.len() > 1;
    let mut after_blank = true;
    let mut dir: Option<String> = None;
    for &n in lines {
        let t = visible(artifact, n);
        let t = t.as_ref();
        if t.is_empty() {
            after_blank = true;
            continue;
        }
        let header = sections_possible && after_blank && t.ends_with(':') && t.len() > 1;
        after_blank = false;
        if let Some(s) = l.sections.last_mut() {
            s.last = n;
        }
        if header {
            let path = t[..t.len() - 1].to_string();
            l.sections.push(Section {
                path: path.clone(),
                header: n,
                last: n,
            });
            dir = Some(path);
            continue;
        }
        if t.strip_prefix("total ")
            .is_some_and(|r| parse_size(r.trim()).is_some())
        {
            continue;
        }
        let entry = if o.long {
            long::parse(n, t, o.numbers_first)
        } else {
            plain(n, t, o)
        };
        let Some(mut e) = entry else {
            l.unmatched += 1;
            continue;
        };
        if e.path == "." || e.path == ".." {
            continue;
        }
        e.path = join(dir.as_deref(), &e.path);
        l.entries.push(e);
    }
}

/// A name alone (`ls`, `ls -1`, `ls -F`), after any `-s`/`-i` numbers.
fn plain(n: usize, t: &str, o: &Options) -> Option<Entry> {
    let mut rest = t.trim_start();
    for _ in 0..o.numbers_first {
        let (num, r) = rest.split_once(char::is_whitespace)?;
        num.bytes().all(|b| b.is_ascii_digit()).then_some(())?;
        rest = r.trim_start();
    }
    let mut kind = Kind::Unknown;
    let mut name = rest;
    if o.classify && name.len() > 1 {
        let (head, last) = name.split_at(name.len() - 1);
        kind = match last {
            "/" => Kind::Dir,
            "@" => Kind::Link,
            "*" => Kind::File,
            "|" | "=" => Kind::Other,
            _ => Kind::Unknown,
        };
        if kind != Kind::Unknown {
            name = head;
        } else {
            kind = Kind::File;
        }
    }
    Some(Entry::new(n, name.to_string(), kind))
}

fn read_find(artifact: &Artifact, o: &Options, lines: &[usize], l: &mut Listing) {
    let roots: Vec<&str> = if o.operands.is_empty() {
        vec!["."]
    } else {
        o.operands.iter().map(String::as_str).collect()
    };
    for &n in lines {
        let t = visible(artifact, n);
        let t = t.as_ref();
        if t.is_empty() {
            l.unmatched += 1;
            continue;
        }
        let entry = if o.long {
            long::parse(n, t, 2)
        } else {
            let kind = match o.find_type {
                Some('d') => Kind::Dir,
                Some('f') => Kind::File,
                _ => Kind::Unknown,
            };
            Some(Entry::new(n, t.to_string(), kind))
        };
        let Some(e) = entry else {
            l.unmatched += 1;
            continue;
        };
        if roots.contains(&e.path.as_str()) {
            l.roots.push((n, e.path));
            continue;
        }
        l.entries.push(e);
    }
}

fn read_du(artifact: &Artifact, o: &Options, lines: &[usize], l: &mut Listing) {
    let roots: Vec<&str> = match (o.du_summary, o.operands.is_empty()) {
        (true, _) => Vec::new(),
        (false, true) => vec!["."],
        (false, false) => o.operands.iter().map(String::as_str).collect(),
    };
    for &n in lines {
        let t = visible(artifact, n);
        let Some((size, path)) = t.split_once('\t') else {
            l.unmatched += 1;
            continue;
        };
        if path == "total" && n == *lines.last().unwrap_or(&0) {
            l.conclusion.push(n);
            continue;
        }
        if roots.contains(&path) {
            l.roots.push((n, path.to_string()));
            continue;
        }
        let kind = if o.du_all || o.du_summary {
            Kind::Unknown
        } else {
            Kind::Dir
        };
        let mut e = Entry::new(n, path.to_string(), kind);
        // du prints disk usage, not the file's length: kept as a size all
        // the same, it is what the reader asked about.
        e.size = parse_size(size.trim());
        l.entries.push(e);
    }
}

/// What needs the whole listing: folders told by their contents, dangling
/// symlinks, the anomalies each mode string shows, the largest files.
fn finish(l: &mut Listing, o: &Options) {
    let mut folders: BTreeSet<String> = l.sections.iter().map(|s| s.path.clone()).collect();
    for e in &l.entries {
        let mut p = parent(&e.path);
        while !p.is_empty() && p != "/" && folders.insert(p.to_string()) {
            p = parent(p);
        }
    }
    let mut names: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in &l.entries {
        names
            .entry(parent(&e.path).to_string())
            .or_default()
            .insert(e.name().to_string());
    }
    // Siblings are complete when the tool lists whole folders (ls, tree,
    // a find without tests): a relative target naming no sibling is gone.
    let whole_folders = !o.find_filtered;
    for e in &mut l.entries {
        if e.kind == Kind::Unknown && folders.contains(&e.path) {
            e.kind = Kind::Dir;
        }
        e.mark_from_mode();
        let unreadable = e.mode.as_deref().is_some_and(|m| m.starts_with("l?"));
        let gone = whole_folders
            && e.target.as_deref().is_some_and(|t| {
                !t.contains('/')
                    && !t.starts_with('.')
                    && !names
                        .get(parent(&e.path))
                        .is_some_and(|siblings| siblings.contains(t))
            });
        if e.kind == Kind::Link && (unreadable || gone) {
            e.anomalies.insert(0, Anomaly::DanglingLink);
        }
    }
    if o.tool == Tool::Du {
        return;
    }
    let mut sized: Vec<(u64, usize)> = l
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == Kind::File)
        .filter_map(|(i, e)| e.size.map(|s| (s, i)))
        .collect();
    if sized.len() > LARGEST {
        sized.sort_by_key(|&(s, i)| (std::cmp::Reverse(s), i));
        for &(s, i) in sized.iter().take(LARGEST) {
            if s > 0 {
                l.entries[i].anomalies.push(Anomaly::Largest);
            }
        }
    }
}

/// How many of the largest files are kept whole.
pub const LARGEST: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;

    fn listing(cmd: &str, out: &str) -> Listing {
        let argv: Vec<String> = cmd.split(' ').map(String::from).collect();
        let o = Options::from_argv(&argv).expect("a listing");
        let a = Artifact::from_stdout(out.as_bytes().to_vec(), Exit::Code(0), argv);
        read(&a, &o)
    }

    fn paths(l: &Listing) -> Vec<(&str, Kind)> {
        l.entries
            .iter()
            .map(|e| (e.path.as_str(), e.kind))
            .collect()
    }

    #[test]
    fn ls_recursive_sections_join_their_folder() {
        let out = ".:\ntotal 4\ndrwxr-xr-x 2 u g 4096 Nov 30 12:00 bin\n\n./bin:\ntotal 4\n-rwsr-xr-x 1 u g 18 Nov 30 12:00 tool\n";
        let l = listing("ls -lR", out);
        assert_eq!(
            paths(&l),
            [("./bin", Kind::Dir), ("./bin/tool", Kind::File)]
        );
        assert_eq!(l.sections.len(), 2);
        assert_eq!(l.entries[1].anomalies, [Anomaly::Setuid]);
        assert_eq!(l.unmatched, 0);
    }

    #[test]
    fn find_folders_are_told_by_their_contents() {
        let l = listing("find .", ".\n./a\n./a/b.rs\n./c.md\n./empty\n");
        assert_eq!(
            paths(&l),
            [
                ("./a", Kind::Dir),
                ("./a/b.rs", Kind::Unknown),
                ("./c.md", Kind::Unknown),
                ("./empty", Kind::Unknown)
            ]
        );
        assert_eq!(l.roots, [(1, ".".to_string())]);
    }

    #[test]
    fn dangling_links_name_no_sibling() {
        let out = "total 0\nlrwxrwxrwx 1 u g 7 Nov 30 12:00 a -> missing\nlrwxrwxrwx 1 u g 1 Nov 30 12:00 b -> c\n-rw-r--r-- 1 u g 1 Nov 30 12:00 c\n";
        let l = listing("ls -l", out);
        assert_eq!(l.entries[0].anomalies, [Anomaly::DanglingLink]);
        assert!(l.entries[1].anomalies.is_empty());
    }

    #[test]
    fn du_lines_and_the_root() {
        let l = listing("du -h", "8.0K\t./a\n12K\t.\n");
        assert_eq!(paths(&l), [("./a", Kind::Dir)]);
        assert_eq!(l.roots.len(), 1);
        let l = listing("du -sh a b", "8.0K\ta\n4.0K\tb\n");
        assert_eq!(l.entries.len(), 2);
        assert_eq!(l.entries[0].size, Some(8192));
    }
}
