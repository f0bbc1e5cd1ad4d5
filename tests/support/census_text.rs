//! Whether a text digest names a census item: by its identity, by its
//! location and code (a compiler error shown as its own block), by its
//! raw headline, or by a line of a compact census block. Shared by the
//! tests that compare what a digest names with the facts behind it.
#![allow(dead_code)]

use ctx::artifact::Artifact;
use ctx::evidence::EvidenceItem;

/// True when `text` names `item` by its whole identity or a compact
/// census line: never by a raw line or a place alone, which another item
/// may share (eslint's `5:3 error … no-var` under two files, 634 cases
/// of one parametrized test at one line).
pub fn names_by_identity(text: &str, artifact: &Artifact, item: &EvidenceItem) -> bool {
    names_with(text, artifact, item, false)
}

/// True when `identity` stands in `text` whole: not as the start of a
/// longer one (`TestCToF/c=-30` in `TestCToF/c=-300`, a parent suite
/// `a.test.js > billing` in its test's `a.test.js > billing > case 8`).
fn contains_whole(text: &str, identity: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || "_-./=[".contains(c);
    text.match_indices(identity).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let rest = &text[at + identity.len()..];
        let after = rest.chars().next();
        !before.is_some_and(part) && !after.is_some_and(part) && !rest.starts_with(" > ")
    })
}

/// True when `text` names `item`, its raw headline included.
pub fn names(text: &str, artifact: &Artifact, item: &EvidenceItem) -> bool {
    names_with(text, artifact, item, true)
}

fn names_with(text: &str, artifact: &Artifact, item: &EvidenceItem, by_headline: bool) -> bool {
    // A compiler error shown as its own block names itself by its
    // location line and code rather than by the joined identity.
    let located = by_headline
        && item.location.as_ref().is_some_and(|l| {
            let at = match l.line {
                Some(line) => format!("{}:{line}", l.file),
                None => l.file.clone(),
            };
            text.contains(&at)
                && item
                    .class
                    .as_ref()
                    .is_none_or(|c| text.contains(c.as_str()))
        });
    // Or its own raw headline is printed (eslint's compact line says
    // `line 4, col 1` where the identity says `:4:1`).
    let headline = by_headline
        && item.headline.is_some_and(|h| {
            let raw = ctx::normalize::line(artifact.line(h.first));
            text.lines().any(|l| l == raw)
        });
    let whole = if by_headline {
        text.contains(&item.identity)
    } else {
        contains_whole(text, &item.identity)
    };
    whole || located || headline || in_compact_census(text, &item.identity, artifact.cwd.as_deref())
}

/// True when a compact census block of `text` names `identity`: a file
/// line (relative to the working directory or to the folder the opening
/// line names) with an item line under it that carries the identity's rest,
/// or a whole line that carries the identity.
pub fn in_compact_census(text: &str, identity: &str, cwd: Option<&str>) -> bool {
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(opening) = line.strip_prefix("[ctx] census: ") else {
            continue;
        };
        let folder = opening.split_once(" under ").map(|(_, f)| f);
        let rel = |id: &str| -> String {
            let id = cwd
                .and_then(|c| id.strip_prefix(&format!("{}/", c.trim_end_matches('/'))))
                .unwrap_or(id);
            folder
                .and_then(|f| id.strip_prefix(f))
                .unwrap_or(id)
                .to_string()
        };
        let id = rel(identity);
        let mut file: Option<&str> = None;
        while let Some(l) = lines.next_if(|l| l.starts_with("  ")) {
            if let Some(entry) = l.strip_prefix("    ") {
                let Some(f) = file else { continue };
                let Some(rest) = id.strip_prefix(f) else {
                    continue;
                };
                let rest = rest.trim_start_matches([':', ' ', '>']);
                let entry = ["ERROR ", "NOT RUN ", "BUILD FAILED "]
                    .iter()
                    .find_map(|w| entry.strip_prefix(w))
                    .unwrap_or(entry);
                if entry.starts_with(rest) {
                    return true;
                }
                // Items of one code and message share a line that lists
                // their places: `E0308 mismatched types ×30 at 5:20, 11:20`.
                if let Some((_, places)) = entry.rsplit_once(" at ") {
                    let place = rest.split(' ').next().unwrap_or(rest);
                    let code = rest[place.len()..].trim_start();
                    if entry.starts_with(code) && places.split(", ").any(|p| p == place) {
                        return true;
                    }
                }
                // Parametrized cases of one test share a line:
                // `test_easter ×19 [1990-…], [1992-…], …`.
                if let Some((test, params)) = rest.split_once('[')
                    && entry.starts_with(&format!("{test} ×"))
                    && entry.contains(&format!("[{params}"))
                {
                    return true;
                }
            } else {
                let l = &l[2..];
                file = Some(l);
                if l.contains(identity) || l.contains(&id) {
                    return true;
                }
            }
        }
    }
    false
}
