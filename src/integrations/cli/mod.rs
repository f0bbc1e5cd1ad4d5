//! The command line: one file per verb. Errors become `anyhow` here, at the
//! edge, and nowhere below.

use std::ffi::OsString;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

pub mod budget;
pub mod ci;
pub mod completions;
pub mod config;
pub mod digest;
pub mod expand;
pub mod explain;
pub mod fast_run;
pub mod filters;
pub mod format;
pub mod gain;
pub mod hook;
pub mod init;
pub mod mcp;
pub mod pipe;
pub mod profiles;
pub mod read;
pub mod rewrite;
pub mod run;
pub mod shims;
pub mod store;
pub mod trust;
pub mod usage;

pub use crate::deliver::EXIT_CTX_ERROR;

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
    /// Read a file: outline, signatures, one symbol or section, lines, or verbatim.
    Read(read::Args),
    /// Inspect and maintain the archive.
    Store(store::Args),
    /// Tokens saved, per command and in total.
    Gain(gain::Args),
    /// List the profiles in the order they are tried.
    Profiles(profiles::Args),
    /// List the declarative filters, or run their inline tests (`verify`).
    Filters(filters::Args),
    /// Trust the project's `.ctx/filters` and `.ctx/contracts` (pins their SHA-256).
    Trust(trust::Args),
    /// Stop trusting the project's `.ctx/` files.
    Untrust(trust::UntrustArgs),
    /// Show how an archived record was digested: profile, coverage, plan.
    Explain(explain::Args),
    /// Install, list or remove PATH shims (links named after commands).
    Shims(shims::Args),
    /// Print a shell line with the commands ctx knows run through `ctx run`.
    Rewrite(rewrite::Args),
    /// Print (or apply with --write) the setup that lets an agent use ctx.
    Init(init::Args),
    /// Serve ctx_run, ctx_expand and ctx_read to an agent over MCP (stdio).
    Mcp(mcp::Args),
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
    let argv: Vec<OsString> = std::env::args_os().collect();
    let verb = match read_verb(argv.clone()) {
        Ok(verb) => verb,
        Err(e) if e.use_stderr() && argv.get(1).is_some_and(|v| v == "pipe") => {
            return usage::pipe_raw(&usage::one_line(&e));
        }
        Err(e) if e.use_stderr() && argv.get(1).is_some_and(|v| v == "run") => {
            let command = usage::command_of_run(argv.get(2..).unwrap_or_default());
            return usage::run_raw(&usage::one_line(&e), &command);
        }
        Err(e) => {
            let code = if e.use_stderr() { EXIT_CTX_ERROR } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    if verb.prints_its_own_report() {
        end_like_a_filter_on_a_closed_pipe();
    }
    let result = match verb {
        Verb::Run(args) => run::execute(args),
        Verb::Pipe(args) => pipe::execute(args),
        Verb::Digest(args) => digest::execute(args),
        Verb::Expand(args) => expand::execute(args),
        Verb::Read(args) => read::execute(args),
        Verb::Store(args) => store::execute(args),
        Verb::Gain(args) => gain::execute(args),
        Verb::Profiles(args) => profiles::execute(args),
        Verb::Explain(args) => explain::execute(args),
        Verb::Filters(args) => filters::execute(args),
        Verb::Trust(args) => trust::execute(args),
        Verb::Untrust(args) => trust::untrust(args),
        Verb::Shims(args) => shims::execute(args),
        Verb::Rewrite(args) => rewrite::execute(args),
        Verb::Init(args) => init::execute(args),
        Verb::Hook(args) => hook::execute(args),
        Verb::Mcp(args) => mcp::execute(args),
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

impl Verb {
    /// Verbs whose output is ctx's own report (a listing, a record, a
    /// script), as opposed to a command's output that ctx carries: `run`,
    /// `pipe` and `digest` handle a reader that leaves themselves (the
    /// child must see it, nothing may be lost), and `hook` answers an
    /// agent that waits for its reply.
    fn prints_its_own_report(&self) -> bool {
        !matches!(
            self,
            Verb::Run(_) | Verb::Pipe(_) | Verb::Digest(_) | Verb::Hook(_) | Verb::Mcp(_)
        )
    }
}

/// Rust ignores SIGPIPE, so a write to a reader that left (`ctx profiles |
/// head -1`) is an error, and `println!` panics on it. For ctx's own
/// reports the default is right: end at once, killed by SIGPIPE, as `cat`
/// does and as a shell expects of a filter.
fn end_like_a_filter_on_a_closed_pipe() {
    use nix::sys::signal::{SigHandler, Signal, signal};
    // SAFETY: SIG_DFL installs no handler of ours; nothing else in the
    // process has changed this disposition yet (one thread, at start-up).
    let _ = unsafe { signal(Signal::SIGPIPE, SigHandler::SigDfl) };
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

/// The verb argv asks for. `ctx run`'s usual argv skips clap entirely
/// (fast_run.rs says why); everything else is clap's.
pub fn read_verb(argv: Vec<OsString>) -> Result<Verb, clap::Error> {
    if let Some(run) = argv.get(1..).and_then(fast_run::parse) {
        return Ok(Verb::Run(run));
    }
    parse(argv).map(|cli| cli.verb)
}

/// clap's reading of argv. The `--budget` long help reads every contract,
/// so it is built only when help is what was asked for.
fn parse(argv: Vec<OsString>) -> Result<Cli, clap::Error> {
    let wants_help = argv.get(1).is_some_and(|a| a == "help") || argv.iter().any(|a| a == "--help");
    let mut cmd = command(wants_help);
    let mut matches = cmd.try_get_matches_from_mut(argv)?;
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut cmd))
}

/// The whole command tree, with the long help of `--budget` (which reads
/// every contract) when `long_help` is set.
pub fn command(long_help: bool) -> clap::Command {
    TREES_BUILT.with(|n| n.set(n.get() + 1));
    let cmd = Cli::command();
    if !long_help {
        return cmd;
    }
    let text = budget::long_help();
    ["run", "pipe", "digest"].iter().fold(cmd, |cmd, verb| {
        cmd.mut_subcommand(verb, |sub| {
            sub.mut_arg("budget", |arg| arg.long_help(text.clone()))
        })
    })
}

// How many command trees `command` built on this thread: the hot paths
// must build none (tested below). Per thread: tests run in parallel
// threads of one process, and each counts only its own calls' trees.
thread_local! {
    static TREES_BUILT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// See `TREES_BUILT`.
pub fn trees_built() -> usize {
    TREES_BUILT.with(std::cell::Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn argv(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    /// `ctx run`'s usual argv never builds clap's tree; other verbs do, and
    /// the budget's long help (which reads every contract) only for help.
    /// One test, so that no other test's tree lands between the counts.
    #[test]
    fn run_builds_no_command_tree() {
        let before = trees_built();
        let verb = read_verb(argv(&["ctx", "run", "--", "true"])).expect("run");
        assert!(matches!(verb, Verb::Run(_)));
        let verb = read_verb(argv(&["ctx", "run", "--budget", "300", "make", "-k"])).expect("run");
        assert!(matches!(verb, Verb::Run(_)));
        assert_eq!(trees_built(), before, "ctx run built clap's command tree");

        let verb = read_verb(argv(&["ctx", "pipe"])).expect("pipe");
        assert!(matches!(verb, Verb::Pipe(_)));
        assert_eq!(trees_built(), before + 1);

        let budget = |cmd: &clap::Command| {
            cmd.find_subcommand("run")
                .and_then(|run| run.get_arguments().find(|a| a.get_id() == "budget"))
                .map(|a| a.get_long_help().is_some())
        };
        assert_eq!(budget(&command(false)), Some(false));
        assert_eq!(budget(&command(true)), Some(true));
    }
}
