//! A fake agent for shim tests: it runs `bash -c CMD` with stdout and
//! stderr pipes and no stdin, as agents do, with PATH = a shim folder, a
//! folder of fake tools, then the test's own PATH (real gcc, cargo…). It
//! identifies itself as agents configured by `ctx init` do: `CTX_AGENT`
//! is set for the shells it starts, not in its own environment.

#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

pub const CTX: &str = env!("CARGO_BIN_EXE_ctx");

pub struct Agent {
    _dir: TempDir,
    pub root: PathBuf,
}

impl Agent {
    /// An agent with no shim yet: root/shims, root/tools, root/home,
    /// root/work.
    pub fn empty() -> Agent {
        // The test process plays the agent that introduces CTX_AGENT; one
        // that already has it is a script under an agent, never digested.
        assert!(
            std::env::var_os("CTX_AGENT").is_none(),
            "run the shim tests without CTX_AGENT in the environment"
        );
        let dir = TempDir::new().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical tempdir");
        for d in ["shims", "tools", "home", "work"] {
            fs::create_dir(root.join(d)).expect("mkdir");
        }
        Agent { _dir: dir, root }
    }

    /// `ctx shims install --dir root/shims NAMES…`, which must succeed.
    pub fn install(&self, names: &[&str]) {
        let shims = self.dir("shims");
        let mut args = vec!["install", "--dir", shims.to_str().expect("utf-8 path")];
        args.extend_from_slice(names);
        let out = self.ctx(&args).output().expect("ctx shims install");
        assert!(
            out.status.success(),
            "ctx shims install {names:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub fn dir(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    pub fn tool(&self, name: &str, script: &str) -> PathBuf {
        let path = self.dir("tools").join(name);
        // Written by a child process, never through a descriptor of this
        // one: a descriptor open for writing here is inherited by any
        // child another test thread forks at that moment, and executing
        // the file then fails with ETXTBSY ("Text file busy").
        let mut writer = Command::new("sh")
            .args(["-c", "cat >\"$0\" && chmod 755 \"$0\""])
            .arg(&path)
            .stdin(Stdio::piped())
            .spawn()
            .expect("spawn sh to write the tool");
        writer
            .stdin
            .take()
            .expect("stdin")
            .write_all(script.as_bytes())
            .expect("write tool");
        assert!(writer.wait().expect("wait").success(), "writing {name}");
        path
    }

    /// `ctx shims ARGS…`, with the tools folder on PATH (install only
    /// shims commands it finds).
    pub fn ctx(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(CTX);
        cmd.arg("shims")
            .args(args)
            .env("PATH", self.path(&[&self.dir("tools")]))
            .env("CTX_HOME", self.dir("home"));
        cmd
    }

    /// `ctx ARGS…` with this agent's home.
    pub fn ctx_verb(&self, args: &[&str]) -> Output {
        Command::new(CTX)
            .args(args)
            .env("CTX_HOME", self.dir("home"))
            .stdin(Stdio::null())
            .output()
            .expect("ctx")
    }

    /// `entries`, then the test's own PATH.
    pub fn path(&self, entries: &[&Path]) -> String {
        let mut parts: Vec<String> = entries.iter().map(|p| p.display().to_string()).collect();
        parts.push(std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into()));
        parts.join(":")
    }

    /// `bash -c CMD` as an agent runs it: stdout and stderr pipes, no stdin.
    pub fn bash_with_path(&self, cmd: &str, path: &str) -> Output {
        self.shell(cmd, path)
            .env("CTX_AGENT", "test-agent")
            .output()
            .expect("bash")
    }

    /// `bash -c CMD` run by a program that is not an agent (a build
    /// script, a CI step): no `CTX_AGENT`.
    pub fn bash_unidentified(&self, cmd: &str) -> Output {
        let path = self.path(&[&self.dir("shims"), &self.dir("tools")]);
        self.shell(cmd, &path)
            .env_remove("CTX_AGENT")
            .output()
            .expect("bash")
    }

    fn shell(&self, cmd: &str, path: &str) -> Command {
        let mut command = Command::new("bash");
        command
            .args(["-c", cmd])
            .env("PATH", path)
            .env("CTX_HOME", self.dir("home"))
            .env_remove("CTX_BUDGET")
            .env_remove("CTX_DISABLE")
            .env_remove("CTX_FORCE")
            .env_remove("CTX_SHIM_DEPTH")
            .env_remove("CTX_NO_LEDGER")
            .current_dir(self.dir("work"))
            .stdin(Stdio::null());
        command
    }

    pub fn bash(&self, cmd: &str) -> Output {
        let path = self.path(&[&self.dir("shims"), &self.dir("tools")]);
        self.bash_with_path(cmd, &path)
    }

    /// The same command with no shim on PATH: the raw truth.
    pub fn bare(&self, cmd: &str) -> Output {
        let path = self.path(&[&self.dir("tools")]);
        self.bash_with_path(cmd, &path)
    }

    /// The command of each run the ledger holds, in `ctx gain` order.
    pub fn ledger_commands(&self) -> Vec<String> {
        let out = self.ctx_verb(&["gain", "--format", "json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("gain json");
        json["groups"]
            .as_array()
            .map(|groups| {
                groups
                    .iter()
                    .flat_map(|g| {
                        let runs = g["runs"].as_u64().unwrap_or(0) as usize;
                        std::iter::repeat_n(g["name"].as_str().unwrap_or("?").to_string(), runs)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether `name` is a program on the test's PATH.
pub fn on_path(name: &str) -> bool {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .any(|d| Path::new(d).join(name).is_file())
}
