//! Words: quotes, escapes and expansions, with bash's rules (the
//! backslash inside double quotes escapes only `$`, `` ` ``, `"`, `\` and
//! a newline), and whether a word is literal or would be expanded.

use super::{Lexer, Opaque, Syntax, Unattestable, Word};

impl Lexer<'_> {
    pub(super) fn word(&mut self) -> &mut Word {
        let i = self.i;
        self.word.get_or_insert_with(|| Word {
            value: String::new(),
            start: i,
            end: i,
            literal: true,
        })
    }

    /// `[[ a && b ]]`, `[[ a < b ]]`, `[[ ( a ) ]]`: the conditional's
    /// own operators, kept as words of the `[[` stage.
    pub(super) fn cond_operator(&mut self) -> Result<(), Unattestable> {
        let c = self.bytes[self.i];
        let len = match (c, self.peek(1)) {
            (b'&', Some(b'&')) | (b'|', Some(b'|')) => 2,
            (b'&' | b'|', _) => return Err(Syntax("`&` or `|` inside [[ ]]")),
            _ => 1,
        };
        let start = self.i;
        self.i += len;
        let word = Word {
            value: self.line[start..self.i].to_string(),
            start,
            end: self.i,
            literal: true,
        };
        self.stage().words.push(word);
        Ok(())
    }

    /// Appends one piece of a word at `i` (a quoted string, an escape, an
    /// expansion or a plain character).
    pub(super) fn word_part(&mut self) -> Result<(), Unattestable> {
        let line = self.line;
        let bytes = self.bytes;
        let i = self.i;
        let starts_word = self.word.is_none();
        match bytes[i] {
            b'\'' => {
                let end = line[i + 1..]
                    .find('\'')
                    .ok_or(Syntax("unterminated quote"))?;
                let text = &line[i + 1..i + 1 + end];
                self.word().value.push_str(text);
                self.i = i + end + 2;
            }
            b'$' if bytes.get(i + 1) == Some(&b'\'') => {
                // ANSI-C quoting: `\'` does not end it.
                let mut j = i + 2;
                loop {
                    match bytes.get(j) {
                        None => return Err(Syntax("unterminated quote")),
                        Some(b'\\') => j += 2,
                        Some(b'\'') => break,
                        Some(_) => j += 1,
                    }
                }
                let text = &line[i + 2..j.min(line.len())];
                let w = self.word();
                w.value.push_str(text);
                w.literal = false;
                self.i = j + 1;
            }
            b'$' if bytes.get(i + 1) == Some(&b'"') => {
                // Locale translation: a double-quoted string to bash here.
                self.word();
                self.i = i + 1;
                self.double_quoted()?;
            }
            b'"' => {
                self.word();
                self.double_quoted()?;
            }
            b'$' if bytes.get(i + 1) == Some(&b'(') => {
                return Err(Opaque("command substitution"));
            }
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                // `${x:-a b}` may hold blanks and quotes.
                let end = braced_end(bytes, i + 2).ok_or(Syntax("unterminated ${"))?;
                let text = &line[i..end];
                let w = self.word();
                w.value.push_str(text);
                w.literal = false;
                self.i = end;
            }
            b'\\' => {
                let Some(ch) = line[i + 1..].chars().next() else {
                    // A lone backslash at the end is a literal backslash.
                    self.word().value.push('\\');
                    self.i = i + 1;
                    self.word().end = self.i;
                    return Ok(());
                };
                self.word().value.push(ch);
                self.i = i + 1 + ch.len_utf8();
            }
            c => {
                let ch = next_char(line, i);
                let expands = match c {
                    b'$' => bytes.get(i + 1).is_some_and(|b| is_parameter_start(*b)),
                    b'*' | b'?' | b'[' | b'{' | b'}' => true,
                    b'~' => starts_word,
                    _ => false,
                };
                let w = self.word();
                w.value.push(ch);
                if expands {
                    w.literal = false;
                }
                self.i = i + ch.len_utf8();
            }
        }
        let end = self.i;
        self.word().end = end;
        Ok(())
    }

    /// Reads a `"…"` string at `i` into the current word, with bash's
    /// rules for the backslash.
    pub(super) fn double_quoted(&mut self) -> Result<(), Unattestable> {
        let line = self.line;
        let bytes = self.bytes;
        let mut j = self.i + 1;
        let mut literal = true;
        let mut value = String::new();
        loop {
            match bytes.get(j) {
                None => return Err(Syntax("unterminated quote")),
                Some(b'"') => break,
                Some(b'`') => return Err(Opaque("backticks")),
                Some(b'$') if bytes.get(j + 1) == Some(&b'(') => {
                    return Err(Opaque("command substitution"));
                }
                Some(b'$') if bytes.get(j + 1) == Some(&b'{') => {
                    let end = braced_end(bytes, j + 2).ok_or(Syntax("unterminated ${"))?;
                    value.push_str(&line[j..end]);
                    literal = false;
                    j = end;
                }
                Some(b'$') if bytes.get(j + 1).is_some_and(|b| is_parameter_start(*b)) => {
                    value.push('$');
                    literal = false;
                    j += 1;
                }
                Some(b'\\') => match bytes.get(j + 1) {
                    Some(b'\n') => j += 2,
                    Some(&b @ (b'$' | b'`' | b'"' | b'\\')) => {
                        value.push(b as char);
                        j += 2;
                    }
                    _ => {
                        value.push('\\');
                        j += 1;
                    }
                },
                Some(_) => {
                    let ch = next_char(line, j);
                    value.push(ch);
                    j += ch.len_utf8();
                }
            }
        }
        self.i = j + 1;
        let w = self.word();
        w.value.push_str(&value);
        w.literal &= literal;
        Ok(())
    }
}

/// `$` followed by this starts a parameter expansion.
fn is_parameter_start(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!')
}

/// The index after the `}` that closes a `${` whose body starts at `j`.
fn braced_end(bytes: &[u8], mut j: usize) -> Option<usize> {
    let mut depth = 1;
    while let Some(&b) = bytes.get(j) {
        match b {
            b'\\' => j += 1,
            b'\'' => {
                j += 1;
                while *bytes.get(j)? != b'\'' {
                    j += 1;
                }
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

fn next_char(line: &str, i: usize) -> char {
    line[i..].chars().next().unwrap_or('\0')
}
