//! The ordered profile registry. Classification tries every profile's
//! command table first, then content sniffing, in this order; the first
//! match wins and `text/v1` is last. A family-specific profile goes before
//! any more generic shape it could be mistaken for.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph};

pub mod coverage;
pub mod decisive;
pub(crate) mod diagnostic;
pub(crate) mod escaped;
pub(crate) mod git_command;
pub(crate) mod git_report;
pub(crate) mod jestlike;
#[cfg(test)]
mod linearity;
pub mod sniff;
pub mod spec;
pub mod testrun;

pub use spec::{ProfileSpec, ReceiptGroup};

/// Declares every family module and the classification order, one line
/// per profile: `module: Type`. A new family adds its own files (profile,
/// `contracts/<family>.toml`, `docs/profiles/<family>.md`,
/// `fixtures/<family>/`) and one line here; `tests/registry.rs` checks the
/// names agree.
macro_rules! registry {
    ($($(#[$why:meta])* $module:ident: $profile:ident,)+) => {
        $(pub mod $module;)+

        /// Every profile, in the order classification tries them; text/v1 last.
        pub fn registry() -> &'static [&'static dyn Profile] {
            &[$(&$module::$profile,)+]
        }
    };
}

registry! {
    // First: a diff quotes any text, and other families' shapes with it.
    git_diff: GitDiff,
    // git's own listings, by their subcommand only.
    git_log: GitLog,
    git_status: GitStatus,
    git_merge: GitMerge,
    git_sync: GitSync,
    git_refs: GitRefs,
    git_blame: GitBlame,
    // A CI job log holds every other family's output, each line behind a
    // timestamp or inside a GitLab section: before the logs (its lines
    // are timestamped) and before the families its steps run.
    ci_log: CiLog,
    // Before the logs: every Maven line opens with a level word in
    // brackets (`[INFO]`, `[ERROR]`), and a build's head is unmistakably
    // Maven's (`Scanning for projects...`, Surefire's `T E S T S`); before
    // gcc, whose located-diagnostic shape a javac line also has.
    maven: Maven,
    // Before the test and build families: a log quotes their lines (a
    // traceback, a panic), but its head is unmistakably a log's.
    log: Log,
    // Before the other test runners: TAP's own lines (`TAP version 13`,
    // runs of `ok N`/`not ok N`, prove's `Files=N, Tests=M`) are no other
    // family's, and a TAP run's output quotes theirs (a test's stderr).
    tap: Tap,
    // Before the other test runners: GoogleTest's bracketed status lines
    // and CTest's result lines are no other family's, and a CTest run
    // prints any test's output under its result.
    gtest: Gtest,
    pytest: Pytest,
    unittest: Unittest,
    rspec: Rspec,
    minitest: Minitest,
    phpunit: Phpunit,
    cargo_test: CargoTest,
    go_test: GoTest,
    mocha: Mocha,
    jest: Jest,
    vitest: Vitest,
    junit: Junit,
    cargo_build: CargoBuild,
    tsc: Tsc,
    gcc: Gcc,
    shellcheck: Shellcheck,
    go_vet: GoVet,
    eslint: Eslint,
    // Before ruff: `ruff format --check` quotes a syntax error in ruff's
    // own full format among its would-reformat blocks.
    format_check: FormatCheck,
    pylint: Pylint,
    mypy: Mypy,
    ruff: Ruff,
    pyright: Pyright,
    search: Search,
    listing: ListingProfile,
    install: Install,
    // Data sets: after every family whose output could open like one.
    json: Json,
    table: Table,
    // Last: the universal fallback.
    text: Text,
}

/// How a profile came to be chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchedBy {
    /// `--as FAMILY`.
    Forced,
    /// The command table (argv).
    Command,
    /// Content: the head of the output or of either stream, or a
    /// decisive line of the family anywhere in the output.
    Content,
    /// Nothing else matched: the universal fallback.
    Fallback,
}

/// Why a profile was chosen, for `ctx explain`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Match {
    pub by: MatchedBy,
    pub reason: String,
}

/// One output family: recognises its artifacts and extracts typed facts.
/// What a profile is and how it is recognised is declared in its
/// [`ProfileSpec`]; a profile writes code only where the declaration cannot
/// say it (a subcommand rule, a multi-line banner, a decisive line).
pub trait Profile: Sync {
    /// The declaration: version, family, commands, sniffing.
    fn spec(&self) -> &'static ProfileSpec;

    /// `<family>/vN`.
    fn version(&self) -> &'static str {
        self.spec().version
    }

    /// The family name: the part of `version()` before the slash.
    fn family(&self) -> &'static str {
        self.spec().family
    }

    /// The command names this profile serves, for `ctx profiles` and shims.
    fn commands(&self) -> &'static [&'static str] {
        self.spec().commands
    }

    /// A reason when argv names a command of this family. By default: the
    /// command words ([`crate::command::command_words`]) start with one of
    /// the spec's commands ([`ProfileSpec::by_command`]).
    fn by_command(&self, argv: &[String]) -> Option<String> {
        self.spec().by_command(argv)
    }

    /// A reason when a head (the first KiB of the output or of one stream,
    /// normalized) looks like this family. By default: the head holds one
    /// of the spec's sniff words and its sniff pattern matches.
    fn by_content(&self, head: &str) -> Option<String> {
        self.spec().by_content(head)
    }

    /// Literal words every decisive line of this family contains. The
    /// whole-output scan looks for all profiles' words in one pass and asks
    /// `decisive_line` only about lines holding one, so a family whose
    /// words never occur costs nothing, not even its patterns' compilation.
    /// Empty: the family is recognised by its head alone.
    fn decisive_words(&self) -> &'static [&'static str] {
        self.spec().decisive_words
    }

    /// A reason when one normalized line, found anywhere in the output, is
    /// a fact only this family prints and that decides what the output is
    /// (a located compiler diagnostic, a test verdict, a test summary):
    /// such a line claims the output however late it comes.
    fn decisive_line(&self, _line: &str) -> Option<String> {
        None
    }

    /// The artifact as the digest shows it, when it differs from the
    /// captured one by a prefix on each line only (a CI log's timestamps):
    /// the same lines in the same numbering, so every `--lines` address
    /// holds for the archived original, which keeps the prefixes. The plan,
    /// the renderer and the guard read the view; extraction reads the
    /// original. None: the captured artifact is shown as it is.
    fn view(&self, _artifact: &Artifact) -> Option<Artifact> {
        None
    }

    /// Typed facts and the attestation of what was understood.
    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt);
}

/// The decisive-line rule of a family whose sniffing pattern is
/// line-shaped (a located diagnostic): one matching line decides, unless a
/// diff marks it as a line added or removed, and it holds one of the
/// family's decisive words, as the whole-output scan assumes.
pub(crate) fn line_shaped(profile: &dyn Profile, line: &str) -> Option<String> {
    let spec = profile.spec();
    let sniff = spec.sniff?;
    if line.starts_with(['+', '-']) || !sniff.is_match(line) {
        return None;
    }
    if !mentions_any(line, profile.decisive_words()) {
        return None;
    }
    profile.by_content(line)
}

/// A sniffing pattern, compiled on first use.
pub type Pattern = LazyLock<Regex>;

/// The longest prefix of a line an extractor's patterns look at. A line
/// longer than this (a minified bundle, a base64 blob, a report written on
/// one line) is matched on its first 64 KiB only: regex engines that
/// capture run at tens of MB/s, so a 50 MB line took seconds. The archive
/// and the renderer keep the whole line; JSON is parsed from the whole
/// line, never from the window.
pub const LINE_WINDOW: usize = 64 << 10;

/// How much of the output, and of each stream, head sniffing looks at
/// (`classify`; a profile that sniffs knows where its head was cut).
pub const SNIFF_BYTES: usize = 1024;

/// The first [`LINE_WINDOW`] bytes of `raw`, cut at a character boundary.
pub(crate) fn window(raw: &[u8]) -> &[u8] {
    if raw.len() <= LINE_WINDOW {
        return raw;
    }
    let mut end = LINE_WINDOW;
    // Back off to the start of a UTF-8 sequence (at most three bytes).
    while end > LINE_WINDOW - 3 && raw[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    &raw[..end]
}

/// What an extractor matches on: line `n`'s visible text, from at most
/// its first [`LINE_WINDOW`] bytes.
pub(crate) fn visible(artifact: &Artifact, n: usize) -> std::borrow::Cow<'_, str> {
    crate::normalize::line(window(artifact.line(n)))
}

/// Whether the sniffed head contains any of `needles`: the literal words a
/// profile's sniffing pattern cannot match without. `by_content` asks this
/// first, so output that mentions none of them (most output) is turned away
/// without compiling, let alone running, the pattern.
pub(crate) fn mentions_any(head: &str, needles: &[&str]) -> bool {
    needles
        .iter()
        .any(|n| memchr::memmem::find(head.as_bytes(), n.as_bytes()).is_some())
}

/// The profile of a family (`--as`), by family name or full version.
pub fn by_family(name: &str) -> Option<&'static dyn Profile> {
    registry()
        .iter()
        .copied()
        .find(|p| p.family() == name || p.version() == name)
}
