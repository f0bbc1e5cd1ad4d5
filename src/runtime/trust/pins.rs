//! The pins: the SHA-256 of every project file the user trusted, kept in
//! ctx's home (`<home>/trust`, one `<sha256 hex>\t<absolute path>` line per
//! file). The file is opened the way every file in the home is (no links,
//! ours alone, 0600) and replaced whole through a private temporary file,
//! so a crash never leaves half a list.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::home;

/// The pins file's name in the home.
pub const FILE: &str = "trust";

/// A pins file larger than this is not ours: a pin is one short line, and
/// this is some ten thousand of them.
const MAX_BYTES: u64 = 4 << 20;

/// Trusted files: absolute path → SHA-256 (lower-case hex).
pub type Pins = BTreeMap<PathBuf, String>;

/// Reads every pin. A missing file is no pins; anything else that goes
/// wrong (a link, another user's file, a malformed line) is an error, and
/// the caller trusts nothing.
pub fn read() -> io::Result<Pins> {
    let path = home::data_dir()?.join(FILE);
    let mut file = match home::open_private_read(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Pins::new()),
        Err(e) => return Err(e),
    };
    let bytes = crate::bounded::read_opened(&mut file, &path, MAX_BYTES)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not UTF-8 text", path.display()),
        )
    })?;
    let mut pins = Pins::new();
    for (i, line) in text.lines().enumerate() {
        let bad = || {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: line {} is malformed", path.display(), i + 1),
            )
        };
        let (hash, file) = line.split_once('\t').ok_or_else(bad)?;
        if hash.len() != 64
            || !hash.bytes().all(|b| b.is_ascii_hexdigit())
            || !file.starts_with('/')
        {
            return Err(bad());
        }
        pins.insert(PathBuf::from(file), hash.to_ascii_lowercase());
    }
    Ok(pins)
}

/// Replaces the pins file with `pins`.
pub fn write(pins: &Pins) -> io::Result<()> {
    let dir = home::ensure_data_dir()?;
    let mut text = String::new();
    for (path, hash) in pins {
        let shown = path.to_str().filter(|p| !p.contains(['\t', '\n']));
        let Some(shown) = shown else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} has a name ctx cannot pin", path.display()),
            ));
        };
        text.push_str(&format!("{hash}\t{shown}\n"));
    }
    let target = dir.join(FILE);
    home::check_existing(&target)?;
    let mut temp = tempfile::NamedTempFile::new_in(&dir)?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    temp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}

/// The pins of files under `root`.
pub fn under<'a>(
    pins: &'a Pins,
    root: &'a Path,
) -> impl Iterator<Item = (&'a PathBuf, &'a String)> {
    pins.iter().filter(move |(p, _)| p.starts_with(root))
}
