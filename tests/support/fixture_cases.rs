//! Every recorded fixture, for the tests that run over all of them, and
//! the name each one's snapshots carry.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Every `fixtures/<family>/<case>/` with a case.json, sorted.
pub fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for family in std::fs::read_dir(&root).unwrap().flatten() {
        if !family.path().is_dir() {
            continue;
        }
        for case in std::fs::read_dir(family.path()).unwrap().flatten() {
            if case.path().join("case.json").is_file() {
                out.push(case.path());
            }
        }
    }
    out.sort();
    out
}

/// `family__case`: the snapshot name of a fixture.
pub fn name(case: &Path) -> String {
    let family = case
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy();
    let case = case.file_name().unwrap().to_string_lossy();
    format!("{family}__{case}")
}
