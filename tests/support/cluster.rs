//! A PostgreSQL cluster of one test's own (`.ci/postgres.sh start`), for
//! tests that do to a server what others sharing it must not see: stop it
//! (SIGSTOP), or give it a certificate of its own. Stopped and removed
//! when dropped. Optionally PgBouncer in front of it
//! (`.ci/pgbouncer.sh start`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root (where `.ci/` is).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs a `.ci/*.sh start` script and reads the `export K=V` lines it
/// prints.
fn start_script(script: &str, env: &[(&str, &str)]) -> HashMap<String, String> {
    let out = Command::new("bash")
        .arg(root().join(".ci").join(script))
        .arg("start")
        .envs(env.iter().copied())
        .output()
        .expect("run the start script");
    assert!(
        out.status.success(),
        "{script} start failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("export "))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

pub struct Cluster {
    pub url: String,
    pub dir: PathBuf,
    /// The certificate to trust for TLS, when the server speaks it.
    pub tls_root: Option<String>,
    pooler: Option<Pooler>,
}

/// PgBouncer in front of the cluster.
struct Pooler {
    url: String,
    dir: String,
}

impl Cluster {
    /// A fresh cluster; `env` goes to the start script (e.g.
    /// `CTX_PG_SELF_SIGNED=1`).
    pub fn start(env: &[(&str, &str)]) -> Cluster {
        let vars = start_script("postgres.sh", env);
        Cluster {
            url: vars["CTX_TEST_POSTGRES_URL"].clone(),
            dir: PathBuf::from(&vars["CTX_TEST_POSTGRES_DIR"]),
            tls_root: vars.get("CTX_TEST_POSTGRES_TLS_ROOT").cloned(),
            pooler: None,
        }
    }

    /// Puts PgBouncer (transaction pooling) in front; returns its URL.
    pub fn with_pooler(&mut self) -> String {
        let vars = start_script("pgbouncer.sh", &[("CTX_TEST_POSTGRES_URL", &self.url)]);
        let url = vars["CTX_TEST_PGBOUNCER_URL"].clone();
        self.pooler = Some(Pooler {
            url: url.clone(),
            dir: vars["CTX_TEST_PGBOUNCER_DIR"].clone(),
        });
        url
    }

    pub fn pooler_url(&self) -> Option<&str> {
        self.pooler.as_ref().map(|p| p.url.as_str())
    }

    /// The postmaster and every process it started (its backends and
    /// workers), as they are now.
    pub fn server_pids(&self) -> Vec<i32> {
        let pid_file = self.dir.join("data").join("postmaster.pid");
        let Some(postmaster) = std::fs::read_to_string(pid_file)
            .ok()
            .and_then(|t| t.lines().next().and_then(|l| l.trim().parse::<i32>().ok()))
        else {
            return Vec::new();
        };
        let mut pids = vec![postmaster];
        pids.extend(children_of(postmaster));
        pids
    }

    /// Stops the server (SIGSTOP to the postmaster and its children) until
    /// the guard is dropped.
    pub fn freeze(&self) -> Frozen<'_> {
        let guard = Frozen { cluster: self };
        for pid in self.server_pids() {
            signal(pid, libc::SIGSTOP);
        }
        guard
    }

    /// A shell command that stops the server when a wrapped command runs
    /// it (the pids are found then, so the backend ctx connected to is
    /// stopped too).
    pub fn freeze_script(&self) -> String {
        let pid_file = self.dir.join("data").join("postmaster.pid");
        format!(
            "pm=$(head -n 1 '{}'); kill -STOP $pm $(pgrep -P $pm)",
            pid_file.display()
        )
    }

    /// Resumes every process of the server (harmless when running).
    pub fn thaw(&self) {
        for pid in self.server_pids() {
            signal(pid, libc::SIGCONT);
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.thaw();
        if let Some(p) = &self.pooler {
            let _ = Command::new("bash")
                .arg(root().join(".ci/pgbouncer.sh"))
                .args(["stop", &p.dir])
                .output();
        }
        let _ = Command::new("bash")
            .arg(root().join(".ci/postgres.sh"))
            .arg("stop")
            .arg(&self.dir)
            .output();
    }
}

/// A stopped server; resumed when dropped, so that a failing test still
/// leaves a server that can be shut down.
pub struct Frozen<'a> {
    cluster: &'a Cluster,
}

impl Drop for Frozen<'_> {
    fn drop(&mut self) {
        self.cluster.thaw();
    }
}

fn signal(pid: i32, sig: libc::c_int) {
    // SAFETY: kill has no memory preconditions; a pid that is gone is ESRCH.
    unsafe {
        libc::kill(pid, sig);
    }
}

/// The processes whose parent is `parent` (from /proc).
fn children_of(parent: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| parent_of(Path::new(&format!("/proc/{pid}/stat"))) == Some(parent))
        .collect()
}

/// The parent pid from a /proc/PID/stat line (`pid (comm) state ppid …`;
/// comm may hold spaces and parentheses, so read after the last `)`).
fn parent_of(stat: &Path) -> Option<i32> {
    let text = std::fs::read_to_string(stat).ok()?;
    let after = &text[text.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}
