//! `rg --json`: one message per line — `begin` and `end` around each
//! file, `match` and `context` lines between, a closing `summary`.

use serde_json::Value;

use crate::artifact::{Artifact, Stream};
use crate::normalize;

use super::groups::Found;
use super::notices::binary_path;

pub fn read(artifact: &Artifact) -> Found {
    let mut found = Found::default();
    let mut path: Option<String> = None;
    for n in 1..=artifact.line_count() {
        let text = normalize::line(artifact.line(n));
        if artifact.stream_of_line(n) == Stream::Stderr {
            if text.trim().is_empty() {
                continue;
            }
            match binary_path(&text) {
                Some(p) => found.binary(p, n),
                None => found.errors.push(n),
            }
            continue;
        }
        let Ok(msg) = serde_json::from_str::<Value>(&text) else {
            found.unmatched += 1;
            continue;
        };
        let data = &msg["data"];
        match msg["type"].as_str() {
            Some("begin") => {
                let p = path_of(data);
                let g = found.group_for(&p, n);
                g.heading = Some(n);
                path = Some(p);
            }
            Some(kind @ ("match" | "context" | "end")) => {
                let p = path.clone().unwrap_or_else(|| path_of(data));
                let g = found.group_for(&p, n);
                if kind == "match" {
                    g.matches.push(n);
                }
                if kind == "end" {
                    path = None;
                }
            }
            Some("summary") => found.conclusion.push(n),
            _ => found.unmatched += 1,
        }
    }
    found
}

/// `{"path":{"text":…}}`, or `{"bytes":…}` (base64) for a path that is not UTF-8.
fn path_of(data: &Value) -> String {
    let p = &data["path"];
    p["text"]
        .as_str()
        .or_else(|| p["bytes"].as_str())
        .unwrap_or("(unnamed)")
        .to_string()
}
