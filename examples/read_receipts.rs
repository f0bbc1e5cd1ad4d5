//! Receipts for `ctx read`: tokens of the outline against the whole file
//! over real codebases, and the share of declarations the outline keeps.
//!
//!     cargo run --release --example read_receipts -- DIR… > docs/receipts/read.md
//!
//! Every file under each DIR with a grammar is read twice through the
//! library (`full`, `outline`); tokens are exact o200k_base counts. The
//! declarations are counted by a walk of the whole syntax tree of its own
//! (every named node of a declaration kind that declares something, to
//! the data languages' depth), independent of the outline's walk; one is
//! *kept* when the rendered outline has a line at its span that names it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ctx::read::languages::{self, Grammar};
use ctx::read::naming;
use ctx::read::outline;
use ctx::read::{Mode, Request};

#[derive(Default)]
struct Tally {
    files: usize,
    lines: usize,
    full: usize,
    outline: usize,
    decls: usize,
    kept: usize,
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if languages::for_path(&p).is_some() {
            out.push(p);
        }
    }
}

/// (first line, name) of every declaration, by a walk of every node.
fn census(g: &Grammar, src: &[u8]) -> Vec<(usize, String)> {
    let Some(tree) = outline::parse(g, src) else {
        return Vec::new();
    };
    let starts = outline::line_starts(src);
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let is_decl = node.is_named()
            && g.decl(node.kind()).is_some()
            && naming::is_listed(g.name, node, src);
        // Declarations enclosing this node (for the data languages' depth).
        let enclosing = {
            let mut n = 0;
            let mut p = node.parent();
            while let Some(q) = p {
                if q.is_named() && g.decl(q.kind()).is_some() && naming::is_listed(g.name, q, src) {
                    n += 1;
                }
                p = q.parent();
            }
            n
        };
        if is_decl && g.depth.is_none_or(|limit| enclosing < limit) {
            let (name, _) = naming::name(g.name, node, src);
            out.push((outline::line_of(&starts, node.start_byte()), name));
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

fn read(path: &Path, mode: Mode) -> Vec<u8> {
    ctx::read::read(&Request {
        path: path.to_path_buf(),
        shown: path.display().to_string(),
        mode,
        anchors: false,
        fresh: false,
        session: None,
        home: None,
    })
    .map(|r| r.bytes)
    .unwrap_or_default()
}

fn main() {
    let dirs: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let mut by_lang: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut missing = Vec::new();
    for dir in &dirs {
        let mut list = Vec::new();
        files(dir, &mut list);
        for path in list {
            let Ok(src) = std::fs::read(&path) else {
                continue;
            };
            let Some(g) = languages::for_path(&path) else {
                continue;
            };
            let full = read(&path, Mode::Full);
            let view = read(&path, Mode::Outline);
            let text = String::from_utf8_lossy(&view);
            let t = by_lang.entry(g.name).or_default();
            t.files += 1;
            t.lines += outline::line_starts(&src).len();
            t.full += ctx::tokens::exact(&full);
            t.outline += ctx::tokens::exact(&view);
            let decls = census(g, &src);
            t.decls += decls.len();
            for (line, name) in decls {
                // The outline line for it: `L<first>` (its span may start
                // earlier, at attributes) that names it.
                let kept = text.lines().any(|l| {
                    let l = l.trim_start();
                    let Some(span) = l.strip_prefix('L') else {
                        return false;
                    };
                    let (a, b) = span
                        .split(' ')
                        .next()
                        .and_then(|s| {
                            let (a, b) = s.split_once('-').unwrap_or((s, s));
                            Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?))
                        })
                        .unwrap_or((0, 0));
                    a <= line
                        && line <= b
                        && (name.starts_with('(')
                            || l.contains(name.split_whitespace().next().unwrap_or("")))
                });
                if kept {
                    t.kept += 1;
                } else {
                    missing.push(format!("{}:{line} {name}", path.display()));
                }
            }
        }
    }
    println!(
        "| language | files | lines | full tokens | outline tokens | outline / full | declarations | kept |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut total = Tally::default();
    for (lang, t) in &by_lang {
        println!(
            "| {lang} | {} | {} | {} | {} | {:.1} % | {} | {:.1} % |",
            t.files,
            t.lines,
            t.full,
            t.outline,
            100.0 * t.outline as f64 / t.full.max(1) as f64,
            t.decls,
            100.0 * t.kept as f64 / t.decls.max(1) as f64
        );
        total.files += t.files;
        total.lines += t.lines;
        total.full += t.full;
        total.outline += t.outline;
        total.decls += t.decls;
        total.kept += t.kept;
    }
    println!(
        "| **all** | {} | {} | {} | {} | {:.1} % | {} | {:.1} % |",
        total.files,
        total.lines,
        total.full,
        total.outline,
        100.0 * total.outline as f64 / total.full.max(1) as f64,
        total.decls,
        100.0 * total.kept as f64 / total.decls.max(1) as f64
    );
    for m in missing.iter().take(20) {
        println!("\nnot kept: {m}");
    }
}
