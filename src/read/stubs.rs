//! Re-read stubs: within one agent session, a view read before and
//! unchanged since is not printed again, and a changed one is printed as a
//! diff against the earlier read when that is small.
//!
//! What is kept, under ctx's home (`reads/`, private like the rest of it):
//! one journal per session (`<blake3 of the session id>.jsonl`, a line per
//! read: which view of which file, the view's hash, when), and each view
//! read (`views/<hash>`, when at most [`KEPT_VIEW_BYTES`]) so a later read
//! can diff against it. Any failure here (no home, a refused file, a full
//! disk) turns the stub off for that read; the read itself goes on. What
//! is kept is bounded by age and size (`retention`).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::retention;
use crate::home;

/// Views larger than this are remembered by hash only: a change to one is
/// printed whole.
pub const KEPT_VIEW_BYTES: usize = 1 << 20;

/// A diff is printed instead of the view when it has at most this many
/// lines and at most half as many as the view itself.
pub const DIFF_LINES: usize = 200;

/// One journal line.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    /// blake3 of (canonical path, mode, anchored).
    key: String,
    /// blake3 of the view's bytes.
    view: String,
    /// Seconds since the epoch.
    at: u64,
    /// The command that read it.
    command: String,
}

pub struct Session {
    dir: PathBuf,
    journal: PathBuf,
}

/// What to print instead of a view.
pub enum Reuse {
    /// The view is new to this session, or changed too much: print it.
    Print,
    Stub(Vec<u8>),
    Diff(Vec<u8>),
}

impl Session {
    /// The session's journal under ctx's home (`home`, else the
    /// process's), created private if missing.
    pub fn open(home: Option<&Path>, id: &str) -> std::io::Result<Session> {
        let home = match home {
            Some(h) => h.to_path_buf(),
            None => home::ensure_data_dir()?,
        };
        Session::in_dir(&home.join("reads"), id)
    }

    /// The session's journal under `reads` (ctx's home's `reads/`).
    pub fn in_dir(reads: &Path, id: &str) -> std::io::Result<Session> {
        let dir = private_dir(reads)?;
        private_dir(&dir.join("views"))?;
        // Retention is housekeeping: a sweep that fails (a file another
        // process removed first, a refused entry) costs no read its stub.
        let _ = retention::sweep_if_due(&dir, SystemTime::now());
        let journal = dir.join(format!(
            "{}.jsonl",
            &blake3::hash(id.as_bytes()).to_hex()[..32]
        ));
        Ok(Session { dir, journal })
    }

    /// Compares `view` with the last read of the same `key` in this
    /// session, then records this read.
    pub fn reuse(
        &self,
        key: &str,
        view: &[u8],
        shown: &str,
        command: &str,
    ) -> std::io::Result<Reuse> {
        let hash = blake3::hash(view).to_hex().to_string();
        let earlier = self.last(key)?;
        let reuse = match &earlier {
            Some(e) if e.view == hash => {
                Reuse::Stub(super::view::stub(shown, &describe(e), line_count(view)))
            }
            Some(e) => match self.kept(&e.view) {
                Some(old) => diff(shown, &describe(e), &old, view),
                None => Reuse::Print,
            },
            None => Reuse::Print,
        };
        if !matches!(reuse, Reuse::Stub(_)) {
            self.keep(&hash, view)?;
            self.append(&Entry {
                key: key.to_string(),
                view: hash,
                at: SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
                command: command.to_string(),
            })?;
        }
        Ok(reuse)
    }

    fn last(&self, key: &str) -> std::io::Result<Option<Entry>> {
        let file = match home::open_private_read(&self.journal) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut found = None;
        for line in std::io::BufReader::new(file).lines() {
            // A torn or foreign line is skipped, not trusted.
            if let Ok(entry) = serde_json::from_str::<Entry>(&line?)
                && entry.key == key
            {
                found = Some(entry);
            }
        }
        Ok(found)
    }

    fn append(&self, entry: &Entry) -> std::io::Result<()> {
        let mut line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
        line.push('\n');
        // One write of one line: concurrent readers of the same session
        // append whole lines.
        let mut file = home::open_private_append(&self.journal)?;
        file.write_all(line.as_bytes())?;
        if file.metadata()?.len() > retention::JOURNAL_BYTES {
            self.compact()?;
        }
        Ok(())
    }

    /// Rewrites the journal with only what a later read can use. A read
    /// of the same session appending meanwhile may lose its line to the
    /// rename: that costs one stub, never a wrong one.
    fn compact(&self) -> std::io::Result<()> {
        let file = home::open_private_read(&self.journal)?;
        let mut lines = Vec::new();
        for line in std::io::BufReader::new(file).lines() {
            let line = line?;
            if let Ok(entry) = serde_json::from_str::<Entry>(&line) {
                lines.push((entry.key, line));
            }
        }
        let kept = retention::compact(lines, retention::JOURNAL_BYTES as usize / 2);
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        for line in kept {
            tmp.write_all(line.as_bytes())?;
            tmp.write_all(b"\n")?;
        }
        tmp.persist(&self.journal).map_err(|e| e.error)?;
        Ok(())
    }

    fn view_path(&self, hash: &str) -> PathBuf {
        self.dir.join("views").join(hash)
    }

    fn kept(&self, hash: &str) -> Option<Vec<u8>> {
        let mut file = home::open_private_read(&self.view_path(hash)).ok()?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).ok()?;
        // A view file whose content no longer has its name is not used.
        (blake3::hash(&bytes).to_hex().as_str() == hash).then_some(bytes)
    }

    fn keep(&self, hash: &str, view: &[u8]) -> std::io::Result<()> {
        if view.len() > KEPT_VIEW_BYTES {
            return Ok(());
        }
        if self.kept(hash).is_some() {
            // Used again: younger for retention, which removes the least
            // recently used views first.
            let file = home::open_private_read(&self.view_path(hash))?;
            return file.set_modified(SystemTime::now());
        }
        // Written under a fresh name (created 0600, never through a link),
        // then renamed over the final one: a reader sees all of it or none.
        let mut tmp = tempfile::NamedTempFile::new_in(self.dir.join("views"))?;
        tmp.write_all(view)?;
        tmp.persist(self.view_path(hash)).map_err(|e| e.error)?;
        Ok(())
    }
}

/// `reads/` and `reads/views/`: created 0700, refused unless ours alone.
fn private_dir(dir: &Path) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    home::verify_dir(dir)?;
    Ok(dir.to_path_buf())
}

/// `the read at 2026-12-01T01:45:12Z (ctx read src/x.rs --mode outline)`.
fn describe(e: &Entry) -> String {
    let at = humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(e.at));
    format!("this session's read at {at} ({})", e.command)
}

fn line_count(bytes: &[u8]) -> usize {
    let n = memchr::memchr_iter(b'\n', bytes).count();
    n + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// The diff of `new` against `old`, when it is small enough to be worth
/// printing instead of `new`.
fn diff(shown: &str, earlier: &str, old: &[u8], new: &[u8]) -> Reuse {
    let (Ok(old), Ok(new_text)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
        return Reuse::Print;
    };
    let diff = similar::TextDiff::from_lines(old, new_text);
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header("before", "now")
        .to_string();
    let diff_lines = line_count(text.as_bytes());
    if diff_lines > DIFF_LINES || diff_lines * 2 > line_count(new) {
        return Reuse::Print;
    }
    Reuse::Diff(super::view::changed(shown, earlier, &text, added, removed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_journal_is_compacted_and_its_newest_reads_still_answer() {
        let dir = tempfile::tempdir().expect("tempdir");
        let reads = dir.path().join("reads");
        let session = Session::in_dir(&reads, "s").expect("session");
        let view = b"fn a() {}\n";
        // The same view read again and again, then many different ones:
        // more than the journal may hold.
        let mut n = 0;
        while std::fs::metadata(&session.journal).map_or(0, |m| m.len())
            < retention::JOURNAL_BYTES - 4096
        {
            let key = if n % 2 == 0 {
                "same".to_string()
            } else {
                format!("k{n}")
            };
            session
                .append(&Entry {
                    key,
                    view: "0".repeat(64),
                    at: n,
                    command: format!("ctx read f{n}.rs --mode outline"),
                })
                .expect("append");
            n += 1;
        }
        for i in 0..40 {
            let reuse = session
                .reuse(&format!("new{i}"), view, "x.rs", "ctx read x.rs")
                .expect("reuse");
            assert!(matches!(reuse, Reuse::Print));
        }
        let len = std::fs::metadata(&session.journal).expect("journal").len();
        assert!(len <= retention::JOURNAL_BYTES, "{len} bytes");
        let text = std::fs::read_to_string(&session.journal).expect("journal");
        assert!(
            text.matches("\"key\":\"same\"").count() <= 1,
            "one line per view"
        );
        // The newest reads survived compaction: a stub answers them.
        let again = session
            .reuse("new39", view, "x.rs", "ctx read x.rs")
            .expect("reuse");
        assert!(matches!(again, Reuse::Stub(_)));
    }
}
