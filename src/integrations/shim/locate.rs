//! Finding the real command behind a shim.
//!
//! A shim is any PATH entry whose file for NAME resolves (links followed)
//! to the ctx binary itself. The search walks PATH as a shell does and
//! skips every such entry, so the shim folder twice on PATH, two shim
//! folders, or a shim folder reached through a symlinked directory all
//! lead to the first real program, never back to ctx. A link to another
//! binary named `ctx` is a shim too (of another install) and is skipped.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use nix::unistd::{AccessFlags, access};

use crate::capture::LaunchError;

/// What the command search uses when `PATH` is unset (glibc's `execvp`).
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// The ctx binary's canonical path: what every shim resolves to.
pub fn ctx_binary() -> std::io::Result<PathBuf> {
    // /proc/self/exe is already canonical on Linux; current_exe falls back
    // to argv[0]-based guesses elsewhere, hence the canonicalize.
    std::env::current_exe()?.canonicalize()
}

/// True when `path` (links followed) is the ctx binary.
pub fn is_ctx(path: &Path, ctx: &Path) -> bool {
    path.canonicalize().is_ok_and(|p| p == ctx)
}

/// True when `path` is a link to some other binary named `ctx`: a shim of
/// another ctx install (an old `cargo install`, a debug build). Treating
/// it as a real program would send the two binaries back and forth.
pub fn is_other_ctx(path: &Path, ctx: &Path) -> bool {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    is_link
        && path
            .canonicalize()
            .is_ok_and(|p| p != ctx && p.file_name().is_some_and(|n| n == "ctx"))
}

/// argv[0] for the real program found at `program`: its absolute path,
/// links not resolved, so that the name it was found under (`cc`, not
/// `x86_64-linux-gnu-gcc-12`) and the folder it sits in are what the
/// program sees, exactly as if the shell had found it itself and the
/// program had then looked its bare name up on PATH.
pub fn argv0_for(program: &Path) -> std::ffi::OsString {
    std::path::absolute(program)
        .unwrap_or_else(|_| program.to_path_buf())
        .into_os_string()
}

/// The first executable `name` along `PATH` that is not ctx. Errors carry
/// the shell's wording: 127 when there is none, 126 when the first match
/// cannot be executed.
pub fn real_command(name: &OsStr, ctx: &Path) -> Result<PathBuf, LaunchError> {
    let search = std::env::var_os("PATH").unwrap_or_else(|| DEFAULT_PATH.into());
    real_command_in(name, search.as_bytes(), ctx)
}

/// `real_command` over an explicit search path (tests).
pub fn real_command_in(name: &OsStr, path: &[u8], ctx: &Path) -> Result<PathBuf, LaunchError> {
    let shown = name.to_string_lossy().into_owned();
    if name.is_empty() || name.as_bytes().contains(&b'/') {
        return Err(LaunchError::NotFound(shown));
    }
    let mut not_executable: Option<PathBuf> = None;
    for dir in path.split(|&b| b == b':') {
        // An empty entry is the current directory, as for a shell.
        let dir = if dir.is_empty() { b".".as_slice() } else { dir };
        let candidate = Path::new(OsStr::from_bytes(dir)).join(name);
        let Ok(meta) = std::fs::metadata(&candidate) else {
            continue;
        };
        if meta.is_dir() || is_ctx(&candidate, ctx) || is_other_ctx(&candidate, ctx) {
            continue;
        }
        if access(&candidate, AccessFlags::X_OK).is_ok() {
            return Ok(candidate);
        }
        not_executable.get_or_insert(candidate);
    }
    match not_executable {
        Some(path) => Err(LaunchError::PermissionDenied(
            path.to_string_lossy().into_owned(),
        )),
        None => Err(LaunchError::NotFound(shown)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn tool(dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn skips_every_folder_whose_entry_is_ctx() {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = tool(tmp.path(), "ctx-bin").canonicalize().unwrap();
        let (a, b, real) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("r"),
        );
        for d in [&a, &b, &real] {
            std::fs::create_dir(d).unwrap();
        }
        symlink(&ctx, a.join("pytest")).unwrap();
        // A link to a link to ctx is still ctx.
        symlink(a.join("pytest"), b.join("pytest")).unwrap();
        let want = tool(&real, "pytest");
        let path = format!(
            "{}:{}:{}:{}",
            a.display(),
            b.display(),
            a.display(),
            real.display()
        );
        let got = real_command_in(OsStr::new("pytest"), path.as_bytes(), &ctx).unwrap();
        assert_eq!(got, want);
        let path = format!("{}:{}", a.display(), b.display());
        let err = real_command_in(OsStr::new("pytest"), path.as_bytes(), &ctx).unwrap_err();
        assert_eq!(err.status(), 127);
        assert_eq!(err.to_string(), "pytest: command not found");
    }
}
