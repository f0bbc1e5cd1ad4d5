//! `--format` and `--link-base`, shared by every verb that prints a
//! digest (`run`, `pipe`, `digest`, `explain`) and by `expand --items`.

use crate::format::{Format, Formatting};

/// The digest's shape on the command line.
#[derive(clap::Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct FormatArgs {
    /// How to print the digest: `text`, `json` (the `ctx.digest/v1`
    /// document) or `markdown` (docs/formats.md).
    #[arg(long, value_enum, default_value_t = Format::Text, value_name = "FORMAT")]
    pub format: Format,
    /// With --format markdown: link each file to URL/<path>#L<line>
    /// (e.g. a repository's blob URL at a commit).
    #[arg(long, value_name = "URL")]
    pub link_base: Option<String>,
}

impl FormatArgs {
    pub fn formatting(&self) -> Formatting {
        Formatting {
            format: self.format,
            link_base: self.link_base.clone(),
        }
    }
}
