//! Ending like the bare command: a stop request (TERM/INT/HUP) reaching
//! ctx while a background process holds the pipes, or in the middle of a
//! large output; and a reader of ctx's stdout that goes away (SIGPIPE).

use super::*;

use std::time::{Duration, Instant};

/// Waits for `ctx` to end; a hang detector, not a timing goal: ctx that
/// waits for a background holder would wait for minutes.
fn wait_or_kill(mut ctx: Child, what: &str) -> Output {
    let start = Instant::now();
    while ctx.try_wait().expect("try_wait").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = ctx.kill();
            panic!("{what}: ctx still running a minute after the stop request");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    ctx.wait_with_output().expect("ctx ends")
}

fn await_file(path: &Path, ctx: &mut Child) -> String {
    while !path.exists() {
        if let Some(status) = ctx.try_wait().expect("try_wait") {
            panic!("ctx ended ({status:?}) before {} appeared", path.display());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    fs::read_to_string(path).expect("read")
}

fn ctx_notes(stderr: &[u8]) -> Vec<String> {
    text(stderr)
        .lines()
        .filter(|l| l.starts_with("[ctx]"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_stop_request_does_not_wait_for_a_background_process_holding_the_pipes() {
    for sig in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        let env = Env::new();
        let ids = env.path("ids");
        // The child (sleep, exec'd by the shell) dies of the signal; its
        // background sibling keeps both pipes open for five minutes.
        let script = format!(
            "sleep 300 & echo $! > {tmp}; mv {tmp} {ids}; echo early; exec sleep 301",
            tmp = env.path("ids.tmp").display(),
            ids = ids.display(),
        );
        let mut ctx = env
            .ctx_run(&["sh", "-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ctx starts");
        let holder = await_file(&ids, &mut ctx);
        // "early" is written before the exec; give the shell time to exec.
        std::thread::sleep(Duration::from_millis(100));
        signal::kill(Pid::from_raw(ctx.id() as i32), sig).expect("kill ctx");
        let out = wait_or_kill(ctx, sig.as_str());
        let _ = signal::kill(
            Pid::from_raw(holder.trim().parse().expect("a pid")),
            Signal::SIGKILL,
        );
        assert_eq!(out.status.signal(), Some(sig as i32), "{sig}: {out:?}");
        assert_eq!(text(&out.stdout), "early\n", "{sig}");
        assert_eq!(ctx_notes(&out.stderr).len(), 1, "{sig}: {out:?}");
    }
}

#[test]
fn a_stop_request_in_the_middle_of_a_large_output_is_not_digested() {
    let env = Env::new();
    let ready = env.path("ready");
    let script = format!(
        "touch {ready}; exec seq 1 100000000",
        ready = ready.display()
    );
    let mut ctx = env
        .ctx_run(&["sh", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctx starts");
    await_file(&ready, &mut ctx);
    std::thread::sleep(Duration::from_millis(300));
    signal::kill(Pid::from_raw(ctx.id() as i32), Signal::SIGTERM).expect("kill ctx");
    let out = wait_or_kill(ctx, "seq");
    assert_eq!(out.status.signal(), Some(libc::SIGTERM), "{out:?}");
    // The raw output from its first line on (possibly cut short), never a
    // digest.
    let stdout = text(&out.stdout);
    let complete = stdout.rfind('\n').map_or("", |end| &stdout[..end]);
    for (i, line) in complete.lines().enumerate() {
        assert_eq!(line, (i + 1).to_string(), "line {} is not raw", i + 1);
    }
    let notes = ctx_notes(&out.stderr);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("SIGTERM"), "{notes:?}");
}

/// `bash -c 'LINE; echo "${PIPESTATUS[@]}"'`, ctx as `$CTX`.
fn pipeline_status(env: &Env, line: &str) -> (String, Output) {
    let out = Command::new("bash")
        .args(["-c", &format!("{line}; echo \"${{PIPESTATUS[@]}}\" >&2")])
        .env("CTX", env!("CARGO_BIN_EXE_ctx"))
        .env("CTX_HOME", env.home.path())
        .current_dir(env.scratch.path())
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    let stderr = text(&out.stderr);
    let last = stderr.lines().last().unwrap_or_default().to_string();
    (last, out)
}

/// Runs `cmd` with stdout a pipe whose reader leaves after `linger`
/// without reading anything.
fn with_reader_leaving(cmd: &mut Command, linger: Duration) -> ExitStatus {
    // Close-on-exec: a read end inherited by any child would keep the
    // pipe readable.
    let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).expect("pipe");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::from(write))
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    std::thread::sleep(linger);
    drop(read);
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still running a minute after its reader left");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_reader_that_goes_away_breaks_the_childs_pipe_as_without_ctx() {
    // Started by the test (no shell): the output was going to be digested.
    let env = Env::new();
    for linger in [Duration::ZERO, Duration::from_millis(300)] {
        let bare = with_reader_leaving(Command::new("seq").args(["1", "100000000"]), linger);
        let through = with_reader_leaving(&mut env.ctx_run(&["seq", "1", "100000000"]), linger);
        assert_eq!(bare.signal(), Some(libc::SIGPIPE), "bare: {bare:?}");
        assert_eq!(through.into_raw(), bare.into_raw(), "after {linger:?}");
    }
}

#[test]
fn a_child_that_ignores_sigpipe_meets_epipe_as_without_ctx() {
    let env = Env::new();
    let child = env.path("child.sh");
    fs::write(
        &child,
        "trap '' PIPE\nseq 1 10000000\necho \"seq said $?\" >&2\n",
    )
    .expect("write");
    let child = child.display();
    let (bare_status, bare) = pipeline_status(&env, &format!("sh {child} | true"));
    let (status, out) = pipeline_status(&env, &format!("$CTX run --digest -- sh {child} | true"));
    assert_eq!(status, bare_status, "{out:?}");
    assert!(text(&bare.stderr).contains("seq said 1"), "{bare:?}");
    assert!(text(&out.stderr).contains("seq said 1"), "{out:?}");
}

#[test]
fn ctx_run_piped_on_to_another_command_is_the_bare_command() {
    // The agent's shell (bash, run by the test as an agent runs it) writes
    // to the test; ctx's stdout leads to `head`: the output is not the
    // agent's, so ctx runs the command in place (invariant 7).
    let env = Env::new();
    let (bare, bare_out) = pipeline_status(&env, "seq 1 10000000 | head -1");
    let (through, out) = pipeline_status(&env, "$CTX run -- seq 1 10000000 | head -1");
    assert_eq!(bare, "141 0", "{bare_out:?}");
    assert_eq!(through, bare, "{out:?}");
    assert_eq!(out.stdout, bare_out.stdout);
    for line in [
        "x=$($CTX run -- seq 1 100000); printf '%s\\n' \"$x\"",
        "$CTX run -- seq 1 100000 > f; cat f",
        "$CTX run -- seq 1 100000 | cat",
    ] {
        let (_, out) = pipeline_status(&env, line);
        let raw: String = (1..=100_000).map(|n| format!("{n}\n")).collect();
        assert!(out.stdout == raw.as_bytes(), "{line}: not the raw output");
    }
}

#[test]
fn ctx_run_whose_stdout_is_the_agents_is_digested() {
    let env = Env::new();
    for line in [
        "$CTX run -- seq 1 100000",
        "$CTX run -- seq 1 100000; true",
        "cd . && $CTX run -- seq 1 100000",
        "echo x | $CTX run -- seq 1 100000",
    ] {
        let (_, out) = pipeline_status(&env, line);
        let stdout = text(&out.stdout);
        let last = stdout.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("[ctx] full output (100,000 lines)"),
            "{line}: not digested: {last}"
        );
    }
}
