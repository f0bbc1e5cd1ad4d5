//! Where ctx keeps its files: `$CTX_HOME`, else `$XDG_DATA_HOME/ctx`, else
//! `~/.local/share/ctx`. The directory is created 0700: archived output can
//! hold secrets a command printed.

use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::PathBuf;

/// The data directory, without creating it.
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

/// The data directory, created 0700 if missing (an existing directory's
/// mode is tightened to 0700 when ctx owns it).
pub fn ensure_data_dir() -> io::Result<PathBuf> {
    let dir = data_dir()?;
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
    {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::metadata(&dir)?;
    if meta.permissions().mode() & 0o077 != 0 {
        let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
    }
    Ok(dir)
}

/// Creates `path` as an empty 0600 file if it is missing, or tightens an
/// existing file to 0600: the store and the ledger hold command output and
/// command lines, which can carry secrets.
pub fn create_private_file(path: &std::path::Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) => {
            if meta.permissions().mode() & 0o077 != 0 {
                let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
            }
            Ok(())
        }
        Err(_) => std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)
            .map(drop),
    }
}
