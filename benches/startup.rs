//! Start-up cost on small output, run on demand:
//!
//!     cargo bench --bench startup            # 300 rounds
//!     cargo bench --bench startup -- 1000    # more rounds
//!     CTX_BENCH_BASELINE=/path/to/old/ctx cargo bench --bench startup
//!
//! With `CTX_BENCH_BASELINE`, the ctx cases also run with that binary in the
//! same rounds (its own shim folder), for before/after figures taken under
//! the same load.
//!
//! One process runs, interleaved round after round (the order rotates so no
//! case always follows another), the same small command in each way ctx
//! can be in front of it, beside the two wrappers it should cost no more
//! than:
//!
//! - bare: `ctxbench-echo hi` (a link to `/bin/echo`);
//! - `env CMD` (one more exec) and `timeout 10 CMD` (one more exec, a fork
//!   and a wait: what `ctx run` does at the least);
//! - `ctx run -- CMD`;
//! - the passthrough shim (stdout a file: no `/proc` walk), and the
//!   passthrough shim whose stdout is a pipe that the walk finds is not the
//!   agent's (it reads every ancestor first);
//! - the digesting shim: stdout a pipe, and `_` set to the shim as bash
//!   sets it when `bash -c NAME` execs the command in place (the shim's
//!   own test for "an agent's shell started me").
//!
//! Every case but the file one has stdout and stderr on pipes, read to the
//! end, as an agent reads them. Reported: each case's median wall time, its
//! time added over bare, and the differences to `env` and `timeout`
//! measured in the same run. Wall-clock on a shared machine is noisy:
//! docs/performance.md pairs these figures with callgrind instruction
//! counts, which do not depend on load.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CTX: &str = env!("CARGO_BIN_EXE_ctx");
const TOOL: &str = "ctxbench-echo";
const WARMUP: usize = 10;

struct Case {
    name: String,
    argv: Vec<OsString>,
    /// Extra environment for this case.
    env: Vec<(&'static str, OsString)>,
    to_file: bool,
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// CPU time (user + system) of every waited-for descendant so far.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Wall time and CPU time (the case's processes, all of them) of one run.
fn time_once(case: &Case, path: &str, home: &Path, sink: &Path) -> (Duration, Duration) {
    let mut cmd = Command::new(&case.argv[0]);
    cmd.args(&case.argv[1..])
        .env("PATH", path)
        .env("CTX_HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("CTX_SHIM_DEPTH")
        .env_remove("_")
        .stdin(Stdio::null());
    for (k, v) in &case.env {
        cmd.env(k, v);
    }
    let cpu = children_cpu();
    let start = Instant::now();
    let status = if case.to_file {
        let file = std::fs::File::create(sink).expect("sink");
        cmd.stdout(file)
            .stderr(Stdio::null())
            .status()
            .expect("spawn")
    } else {
        cmd.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .expect("spawn")
            .status
    };
    let took = start.elapsed();
    let cpu = children_cpu() - cpu;
    assert!(
        status.code() == Some(0),
        "{}: {status:?} (signal {:?})",
        case.name,
        status.signal()
    );
    (took, cpu)
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(300);
    let dir = tempfile::tempdir().expect("tempdir");
    let (tools, home) = (dir.path().join("tools"), dir.path().join("home"));
    std::fs::create_dir_all(&tools).expect("tools dir");
    let tool = tools.join(TOOL);
    std::os::unix::fs::symlink("/bin/echo", &tool).expect("tool link");
    let os = |s: &str| OsString::from(s);
    let with = |prefix: &[&str], program: &Path| -> Vec<OsString> {
        let mut v: Vec<OsString> = prefix.iter().map(|s| os(s)).collect();
        v.push(program.into());
        v.push(os("hi"));
        v
    };
    let case =
        |name: &str, argv: Vec<OsString>, env: Vec<(&'static str, OsString)>, to_file| Case {
            name: name.to_owned(),
            argv,
            env,
            to_file,
        };
    let mut cases = vec![
        case("bare", with(&[], &tool), vec![], false),
        case("env CMD", with(&["env"], &tool), vec![], false),
        case(
            "timeout 10 CMD",
            with(&["timeout", "10"], &tool),
            vec![],
            false,
        ),
        case("bare (stdout a file)", with(&[], &tool), vec![], true),
        case(
            "env CMD (stdout a file)",
            with(&["env"], &tool),
            vec![],
            true,
        ),
    ];
    let mut binaries = vec![(String::new(), PathBuf::from(CTX))];
    if let Some(baseline) = std::env::var_os("CTX_BENCH_BASELINE") {
        binaries.push((" [baseline]".to_owned(), PathBuf::from(baseline)));
    }
    for (n, (tag, ctx)) in binaries.iter().enumerate() {
        let shims = dir.path().join(format!("shims{n}"));
        let path = format!("{}:{}:/usr/bin:/bin", shims.display(), tools.display());
        let out = Command::new(ctx)
            .env("CTX_HOME", &home)
            .env("PATH", &path)
            .args(["shims", "install", "--dir"])
            .arg(&shims)
            .arg(TOOL)
            .output()
            .expect("ctx shims install");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let shim = shims.join(TOOL);
        let ctx = ctx.to_str().expect("UTF-8 path");
        let path_env = || ("PATH", OsString::from(&path));
        cases.push(case(
            &format!("ctx run -- CMD{tag}"),
            with(&[ctx, "run", "--"], &tool),
            vec![],
            false,
        ));
        cases.push(case(
            &format!("digesting shim{tag}"),
            with(&[], &shim),
            vec![path_env(), ("_", shim.clone().into())],
            false,
        ));
        cases.push(case(
            &format!("passthrough shim (stdout a file){tag}"),
            with(&[], &shim),
            vec![path_env()],
            true,
        ));
        cases.push(case(
            &format!("passthrough shim (pipe, /proc walk){tag}"),
            with(&[], &shim),
            vec![path_env()],
            false,
        ));
    }
    let sink = dir.path().join("sink");
    let path = format!("{}:/usr/bin:/bin", tools.display());

    let mut times: Vec<Vec<Duration>> = cases.iter().map(|_| Vec::new()).collect();
    let mut cpus: Vec<Vec<Duration>> = cases.iter().map(|_| Vec::new()).collect();
    for round in 0..rounds + WARMUP {
        for k in 0..cases.len() {
            let i = (k + round) % cases.len();
            let (took, cpu) = time_once(&cases[i], &path, &home, &sink);
            if round >= WARMUP {
                times[i].push(took);
                cpus[i].push(cpu);
            }
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    println!(
        "## start-up on small output: medians of {rounds} interleaved rounds (load average {load})"
    );
    table("wall time", &cases, &mut times);
    table(
        "CPU time (user + system of the case's processes; less sensitive to load)",
        &cases,
        &mut cpus,
    );
}

fn table(what: &str, cases: &[Case], times: &mut [Vec<Duration>]) {
    let medians: Vec<Duration> = times.iter_mut().map(|t| median(t)).collect();
    let (bare, env, timeout) = (ms(medians[0]), ms(medians[1]), ms(medians[2]));
    println!();
    println!("### {what}");
    println!();
    println!("| case | median ms | added over bare | vs env | vs timeout |");
    println!("|---|---|---|---|---|");
    for (case, m) in cases.iter().zip(&medians) {
        let m = ms(*m);
        println!(
            "| {} | {m:.2} | {:+.2} ms | {:+.2} ms (×{:.2}) | {:+.2} ms (×{:.2}) |",
            case.name,
            m - bare,
            m - env,
            m / env,
            m - timeout,
            m / timeout
        );
    }
}
