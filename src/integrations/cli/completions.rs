//! `ctx completions SHELL`: the shell's completion script for ctx, on
//! stdout, generated from the same clap definition the parser uses.
//!
//! Some arguments take words the parser checks itself rather than through
//! clap (an agent's name, a family, a `ctx read` mode, a `ctx gain
//! --since` day), so that a typo gets ctx's own error with the nearest
//! names. For the script only, those arguments are given their words as
//! possible values: the parser that runs commands never sees this tree.

use clap::builder::PossibleValuesParser;

/// Arguments of `ctx completions`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    let mut cmd = with_words(super::command(false));
    let mut out = std::io::stdout();
    clap_complete::generate(args.shell, &mut cmd, "ctx", &mut out);
    if args.shell == clap_complete::Shell::Fish {
        // clap's fish script completes options' values but no positional
        // argument's: the agent after `ctx init` is added here.
        let names = crate::agents::NAMES.join(" ");
        println!(
            "complete -c ctx -n \"__fish_ctx_using_subcommand init; and not __fish_seen_subcommand_from {names}\" -f -a \"{names}\""
        );
    }
    Ok(0)
}

/// `ctx read --mode` words; the ones ending in `:` take a value after it.
pub const READ_MODES: &[&str] = &[
    "auto",
    "full",
    "outline",
    "signatures",
    "lines:",
    "symbol:",
    "section:",
];

/// The command tree with the checked-by-ctx arguments' words attached.
pub fn with_words(cmd: clap::Command) -> clap::Command {
    let families: Vec<&'static str> = crate::profiles::registry()
        .iter()
        .map(|p| p.family())
        .collect();
    let agents = crate::agents::NAMES.to_vec();
    let cmd = cmd.mut_subcommand("init", |sub| {
        sub.mut_arg("agent", |a| {
            a.value_parser(PossibleValuesParser::new(agents))
        })
    });
    // `--since` also takes durations and dates: the script offers the
    // words, and any other value typed is still passed on.
    let days: Vec<&'static str> = ["today", "yesterday"]
        .into_iter()
        .chain(super::gain::WEEKDAYS)
        .collect();
    let cmd = cmd.mut_subcommand("gain", |sub| {
        sub.mut_arg("since", |a| a.value_parser(PossibleValuesParser::new(days)))
    });
    let cmd = cmd.mut_subcommand("read", |sub| {
        sub.mut_arg("mode", |a| {
            a.value_parser(PossibleValuesParser::new(READ_MODES))
        })
    });
    ["run", "pipe", "digest"].iter().fold(cmd, |cmd, verb| {
        let families = families.clone();
        cmd.mut_subcommand(verb, |sub| {
            sub.mut_arg("family", |a| {
                a.value_parser(PossibleValuesParser::new(families))
            })
        })
    })
}
