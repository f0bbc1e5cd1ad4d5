//! File names as they are, made visible: a name holding an escape
//! sequence or another control byte (`esc\x1b[31mred.txt`) would lose it
//! to the normalization every other family wants (ANSI colours off), and
//! become a different name that may exist (`escred.txt`). In a listing
//! each such byte is written `\xNN` instead, in the names the census
//! counts and in the lines the digest shows (invariant 9); bytes that are
//! not UTF-8 are `\xNN` everywhere already (`normalize`).
//!
//! A listing that asked for colour (`ls --color=always`, `tree -C`) has
//! its escapes as colours, and is normalized as usual.

use crate::artifact::{Artifact, Segment};

/// The listing with every control byte but tab and newline written as
/// `\xNN`, the streams' order kept; `None` when it holds none or when
/// the command asked for colour.
pub fn view(artifact: &Artifact) -> Option<Artifact> {
    let control = |b: &u8| (*b < 0x20 && *b != b'\n' && *b != b'\t') || *b == 0x7f;
    if colour_asked(&artifact.argv) || !artifact.bytes().iter().any(control) {
        return None;
    }
    let mut out = Vec::with_capacity(artifact.bytes().len() + 64);
    let mut segments = Vec::with_capacity(artifact.segments().len());
    for (stream, range) in artifact.segment_ranges() {
        let start = out.len();
        for &b in &artifact.bytes()[range] {
            if control(&b) {
                out.extend_from_slice(format!("\\x{b:02x}").as_bytes());
            } else {
                out.push(b);
            }
        }
        segments.push(Segment {
            stream,
            len: (out.len() - start) as u64,
        });
    }
    Some(Artifact::new(out, segments, artifact.exit, artifact.argv.clone()).viewing(artifact))
}

/// `--color=always|force|yes` (ls, tree, fd), `-C` (tree), `-G` (BSD ls).
fn colour_asked(argv: &[String]) -> bool {
    let words = crate::command::command_words(argv);
    let tool = words.first().copied().unwrap_or_default();
    words.iter().skip(1).any(|w| {
        matches!(
            *w,
            "--color=always" | "--color=force" | "--color=yes" | "--colour=always"
        ) || (tool == "tree" && *w == "-C")
            || (tool == "ls" && *w == "-G")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;

    fn ls(bytes: &[u8], argv: &str) -> Artifact {
        let argv = argv.split(' ').map(String::from).collect();
        Artifact::from_stdout(bytes.to_vec(), Exit::Code(0), argv)
    }

    #[test]
    fn control_bytes_in_names_are_shown_escaped() {
        let v = view(&ls(b"a.txt\nesc\x1b[31mred.txt\nbell\x07.txt\n", "ls -1")).expect("a view");
        assert_eq!(v.bytes(), b"a.txt\nesc\\x1b[31mred.txt\nbell\\x07.txt\n");
        assert_eq!(crate::normalize::line(v.line(2)), "esc\\x1b[31mred.txt");
        assert!(view(&ls(b"a.txt\nb.txt\n", "ls")).is_none());
        assert!(view(&ls(b"\x1b[01;34mdir\x1b[0m\n", "ls --color=always")).is_none());
    }
}
