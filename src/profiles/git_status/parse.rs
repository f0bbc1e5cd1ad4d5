//! Reads `git status` in each of its printed forms: long (sections of
//! `\tmodified:   path`), short and porcelain v1 (`XY path`, `## branch`),
//! porcelain v2 (`1 XY … path`, `# branch.ab +1 -2`). `-z` output is one
//! NUL-separated line and is not read (its paths are counted as unmatched).

/// Where a path stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Conflicted,
    Staged,
    Unstaged,
    /// Staged and changed again since.
    Both,
    Untracked,
    Ignored,
}

impl State {
    pub fn word(self) -> &'static str {
        match self {
            State::Staged => "staged",
            State::Unstaged => "unstaged",
            State::Both => "staged+unstaged",
            State::Untracked => "untracked",
            State::Ignored => "ignored",
            State::Conflicted => "conflicted",
        }
    }
}

/// One path line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathLine {
    pub line: usize,
    pub path: String,
    pub from: Option<String>,
    pub state: State,
    /// git's own word for the change (`modified`, `renamed`…).
    pub change: String,
}

/// What one status output holds.
#[derive(Debug, Default)]
pub struct Status {
    pub paths: Vec<PathLine>,
    /// Branch, upstream, ahead/behind, section headings and the verdict:
    /// every line that is not a path, an error or a `(use "git …")` hint.
    pub kept: Vec<usize>,
    pub errors: Vec<usize>,
    pub branch: Option<String>,
    pub ahead: Option<u64>,
    pub behind: Option<u64>,
}

fn change_word(c: u8) -> &'static str {
    match c {
        b'M' => "modified",
        b'T' => "type changed",
        b'A' => "new file",
        b'D' => "deleted",
        b'R' => "renamed",
        b'C' => "copied",
        b'U' => "unmerged",
        _ => "changed",
    }
}

/// The state of a short/porcelain `XY`.
fn xy_state(x: u8, y: u8) -> State {
    let unmerged = x == b'U' || y == b'U' || (x == b'A' && y == b'A') || (x == b'D' && y == b'D');
    match (x, y) {
        _ if unmerged => State::Conflicted,
        (b'?', _) => State::Untracked,
        (b'!', _) => State::Ignored,
        (b' ' | b'.', _) => State::Unstaged,
        (_, b' ' | b'.') => State::Staged,
        _ => State::Both,
    }
}

fn xy_change(x: u8, y: u8) -> &'static str {
    if x != b' ' && x != b'.' && x != b'?' && x != b'!' {
        change_word(x)
    } else if x == b'?' {
        "untracked"
    } else if x == b'!' {
        "ignored"
    } else {
        change_word(y)
    }
}

/// `[ahead 2, behind 1]`, `+2 -1`, `ahead of 'o/m' by 2 commits`: the numbers.
fn ahead_behind(s: &mut Status, text: &str) {
    let num = |after: &str| -> Option<u64> {
        let at = text.find(after)? + after.len();
        let digits: String = text[at..]
            .chars()
            .skip_while(|c| *c == ' ' || *c == '+' || *c == '-')
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    if let Some(ab) = text.strip_prefix("# branch.ab ") {
        let mut w = ab.split(' ');
        s.ahead = w
            .next()
            .and_then(|a| a.trim_start_matches('+').parse().ok());
        s.behind = w
            .next()
            .and_then(|b| b.trim_start_matches('-').parse().ok());
        return;
    }
    if let Some(a) = num("ahead ") {
        s.ahead = Some(a);
    }
    if let Some(b) = num("behind ") {
        s.behind = Some(b);
    }
    if text.contains(" is ahead of ") {
        s.ahead = num(" by ");
    } else if text.contains(" is behind ") {
        s.behind = num(" by ");
    } else if text.contains("have diverged") {
        // `and have 2 and 1 different commits each, respectively.`
        let nums: Vec<u64> = text.split(' ').filter_map(|w| w.parse().ok()).collect();
        if let [a, b, ..] = nums.as_slice() {
            s.ahead = Some(*a);
            s.behind = Some(*b);
        }
    }
}

/// The section a long-format path line is under.
fn section(text: &str) -> Option<State> {
    match text {
        "Changes to be committed:" => Some(State::Staged),
        "Changes not staged for commit:" => Some(State::Unstaged),
        "Untracked files:" => Some(State::Untracked),
        "Ignored files:" => Some(State::Ignored),
        "Unmerged paths:" => Some(State::Conflicted),
        _ => None,
    }
}

pub fn parse<'a>(lines: impl Iterator<Item = (usize, &'a str)>) -> Status {
    let mut s = Status::default();
    let mut current: Option<State> = None;
    for (n, text) in lines {
        let b = text.as_bytes();
        if text.starts_with("fatal:") || text.starts_with("error:") || text.starts_with("warning:")
        {
            s.errors.push(n);
            continue;
        }
        if let Some(state) = section(text) {
            current = Some(state);
            s.kept.push(n);
            continue;
        }
        if let Some(rest) = text.strip_prefix('\t')
            && let Some(state) = current
        {
            // `\tmodified:   path`, `\tboth modified:   path`, `\tpath`.
            let (change, path) = match rest.split_once(":   ") {
                Some((c, p)) if !c.contains('/') => (c.trim().to_string(), p.trim()),
                _ => (state.word().to_string(), rest),
            };
            let (path, from) = match path.split_once(" -> ") {
                Some((a, b)) => (b.to_string(), Some(a.to_string())),
                None => (path.to_string(), None),
            };
            let path = path
                .strip_suffix(" (new commits)")
                .or_else(|| path.strip_suffix(" (modified content)"))
                .unwrap_or(&path)
                .to_string();
            s.paths.push(PathLine {
                line: n,
                path,
                from,
                state,
                change,
            });
            continue;
        }
        if let Some(rest) = text.strip_prefix("## ") {
            s.branch = Some(
                rest.split("...")
                    .next()
                    .unwrap_or(rest)
                    .split(' ')
                    .next()
                    .unwrap_or(rest)
                    .to_string(),
            );
            ahead_behind(&mut s, rest);
            s.kept.push(n);
            continue;
        }
        if let Some(rest) = text.strip_prefix("# branch.") {
            if let Some(h) = rest.strip_prefix("head ") {
                s.branch = Some(h.to_string());
            }
            ahead_behind(&mut s, text);
            s.kept.push(n);
            continue;
        }
        // Porcelain v2 records.
        if b.len() > 4 && matches!(b[0], b'1' | b'2' | b'u') && b[1] == b' ' && b[4] == b' ' {
            let fields = match b[0] {
                b'1' => 8,
                b'2' => 9,
                _ => 10,
            };
            let parts: Vec<&str> = text.splitn(fields + 1, ' ').collect();
            if let Some(last) = parts.get(fields) {
                let (path, from) = match last.split_once('\t') {
                    Some((p, f)) => (p.to_string(), Some(f.to_string())),
                    None => (last.to_string(), None),
                };
                let state = if b[0] == b'u' {
                    State::Conflicted
                } else {
                    xy_state(b[2], b[3])
                };
                let change = xy_change(b[2], b[3]).to_string();
                s.paths.push(PathLine {
                    line: n,
                    path,
                    from,
                    state,
                    change,
                });
                continue;
            }
        }
        if b.len() > 2 && matches!(b[0], b'?' | b'!') && b[1] == b' ' {
            let state = if b[0] == b'?' {
                State::Untracked
            } else {
                State::Ignored
            };
            let change = state.word().to_string();
            s.paths.push(PathLine {
                line: n,
                path: text[2..].to_string(),
                from: None,
                state,
                change,
            });
            continue;
        }
        // Short and porcelain v1: `XY path`, `XY from -> to`.
        if b.len() > 3 && b[2] == b' ' && is_xy(b[0]) && is_xy(b[1]) && (b[0], b[1]) != (b' ', b' ')
        {
            let rest = &text[3..];
            let (path, from) = match rest.split_once(" -> ") {
                Some((a, to)) => (to.to_string(), Some(a.to_string())),
                None => (rest.to_string(), None),
            };
            let state = xy_state(b[0], b[1]);
            let change = xy_change(b[0], b[1]).to_string();
            s.paths.push(PathLine {
                line: n,
                path,
                from,
                state,
                change,
            });
            continue;
        }
        // The long format's own sentences: branch, upstream, verdict.
        let hint = text.trim_start().starts_with("(use ")
            || text.trim_start().starts_with("(fix ")
            || text.trim_start().starts_with("(all conflicts")
            || text.trim().is_empty();
        if !hint {
            if let Some(b) = text.strip_prefix("On branch ") {
                s.branch = Some(b.to_string());
            } else if let Some(b) = text.strip_prefix("HEAD detached at ") {
                s.branch = Some(format!("detached at {b}"));
            }
            ahead_behind(&mut s, text);
            s.kept.push(n);
        }
    }
    s
}

fn is_xy(c: u8) -> bool {
    b" MTADRCU?!".contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Status {
        parse(text.lines().enumerate().map(|(i, l)| (i + 1, l)))
    }

    #[test]
    fn long_format() {
        let s = parsed(concat!(
            "On branch main\nYour branch is ahead of 'origin/main' by 3 commits.\n  (use \"git push\" to publish your local commits)\n\n",
            "Changes to be committed:\n  (use \"git restore --staged <file>...\" to unstage)\n\tmodified:   src/lib.rs\n\trenamed:    a.rs -> b.rs\n\n",
            "Unmerged paths:\n\tboth modified:   README.md\n\nUntracked files:\n\tnotes/\n",
        ));
        assert_eq!(s.branch.as_deref(), Some("main"));
        assert_eq!(s.ahead, Some(3));
        let got: Vec<(&str, State)> = s.paths.iter().map(|p| (p.path.as_str(), p.state)).collect();
        assert_eq!(
            got,
            [
                ("src/lib.rs", State::Staged),
                ("b.rs", State::Staged),
                ("README.md", State::Conflicted),
                ("notes/", State::Untracked)
            ]
        );
        assert_eq!(s.paths[1].from.as_deref(), Some("a.rs"));
        assert_eq!(s.kept, vec![1, 2, 5, 10, 13]);
    }

    #[test]
    fn short_and_porcelain() {
        let s = parsed(
            "## main...origin/main [ahead 1, behind 2]\nMM src/a.rs\nR  x -> y\n?? n/\nUU c.rs\n",
        );
        assert_eq!((s.ahead, s.behind), (Some(1), Some(2)));
        let states: Vec<State> = s.paths.iter().map(|p| p.state).collect();
        assert_eq!(
            states,
            [
                State::Both,
                State::Staged,
                State::Untracked,
                State::Conflicted
            ]
        );
        assert_eq!(s.paths[1].path, "y");
    }

    #[test]
    fn porcelain_v2() {
        let s = parsed(concat!(
            "# branch.oid abc\n# branch.head main\n# branch.ab +1 -0\n",
            "1 .D N... 100644 100644 000000 aaa aaa src/either.rs\n",
            "2 R. N... 100644 100644 100644 aaa aaa R100 src/ranking.rs\tsrc/rank.rs\n",
            "u UU N... 100644 100644 100644 100644 a b c src/lib.rs\n? notes/\n",
        ));
        assert_eq!(s.branch.as_deref(), Some("main"));
        assert_eq!((s.ahead, s.behind), (Some(1), Some(0)));
        let got: Vec<(&str, State)> = s.paths.iter().map(|p| (p.path.as_str(), p.state)).collect();
        assert_eq!(
            got,
            [
                ("src/either.rs", State::Unstaged),
                ("src/ranking.rs", State::Staged),
                ("src/lib.rs", State::Conflicted),
                ("notes/", State::Untracked)
            ]
        );
    }
}
