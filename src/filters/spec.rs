//! The filter file format (`filters/*.toml`, schema `ctx.filter/v1`): the
//! typed form of one file and the checks a file must pass to load. A file
//! that fails any check is rejected whole (never half-loaded); the reason
//! names the file and the key.

use std::collections::BTreeSet;

use regex::Regex;
use serde::Deserialize;

/// The only schema this build understands.
pub const SCHEMA: &str = "ctx.filter/v1";

/// Why a filter file was rejected.
#[derive(Debug, thiserror::Error)]
#[error("filter {file}: {why}")]
pub struct SpecError {
    pub file: String,
    pub why: String,
}

/// One filter file, as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub schema: String,
    /// The filter's name: the file name without `.toml`.
    pub name: String,
    /// Bumped when the filter's output changes: `<name>/filter-v<N>`.
    pub version: u32,
    #[serde(default)]
    pub description: String,
    /// Which command lines the filter reads.
    #[serde(rename = "match")]
    pub matcher: Matcher,
    /// ANSI and other control sequences are always removed from a digest;
    /// `false` is refused rather than silently ignored.
    #[serde(default = "yes")]
    pub strip_ansi: bool,
    /// Rewrites applied to every line, whichever stream it came from.
    #[serde(default)]
    pub replace: Vec<Replace>,
    /// Lines matching any of these leave the digest.
    #[serde(default)]
    pub strip: Vec<String>,
    /// When non-empty, only lines matching one of these stay.
    #[serde(default)]
    pub keep: Vec<String>,
    /// Rules only for stdout lines (after the common ones).
    #[serde(default)]
    pub stdout: LineRules,
    /// Rules only for stderr lines (after the common ones).
    #[serde(default)]
    pub stderr: LineRules,
    /// Runs of identical kept lines become one line and a marker.
    #[serde(default = "yes")]
    pub collapse_repeats: bool,
    /// Lines kept from the start of what survives the line rules.
    pub head: Option<usize>,
    /// Lines kept from the end. Defaults to `max_lines - head`.
    pub tail: Option<usize>,
    /// Above this many surviving lines, only head and tail are kept.
    pub max_lines: Option<usize>,
    /// The `[ctx]` line printed when no line survives.
    pub on_empty: Option<String>,
    /// Whole-output short-circuits, tried in order on a successful run.
    #[serde(default)]
    pub match_output: Vec<Shortcut>,
    /// Inline tests (`ctx filters verify`).
    #[serde(default, rename = "test")]
    pub tests: Vec<Case>,
}

fn yes() -> bool {
    true
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Matcher {
    /// A regex matched at the start of the command line (argv[0]'s base
    /// name, then the arguments, joined by single spaces).
    pub command: String,
    /// The commands, among those `command` matches, that `ctx rewrite`,
    /// the agent hook and the shims send through ctx (anchored the same
    /// way): builds, checks and deploys that end by themselves. A command
    /// whose output is data the agent will use, that waits for a person or
    /// runs until stopped is left out. None: the filter reads output piped
    /// or run through ctx, and nothing is rewritten for it.
    #[serde(default)]
    pub rewrite: Option<String>,
}

/// Line rules: rewrite, then drop or keep.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineRules {
    #[serde(default)]
    pub replace: Vec<Replace>,
    /// Lines matching any of these leave the digest.
    #[serde(default)]
    pub strip: Vec<String>,
    /// When non-empty, only lines matching one of these stay.
    #[serde(default)]
    pub keep: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replace {
    pub pattern: String,
    /// The replacement (`$1`, `${name}` refer to groups).
    pub with: String,
}

/// A short-circuit: when the whole output matches `pattern` and nothing in
/// it matches `unless`, the digest is the one `[ctx]` line `message`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shortcut {
    pub pattern: String,
    /// Required: what in the output means the summary would hide something.
    pub unless: Option<String>,
    pub message: String,
}

/// One inline test: captured output in, the filter's lines out.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    /// The command line the output came from (must match the filter).
    pub command: String,
    #[serde(default)]
    pub exit: i32,
    /// What the command wrote to stdout.
    #[serde(default)]
    pub input: String,
    /// What it wrote to stderr (after stdout).
    #[serde(default)]
    pub stderr: String,
    /// The filter's output, archive key written as `H`.
    pub expected: String,
}

impl Spec {
    /// Parses and validates one filter file (`file` is its name).
    /// Every pattern is compiled once here, so a broken one rejects the
    /// file at load rather than at its first use.
    pub fn parse(file: &str, text: &str) -> Result<Spec, SpecError> {
        let invalid = |why: String| SpecError {
            file: file.to_string(),
            why,
        };
        let spec: Spec = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        spec.validate(file, true).map_err(invalid)?;
        Ok(spec)
    }

    /// `parse` without compiling the line patterns: for the built-ins,
    /// whose patterns the test suite compiles, on the hot path.
    pub fn parse_unchecked(file: &str, text: &str) -> Result<Spec, SpecError> {
        let invalid = |why: String| SpecError {
            file: file.to_string(),
            why,
        };
        let spec: Spec = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        spec.validate(file, false).map_err(invalid)?;
        Ok(spec)
    }

    fn validate(&self, file: &str, patterns: bool) -> Result<(), String> {
        if self.schema != SCHEMA {
            return Err(format!("schema must be {SCHEMA:?}, not {:?}", self.schema));
        }
        let stem = file
            .rsplit('/')
            .next()
            .unwrap_or(file)
            .trim_end_matches(".toml");
        if self.name != stem {
            return Err(format!("name {:?} does not match the file name", self.name));
        }
        if self.name.is_empty()
            || !self
                .name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        {
            return Err(format!(
                "name {:?}: lower-case letters, digits, - and _ only",
                self.name
            ));
        }
        if self.version == 0 {
            return Err("version starts at 1".into());
        }
        if !self.strip_ansi {
            return Err("strip_ansi = false: a digest never carries escape sequences".into());
        }
        if self.matcher.command.trim().is_empty() {
            return Err("[match] command is empty".into());
        }
        compile(&anchored(&self.matcher.command)).map_err(|e| format!("[match] command: {e}"))?;
        if let Some(rewrite) = &self.matcher.rewrite {
            compile(&anchored(rewrite)).map_err(|e| format!("[match] rewrite: {e}"))?;
        }
        if patterns {
            self.validate_patterns()?;
        }
        self.validate_shape()
    }

    fn validate_patterns(&self) -> Result<(), String> {
        let common = self.common();
        for (table, rules) in [
            ("", &common),
            ("stdout.", &self.stdout),
            ("stderr.", &self.stderr),
        ] {
            for r in &rules.replace {
                compile(&r.pattern).map_err(|e| format!("{table}replace {:?}: {e}", r.pattern))?;
            }
            for p in rules.strip.iter().chain(&rules.keep) {
                compile(p).map_err(|e| format!("{table}strip/keep {p:?}: {e}"))?;
            }
        }
        for s in &self.match_output {
            compile(&s.pattern).map_err(|e| format!("match_output {:?}: {e}", s.pattern))?;
            if let Some(unless) = &s.unless {
                compile(unless).map_err(|e| format!("match_output unless {unless:?}: {e}"))?;
            }
        }
        Ok(())
    }

    fn validate_shape(&self) -> Result<(), String> {
        if let (Some(max), Some(head)) = (self.max_lines, self.head)
            && head > max
        {
            return Err(format!("head ({head}) is more than max_lines ({max})"));
        }
        if let (Some(max), Some(head), Some(tail)) = (self.max_lines, self.head, self.tail)
            && head + tail > max
        {
            return Err(format!(
                "head + tail ({}) is more than max_lines ({max})",
                head + tail
            ));
        }
        if self.max_lines == Some(0) {
            return Err("max_lines = 0 would print nothing".into());
        }
        for s in &self.match_output {
            if s.unless.as_deref().is_none_or(|u| u.trim().is_empty()) {
                return Err(format!(
                    "match_output {:?} has no `unless` pattern: a short-circuit must say which output it must never hide",
                    s.pattern
                ));
            }
            if s.message.trim().is_empty() || s.message.contains('\n') {
                return Err(format!(
                    "match_output {:?}: message must be one line",
                    s.pattern
                ));
            }
        }
        if let Some(m) = &self.on_empty
            && (m.trim().is_empty() || m.contains('\n'))
        {
            return Err("on_empty must be one line".into());
        }
        let mut names = BTreeSet::new();
        for case in &self.tests {
            if !names.insert(case.name.as_str()) {
                return Err(format!("two tests are named {:?}", case.name));
            }
        }
        Ok(())
    }

    /// The rules for every line, as one set.
    pub fn common(&self) -> LineRules {
        LineRules {
            replace: self.replace.clone(),
            strip: self.strip.clone(),
            keep: self.keep.clone(),
        }
    }

    /// `<name>/filter-v<N>`: what `ctx profiles`, headers and the ledger show.
    pub fn version_label(&self) -> String {
        format!("{}/filter-v{}", self.name, self.version)
    }
}

/// The command pattern as matched: anchored at the start of the line.
pub fn anchored(pattern: &str) -> String {
    format!("^(?:{pattern})")
}

/// Compiles one pattern with a size limit, so a hostile or careless file
/// cannot make ctx build a huge automaton.
pub fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
}
