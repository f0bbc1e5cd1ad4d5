//! A recorded run on disk (`fixtures/<family>/<case>/`): `stdout`, `stderr`
//! and `case.json` (argv, exit or signal, cwd, the order the streams'
//! chunks arrived in), as written by `fixtures/capture.py`. Tests, receipts
//! and benchmarks rebuild the exact interleaved artifact from it.

pub mod shape;

use std::path::Path;

use serde::Deserialize;

use crate::artifact::{Artifact, Exit, Segment, Stream};

#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    #[error("{0}: case.json: {1}")]
    Json(String, serde_json::Error),
    #[error("{0}: chunk lengths do not match the stream files")]
    Chunks(String),
}

#[derive(Deserialize)]
struct Case {
    argv: Vec<String>,
    cwd: Option<String>,
    exit: Option<i32>,
    signal: Option<i32>,
    chunks: Vec<(String, u64)>,
}

/// Loads a fixture directory as the artifact `ctx run` would have captured.
pub fn load(dir: &Path) -> Result<Artifact, FixtureError> {
    let name = dir.display().to_string();
    let read = |file: &str| {
        std::fs::read(dir.join(file)).map_err(|e| FixtureError::Io(format!("{name}/{file}"), e))
    };
    let case: Case = serde_json::from_slice(&read("case.json")?)
        .map_err(|e| FixtureError::Json(name.clone(), e))?;
    let stdout = read("stdout")?;
    let stderr = read("stderr")?;
    let (mut at_out, mut at_err) = (0usize, 0usize);
    let mut bytes = Vec::with_capacity(stdout.len() + stderr.len());
    let mut segments = Vec::new();
    for (stream, len) in &case.chunks {
        let len = *len as usize;
        let (source, at, stream) = match stream.as_str() {
            "stdout" => (&stdout, &mut at_out, Stream::Stdout),
            "stderr" => (&stderr, &mut at_err, Stream::Stderr),
            _ => return Err(FixtureError::Chunks(name)),
        };
        let chunk = source
            .get(*at..*at + len)
            .ok_or_else(|| FixtureError::Chunks(name.clone()))?;
        bytes.extend_from_slice(chunk);
        *at += len;
        segments.push(Segment {
            stream,
            len: len as u64,
        });
    }
    if at_out != stdout.len() || at_err != stderr.len() {
        return Err(FixtureError::Chunks(name));
    }
    let exit = match (case.exit, case.signal) {
        (Some(code), _) => Exit::Code(code),
        (None, Some(signal)) => Exit::Signal(signal),
        (None, None) => Exit::Unknown,
    };
    let mut artifact = Artifact::new(bytes, segments, exit, case.argv);
    artifact.cwd = case.cwd;
    Ok(artifact)
}
