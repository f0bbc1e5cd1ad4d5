//! PATH shims through a fake agent: a test that spawns `bash -c CMD` with
//! stdout a pipe, as agents do, PATH = shim folder + a folder of fake tools.
//! Invariants 1 (status, signals), 2 (stdin) and 7 (transparency).

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

/// A fake pytest: a session banner, 3,000 passing lines, one failure with
/// its traceback, the summary; exit 1. Long enough to be digested.
const FAKE_PYTEST: &str = r#"#!/bin/sh
echo "============================= test session starts =============================="
echo "collected 3001 items"
i=0; while [ $i -lt 3000 ]; do echo "tests/test_x.py::test_$i PASSED"; i=$((i+1)); done
echo "=================================== FAILURES ==================================="
echo "___________________________________ test_bad ___________________________________"
echo "    def test_bad():"
echo ">       assert 1 == 2"
echo "E       assert 1 == 2"
echo ""
echo "tests/test_x.py:10: AssertionError"
echo "=========================== short test summary info ============================"
echo "FAILED tests/test_x.py::test_bad - assert 1 == 2"
echo "========================= 1 failed, 3000 passed in 0.50s ========================"
exit 1
"#;

struct Agent {
    _dir: TempDir,
    root: PathBuf,
}

impl Agent {
    /// Shims for `shimmed` in root/shims, fake tools in root/tools.
    fn new(shimmed: &[&str]) -> Agent {
        let dir = TempDir::new().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical tempdir");
        for d in ["shims", "tools", "home", "work"] {
            fs::create_dir(root.join(d)).expect("mkdir");
        }
        let agent = Agent { _dir: dir, root };
        agent.tool("pytest", FAKE_PYTEST);
        agent.tool("ask", "#!/bin/sh\nread answer\necho \"got $answer\"\n");
        agent.tool("die", "#!/bin/sh\necho dying\nkill -TERM $$\nsleep 5\n");
        fs::write(agent.root.join("work/Makefile"), "test:\n\tpytest\n").expect("Makefile");
        let mut names = vec!["install", "--dir"];
        let shims = agent.dir("shims");
        names.push(shims.to_str().expect("utf-8 path"));
        names.extend_from_slice(shimmed);
        let out = agent.ctx(&names).output().expect("ctx shims install");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        agent
    }

    fn dir(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn tool(&self, name: &str, script: &str) {
        let path = self.dir("tools").join(name);
        fs::write(&path, script).expect("write tool");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    fn ctx(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(CTX);
        cmd.arg("shims")
            .args(args)
            .env("CTX_HOME", self.dir("home"));
        cmd
    }

    fn path(&self, entries: &[&Path]) -> String {
        let mut parts: Vec<String> = entries.iter().map(|p| p.display().to_string()).collect();
        parts.push("/usr/local/bin:/usr/bin:/bin".into());
        parts.join(":")
    }

    /// `bash -c CMD` as an agent runs it: stdout and stderr pipes, no stdin.
    fn bash_with_path(&self, cmd: &str, path: &str) -> Output {
        Command::new("bash")
            .args(["-c", cmd])
            .env("PATH", path)
            .env("CTX_HOME", self.dir("home"))
            .env_remove("CTX_BUDGET")
            .env_remove("CTX_DISABLE")
            .env_remove("CTX_FORCE")
            .env_remove("CTX_SHIM_DEPTH")
            .current_dir(self.dir("work"))
            .stdin(Stdio::null())
            .output()
            .expect("bash")
    }

    fn bash(&self, cmd: &str) -> Output {
        let path = self.path(&[&self.dir("shims"), &self.dir("tools")]);
        self.bash_with_path(cmd, &path)
    }

    /// The same command with no shim on PATH: the raw truth.
    fn bare(&self, cmd: &str) -> Output {
        let path = self.path(&[&self.dir("tools")]);
        self.bash_with_path(cmd, &path)
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A digest: shorter than the raw output, the failure kept, the footer last.
fn assert_digest(out: &Output, raw: &Output) {
    let stdout = text(&out.stdout);
    assert_ne!(
        out.stdout, raw.stdout,
        "expected a digest, got the raw output"
    );
    assert!(out.stdout.len() < raw.stdout.len());
    assert!(
        stdout.contains("FAILED tests/test_x.py::test_bad"),
        "{stdout}"
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("[ctx] full output"),
        "footer missing: {stdout}"
    );
}

#[test]
fn the_agents_own_commands_are_digested_with_their_status() {
    let agent = Agent::new(&["pytest"]);
    let raw = agent.bare("pytest");
    assert_eq!(raw.status.code(), Some(1));
    for cmd in [
        "pytest",
        "cd . && pytest",
        "make -s test",
        "(cd . ; pytest)",
        "echo x | pytest",
    ] {
        let out = agent.bash(cmd);
        assert_digest(&out, &raw);
        let want = if cmd.starts_with("make") { 2 } else { 1 };
        assert_eq!(out.status.code(), Some(want), "{cmd}");
    }
    // `pytest; true`: digested, and the line's status is true's.
    let out = agent.bash("pytest; true");
    assert_digest(&out, &raw);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn make_itself_shimmed_digests_once() {
    let agent = Agent::new(&["pytest", "make"]);
    let raw = agent.bare("make -s test");
    let out = agent.bash("make -s test");
    // The outer shim digests, the inner one stays out of it, and make's
    // output is read by what it holds (pytest's), so the failure survives.
    assert!(out.stdout.len() < raw.stdout.len());
    assert!(
        text(&out.stdout).contains("FAILED tests/test_x.py::test_bad"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout).matches("[ctx] full output").count(), 1);
}

#[test]
fn output_that_goes_elsewhere_is_the_raw_bytes() {
    let agent = Agent::new(&["pytest"]);
    for cmd in [
        "pytest | cat",
        "true && pytest | cat",
        "x=$(pytest); printf %s \"$x\"",
        "pytest > f; cat f",
        "bash -c 'pytest | cat'",
        "timeout 60 pytest | cat",
        "make -s test | cat",
        "pytest --watch | cat",
    ] {
        let (out, raw) = (agent.bash(cmd), agent.bare(cmd));
        assert_eq!(text(&out.stdout), text(&raw.stdout), "{cmd}");
        assert_eq!(out.stderr, raw.stderr, "{cmd}");
        assert_eq!(out.status.code(), raw.status.code(), "{cmd}");
    }
}

#[test]
fn disable_and_watch_modes_pass_through() {
    let agent = Agent::new(&["pytest"]);
    let raw = agent.bare("pytest");
    assert_eq!(agent.bash("CTX_DISABLE=1 pytest").stdout, raw.stdout);
    assert_eq!(
        agent.bash("pytest --watch").stdout,
        agent.bare("pytest --watch").stdout
    );
}

#[test]
fn stdin_reaches_the_command_untouched() {
    let agent = Agent::new(&["ask"]);
    for cmd in [
        "printf 'y\\n' | ask",
        "ask <<EOF\ny\nEOF",
        "printf 'y\\n' | ask | cat",
    ] {
        let out = agent.bash(cmd);
        assert_eq!(text(&out.stdout), "got y\n", "{cmd}: {}", text(&out.stderr));
        assert!(out.status.success());
    }
}

#[test]
fn no_loop_with_the_shim_folder_twice_or_two_folders() {
    let agent = Agent::new(&["pytest"]);
    let (shims, tools) = (agent.dir("shims"), agent.dir("tools"));
    let second = agent.dir("shims2");
    fs::create_dir(&second).expect("mkdir");
    // A link to the first shim: still ctx once resolved.
    symlink(shims.join("pytest"), second.join("pytest")).expect("link");
    let raw = agent.bare("pytest");
    for path in [
        agent.path(&[&shims, &shims, &tools]),
        agent.path(&[&shims, &second, &tools]),
        agent.path(&[&second, &tools, &shims]),
    ] {
        let out = agent.bash_with_path("pytest", &path);
        assert_digest(&out, &raw);
        assert_eq!(out.status.code(), Some(1));
    }
    // No real pytest anywhere: the shell's status and wording, no loop.
    let out = agent.bash_with_path("pytest", &agent.path(&[&shims, &second, &shims]));
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(text(&out.stderr), "ctx: pytest: command not found\n");
}

#[test]
fn the_recursion_guard_stops_a_loop() {
    let agent = Agent::new(&["pytest"]);
    let out = agent.bash("CTX_SHIM_DEPTH=1000 pytest");
    assert_eq!(out.status.code(), Some(126));
    assert!(text(&out.stderr).contains("CTX_SHIM_DEPTH"));
}

#[test]
fn death_by_signal_is_the_same_wait_status() {
    let agent = Agent::new(&["die"]);
    let path = agent.path(&[&agent.dir("shims"), &agent.dir("tools")]);
    let shim = agent.dir("shims").join("die");
    let file = fs::File::create(agent.dir("work/out")).expect("out file");
    // Digesting (stdout a pipe, no shell: the agent exec'd it) and
    // passing through (stdout a file).
    for stdout in [Stdio::piped(), Stdio::from(file)] {
        let out = Command::new(&shim)
            .env("PATH", &path)
            .env("CTX_HOME", agent.dir("home"))
            .stdin(Stdio::null())
            .stdout(stdout)
            .output()
            .expect("shim");
        assert_eq!(out.status.signal(), Some(libc::SIGTERM), "{:?}", out.status);
    }
    let out = agent.bash("die");
    assert_eq!(out.status.signal(), Some(libc::SIGTERM));
    assert_eq!(text(&out.stdout), "dying\n");
}

#[test]
fn install_is_idempotent_and_uninstall_removes_only_shims() {
    let agent = Agent::new(&["pytest"]);
    let shims = agent.dir("shims");
    let dir = shims.to_str().expect("utf-8");
    fs::write(shims.join("notes.txt"), "mine").expect("write");
    let out = agent
        .ctx(&["install", "--dir", dir, "pytest"])
        .output()
        .expect("ctx");
    assert!(out.status.success());
    assert!(
        text(&out.stdout).starts_with("export PATH="),
        "{}",
        text(&out.stdout)
    );
    let list = agent.ctx(&["list", "--dir", dir]).output().expect("ctx");
    assert!(
        text(&list.stdout).starts_with("pytest\t"),
        "{}",
        text(&list.stdout)
    );
    for bad in ["ctx", "a/b", ""] {
        let out = agent
            .ctx(&["install", "--dir", dir, bad])
            .output()
            .expect("ctx");
        assert!(!out.status.success(), "{bad:?} accepted");
        assert!(!shims.join("ctx").exists());
    }
    let out = agent
        .ctx(&["uninstall", "--dir", dir])
        .output()
        .expect("ctx");
    assert!(out.status.success());
    assert!(!shims.join("pytest").exists());
    assert_eq!(
        fs::read_to_string(shims.join("notes.txt")).expect("kept"),
        "mine"
    );
}
