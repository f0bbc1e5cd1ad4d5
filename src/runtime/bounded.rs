//! Reading a file ctx was pointed at — the configuration, a filter, a
//! contract, the trust pins, an agent's settings, a cache entry — without
//! letting the file decide how long the read takes or how much memory it
//! costs. A path can name a FIFO (an `open` that waits for a writer, then
//! a read that waits for data), a device (`/dev/zero` never ends), a
//! socket, or a regular file of gigabytes. Every such file is refused
//! before a byte is read, with one line naming what it is:
//!
//! - the open is non-blocking (`O_NONBLOCK`), so a FIFO without a writer
//!   opens at once instead of waiting for one;
//! - the opened descriptor is checked (`fstat`, no race with a rename in
//!   between): anything but a regular file is refused;
//! - its size is checked against the caller's limit, and the read itself
//!   stops one byte past the limit, so a file that grows meanwhile is
//!   refused too instead of read without end.
//!
//! One function for every such read, so a new reader cannot forget a
//! check. What a refusal does is the caller's: the configuration is then
//! ignored (invariant 8), a project's files lose their trust, a setting
//! file is left untouched.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The limit for a file a person writes by hand (the configuration, a
/// filter, a contract, an agent's settings): a few KiB each, so 1 MiB is
/// far past any real one and far below harm.
pub const SETTINGS_BYTES: u64 = 1 << 20;

/// Why a file was not read: it is not a regular file, or it is too large.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("{} is {what}, not a regular file", path.display())]
    NotRegular { path: PathBuf, what: &'static str },
    #[error("{} is larger than {}, the most ctx reads of such a file", path.display(), shown_bytes(*limit))]
    TooLarge { path: PathBuf, limit: u64 },
}

impl From<Refused> for io::Error {
    fn from(refused: Refused) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, refused)
    }
}

fn shown_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// An error of this module's reads as one line naming the file once: a
/// refusal names it already, an error from the system does not.
pub fn explain(path: &Path, e: &io::Error) -> String {
    let refused = e
        .get_ref()
        .is_some_and(|inner| inner.downcast_ref::<Refused>().is_some());
    if refused {
        e.to_string()
    } else {
        format!("{}: {e}", path.display())
    }
}

/// How a path that is a symbolic link is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// Followed, as any program reading a file does.
    Follow,
    /// Refused (`O_NOFOLLOW`): for files whose bytes are checked against a
    /// pin, where a link could be swapped after the check.
    Refuse,
}

/// What a file of this type is, in words.
pub fn what(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a regular file"
    }
}

/// Opens `path` for reading without waiting on it, and refuses it unless
/// it is a regular file. The descriptor is left non-blocking, which a
/// regular file ignores.
pub fn open(path: &Path, links: Links) -> io::Result<File> {
    let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
    if links == Links::Refuse {
        flags |= libc::O_NOFOLLOW;
    }
    let file = match OpenOptions::new().read(true).custom_flags(flags).open(path) {
        Ok(file) => file,
        // A socket cannot be opened at all (ENXIO), which says less than
        // naming it.
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
            return Err(match std::fs::metadata(path) {
                Ok(meta) => Refused::NotRegular {
                    path: path.to_path_buf(),
                    what: what(&meta),
                }
                .into(),
                Err(_) => e,
            });
        }
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Refused::NotRegular {
            path: path.to_path_buf(),
            what: what(&meta),
        }
        .into());
    }
    Ok(file)
}

/// Reads an opened file (`open`, or the home's private opens) to its end,
/// refusing it when it is not a regular file or holds more than `limit`
/// bytes.
pub fn read_opened(file: &mut File, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Refused::NotRegular {
            path: path.to_path_buf(),
            what: what(&meta),
        }
        .into());
    }
    let too_large = || Refused::TooLarge {
        path: path.to_path_buf(),
        limit,
    };
    if meta.len() > limit {
        return Err(too_large().into());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large().into());
    }
    Ok(bytes)
}

/// The bytes of the regular file at `path`, at most `limit` of them.
pub fn read(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    read_with(path, limit, Links::Follow)
}

/// `read` with a choice about links.
pub fn read_with(path: &Path, limit: u64, links: Links) -> io::Result<Vec<u8>> {
    let mut file = open(path, links)?;
    read_opened(&mut file, path, limit)
}

/// `read` of a text file: invalid UTF-8 is an `InvalidData` error, as
/// `std::fs::read_to_string` has it.
pub fn read_to_string(path: &Path, limit: u64) -> io::Result<String> {
    let bytes = read(path, limit)?;
    String::from_utf8(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not UTF-8 text", path.display()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn fifo(dir: &Path) -> PathBuf {
        let path = dir.join("fifo");
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600))
            .expect("mkfifo");
        path
    }

    #[test]
    fn a_fifo_is_refused_at_once_without_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(dir.path());
        let started = Instant::now();
        let err = read(&path, SETTINGS_BYTES).expect_err("refused");
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(
            err.to_string().contains("is a FIFO, not a regular file"),
            "{err}"
        );
    }

    #[test]
    fn devices_and_sockets_are_refused_by_what_they_are() {
        let err = read(Path::new("/dev/zero"), SETTINGS_BYTES).expect_err("refused");
        assert_eq!(
            err.to_string(),
            "/dev/zero is a character device, not a regular file"
        );
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
        let err = read(&socket, SETTINGS_BYTES).expect_err("refused");
        assert!(
            err.to_string().ends_with("is a socket, not a regular file"),
            "{err}"
        );
        let err = read(dir.path(), SETTINGS_BYTES).expect_err("refused");
        assert!(
            err.to_string()
                .ends_with("is a directory, not a regular file"),
            "{err}"
        );
    }

    #[test]
    fn a_file_over_the_limit_is_refused_and_one_at_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![b'a'; 1024]).unwrap();
        assert_eq!(read(&path, 1024).expect("at the limit").len(), 1024);
        let err = read(&path, 1023).expect_err("over");
        assert!(
            err.to_string().contains("is larger than 1023 bytes"),
            "{err}"
        );
        let err = read(&path, 512).expect_err("over");
        assert!(
            err.to_string().contains("is larger than 512 bytes"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_file_keeps_its_kind_and_a_link_can_be_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = read(&dir.path().join("none"), 10).expect_err("missing");
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        let target = dir.path().join("t");
        std::fs::write(&target, b"x").unwrap();
        let link = dir.path().join("l");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(read(&link, 10).expect("followed"), b"x");
        assert!(read_with(&link, 10, Links::Refuse).is_err());
    }
}
