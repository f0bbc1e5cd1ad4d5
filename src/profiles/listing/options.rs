//! What the listing command's own flags say about the shape of its output.

use crate::command::command_words;

/// The listing tools this family reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Ls,
    Find,
    Tree,
    Du,
}

/// The output shape, as far as argv tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub tool: Tool,
    /// `ls -l` (also `-n`, `-g`, `-o`), `find -ls`: mode, size, date per line.
    pub long: bool,
    /// `ls -R`: a `dir:` section per folder.
    pub recursive: bool,
    /// `ls -F` / `-p`, `tree -F`: a `/` after each folder's name.
    pub classify: bool,
    /// `ls -s`, `ls -i`: numbers before the mode or name.
    pub numbers_first: usize,
    /// `find -type d` / `-type f`: every line is of that kind.
    pub find_type: Option<char>,
    /// A find expression with a test (`-name`, `-newer`, …): the folders
    /// it prints are not listed whole.
    pub find_filtered: bool,
    /// `find -printf`, `-print0`, `tree -J`/`-X`, `ls -m`/`-x`/`-C`, `du -0`:
    /// a shape this reader does not split into entries.
    pub foreign: Option<&'static str>,
    /// `tree -f`: each name is a full path.
    pub full_paths: bool,
    /// `du -a`: files too; `du -s`: one line per operand.
    pub du_all: bool,
    pub du_summary: bool,
    /// Path operands, in order.
    pub operands: Vec<String>,
    /// The command's name when it is not the tool's (`git ls-files`, `rg
    /// --files`, `fd`, read as a `find`).
    pub label: Option<&'static str>,
}

impl Options {
    pub fn from_argv(argv: &[String]) -> Option<Options> {
        let words = command_words(argv);
        let (first, rest) = words.split_first()?;
        if let Some(o) = Options::file_lister(first, rest) {
            return Some(o);
        }
        let tool = match *first {
            "ls" | "dir" | "vdir" => Tool::Ls,
            "find" => Tool::Find,
            "tree" => Tool::Tree,
            "du" => Tool::Du,
            _ => return None,
        };
        let mut o = Options {
            tool,
            long: *first == "vdir",
            recursive: false,
            classify: false,
            numbers_first: 0,
            find_type: None,
            find_filtered: false,
            foreign: None,
            full_paths: false,
            du_all: false,
            du_summary: false,
            operands: Vec::new(),
            label: None,
        };
        match tool {
            Tool::Find => o.find_words(rest),
            _ => o.flag_words(rest),
        }
        // `find … -exec grep …` prints the command's output, not paths.
        let runs_a_command = tool == Tool::Find
            && rest
                .iter()
                .any(|w| matches!(*w, "-exec" | "-execdir" | "-ok" | "-okdir"));
        (!runs_a_command).then_some(o)
    }

    /// `git ls-files`, `rg --files`, `fd`: one path per line, relative to
    /// where they ran, like a `find` that names no folder of its own (so
    /// each folder is counted from the paths in it, never said to be
    /// listed whole). Only their plain shapes: `git ls-files -s` (modes
    /// and hashes), `-z`/`-0`/`--print0` (NUL-separated), `fd -l` (long)
    /// and `fd -x` (a command's output) are not read as listings.
    fn file_lister(first: &str, rest: &[&str]) -> Option<Options> {
        let plain = |allowed: &[&str], words: &[&str]| {
            words
                .iter()
                .filter(|w| w.starts_with('-'))
                .all(|w| allowed.contains(&w.split('=').next().unwrap_or(w)))
        };
        let (name, types_mixed, label) = match first {
            "git" if rest.first() == Some(&"ls-files") => {
                let allowed = [
                    "-c", "--cached", "-o", "--others", "-m", "--modified", "-d", "--deleted",
                    "-i", "--ignored", "--exclude-standard", "--full-name", "--recurse-submodules",
                    "-x", "--exclude", "-X", "--exclude-from", "--directory", "--",
                ];
                (plain(&allowed, &rest[1..]), false, "git ls-files")
            }
            "rg" if rest.contains(&"--files") => {
                let allowed = [
                    "--files", "--hidden", "-.", "--no-ignore", "-u", "-uu", "-g", "--glob",
                    "-t", "--type", "-T", "--type-not", "-L", "--follow", "--sort", "--",
                ];
                (plain(&allowed, rest), false, "rg --files")
            }
            "fd" | "fdfind" => {
                let allowed = [
                    "-H", "--hidden", "-I", "--no-ignore", "-t", "--type", "-e", "--extension",
                    "-E", "--exclude", "-d", "--max-depth", "-g", "--glob", "-s", "-i", "-L",
                    "--follow", "-a", "--absolute-path", "-p", "--full-path", "--",
                ];
                (plain(&allowed, rest), true, "fd")
            }
            _ => return None,
        };
        name.then(|| Options {
            tool: Tool::Find,
            long: false,
            recursive: false,
            classify: false,
            numbers_first: 0,
            // git and rg print files only; fd prints folders too.
            find_type: (!types_mixed).then_some('f'),
            find_filtered: true,
            foreign: None,
            full_paths: false,
            du_all: false,
            du_summary: false,
            operands: Vec::new(),
            label: Some(label),
        })
    }

    /// find: paths first, then an expression.
    fn find_words(&mut self, words: &[&str]) {
        let mut i = 0;
        // Options before the paths (-H, -L, -P, -O3, -D debugopts).
        while let Some(w) = words.get(i) {
            match *w {
                "-H" | "-L" | "-P" => i += 1,
                "-D" => i += 2,
                w if w.starts_with("-O") => i += 1,
                _ => break,
            }
        }
        while let Some(w) = words.get(i) {
            if w.starts_with('-') || *w == "(" || *w == "!" {
                break;
            }
            self.operands.push(w.to_string());
            i += 1;
        }
        let expr = &words[i.min(words.len())..];
        for (k, w) in expr.iter().enumerate() {
            match *w {
                "-ls" => self.long = true,
                "-print" => {}
                "-type" => {
                    self.find_filtered = true;
                    self.find_type = expr.get(k + 1).and_then(|t| t.chars().next());
                }
                "-printf" | "-fprintf" | "-print0" | "-fprint0" | "-fls" | "-fprint" => {
                    self.foreign = Some("find's own output format")
                }
                w if w.starts_with('-') => self.find_filtered = true,
                _ => {}
            }
        }
        if self.find_type.is_some_and(|t| t != 'd' && t != 'f') {
            self.find_type = None;
        }
    }

    fn flag_words(&mut self, words: &[&str]) {
        let mut options_end = false;
        let mut i = 0;
        while i < words.len() {
            let w = words[i];
            i += 1;
            if options_end || !w.starts_with('-') || w == "-" {
                self.operands.push(w.to_string());
                continue;
            }
            if w == "--" {
                options_end = true;
                continue;
            }
            if let Some(long) = w.strip_prefix("--") {
                let (flag, value) = match long.split_once('=') {
                    Some((f, v)) => (f, Some(v)),
                    None => (long, None),
                };
                self.long_flag(flag, value);
                continue;
            }
            for c in w.chars().skip(1) {
                if self.short(c) {
                    // The option takes a value: the rest of the cluster or
                    // the next word.
                    if w.ends_with(c) {
                        i += 1;
                    }
                    break;
                }
            }
        }
    }

    /// Applies one short flag; true when it takes a value.
    fn short(&mut self, c: char) -> bool {
        match (self.tool, c) {
            (Tool::Ls, 'l' | 'n' | 'g' | 'o') => self.long = true,
            (Tool::Ls, '1') => self.long = false,
            (Tool::Ls, 'R') => self.recursive = true,
            (Tool::Ls, 'F' | 'p') | (Tool::Tree, 'F') => self.classify = true,
            (Tool::Ls, 's' | 'i') => self.numbers_first += 1,
            (Tool::Ls, 'm' | 'x' | 'C') => self.foreign = Some("ls columns"),
            (Tool::Ls, 'I' | 'w' | 'T') => return true,
            (Tool::Tree, 'f') => self.full_paths = true,
            (Tool::Tree, 'J' | 'X') => self.foreign = Some("tree's JSON or XML"),
            (Tool::Tree, 'L' | 'P' | 'I' | 'o' | 'H' | 'T') => return true,
            (Tool::Du, 'a') => self.du_all = true,
            (Tool::Du, 's') => self.du_summary = true,
            (Tool::Du, '0') => self.foreign = Some("NUL-separated lines"),
            (Tool::Du, 'd' | 'B' | 't' | 'X') => return true,
            _ => {}
        }
        false
    }

    fn long_flag(&mut self, flag: &str, value: Option<&str>) {
        match (self.tool, flag) {
            (Tool::Ls, "recursive") => self.recursive = true,
            (Tool::Ls, "classify" | "indicator-style") => {
                self.classify = value != Some("none");
            }
            (Tool::Ls, "format") => match value {
                Some("long" | "verbose") => self.long = true,
                Some("single-column") => self.long = false,
                _ => self.foreign = Some("ls columns"),
            },
            (Tool::Ls, "size" | "inode") => self.numbers_first += 1,
            (Tool::Du, "all") => self.du_all = true,
            (Tool::Du, "summarize") => self.du_summary = true,
            (Tool::Du, "null") => self.foreign = Some("NUL-separated lines"),
            (Tool::Tree, "fromfile") => self.foreign = Some("tree --fromfile"),
            _ => {}
        }
    }

    /// The name the header uses.
    pub fn name(&self) -> &'static str {
        if let Some(label) = self.label {
            return label;
        }
        match self.tool {
            Tool::Ls => "ls",
            Tool::Find => "find",
            Tool::Tree => "tree",
            Tool::Du => "du",
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn file_listers_read_as_find_in_their_plain_shapes() {
        let argv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        for (cmd, name) in [
            ("git ls-files", "git ls-files"),
            ("git ls-files --others --exclude-standard", "git ls-files"),
            ("rg --files", "rg --files"),
            ("rg --files -g *.rs", "rg --files"),
            ("fd -e py", "fd"),
            ("fdfind", "fd"),
        ] {
            let o = Options::from_argv(&argv(cmd)).unwrap_or_else(|| panic!("{cmd}"));
            assert_eq!((o.tool, o.name()), (Tool::Find, name), "{cmd}");
        }
        for cmd in ["git ls-files -s", "git ls-files -z", "rg --files -0", "fd -x wc", "fd -l", "git log"] {
            assert!(Options::from_argv(&argv(cmd)).is_none(), "{cmd}");
        }
    }

    use super::*;

    fn opts(s: &str) -> Options {
        let argv: Vec<String> = s.split(' ').map(String::from).collect();
        Options::from_argv(&argv).expect("a listing command")
    }

    #[test]
    fn ls_flags() {
        let o = opts("ls -laR src");
        assert!(o.long && o.recursive);
        assert_eq!(o.operands, ["src"]);
        assert!(opts("ls -lF").classify);
        assert_eq!(opts("ls -lsi").numbers_first, 2);
        assert!(opts("ls -C").foreign.is_some());
        assert!(opts("ls --format=long").long);
        assert_eq!(opts("ls -I '*.o' -l").operands, Vec::<String>::new());
    }

    #[test]
    fn find_expressions() {
        let o = opts("find -L . src -name *.rs -ls");
        assert_eq!(o.operands, [".", "src"]);
        assert!(o.long);
        assert_eq!(opts("find . -type d").find_type, Some('d'));
        assert_eq!(opts("find . -type l").find_type, None);
        assert!(opts("find . -printf %p").foreign.is_some());
        let argv: Vec<String> = "find . -name *.rs -exec grep -n fn {} +"
            .split(' ')
            .map(String::from)
            .collect();
        assert!(Options::from_argv(&argv).is_none());
    }

    #[test]
    fn tree_and_du() {
        assert!(opts("tree -L 2 -f").full_paths);
        assert_eq!(opts("tree -L 2 src").operands, ["src"]);
        let o = opts("du -sh a b");
        assert!(o.du_summary && !o.du_all);
        assert_eq!(o.operands, ["a", "b"]);
        assert!(opts("du -ah").du_all);
        assert_eq!(opts("du -d 1 .").operands, ["."]);
        assert!(Options::from_argv(&["git".to_string(), "log".to_string()]).is_none());
    }
}
