//! Scripts that shell out get the raw bytes (invariant 7): a shim digests
//! only for a reader identified positively as an agent (docs/shims.md),
//! never for a program that merely reads a shell's pipe. Each case runs a
//! real interpreter (Python, Node, Ruby, Perl, make) under the fake agent,
//! which identifies itself with `CTX_AGENT`, so the script inherits the
//! variable: the script is under an agent, it is not the agent.

use std::process::Output;

#[path = "shims/agent.rs"]
mod agent;

use agent::{Agent, on_path, text};

/// A long fake tool, long enough to be digested, with a failure in it.
const FAKE_GREP: &str = r#"#!/bin/sh
i=0; while [ $i -lt 700 ]; do echo "src/m$i.py:$i:x = $i"; i=$((i+1)); done
echo "src/bad.py:1:FAILED here"
exit 0
"#;

const FAKE_PYTEST: &str = r#"#!/bin/sh
echo "============================= test session starts =============================="
echo "collected 2001 items"
i=0; while [ $i -lt 2000 ]; do echo "tests/test_x.py::test_$i PASSED"; i=$((i+1)); done
echo "=========================== short test summary info ============================"
echo "FAILED tests/test_x.py::test_bad - assert 1 == 2"
echo "========================= 1 failed, 2000 passed in 0.50s ========================"
exit 1
"#;

fn agent() -> Agent {
    let agent = Agent::empty();
    agent.tool("grep", FAKE_GREP);
    agent.tool("pytest", FAKE_PYTEST);
    std::fs::write(agent.dir("work/Makefile"), "test:\n\tpytest\n").expect("Makefile");
    agent.install(&["grep", "pytest", "make"]);
    agent
}

fn assert_raw(case: &str, out: &Output, bare: &Output) {
    assert!(
        out.stdout.len() > 10_000,
        "{case}: the script printed too little to tell: {}",
        text(&out.stdout)
    );
    assert_eq!(
        text(&out.stdout),
        text(&bare.stdout),
        "{case}: the script did not get the raw bytes"
    );
    assert_eq!(out.status.code(), bare.status.code(), "{case}");
}

/// Runs `script` through the agent's shell with and without the shims.
fn check(agent: &Agent, case: &str, script: &str) {
    let out = agent.bash(script);
    let bare = agent.bare(script);
    assert_raw(case, &out, &bare);
}

/// The shim really digests for the agent itself, so the raw bytes below
/// are the identification at work, not a shim that never digests.
#[test]
fn the_agents_own_shell_gets_a_digest() {
    let agent = agent();
    let out = agent.bash("pytest");
    let bare = agent.bare("pytest");
    assert!(
        out.stdout.len() < bare.stdout.len() / 4,
        "{}",
        text(&out.stdout)
    );
    assert!(text(&out.stdout).contains("tests/test_x.py::test_bad"));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn python_that_shells_out_gets_the_raw_bytes() {
    let agent = agent();
    for (case, code) in [
        (
            "subprocess.check_output(shell=True)",
            "import subprocess,sys; sys.stdout.write(subprocess.check_output('grep -rn 1 src', shell=True).decode())",
        ),
        (
            "subprocess.run(shell=True), stdout inherited",
            "import subprocess,sys; sys.exit(subprocess.run('cd . && pytest', shell=True).returncode)",
        ),
        (
            "subprocess.run(list), stdout inherited",
            "import subprocess,sys; sys.exit(subprocess.run(['pytest']).returncode)",
        ),
        (
            "os.popen",
            "import os,sys; sys.stdout.write(os.popen('grep -rn 1 src').read())",
        ),
        (
            "os.system",
            "import os,sys; sys.exit(os.waitstatus_to_exitcode(os.system('pytest')))",
        ),
        (
            "make run by a script",
            "import subprocess,sys; sys.exit(subprocess.run(['make', '-s', 'test']).returncode)",
        ),
    ] {
        check(&agent, case, &format!("python3 -c \"{code}\""));
    }
}

#[test]
fn node_that_shells_out_gets_the_raw_bytes() {
    if !on_path("node") {
        eprintln!("skipped: node is not installed");
        return;
    }
    let agent = agent();
    for (case, code) in [
        (
            "execSync",
            "process.stdout.write(require('child_process').execSync('grep -rn 1 src', {maxBuffer: 1e8}))",
        ),
        (
            "exec",
            "require('child_process').exec('grep -rn 1 src', {maxBuffer: 1e8}, (e, out) => process.stdout.write(out))",
        ),
        (
            "spawnSync with stdio inherited",
            "process.exit(require('child_process').spawnSync('pytest', {stdio: 'inherit', shell: true}).status)",
        ),
    ] {
        check(&agent, case, &format!("node -e \"{code}\""));
    }
}

#[test]
fn ruby_and_perl_that_shell_out_get_the_raw_bytes() {
    let agent = agent();
    if on_path("ruby") {
        check(&agent, "ruby backticks", "ruby -e 'print `grep -rn 1 src`'");
        check(
            &agent,
            "ruby backticks through a shell",
            "ruby -e 'print `cd . && grep -rn 1 src`'",
        );
        check(
            &agent,
            "ruby system",
            "ruby -e 'system(\"pytest\"); exit $?.exitstatus'",
        );
    } else {
        eprintln!("skipped ruby: not installed");
    }
    check(&agent, "perl backticks", "perl -e 'print `grep -rn 1 src`'");
    check(
        &agent,
        "perl system through a shell",
        "perl -e 'exit(system(\"cd . && pytest\") >> 8)'",
    );
}

/// A shell whose stdout is a pipe is not evidence of an agent: with no
/// `CTX_AGENT` and no known agent above it, the raw bytes.
#[test]
fn a_shell_started_by_anything_else_gets_the_raw_bytes() {
    let agent = agent();
    for cmd in ["pytest", "cd . && pytest", "make -s test", "grep -rn 1 src"] {
        let out = agent.bash_unidentified(cmd);
        assert_raw(cmd, &out, &agent.bare(cmd));
    }
}

/// An agent recognised by its process needs no variable: a program named
/// like Claude Code that runs `bash -c CMD` gets a digest; the same
/// program under another name gets the raw bytes.
#[test]
fn a_known_agent_process_is_identified_without_the_variable() {
    let agent = agent();
    let program = "#!/usr/bin/perl\nexit(system('bash', '-c', 'pytest') >> 8);\n";
    let claude = agent.tool("claude", program);
    let other = agent.tool("helper", program);
    let shims = agent.path(&[&agent.dir("shims"), &agent.dir("tools")]);
    let run = |exe: &std::path::Path, path: &str| {
        std::process::Command::new(exe)
            .env("PATH", path)
            .env("CTX_HOME", agent.dir("home"))
            .env_remove("CTX_AGENT")
            .env_remove("CTX_DISABLE")
            .env_remove("CTX_SHIM_DEPTH")
            .current_dir(agent.dir("work"))
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run the fake agent")
    };
    let bare = run(&claude, &agent.path(&[&agent.dir("tools")]));
    let digested = run(&claude, &shims);
    assert!(
        digested.stdout.len() < bare.stdout.len() / 4,
        "{}",
        text(&digested.stdout)
    );
    assert!(text(&digested.stdout).contains("tests/test_x.py::test_bad"));
    assert_eq!(digested.status.code(), Some(1));
    let raw = run(&other, &shims);
    assert_raw("helper", &raw, &bare);
}
