//! What GitHub Actions writes before each line of a job log: a timestamp
//! (`2024-07-08T16:48:09.3763139Z `), and in `gh run view --log` output the
//! job and step names before it, tab-separated. The digest shows the lines
//! without it (the timestamps change on every run and say nothing about
//! what failed); the archive keeps it.

use crate::artifact::Artifact;

/// The byte-order mark a downloaded log opens with.
const BOM: &[u8] = "\u{feff}".as_bytes();

/// A raw line's prefix: how many bytes it takes, and the job and step
/// names when `gh run view --log` wrote them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefix<'a> {
    pub len: usize,
    pub job_step: Option<(&'a [u8], &'a [u8])>,
}

/// The prefix of one raw line; `len` 0 when it has none.
pub fn of(raw: &[u8]) -> Prefix<'_> {
    let bom = bom_len(raw);
    let rest = &raw[bom..];
    if let Some(n) = stamp_len(rest, false) {
        return Prefix {
            len: bom + n,
            job_step: None,
        };
    }
    // `gh run view --log`: JOB \t STEP \t STAMP line.
    let mut tabs = memchr::memchr_iter(b'\t', rest);
    if let (Some(a), Some(b)) = (tabs.next(), tabs.next()) {
        let after = &rest[b + 1..];
        let bom2 = bom_len(after);
        if let Some(n) = stamp_len(&after[bom2..], false) {
            return Prefix {
                len: bom + b + 1 + bom2 + n,
                job_step: Some((&rest[..a], &rest[a + 1..b])),
            };
        }
    }
    Prefix {
        len: 0,
        job_step: None,
    }
}

/// The length of a byte-order mark at the start of `s` (each log file of
/// a job opens with one, also behind `gh`'s columns).
pub fn bom_len(s: &[u8]) -> usize {
    if s.starts_with(BOM) { BOM.len() } else { 0 }
}

/// The length of an ISO-8601 UTC timestamp at the start of `s` with the
/// one space after it (none at the end of an empty line):
/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`. `github` asks for GitHub's own
/// shape, exactly seven fraction digits, which is what content sniffing
/// recognises; stripping accepts any fraction.
pub fn stamp_len(s: &[u8], github: bool) -> Option<usize> {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd";
    if s.len() < SHAPE.len() + 1 {
        return None;
    }
    for (i, &want) in SHAPE.iter().enumerate() {
        let ok = if want == b'd' {
            s[i].is_ascii_digit()
        } else {
            s[i] == want
        };
        if !ok {
            return None;
        }
    }
    let mut at = SHAPE.len();
    if s.get(at) == Some(&b'.') {
        let digits = s[at + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || (github && digits != 7) {
            return None;
        }
        at += 1 + digits;
    } else if github {
        return None;
    }
    if s.get(at) != Some(&b'Z') {
        return None;
    }
    at += 1;
    match s.get(at) {
        None => Some(at),
        Some(b' ') => Some(at + 1),
        Some(b'\r') => Some(at),
        Some(_) => None,
    }
}

/// The artifact without each line's prefix, or None when no line has one.
/// Line n of the view is line n of the original: only prefixes go.
pub fn view(artifact: &Artifact) -> Option<Artifact> {
    let total = artifact.line_count();
    let ends_with_newline = artifact.bytes().last() == Some(&b'\n');
    let mut out = Vec::with_capacity(artifact.bytes().len());
    let mut any = false;
    for n in 1..=total {
        let raw = artifact.line(n);
        let p = of(raw).len;
        any |= p > 0;
        out.extend_from_slice(&raw[p..]);
        if n < total || ends_with_newline {
            out.push(b'\n');
        }
    }
    if !any {
        return None;
    }
    Some(Artifact::from_stdout(out, artifact.exit, artifact.argv.clone()).viewing(artifact))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;

    #[test]
    fn github_stamps_and_gh_columns() {
        let p = of(b"2024-07-08T16:48:09.3763139Z ##[group]Run x");
        assert_eq!(p.len, 29);
        assert_eq!(of(b"2024-07-08T16:48:09.3763139Z").len, 28);
        let p = of(b"build\tRun tests\t2025-09-23T09:56:33.7218179Z FAILED t");
        assert_eq!(p.len, "build\tRun tests\t2025-09-23T09:56:33.7218179Z ".len());
        assert_eq!(p.job_step, Some((&b"build"[..], &b"Run tests"[..])));
        assert_eq!(of("\u{feff}2024-07-08T16:48:09.3763139Z x".as_bytes()).len, 32);
        // Not a prefix: no Z, a date alone, a log's own timestamp mid-line.
        assert_eq!(of(b"2024-07-08T16:48:09.376+00:00 INFO x").len, 0);
        assert_eq!(of(b"2024-07-08 x").len, 0);
        assert_eq!(of(b"INFO 2024-07-08T16:48:09.3763139Z").len, 0);
        assert_eq!(stamp_len(b"2024-07-08T16:48:09.376Z x", true), None);
        assert_eq!(stamp_len(b"2024-07-08T16:48:09.376Z x", false), Some(25));
    }

    #[test]
    fn the_view_keeps_the_numbering() {
        let raw = b"2024-07-08T16:48:09.3763139Z a\n2024-07-08T16:48:09.3763139Z\nplain\n2024-07-08T16:48:09.3763139Z b";
        let a = Artifact::from_stdout(raw.to_vec(), Exit::Unknown, vec![]);
        let v = view(&a).unwrap();
        assert_eq!(v.line_count(), a.line_count());
        assert_eq!(v.bytes(), b"a\n\nplain\nb");
        let plain = Artifact::from_stdout(b"a\nb\n".to_vec(), Exit::Unknown, vec![]);
        assert!(view(&plain).is_none());
    }
}
