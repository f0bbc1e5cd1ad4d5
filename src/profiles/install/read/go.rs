//! `go get`, `go mod download`, `go mod tidy`: the modules fetched and
//! changed, and on failure each `go:` error with the lines under it (a
//! checksum mismatch's `downloaded:` and `go.sum:` sums).

use super::{Read, one_line};

/// go's progress words: `go: downloading example.com/m v1.0.0`.
const PROGRESS: [&str; 3] = ["downloading ", "finding ", "extracting "];
/// What changed in go.mod: `go: added example.com/m v1.0.0`.
const CHANGES: [(&str, &str); 4] = [
    ("added ", "added"),
    ("upgraded ", "upgraded"),
    ("downgraded ", "downgraded"),
    ("removed ", "removed"),
];

pub fn read(lines: &[(usize, String)], failed: bool, r: &mut Read) {
    let mut downloads = 0;
    let mut changed = [0u64; CHANGES.len()];
    let mut k = 0;
    while k < lines.len() {
        let (n, t) = (lines[k].0, lines[k].1.as_str());
        k += 1;
        let rest = t.strip_prefix("go: ");
        if let Some(module) = rest.and_then(|x| x.strip_prefix("downloading ")) {
            // Each module fetched is named: a success's census.
            downloads += 1;
            r.packages.push(module.to_string());
            r.conclusion.push(n);
            continue;
        }
        if let Some(rest) = rest {
            if let Some(i) = CHANGES.iter().position(|(w, _)| rest.starts_with(w)) {
                changed[i] += 1;
                r.conclusion.push(n);
                continue;
            }
            // `go: found example.com/greet in example.com/greet v1.1.0`
            if rest.starts_with("found ") {
                r.conclusion.push(n);
                continue;
            }
            if PROGRESS.iter().any(|w| rest.starts_with(w)) {
                continue;
            }
        }
        let error = rest.is_some() || t.starts_with("verifying ");
        if failed && error && !t.trim().is_empty() {
            let mut f = one_line(n, t.trim_start_matches("go: "), None);
            if t.contains("checksum mismatch") {
                f.class = Some("checksum mismatch".into());
            }
            // Its indented lines (`\tdownloaded: h1:…`, `\tgo.sum:     h1:…`).
            while let Some((m, _)) = lines.get(k).filter(|(_, l)| l.starts_with(['\t', ' '])) {
                f.lines.push(*m);
                k += 1;
            }
            // go's verdict on a mismatch, after one blank line.
            if let Some((m, _)) = lines
                .get(k + 1)
                .filter(|(_, l)| l == "SECURITY ERROR")
                .filter(|_| lines[k].1.trim().is_empty())
            {
                f.lines.push(lines[k].0);
                f.lines.push(*m);
                k += 2;
            }
            r.failures.push(f);
        }
    }
    if downloads > 0 {
        r.counts.push(("downloaded".into(), downloads));
    }
    for (i, (_, word)) in CHANGES.iter().enumerate() {
        if changed[i] > 0 {
            r.counts.push(((*word).into(), changed[i]));
        }
    }
}
