//! Finding one declaration by name: `parse`, `Parser::parse`,
//! `Parser.parse`, a Markdown heading. A name that fits several
//! declarations is never guessed: the candidates are listed with their
//! spans.

use super::outline::{Decl, Outline, PATH_SEPARATOR};

#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    Found(usize),
    /// Several declarations fit equally well (indices into the outline).
    Ambiguous(Vec<usize>),
    /// Nothing fits; the closest names, for the message.
    NotFound(Vec<String>),
}

/// Kinds that stand beside the declaration a name usually means: an
/// `impl Foo` beside `struct Foo`, a C prototype beside its definition, a
/// C++ member declared in its class and defined outside it. When exactly
/// one candidate is of another kind, it is the one meant.
const SECONDARY: &[&str] = &[
    "impl_item",
    "declaration",
    "field_declaration",
    "function_signature_item",
];

/// The declaration `query` names. Paths are matched on their last
/// segments, so `Parser::parse` finds `parser::Parser::parse`; `.` is
/// accepted as the separator when `::` finds nothing.
pub fn find(outline: &Outline, query: &str, fold_case: bool) -> Lookup {
    let found = matches(outline, &split(query, PATH_SEPARATOR), fold_case);
    let found = if found.is_empty() && query.contains('.') && !query.contains(PATH_SEPARATOR) {
        matches(outline, &split(query, "."), fold_case)
    } else {
        found
    };
    match found.len() {
        0 => {}
        1 => return Lookup::Found(found[0]),
        _ => {
            // The primary declaration stands for the secondary ones beside
            // it (`struct T` for its `impl T`) only at one and the same
            // path: `N` matching a top-level `impl N` and `a::N` names two
            // things, and both are listed.
            let path = &outline.decls[found[0]].path;
            let one_path = found.iter().all(|&i| &outline.decls[i].path == path);
            let primary: Vec<usize> = found
                .iter()
                .copied()
                .filter(|&i| !SECONDARY.contains(&outline.decls[i].kind))
                .collect();
            if one_path && primary.len() == 1 {
                return Lookup::Found(primary[0]);
            }
            return Lookup::Ambiguous(found);
        }
    }
    if !fold_case {
        let folded = find(outline, query, true);
        if !matches!(folded, Lookup::NotFound(_)) {
            return folded;
        }
    }
    Lookup::NotFound(near(outline, query))
}

/// A heading by its words: exactly (case aside) when one heading is, else
/// the one heading that contains them (`Introduction` finds `Chapter 1.
/// Introduction`). Several containing them are listed, never guessed.
pub fn find_heading(outline: &Outline, query: &str) -> Lookup {
    let exact = find(outline, query, false);
    if !matches!(exact, Lookup::NotFound(_)) {
        return exact;
    }
    let want = query.to_lowercase();
    let found: Vec<usize> = outline
        .decls
        .iter()
        .enumerate()
        .filter(|(_, d)| d.name.to_lowercase().contains(&want))
        .map(|(i, _)| i)
        .collect();
    match found.len() {
        0 => exact,
        1 => Lookup::Found(found[0]),
        _ => Lookup::Ambiguous(found),
    }
}

fn split(query: &str, sep: &str) -> Vec<String> {
    query.split(sep).map(|s| s.trim().to_string()).collect()
}

fn matches(outline: &Outline, want: &[String], fold_case: bool) -> Vec<usize> {
    let eq = |a: &str, b: &str| {
        if fold_case {
            a.to_lowercase() == b.to_lowercase()
        } else {
            a == b
        }
    };
    outline
        .decls
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            d.path.len() >= want.len()
                && d.path[d.path.len() - want.len()..]
                    .iter()
                    .zip(want)
                    .all(|(a, b)| eq(a, b))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Up to five names that contain the query's last segment (or that it
/// contains), for a "did you mean".
fn near(outline: &Outline, query: &str) -> Vec<String> {
    let last = query
        .rsplit(PATH_SEPARATOR)
        .next()
        .unwrap_or(query)
        .to_lowercase();
    let mut out: Vec<String> = outline
        .decls
        .iter()
        .filter(|d| {
            let n = d.name.to_lowercase();
            !last.is_empty() && (n.contains(&last) || last.contains(&n))
        })
        .map(Decl::qualified)
        .collect();
    out.dedup();
    out.truncate(5);
    out
}

/// The shortest path suffix that finds `index` alone: the name a
/// follow-up command gives (`Parser::parse`, not `parser::Parser::parse`);
/// `None` when no name does (two overloads share every name), and the
/// follow-up is a line range instead.
pub fn shortest_name(outline: &Outline, index: usize) -> Option<String> {
    let path = &outline.decls[index].path;
    (1..=path.len())
        .map(|take| path[path.len() - take..].join(PATH_SEPARATOR))
        .find(|q| find(outline, q, false) == Lookup::Found(index))
}
