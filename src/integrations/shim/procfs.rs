//! What the shim reads about a process from `/proc/<pid>`: its parent, the
//! name a person would give it, its executable, its stdout and the `_`
//! variable of the environment it was started with. Every reader returns
//! `None` when the file cannot be read (another user's process, a process
//! that already ended): the caller treats that as "not sure".

use std::path::{Path, PathBuf};

/// One process, as far as the shim needs to know it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Process {
    pub pid: u32,
    pub ppid: u32,
    /// argv[0]'s basename, or the script an interpreter runs.
    pub name: String,
    /// `/proc/<pid>/exe`, when readable.
    pub exe: Option<PathBuf>,
    /// The command line, when readable (empty otherwise).
    pub argv: Vec<String>,
}

/// Interpreters whose script, not themselves, names the process
/// (`node /usr/bin/npm run test` is npm, `python3 -m pip` is pip).
const INTERPRETERS: &[&str] = &["node", "nodejs", "ruby", "perl"];

impl Process {
    /// Reads `<proc_root>/<pid>`.
    pub fn read(proc_root: &Path, pid: u32) -> Option<Process> {
        let dir = proc_root.join(pid.to_string());
        let (ppid, comm) = stat(&dir)?;
        let argv = command_line(&dir).unwrap_or_default();
        let name = process_name(&argv).unwrap_or(comm);
        let exe = std::fs::read_link(dir.join("exe")).ok();
        Some(Process {
            pid,
            ppid,
            name,
            exe,
            argv,
        })
    }
}

/// The target of `<proc_root>/<pid>/fd/1` (`pipe:[123]`, a path…).
pub fn stdout_of(proc_root: &Path, pid: u32) -> Option<String> {
    let link = proc_root.join(pid.to_string()).join("fd/1");
    std::fs::read_link(link)
        .ok()
        .map(|t| t.to_string_lossy().into_owned())
}

/// The value of `_` in the environment `pid` was started with. bash and
/// zsh put the path of the command they start there, so it tells whether
/// a shell started this very program.
pub fn underscore_of(proc_root: &Path, pid: u32) -> Option<String> {
    start_variable(proc_root, pid, "_")?
}

/// The value of `name` in the environment `pid` was started with:
/// `None` when that environment cannot be read, `Some(None)` when it has
/// no such variable. The start environment, not the current one: a
/// program that sets a variable for its children (an agent exporting
/// `CTX_AGENT` to its shells) does not show it here.
pub fn start_variable(proc_root: &Path, pid: u32, name: &str) -> Option<Option<String>> {
    let environ = std::fs::read(proc_root.join(pid.to_string()).join("environ")).ok()?;
    let mut prefix = name.as_bytes().to_vec();
    prefix.push(b'=');
    Some(
        environ
            .split(|&b| b == 0)
            .find_map(|entry| entry.strip_prefix(prefix.as_slice()))
            .map(|v| String::from_utf8_lossy(v).into_owned()),
    )
}

/// The arguments in `<dir>/cmdline`, empty ones dropped.
fn command_line(dir: &Path) -> Option<Vec<String>> {
    let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
    Some(
        cmdline
            .split(|&b| b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
    )
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
/// shell's leading `-` dropped), or the script or module an interpreter
/// runs.
fn process_name(argv: &[String]) -> Option<String> {
    let mut args = argv.iter().cloned();
    let first = basename(&args.next()?).trim_start_matches('-').to_string();
    let python = first
        .strip_prefix("python")
        .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'));
    if !python && !INTERPRETERS.contains(&first.as_str()) {
        return Some(first);
    }
    // `node …/npm-cli.js` → npm; `python3 -m pip` → pip; a bare REPL or
    // `-c` code keeps the interpreter's name.
    let mut script = None;
    while let Some(arg) = args.next() {
        if python && arg == "-m" {
            script = args.next();
            break;
        }
        if arg == "-c" || arg == "-e" {
            break;
        }
        if !arg.starts_with('-') {
            script = Some(arg);
            break;
        }
    }
    match script {
        Some(script) => {
            let base = basename(&script);
            let base = base.strip_suffix(".js").unwrap_or(base);
            let base = base.strip_suffix("-cli").unwrap_or(base);
            Some(base.to_string())
        }
        None => Some(first),
    }
}

pub use crate::command::basename;

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
        let cases: [(&[u8], &str); 7] = [
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
            (b"python3.11\0-m\0pip\0install\0.\0", "pip"),
            (b"python3\0-c\0import x\0", "python3"),
            (b"/usr/bin/perl\0/tmp/codex\0pytest\0", "codex"),
        ];
        for (cmdline, want) in cases {
            std::fs::write(tmp.path().join("cmdline"), cmdline).unwrap();
            let argv = command_line(tmp.path()).unwrap();
            assert_eq!(process_name(&argv).as_deref(), Some(want));
        }
    }

    #[test]
    fn underscore_comes_from_the_start_environment() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("7")).unwrap();
        std::fs::write(
            tmp.path().join("7/environ"),
            b"A=1\0_=/usr/bin/make\0B=_=x\0",
        )
        .unwrap();
        assert_eq!(
            underscore_of(tmp.path(), 7).as_deref(),
            Some("/usr/bin/make")
        );
        std::fs::write(tmp.path().join("7/environ"), b"A=1\0").unwrap();
        assert_eq!(underscore_of(tmp.path(), 7), None);
    }
}
