//! Who reads the shim's stdout: an agent identified positively, or
//! anything else (invariant 7). docs/shims.md states the rule, its reasons
//! and its limits.
//!
//! Linux only. The shim's ancestors are read from `/proc` up to init:
//! - one of them is ctx itself (a digesting shim, `ctx run`): that ctx
//!   already owns the output → pass through (one digest per command);
//! - otherwise walk up from the parent while each ancestor is a shell or a
//!   transparent wrapper. The program that ends the walk started it: when
//!   that is a build tool or test runner (cargo, gcc, cmake, pytest…), the
//!   output is the tool's to read → pass through.
//! - A shell on the walk: the topmost one writes to whoever started it.
//!   Digest only when its stdout is the very pipe the shim's is AND the
//!   program that started the walk is identified as an agent: a known
//!   agent process (known_agents.rs), or the process that introduced
//!   `CTX_AGENT` (the walk's top was started with it, its starter was
//!   not). A Python build script's `subprocess.run(..., shell=True)` also
//!   starts a shell whose stdout is a pipe, read by the script: without
//!   the identification, every such script got digests.
//! - No shell on the walk: digest only when bash or zsh exec'd the topmost
//!   process of the walk in place (`bash -c 'pytest'`, read from the `_`
//!   those shells export) under the same identification, or when the
//!   program above the walk is a known agent that runs argvs without a
//!   shell (Codex). Any other parent (cargo running rustc, a script's
//!   subprocess, an agent's own helper) → pass through.
//!
//! Anything that cannot be read means "not sure", and not sure means pass
//! through.

use std::path::Path;

use super::known_agents;
use super::procfs::{self, Process};
use super::roles::{Role, role};

/// The variable a harness sets for the shells it starts (and not for
/// itself) to say that it reads their output.
pub const AGENT_VARIABLE: &str = "CTX_AGENT";

/// Ancestors to look at before giving up (pass through).
const MAX_WALK: usize = 64;

/// The verdict on the shim's stdout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reader {
    /// The agent reads it: digest.
    Agent,
    /// Something else reads it (or ctx cannot tell): exec the real command.
    Other(String),
}

/// Decides for a shim whose stdout (`own_fd1`, the target of
/// `/proc/self/fd/1`) is a pipe or socket. `ctx` is the ctx binary, `me`
/// this process as `/proc` shows it. Not sure means pass through.
pub fn reader_of_pipe(proc_root: &Path, own_fd1: &str, ctx: &Path, me: &Process) -> Reader {
    match walk(proc_root, own_fd1, ctx, me) {
        Walk::Agent => Reader::Agent,
        Walk::Elsewhere(why) | Walk::Unsure(why) => Reader::Other(why),
    }
}

/// For `ctx run`, which the agent (or a person) asked for by name: why its
/// stdout positively leads somewhere other than the agent (an outer ctx
/// already captures it, a build tool reads it, or the agent's shell writes
/// elsewhere: `ctx run -- CMD | head`, `> f`, `$( )`), or `None` when it is
/// the agent's or ctx cannot tell. Unlike a shim, `ctx run` digests when
/// unsure: being asked is the evidence.
pub fn elsewhere(proc_root: &Path, own_fd1: &str, ctx: &Path, me: &Process) -> Option<String> {
    match walk(proc_root, own_fd1, ctx, me) {
        Walk::Elsewhere(why) => Some(why),
        Walk::Agent | Walk::Unsure(_) => None,
    }
}

/// What the walk up the ancestors found.
enum Walk {
    /// The agent reads `own_fd1`.
    Agent,
    /// Something else reads it, positively.
    Elsewhere(String),
    /// Something could not be read, or no rule applies.
    Unsure(String),
}

fn walk(proc_root: &Path, own_fd1: &str, ctx: &Path, me: &Process) -> Walk {
    let ancestors = match ancestry(proc_root, me.ppid) {
        Ok(ancestors) => ancestors,
        Err(why) => return Walk::Unsure(why),
    };
    if ancestors.iter().any(|p| p.exe.as_deref() == Some(ctx)) {
        return Walk::Elsewhere("an outer ctx already captures this output".into());
    }
    let mut walked = 0;
    let mut topmost_shell: Option<&Process> = None;
    for p in &ancestors {
        match role(&p.name) {
            Role::Shell => topmost_shell = Some(p),
            Role::Wrapper => {}
            _ => break,
        }
        walked += 1;
    }
    let above = ancestors.get(walked);
    if let Some(tool) = above.filter(|p| role(&p.name) == Role::BuildTool) {
        return Walk::Elsewhere(format!(
            "started by {} (pid {}), which reads its output",
            tool.name, tool.pid
        ));
    }
    // `top` is the process the first other program started: the topmost
    // shell or wrapper, or the shim itself.
    let top = walked.checked_sub(1).map_or(me, |i| &ancestors[i]);
    if let Some(shell) = topmost_shell {
        return same_stdout(proc_root, shell.pid, own_fd1, "the agent shell's")
            .and(|| identified(proc_root, top, above));
    }
    if exec_by_shell(proc_root, top) {
        return same_stdout(proc_root, top.pid, own_fd1, "the exec'ing shell's")
            .and(|| identified(proc_root, top, above));
    }
    match above {
        Some(agent) if known_agents::recognise(agent).is_some_and(|a| a.runs_argv_directly) => {
            Walk::Agent
        }
        Some(other) => Walk::Unsure(format!(
            "started by {} (pid {}), not by a shell or an agent that runs commands without one",
            other.name, other.pid
        )),
        None => Walk::Unsure("no shell among the ancestors".into()),
    }
}

impl Walk {
    /// `self`, and when that is `Agent`, `then` as well.
    fn and(self, then: impl FnOnce() -> Walk) -> Walk {
        match self {
            Walk::Agent => then(),
            other => other,
        }
    }
}

/// Whether `starter`, the program that started `top` (the walk's topmost
/// process), is positively an agent: a known agent process, or the one
/// that introduced `CTX_AGENT` (`top` was started with it, `starter` was
/// not, so a script that merely inherited it from an agent further up is
/// not taken for one).
fn identified(proc_root: &Path, top: &Process, starter: Option<&Process>) -> Walk {
    let Some(starter) = starter else {
        return Walk::Unsure("no program above the shell".into());
    };
    if known_agents::recognise(starter).is_some() {
        return Walk::Agent;
    }
    let variable = |pid| procfs::start_variable(proc_root, pid, AGENT_VARIABLE);
    let set = |v: &Option<String>| v.as_deref().is_some_and(|v| !v.is_empty());
    match (variable(top.pid), variable(starter.pid)) {
        (Some(top_has), Some(starter_has)) if set(&top_has) && !set(&starter_has) => Walk::Agent,
        // Unsure, not Elsewhere: `ctx run`, asked by name, still digests.
        (Some(_), Some(starter_has)) if set(&starter_has) => Walk::Unsure(format!(
            "{} (pid {}) inherited {AGENT_VARIABLE}: it runs under the agent, it is not the agent",
            starter.name, starter.pid
        )),
        (Some(_), Some(_)) => Walk::Unsure(format!(
            "{} (pid {}) is not identified as an agent (no {AGENT_VARIABLE} for its shells, not a known agent)",
            starter.name, starter.pid
        )),
        _ => Walk::Unsure(format!(
            "cannot read the environment of pid {} or {}",
            top.pid, starter.pid
        )),
    }
}

/// The ancestors from `ppid` up to (not including) init, nearest first.
fn ancestry(proc_root: &Path, ppid: u32) -> Result<Vec<Process>, String> {
    let mut chain = Vec::new();
    let mut pid = ppid;
    while pid > 1 {
        if chain.len() >= MAX_WALK {
            return Err(format!("more than {MAX_WALK} ancestors"));
        }
        let Some(p) = Process::read(proc_root, pid) else {
            return Err(format!("cannot read {}/{pid}", proc_root.display()));
        };
        pid = p.ppid;
        chain.push(p);
    }
    Ok(chain)
}

/// True when bash or zsh started `p` by exec'ing in place of itself: those
/// shells export `_` as the path of the command they run, so `p`'s start
/// environment names `p` itself. A program started by anything else
/// inherits some older `_` (cargo's children carry `…/cargo`).
fn exec_by_shell(proc_root: &Path, p: &Process) -> bool {
    procfs::underscore_of(proc_root, p.pid)
        .is_some_and(|u| !u.is_empty() && procfs::basename(&u) == p.name)
}

fn same_stdout(proc_root: &Path, pid: u32, own_fd1: &str, whose: &str) -> Walk {
    match procfs::stdout_of(proc_root, pid) {
        Some(target) if target == own_fd1 => Walk::Agent,
        Some(target) => Walk::Elsewhere(format!("stdout {own_fd1} is not {whose} {target}")),
        None => Walk::Unsure(format!("cannot read the stdout of pid {pid}")),
    }
}
