//! npm, pnpm and yarn: their error blocks, warnings, the lines that name
//! the packages added or removed, and the counts they state.

use std::sync::LazyLock;

use regex::Regex;

use super::{Failure, Notice, Read, notice, one_line};

/// `added 47 packages, removed 1 package, changed 2 packages, and audited 50 packages in 3s`.
static NPM_SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(added|removed|changed|audited) (\d+) packages?").expect("static")
});
/// The first line of an npm warning (the rest continue it).
static NPM_WARN_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^npm (?:warn|WARN) (deprecated|[A-Z][A-Z0-9_]{2,}|using|config|cleanup|skipping|tarball|old lockfile)\b")
        .expect("static")
});
/// pnpm's error code: `Error: ERR_PNPM_NO_MATCHING_VERSION` (pnpm 10 and
/// later), ` ERR_PNPM_FETCH_404  GET …: Not Found - 404` (earlier).
static PNPM_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(ERR_PNPM_[A-Z0-9_]+)\b").expect("static"));
/// `Packages: +9`, `Packages: -1`, `Packages: +3 -1`.
static PNPM_PACKAGES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Packages: (?:\+(\d+))?\s*(?:-(\d+))?\s*$").expect("static")
});
/// pnpm's list of what changed: `dependencies:`, then `+ chalk 4.1.2`, `- ms 2.1.3`.
static PNPM_GROUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:dependencies|devDependencies|optionalDependencies|peerDependencies):$")
        .expect("static")
});
static PNPM_CHANGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[+-] (\S+)(?: \S+)?").expect("static"));
/// yarn 1's `success Saved 7 new dependencies.`
static YARN_SAVED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^success Saved (\d+) new dependenc(?:y|ies)\.$").expect("static")
});

pub fn read(lines: &[(usize, String)], r: &mut Read) {
    let mut failure: Option<Failure> = None;
    let mut warning: Option<Notice> = None;
    let mut k = 0;
    while k < lines.len() {
        let (n, t) = (lines[k].0, lines[k].1.as_str());
        k += 1;
        // npm's errors: one block of `npm error` lines; its code line first.
        let err = t
            .strip_prefix("npm error")
            .or_else(|| t.strip_prefix("npm ERR!"));
        if let Some(rest) = err {
            let rest = rest.trim();
            let noise = rest.is_empty()
                || rest.starts_with("A complete log of this run")
                || rest.starts_with("For a full report see:")
                || rest.starts_with('/') && rest.ends_with(".txt")
                || rest.starts_with('/') && rest.ends_with(".log");
            let f = failure.get_or_insert_with(|| Failure {
                identity: String::new(),
                class: None,
                lines: Vec::new(),
            });
            if let Some(code) = rest.strip_prefix("code ") {
                f.class.get_or_insert_with(|| code.trim().to_string());
            } else if f.identity.is_empty() && !noise {
                f.identity = rest.to_string();
            }
            if !noise {
                f.lines.push(n);
            }
            continue;
        }
        if let Some(c) = NPM_WARN_START.captures(t) {
            r.notices.extend(warning.take());
            let rest = t.split_once(' ').map_or("", |x| x.1);
            let rest = rest.split_once(' ').map_or("", |x| x.1);
            warning = Some(notice(n, rest, &c[1]));
            continue;
        }
        if t.starts_with("npm warn") || t.starts_with("npm WARN") {
            if let Some(w) = warning.as_mut() {
                w.last = n;
            }
            continue;
        }
        r.notices.extend(warning.take());
        // pnpm's error: its code line, then the lines under it (the cause
        // chain `× … ╰─▶ …`, wrapped at the terminal's width, and `help:`).
        if let Some(c) = PNPM_ERROR.captures(t) {
            let identity = t.trim().trim_start_matches("Error: ");
            let mut f = one_line(n, identity, Some(c[1].to_string()));
            k = indented_block(lines, k, &mut f.lines);
            r.failures.push(f);
            continue;
        }
        // yarn 1 (`error Couldn't find package …`) and yarn 2+ (`YN0001`).
        if t.starts_with("error ") || t.contains(" YN0001: ") {
            r.failures.push(one_line(n, t, None));
            continue;
        }
        if let Some(rest) = t
            .strip_prefix("warning ")
            .or_else(|| t.strip_prefix(" WARN "))
            .or_else(|| t.strip_prefix("[WARN] "))
        {
            let class = if rest.contains("deprecated") {
                "deprecated"
            } else if rest.contains("peer dependenc") {
                "peer"
            } else {
                "warning"
            };
            r.notices.push(notice(n, rest, class));
            continue;
        }
        // The packages pnpm added or removed, under their group's line.
        if PNPM_GROUP.is_match(t) {
            r.conclusion.push(n);
            while let Some(c) = lines.get(k).and_then(|(_, l)| PNPM_CHANGE.captures(l)) {
                r.packages.push(c[1].to_string());
                r.conclusion.push(lines[k].0);
                k += 1;
            }
            continue;
        }
        // yarn's trees: `info Direct dependencies`, then `├─ is-odd@3.0.1`.
        if t == "info Direct dependencies" || t == "info All dependencies" {
            let all = t.ends_with("All dependencies");
            r.conclusion.push(n);
            while let Some((m, l)) = lines.get(k).filter(|(_, l)| is_tree_line(l)) {
                if all {
                    r.packages.push(l.trim_start_matches(['├', '└', '│', '─', ' ']).to_string());
                }
                r.conclusion.push(*m);
                k += 1;
            }
            continue;
        }
        if let Some(c) = PNPM_PACKAGES.captures(t) {
            for (i, word) in [(1, "added"), (2, "removed")] {
                if let Some(v) = c.get(i).and_then(|m| m.as_str().parse().ok()) {
                    r.counts.push((word.into(), v));
                }
            }
        }
        if let Some(v) = YARN_SAVED.captures(t).and_then(|c| c[1].parse().ok()) {
            r.counts.push(("added".into(), v));
        }
        let mut summary = false;
        for c in NPM_SUMMARY.captures_iter(t) {
            summary = true;
            if let Ok(v) = c[2].parse() {
                r.counts.push((c[1].to_string(), v));
            }
        }
        summary |= t.starts_with("up to date")
            || t.contains("vulnerabilit")
            || t.starts_with("Packages: ")
            || t.starts_with("success ")
            || t.starts_with("Done in ");
        if summary {
            r.conclusion.push(n);
        }
    }
    r.notices.extend(warning);
    if let Some(mut f) = failure {
        if f.identity.is_empty() {
            f.identity = f.class.clone().unwrap_or_else(|| "npm error".into());
        }
        r.failures.insert(0, f);
    }
}

fn is_tree_line(l: &str) -> bool {
    l.starts_with("├─") || l.starts_with("└─") || l.starts_with("│ ")
}

/// The lines under an error's first line that belong to it: blank or
/// indented ones (a wrapped message, a cause chain, `help:`), up to the
/// first line back at the margin; trailing blank lines are not its own.
/// `k` is the index of the line after the first; returns the index of the
/// first line not taken.
pub(super) fn indented_block(lines: &[(usize, String)], k: usize, into: &mut Vec<usize>) -> usize {
    let mut end = k;
    for (i, (_, l)) in lines.iter().enumerate().skip(k) {
        if l.trim().is_empty() {
            continue;
        }
        if !l.starts_with([' ', '\t']) {
            break;
        }
        end = i + 1;
    }
    into.extend(lines[k..end].iter().map(|(n, _)| *n));
    end
}
