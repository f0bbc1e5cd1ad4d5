//! Where ctx keeps its files: `$CTX_HOME`, else `$XDG_DATA_HOME/ctx`, else
//! `~/.local/share/ctx`.
//!
//! The directory is ctx's alone: archived output and recorded command lines
//! can hold secrets, and whoever can plant a file there can make ctx (often
//! root, in CI) write through a symbolic link. So:
//! - a missing home is created 0700;
//! - a home that is a symbolic link, not a directory, owned by another
//!   user, or writable by group or others is refused (never chmodded: it
//!   may be someone else's, or shared on purpose); one only readable by
//!   others and owned by us is tightened to 0700;
//! - every file in it is opened with `O_NOFOLLOW` and checked to be a
//!   regular file owned by us before use, and tightened to 0600 if looser.
//!
//! A refusal is an `io::Error` whose message says which rule failed; the
//! store turns it into "not archived", and the run prints the raw output.
//!
//! A home that cannot be written (a read-only mount, a CI cache restored
//! read-only, `chmod a-w`) is still read: the checks above run on what is
//! there, tightening only ever removes permission bits (a 0555 home
//! becomes 0500, never 0700), and a tightening the medium refuses is
//! skipped, since nobody can write there anyway. Only the writes fail, and
//! each verb says so (`is_read_only`).

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Why ctx will not use a home or a file in it.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("{0} is a symbolic link; ctx keeps its files only where it owns them alone")]
    Link(PathBuf),
    #[error("{0} is not a directory")]
    NotDirectory(PathBuf),
    #[error("{0} is not a regular file")]
    NotRegular(PathBuf),
    #[error("{path} is owned by uid {owner}, not by this user (uid {me}); ctx will not use it")]
    Owner { path: PathBuf, owner: u32, me: u32 },
    #[error(
        "{path} is writable by group or others (mode {mode:o}); ctx will not use it \
         (`chmod go-w` it, or point CTX_HOME elsewhere)"
    )]
    Shared { path: PathBuf, mode: u32 },
}

impl From<Refusal> for io::Error {
    fn from(r: Refusal) -> io::Error {
        io::Error::new(io::ErrorKind::PermissionDenied, r)
    }
}

/// The data directory, without creating or checking it.
pub fn data_dir() -> io::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("CTX_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir).join("ctx"));
    }
    dirs::data_dir()
        .map(|d| d.join("ctx"))
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no home directory"))
}

/// The data directory, created 0700 if missing, refused unless it is ours
/// alone (see the module doc).
pub fn ensure_data_dir() -> io::Result<PathBuf> {
    let dir = data_dir()?;
    match std::fs::symlink_metadata(&dir) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            match std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&dir)
            {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
        Err(e) => return Err(e),
    }
    verify_dir(&dir)?;
    Ok(dir)
}

/// Checks that `dir` is a directory of ours that nobody else can write to,
/// tightening it to 0700 when only its read bits are loose.
pub fn verify_dir(dir: &Path) -> io::Result<()> {
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(dir);
    let handle = match opened {
        Ok(f) => f,
        Err(e) => return Err(explain_open_error(dir, e)),
    };
    let meta = handle.metadata()?;
    if !meta.is_dir() {
        return Err(Refusal::NotDirectory(dir.to_path_buf()).into());
    }
    check_owner(dir, &meta)?;
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(Refusal::Shared {
            path: dir.to_path_buf(),
            mode,
        }
        .into());
    }
    if mode & 0o077 != 0 {
        // Ours and nobody else can write to it: closing the read bits only
        // narrows who may read what ctx archives.
        tighten(&handle, mode & 0o700)?;
    }
    Ok(())
}

/// Sets `mode` (the old one with bits removed, never added); on a medium
/// that refuses any change nobody can write either, so it is left as is.
fn tighten(handle: &File, mode: u32) -> io::Result<()> {
    match handle.set_permissions(std::fs::Permissions::from_mode(mode)) {
        Err(e) if is_read_only(&e) => Ok(()),
        other => other,
    }
}

/// Whether `e` says the home cannot be written: a read-only file system,
/// or no write permission on what is ours (EACCES, EPERM).
pub fn is_read_only(e: &io::Error) -> bool {
    // A refusal (a planted link, a stranger's file) is no read-only home:
    // nothing of it may be read either.
    if e.get_ref().is_some_and(|inner| inner.is::<Refusal>()) {
        return false;
    }
    matches!(
        e.kind(),
        io::ErrorKind::ReadOnlyFilesystem | io::ErrorKind::PermissionDenied
    ) || matches!(
        e.raw_os_error(),
        Some(libc::EROFS | libc::EACCES | libc::EPERM)
    )
}

/// Creates `path` as an empty 0600 file if it is missing, or checks that
/// the existing one is a regular file of ours (tightened to 0600 if
/// looser). A symbolic link is refused, never followed.
pub fn create_private_file(path: &Path) -> io::Result<()> {
    let opened = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        // Non-blocking: a planted FIFO must not hang the open.
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path);
    match opened {
        Ok(file) => verify_file(path, file).map(drop),
        // Write access is not ours (or the medium is read-only): a
        // read-only check still refuses a stranger's file, and the
        // caller's write will say the rest. A file that is not there
        // cannot be made: that is the error.
        Err(e) if is_read_only(&e) => match std::fs::symlink_metadata(path) {
            Ok(_) => check_existing(path),
            Err(_) => Err(explain_open_error(path, e)),
        },
        Err(e) => Err(explain_open_error(path, e)),
    }
}

/// Prepares an SQLite database at `path`: the file itself as
/// [`create_private_file`], and each side file SQLite may open beside it
/// (`-wal`, `-shm`, `-journal`) checked the same way if it exists, since
/// SQLite itself would follow a link planted there.
pub fn prepare_database(path: &Path) -> io::Result<()> {
    create_private_file(path)?;
    check_database(path)
}

/// Checks an existing SQLite database at `path` and each side file
/// beside it as [`check_existing`], creating nothing: for reading a home
/// that cannot be written.
pub fn check_database(path: &Path) -> io::Result<()> {
    check_existing(path)?;
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        check_existing(Path::new(&side))?;
    }
    Ok(())
}

/// If `path` exists, checks that it is a regular file of ours (tightened to
/// 0600 if looser); a missing file is fine.
pub fn check_existing(path: &Path) -> io::Result<()> {
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path);
    match opened {
        Ok(file) => verify_file(path, file).map(drop),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(explain_open_error(path, e)),
    }
}

/// Opens `path` for appending (created 0600 if missing), refusing a link,
/// anything but a regular file, and a file of another user's; an existing
/// file with a looser mode is tightened to 0600.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| explain_open_error(path, e))?;
    verify_file(path, file)
}

/// Opens an existing file of ours for reading, refusing a link.
pub fn open_private_read(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| explain_open_error(path, e))?;
    verify_file(path, file)
}

/// The checks on an opened file, through its descriptor (no race with a
/// rename in between).
fn verify_file(path: &Path, file: File) -> io::Result<File> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Refusal::NotRegular(path.to_path_buf()).into());
    }
    check_owner(path, &meta)?;
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 != 0 {
        tighten(&file, mode & 0o700)?;
    }
    Ok(file)
}

fn check_owner(path: &Path, meta: &Metadata) -> io::Result<()> {
    let me = effective_uid();
    if meta.uid() != me {
        return Err(Refusal::Owner {
            path: path.to_path_buf(),
            owner: meta.uid(),
            me,
        }
        .into());
    }
    Ok(())
}

/// `O_NOFOLLOW` on a link fails with ELOOP: say what it means.
fn explain_open_error(path: &Path, e: io::Error) -> io::Error {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if e.raw_os_error() == Some(libc::ELOOP) || is_link {
        Refusal::Link(path.to_path_buf()).into()
    } else if e.raw_os_error() == Some(libc::ENOTDIR) {
        Refusal::NotDirectory(path.to_path_buf()).into()
    } else {
        io::Error::new(e.kind(), format!("{}: {e}", path.display()))
    }
}

fn effective_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_created_private_and_a_loose_one_tightened() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        create_private_file(&path).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        std::fs::set_permissions(&path, PermissionsExt::from_mode(0o664)).unwrap();
        create_private_file(&path).unwrap();
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn links_and_fifos_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = create_private_file(&link).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(!target.exists(), "the link's target was created");
        assert!(check_existing(&link).is_err());
        assert!(open_private_append(&link).is_err());
        assert!(!target.exists());

        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let e = create_private_file(&fifo).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }

    #[test]
    fn a_side_file_link_refuses_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        std::os::unix::fs::symlink("/nonexistent/elsewhere", dir.path().join("x.db-wal")).unwrap();
        assert!(prepare_database(&db).is_err());
    }
}
