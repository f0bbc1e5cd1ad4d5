//! Trust for project-local files. `.ctx/filters/*.toml` and
//! `.ctx/contracts/*.toml` change what the reader sees, so a repository
//! cannot bring them in by being cloned: they are used only after the user
//! runs `ctx trust`, which pins each file's SHA-256 in ctx's home.
//!
//! On every run each file is read once, its bytes hashed, and only those
//! bytes are used (never the file again after the check). Any difference —
//! a changed file, a new one, a pinned one gone — revokes the project's
//! trust (its pins are dropped) with one `[ctx]` note, and the built-ins
//! are used. Anything doubtful (a symbolic link, an unreadable pins file,
//! a file too large) fails closed the same way. In CI (`CI=true`),
//! `CTX_TRUST_PROJECT=1` trusts the project's files without pins.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

pub mod pins;

/// A file whose bytes were read and may be used.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
}

/// The kinds of project files that need trust, each a folder of `.ctx/`.
pub const KINDS: &[&str] = &["filters", "contracts"];

/// The project directory that holds these files.
pub const DIR: &str = ".ctx";

/// Larger files are refused: a filter or a contract is a few KiB.
const MAX_FILE_BYTES: u64 = crate::bounded::SETTINGS_BYTES;

/// What a project brings, after the trust check.
#[derive(Clone, Debug, Default)]
pub struct ProjectFiles {
    /// Trusted files of one kind, with the bytes that were verified.
    pub files: Vec<SourceFile>,
    /// One-line reasons the project's files are not used.
    pub problems: Vec<String>,
}

/// One project file, read once.
pub struct Read1 {
    /// The path relative to the project root (`.ctx/filters/x.toml`).
    pub relative: PathBuf,
    /// The absolute path the pin is kept under.
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub sha256: String,
}

/// The project root: the nearest directory, from the working directory
/// up, that has a `.ctx` entry.
pub fn project_root() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    let cwd = cwd.canonicalize().unwrap_or(cwd);
    cwd.ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(DIR)).is_ok())
        .map(Path::to_path_buf)
}

/// The `.toml` files of a directory, sorted; nothing when it is missing.
pub fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

/// Every project file of every kind, each read once; an error names the
/// doubt (a link where a directory or file should be, a file too large).
pub fn read_project(root: &Path) -> io::Result<Vec<Read1>> {
    let dot = root.join(DIR);
    refuse_link(&dot)?;
    let mut out = Vec::new();
    for kind in KINDS {
        let dir = dot.join(kind);
        if std::fs::symlink_metadata(&dir).is_err() {
            continue;
        }
        refuse_link(&dir)?;
        for path in toml_files(&dir) {
            let bytes = read_once(&path)?;
            let sha256 = hex(&Sha256::digest(&bytes));
            let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            out.push(Read1 {
                relative,
                path,
                bytes,
                sha256,
            });
        }
    }
    Ok(out)
}

fn refuse_link(path: &Path) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} is a symbolic link", path.display()),
        ));
    }
    if !meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not a directory", path.display()),
        ));
    }
    Ok(())
}

/// The bytes of a regular file, opened without following a link and
/// checked through the open descriptor (no race with a swap in between).
fn read_once(path: &Path) -> io::Result<Vec<u8>> {
    crate::bounded::read_with(path, MAX_FILE_BYTES, crate::bounded::Links::Refuse).map_err(|e| {
        match e.kind() {
            // The refusal already names the path; an open error does not.
            io::ErrorKind::InvalidData => e,
            kind => io::Error::new(kind, format!("{}: {e}", path.display())),
        }
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether this is CI with the project trusted by the environment.
pub fn trusted_by_ci() -> bool {
    let is = |var: &str, values: &[&str]| {
        std::env::var(var).is_ok_and(|v| values.contains(&v.to_ascii_lowercase().as_str()))
    };
    is("CI", &["true", "1"]) && is("CTX_TRUST_PROJECT", &["1"])
}

/// The trusted project files of this process, checked once.
struct Checked {
    files: Vec<Read1>,
    problems: Vec<String>,
}

fn checked() -> &'static Checked {
    static CHECKED: OnceLock<Checked> = OnceLock::new();
    CHECKED.get_or_init(|| {
        let checked = match project_root() {
            None => Checked {
                files: Vec::new(),
                problems: Vec::new(),
            },
            Some(root) => check(&root),
        };
        for problem in &checked.problems {
            crate::emit::note(&format!("[ctx] {problem}"));
        }
        checked
    })
}

/// The trust check for the project at `root`.
fn check(root: &Path) -> Checked {
    let untrusted = |why: String| Checked {
        files: Vec::new(),
        problems: vec![why],
    };
    let files = match read_project(root) {
        Ok(files) => files,
        Err(e) => {
            return untrusted(format!(
                "project files in {} not used: {e}",
                root.join(DIR).display()
            ));
        }
    };
    if files.is_empty() {
        return Checked {
            files,
            problems: Vec::new(),
        };
    }
    if trusted_by_ci() {
        return Checked {
            files,
            problems: Vec::new(),
        };
    }
    let mut all = match pins::read() {
        Ok(pins) => pins,
        Err(e) => {
            return untrusted(format!(
                "trust pins unreadable ({e}); project filters and contracts not used"
            ));
        }
    };
    let pinned: Vec<(PathBuf, String)> = pins::under(&all, root)
        .map(|(p, h)| (p.clone(), h.clone()))
        .collect();
    if pinned.is_empty() {
        // Never trusted: the built-ins, silently (`ctx trust --list` says so).
        return Checked {
            files: Vec::new(),
            problems: Vec::new(),
        };
    }
    let changed = files
        .iter()
        .find(|f| pinned.iter().all(|(p, h)| *p != f.path || *h != f.sha256))
        .map(|f| format!("{} changed", f.relative.display()))
        .or_else(|| {
            pinned
                .iter()
                .find(|(p, _)| files.iter().all(|f| f.path != *p))
                .map(|(p, _)| format!("{} is gone", p.strip_prefix(root).unwrap_or(p).display()))
        });
    let Some(change) = changed else {
        return Checked {
            files,
            problems: Vec::new(),
        };
    };
    all.retain(|p, _| !p.starts_with(root));
    let kept = pins::write(&all).is_ok();
    untrusted(format!(
        "{change} since `ctx trust`: trust in {} {}; built-in filters and contracts used (run `ctx trust` to trust it again)",
        root.display(),
        if kept { "revoked" } else { "not used" }
    ))
}

/// The trusted project files of one kind (`filters`, `contracts`), with
/// the problems met (each a note's words, reported once per process).
pub fn project_files(kind: &str) -> ProjectFiles {
    let checked = checked();
    let files = checked
        .files
        .iter()
        .filter(|f| f.relative.starts_with(Path::new(DIR).join(kind)))
        .filter_map(|f| {
            Some(SourceFile {
                path: f.path.clone(),
                text: String::from_utf8(f.bytes.clone()).ok()?,
            })
        })
        .collect();
    ProjectFiles {
        files,
        problems: Vec::new(),
    }
}
