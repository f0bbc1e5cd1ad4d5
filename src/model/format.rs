//! The shapes a digest can be printed in (`--format`), and the options
//! that go with them. A leaf: the CLI reads it, `deliver` dispatches on
//! it, the renderers in `render::formats` produce each shape.
//!
//! A new shape is one variant here (with its `--format` word, derived by
//! clap from the variant's name) and one arm in `render::formats::render`.

use crate::ci::Ci;
use crate::workspace::Workspace;

/// How a digest is printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Format {
    /// The text digest, for agents and terminals.
    #[default]
    Text,
    /// The `ctx.digest/v1` JSON document (docs/formats.md).
    Json,
    /// Markdown for `$GITHUB_STEP_SUMMARY`, PR comments and chat.
    Markdown,
    /// SARIF 2.1.0, for diagnostics families: code scanning (docs/ci.md).
    Sarif,
    /// JUnit XML, for test runs: any CI's test report (docs/ci.md).
    Junit,
}

impl Format {
    /// The `--format` word.
    pub fn word(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Sarif => "sarif",
            Format::Junit => "junit",
        }
    }

    /// Reads a `--format` word exactly as clap would.
    pub fn from_word(word: &str) -> Option<Format> {
        <Format as clap::ValueEnum>::from_str(word, false).ok()
    }
}

/// The shape and its options, as one value the verbs hand to `deliver`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Formatting {
    pub format: Format,
    /// `--link-base URL`: markdown links each census file to
    /// `URL/<relative path>#L<line>`.
    pub link_base: Option<String>,
    /// Where the paths of SARIF, JUnit and annotations are relative to:
    /// the checkout's root and the directory the tool ran in.
    pub workspace: Workspace,
    /// The CI outputs beside the digest (`--annotate`, `--summary`).
    pub ci: Ci,
    /// `--keep-tail N` / `--keep-head N`: the lines `| tail -N` or
    /// `| head -N` would have printed, byte for byte, beside the digest.
    pub keep: Option<Keep>,
}

/// The end of the output `ctx run --keep-tail|--keep-head` prints exactly
/// as the agent's own `| tail -N` / `| head -N` would have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keep {
    pub end: End,
    /// N, as `tail -N` counts them: a last line without a newline is one.
    pub lines: usize,
    pub streams: KeptStreams,
}

/// Which end `Keep` keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Head,
    Tail,
}

/// What went through the agent's pipe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum KeptStreams {
    /// `CMD 2>&1 | tail`: both streams, in the order the command wrote them.
    #[default]
    Both,
    /// `CMD | tail`: stdout only; stderr went straight through, whole.
    Stdout,
}

impl Formatting {
    /// The text digest, as ctx prints it without `--format`.
    pub fn text() -> Formatting {
        Formatting::default()
    }

    /// True for the text digest, the one shape that re-run deltas and
    /// exec in place apply to.
    pub fn is_text(&self) -> bool {
        self.format == Format::Text
    }

    /// Whether the shape can carry the raw output whole (JSON and markdown
    /// embed it; a SARIF log or a JUnit report has no place for it), so
    /// that after a fault the output goes out in the shape or as itself.
    pub fn shape_holds_raw_output(&self) -> bool {
        matches!(self.format, Format::Json | Format::Markdown)
    }

    /// Whether the facts of output too small to digest are read too: every
    /// shape but text lists them, and the CI outputs are made from them.
    pub fn reads_small(&self) -> bool {
        !self.is_text() || self.ci.wants_facts()
    }
}

/// The shapes of ctx's own reports (`ctx gain`, `ctx config`, `ctx store
/// stats`), which have no markdown form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    #[default]
    Text,
    Json,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_back() {
        for f in [
            Format::Text,
            Format::Json,
            Format::Markdown,
            Format::Sarif,
            Format::Junit,
        ] {
            assert_eq!(Format::from_word(f.word()), Some(f));
        }
        assert_eq!(Format::from_word("JSON"), None);
        assert_eq!(Format::from_word("yaml"), None);
    }
}
