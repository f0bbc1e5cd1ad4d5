//! Compile errors and warnings: maven-compiler-plugin's `[ERROR]
//! /path/File.java:[L,C] message` and javac's own `File.java:L: error:
//! message` with its source line and caret.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{EvidenceItem, ItemKind, LABEL_FIELD, Location, Severity};
use crate::profiles::diagnostic::{clean_path, num};

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static pattern")
}

/// `/abs/src/main/java/App.java:[57,8] cannot find symbol`.
static MAVEN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(\S(?:.*?\S)?\.java):\[(\d+),(\d+)\] (.*)$"));
/// `src/App.java:12: error: cannot find symbol`.
static JAVAC: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(\S(?:.*?\S)?\.java):(\d+): (error|warning): (.*)$"));
/// javac's closing counts: `4 errors`, `1 warning`.
static JAVAC_COUNT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(\d+) (errors?|warnings?)$"));

/// One compile diagnostic as read.
pub struct Diag {
    severity: Severity,
    file: String,
    line: Option<u32>,
    column: Option<u32>,
    message: String,
    /// javac's `symbol:` line, what the message does not say.
    symbol: Option<String>,
    headline: usize,
    last: usize,
    /// Where javac's caret line is, once seen (its column is the error's).
    caret: Option<usize>,
    /// javac prints the source line after the header; Maven does not.
    javac: bool,
}

impl Diag {
    fn new(severity: Severity, file: &str, line: Option<u32>, column: Option<u32>, message: &str) -> Self {
        Diag {
            severity,
            file: clean_path(file),
            line,
            column,
            message: message.trim().to_string(),
            symbol: None,
            headline: 0,
            last: 0,
            caret: None,
            javac: false,
        }
    }

    pub fn at_line(mut self, n: usize) -> Self {
        self.headline = n;
        self.last = n;
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `file:line:col`, as the compiler API reports it.
    pub fn identity(&self) -> String {
        let mut id = self.file.clone();
        for n in [self.line, self.column].into_iter().flatten() {
            id.push_str(&format!(":{n}"));
        }
        id
    }

    /// Takes line `n` into the diagnostic when it continues it.
    pub fn take(&mut self, n: usize, lvl: Option<&str>, body: &str) -> bool {
        if self.javac {
            if lvl.is_some() || JAVAC.is_match(body) || JAVAC_COUNT.is_match(body) {
                return false;
            }
            // The source line, then the caret under the error's column.
            if self.caret.is_none() {
                if n == self.headline + 1 {
                    self.last = n;
                    return true;
                }
                if let Some(col) = caret_column(body) {
                    self.caret = Some(n);
                    self.column = Some(col);
                    self.last = n;
                    return true;
                }
            }
        } else if lvl.is_some_and(|l| l != "ERROR" && l != "WARNING") {
            return false;
        }
        if !continues(lvl, body) {
            return false;
        }
        if let Some(sym) = body.trim_start().strip_prefix("symbol:") {
            self.symbol.get_or_insert_with(|| sym.trim().to_string());
        }
        self.last = n;
        true
    }

    pub fn item(&self, artifact: &Artifact) -> EvidenceItem {
        let mut file = self.file.clone();
        if let Some(cwd) = &artifact.cwd {
            let prefix = format!("{}/", cwd.trim_end_matches('/'));
            if let Some(rel) = file.strip_prefix(&prefix) {
                file = rel.to_string();
            }
        }
        let mut id = file.clone();
        for n in [self.line, self.column].into_iter().flatten() {
            id.push_str(&format!(":{n}"));
        }
        let mut it = EvidenceItem::new(ItemKind::Diagnostic, self.severity, id);
        it.summary = Some(self.message.clone());
        it.location = Some(Location {
            file,
            line: self.line,
            column: self.column,
        });
        it.headline = Some(Span::line(self.headline));
        // The header, source and caret, and the `symbol:`/`required:` lines.
        let last = self.last.min(self.headline + 9);
        it.detail = vec![Span::new(self.headline, last)];
        it.block = Some(Span::new(self.headline, self.last));
        if let Some(sym) = &self.symbol {
            it.fields.insert(LABEL_FIELD.to_string(), sym.clone());
        }
        it
    }
}

/// An indented line under a diagnostic (`  symbol:   variable x`,
/// `  required: int,int`, javac's `where E is a type-variable:`), bare or
/// in Maven's second listing behind `[ERROR]`.
pub fn continues(lvl: Option<&str>, body: &str) -> bool {
    match lvl {
        None | Some("ERROR") | Some("WARNING") => body.starts_with("  ") && !body.trim().is_empty(),
        _ => false,
    }
}

/// The 1-based column of a caret line (`        ^`), as javac's compiler
/// API counts it: the characters before the caret, plus one.
fn caret_column(line: &str) -> Option<u32> {
    let trimmed = line.trim_end();
    if !trimmed.ends_with('^') || trimmed.trim_start() != "^" {
        return None;
    }
    u32::try_from(trimmed.chars().count()).ok()
}

pub fn maven_header(lvl: &str, body: &str) -> Option<Diag> {
    let severity = match lvl {
        "ERROR" => Severity::Error,
        "WARNING" | "WARN" => Severity::Warning,
        _ => return None,
    };
    if !body.contains(".java:[") {
        return None;
    }
    let c = MAVEN.captures(body)?;
    Some(Diag::new(severity, &c[1], num(c.get(2)), num(c.get(3)), &c[4]))
}

pub fn javac_header(text: &str) -> Option<Diag> {
    // A diff's added or removed line quotes a diagnostic; it is not one.
    if !text.contains(".java:") || text.starts_with(['+', '-', ' ']) {
        return None;
    }
    let c = JAVAC.captures(text)?;
    let severity = if &c[3] == "error" {
        Severity::Error
    } else {
        Severity::Warning
    };
    let mut d = Diag::new(severity, &c[1], num(c.get(2)), None, &c[4]);
    d.javac = true;
    Some(d)
}

/// javac's `4 errors` (Some(Some(4))) or `1 warning` (Some(None)).
pub fn javac_count(text: &str) -> Option<Option<u64>> {
    let c = JAVAC_COUNT.captures(text)?;
    let n: u64 = c[1].parse().ok()?;
    Some(c[2].starts_with("error").then_some(n))
}

/// maven-compiler-plugin's `[INFO] 6 errors ` under its COMPILATION ERROR
/// listing (trailing blank already trimmed).
pub fn maven_count(body: &str) -> Option<u64> {
    let c = JAVAC_COUNT.captures(body.trim_end())?;
    if !c[2].starts_with("error") {
        return None;
    }
    c[1].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maven_and_javac_headers() {
        let d = maven_header(
            "ERROR",
            "/w/calc/src/main/java/a/Calc.java:[16,13] cannot find symbol",
        )
        .unwrap();
        assert_eq!(d.identity(), "/w/calc/src/main/java/a/Calc.java:16:13");
        assert!(maven_header("INFO", "/w/A.java:[1,2] x").is_none());
        let d = javac_header("src/a/Main.java:11: error: incompatible types: int cannot be converted to String").unwrap();
        assert_eq!(d.identity(), "src/a/Main.java:11");
        assert!(javac_header("+src/a/Main.java:11: error: x").is_none());
        assert!(javac_header("see Main.java:11").is_none());
    }

    #[test]
    fn caret_gives_the_column() {
        assert_eq!(caret_column("                              ^"), Some(31));
        assert_eq!(caret_column("^"), Some(1));
        assert_eq!(caret_column("   x ^"), None);
    }

    #[test]
    fn counts() {
        assert_eq!(javac_count("4 errors"), Some(Some(4)));
        assert_eq!(javac_count("1 warning"), Some(None));
        assert_eq!(maven_count("6 errors "), Some(6));
        assert_eq!(maven_count("1 warning"), None);
    }
}
