//! Re-run sequences (`fixtures/deltas/<sequence>/step-N/`): the same
//! command captured after each fix of a real project, replayed through
//! the pipeline as `ctx run` would deliver them one after the other, with
//! or without re-run deltas. Used by the delta tests and the receipts.
//!
//! The replay is in-process and its clock is its own: step N runs at
//! minute N, so every delta's age is `1 min` and the digests are
//! deterministic. Each step's record key is the hash of its output, as the
//! store's would be.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::archive::Known;
use crate::artifact::Artifact;
use crate::delivery::{Delivery, Output};
use crate::ledger::last_run::{self, DeltaSource};
use crate::pipeline::{self, Options};
use crate::store::ArchiveKey;

/// One step as delivered.
pub struct Step {
    /// `step-N`'s folder.
    pub dir: PathBuf,
    pub artifact: Artifact,
    pub delivery: Delivery,
    /// What the reader saw: the digest, or the raw output.
    pub text: String,
}

/// The steps of a sequence folder, in order (`step-0`, `step-1`, …).
pub fn steps(sequence: &Path) -> Vec<PathBuf> {
    let mut steps: Vec<(u32, PathBuf)> = std::fs::read_dir(sequence)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let n = name.strip_prefix("step-")?.parse().ok()?;
            Some((n, e.path()))
        })
        .collect();
    steps.sort();
    steps.into_iter().map(|(_, p)| p).collect()
}

/// The archive key a store would give `artifact`'s record.
pub fn key_of(artifact: &Artifact) -> ArchiveKey {
    ArchiveKey(*blake3::hash(artifact.bytes()).as_bytes())
}

/// Replays every step of `sequence` under one fresh last-runs folder,
/// with deltas when `deltas` is true. Each step is remembered as the
/// ledger would remember it, one minute after the one before.
pub fn replay(sequence: &Path, deltas: bool) -> Vec<Step> {
    let Ok(runs) = tempfile::tempdir() else {
        return Vec::new();
    };
    let dir = runs.path().join(last_run::DIR_NAME);
    let mut out = Vec::new();
    for (n, step) in steps(sequence).into_iter().enumerate() {
        let Ok(artifact) = crate::fixture::load(&step) else {
            continue;
        };
        let now_ms = 60_000 * (n as i64 + 1);
        let options = Options {
            delta: deltas.then(|| DeltaSource {
                dir: dir.clone(),
                now_ms,
                horizon: Duration::from_secs(2 * 3600),
            }),
            ..Options::default()
        };
        let Ok(delivery) = pipeline::digest(&artifact, &Known(key_of(&artifact)), &options) else {
            continue;
        };
        last_run::remember(&dir, &artifact, &delivery, now_ms);
        let text = match &delivery.output {
            Output::Digest(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Output::Raw => String::from_utf8_lossy(artifact.bytes()).into_owned(),
        };
        out.push(Step {
            dir: step,
            artifact,
            delivery,
            text,
        });
    }
    out
}

/// The digest's text with every identity a grouped list names once under
/// its file written out whole, so that an identity is found as the tool
/// spells it: a delta's `  FILE: rest, rest` lines and a compact census
/// block's `  FILE` / `    rest` lines give `FILE<sep>rest…` for each of
/// the separators identities use (`::`, `:`, `: `, ` > `, ` `). Each written-out
/// form runs to the end of its line, so that a rest holding `, ` itself
/// is still found (by `contains`).
pub fn spelled_out(text: &str) -> String {
    let mut out = text.to_string();
    let mut spell = |file: &str, rest: &str| {
        let mut starts = vec![0];
        starts.extend(rest.match_indices(", ").map(|(i, _)| i + 2));
        // A parametrized case after its test's first (`t[a], [b]`) is
        // written with the test's name again.
        let mut name = "";
        for at in starts {
            // A kind word before the rest of the identity (`ERROR test_x`).
            let piece = ["ERROR ", "NOT RUN ", "BUILD FAILED "]
                .iter()
                .find_map(|w| rest[at..].strip_prefix(w))
                .unwrap_or(&rest[at..]);
            let whole = if piece.starts_with('[') {
                format!("{name}{piece}")
            } else {
                name = piece.find('[').map_or("", |i| &piece[..i]);
                piece.to_string()
            };
            for sep in ["::", ":", ": ", " > ", " "] {
                out.push('\n');
                out.push_str(file);
                out.push_str(sep);
                out.push_str(&whole);
            }
        }
    };
    let mut census_file: Option<&str> = None;
    let mut in_census = false;
    for line in text.lines() {
        if line.starts_with("[ctx] census") {
            in_census = true;
            census_file = None;
            continue;
        }
        if !line.starts_with("  ") {
            in_census = false;
            continue;
        }
        if let Some(item) = line.strip_prefix("    ") {
            if let (true, Some(file)) = (in_census, census_file) {
                // `test_x ×3 [a], [b], [c] (line 9) - …`: the cases of one test.
                match item.split_once(" ×").and_then(|(name, rest)| {
                    let cases = rest.split_once(' ')?.1;
                    cases.starts_with('[').then(|| format!("{name}{cases}"))
                }) {
                    Some(cases) => spell(file, &cases),
                    None => spell(file, item),
                }
            }
            continue;
        }
        let entry = &line[2..];
        if in_census {
            census_file = Some(entry);
        }
        if let Some((file, rest)) = entry.split_once(": ") {
            spell(file, rest);
        }
    }
    out
}
