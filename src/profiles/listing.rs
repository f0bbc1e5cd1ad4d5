//! listing/v1 — `ls` (`-l`, `-la`, `-R`, `-F`), `find` (plain, `-ls`,
//! `-type d|f`), `tree` (`-a`, `-f`, `-F`, `-p`, `-s`, `-h`) and `du` (`-h`,
//! `-a`, `-s`, `-sh *`).
//!
//! **Decision.** What is in this folder: which folders there are, how many
//! entries and of what kinds, and what is odd about any of them, so the
//! reader knows where to look next without reading every name.
//!
//! **Unsafe loss.** A folder left unnamed, an entry count that is not
//! exact, a dangling symlink, setuid/setgid or world-writable entry, an
//! empty file or one of the largest files dropped, a listed line rewritten
//! or moved out of the listing's order, or an error (`Permission denied`)
//! dropped (the listing was not complete).
//!
//! **Typed facts.** One `Directory` item per folder the listing names
//! (identity its path by the tool's convention: `./src` for find and tree,
//! `src` for `ls`; fields `entries`, `bytes`; detail its own entries'
//! lines; block its section or subtree for `ctx expand H --item PATH`).
//! One `FileType` item per extension (`.rs`, `(no extension)`,
//! `(symlink)`): fields `files` and `bytes`, detail its lines. One
//! `Anomaly` item per odd entry (class: `dangling symlink`, `setuid`,
//! `setgid`, `world-writable`, `empty file`, `largest`). Each stderr line
//! is an error `Diagnostic`. How lines are read follows argv.
//!
//! **Ladder.** VERBATIM (fits the budget) → DENSE (the raw listing in its
//! order: every folder's line, every anomaly and error line, each folder's
//! first entries round by round while the budget allows; each left-out run
//! one marker with its `--lines` address; a note of files by type with
//! counts and sizes) → FLOOD (the folders' lines alone exceed the ceiling:
//! folders named with their entry counts while they fit, the rest counted
//! by parent, all behind `--items`; anomalies and errors still whole).

use std::collections::BTreeMap;

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome, Precision, Severity,
};

use super::{Profile, ProfileSpec, ReceiptGroup};

mod entry;
mod long;
mod options;
mod read;
mod sniff;
mod tree;

use entry::{Entry, Kind};
use options::{Options, Tool};
use read::{Listing, parent};

pub struct ListingProfile;

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["ls", "find", "tree", "du"],
    ..ProfileSpec::new("listing/v1", "listing", ReceiptGroup::Everyday)
};

/// A folder's disk usage in bytes as du states it: what a du listing's
/// folders are named with, in place of an entry count.
pub const USAGE_FIELD: &str = "usage_bytes";

/// The `FileType` identity of entries that are not regular files.
const SYMLINKS: &str = "(symlink)";
const OTHER: &str = "(device, socket or pipe)";
const NO_EXTENSION: &str = "(no extension)";

impl Profile for ListingProfile {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        let o = Options::from_argv(argv)?;
        Some(format!("{} (listing)", o.name()))
    }

    fn by_content(&self, head: &str) -> Option<String> {
        sniff::detect(head)
    }

    fn view(&self, artifact: &Artifact) -> Option<Artifact> {
        super::escaped::view(artifact)
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        // Names are read as the view shows them (control bytes escaped),
        // so that the census names the files that exist.
        let view = super::escaped::view(artifact);
        let artifact = view.as_ref().unwrap_or(artifact);
        let stated = super::sniff::stated_argv(artifact);
        let argv = if Options::from_argv(&stated).is_some() {
            stated
        } else if let Some((argv, _)) = sniff::shape(&super::sniff::head(artifact)) {
            // No command named: the one the output's shape stands for.
            argv.iter().map(|w| w.to_string()).collect()
        } else {
            // `--as listing` on output of no known command: plain names.
            vec!["find".to_string()]
        };
        let o = Options::from_argv(&argv).expect("a listing command");
        let listing = read::read(artifact, &o);
        graph(artifact, &o, listing)
    }
}

fn graph(artifact: &Artifact, o: &Options, l: Listing) -> (EvidenceGraph, CoverageReceipt) {
    let mut items = Vec::new();
    folders(&l, o, &mut items);
    types(&l, &mut items);
    for e in l.entries.iter().filter(|e| !e.anomalies.is_empty()) {
        let mut item = EvidenceItem::new(ItemKind::Anomaly, Severity::Warning, e.path.clone());
        let words: Vec<&str> = e.anomalies.iter().map(|a| a.word()).collect();
        item.class = Some(words.join(", "));
        item.headline = Some(Span::line(e.line));
        if let Some(s) = e.size {
            item.fields.insert("bytes".into(), s.to_string());
        }
        items.push(item);
    }
    for &n in &l.errors {
        let text = crate::profiles::visible(artifact, n);
        let mut item = EvidenceItem::new(
            ItemKind::Diagnostic,
            Severity::Error,
            text.trim().to_string(),
        );
        item.headline = Some(Span::line(n));
        item.block = Some(Span::line(n));
        items.push(item);
    }
    let count = |k: Kind| l.entries.iter().filter(|e| e.kind == k).count() as u64;
    let dirs = items
        .iter()
        .filter(|i| i.kind == ItemKind::Directory && !i.fields.contains_key("root"))
        .count() as u64;
    let mut counts = vec![(
        word(l.entries.len() as u64, "entry", "entries"),
        l.entries.len() as u64,
    )];
    let known = l.entries.iter().all(|e| e.kind != Kind::Unknown);
    // A listing that does not mark kinds (a bare `find`, `du -s *`) knows
    // a folder only by the entries under it: an empty one reads as a
    // file. The count then says what it counts, and is left out when it
    // is none. `ls -R` gives every folder its own section, empty or not.
    let every_folder_known =
        known || (o.tool == Tool::Ls && o.recursive) || o.find_type == Some('d');
    if every_folder_known {
        counts.push((word(dirs, "directory", "directories"), dirs));
    } else if dirs > 0 {
        let noun = word(dirs, "directory with entries", "directories with entries");
        counts.push((noun, dirs));
    }
    if known && o.tool != Tool::Du {
        for (k, one, many) in [
            (Kind::File, "file", "files"),
            (Kind::Link, "symlink", "symlinks"),
            (Kind::Other, "other", "others"),
        ] {
            let n = count(k);
            if n > 0 || k == Kind::File {
                counts.push((word(n, one, many), n));
            }
        }
    }
    if !l.errors.is_empty() {
        let e = l.errors.len() as u64;
        counts.push((word(e, "error", "errors"), e));
    }
    let outcome = match artifact.exit {
        Exit::Signal(_) => Outcome::Interrupted,
        Exit::Code(0) if l.errors.is_empty() => Outcome::Ok,
        Exit::Code(_) => Outcome::Error,
        Exit::Unknown if !l.errors.is_empty() => Outcome::Error,
        Exit::Unknown if l.conclusion.is_empty() => Outcome::Unknown,
        Exit::Unknown => Outcome::Ok,
    };
    let mut receipt = CoverageReceipt::new(artifact.line_count() as u64);
    // Folders, anomalies and errors: the identities contracts/listing.toml requires.
    receipt.items_parsed = items
        .iter()
        .filter(|i| i.kind != ItemKind::FileType)
        .count() as u64;
    receipt.items_announced = announced_folders(artifact, &l);
    receipt.blocks_parsed = l.entries.len() as u64;
    receipt.lines_unmatched = l.unmatched;
    receipt.truncated = artifact.truncated;
    if let Some(why) = l.degraded.clone() {
        receipt.precision = Precision::Degraded(why);
    } else if let Some(announced) = receipt.items_announced
        && announced != dirs
    {
        receipt.precision = Precision::Degraded(format!(
            "tree counts {announced} directories, {dirs} told from the drawing (empty ones read as files)"
        ));
    }
    // The planner compares the announced count with census items, which
    // include anomalies and errors: only tree's folder count is announced.
    receipt.items_announced = receipt
        .items_announced
        .map(|_| receipt.items_parsed)
        .filter(|_| receipt.precision == Precision::Full);
    let graph = EvidenceGraph {
        reader: crate::evidence::Reader::family(o.name()),
        outcome,
        counts,
        items,
        conclusion: l.conclusion.iter().map(|&n| Span::line(n)).collect(),
    };
    (graph, receipt)
}

/// tree's closing line: how many directories it drew.
fn announced_folders(artifact: &Artifact, l: &Listing) -> Option<u64> {
    let n = *l.conclusion.first()?;
    let text = crate::profiles::visible(artifact, n);
    let (count, rest) = text.split_once(' ')?;
    rest.starts_with("director")
        .then(|| count.parse().ok())
        .flatten()
}

/// One `Directory` item per folder: the roots, then every folder in the
/// order the listing first names it.
fn folders(l: &Listing, o: &Options, items: &mut Vec<EvidenceItem>) {
    struct Folder {
        headline: usize,
        first: usize,
        last: usize,
        section: bool,
        root: bool,
        children: Vec<usize>,
        bytes: u64,
        /// The folder's own size as its line states it (du's disk usage).
        usage: Option<u64>,
    }
    let mut order: Vec<String> = Vec::new();
    let mut found: BTreeMap<String, Folder> = BTreeMap::new();
    fn add(
        found: &mut BTreeMap<String, Folder>,
        order: &mut Vec<String>,
        path: &str,
        line: usize,
        root: bool,
    ) {
        found.entry(path.to_string()).or_insert_with(|| {
            order.push(path.to_string());
            Folder {
                headline: line,
                first: line,
                last: line,
                section: false,
                root,
                children: Vec::new(),
                bytes: 0,
                usage: None,
            }
        });
    }
    for (n, path) in &l.roots {
        add(&mut found, &mut order, path, *n, true);
    }
    for e in l.entries.iter().filter(|e| e.kind == Kind::Dir) {
        add(&mut found, &mut order, &e.path, e.line, false);
        if let (Some(f), Some(size), Tool::Du) = (found.get_mut(&e.path), e.size, o.tool) {
            f.usage = Some(size);
        }
    }
    // A listing of files only (`find -type f`, `git ls-files`, `rg
    // --files`) names no folder of its own: each folder its paths pass
    // through is one, first seen at the line of its first entry, so that
    // every folder is still named with its count.
    if !l.entries.iter().any(|e| e.kind == Kind::Dir) && l.sections.is_empty() {
        for e in &l.entries {
            let mut up = parent(&e.path);
            let mut chain = Vec::new();
            while !up.is_empty() && up != "." && up != "/" && !found.contains_key(up) {
                chain.push(up);
                let next = parent(up);
                if next == up {
                    break;
                }
                up = next;
            }
            for folder in chain.into_iter().rev() {
                add(&mut found, &mut order, folder, e.line, false);
            }
        }
    }
    // A section's header names its folder best and its lines are its block.
    for s in &l.sections {
        let root = !found.contains_key(&s.path);
        add(
            &mut found,
            &mut order,
            &s.path,
            s.header,
            root && l.sections[0] == *s,
        );
        if let Some(f) = found.get_mut(&s.path) {
            f.headline = s.header;
            f.first = s.header;
            f.last = s.last;
            f.section = true;
        }
    }
    for e in &l.entries {
        let p = parent(&e.path);
        if let Some(f) = found.get_mut(p) {
            f.children.push(e.line);
            if e.kind == Kind::File {
                f.bytes += e.size.unwrap_or(0);
            }
        }
        // Each folder above the entry spans it (find, tree, du subtrees).
        let mut up = p;
        while !up.is_empty() {
            if let Some(f) = found.get_mut(up)
                && !f.section
            {
                f.first = f.first.min(e.line);
                f.last = f.last.max(e.line);
            }
            let next = parent(up);
            if next == up {
                break;
            }
            up = next;
        }
    }
    // In the listing's order: a section's folder where its header stands.
    order.sort_by_key(|p| found[p].headline);
    for path in order {
        let f = &found[&path];
        let mut item = EvidenceItem::new(ItemKind::Directory, Severity::Info, path.clone());
        item.headline = Some(Span::line(f.headline));
        item.block = Some(Span::new(f.first, f.last));
        item.detail = f.children.iter().map(|&n| Span::line(n)).collect();
        item.fields
            .insert("entries".into(), f.children.len().to_string());
        if f.bytes > 0 {
            item.fields.insert("bytes".into(), f.bytes.to_string());
        }
        if f.root {
            item.fields.insert("root".into(), "true".into());
        }
        if let Some(usage) = f.usage {
            item.fields.insert(USAGE_FIELD.into(), usage.to_string());
        }
        items.push(item);
    }
}

/// One `FileType` item per extension (and for links and others), in
/// order of first appearance.
fn types(l: &Listing, items: &mut Vec<EvidenceItem>) {
    let mut order: Vec<String> = Vec::new();
    let mut found: BTreeMap<String, (Vec<usize>, u64, bool)> = BTreeMap::new();
    for e in l.entries.iter().filter(|e| e.kind != Kind::Dir) {
        let key = type_of(e);
        let t = found.entry(key.clone()).or_insert_with(|| {
            order.push(key);
            (Vec::new(), 0, false)
        });
        t.0.push(e.line);
        if let Some(s) = e.size {
            t.1 += s;
            t.2 = true;
        }
    }
    for key in order {
        let (lines, bytes, sized) = &found[&key];
        let mut item = EvidenceItem::new(ItemKind::FileType, Severity::Info, key);
        item.detail = lines.iter().map(|&n| Span::line(n)).collect();
        item.fields.insert("files".into(), lines.len().to_string());
        if *sized {
            item.fields.insert("bytes".into(), bytes.to_string());
        }
        items.push(item);
    }
}

fn type_of(e: &Entry) -> String {
    match e.kind {
        Kind::Link => SYMLINKS.to_string(),
        Kind::Other => OTHER.to_string(),
        _ => e.extension().unwrap_or(NO_EXTENSION).to_string(),
    }
}

/// The noun that agrees with `n`.
fn word(n: u64, one: &str, many: &str) -> String {
    if n == 1 { one } else { many }.to_string()
}
