//! PATH shims through a fake agent: a test that spawns `bash -c CMD` with
//! stdout a pipe, as agents do, PATH = shim folder + a folder of fake tools.
//! Invariants 1 (status, signals), 2 (stdin) and 7 (transparency).

use std::fs;
use std::os::unix::fs::symlink;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output, Stdio};

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

#[path = "shims/agent.rs"]
mod agent;

use agent::{Agent, text};

/// An agent with fake pytest, ask and die tools, a Makefile whose `test`
/// runs pytest, and shims for `shimmed`.
fn agent_with(shimmed: &[&str]) -> Agent {
    let agent = Agent::empty();
    agent.tool("pytest", FAKE_PYTEST);
    agent.tool("ask", "#!/bin/sh\nread answer\necho \"got $answer\"\n");
    agent.tool("die", "#!/bin/sh\necho dying\nkill -TERM $$\nsleep 5\n");
    fs::write(agent.dir("work/Makefile"), "test:\n\tpytest\n").expect("Makefile");
    agent.install(shimmed);
    agent
}

/// A digest: shorter than the raw output, the failure named, the footer last.
fn assert_digest(out: &Output, raw: &Output) {
    let stdout = text(&out.stdout);
    assert_ne!(
        out.stdout, raw.stdout,
        "expected a digest, got the raw output"
    );
    assert!(out.stdout.len() < raw.stdout.len());
    // Named as pytest wrote it, or by a re-run delta of an earlier test's
    // run of the same command.
    assert!(stdout.contains("tests/test_x.py::test_bad"), "{stdout}");
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("[ctx] full output"),
        "footer missing: {stdout}"
    );
}

#[test]
fn the_agents_own_commands_are_digested_with_their_status() {
    let agent = agent_with(&["pytest"]);
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
    let agent = agent_with(&["pytest", "make"]);
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
    let agent = agent_with(&["pytest"]);
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
    let agent = agent_with(&["pytest"]);
    let raw = agent.bare("pytest");
    assert_eq!(agent.bash("CTX_DISABLE=1 pytest").stdout, raw.stdout);
    assert_eq!(
        agent.bash("pytest --watch").stdout,
        agent.bare("pytest --watch").stdout
    );
}

#[test]
fn stdin_reaches_the_command_untouched() {
    let agent = agent_with(&["ask"]);
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
    let agent = agent_with(&["pytest"]);
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
    assert!(
        text(&out.stderr).starts_with("ctx: pytest: command not found (no pytest on PATH besides"),
        "{}",
        text(&out.stderr)
    );
}

/// A shim outlives the folder its program was installed from (a venv that
/// left PATH): where the bare shell finds another program of that name,
/// so does the shim; where it finds none, the shell's status, and the
/// words say why.
#[test]
fn a_shim_whose_program_left_path_finds_the_next_one_or_says_so() {
    let agent = agent_with(&["pytest"]);
    let shims = agent.dir("shims");
    let other = agent.dir("other");
    fs::create_dir(&other).expect("mkdir");
    // Written by a child (see `Agent::tool`: no descriptor of ours open
    // for writing when another thread forks).
    let wrote = Command::new("sh")
        .args([
            "-c",
            "printf '#!/bin/sh\\necho \"other pytest $*\"\\n' >\"$0\" && chmod 755 \"$0\"",
        ])
        .arg(other.join("pytest"))
        .status()
        .expect("sh");
    assert!(wrote.success());
    // The tools folder (where `ctx shims install` found pytest) is gone
    // from PATH; `other` is further on.
    let path = agent.path(&[&shims, &other]);
    let out = agent.bash_with_path("pytest -q", &path);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "other pytest -q\n");

    let out = agent.bash_with_path("pytest -q", &agent.path(&[&shims]));
    assert_eq!(out.status.code(), Some(127));
    let said = text(&out.stderr);
    assert!(said.contains("pytest: command not found"), "{said}");
    assert!(said.contains("ctx shims doctor"), "{said}");
    assert_eq!(said.lines().count(), 1, "{said}");
}

#[test]
fn the_recursion_guard_stops_a_loop() {
    let agent = agent_with(&["pytest"]);
    let out = agent.bash("CTX_SHIM_DEPTH=1000 pytest");
    assert_eq!(out.status.code(), Some(126));
    assert!(text(&out.stderr).contains("CTX_SHIM_DEPTH"));
}

#[test]
fn death_by_signal_is_the_same_wait_status() {
    let agent = agent_with(&["die"]);
    let path = agent.path(&[&agent.dir("shims"), &agent.dir("tools")]);
    let shim = agent.dir("shims").join("die");
    let file = fs::File::create(agent.dir("work/out")).expect("out file");
    // Started by a program that is neither a shell nor a known agent:
    // passed through whether stdout is a pipe or a file. `bash -c die`
    // below takes the digesting path.
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
    let agent = agent_with(&["pytest"]);
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

/// Reads pytest's output itself, as a script or a test runner does.
const RUNNER: &str = r#"#!/usr/bin/perl
my $out = `pytest`;
printf "runner read %d bytes, status %d\n", length($out), $? >> 8;
"#;

#[test]
fn a_program_that_reads_a_shims_output_gets_the_raw_bytes() {
    let agent = agent_with(&["pytest"]);
    agent.tool("runner", RUNNER);
    let (out, raw) = (agent.bash("runner"), agent.bare("runner"));
    assert!(
        text(&raw.stdout).starts_with("runner read 1"),
        "{}",
        text(&raw.stdout)
    );
    assert_eq!(text(&out.stdout), text(&raw.stdout));
    assert_eq!(text(&out.stderr), text(&raw.stderr));
}

#[test]
fn an_agent_known_to_exec_without_a_shell_gets_a_digest() {
    let agent = agent_with(&["pytest"]);
    // Named like OpenAI's Codex CLI, which runs argv without a shell.
    let codex = agent.tool("codex", "#!/usr/bin/perl\nexit(system('pytest') >> 8);\n");
    let path = agent.path(&[&agent.dir("shims"), &agent.dir("tools")]);
    let run = |path: &str| {
        Command::new(&codex)
            .env("PATH", path)
            .env("CTX_HOME", agent.dir("home"))
            .env_remove("CTX_DISABLE")
            .env_remove("CTX_SHIM_DEPTH")
            .stdin(Stdio::null())
            .output()
            .expect("codex")
    };
    let raw = run(&agent.path(&[&agent.dir("tools")]));
    let out = run(&path);
    assert_digest(&out, &raw);
    assert_eq!(out.status.code(), Some(1));
    // The same program under another name is not an agent: raw bytes.
    let other = agent.tool(
        "some-tool",
        "#!/usr/bin/perl\nexit(system('pytest') >> 8);\n",
    );
    let out = Command::new(&other)
        .env("PATH", &path)
        .env("CTX_HOME", agent.dir("home"))
        .env_remove("CTX_DISABLE")
        .stdin(Stdio::null())
        .output()
        .expect("some-tool");
    assert_eq!(text(&out.stdout), text(&raw.stdout));
}

#[test]
fn the_default_set_is_what_people_type_and_what_exists_here() {
    let agent = agent_with(&[]);
    for name in [
        "cc",
        "gcc",
        "rustc",
        "clang",
        "clippy-driver",
        "make",
        "cargo",
    ] {
        agent.tool(name, "#!/bin/sh\necho real\n");
    }
    agent.install(&[]);
    let shims = agent.dir("shims");
    let mut names: Vec<String> = fs::read_dir(&shims)
        .expect("shims")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    for present in ["cargo", "make", "pytest"] {
        assert!(names.iter().any(|n| n == present), "{present}: {names:?}");
    }
    for absent in ["cc", "gcc", "rustc", "clang", "clippy-driver"] {
        assert!(!names.iter().any(|n| n == absent), "{absent}: {names:?}");
    }
    // Every shim stands for a program that exists: `command -v` never
    // finds a shim whose real program is missing (tsc is not here).
    let out = agent.bash("command -v tsc; echo $?");
    assert_eq!(text(&out.stdout), "1\n");
    for name in &names {
        let out = agent.bash(&format!(
            "CTX_DISABLE=1 {name} --version >/dev/null 2>&1; echo $?"
        ));
        assert_ne!(text(&out.stdout), "127\n", "{name}");
    }
    // By name, a compiler is still available; a missing name is refused.
    agent.install(&["gcc"]);
    assert!(shims.join("gcc").exists());
    let out = agent
        .ctx(&["install", "--dir", shims.to_str().expect("utf-8"), "tsc"])
        .output()
        .expect("ctx");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("skipped tsc: not found on PATH"));
    assert!(!shims.join("tsc").exists());
}

#[test]
fn list_and_doctor_say_what_each_shim_runs_and_what_is_wrong() {
    let agent = agent_with(&["pytest", "ask"]);
    let shims = agent.dir("shims");
    let dir = shims.to_str().expect("utf-8");
    let tools = agent.dir("tools");
    let list = agent.ctx(&["list", "--dir", dir]).output().expect("ctx");
    assert_eq!(
        text(&list.stdout),
        format!(
            "ask\t{}\npytest\t{}\n",
            tools.join("ask").display(),
            tools.join("pytest").display()
        )
    );
    let doctor = |path: &str| {
        let mut cmd = agent.ctx(&["doctor", "--dir", dir]);
        cmd.env("PATH", path);
        cmd.output().expect("ctx doctor")
    };
    let healthy = doctor(&agent.path(&[&shims, &tools]));
    assert_eq!(healthy.status.code(), Some(0), "{}", text(&healthy.stdout));
    assert!(text(&healthy.stdout).contains("no problem found"));

    // Not on PATH; then after the tools folder, which shadows both.
    let out = doctor(&agent.path(&[&tools]));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("is not on PATH"),
        "{}",
        text(&out.stdout)
    );
    let out = doctor(&agent.path(&[&tools, &shims]));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("is not first on PATH")
            && text(&out.stdout).contains("bypassed: ask, pytest"),
        "{}",
        text(&out.stdout)
    );

    // The real ask vanished; another ctx install's shim for pytest sits
    // on PATH; the real pytest calls itself through PATH.
    fs::remove_file(tools.join("ask")).expect("rm ask");
    let other = agent.dir("other");
    fs::create_dir_all(other.join("bin")).expect("mkdir");
    fs::create_dir_all(other.join("shims")).expect("mkdir");
    fs::copy(agent::CTX, other.join("bin/ctx")).expect("copy ctx");
    symlink(other.join("bin/ctx"), other.join("shims/pytest")).expect("link");
    agent.tool("pytest", "#!/bin/sh\ncd /tmp && exec pytest \"$@\"\n");
    let out = doctor(&agent.path(&[&shims, &other.join("shims"), &tools]));
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(report.contains("ask: the real program is gone"), "{report}");
    assert!(report.contains("links to another ctx binary"), "{report}");
    assert!(
        report.contains("runs `pytest` through PATH again"),
        "{report}"
    );
}

#[test]
fn children_of_a_shimmed_make_meet_the_other_shims_but_make_finds_itself() {
    let agent = agent_with(&["pytest", "make"]);
    fs::write(
        agent.dir("work/Makefile"),
        "test:\n\tpytest > /dev/null || true\n\t@echo MAKE=$(MAKE)\n\t@command -v make\n\t@command -v pytest\n",
    )
    .expect("Makefile");
    let out = agent.bash("CTX_SHIM_DEBUG=1 make -s test | cat");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stderr.contains("[ctx] shim make:"), "{stderr}");
    assert!(stderr.contains("[ctx] shim pytest:"), "{stderr}");
    // `$(MAKE)` is argv[0] as typed, and a lookup of it is the real make;
    // pytest is still the shim, through make's view of the folder.
    let view = agent.dir("shims/.ctx-view/make");
    let real_make = agent
        .bare("command -v make")
        .stdout
        .iter()
        .map(|&b| b as char)
        .collect::<String>();
    assert_eq!(
        stdout,
        format!("MAKE=make\n{real_make}{}\n", view.join("pytest").display())
    );
}

/// git is in the default set where it is installed, and its shim digests
/// only the subcommands a profile serves: `git status` is digested (one
/// ledger row), `git rev-parse` and `git config` run as bare (none).
#[test]
fn the_git_shim_digests_only_what_a_git_profile_serves() {
    if !agent::on_path("git") {
        eprintln!("skipped: git is not installed");
        return;
    }
    let agent = Agent::empty();
    agent.install(&[]);
    assert!(
        agent.dir("shims/git").exists(),
        "git is not in the default set"
    );
    let setup = "git init -q . && for i in $(seq 1 400); do echo $i > f$i.txt; done";
    let made = agent.bare(setup);
    assert!(made.status.success(), "{}", text(&made.stderr));
    let out = agent.bash("git status");
    // Every path survives a digest of git status (its contract): 400
    // untracked paths past the budget are counted by their folder, every
    // one listed by `--items`.
    let shown = text(&out.stdout);
    assert!(
        shown.contains("f400.txt")
            || (shown.contains("[ctx] ./ ×400 untracked") && shown.contains("--items")),
        "{shown}"
    );
    assert_eq!(agent.ledger_commands(), ["git status"]);
    for own in [
        "git rev-parse --is-inside-work-tree",
        "git config --get core.bare",
    ] {
        let (out, raw) = (agent.bash(own), agent.bare(own));
        assert_eq!(text(&out.stdout), text(&raw.stdout), "{own}");
        assert_eq!(out.status.code(), raw.status.code(), "{own}");
    }
    assert_eq!(agent.ledger_commands(), ["git status"]);
}

/// `npm test` puts `node_modules/.bin` first on PATH, so jest inside it
/// never meets its shim: the digest comes from npm's shim, read by content
/// (jest's census from a real capture, then npm's own error footer), with
/// npm's exit status. Truth: fixtures/jest/default/truth.json.
#[test]
fn a_package_managers_shim_digests_the_tool_it_runs() {
    if !agent::on_path("npm") {
        eprintln!("skipped: npm is not installed");
        return;
    }
    let agent = Agent::empty();
    agent.install(&["npm"]);
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/jest/default");
    let work = agent.dir("work");
    fs::create_dir_all(work.join("node_modules/.bin")).expect("mkdir");
    fs::write(
        work.join("package.json"),
        r#"{"name": "shop", "version": "1.0.0", "scripts": {"test": "jest"}}"#,
    )
    .expect("package.json");
    let jest = work.join("node_modules/.bin/jest");
    fs::write(
        &jest,
        format!(
            "#!/bin/sh\ncat '{}' >&2\nexit 1\n",
            fixture.join("stderr").display()
        ),
    )
    .expect("jest");
    fs::set_permissions(&jest, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let (out, raw) = (agent.bash("npm test"), agent.bare("npm test"));
    assert_eq!(out.status.code(), raw.status.code());
    assert_ne!(raw.status.code(), Some(0));
    let digest = format!("{}{}", text(&out.stdout), text(&out.stderr));
    let bare = format!("{}{}", text(&raw.stdout), text(&raw.stderr));
    assert!(digest.len() < bare.len(), "not digested: {digest}");
    let truth: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(fixture.join("truth.json")).expect("truth"))
            .expect("json");
    for failure in truth["failures"].as_array().expect("failures") {
        let id = failure["id"].as_str().expect("id");
        let name = id.rsplit(" > ").next().expect("name");
        assert!(digest.contains(name), "{id} lost:\n{digest}");
    }
    assert_eq!(agent.ledger_commands(), ["npm test"]);
    // npm's own words, where this npm prints any (npm 11 prints none when
    // a script fails; older ones end with `npm ERR!` lines naming it).
    for own in bare
        .lines()
        .filter(|l| l.starts_with("npm error") || l.starts_with("npm ERR!"))
    {
        assert!(digest.contains(own.trim()), "{own:?} lost:\n{digest}");
    }
}

/// doctor has no false positive on a Perl wrapper that names its command
/// in prose and runs the real binary by path (Debian's pg_wrapper behind
/// psql), and says when a shim folder on PATH was deleted.
#[test]
fn doctor_reads_only_shell_scripts_and_notices_a_deleted_folder() {
    let agent = Agent::empty();
    agent.tool(
        "psql",
        "#!/usr/bin/perl -w\n# psql wrapper\npsql and pg_dump are client programs\nexec '/bin/true';\n",
    );
    agent.install(&["psql"]);
    let shims = agent.dir("shims");
    let path = agent.path(&[&shims, &agent.dir("tools")]);
    let doctor = |dir: &std::path::Path| {
        Command::new(agent::CTX)
            .args(["shims", "doctor", "--dir"])
            .arg(dir)
            .env("PATH", &path)
            .env("CTX_HOME", agent.dir("home"))
            .output()
            .expect("doctor")
    };
    let out = doctor(&shims);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    fs::remove_dir_all(&shims).expect("rm shims");
    let out = doctor(&shims);
    assert_eq!(out.status.code(), Some(1));
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(said.contains("is on PATH but no longer exists"), "{said}");
}
