//! A small shell lexer: enough of bash to find simple commands, their
//! words (with byte offsets into the line), the operators between them,
//! and every construct ctx cannot vouch for.
//!
//! It agrees with bash on what it accepts: a line bash would reject
//! (`; a`, `a && && b`, a leading `|`, `a &&` at the end, a redirection
//! with no target) is an error here too, so it is never rewritten, and a
//! redirection operator never swallows the word after a `;`. Quoting
//! follows bash's rules, including the backslash inside double quotes,
//! which escapes only `$`, `` ` ``, `"`, `\` and a newline (`"py\test"` is
//! `py\test`). tests/rewrite.rs checks the lexer against `bash -n` and
//! against the argv bash actually builds.
//!
//! Why not the `shell-words` crate: it splits one command into words but
//! knows no operators (`a&&b` is one word to it), no redirections and no
//! byte offsets, and the rewrite must insert text into the original line
//! without re-quoting anything.

mod quoting;
mod redirection;

/// A word: its unquoted value and where it lies in the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub value: String,
    pub start: usize,
    /// Byte offset just after the word.
    pub end: usize,
    /// False when bash would expand the word into something else
    /// (`$VAR`, `${x}`, `$'…'`, globs, `~`, braces): its value is then
    /// only the text, not what the command receives.
    pub literal: bool,
}

/// One stage of a pipeline: a simple command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stage {
    pub words: Vec<Word>,
    /// stdout goes to a file or another descriptor (`> f`, `>&2`,
    /// `&> f`, `1<>f`, `1<&3`).
    pub stdout_redirected: bool,
    /// The stage has at least one redirection.
    pub redirected: bool,
    /// stderr goes where stdout goes (`2>&1`, or `|&` after the stage).
    pub stderr_to_stdout: bool,
    /// Byte offset of the operator that ends the stage (`|`, `&&`, `;`, a
    /// newline), or the line's length.
    pub end: usize,
}

impl Stage {
    fn is_empty(&self) -> bool {
        self.words.is_empty() && !self.redirected
    }

    /// Where the stage's own text ends: before the blanks that precede
    /// the operator ending it.
    pub fn text_end(&self, line: &str) -> usize {
        line[..self.end.min(line.len())].trim_end().len()
    }
}

/// Stages joined by `|` or `|&`; pipelines are joined by `&&`, `||`, `;`
/// or a newline.
pub type Pipeline = Vec<Stage>;

/// Why a line is left alone as a whole.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unattestable {
    /// bash itself rejects the line.
    #[error("syntax error: {0}")]
    Syntax(&'static str),
    /// Valid shell that ctx does not vouch for (substitutions, heredocs,
    /// subshells, background jobs, …).
    #[error("cannot attest: {0}")]
    Opaque(&'static str),
}

use Unattestable::{Opaque, Syntax};

/// The lexer's position and what it is in the middle of.
struct Lexer<'a> {
    line: &'a str,
    bytes: &'a [u8],
    i: usize,
    pipelines: Vec<Pipeline>,
    word: Option<Word>,
    /// A redirection operator waiting for its target word.
    pending_target: bool,
    /// After `&&`, `||`, `|`: a command must follow (newlines may come
    /// first).
    expect_command: bool,
    /// Inside `[[ … ]]`, where `&&`, `<`, `(` are the conditional's own.
    in_cond: bool,
    /// A syntax error found while closing a word, reported at the next
    /// operator or the end.
    error: Option<Unattestable>,
    /// `|&` then a newline, and no word yet.
    pipe_amp_newline: bool,
    /// The last operator was `|&`.
    after_pipe_amp: bool,
}

/// Splits `line` into pipelines, or says why it will not.
pub fn lex(line: &str) -> Result<Vec<Pipeline>, Unattestable> {
    let mut lx = Lexer {
        line,
        bytes: line.as_bytes(),
        i: 0,
        pipelines: vec![vec![Stage::default()]],
        word: None,
        pending_target: false,
        expect_command: false,
        in_cond: false,
        error: None,
        pipe_amp_newline: false,
        after_pipe_amp: false,
    };
    lx.run()?;
    let mut pipelines = lx.pipelines;
    // Blank lines and a trailing `;` leave empty stages behind.
    for p in &mut pipelines {
        p.retain(|s| !s.is_empty());
    }
    pipelines.retain(|p| !p.is_empty());
    Ok(pipelines)
}

impl Lexer<'_> {
    fn stage(&mut self) -> &mut Stage {
        let pipeline = self.pipelines.last_mut().expect("never empty");
        pipeline.last_mut().expect("never empty")
    }

    fn peek(&self, k: usize) -> Option<u8> {
        self.bytes.get(self.i + k).copied()
    }

    /// Closes the word being read: a redirection's target, or the
    /// stage's next word.
    fn end_word(&mut self) {
        let Some(w) = self.word.take() else {
            return;
        };
        if self.pending_target {
            self.pending_target = false;
            return;
        }
        let raw = &self.line[w.start..w.end];
        if !self.in_cond && starts_subscript(raw) && self.before_command() {
            // `a[i]=x`: bash reads the subscript across blanks and quotes.
            self.error = Some(Opaque("array assignment"));
        }
        if self.in_cond {
            if raw == "]]" {
                self.in_cond = false;
            }
        } else if self.at_command_start() {
            match raw {
                "[[" => self.in_cond = true,
                "]]" => self.error = Some(Syntax("`]]` without `[[`")),
                // A bash grammar quirk: `a |&` + newline + `time b`.
                "time" if self.pipe_amp_newline => {
                    self.error = Some(Syntax("`time` after `|&` and a newline"));
                }
                "!" if self.pipelines.last().is_some_and(|p| p.len() > 1) => {
                    self.error = Some(Syntax("`!` inside a pipeline"));
                }
                _ => {}
            }
        }
        self.expect_command = false;
        self.pipe_amp_newline = false;
        self.after_pipe_amp = false;
        self.stage().words.push(w);
    }

    /// No word of the stage so far is a command word: only the reserved
    /// prefixes `!` and `time [-p]` (as typed, unquoted).
    fn at_command_start(&self) -> bool {
        let stage = self
            .pipelines
            .last()
            .and_then(|p| p.last())
            .expect("never empty");
        let mut after_time = false;
        stage.words.iter().all(|w| {
            let raw = &self.line[w.start..w.end];
            let prefix = raw == "!" || raw == "time" || (after_time && raw == "-p");
            after_time = raw == "time";
            prefix
        })
    }

    /// Only prefixes and assignments so far: the next word is the
    /// command's name (or another assignment).
    fn before_command(&self) -> bool {
        let stage = self
            .pipelines
            .last()
            .and_then(|p| p.last())
            .expect("never empty");
        stage.words.iter().all(|w| {
            let raw = &self.line[w.start..w.end];
            matches!(raw, "!" | "time" | "-p")
                || raw.split_once('=').is_some_and(|(name, _)| is_name(name))
        })
    }

    /// A command that is only `!` or `time` cannot be joined to another.
    fn only_prefixes(&self) -> bool {
        let stage = self
            .pipelines
            .last()
            .and_then(|p| p.last())
            .expect("never empty");
        !stage.redirected && self.at_command_start()
    }

    /// An operator that ends the current command (`;`, `&&`, `|`, …).
    fn end_command(&mut self, what: &'static str) -> Result<(), Unattestable> {
        self.end_word();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.pending_target {
            return Err(Syntax("redirection without a target"));
        }
        if self.stage().is_empty() {
            return Err(Syntax(what));
        }
        Ok(())
    }

    /// `&&`, `||`, `|`: also refused after a bare `!` or `time`.
    fn join_command(&mut self, what: &'static str) -> Result<(), Unattestable> {
        self.end_command(what)?;
        if self.only_prefixes() {
            return Err(Syntax(what));
        }
        Ok(())
    }

    fn run(&mut self) -> Result<(), Unattestable> {
        while self.i < self.bytes.len() {
            let c = self.bytes[self.i];
            if self.in_cond && matches!(c, b'&' | b'|' | b'<' | b'>' | b'(' | b')') {
                self.end_word();
                if self.in_cond {
                    self.cond_operator()?;
                    continue;
                }
            }
            match c {
                b' ' | b'\t' => {
                    self.end_word();
                    self.i += 1;
                }
                b'\\' if self.peek(1) == Some(b'\n') => {
                    // A line continuation is removed before anything else.
                    self.i += 2;
                }
                b'\n' => {
                    self.end_word();
                    if let Some(e) = self.error.take() {
                        return Err(e);
                    }
                    if self.pending_target {
                        return Err(Syntax("redirection without a target"));
                    }
                    if !self.expect_command && !self.stage().is_empty() {
                        self.stage().end = self.i;
                        self.pipelines.push(vec![Stage::default()]);
                    }
                    self.pipe_amp_newline |= self.expect_command && self.after_pipe_amp;
                    self.i += 1;
                }
                b';' => {
                    if self.peek(1) == Some(b';') {
                        return Err(Opaque("case statement"));
                    }
                    self.end_command("`;` after nothing")?;
                    self.stage().end = self.i;
                    self.pipelines.push(vec![Stage::default()]);
                    self.i += 1;
                }
                b'&' if self.peek(1) == Some(b'&') => {
                    self.join_command("`&&` after nothing")?;
                    self.stage().end = self.i;
                    self.pipelines.push(vec![Stage::default()]);
                    self.expect_command = true;
                    self.i += 2;
                }
                b'|' if self.peek(1) == Some(b'|') => {
                    self.join_command("`||` after nothing")?;
                    self.stage().end = self.i;
                    self.pipelines.push(vec![Stage::default()]);
                    self.expect_command = true;
                    self.i += 2;
                }
                b'|' => {
                    self.join_command("`|` after nothing")?;
                    let merge = self.peek(1) == Some(b'&');
                    let at = self.i;
                    let stage = self.stage();
                    stage.end = at;
                    stage.stderr_to_stdout |= merge;
                    self.pipelines
                        .last_mut()
                        .expect("never empty")
                        .push(Stage::default());
                    self.expect_command = true;
                    self.after_pipe_amp = merge;
                    self.i += if merge { 2 } else { 1 };
                }
                b'&' if self.peek(1) == Some(b'>') => {
                    // `&> f`, `&>> f`: stdout and stderr to a file.
                    self.end_word();
                    self.redirect_start()?;
                    let stage = self.stage();
                    stage.redirected = true;
                    stage.stdout_redirected = true;
                    self.i += if self.peek(2) == Some(b'>') { 3 } else { 2 };
                    self.pending_target = true;
                }
                b'&' => {
                    self.end_command("`&` after nothing")?;
                    return Err(Opaque("background job"));
                }
                b'`' => return Err(Opaque("backticks")),
                b'(' | b')' => return Err(Opaque("subshell or function definition")),
                b'<' | b'>' => self.redirection()?,
                b'#' if self.word.is_none() => {
                    // A comment runs to the end of the line.
                    while self.i < self.bytes.len() && self.bytes[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                _ => self.word_part()?,
            }
        }
        self.end_word();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.pending_target {
            return Err(Syntax("redirection without a target"));
        }
        if self.expect_command {
            return Err(Syntax("the line ends after an operator"));
        }
        if self.in_cond {
            return Err(Syntax("unterminated [["));
        }
        let len = self.line.len();
        let last = self.stage();
        if last.end == 0 {
            last.end = len;
        }
        Ok(())
    }
}

fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `name[…`: the start of an array element assignment.
fn starts_subscript(raw: &str) -> bool {
    raw.split_once('[').is_some_and(|(name, _)| is_name(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        lex(line)
            .expect("lexes")
            .iter()
            .flat_map(|p| p.iter())
            .map(|s| s.words.iter().map(|w| w.value.clone()).collect())
            .collect()
    }

    #[test]
    fn bash_quoting() {
        assert_eq!(words(r#""py\test""#), vec![vec![r"py\test"]]);
        assert_eq!(words(r#""a\"b\\c\$d""#), vec![vec![r#"a"b\c$d"#]]);
        assert_eq!(words(r"py\test"), vec![vec!["pytest"]]);
        assert_eq!(words("pyt\\\nest -x"), vec![vec!["pytest", "-x"]]);
        assert_eq!(words("pytest \\\n  -x"), vec![vec!["pytest", "-x"]]);
        assert_eq!(
            words("echo ${a:-x y} z"),
            vec![vec!["echo", "${a:-x y}", "z"]]
        );
        assert_eq!(words(r"echo $'a\'b' c"), vec![vec!["echo", r"a\'b", "c"]]);
    }

    #[test]
    fn syntax_errors() {
        for line in [
            ";npx ; pytest",
            "&&&&",
            "| pytest",
            "pytest >",
            "pytest >> ; cargo test",
            "pytest && && cargo test",
            "pytest &&",
            "pytest |",
            "a;\n;b",
            "pytest 2>",
            "pytest > | cat",
        ] {
            assert!(matches!(lex(line), Err(Syntax(_))), "{line:?}");
        }
        for line in [
            "pytest;",
            "pytest &&\n cargo test",
            "\n\npytest\n\n",
            "a |\n b",
        ] {
            assert!(lex(line).is_ok(), "{line:?}");
        }
    }

    #[test]
    fn stdout_redirections() {
        for (line, redirected) in [
            ("pytest 1<>log", true),
            ("pytest <>log", false),
            ("pytest 1<&3", true),
            ("pytest >&log", true),
            ("pytest 2>&1", false),
            ("pytest {fd}>log", false),
            ("pytest 2>log", false),
            ("pytest >|log", true),
            ("pytest 0<in", false),
        ] {
            let p = lex(line).expect(line);
            assert_eq!(p[0][0].stdout_redirected, redirected, "{line}");
            assert_eq!(p[0][0].words.len(), 1, "{line}");
        }
    }
}
