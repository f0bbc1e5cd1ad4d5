//! Finding and starting the program the way a shell does, so that a command
//! ctx cannot start fails with the status and the words a shell would use
//! (invariant 1): 127 when there is nothing to run, 126 when there is
//! something that cannot be run. ctx resolves `PATH` itself instead of
//! leaving it to `execvp`, because only the search knows whether it saw a
//! non-executable match (bash: "Permission denied") or nothing at all
//! ("command not found").

use std::ffi::{CString, OsStr, OsString};
use std::io::{self, Read};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::sys::signal::{self, SigHandler, Signal};
use nix::unistd::{self, AccessFlags};

/// What the command search uses when `PATH` is unset (glibc's `execvp`).
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// The interpreter for an executable text file with no `#!` line: a shell
/// runs such a file as a script, and so does ctx.
pub(crate) const SCRIPT_SHELL: &str = "/bin/sh";

/// Why the command could not be started. The messages follow bash's.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("{0}: command not found")]
    NotFound(String),
    #[error("{0}: No such file or directory")]
    NoSuchFile(String),
    #[error("{0}: Permission denied")]
    PermissionDenied(String),
    #[error("{0}: Is a directory")]
    IsDirectory(String),
    #[error("{0}: cannot execute binary file: Exec format error")]
    BinaryFormat(String),
    #[error("{0}: {1}")]
    Os(String, String),
}

impl LaunchError {
    /// The exit status a shell gives this failure.
    pub fn status(&self) -> i32 {
        match self {
            LaunchError::NotFound(_) | LaunchError::NoSuchFile(_) => 127,
            _ => 126,
        }
    }

    /// Maps the error of an `execve` (or a spawn) of `path`, already
    /// resolved, to what a shell would report.
    pub(crate) fn from_exec(path: &Path, errno: Errno) -> LaunchError {
        let shown = path.to_string_lossy().into_owned();
        match errno {
            // The file vanished between the search and the exec.
            Errno::ENOENT if !path.exists() => LaunchError::NoSuchFile(shown),
            Errno::EACCES => LaunchError::PermissionDenied(shown),
            Errno::EISDIR => LaunchError::IsDirectory(shown),
            Errno::ENOEXEC => LaunchError::BinaryFormat(shown),
            // ENOENT on a file that exists: its `#!` interpreter is missing.
            other => LaunchError::Os(shown, other.desc().to_string()),
        }
    }
}

/// The program to start for `cmd`: `cmd` itself when it names a path, else
/// the first executable regular file of that name along `PATH`.
pub fn resolve(cmd: &OsStr) -> Result<PathBuf, LaunchError> {
    let shown = cmd.to_string_lossy().into_owned();
    if cmd.is_empty() {
        return Err(LaunchError::NotFound(shown));
    }
    if cmd.as_bytes().contains(&b'/') {
        let path = PathBuf::from(cmd);
        return match std::fs::metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(LaunchError::NoSuchFile(shown)),
            Err(e) => Err(LaunchError::Os(shown, e.to_string())),
            Ok(meta) if meta.is_dir() => Err(LaunchError::IsDirectory(shown)),
            Ok(_) if !executable(&path) => Err(LaunchError::PermissionDenied(shown)),
            Ok(_) => Ok(path),
        };
    }
    let search = std::env::var_os("PATH").unwrap_or_else(|| DEFAULT_PATH.into());
    let mut not_executable: Option<PathBuf> = None;
    for dir in search.as_bytes().split(|&b| b == b':') {
        // An empty entry is the current directory; "./" keeps the result a
        // path, so that nothing downstream searches PATH a second time.
        let dir = if dir.is_empty() { b".".as_slice() } else { dir };
        let candidate = Path::new(OsStr::from_bytes(dir)).join(cmd);
        match std::fs::metadata(&candidate) {
            Ok(meta) if !meta.is_dir() => {
                if executable(&candidate) {
                    return Ok(candidate);
                }
                not_executable.get_or_insert(candidate);
            }
            _ => {}
        }
    }
    match not_executable {
        Some(path) => Err(LaunchError::PermissionDenied(
            path.to_string_lossy().into_owned(),
        )),
        None => Err(LaunchError::NotFound(shown)),
    }
}

fn executable(path: &Path) -> bool {
    unistd::access(path, AccessFlags::X_OK).is_ok()
}

/// True when `path` starts like a binary the kernel refused (bash's test:
/// a NUL byte before the first newline of the first 80 bytes), false for
/// text, which a shell would run as a script.
pub(crate) fn looks_binary(path: &Path) -> bool {
    let mut head = [0u8; 80];
    // Not `File::open`: a FIFO on PATH would hold the open forever.
    let Ok(mut file) = crate::bounded::open(path, crate::bounded::Links::Follow) else {
        return true;
    };
    let Ok(n) = file.read(&mut head) else {
        return true;
    };
    head[..n]
        .iter()
        .take_while(|&&b| b != b'\n')
        .any(|&b| b == 0)
}

/// Replaces ctx with the command (the live, undigested path for a person at
/// a terminal). Returns only when the command could not be started.
pub fn exec(argv: &[OsString]) -> LaunchError {
    let Some(cmd) = argv.first() else {
        return LaunchError::NotFound(String::new());
    };
    match resolve(cmd) {
        Ok(path) => exec_program(&path, argv),
        Err(e) => e,
    }
}

/// `exec` of a program already found (a shim resolves past itself);
/// `argv[0]` is still what the program sees as its name.
pub fn exec_program(path: &Path, argv: &[OsString]) -> LaunchError {
    let Some(cmd) = argv.first() else {
        return LaunchError::NotFound(String::new());
    };
    // Rust's runtime ignores SIGPIPE, and an ignored signal survives execve:
    // without this the command would not die when its reader goes away.
    // SAFETY: SIG_DFL installs no handler; ctx is single-threaded here.
    let _ = unsafe { signal::signal(Signal::SIGPIPE, SigHandler::SigDfl) };
    let Some(args) = c_strings(argv) else {
        return LaunchError::Os(
            cmd.to_string_lossy().into_owned(),
            "argument contains a NUL byte".into(),
        );
    };
    let Some(c_path) = c_string(path.as_os_str()) else {
        return LaunchError::NoSuchFile(path.to_string_lossy().into_owned());
    };
    let errno = match unistd::execv(&c_path, &args) {
        Ok(never) => match never {},
        Err(errno) => errno,
    };
    if errno == Errno::ENOEXEC && !looks_binary(path) {
        return exec_script(path, &c_path, &args[1..]);
    }
    LaunchError::from_exec(path, errno)
}

/// Runs an executable text file without `#!` with `/bin/sh`, as bash does.
fn exec_script(path: &Path, c_path: &CString, rest: &[CString]) -> LaunchError {
    let mut args = vec![c"sh".to_owned(), c_path.clone()];
    args.extend(rest.iter().cloned());
    let shell = c_string(OsStr::new(SCRIPT_SHELL)).unwrap_or_default();
    let errno = match unistd::execv(&shell, &args) {
        Ok(never) => match never {},
        Err(errno) => errno,
    };
    LaunchError::from_exec(path, errno)
}

fn c_string(s: &OsStr) -> Option<CString> {
    CString::new(s.to_os_string().into_vec()).ok()
}

fn c_strings(argv: &[OsString]) -> Option<Vec<CString>> {
    argv.iter().map(|a| c_string(a)).collect()
}
