//! Bounds on what re-read stubs keep under the home (`reads/`), so that a
//! year of agent sessions does not grow it without end:
//!
//! - a session's journal is compacted when it passes [`JOURNAL_BYTES`]:
//!   only the last read of each view counts (that is all a stub compares
//!   against), and when that is still too much the oldest reads go;
//! - journals and kept views untouched for [`MAX_AGE`] are removed, and
//!   kept views beyond [`VIEWS_BYTES`] in all, oldest first; a sweep runs
//!   at most once per [`SWEEP_EVERY`] (the mtime of `reads/swept`); so
//!   are cached outlines (`reads/outlines/`, the `cache` module) past
//!   [`OUTLINES_BYTES`].
//!
//! Losing an entry only ever costs a stub: the read it would have
//! answered prints the whole view instead.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Journals and views nobody touched for this long are removed.
pub const MAX_AGE: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// A journal longer than this is compacted to at most half of it.
pub const JOURNAL_BYTES: u64 = 256 << 10;

/// Kept views past this total are removed, least recently used first.
pub const VIEWS_BYTES: u64 = 64 << 20;

/// Cached outlines past this total are removed, least recently used
/// first.
pub const OUTLINES_BYTES: u64 = 64 << 20;

/// Journals past this total are removed, least recently used first.
pub const JOURNALS_BYTES: u64 = 16 << 20;

/// How often a read sweeps `reads/`.
pub const SWEEP_EVERY: Duration = Duration::from_secs(60 * 60);

/// One file a sweep considers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub path: PathBuf,
    pub bytes: u64,
    pub modified: SystemTime,
}

/// The files to remove: those not modified within `max_age` of `now`,
/// then the least recently modified until the rest fit in `max_bytes`.
pub fn expired(
    mut files: Vec<Kept>,
    now: SystemTime,
    max_age: Duration,
    max_bytes: u64,
) -> Vec<PathBuf> {
    // Newest first: what fits is kept from the front.
    files.sort_by_key(|f| std::cmp::Reverse(f.modified));
    let mut total = 0u64;
    let mut out = Vec::new();
    for f in files {
        let old = now
            .duration_since(f.modified)
            .is_ok_and(|age| age > max_age);
        if old || total + f.bytes > max_bytes {
            out.push(f.path);
        } else {
            total += f.bytes;
        }
    }
    out
}

/// A journal's lines, compacted: the last line of each key, in the order
/// they were written, then only the newest that fit in `max_bytes`.
pub fn compact(lines: Vec<(String, String)>, max_bytes: usize) -> Vec<String> {
    let mut last: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, (key, _)) in lines.iter().enumerate() {
        last.insert(key, i);
    }
    let mut kept: Vec<&String> = lines
        .iter()
        .enumerate()
        .filter(|(i, (key, _))| last.get(key.as_str()) == Some(i))
        .map(|(_, (_, line))| line)
        .collect();
    let mut total = 0;
    let mut from = kept.len();
    while from > 0 && total + kept[from - 1].len() < max_bytes {
        total += kept[from - 1].len() + 1;
        from -= 1;
    }
    kept.drain(..from);
    kept.into_iter().cloned().collect()
}

/// Sweeps `reads/` (journals), `reads/views/` and `reads/outlines/` if
/// the last sweep was more than [`SWEEP_EVERY`] ago.
pub fn sweep_if_due(dir: &Path, now: SystemTime) -> io::Result<()> {
    let marker = dir.join("swept");
    let due = match std::fs::symlink_metadata(&marker) {
        Ok(m) => m.modified().map_or(true, |t| {
            now.duration_since(t).is_ok_and(|d| d > SWEEP_EVERY)
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => true,
        Err(e) => return Err(e),
    };
    if !due {
        return Ok(());
    }
    // Marked first: a concurrent read does not sweep too.
    crate::home::open_private_append(&marker)?.set_modified(now)?;
    let journals = listed(dir, |name| name.ends_with(".jsonl"))?;
    for path in expired(journals, now, MAX_AGE, JOURNALS_BYTES) {
        remove(&path)?;
    }
    let views = listed(&dir.join("views"), |_| true)?;
    for path in expired(views, now, MAX_AGE, VIEWS_BYTES) {
        remove(&path)?;
    }
    let outlines = listed(&dir.join("outlines"), |_| true)?;
    for path in expired(outlines, now, MAX_AGE, OUTLINES_BYTES) {
        remove(&path)?;
    }
    Ok(())
}

fn remove(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The regular files in `dir` whose names `wanted` accepts.
fn listed(dir: &Path, wanted: impl Fn(&str) -> bool) -> io::Result<Vec<Kept>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry?;
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if !meta.is_file() || !entry.file_name().to_str().is_some_and(&wanted) {
            continue;
        }
        out.push(Kept {
            path: entry.path(),
            bytes: meta.len(),
            modified: meta.modified()?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: Duration = Duration::from_secs(24 * 60 * 60);

    fn kept(name: &str, bytes: u64, days_ago: u32, now: SystemTime) -> Kept {
        Kept {
            path: PathBuf::from(name),
            bytes,
            modified: now - DAY * days_ago,
        }
    }

    #[test]
    fn old_files_go_then_the_least_recent_past_the_size_bound() {
        let now = SystemTime::now();
        let files = vec![
            kept("old", 1, 8, now),
            kept("new", 40, 0, now),
            kept("older-but-young", 40, 2, now),
            kept("middle", 40, 1, now),
        ];
        let mut gone = expired(files, now, MAX_AGE, 100);
        gone.sort();
        assert_eq!(
            gone,
            [PathBuf::from("old"), PathBuf::from("older-but-young")]
        );
        // Under both bounds: nothing goes.
        let files = vec![kept("a", 10, 6, now), kept("b", 10, 0, now)];
        assert!(expired(files, now, MAX_AGE, 100).is_empty());
    }

    #[test]
    fn compaction_keeps_the_last_read_of_each_view_then_the_newest() {
        let line = |k: &str, n: u32| (k.to_string(), format!("{k}{n}"));
        let lines = vec![line("a", 1), line("b", 1), line("a", 2), line("c", 1)];
        assert_eq!(compact(lines.clone(), 1000), ["b1", "a2", "c1"]);
        // Room for two lines of three bytes with their newlines.
        assert_eq!(compact(lines, 6), ["a2", "c1"]);
    }
}
