//! Reading a store that cannot be written: a read-only mount, or a CI
//! cache restored read-only. SQLite reads a WAL database there only while
//! its `-shm` and `-wal` files are present (docs: "WAL mode on read-only
//! media"); a cache restored after a checkpoint has neither, so such a
//! store is opened `immutable=1`: SQLite then takes no locks and expects
//! no writer, which a medium nobody can write guarantees.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Whether this process may write `path` and the folder holding it (the
/// folder, for SQLite's side files).
pub fn writable(path: &Path) -> bool {
    let can = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            // SAFETY: `c` is a valid NUL-terminated string for the call.
            .is_ok_and(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0)
    };
    can(path) && path.parent().is_none_or(can)
}

/// `file:` URI of `path`, read-only and immutable.
pub fn immutable_uri(path: &Path) -> String {
    let mut uri = file_uri(path);
    uri.push_str("?mode=ro&immutable=1");
    uri
}

/// `file:` URI of `path` without parameters; every byte outside the
/// unreserved set and `/` percent-encoded, so that `?`, `#` or `%` in a
/// folder name stay part of the path.
pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_keeps_odd_names_in_the_path() {
        assert_eq!(
            immutable_uri(Path::new("/a b/x?y#%.db")),
            "file:/a%20b/x%3Fy%23%25.db?mode=ro&immutable=1"
        );
    }
}
