//! Redirections: which descriptor each one touches (stdout counts as
//! redirected for `>f`, `1<>f`, `1<&3`, `>&f`, `&>f`), and the operators
//! bash refuses (`>>&`, `<>&`, a missing target).

use super::{Lexer, Opaque, Syntax, Unattestable};

impl Lexer<'_> {
    /// A redirection may not stand where its own target was due.
    pub(super) fn redirect_start(&mut self) -> Result<(), Unattestable> {
        if self.pending_target {
            return Err(Syntax("redirection without a target"));
        }
        Ok(())
    }

    /// Reads one redirection operator at `i` (after its fd, if the word
    /// before it is one).
    pub(super) fn redirection(&mut self) -> Result<(), Unattestable> {
        // A word of digits, or `{name}`, right before the operator is its
        // descriptor.
        let fd = match self.word.take() {
            Some(w)
                if self.line[w.start..self.i]
                    .bytes()
                    .all(|b| b.is_ascii_digit()) =>
            {
                Some(w.value.parse::<u32>().unwrap_or(u32::MAX))
            }
            Some(w) if is_fd_variable(&self.line[w.start..self.i]) => Some(u32::MAX),
            other => {
                self.word = other;
                self.end_word();
                None
            }
        };
        self.redirect_start()?;
        let out = self.bytes[self.i] == b'>';
        self.i += 1;
        if self.peek(0) == Some(b'(') {
            return Err(Opaque("process substitution"));
        }
        let default_fd = if out { 1 } else { 0 };
        let mut both = false;
        if !out && self.peek(0) == Some(b'<') {
            if self.peek(1) == Some(b'<') {
                self.i += 2; // here-string: stdin only
                self.pending_target = true;
                self.mark(fd.unwrap_or(0), false);
                return Ok(());
            }
            return Err(Opaque("heredoc"));
        }
        let appends = out && self.peek(0) == Some(b'>');
        if appends || (out && self.peek(0) == Some(b'|')) || (!out && self.peek(0) == Some(b'>')) {
            // `>>`, `>|`, `<>`.
            self.i += 1;
        }
        if self.peek(0) == Some(b'&') {
            if self.bytes[self.i - 1] != b'>' && self.bytes[self.i - 1] != b'<'
                || appends
                || (!out && self.bytes[self.i - 1] == b'>')
            {
                return Err(Syntax("`&` after `>>`, `>|` or `<>`"));
            }
            // `>&2`, `2>&1`, `>&-`, `<&3`: a copy of another descriptor;
            // `>&file` (no fd) is `&>file`.
            self.i += 1;
            let digits = self.i;
            while self
                .peek(0)
                .is_some_and(|b| b.is_ascii_digit() || b == b'-')
            {
                self.i += 1;
            }
            let dup = self.i > digits
                && self.peek(0).is_none_or(|b| {
                    matches!(b, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>')
                });
            if dup && out && fd == Some(2) && &self.line[digits..self.i] == "1" {
                self.stage().stderr_to_stdout = true;
            }
            if !dup {
                self.i = digits;
                if out && fd.is_none() {
                    both = true;
                }
                self.pending_target = true;
            }
        } else {
            self.pending_target = true;
        }
        let fd = fd.unwrap_or(default_fd);
        self.mark(fd, both);
        Ok(())
    }

    pub(super) fn mark(&mut self, fd: u32, both: bool) {
        let stage = self.stage();
        stage.redirected = true;
        if fd == 1 || both {
            stage.stdout_redirected = true;
        }
    }
}

/// `{name}` before a redirection: bash allocates a descriptor.
fn is_fd_variable(text: &str) -> bool {
    text.strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .is_some_and(|name| {
            let mut chars = name.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}
