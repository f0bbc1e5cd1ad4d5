//! `ctx run`'s argv read without clap, for the common shapes only.
//!
//! Building clap's command tree (every verb, every flag, every help text)
//! costs more instructions than everything else `ctx run` does on a small
//! output. `ctx run` is the hot path, so its usual argv is read here: the
//! seven flags in their `--flag VALUE` / `--flag=VALUE` forms, then `--` or
//! the first word that is not a flag, then the command. Anything else
//! (`--help`, a short flag, a repeated or unknown flag, a value clap would
//! refuse, no command) returns `None` and clap reads the argv as before,
//! with its own errors and help. For every argv this accepts, the result is
//! the one clap would give (`tests` below checks both side by side).

use std::ffi::{OsStr, OsString};

use super::format::FormatArgs;
use super::run::Args;
use crate::format::Format;

/// `args` without the program name: `["run", "--", "pytest", …]`.
pub fn parse(args: &[OsString]) -> Option<Args> {
    let (verb, rest) = args.split_first()?;
    if verb != "run" {
        return None;
    }
    let mut parsed = Args {
        digest: false,
        family: None,
        budget: None,
        label: None,
        no_delta: false,
        output: FormatArgs::default(),
        ci: super::ci::CiArgs::default(),
        keep: super::run::KeepArgs::default(),
        command: Vec::new(),
    };
    let mut format_seen = false;
    let mut i = 0;
    while i < rest.len() {
        let word = rest[i].to_str();
        match word {
            Some("--") => {
                i += 1;
                break;
            }
            Some("--digest") if !parsed.digest => parsed.digest = true,
            Some("--no-delta") if !parsed.no_delta => parsed.no_delta = true,
            Some(w) if w.starts_with('-') => {
                let (name, inline) = match w.split_once('=') {
                    Some((name, value)) => (name, Some(value)),
                    None => (w, None),
                };
                let value = match inline {
                    Some(value) if !value.is_empty() => value,
                    Some(_) => return None,
                    None => {
                        i += 1;
                        value_word(rest.get(i)?)?
                    }
                };
                match name {
                    "--as" if parsed.family.is_none() => parsed.family = Some(value.to_owned()),
                    "--label" if parsed.label.is_none() => parsed.label = Some(value.to_owned()),
                    "--budget" if parsed.budget.is_none() => {
                        parsed.budget = Some(plain_number(value)?);
                    }
                    // Only before the command: the command's own
                    // `--format` is one of its words, never read here.
                    "--format" if !format_seen => {
                        parsed.output.format = Format::from_word(value)?;
                        format_seen = true;
                    }
                    "--link-base" if parsed.output.link_base.is_none() => {
                        parsed.output.link_base = Some(value.to_owned());
                    }
                    _ => return None,
                }
            }
            // The first word that is not a flag starts the command
            // (clap's `trailing_var_arg`), also when it is not UTF-8.
            _ => break,
        }
        i += 1;
    }
    parsed.command = rest[i..].to_vec();
    if parsed.command.is_empty() {
        return None;
    }
    Some(parsed)
}

/// A flag's value as clap would take it: UTF-8, not empty, and not
/// looking like another flag (clap refuses those or reads them otherwise).
fn value_word(word: &OsStr) -> Option<&str> {
    word.to_str()
        .filter(|w| !w.is_empty() && !w.starts_with('-'))
}

/// Digits only: clap's `usize` parser accepts a leading `+`, which is left
/// to it.
fn plain_number(value: &str) -> Option<usize> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    value.parse().ok()
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Verb};

    fn os(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    fn by_clap(args: &[OsString]) -> Option<Args> {
        let argv = std::iter::once(OsString::from("ctx")).chain(args.iter().cloned());
        match Cli::try_parse_from(argv).ok()?.verb {
            Verb::Run(args) => Some(args),
            _ => None,
        }
    }

    fn same(a: &Args, b: &Args) -> bool {
        (
            a.digest, a.no_delta, &a.family, a.budget, &a.label, &a.output, &a.ci, &a.keep,
            &a.command,
        ) == (
            b.digest, b.no_delta, &b.family, b.budget, &b.label, &b.output, &b.ci, &b.keep,
            &b.command,
        )
    }

    /// The argv shapes agents and hooks write, read without clap.
    #[test]
    fn usual_run_argv_is_read_without_clap() {
        for words in [
            &["run", "--", "true"][..],
            &["run", "--", "echo", "hi"],
            &["run", "pytest", "-q", "--", "-x"],
            &["run", "--digest", "--", "cargo", "test"],
            &["run", "--no-delta", "--digest", "--", "pytest"],
            &["run", "--as", "pytest", "--budget", "300", "--", "make"],
            &[
                "run",
                "--as=pytest",
                "--budget=300",
                "--label=ci",
                "make",
                "-k",
            ],
            &["run", "--label", "unit tests", "--", "--weird-name"],
            &["run", "--", "--"],
            &["run", "--format", "json", "--", "pytest"],
            &[
                "run",
                "--format=markdown",
                "--link-base",
                "https://x/y",
                "make",
            ],
            &["run", "--format", "json", "--", "cargo", "--format", "text"],
            &["run", "--", "tool", "--format", "json"],
            &["run", "tool", "--format=markdown"],
        ] {
            let args = os(words);
            let fast = parse(&args).unwrap_or_else(|| panic!("not read: {words:?}"));
            let clap = by_clap(&args).unwrap_or_else(|| panic!("clap refused: {words:?}"));
            assert!(same(&fast, &clap), "{words:?}: {fast:?} vs {clap:?}");
        }
    }

    /// Everything unusual goes to clap, which owns help and errors.
    #[test]
    fn unusual_argv_is_left_to_clap() {
        for words in [
            &["run"][..],
            &["run", "--"],
            &["run", "--help"],
            &["run", "-h"],
            &["run", "--digest", "--digest", "--", "x"],
            &["run", "--no-delta", "--no-delta", "--", "x"],
            &["run", "--budget", "lots", "--", "x"],
            &["run", "--budget", "+5", "--", "x"],
            &["run", "--budget", "-5", "--", "x"],
            &["run", "--as", "--", "x"],
            &["run", "--as", "a", "--as", "b", "--", "x"],
            &["run", "--nope", "--", "x"],
            &["run", "--as=", "--", "x"],
            &["run", "--format", "yaml", "--", "x"],
            &["run", "--format", "json", "--format", "text", "--", "x"],
            &["run", "--format=", "--", "x"],
            &["pipe"],
            &["expand", "abc123"],
            &["--version"],
            &[],
        ] {
            let args = os(words);
            assert!(parse(&args).is_none(), "read without clap: {words:?}");
        }
    }

    /// `--format` before the command is ctx's; after it, the command's.
    #[test]
    fn format_is_read_only_before_the_command() {
        let args = os(&["run", "--format", "json", "--", "tool", "--format", "text"]);
        let fast = parse(&args).expect("read");
        assert_eq!(fast.output.format, Format::Json);
        assert_eq!(fast.command, os(&["tool", "--format", "text"]));
        let args = os(&["run", "tool", "--format", "json"]);
        let fast = parse(&args).expect("read");
        assert_eq!(fast.output.format, Format::Text);
        assert_eq!(fast.command, os(&["tool", "--format", "json"]));
    }

    /// A command that is not UTF-8 starts the command like any other word.
    #[test]
    fn non_utf8_command_is_kept_as_given() {
        use std::os::unix::ffi::OsStringExt;
        let odd = OsString::from_vec(vec![b'x', 0xff]);
        let args = vec![OsString::from("run"), odd.clone(), OsString::from("-v")];
        let fast = parse(&args).expect("read");
        let clap = by_clap(&args).expect("clap");
        assert!(same(&fast, &clap));
        assert_eq!(fast.command, vec![odd, OsString::from("-v")]);
    }
}
