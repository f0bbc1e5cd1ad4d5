//! What a profile declares rather than codes: its version and family, the
//! commands it serves, and the words and pattern its output is sniffed by.
//! Classification, `ctx profiles`, the shims, the receipts and the
//! consistency tests all read these declarations.

use super::Pattern;

/// Where a family's receipts are reported (docs/receipts/).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiptGroup {
    /// Test runners: docs/receipts/test-runners.md.
    TestRunner,
    /// Compilers, type checkers and linters: docs/receipts/diagnostics.md.
    Diagnostics,
    /// Everyday commands (diffs, searches, …): docs/receipts/everyday.md.
    Everyday,
    /// Data sets (JSON, tables) and logs: docs/receipts/data-logs.md.
    Data,
    /// The universal fallback: no receipts of its own.
    Fallback,
}

impl ReceiptGroup {
    /// The receipts page, without `.md`; `None` for the fallback.
    pub fn receipts_page(self) -> Option<&'static str> {
        match self {
            ReceiptGroup::TestRunner => Some("test-runners"),
            ReceiptGroup::Diagnostics => Some("diagnostics"),
            ReceiptGroup::Everyday => Some("everyday"),
            ReceiptGroup::Data => Some("data-logs"),
            ReceiptGroup::Fallback => None,
        }
    }
}

/// One profile's declaration. The family name is also the name of its
/// contract (`contracts/<family>.toml`), its docs page
/// (`docs/profiles/<family>.md`) and its fixtures folder
/// (`fixtures/<family>/`); `tests/registry.rs` checks all of them exist.
#[derive(Debug)]
pub struct ProfileSpec {
    /// `<family>/vN`.
    pub version: &'static str,
    /// The family: `version` before the slash.
    pub family: &'static str,
    /// The receipts page the family reports on.
    pub group: ReceiptGroup,
    /// The commands served, as typed: a program, then the subcommand words
    /// that must follow it (`cargo test`). Listed by `ctx profiles`, linked
    /// by `ctx shims install`, and matched by the default
    /// [`ProfileSpec::by_command`].
    pub commands: &'static [&'static str],
    /// Literal words the sniff pattern cannot match without: a head that
    /// holds none of them is turned away before the pattern is compiled.
    pub sniff_words: &'static [&'static str],
    /// The pattern a head of this family's output matches.
    pub sniff: Option<&'static Pattern>,
    /// What the sniff pattern recognises, for `ctx explain`.
    pub sniff_reason: &'static str,
    /// Literal words every decisive line of the family holds
    /// ([`super::Profile::decisive_words`]).
    pub decisive_words: &'static [&'static str],
}

impl ProfileSpec {
    /// A spec with nothing declared but its identity, to fill in with
    /// struct update syntax.
    pub const fn new(version: &'static str, family: &'static str, group: ReceiptGroup) -> Self {
        ProfileSpec {
            version,
            family,
            group,
            commands: &[],
            sniff_words: &[],
            sniff: None,
            sniff_reason: "",
            decisive_words: &[],
        }
    }

    /// `command <entry>` when the command words (wrappers and launchers
    /// looked through) are one of [`ProfileSpec::commands`]: the program,
    /// then each subcommand word as the next word that is not an option or
    /// a `+toolchain` (`cargo +nightly --locked test`).
    pub fn by_command(&self, argv: &[String]) -> Option<String> {
        let words = crate::command::command_words(argv);
        let (first, rest) = words.split_first()?;
        self.commands
            .iter()
            .find(|entry| {
                let mut want = entry.split(' ');
                let mut subs = rest
                    .iter()
                    .filter(|w| !w.starts_with('-') && !w.starts_with('+'));
                want.next() == Some(*first) && want.all(|w| subs.next() == Some(&w))
            })
            .map(|entry| entry.to_string())
    }

    /// [`ProfileSpec::sniff_reason`] when `head` holds a sniff word and
    /// matches the sniff pattern.
    pub fn by_content(&self, head: &str) -> Option<String> {
        let sniff = self.sniff?;
        (super::mentions_any(head, self.sniff_words) && sniff.is_match(head))
            .then(|| self.sniff_reason.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    static SPEC: ProfileSpec = ProfileSpec {
        commands: &["cargo test", "cargo nextest run", "pytest"],
        ..ProfileSpec::new("x/v1", "x", ReceiptGroup::TestRunner)
    };

    #[test]
    fn commands_match_program_then_subcommands() {
        let hit = |s: &str| SPEC.by_command(&argv(s));
        assert_eq!(hit("cargo test").as_deref(), Some("cargo test"));
        assert_eq!(
            hit("cargo +nightly --locked test -q").as_deref(),
            Some("cargo test")
        );
        assert_eq!(
            hit("timeout 60 cargo nextest run").as_deref(),
            Some("cargo nextest run")
        );
        assert_eq!(hit("uv run pytest -x").as_deref(), Some("pytest"));
        assert_eq!(hit("cargo build"), None);
        assert_eq!(hit("cargo nextest list"), None);
        assert_eq!(hit("pytestx"), None);
    }
}
