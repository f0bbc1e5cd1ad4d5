//! Reads a package manager's output: the decisive error lines (with the
//! lines that belong to each), the warnings, the lines that name what was
//! installed, and the counts the tool states.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::Artifact;
use crate::profiles::visible;

use super::command::Manager;

mod bundle;
mod go;
mod node;

/// One failure the reader must see first, verbatim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub identity: String,
    /// npm's error code (`ERESOLVE`), pip's kind (`ResolutionImpossible`).
    pub class: Option<String>,
    /// Its lines, in output order; the first names it.
    pub lines: Vec<usize>,
}

/// One warning or deprecation, retrievable by its identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub identity: String,
    /// `deprecated`, npm's code (`ERESOLVE`), `warning`.
    pub class: String,
    pub first: usize,
    pub last: usize,
}

#[derive(Debug, Default)]
pub struct Read {
    pub failures: Vec<Failure>,
    pub notices: Vec<Notice>,
    /// Lines that name what changed, or state the tool's own summary.
    pub conclusion: Vec<usize>,
    pub counts: Vec<(String, u64)>,
    /// Packages the output names as installed (pip, apt, go).
    pub packages: Vec<String>,
}

/// A C/C++ compiler's error inside a build's output (pip, bundle, npm's
/// node-gyp): `Modules/common.h:15:10: fatal error: lber.h: No such file`.
pub(super) static COMPILER_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(\S+:\d+(?::\d+)?: (?:fatal )?error: .*)$").expect("static"));
/// gcc's source excerpt under a diagnostic: `   15 | #include <lber.h>`, `      |  ^~~`.
pub(super) static EXCERPT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*\d* \| ").expect("static"));
/// `2 upgraded, 4 newly installed, 0 to remove and 122 not upgraded.`
static APT_SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d+) upgraded, (\d+) newly installed, (\d+) to remove and (\d+) not upgraded\.$")
        .expect("static")
});

pub fn read(artifact: &Artifact, manager: Manager) -> Read {
    let lines: Vec<(usize, String)> = (1..=artifact.line_count())
        .map(|n| (n, visible(artifact, n).into_owned()))
        .collect();
    let mut r = Read::default();
    match manager {
        Manager::Npm | Manager::Pnpm | Manager::Yarn => node::read(&lines, &mut r),
        Manager::Pip => pip(&lines, &mut r),
        Manager::Apt => apt(&lines, &mut r),
        Manager::Go => go::read(&lines, artifact.exit.is_failure(), &mut r),
        Manager::Bundle => bundle::read(&lines, &mut r),
    }
    r
}

fn pip(lines: &[(usize, String)], r: &mut Read) {
    let mut satisfied = 0u64;
    let mut k = 0;
    while k < lines.len() {
        let (n, t) = (&lines[k].0, &lines[k].1);
        let n = *n;
        let trimmed = t.trim_start();
        k += 1;
        if let Some(rest) = trimmed.strip_prefix("ERROR: ") {
            let class = rest
                .split(':')
                .next()
                .filter(|w| !w.contains(' '))
                .map(str::to_string);
            r.failures.push(one_line(n, rest, class));
            continue;
        }
        if let Some(c) = COMPILER_ERROR.captures(t) {
            let mut f = one_line(n, &c[1], Some("compiler".into()));
            while k < lines.len() && EXCERPT.is_match(&lines[k].1) {
                f.lines.push(lines[k].0);
                k += 1;
            }
            r.failures.push(f);
            continue;
        }
        // pip's boxed summary of a failed subprocess: `× …`, `│ exit code: 1`, `╰─> …`.
        if trimmed.starts_with("× ") {
            let mut f = one_line(n, trimmed.trim_start_matches("× "), None);
            while k < lines.len() && lines[k].1.trim_start().starts_with(['│', '╰']) {
                f.lines.push(lines[k].0);
                k += 1;
            }
            r.failures.push(f);
            continue;
        }
        if trimmed == "The conflict is caused by:" {
            let mut f = one_line(n, "", Some("conflict".into()));
            let mut said = Vec::new();
            while k < lines.len() && lines[k].1.starts_with(' ') && !lines[k].1.trim().is_empty() {
                said.push(lines[k].1.trim().to_string());
                f.lines.push(lines[k].0);
                k += 1;
            }
            f.identity = format!("conflict: {}", said.join("; "));
            r.failures.push(f);
            continue;
        }
        for (prefix, class) in [("WARNING: ", "warning"), ("DEPRECATION: ", "deprecated")] {
            if let Some(rest) = trimmed.strip_prefix(prefix) {
                r.notices.push(Notice {
                    identity: rest.trim().to_string(),
                    class: class.into(),
                    first: n,
                    last: n,
                });
            }
        }
        if trimmed.starts_with("Requirement already satisfied: ") {
            satisfied += 1;
        }
        if let Some(list) = t.strip_prefix("Successfully installed ") {
            r.packages
                .extend(list.split_whitespace().map(str::to_string));
            r.conclusion.push(n);
        }
        if trimmed.starts_with("Successfully uninstalled ") {
            r.conclusion.push(n);
        }
    }
    if !r.packages.is_empty() {
        r.counts.push(("installed".into(), r.packages.len() as u64));
    }
    if satisfied > 0 {
        r.counts.push(("already satisfied".into(), satisfied));
    }
}

fn apt(lines: &[(usize, String)], r: &mut Read) {
    let mut k = 0;
    while k < lines.len() {
        let (n, t) = (lines[k].0, &lines[k].1);
        k += 1;
        if let Some(rest) = t.strip_prefix("E: ") {
            r.failures.push(one_line(n, rest, None));
            continue;
        }
        if t.starts_with("dpkg: error") || t.starts_with("Errors were encountered") {
            r.failures.push(one_line(n, t, Some("dpkg".into())));
            continue;
        }
        if let Some(rest) = t.strip_prefix("W: ") {
            r.notices.push(Notice {
                identity: rest.trim().to_string(),
                class: "warning".into(),
                first: n,
                last: n,
            });
            continue;
        }
        // `The following NEW packages will be installed:` and its indented names.
        if t.starts_with("The following ")
            && t.ends_with(':')
            && !t.contains("uggested")
            && !t.contains("ecommended")
        {
            let new = t.contains("NEW");
            r.conclusion.push(n);
            while k < lines.len() && lines[k].1.starts_with("  ") {
                if new {
                    r.packages
                        .extend(lines[k].1.split_whitespace().map(str::to_string));
                }
                r.conclusion.push(lines[k].0);
                k += 1;
            }
            continue;
        }
        if let Some(c) = APT_SUMMARY.captures(t) {
            r.conclusion.push(n);
            for (i, word) in [(2, "newly installed"), (1, "upgraded"), (3, "to remove")] {
                if let Ok(v) = c[i].parse() {
                    r.counts.push((word.into(), v));
                }
            }
        }
    }
}

pub(super) fn notice(n: usize, identity: &str, class: &str) -> Notice {
    Notice {
        identity: identity.trim().to_string(),
        class: class.into(),
        first: n,
        last: n,
    }
}

pub(super) fn one_line(n: usize, text: &str, class: Option<String>) -> Failure {
    Failure {
        identity: text.trim().to_string(),
        class,
        lines: vec![n],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;

    fn read_out(m: Manager, out: &str) -> Read {
        let a = Artifact::from_stdout(out.as_bytes().to_vec(), Exit::Code(1), vec![]);
        read(&a, m)
    }

    #[test]
    fn npm_deprecations_and_error_blocks() {
        let out = "npm warn deprecated inflight@1.0.6: This module leaks memory\nnpm warn ERESOLVE overriding peer dependency\nnpm warn While resolving: x@1\n\nadded 3 packages, changed 1 package in 2s\nnpm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope\nnpm error\nnpm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log\n";
        let r = read_out(Manager::Npm, out);
        assert_eq!(r.notices.len(), 2);
        assert_eq!(r.notices[0].class, "deprecated");
        assert_eq!(r.notices[1].identity, "ERESOLVE overriding peer dependency");
        assert_eq!((r.notices[1].first, r.notices[1].last), (2, 3));
        assert_eq!(
            r.counts,
            [("added".to_string(), 3), ("changed".to_string(), 1)]
        );
        assert_eq!(r.failures.len(), 1);
        assert_eq!(r.failures[0].class.as_deref(), Some("E404"));
        assert_eq!(r.failures[0].lines, [6, 7]);
    }

    #[test]
    fn pip_conflicts_and_compiler_errors() {
        let out = "The conflict is caused by:\n    The user requested b==1\n    a 2 depends on b>=2\n\n  x.c:3:10: fatal error: y.h: No such file or directory\n      3 | #include <y.h>\n        |          ^~~~~\nERROR: ResolutionImpossible: for help visit https://pip.pypa.io\n";
        let r = read_out(Manager::Pip, out);
        assert_eq!(r.failures.len(), 3);
        assert_eq!(
            r.failures[0].identity,
            "conflict: The user requested b==1; a 2 depends on b>=2"
        );
        assert_eq!(r.failures[1].lines, [5, 6, 7]);
        assert_eq!(r.failures[2].class.as_deref(), Some("ResolutionImpossible"));
    }
}
