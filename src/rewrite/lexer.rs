//! A small shell lexer: enough of POSIX sh and bash to find simple
//! commands, their words (with byte offsets into the line), the operators
//! between them, and every construct ctx cannot vouch for.
//!
//! Why not the `shell-words` crate: it splits one command into words but
//! knows no operators (`a&&b` is one word to it), no redirections and no
//! byte offsets, and the rewrite must insert text into the original line
//! without re-quoting anything. A tokenizer that understands quotes,
//! escapes and operators is a page of code; the table in tests/rewrite.rs
//! holds it to its word.

/// A word: its unquoted value and where it starts in the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub value: String,
    pub start: usize,
}

/// One stage of a pipeline: a simple command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stage {
    pub words: Vec<Word>,
    /// stdout goes to a file or another descriptor (`> f`, `>&2`, `&> f`).
    pub stdout_redirected: bool,
}

/// Stages joined by `|` or `|&`; pipelines are joined by `&&`, `||`, `;`
/// or a newline.
pub type Pipeline = Vec<Stage>;

/// Why a line is left alone as a whole.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot attest: {0}")]
pub struct Unattestable(pub &'static str);

/// Splits `line` into pipelines, or says why it will not.
pub fn lex(line: &str) -> Result<Vec<Pipeline>, Unattestable> {
    let bytes = line.as_bytes();
    let mut pipelines: Vec<Pipeline> = vec![vec![Stage::default()]];
    let mut word: Option<Word> = None;
    let mut i = 0;
    // A redirection operator waiting for its target word.
    let mut pending_target = false;

    macro_rules! stage {
        () => {
            pipelines
                .last_mut()
                .and_then(|p| p.last_mut())
                .expect("never empty")
        };
    }
    macro_rules! end_word {
        () => {
            end_word(&mut word, &mut pending_target, stage!())
        };
    }

    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b' ' | b'\t' => {
                end_word!();
                i += 1;
            }
            b'\n' | b';' => {
                end_word!();
                if bytes.get(i + 1) == Some(&b';') {
                    return Err(Unattestable("case statement"));
                }
                pipelines.push(vec![Stage::default()]);
                i += 1;
            }
            b'&' if bytes.get(i + 1) == Some(&b'&') => {
                end_word!();
                pipelines.push(vec![Stage::default()]);
                i += 2;
            }
            b'|' if bytes.get(i + 1) == Some(&b'|') => {
                end_word!();
                pipelines.push(vec![Stage::default()]);
                i += 2;
            }
            b'|' => {
                end_word!();
                let merge = bytes.get(i + 1) == Some(&b'&');
                pipelines
                    .last_mut()
                    .expect("never empty")
                    .push(Stage::default());
                i += if merge { 2 } else { 1 };
            }
            b'&' if bytes.get(i + 1) == Some(&b'>') => {
                // `&> f`, `&>> f`: stdout and stderr to a file.
                end_word!();
                stage!().stdout_redirected = true;
                i += if bytes.get(i + 2) == Some(&b'>') {
                    3
                } else {
                    2
                };
                pending_target = true;
            }
            b'&' => return Err(Unattestable("background job")),
            b'`' => return Err(Unattestable("backticks")),
            b'(' | b')' => return Err(Unattestable("subshell or function definition")),
            b'$' if matches!(bytes.get(i + 1), Some(b'(')) => {
                return Err(Unattestable("command substitution"));
            }
            b'<' | b'>' => {
                // A redirection; a word of digits just before it is its fd.
                let fd = match word.take() {
                    Some(w)
                        if !w.value.is_empty()
                            && w.value.bytes().all(|b| b.is_ascii_digit())
                            && line[w.start..i].bytes().all(|b| b.is_ascii_digit()) =>
                    {
                        w.value.parse::<u32>().ok()
                    }
                    other => {
                        word = other;
                        end_word!();
                        None
                    }
                };
                let (next, needs_target) = redirection(bytes, i, fd, stage!())?;
                i = next;
                pending_target = needs_target;
            }
            b'#' if word.is_none() => {
                // A comment runs to the end of the line.
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {
                let w = word.get_or_insert_with(|| Word {
                    value: String::new(),
                    start: i,
                });
                i = word_part(line, i, &mut w.value)?;
            }
        }
    }
    end_word!();
    if pending_target {
        return Err(Unattestable("redirection without a target"));
    }
    Ok(pipelines)
}

/// Closes the word being read: a redirection's target, or the stage's next
/// word.
fn end_word(word: &mut Option<Word>, pending_target: &mut bool, stage: &mut Stage) {
    if let Some(w) = word.take() {
        if *pending_target {
            *pending_target = false;
        } else {
            stage.words.push(w);
        }
    }
}

/// Reads one redirection operator at `i`; returns the index after it and
/// whether a target word follows (`> f`) or not (`2>&1`).
fn redirection(
    bytes: &[u8],
    mut i: usize,
    fd: Option<u32>,
    stage: &mut Stage,
) -> Result<(usize, bool), Unattestable> {
    let out = bytes[i] == b'>';
    i += 1;
    if bytes.get(i) == Some(&b'(') {
        return Err(Unattestable("process substitution"));
    }
    if !out && bytes.get(i) == Some(&b'<') {
        if bytes.get(i + 1) == Some(&b'<') {
            return Ok((i + 2, true)); // here-string: stdin only
        }
        return Err(Unattestable("heredoc"));
    }
    // `>>`, `>|`, `<>`.
    if matches!(bytes.get(i), Some(b'>' | b'|')) {
        i += 1;
    }
    if out && fd.unwrap_or(1) == 1 {
        stage.stdout_redirected = true;
    }
    if bytes.get(i) == Some(&b'&') {
        // `>&2`, `2>&1`, `>&-`: a copy of another descriptor.
        let digits = i + 1;
        let mut j = digits;
        while bytes
            .get(j)
            .is_some_and(|b| b.is_ascii_digit() || *b == b'-')
        {
            j += 1;
        }
        return Ok(if j > digits {
            (j, false)
        } else {
            (digits, true)
        });
    }
    Ok((i, true))
}

/// Appends one piece of a word at `i` (a quoted string, an escape, or a
/// plain character) to `value`; returns the index after it.
fn word_part(line: &str, i: usize, value: &mut String) -> Result<usize, Unattestable> {
    let bytes = line.as_bytes();
    match bytes[i] {
        b'\'' => {
            let end = line[i + 1..]
                .find('\'')
                .ok_or(Unattestable("unterminated quote"))?;
            value.push_str(&line[i + 1..i + 1 + end]);
            Ok(i + end + 2)
        }
        b'"' => {
            let mut j = i + 1;
            loop {
                match bytes.get(j) {
                    None => return Err(Unattestable("unterminated quote")),
                    Some(b'"') => return Ok(j + 1),
                    Some(b'`') => return Err(Unattestable("backticks")),
                    Some(b'$') if bytes.get(j + 1) == Some(&b'(') => {
                        return Err(Unattestable("command substitution"));
                    }
                    Some(b'\\') if j + 1 < bytes.len() => {
                        let ch = next_char(line, j + 1);
                        value.push(ch);
                        j += 1 + ch.len_utf8();
                    }
                    Some(_) => {
                        let ch = next_char(line, j);
                        value.push(ch);
                        j += ch.len_utf8();
                    }
                }
            }
        }
        b'\\' if i + 1 < bytes.len() => {
            let ch = next_char(line, i + 1);
            if ch != '\n' {
                value.push(ch);
            }
            Ok(i + 1 + ch.len_utf8())
        }
        _ => {
            let ch = next_char(line, i);
            value.push(ch);
            Ok(i + ch.len_utf8())
        }
    }
}

fn next_char(line: &str, i: usize) -> char {
    line[i..].chars().next().unwrap_or('\0')
}
