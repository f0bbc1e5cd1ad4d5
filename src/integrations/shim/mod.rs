//! Shim mode: ctx invoked through a link named after a command (`pytest`).
//!
//! The shim finds the real command on PATH past every shim folder, then
//! either execs it in place (nothing of ctx remains: the transparent path)
//! or, when its stdout is the agent's, captures it exactly like `ctx run`
//! and prints the digest. It never reads stdin (invariant 2) and ends with
//! the command's exact status (invariant 1). docs/shims.md has the rules.

pub mod audience;
pub mod doctor;
pub mod install;
pub mod known_agents;
pub mod locate;
pub mod longrun;
pub mod procfs;
pub mod roles;
pub mod view;

use std::ffi::OsString;
use std::io::{self, IsTerminal};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use nix::sys::stat::{SFlag, fstat};

use crate::capture::{self, CaptureError, Captured, LaunchError};
use audience::Reader;

/// The recursion guard: how many shims deep this process is.
pub const DEPTH_VAR: &str = "CTX_SHIM_DEPTH";
/// Shims nested deeper than this stop: something re-enters ctx in a loop
/// that the PATH search could not see (a wrapper script that calls its own
/// name through PATH).
pub const MAX_DEPTH: u32 = 24;

/// What the shim does with the command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// exec the real command in place; the reason is for `CTX_SHIM_DEBUG`.
    Passthrough(String),
    /// Capture and digest.
    Digest,
}

/// Entry point when argv[0]'s basename is not `ctx`. Returns the exit
/// status, or does not return (exec, or death by the child's signal).
pub fn main() -> i32 {
    crate::guard::install_panic_hook();
    let argv: Vec<OsString> = std::env::args_os().collect();
    let Some(typed) = argv.first().cloned() else {
        return 127;
    };
    let name = basename(&typed);
    let shown = name.to_string_lossy().into_owned();
    let mut argv = argv;
    argv[0] = name.clone();

    let depth = std::env::var(DEPTH_VAR)
        .ok()
        .and_then(|d| d.parse::<u32>().ok())
        .unwrap_or(0);
    if depth >= MAX_DEPTH {
        eprintln!("ctx: {shown}: shims nested {depth} deep ({DEPTH_VAR}); refusing to loop");
        return 126;
    }
    let ctx = match locate::ctx_binary() {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("ctx: {shown}: cannot locate the ctx binary: {e}");
            return 126;
        }
    };
    let program = match locate::real_command(&name, &ctx) {
        Ok(program) => program,
        Err(e @ LaunchError::NotFound(_)) => {
            // The shell's answer and status, and why: the shim outlived
            // its program (a venv left PATH, a tool uninstalled).
            eprintln!(
                "ctx: {e} (no {shown} on PATH besides ctx's shim: its program left PATH; `ctx shims doctor` lists such shims)"
            );
            return e.status();
        }
        Err(e) => {
            eprintln!("ctx: {e}");
            return e.status();
        }
    };
    // SAFETY (of the env write): ctx is single-threaded here; nothing else
    // reads the environment concurrently.
    unsafe { std::env::set_var(DEPTH_VAR, (depth + 1).to_string()) };

    let mode = decide(&argv, &ctx);
    if std::env::var_os("CTX_SHIM_DEBUG").is_some_and(|v| v == "1") {
        eprintln!("[ctx] shim {shown}: {mode:?} ({})", program.display());
    }
    let real_argv = invisible(&typed, &name, &program, &ctx, argv.clone());
    match mode {
        Mode::Passthrough(_) => passthrough(&program, &real_argv),
        Mode::Digest => digest(&program, &real_argv, &argv[0]),
    }
}

/// Makes the shim invisible to the program it runs: returns its argv and
/// sets this process's PATH (which the program inherits) so that nothing
/// the program does to find itself leads to the shim folder. argv[0] stays
/// as the shell passed it when it is a bare name and PATH has a view for
/// it (`view.rs`); a path (`./shims/cc`), or a shim folder without views,
/// gets the real program's absolute path instead.
fn invisible(
    typed: &OsString,
    name: &OsString,
    program: &Path,
    ctx: &Path,
    mut argv: Vec<OsString>,
) -> Vec<OsString> {
    let bare = !typed.as_encoded_bytes().contains(&b'/');
    let path = std::env::var_os("PATH");
    let viewed = path.as_deref().and_then(|p| view::path_for(name, p, ctx));
    if let Some(viewed) = &viewed {
        // SAFETY: ctx is single-threaded here; nothing else reads the
        // environment concurrently.
        unsafe { std::env::set_var("PATH", viewed) };
    }
    let found_by_path = bare && (viewed.is_some() || path.is_none());
    argv[0] = if found_by_path {
        typed.clone()
    } else {
        locate::argv0_for(program)
    };
    argv
}

/// exec in place; returns only when the program could not be started.
fn passthrough(program: &Path, argv: &[OsString]) -> i32 {
    let failure = capture::exec_program(program, argv);
    eprintln!("ctx: {failure}");
    failure.status()
}

/// Captures and digests; `shown` names the command in the digest and
/// the ledger (the name that was typed, not the program's path).
fn digest(program: &Path, argv: &[OsString], shown: &OsString) -> i32 {
    // The archive's server connection is made while the command runs.
    crate::store::early::connect();
    let captured = match capture::run_program(program, argv) {
        Ok(Captured::Complete(mut artifact)) => {
            if let Some(first) = artifact.argv.first_mut() {
                *first = shown.to_string_lossy().into_owned();
            }
            Captured::Complete(artifact)
        }
        Ok(cut) => cut,
        Err(CaptureError::Launch(failure)) => {
            eprintln!("ctx: {failure}");
            return failure.status();
        }
        Err(e) => {
            // Nothing was captured that could be replayed; the child may
            // have run. Say so rather than guess a status.
            eprintln!("ctx: {e}");
            return crate::deliver::EXIT_CTX_ERROR;
        }
    };
    // The budget comes from the configuration (`CTX_BUDGET` included).
    let exit = crate::deliver::captured(
        captured,
        None,
        None,
        None,
        true,
        &crate::format::Formatting::text(),
    );
    capture::exit_like(exit)
}

/// A shim a filter brought (the filter is named after the command and has
/// a `[match] rewrite` pattern) digests only what that pattern names: a
/// `docker` shim digests `docker build`, never `docker run` or `docker
/// compose up`, as `ctx rewrite` would. A command a typed profile serves
/// by name is that profile's, and other shims are unchanged.
fn filter_declines(words: &[String]) -> Option<String> {
    let name = crate::command::basename(words.first()?);
    if crate::profiles::registry()
        .iter()
        .any(|p| p.commands().contains(&name))
    {
        return None;
    }
    let own: Vec<&crate::filters::Filter> = crate::filters::registry()
        .filters
        .iter()
        .filter(|f| f.name == name && f.rewrite.is_some())
        .collect();
    (!own.is_empty() && !own.iter().any(|f| f.rewrites(words)))
        .then(|| format!("filter {name} does not rewrite this command ([match] rewrite)"))
}

/// A shim for a program of `install::BY_SUBCOMMAND` (git, go, the
/// formatters) digests only the forms a profile serves: anything else
/// (`git commit`, `go run`, `black .`) is the program's alone.
fn subcommand_declines(words: &[String]) -> Option<String> {
    let name = crate::command::basename(words.first()?);
    if let Some((_, runs_tools)) = install::PACKAGE_MANAGERS.iter().find(|(m, _)| *m == name) {
        let sub = words[1..].iter().find(|w| !w.starts_with('-'));
        let digests =
            runs_tools.is_empty() || sub.is_some_and(|sub| runs_tools.contains(&sub.as_str()));
        return (!digests).then(|| format!("this {name} subcommand runs no project tool"));
    }
    if !install::BY_SUBCOMMAND.contains(&name) {
        return None;
    }
    let served = crate::profiles::registry()
        .iter()
        .any(|p| p.by_command(words).is_some());
    (!served).then(|| format!("no profile serves this {name} subcommand"))
}

/// Digest or pass through, for this process's stdout and ancestry.
pub fn decide(argv: &[OsString], ctx: &Path) -> Mode {
    let on = |var: &str| std::env::var_os(var).is_some_and(|v| v == "1");
    if on("CTX_DISABLE") {
        return Mode::Passthrough("CTX_DISABLE=1".into());
    }
    let words: Vec<String> = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(why) = longrun::long_running(&words) {
        return Mode::Passthrough(why.into());
    }
    if let Some(why) = crate::command::secrets::prints_secrets(&words) {
        return Mode::Passthrough(why.into());
    }
    let stdout = io::stdout();
    if stdout.is_terminal() {
        return if on("CTX_FORCE") {
            Mode::Digest
        } else {
            Mode::Passthrough("stdout is a terminal".into())
        };
    }
    let kind = match fstat(stdout.as_fd()) {
        Ok(st) => SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT,
        Err(e) => return Mode::Passthrough(format!("fstat(1): {e}")),
    };
    if kind != SFlag::S_IFIFO && kind != SFlag::S_IFSOCK {
        return Mode::Passthrough("stdout is a file or device".into());
    }
    let proc_root = Path::new("/proc");
    let own = match std::fs::read_link(proc_root.join("self/fd/1")) {
        Ok(target) => target,
        Err(e) => return Mode::Passthrough(format!("cannot read /proc/self/fd/1: {e}")),
    };
    let Some(me) = procfs::Process::read(proc_root, std::process::id()) else {
        return Mode::Passthrough("cannot read /proc/self".into());
    };
    match audience::reader_of_pipe(proc_root, &own.to_string_lossy(), ctx, &me) {
        // Asked last: it loads the filters, which a passthrough never needs.
        Reader::Agent => subcommand_declines(&words)
            .or_else(|| filter_declines(&words))
            .map_or(Mode::Digest, Mode::Passthrough),
        Reader::Other(why) => Mode::Passthrough(why),
    }
}

/// True when argv[0] names ctx itself (the CLI), false for a shim.
pub fn invoked_as_ctx(argv0: Option<&OsString>) -> bool {
    match argv0 {
        None => true,
        Some(a) => {
            let base = basename(a);
            base == "ctx" || base.to_string_lossy().starts_with("ctx-") || base.is_empty()
        }
    }
}

fn basename(arg: &OsString) -> OsString {
    PathBuf::from(arg)
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod filter_tests {
    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn a_git_shim_digests_only_the_subcommands_a_profile_serves() {
        for served in [
            "git status",
            "git diff HEAD~1",
            "git log -p",
            "git -C x log",
            "git push",
            "git show",
        ] {
            assert_eq!(super::subcommand_declines(&words(served)), None, "{served}");
        }
        for own in [
            "git commit -m x",
            "git add -p",
            "git stash push",
            "git config user.name",
            "git",
        ] {
            assert!(super::subcommand_declines(&words(own)).is_some(), "{own}");
        }
        assert_eq!(super::subcommand_declines(&words("pytest -q")), None);
        for tool in [
            "npm test",
            "npm run build",
            "npx tsc --noEmit",
            "pnpm exec vitest",
            "yarn test",
            "npm --silent test",
        ] {
            assert_eq!(super::subcommand_declines(&words(tool)), None, "{tool}");
        }
        for own in ["npm publish", "npm login", "yarn init", "npm"] {
            assert!(super::subcommand_declines(&words(own)).is_some(), "{own}");
        }
    }

    #[test]
    fn a_filter_shim_digests_only_what_its_rewrite_names() {
        for declined in ["docker run -it app", "docker compose up", "terraform apply"] {
            assert!(
                super::filter_declines(&words(declined)).is_some(),
                "{declined}"
            );
        }
        for digested in [
            "docker build .",
            "terraform plan",
            "pytest -q",
            "make",
            "seq 3",
        ] {
            assert_eq!(super::filter_declines(&words(digested)), None, "{digested}");
        }
    }
}
