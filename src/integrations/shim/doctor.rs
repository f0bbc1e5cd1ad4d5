//! `ctx shims doctor`: what can make a shim folder wrong on this PATH.
//! A shim whose real program vanished (the shim would answer 127 where a
//! shell would say "command not found" without it), a folder that is not
//! on PATH or not first on it (commands ahead of it bypass their shims),
//! loops (a link to another ctx install, a script that calls its own name
//! through PATH again), and shims without their view.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::install::{self, ShimError};
use super::{locate, view};

/// One thing doctor found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// The shim's command is no longer on PATH.
    Vanished { name: String },
    /// The shim folder is not on PATH at all.
    NotOnPath { dir: PathBuf },
    /// The shim folder is gone; `on_path`: PATH still names it.
    Missing { dir: PathBuf, on_path: bool },
    /// Folders ahead of the shim folder on PATH; `shadowed` are the shims
    /// they bypass (a program of the same name found first).
    NotFirst {
        dir: PathBuf,
        ahead: Vec<PathBuf>,
        shadowed: Vec<String>,
    },
    /// `via` is a link to another ctx binary: the two installs would hand
    /// the command back and forth.
    OtherCtx { name: String, via: PathBuf },
    /// The real program is a script that runs `name` through PATH again,
    /// which reaches the shim again.
    CallsItself { name: String, script: PathBuf },
    /// Shims without their view (`view.rs`): those programs get their
    /// path as argv[0] instead of the name that was typed.
    MissingViews { dir: PathBuf, names: Vec<String> },
}

impl Finding {
    /// Whether the finding breaks commands now (exit 1) or only may.
    pub fn is_problem(&self) -> bool {
        !matches!(self, Finding::NotFirst { shadowed, .. } if shadowed.is_empty())
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Finding::Vanished { name } => write!(
                f,
                "{name}: the real program is gone from PATH; `ctx shims uninstall` or reinstall it"
            ),
            Finding::Missing { dir, on_path: true } => write!(
                f,
                "{} is on PATH but no longer exists: `ctx shims install` recreates it, or take it off PATH",
                dir.display()
            ),
            Finding::Missing {
                dir,
                on_path: false,
            } => write!(
                f,
                "{} does not exist (and is not on PATH): `ctx shims install` creates it",
                dir.display()
            ),
            Finding::NotOnPath { dir } => {
                write!(f, "{} is not on PATH: no shim in it runs", dir.display())
            }
            Finding::NotFirst {
                dir,
                ahead,
                shadowed,
            } => {
                let ahead: Vec<String> = ahead.iter().map(|d| d.display().to_string()).collect();
                write!(
                    f,
                    "{} is not first on PATH ({} ahead of it)",
                    dir.display(),
                    ahead.join(", ")
                )?;
                if shadowed.is_empty() {
                    write!(f, "; no shim is bypassed today")
                } else {
                    write!(f, "; bypassed: {}", shadowed.join(", "))
                }
            }
            Finding::OtherCtx { name, via } => write!(
                f,
                "{name}: {} links to another ctx binary; loop risk: remove that folder from PATH",
                via.display()
            ),
            Finding::CallsItself { name, script } => write!(
                f,
                "{name}: {} runs `{name}` through PATH again (the shim stops the loop at depth {})",
                script.display(),
                super::MAX_DEPTH
            ),
            Finding::MissingViews { dir, names } => write!(
                f,
                "views missing in {} for {}: run `ctx shims install --dir {}` again",
                dir.display(),
                names.join(", "),
                dir.display()
            ),
        }
    }
}

/// Examines the shims in `dir` against the search path `path`.
pub fn check(dir: &Path, ctx: &Path, path: &[u8]) -> Result<Vec<Finding>, ShimError> {
    let entries: Vec<PathBuf> = path
        .split(|&b| b == b':')
        .map(|e| if e.is_empty() { b".".as_slice() } else { e })
        .map(|e| PathBuf::from(OsStr::from_bytes(e)))
        .collect();
    if std::fs::symlink_metadata(dir).is_err() {
        // Compared as written: a folder that is gone has no canonical form.
        let on_path = entries.iter().any(|e| e.components().eq(dir.components()));
        return Ok(vec![Finding::Missing {
            dir: dir.to_path_buf(),
            on_path,
        }]);
    }
    let names = install::list(dir, ctx)?;
    let mut findings = Vec::new();
    let canonical_dir = dir.canonicalize().ok();
    let position = entries
        .iter()
        .position(|e| canonical_dir.is_some() && e.canonicalize().ok() == canonical_dir);
    match position {
        None => findings.push(Finding::NotOnPath {
            dir: dir.to_path_buf(),
        }),
        Some(0) => {}
        Some(at) => {
            let ahead = entries[..at].to_vec();
            let shadowed = names
                .iter()
                .filter(|n| ahead.iter().any(|d| is_program(&d.join(n), ctx)))
                .cloned()
                .collect();
            findings.push(Finding::NotFirst {
                dir: dir.to_path_buf(),
                ahead,
                shadowed,
            });
        }
    }
    let unviewed: Vec<String> = names
        .iter()
        .filter(|n| view::view_of(dir, OsStr::new(n)).is_none())
        .cloned()
        .collect();
    if !unviewed.is_empty() {
        findings.push(Finding::MissingViews {
            dir: dir.to_path_buf(),
            names: unviewed,
        });
    }
    for name in &names {
        for entry in &entries {
            let candidate = entry.join(name);
            if locate::is_other_ctx(&candidate, ctx) {
                findings.push(Finding::OtherCtx {
                    name: name.clone(),
                    via: candidate,
                });
            }
        }
        match locate::real_command_in(OsStr::new(name), path, ctx) {
            Err(_) => findings.push(Finding::Vanished { name: name.clone() }),
            Ok(real) if calls_itself(&real, name) => findings.push(Finding::CallsItself {
                name: name.clone(),
                script: real,
            }),
            Ok(_) => {}
        }
    }
    Ok(findings)
}

fn is_program(path: &Path, ctx: &Path) -> bool {
    path.is_file() && !locate::is_ctx(path, ctx) && !locate::is_other_ctx(path, ctx)
}

/// A `#!` script whose text runs `name` by its bare name: `exec name`,
/// `name "$@"` at the start of a line or after a separator.
fn calls_itself(script: &Path, name: &str) -> bool {
    // A PATH entry can be anything (a FIFO, a binary of gigabytes): its
    // head, from a regular file, is what tells.
    let Ok(file) = crate::bounded::open(script, crate::bounded::Links::Follow) else {
        return false;
    };
    let mut bytes = Vec::new();
    if std::io::Read::read_to_end(&mut std::io::Read::take(file, 64 * 1024), &mut bytes).is_err()
        || !bytes.starts_with(b"#!")
    {
        return false;
    }
    let text = String::from_utf8_lossy(&bytes);
    // Only a shell script's lines are commands: Debian's `pg_wrapper`
    // (behind /usr/bin/psql) is Perl that names psql in its prose and
    // finds the real binary by absolute path.
    if !runs_in_a_shell(text.lines().next().unwrap_or_default()) {
        return false;
    }
    text.lines().skip(1).any(|line| {
        let line = line.trim_start();
        if line.starts_with('#') {
            return false;
        }
        line.split([';', '&', '|', '(', ')']).any(|segment| {
            let mut words = segment.split_whitespace();
            match words.next() {
                Some("exec") => words.next() == Some(name),
                Some(first) => first == name,
                None => false,
            }
        })
    })
}

/// Whether a `#!` line names a shell (directly or through `env`).
fn runs_in_a_shell(shebang: &str) -> bool {
    let mut words = shebang.trim_start_matches("#!").split_whitespace();
    let mut program = words.next().map(crate::command::basename);
    if program == Some("env") {
        program = words.find(|w| !w.starts_with('-') && !w.contains('='));
        program = program.map(crate::command::basename);
    }
    program.is_some_and(|p| super::roles::role(p) == super::roles::Role::Shell)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_calling_its_own_name() {
        let tmp = tempfile::tempdir().unwrap();
        let script = tmp.path().join("pytest");
        for (body, loops) in [
            ("#!/bin/sh\nexec pytest \"$@\"\n", true),
            ("#!/bin/sh\ncd x && pytest -q\n", true),
            ("#!/bin/sh\nexec /opt/venv/bin/pytest \"$@\"\n", false),
            ("#!/bin/sh\n# pytest wrapper\necho pytest-ish\n", false),
            ("\x7fELF pytest", false),
            ("#!/usr/bin/env bash\npytest \"$@\"\n", true),
            // Perl naming itself in prose, running the binary by path
            // (Debian's pg_wrapper behind psql).
            (
                "#!/usr/bin/perl\npytest is run by path\nexec '/usr/lib/x/pytest';\n",
                false,
            ),
            ("#!/usr/bin/env python3\npytest\n", false),
        ] {
            std::fs::write(&script, body).unwrap();
            assert_eq!(calls_itself(&script, "pytest"), loops, "{body}");
        }
    }
}
