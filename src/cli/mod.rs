//! The command line: one file per verb. Errors become `anyhow` here, at the
//! edge, and nowhere below.

use clap::{Parser, Subcommand};

pub mod budget;
pub mod completions;
pub mod config;
pub mod digest;
pub mod expand;
pub mod explain;
pub mod gain;
pub mod hook;
pub mod init;
pub mod pipe;
pub mod profiles;
pub mod rewrite;
pub mod run;
pub mod shims;
pub mod store;

/// Exit status for ctx's own failures (bad usage, unreadable input).
pub const EXIT_CTX_ERROR: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "ctx",
    version,
    about = "Digest command output for coding agents; archive the original for `ctx expand`."
)]
pub struct Cli {
    #[command(subcommand)]
    pub verb: Verb,
}

#[derive(Subcommand, Debug)]
pub enum Verb {
    /// Run a command and print a digest of its output; exit with its status.
    Run(run::Args),
    /// Digest standard input: `CMD | ctx pipe`.
    Pipe(pipe::Args),
    /// Digest saved logs, one digest per file (`-` is standard input).
    Digest(digest::Args),
    /// Bring back archived output, whole or zoomed.
    Expand(expand::Args),
    /// Inspect and maintain the archive.
    Store(store::Args),
    /// Tokens saved, per command and in total.
    Gain(gain::Args),
    /// List the profiles in the order they are tried.
    Profiles(profiles::Args),
    /// Show how an archived record was digested: profile, coverage, plan.
    Explain(explain::Args),
    /// Install, list or remove PATH shims (links named after commands).
    Shims(shims::Args),
    /// Print a shell line with the commands ctx knows run through `ctx run`.
    Rewrite(rewrite::Args),
    /// Print (or apply with --write) the setup that lets an agent use ctx.
    Init(init::Args),
    /// Print the effective configuration and where each value came from.
    Config(config::Args),
    /// Print a shell completion script: `ctx completions bash > …`.
    Completions(completions::Args),
    /// An agent's hook protocol: `ctx hook claude` (PreToolUse, JSON on stdin).
    Hook(hook::Args),
}

/// Parses argv and runs the verb; returns the process exit status.
pub fn main() -> i32 {
    crate::guard::install_panic_hook();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_CTX_ERROR } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let result = match cli.verb {
        Verb::Run(args) => run::execute(args),
        Verb::Pipe(args) => pipe::execute(args),
        Verb::Digest(args) => digest::execute(args),
        Verb::Expand(args) => expand::execute(args),
        Verb::Store(args) => store::execute(args),
        Verb::Gain(args) => gain::execute(args),
        Verb::Profiles(args) => profiles::execute(args),
        Verb::Explain(args) => explain::execute(args),
        Verb::Shims(args) => shims::execute(args),
        Verb::Rewrite(args) => rewrite::execute(args),
        Verb::Init(args) => init::execute(args),
        Verb::Hook(args) => hook::execute(args),
        Verb::Config(args) => config::execute(args),
        Verb::Completions(args) => completions::execute(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ctx: {}", bounded(&format!("{e:#}")));
            EXIT_CTX_ERROR
        }
    }
}

/// The most of one error message ctx prints.
const MESSAGE_CHARS: usize = 240;

/// `message`, cut in the middle when it is longer than a person reads: an
/// error that quotes what was typed (a 100 kB "hash", a pattern) must not
/// echo it back whole. The start (what was wrong) and the end (what to do)
/// are kept.
pub fn bounded(message: &str) -> std::borrow::Cow<'_, str> {
    let chars = message.chars().count();
    if chars <= MESSAGE_CHARS {
        return message.into();
    }
    let head: String = message.chars().take(MESSAGE_CHARS * 2 / 3).collect();
    let tail: String = message.chars().skip(chars - MESSAGE_CHARS / 3).collect();
    let cut = chars - MESSAGE_CHARS * 2 / 3 - MESSAGE_CHARS / 3;
    format!("{head}…[{cut} characters cut]…{tail}").into()
}

#[cfg(test)]
mod tests {
    use super::bounded;

    #[test]
    fn long_messages_are_cut_in_the_middle() {
        assert_eq!(bounded("short"), "short");
        let typed = "é".repeat(100_000);
        let long = format!("`{typed}` is not a record hash: give 6 to 64 hex digits");
        let shown = bounded(&long);
        assert!(shown.chars().count() < 300, "{}", shown.len());
        assert!(shown.starts_with("`éé"));
        assert!(shown.ends_with("give 6 to 64 hex digits"));
        assert!(shown.contains("characters cut"));
    }
}
