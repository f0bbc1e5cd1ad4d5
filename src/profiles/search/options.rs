//! What the search command's own flags say about the shape of its output:
//! one line per match or per file, counts, headings, line numbers, JSON.

use crate::profiles::diagnostic::command_words;

/// The search tools this family reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Grep,
    Rg,
    GitGrep,
}

/// What each stdout line of the tool is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Matching (and context) lines, grouped by file.
    Lines,
    /// `-c`: one `path:count` line per file searched.
    Count,
    /// `-l` / `-L`: one path per line.
    Files,
    /// `rg --json`: one JSON message per line.
    Json,
}

/// The output shape, as far as argv tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub tool: Tool,
    /// The name the header uses (`grep`, `rg`, `git grep`).
    pub name: String,
    pub mode: Mode,
    /// Files under a heading line, separated by blank lines.
    pub heading: bool,
    /// Each match line carries its line number.
    pub line_numbers: bool,
    /// `rg --vimgrep`: `path:line:column:text`, one line per match.
    pub vimgrep: bool,
    /// Context lines were asked for (`-A`, `-B`, `-C`).
    pub context: bool,
    /// Whether lines carry the path: `Some` when a flag or the operands
    /// settle it, `None` when only the output can tell (one operand that
    /// may be a file or a folder).
    pub with_path: Option<bool>,
    /// The single path operand, when there is exactly one.
    pub only_path: Option<String>,
    /// `-Z` / `--null`: paths end in NUL, which this reader does not split.
    pub null_separated: bool,
}

/// The tool and the words after it, when argv runs a search.
pub fn tool(argv: &[String]) -> Option<(Tool, Vec<&str>)> {
    let words = command_words(argv);
    let (first, rest) = words.split_first()?;
    match *first {
        "grep" | "egrep" | "fgrep" => Some((Tool::Grep, rest.to_vec())),
        "rg" => Some((Tool::Rg, rest.to_vec())),
        "git" => {
            let mut i = 0;
            // git's own options before the subcommand; -C and -c take a value.
            while let Some(w) = rest.get(i) {
                match *w {
                    "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
                    w if w.starts_with('-') => i += 1,
                    _ => break,
                }
            }
            (rest.get(i) == Some(&"grep")).then(|| (Tool::GitGrep, rest[i + 1..].to_vec()))
        }
        _ => None,
    }
}

/// Short options that take a value, per tool: in `-C2` or `-m 5` the rest
/// of the cluster (or the next word) is that value, not more flags.
fn takes_value(tool: Tool, c: char) -> bool {
    match tool {
        Tool::Grep => "efmABCdDX".contains(c),
        Tool::Rg => "efmABCgtTjMrEd".contains(c),
        Tool::GitGrep => "efmABCO".contains(c),
    }
}

/// Long options that take a value in the next word when written without `=`.
const LONG_WITH_VALUE: &[&str] = &[
    "--regexp",
    "--file",
    "--max-count",
    "--after-context",
    "--before-context",
    "--context",
    "--glob",
    "--iglob",
    "--type",
    "--type-not",
    "--threads",
    "--max-columns",
    "--replace",
    "--encoding",
    "--max-depth",
    "--include",
    "--exclude",
    "--exclude-dir",
    "--color",
    "--colors",
    "--sort",
    "--sortr",
    "--path-separator",
    "--label",
    "--binary-files",
    "--devices",
    "--directories",
    "--pre",
    "--type-add",
    "--engine",
];

impl Options {
    pub fn from_argv(argv: &[String]) -> Option<Options> {
        let (tool, words) = tool(argv)?;
        // `rg --files` searches nothing: it lists the files it would
        // search (listing/v1 reads it).
        if tool == Tool::Rg && words.iter().take_while(|w| **w != "--").any(|w| *w == "--files") {
            return None;
        }
        let name = match tool {
            Tool::Grep => command_words(argv)[0].to_string(),
            Tool::Rg => "rg".to_string(),
            Tool::GitGrep => "git grep".to_string(),
        };
        let mut o = Options {
            tool,
            name,
            mode: Mode::Lines,
            heading: false,
            line_numbers: false,
            vimgrep: false,
            context: false,
            with_path: None,
            only_path: None,
            null_separated: false,
        };
        let mut recursive = false;
        let mut pattern_given = false;
        let mut operands: Vec<&str> = Vec::new();
        let mut i = 0;
        let mut options_end = false;
        while i < words.len() {
            let w = words[i];
            i += 1;
            if options_end || !w.starts_with('-') || w == "-" {
                operands.push(w);
                continue;
            }
            if w == "--" {
                options_end = true;
                continue;
            }
            if let Some(long) = w.strip_prefix("--") {
                let (flag, inline) = match long.split_once('=') {
                    Some((f, _)) => (f, true),
                    None => (long, false),
                };
                o.long(flag, &mut recursive, &mut pattern_given);
                if !inline && LONG_WITH_VALUE.contains(&w) {
                    i += 1;
                }
                continue;
            }
            for (k, c) in w.char_indices().skip(1) {
                o.short(c, &mut recursive, &mut pattern_given);
                if takes_value(tool, c) {
                    if k + c.len_utf8() == w.len() {
                        i += 1;
                    }
                    break;
                }
            }
        }
        let paths = if pattern_given {
            &operands[..]
        } else {
            operands.get(1..).unwrap_or(&[])
        };
        if paths.len() == 1 {
            o.only_path = Some(paths[0].to_string());
        }
        if o.with_path.is_none() {
            o.with_path = match (tool, paths.len()) {
                (Tool::GitGrep, _) => Some(true),
                (_, n) if n > 1 => Some(true),
                (Tool::Rg, 0) => Some(true),
                (Tool::Grep, 0) => Some(recursive),
                (Tool::Grep, _) if !recursive => Some(false),
                _ => None,
            };
        }
        if o.vimgrep {
            o.with_path = Some(true);
            o.line_numbers = true;
            o.heading = false;
        }
        Some(o)
    }

    fn short(&mut self, c: char, recursive: &mut bool, pattern: &mut bool) {
        match (self.tool, c) {
            (_, 'n') => self.line_numbers = true,
            (Tool::Rg, 'N') => self.line_numbers = false,
            (_, 'c') => self.mode = Mode::Count,
            (_, 'l' | 'L') => self.mode = Mode::Files,
            (_, 'A' | 'B' | 'C') => self.context = true,
            (_, 'e' | 'f') => *pattern = true,
            (_, 'H') => self.with_path = Some(true),
            (Tool::Grep | Tool::GitGrep, 'h') => self.with_path = Some(false),
            (Tool::Rg, 'I') => self.with_path = Some(false),
            (Tool::Grep, 'r' | 'R') => *recursive = true,
            (Tool::Grep | Tool::GitGrep, 'z' | 'Z') => self.null_separated = true,
            (Tool::Rg, '0') => self.null_separated = true,
            _ => {}
        }
    }

    fn long(&mut self, flag: &str, recursive: &mut bool, pattern: &mut bool) {
        match flag {
            "line-number" => self.line_numbers = true,
            "no-line-number" => self.line_numbers = false,
            "count" | "count-matches" => self.mode = Mode::Count,
            "files-with-matches"
            | "files-without-match"
            | "files-without-matches"
            | "name-only" => self.mode = Mode::Files,
            "json" => self.mode = Mode::Json,
            "heading" => self.heading = true,
            "no-heading" => self.heading = false,
            "vimgrep" => self.vimgrep = true,
            "after-context" | "before-context" | "context" => self.context = true,
            "regexp" | "file" => *pattern = true,
            "with-filename" => self.with_path = Some(true),
            "no-filename" => self.with_path = Some(false),
            "recursive" | "dereference-recursive" => *recursive = true,
            "null" | "null-data" => self.null_separated = true,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn rg_files_is_not_a_search() {
        let argv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert!(Options::from_argv(&argv("rg --files")).is_none());
        assert!(Options::from_argv(&argv("rg --hidden --files -g *.rs")).is_none());
        assert!(Options::from_argv(&argv("rg -n -- --files src")).is_some());
    }

    use super::*;

    fn opts(s: &str) -> Options {
        let argv: Vec<String> = s.split(' ').map(String::from).collect();
        Options::from_argv(&argv).expect("a search command")
    }

    #[test]
    fn clusters_and_values() {
        let o = opts("grep -rnC2 fn src");
        assert!(o.line_numbers && o.context);
        // `src` may be a folder (paths printed) or one file (none): the
        // output tells.
        assert_eq!(o.with_path, None);
        assert_eq!(opts("grep -rn fn").with_path, Some(true));
        let o = opts("grep -m 5 -c fn a.rs");
        assert_eq!(o.mode, Mode::Count);
        assert_eq!(o.with_path, Some(false));
        assert_eq!(o.only_path.as_deref(), Some("a.rs"));
        let o = opts("grep -e fn a.rs b.rs");
        assert_eq!(o.with_path, Some(true));
    }

    #[test]
    fn rg_shapes() {
        assert_eq!(opts("rg fn").with_path, Some(true));
        assert_eq!(opts("rg fn src").with_path, None);
        assert!(opts("rg -n --heading fn").heading);
        let v = opts("rg --vimgrep fn");
        assert!(v.vimgrep && v.line_numbers && !v.heading);
        assert_eq!(opts("rg --json fn").mode, Mode::Json);
        // rg's -r is --replace, which takes a value; grep's is recursive.
        assert_eq!(opts("rg -r x fn a.rs").only_path.as_deref(), Some("a.rs"));
    }

    #[test]
    fn git_grep_through_git_options() {
        let o = opts("git -C repo --no-pager grep -n fn");
        assert_eq!(o.tool, Tool::GitGrep);
        assert_eq!(o.name, "git grep");
        assert!(tool(&["git".to_string(), "log".to_string()]).is_none());
    }
}
