//! The live path: with stdout a terminal (and no `--digest`), ctx execs the
//! command in place, so a person sees it as if ctx were not there.

use super::*;

/// What a pty session showed and how it ended.
struct Session {
    screen: String,
    status: ExitStatus,
    ctx_pid: u32,
}

/// Runs `ctx ARGS…` with stdin, stdout and stderr on a new pty; types
/// `reply` once `prompt` is on the screen.
fn in_pty(env: &Env, args: &[&str], answer: Option<(&str, &str)>) -> Session {
    let pty = nix::pty::openpty(None, None).expect("openpty");
    let slave = |fd: &OwnedFd| Stdio::from(fd.try_clone().expect("dup slave"));
    let mut cmd = env.ctx(args);
    cmd.stdin(slave(&pty.slave))
        .stdout(slave(&pty.slave))
        .stderr(slave(&pty.slave));
    let mut child = cmd.spawn().expect("ctx starts");
    // Only the child may hold the slave, or the master never sees EOF.
    drop(cmd);
    drop(pty.slave);
    let mut master = fs::File::from(pty.master);
    let mut screen = Vec::new();
    let mut pending = answer;
    let mut buf = [0u8; 4096];
    loop {
        match master.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => screen.extend_from_slice(&buf[..n]),
            // Linux reports the last slave's close as EIO.
            Err(e) if e.raw_os_error() == Some(libc::EIO) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => panic!("reading the pty: {e}"),
        }
        if let Some((prompt, reply)) = pending
            && text(&screen).contains(prompt)
        {
            master.write_all(reply.as_bytes()).expect("type the answer");
            pending = None;
        }
    }
    let ctx_pid = child.id();
    let status = child.wait().expect("ctx ends");
    Session {
        screen: text(&screen),
        status,
        ctx_pid,
    }
}

#[test]
fn a_prompt_is_answered_through_a_terminal() {
    let env = Env::new();
    // The alarm turns a prompt that never shows (or an answer that never
    // arrives) into a failure instead of a hung test.
    let script = "import os, signal, sys\n\
        signal.alarm(300)\n\
        answer = input('name? ')\n\
        print(f'hello {answer} from {os.getpid()}')\n\
        sys.exit(7)\n";
    let s = in_pty(
        &env,
        &["run", "--", "python3", "-c", script],
        Some(("name? ", "bob\n")),
    );
    assert!(s.screen.contains("name? "), "{:?}", s.screen);
    // The program's pid is ctx's own: the command replaced ctx (exec).
    let greeting = format!("hello bob from {}", s.ctx_pid);
    assert!(s.screen.contains(&greeting), "{:?}", s.screen);
    assert_eq!(s.status.code(), Some(7), "{:?}", s.screen);
}

#[test]
fn digest_on_a_terminal_captures_instead() {
    let env = Env::new();
    let s = in_pty(
        &env,
        &["run", "--digest", "--", "sh", "-c", "echo \"pid $$\""],
        None,
    );
    assert!(s.screen.starts_with("pid "), "{:?}", s.screen);
    assert!(!s.screen.contains(&format!("pid {}\r", s.ctx_pid)));
    assert_eq!(s.status.code(), Some(0));
}

#[test]
fn the_live_path_gives_the_command_a_default_sigpipe() {
    let env = Env::new();
    let s = in_pty(
        &env,
        &["run", "--", "grep", "SigIgn", "/proc/self/status"],
        None,
    );
    assert_eq!(
        signal_bits(&s.screen, "SigIgn:") & SIGPIPE_BIT,
        0,
        "{:?}",
        s.screen
    );
}

#[test]
fn the_live_path_reports_launch_failures_like_a_shell() {
    let env = Env::new();
    let s = in_pty(&env, &["run", "--", "ctx-no-such-command-x"], None);
    assert_eq!(s.status.code(), Some(127));
    assert_eq!(
        s.screen,
        "ctx: ctx-no-such-command-x: command not found\r\n"
    );
    let dir = env.scratch.path().display().to_string();
    let s = in_pty(&env, &["run", "--", &dir], None);
    assert_eq!(s.status.code(), Some(126));
    assert_eq!(s.screen, format!("ctx: {dir}: Is a directory\r\n"));
}
