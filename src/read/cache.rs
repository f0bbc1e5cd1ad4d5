//! Outlines kept by content: a second outline, signature list or symbol
//! read of an unchanged file skips the parse, which is most of the cost
//! of a cold one (docs/performance.md).
//!
//! The key is blake3 of the file's bytes, the grammar and ctx's version
//! (a new ctx may outline differently), so a cached outline is never
//! stale: a changed file has another key. Each entry is
//! `reads/outlines/<key>` under ctx's home: 32 bytes of blake3 over the
//! rest, then the outline as JSON; an entry whose checksum or content does
//! not hold is ignored and the file parsed again. Entries are removed with
//! the re-read stubs' (`retention`). Any failure here (no home, a full
//! disk) only costs the parse.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::languages::{Grammar, Role};
use super::outline::{Decl, ErrorRegion, Outline};
use crate::home;

/// What changes the bytes of an entry for the same file: the format of
/// this module, and ctx's version.
const FORMAT: &str = concat!("ctx-outline/1/", env!("CARGO_PKG_VERSION"));

/// ctx's home.
#[cfg(not(test))]
fn data_dir() -> std::io::Result<PathBuf> {
    home::ensure_data_dir()
}

/// The unit tests' home: one temporary folder per test process, never the
/// person's `~/.local/share/ctx` (the suite is hermetic).
#[cfg(test)]
fn data_dir() -> std::io::Result<PathBuf> {
    static DIR: std::sync::OnceLock<Option<tempfile::TempDir>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().ok())
        .as_ref()
        .map(|d| d.path().to_path_buf())
        .ok_or_else(|| std::io::Error::other("no temporary folder"))
}

/// The directory under ctx's home (`home`, else the process's), beside
/// the re-read stubs'.
fn dir(home: Option<&Path>) -> std::io::Result<PathBuf> {
    let home = match home {
        Some(h) => h.to_path_buf(),
        None => data_dir()?,
    };
    let reads = home.join("reads");
    let dir = reads.join("outlines");
    for d in [&reads, &dir] {
        use std::os::unix::fs::DirBuilderExt;
        match std::fs::DirBuilder::new().mode(0o700).create(d) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
        home::verify_dir(d)?;
    }
    Ok(dir)
}

/// The cache key of `src` in `grammar`.
pub fn key(grammar: &Grammar, src: &[u8]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(FORMAT.as_bytes());
    h.update(b"\0");
    h.update(grammar.name.as_bytes());
    h.update(b"\0");
    h.update(src);
    h.finalize().to_hex().to_string()
}

/// The outline of `src`: from the cache when it holds it, else parsed
/// and kept.
pub fn outline(home: Option<&Path>, grammar: &'static Grammar, src: &[u8]) -> Option<Outline> {
    let Ok(dir) = dir(home) else {
        return super::outline::extract(grammar, src);
    };
    outline_in(&dir, grammar, src)
}

/// `outline` with the cache in `dir`.
pub fn outline_in(dir: &Path, grammar: &'static Grammar, src: &[u8]) -> Option<Outline> {
    let path = dir.join(key(grammar, src));
    if let Some(found) = load(&path, grammar, src.len()) {
        return Some(found);
    }
    let outline = super::outline::extract(grammar, src)?;
    // A cache that cannot be written costs the next read a parse; a
    // sweep that fails costs nothing now.
    if store(dir, &path, &outline).is_ok()
        && let Some(reads) = dir.parent()
    {
        let _ = super::retention::sweep_if_due(reads, std::time::SystemTime::now());
    }
    Some(outline)
}

#[derive(Serialize, Deserialize)]
struct Entry {
    decls: Vec<CachedDecl>,
    errors: Vec<(usize, usize, Option<String>)>,
}

#[derive(Serialize, Deserialize)]
struct CachedDecl {
    kind: String,
    container: bool,
    name: String,
    path: Vec<String>,
    signature: String,
    has_body: bool,
    lines: (usize, usize),
    bytes: (usize, usize),
    depth: usize,
    parent: Option<usize>,
    public: bool,
}

fn load(path: &Path, grammar: &'static Grammar, src_len: usize) -> Option<Outline> {
    let mut file = home::open_private_read(path).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    // Used again: younger for retention, which removes the least recently
    // used entries first.
    let _ = file.set_modified(std::time::SystemTime::now());
    let (sum, body) = bytes.split_at_checked(32)?;
    if blake3::hash(body).as_bytes() != sum {
        return None;
    }
    let entry: Entry = serde_json::from_slice(body).ok()?;
    let mut decls = Vec::with_capacity(entry.decls.len());
    for (i, d) in entry.decls.into_iter().enumerate() {
        // Kinds come back as the grammar's own names; spans and parents
        // must fit the file and the list, or the entry is not used.
        let kind = grammar.decl(&d.kind)?.kind;
        let fits = d.lines.0 >= 1
            && d.lines.0 <= d.lines.1
            && d.bytes.0 <= d.bytes.1
            && d.bytes.1 <= src_len
            && d.parent.is_none_or(|p| p < i);
        if !fits {
            return None;
        }
        decls.push(Decl {
            kind,
            role: if d.container {
                Role::Container
            } else {
                Role::Leaf
            },
            name: d.name,
            path: d.path,
            signature: d.signature,
            has_body: d.has_body,
            start_line: d.lines.0,
            end_line: d.lines.1,
            start_byte: d.bytes.0,
            end_byte: d.bytes.1,
            depth: d.depth,
            parent: d.parent,
            public: d.public,
        });
    }
    let errors = entry
        .errors
        .into_iter()
        .map(|(start_line, end_line, missing)| ErrorRegion {
            start_line,
            end_line,
            missing,
        })
        .collect();
    Some(Outline {
        grammar: grammar.name,
        decls,
        errors,
    })
}

fn store(dir: &Path, path: &Path, outline: &Outline) -> std::io::Result<()> {
    let entry = Entry {
        decls: outline
            .decls
            .iter()
            .map(|d| CachedDecl {
                kind: d.kind.to_string(),
                container: d.role == Role::Container,
                name: d.name.clone(),
                path: d.path.clone(),
                signature: d.signature.clone(),
                has_body: d.has_body,
                lines: (d.start_line, d.end_line),
                bytes: (d.start_byte, d.end_byte),
                depth: d.depth,
                parent: d.parent,
                public: d.public,
            })
            .collect(),
        errors: outline
            .errors
            .iter()
            .map(|e| (e.start_line, e.end_line, e.missing.clone()))
            .collect(),
    };
    let body = serde_json::to_vec(&entry).map_err(std::io::Error::other)?;
    // Written under a fresh name (0600), renamed over the final one: a
    // reader sees a whole entry or none.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(blake3::hash(&body).as_bytes())?;
    tmp.write_all(&body)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::languages;

    const SRC: &str = "mod m {\n    pub struct S;\n    impl S {\n        pub fn f(&self) {\n            1\n        }\n    }\n}\nfn broken( {\n";

    #[test]
    fn a_cached_outline_is_the_parsed_one_and_a_damaged_entry_is_not_used() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rust = languages::by_name("rust").expect("rust");
        let parsed = super::super::outline::extract(rust, SRC.as_bytes()).expect("parsed");
        assert!(!parsed.errors.is_empty(), "the sample has an error region");
        let first = outline_in(dir.path(), rust, SRC.as_bytes()).expect("outline");
        let entry = dir.path().join(key(rust, SRC.as_bytes()));
        assert!(entry.exists(), "kept");
        let cached = load(&entry, rust, SRC.len()).expect("loaded");
        for o in [&first, &cached] {
            assert_eq!(o.decls, parsed.decls);
            assert_eq!(o.errors, parsed.errors);
        }
        // One byte flipped: the checksum fails, the file is parsed again.
        let mut bytes = std::fs::read(&entry).expect("entry");
        let last = bytes.len() - 2;
        bytes[last] ^= 1;
        std::fs::write(&entry, &bytes).expect("write");
        assert!(load(&entry, rust, SRC.len()).is_none());
        let again = outline_in(dir.path(), rust, SRC.as_bytes()).expect("outline");
        assert_eq!(again.decls, parsed.decls);
        // Another grammar or other bytes: another key.
        let python = languages::by_name("python").expect("python");
        assert_ne!(key(rust, SRC.as_bytes()), key(python, SRC.as_bytes()));
        assert_ne!(key(rust, SRC.as_bytes()), key(rust, b"fn x() {}\n"));
    }
}
