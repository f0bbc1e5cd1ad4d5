//! Shim folders: creating, listing and removing the links. A shim is a
//! symlink named after a command whose target is the ctx binary's canonical
//! path; nothing else in a folder is ever touched but `.ctx-view`, the
//! per-command views of the folder (`view.rs`).

use std::ffi::OsStr;
use std::io;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::profiles;

use super::{locate, view};

#[derive(Debug, thiserror::Error)]
pub enum ShimError {
    #[error("{0:?} is not a command name")]
    BadName(String),
    #[error("refusing to create a shim named {0:?}: it would shadow ctx itself")]
    ShadowsCtx(String),
    #[error("{0}: {1}")]
    Io(PathBuf, io::Error),
}

/// What `install` did for one name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Installed {
    Created(String),
    /// Already a shim: left as it was (idempotence).
    Present(String),
    /// Something that is not a shim has that name: left alone.
    Occupied(String),
    /// No such command on PATH (past the shim folders): no shim, so that
    /// `command -v NAME` keeps telling the truth.
    NotOnPath(String),
}

/// Commands that build tools run internally (compiler drivers, rustc):
/// served by profiles, shimmed only when named (`ctx shims install gcc`).
/// Their output is read by cargo, make or cmake, and a shim in front of
/// them is one more thing between a build and its toolchain.
pub const NOT_BY_DEFAULT: &[&str] = &[
    "cc",
    "c++",
    "gcc",
    "g++",
    "clang",
    "clang++",
    "rustc",
    "rustdoc",
    "clippy-driver",
];

/// Programs that profiles serve in some of their forms only (`git status`,
/// `git diff`, `go test`, `black --check`, `prettier --check`, `gofmt
/// -l`): in the default set when installed, and their shim digests only a
/// form a profile names (`shim::subcommand_declines`), so `git commit`,
/// `go run`, `black .` or `prettier --write` run exactly as bare.
pub const BY_SUBCOMMAND: &[&str] = &["git", "go", "black", "prettier", "gofmt"];

/// Package managers and the subcommands of theirs that run a project's
/// tools: `npm test`, `npx tsc`, `pnpm exec vitest` put `node_modules/.bin`
/// first on PATH, so the tool inside bypasses its own shim, and the digest
/// has to come from the manager's (the output is read by content: the
/// runner's census, then the manager's own error footer). Every other
/// subcommand (`npm publish`, `npm login`, `yarn init`) runs as bare. An
/// empty list: every invocation runs a tool (`npx`).
pub const PACKAGE_MANAGERS: &[(&str, &[&str])] = &[
    (
        "npm",
        &[
            "test",
            "t",
            "tst",
            "run",
            "run-script",
            "rum",
            "urn",
            "exec",
            "x",
            "install",
            "i",
            "ci",
            "add",
        ],
    ),
    ("npx", &[]),
    (
        "pnpm",
        &[
            "test",
            "t",
            "run",
            "run-script",
            "exec",
            "dlx",
            "install",
            "i",
            "add",
        ],
    ),
    ("pnpx", &[]),
    ("yarn", &["test", "run", "exec", "dlx", "install", "add"]),
];

/// The default folder: `<data dir>/shims`.
pub fn default_dir() -> io::Result<PathBuf> {
    Ok(crate::home::data_dir()?.join("shims"))
}

/// The default shim set: every single-word command a profile serves that
/// people type (not those in [`NOT_BY_DEFAULT`]), the programs of
/// [`BY_SUBCOMMAND`] and [`PACKAGE_MANAGERS`], and every command a
/// built-in filter asks to be rewritten for (`[match] rewrite`; the
/// filter is named after its command), sorted, deduplicated. Whether each
/// exists on PATH is `install`'s to check.
pub fn default_names() -> Vec<String> {
    let mut names: Vec<String> = profiles::registry()
        .iter()
        .flat_map(|p| p.commands().iter())
        .filter(|c| !c.contains(char::is_whitespace) && !NOT_BY_DEFAULT.contains(c))
        .map(|c| c.to_string())
        .collect();
    names.extend(BY_SUBCOMMAND.iter().map(|n| n.to_string()));
    names.extend(PACKAGE_MANAGERS.iter().map(|(n, _)| n.to_string()));
    names.extend(
        crate::filters::registry()
            .filters
            .iter()
            .filter(|f| f.origin == crate::filters::Origin::Builtin && f.rewrite.is_some())
            .map(|f| f.name.clone()),
    );
    names.sort();
    names.dedup();
    names
}

/// Creates a link to `ctx` for each name in `dir` (created if missing)
/// whose command exists on PATH past every shim folder.
pub fn install(dir: &Path, names: &[String], ctx: &Path) -> Result<Vec<Installed>, ShimError> {
    let ctx_name = ctx.file_name().map(|n| n.to_string_lossy().into_owned());
    for name in names {
        if name.is_empty() || name.contains('/') || name.starts_with('.') || name.contains('\0') {
            return Err(ShimError::BadName(name.clone()));
        }
        if name == "ctx" || Some(name) == ctx_name.as_ref() {
            return Err(ShimError::ShadowsCtx(name.clone()));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| ShimError::Io(dir.to_path_buf(), e))?;
    let mut done = Vec::new();
    for name in names {
        let link = dir.join(name);
        // The ctx binary itself sitting in this folder under that name.
        if link.canonicalize().is_ok_and(|p| p == ctx) && !is_link(&link) {
            return Err(ShimError::ShadowsCtx(name.clone()));
        }
        match std::fs::symlink_metadata(&link) {
            Ok(_) if points_to_ctx(&link, ctx) => done.push(Installed::Present(name.clone())),
            Ok(_) => done.push(Installed::Occupied(name.clone())),
            Err(_) if locate::real_command(OsStr::new(name), ctx).is_err() => {
                done.push(Installed::NotOnPath(name.clone()))
            }
            Err(_) => {
                symlink(ctx, &link).map_err(|e| ShimError::Io(link.clone(), e))?;
                done.push(Installed::Created(name.clone()));
            }
        }
    }
    let all = list(dir, ctx)?;
    view::rebuild(dir, &all, ctx).map_err(|e| ShimError::Io(dir.join(view::VIEWS), e))?;
    Ok(done)
}

/// Removes every shim in `dir` (and `dir` itself once empty). Returns the
/// names removed.
pub fn uninstall(dir: &Path, ctx: &Path) -> Result<Vec<String>, ShimError> {
    let mut removed = Vec::new();
    view::remove(dir, ctx).map_err(|e| ShimError::Io(dir.join(view::VIEWS), e))?;
    for name in list(dir, ctx)? {
        let link = dir.join(&name);
        std::fs::remove_file(&link).map_err(|e| ShimError::Io(link, e))?;
        removed.push(name);
    }
    // Only an empty folder goes: anything else in it is not ours.
    let _ = std::fs::remove_dir(dir);
    Ok(removed)
}

/// The shims in `dir`, sorted. A missing folder has none.
pub fn list(dir: &Path, ctx: &Path) -> Result<Vec<String>, ShimError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ShimError::Io(dir.to_path_buf(), e)),
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| points_to_ctx(&e.path(), ctx))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}

/// A symlink whose target is ctx: resolved, or named literally (a link
/// left by a ctx binary that has since moved still counts as ours).
fn points_to_ctx(path: &Path, ctx: &Path) -> bool {
    if !is_link(path) {
        return false;
    }
    path.canonicalize().is_ok_and(|p| p == ctx)
        || std::fs::read_link(path)
            .is_ok_and(|t| t == ctx || t.file_name().is_some_and(|n| n == "ctx"))
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The line that puts `dir` first on PATH, quoted for POSIX shells.
pub fn export_line(dir: &Path) -> String {
    let shown = dir.to_string_lossy().replace('\'', r"'\''");
    format!("export PATH='{shown}':\"$PATH\"")
}

#[cfg(test)]
mod tests {
    /// The default set has the commands filters ask to be rewritten for,
    /// never those they only read when piped (curl's output is data).
    #[test]
    fn filters_that_rewrite_add_their_command() {
        let names = super::default_names();
        for name in ["terraform", "docker", "kubectl", "cmake", "pytest"] {
            assert!(names.iter().any(|n| n == name), "{name}: {names:?}");
        }
        for name in ["curl", "ssh", "openssl", "gcc"] {
            assert!(!names.iter().any(|n| n == name), "{name}: {names:?}");
        }
    }
}
