//! File names as they are, made visible: a name holding an escape
//! sequence or another control byte (`esc\x1b[31mred.txt`) would lose it
//! to the normalization every other family wants (ANSI colours off), and
//! become a different name that may exist (`escred.txt`). In the output of
//! a command whose lines start with file names (a listing, a search) each
//! such byte is written `\xNN` instead, in the names the census counts,
//! the `--item` addresses and the lines the digest shows (invariant 9);
//! bytes that are not UTF-8 are `\xNN` everywhere already (`normalize`).
//! A line's CRLF ending (a search's match in a Windows file) is a line
//! ending, not a byte of a name, and stays as it is.
//!
//! Output that asked for colour (`ls --color=always`, `tree -C`, `grep
//! --color=always`, `rg --color always`) has its escapes as colours, and
//! is normalized as usual.

use crate::artifact::{Artifact, Segment};

/// The output with every control byte but tab, newline and a CRLF's CR
/// written as `\xNN`, the streams' order kept; `None` when it holds none
/// or when the command asked for colour.
pub fn view(artifact: &Artifact) -> Option<Artifact> {
    let bytes = artifact.bytes();
    let control = |at: usize| {
        let b = bytes[at];
        let crlf = b == b'\r' && bytes.get(at + 1) == Some(&b'\n');
        (b < 0x20 && b != b'\n' && b != b'\t' && !crlf) || b == 0x7f
    };
    if colour_asked(&artifact.argv) || !(0..bytes.len()).any(control) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut segments = Vec::with_capacity(artifact.segments().len());
    for (stream, range) in artifact.segment_ranges() {
        let start = out.len();
        for at in range {
            let b = bytes[at];
            if control(at) {
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

/// `--color=always|force|yes` (ls, tree, fd, grep, rg), `--color always`
/// (rg), `--color` alone (git grep: always), `-C` (tree), `-G` (BSD ls).
fn colour_asked(argv: &[String]) -> bool {
    let words = crate::command::command_words(argv);
    let tool = words.first().copied().unwrap_or_default();
    let always = |w: &str| matches!(w, "always" | "force" | "yes");
    words.iter().enumerate().skip(1).any(|(i, w)| {
        let flag = w
            .strip_prefix("--color")
            .or_else(|| w.strip_prefix("--colour"));
        let asked = match flag {
            Some(value) if value.starts_with('=') => always(&value[1..]),
            Some("") => {
                let next = words.get(i + 1).copied().unwrap_or_default();
                always(next) || (tool == "git" && !matches!(next, "never" | "auto"))
            }
            _ => false,
        };
        asked || (tool == "tree" && *w == "-C") || (tool == "ls" && *w == "-G")
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

    #[test]
    fn a_searchs_names_are_escaped_and_its_crlf_kept() {
        let out = b"./esc\x1b[31mred.txt:1:needle\r\n./a.txt:2:needle\n";
        let v = view(&ls(out, "grep -rn needle .")).expect("a view");
        assert_eq!(
            v.bytes(),
            b"./esc\\x1b[31mred.txt:1:needle\r\n./a.txt:2:needle\n"
        );
        assert!(view(&ls(b"./a.txt:1:x\r\n", "grep -rn x .")).is_none());
        for coloured in [
            "grep --color=always -rn x",
            "rg --color always x",
            "git grep --color x",
        ] {
            assert!(view(&ls(out, coloured)).is_none(), "{coloured}");
        }
        for plain in [
            "rg --color never x",
            "git grep --color=never x",
            "grep --color=auto x",
        ] {
            assert!(view(&ls(out, plain)).is_some(), "{plain}");
        }
    }
}
