//! Who reads the shim's stdout: the agent, or something downstream of it
//! (invariant 7). docs/shims.md states the rule and its limits.
//!
//! Linux only: walk up from the shim's parent while each ancestor is a
//! shell or a transparent wrapper. The topmost shell on the walk is the
//! agent's shell. No shell on the walk → the agent started the command
//! itself, and the shim's stdout is the agent's. Otherwise the shim's
//! stdout is the agent's only when it is the very pipe that shell's stdout
//! is (`pipe:[inode]` / `socket:[inode]` of the two `fd/1` links). An
//! ancestor that is ctx itself (a digesting shim or `ctx run`) already owns
//! the output, so the inner shim stays out of the way. Anything that cannot
//! be read means "not sure", and not sure means pass through.

use std::path::Path;

/// Shells: their stdout is what a command inherits unless redirected.
const SHELLS: &[&str] = &[
    "bash", "sh", "dash", "zsh", "fish", "ksh", "mksh", "ash", "busybox",
];

/// Programs that run a command without touching its stdout.
const WRAPPERS: &[&str] = &[
    "make", "gmake", "timeout", "env", "nice", "nohup", "time", "xargs", "stdbuf", "ionice",
    "taskset", "chrt", "npm", "npx", "pnpm", "yarn", "bun", "bunx", "uv", "uvx", "poetry",
    "pipenv", "pdm", "hatch", "just", "task", "direnv", "nix", "tox", "nox", "ninja", "cmake",
];

/// Interpreters whose script, not themselves, names the process
/// (`node /usr/bin/npm run test` is npm).
const INTERPRETERS: &[&str] = &["node", "nodejs", "python", "python3", "ruby", "perl"];

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
/// `/proc/self/fd/1`) is a pipe or socket. `ctx` is the ctx binary.
pub fn reader_of_pipe(proc_root: &Path, own_fd1: &str, ctx: &Path) -> Reader {
    match walk(proc_root, own_fd1, ctx) {
        Walk::Agent => Reader::Agent,
        Walk::Elsewhere(why) | Walk::Unsure(why) => Reader::Other(why),
    }
}

/// For `ctx run`, which the agent (or a person) asked for by name: why its
/// stdout positively leads somewhere other than the agent (an outer ctx
/// already captures it, or the agent's shell writes elsewhere: `ctx run --
/// CMD | head`, `> f`, `$( )`), or `None` when it is the agent's or ctx
/// cannot tell. Unlike a shim, `ctx run` digests when unsure: being asked
/// is the evidence.
pub fn elsewhere(proc_root: &Path, own_fd1: &str, ctx: &Path) -> Option<String> {
    match walk(proc_root, own_fd1, ctx) {
        Walk::Elsewhere(why) => Some(why),
        Walk::Agent | Walk::Unsure(_) => None,
    }
}

/// What the walk up the ancestors found.
enum Walk {
    /// The agent reads `own_fd1` (or no shell stands between).
    Agent,
    /// Something else reads it, positively.
    Elsewhere(String),
    /// Something could not be read.
    Unsure(String),
}

fn walk(proc_root: &Path, own_fd1: &str, ctx: &Path) -> Walk {
    let mut pid = std::os::unix::process::parent_id();
    let mut topmost_shell: Option<u32> = None;
    for _ in 0..MAX_WALK {
        if pid <= 1 {
            break;
        }
        let dir = proc_root.join(pid.to_string());
        let Some((ppid, comm)) = stat(&dir) else {
            return Walk::Unsure(format!("cannot read {}/stat", dir.display()));
        };
        if std::fs::read_link(dir.join("exe")).is_ok_and(|exe| exe == ctx) {
            return Walk::Elsewhere("an outer ctx already captures this output".into());
        }
        let name = process_name(&dir).unwrap_or(comm);
        if SHELLS.contains(&name.as_str()) {
            topmost_shell = Some(pid);
        } else if !WRAPPERS.contains(&name.as_str()) {
            break;
        }
        pid = ppid;
    }
    let Some(shell) = topmost_shell else {
        return Walk::Agent;
    };
    let link = proc_root.join(shell.to_string()).join("fd/1");
    match std::fs::read_link(&link) {
        Ok(target) if target.as_os_str() == own_fd1 => Walk::Agent,
        Ok(target) => Walk::Elsewhere(format!(
            "stdout {own_fd1} is not the agent shell's {}",
            target.display()
        )),
        Err(e) => Walk::Unsure(format!("cannot read {}: {e}", link.display())),
    }
}

/// (ppid, comm) from `/proc/<pid>/stat`. comm sits in parentheses and may
/// itself hold spaces and parentheses, hence the last `)`.
fn stat(dir: &Path) -> Option<(u32, String)> {
    let text = std::fs::read_to_string(dir.join("stat")).ok()?;
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_string();
    let mut rest = text.get(close + 1..)?.split_whitespace();
    let _state = rest.next()?;
    let ppid = rest.next()?.parse().ok()?;
    Some((ppid, comm))
}

/// The name a person would give the process: argv[0]'s basename (a login
/// shell's leading `-` dropped), or the script an interpreter runs.
fn process_name(dir: &Path) -> Option<String> {
    let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
    let mut args = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned());
    let first = basename(&args.next()?).trim_start_matches('-').to_string();
    let interpreter = INTERPRETERS.contains(&first.as_str())
        || first
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'));
    if !interpreter {
        return Some(first);
    }
    // `node /usr/lib/node_modules/npm/bin/npm-cli.js` → npm; `-m`-style
    // runs and bare REPLs keep the interpreter's name.
    match args.find(|a| !a.starts_with('-')) {
        Some(script) => {
            let base = basename(&script);
            let base = base.strip_suffix(".js").unwrap_or(base);
            let base = base.strip_suffix("-cli").unwrap_or(base);
            Some(base.to_string())
        }
        None => Some(first),
    }
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_survives_odd_comm() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("stat"), "42 (a) b (c)) S 7 42 42 0").unwrap();
        assert_eq!(stat(tmp.path()), Some((7, "a) b (c)".to_string())));
    }

    #[test]
    fn names_scripts_by_their_script() {
        let tmp = tempfile::tempdir().unwrap();
        let cases: [(&[u8], &str); 4] = [
            (
                b"node\0/usr/lib/node_modules/npm/bin/npm-cli.js\0run\0test\0",
                "npm",
            ),
            (b"-bash\0", "bash"),
            (
                b"/usr/bin/python3\0/home/u/.local/bin/poetry\0run\0pytest\0",
                "poetry",
            ),
            (b"python3\0", "python3"),
        ];
        for (cmdline, want) in cases {
            std::fs::write(tmp.path().join("cmdline"), cmdline).unwrap();
            assert_eq!(process_name(tmp.path()).as_deref(), Some(want));
        }
    }
}
