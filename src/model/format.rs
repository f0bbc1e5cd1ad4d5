//! The shapes a digest can be printed in (`--format`), and the options
//! that go with them. A leaf: the CLI reads it, `deliver` dispatches on
//! it, the renderers in `render::formats` produce each shape.
//!
//! A new shape is one variant here (with its `--format` word, derived by
//! clap from the variant's name) and one arm in `render::formats::render`.

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
}

impl Format {
    /// The `--format` word.
    pub fn word(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Markdown => "markdown",
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
        for f in [Format::Text, Format::Json, Format::Markdown] {
            assert_eq!(Format::from_word(f.word()), Some(f));
        }
        assert_eq!(Format::from_word("JSON"), None);
        assert_eq!(Format::from_word("yaml"), None);
    }
}
