//! The CI outputs through the built binary (docs/ci.md): GitHub
//! annotations under `GITHUB_ACTIONS=true` or `--annotate github`, after
//! the text digest on stdout and on stderr beside a document; the step
//! summary; `--format sarif|junit` and their refusal; exit statuses kept
//! throughout; and golden workflow logs read as the runner reads them.

mod support;

#[path = "support/workflow.rs"]
mod runner;

use std::path::{Path, PathBuf};
use std::process::Output;

use support::{ctx_cmd, text};
use tempfile::TempDir;

fn fixture(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(case)
}

/// A scratch directory with a saved log of a fixture's stdout.
struct Scratch {
    dir: TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            dir: TempDir::new().unwrap(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Saves `fixtures/<case>/stdout` as `name`.
    fn log(&self, case: &str, name: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::copy(fixture(case).join("stdout"), &path).unwrap();
        path
    }

    /// `ctx ARGS` in the scratch directory, with GitHub's variables only as
    /// `env` gives them.
    fn ctx(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let home = self.path("home");
        let mut cmd = ctx_cmd(&home, args);
        cmd.current_dir(self.dir.path());
        for var in ["GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_STEP_SUMMARY"] {
            cmd.env_remove(var);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }
}

const ACTIONS: (&str, &str) = ("GITHUB_ACTIONS", "true");

fn commands(s: &str) -> Vec<runner::Command> {
    s.lines().filter_map(runner::parse).collect()
}

#[test]
fn annotations_follow_the_digest_on_stdout_under_github_actions() {
    let s = Scratch::new();
    s.log("tsc/mid-plain", "tsc.log");
    let plain = s.ctx(&["digest", "tsc.log"], &[]);
    let annotated = s.ctx(&["digest", "tsc.log"], &[ACTIONS]);
    assert_eq!(annotated.status.code(), Some(0));
    let (plain, annotated) = (text(&plain.stdout), text(&annotated.stdout));
    assert!(commands(&plain).is_empty(), "{plain}");
    // The digest, unchanged, then the annotations.
    let rest = annotated
        .strip_prefix(plain.as_str())
        .unwrap_or_else(|| panic!("digest changed:\n{annotated}"));
    let lines: Vec<&str> = rest.lines().collect();
    assert_eq!(lines.len(), 11, "{rest}");
    let parsed = commands(rest);
    assert_eq!(parsed.len(), 10);
    assert!(parsed.iter().all(|c| c.name == "error"));
    assert_eq!(parsed[0].properties["file"], "src/services/svc000.ts");
    assert_eq!(parsed[0].properties["line"], "8");
    assert_eq!(parsed[0].properties["col"], "25");
    assert_eq!(parsed[0].properties["title"], "tsc TS2345");
    assert!(
        lines[10].starts_with("[ctx] not annotated: 98 errors"),
        "{}",
        lines[10]
    );
    // Off when asked, or outside GitHub Actions.
    for (args, env) in [
        (
            &["digest", "--annotate", "none", "tsc.log"][..],
            &[ACTIONS][..],
        ),
        (&["digest", "tsc.log"], &[("GITHUB_ACTIONS", "false")]),
    ] {
        let out = s.ctx(args, env);
        assert_eq!(text(&out.stdout), plain, "{args:?}");
    }
    // On when asked, anywhere.
    let asked = s.ctx(&["digest", "--annotate", "github", "tsc.log"], &[]);
    assert_eq!(text(&asked.stdout), annotated);
    // `CMD | ctx pipe` too.
    let mut pipe = ctx_cmd(&s.path("home"), &["pipe"]);
    pipe.current_dir(s.dir.path())
        .env("GITHUB_ACTIONS", "true")
        .stdin(std::fs::File::open(s.path("tsc.log")).unwrap());
    let piped = pipe.output().unwrap();
    assert_eq!(piped.status.code(), Some(0));
    assert_eq!(commands(&text(&piped.stdout)).len(), 10);
}

#[test]
fn paths_are_relative_to_the_workspace() {
    let s = Scratch::new();
    let sub = s.path("web");
    std::fs::create_dir(&sub).unwrap();
    std::fs::copy(fixture("tsc/mid-plain/stdout"), sub.join("tsc.log")).unwrap();
    let root = s.dir.path().to_string_lossy().into_owned();
    let mut cmd = ctx_cmd(&s.path("home"), &["digest", "tsc.log"]);
    cmd.current_dir(&sub)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", &root)
        .env_remove("GITHUB_STEP_SUMMARY");
    let out = cmd.output().unwrap();
    let parsed = commands(&text(&out.stdout));
    assert_eq!(parsed[0].properties["file"], "web/src/services/svc000.ts");
}

#[test]
fn run_keeps_the_exit_status_and_annotates() {
    let s = Scratch::new();
    s.log("tsc/mid-plain", "tsc.log");
    for (code, args) in [
        (
            "3",
            &[
                "run",
                "--annotate",
                "github",
                "--",
                "sh",
                "-c",
                "cat tsc.log; exit 3",
            ][..],
        ),
        ("0", &["run", "--digest", "--", "sh", "-c", "cat tsc.log"]),
        (
            "1",
            &[
                "run",
                "--digest",
                "--",
                "sh",
                "-c",
                "cat tsc.log >&2; exit 1",
            ],
        ),
    ] {
        let out = s.ctx(args, &[ACTIONS]);
        assert_eq!(out.status.code(), Some(code.parse().unwrap()), "{args:?}");
        let stdout = text(&out.stdout);
        assert_eq!(commands(&stdout).len(), 10, "{args:?}: {stdout}");
        assert!(commands(&text(&out.stderr)).is_empty());
    }
    // Killed by a signal: the same death, the annotations still out.
    let out = s.ctx(
        &[
            "run",
            "--annotate",
            "github",
            "--",
            "sh",
            "-c",
            "cat tsc.log; kill -TERM $$",
        ],
        &[],
    );
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&out.status),
        Some(libc::SIGTERM)
    );
    assert_eq!(commands(&text(&out.stdout)).len(), 10);
}

#[test]
fn documents_keep_stdout_clean_and_annotate_on_stderr() {
    let s = Scratch::new();
    s.log("tsc/mid-plain", "tsc.log");
    s.log("pytest/default", "pytest.log");
    let sarif = s.ctx(&["digest", "--format", "sarif", "tsc.log"], &[ACTIONS]);
    assert_eq!(sarif.status.code(), Some(0));
    let log: serde_json::Value = serde_json::from_slice(&sarif.stdout).expect("stdout is SARIF");
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 108);
    assert_eq!(commands(&text(&sarif.stderr)).len(), 10);

    let junit = s.ctx(&["digest", "--format", "junit", "pytest.log"], &[ACTIONS]);
    assert_eq!(junit.status.code(), Some(0));
    let xml = text(&junit.stdout);
    assert!(
        xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pytest\""),
        "{xml}"
    );
    assert!(xml.trim_end().ends_with("</testsuites>"));
    assert!(commands(&xml).is_empty());
    assert_eq!(commands(&text(&junit.stderr)).len(), 10);

    for format in ["json", "markdown"] {
        let out = s.ctx(&["digest", "--format", format, "pytest.log"], &[ACTIONS]);
        assert!(commands(&text(&out.stdout)).is_empty(), "{format}");
        assert_eq!(commands(&text(&out.stderr)).len(), 10, "{format}");
    }
}

#[test]
fn shapes_a_family_lacks_are_empty_documents_with_the_digest_on_stderr() {
    let s = Scratch::new();
    s.log("tsc/mid-plain", "tsc.log");
    s.log("pytest/default", "pytest.log");
    let plain = s.ctx(&["digest", "tsc.log"], &[]);
    // A build has no JUnit: an empty report (an upload step never meets
    // nothing), the text digest and a note on stderr, exit 0.
    let junit = s.ctx(&["digest", "--format", "junit", "tsc.log"], &[]);
    assert_eq!(junit.status.code(), Some(0));
    let doc = text(&junit.stdout);
    assert!(doc.starts_with("<?xml"), "{doc}");
    assert!(
        doc.contains("tests=\"0\" failures=\"0\" errors=\"0\""),
        "{doc}"
    );
    let err = text(&junit.stderr);
    assert!(err.starts_with(&text(&plain.stdout)), "{err}");
    assert!(
        err.contains("[ctx] --format junit needs a test run"),
        "{err}"
    );
    assert!(err.contains("this output reads as tsc"), "{err}");
    assert!(err.contains("an empty junit document is written"), "{err}");
    // A test run has no SARIF: a log with no results.
    let sarif = s.ctx(&["digest", "--format", "sarif", "pytest.log"], &[]);
    assert_eq!(sarif.status.code(), Some(0));
    let log: serde_json::Value = serde_json::from_slice(&sarif.stdout).expect("SARIF JSON");
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
    assert!(text(&sarif.stderr).contains("--format sarif needs a diagnostics run"));
    // Nothing at all in, still a document.
    let empty = s.path("empty.log");
    std::fs::write(&empty, "").unwrap();
    let out = s.ctx(&["digest", "--format", "junit", "empty.log"], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).contains("<testsuites"),
        "{}",
        text(&out.stdout)
    );
    // Forced to a family that has none: refused before reading anything.
    let forced = s.ctx(
        &["digest", "--format", "junit", "--as", "gcc", "tsc.log"],
        &[],
    );
    assert_eq!(forced.status.code(), Some(2));
    assert!(forced.stdout.is_empty());
    // ctx run: a shape --as rules out is a usage error, which never costs
    // the command: it runs as bare, with its own status …
    let marker = s.path("ran");
    let touch = format!("touch {}; exit 3", marker.display());
    let out = s.ctx(
        &[
            "run", "--format", "junit", "--as", "gcc", "--", "sh", "-c", &touch,
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(marker.exists(), "the command did not run");
    assert!(text(&out.stderr).contains("junit"), "{}", text(&out.stderr));
    // … and after it ran, the command's own status, a report that says
    // the run failed, its digest on stderr.
    let out = s.ctx(
        &[
            "run",
            "--format",
            "junit",
            "--",
            "sh",
            "-c",
            "cat tsc.log; exit 1",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let doc = text(&out.stdout);
    assert!(doc.contains("errors=\"1\""), "{doc}");
    assert!(
        doc.contains("exit 1 but no failing test was parsed"),
        "{doc}"
    );
    // The same header (a run's adds its exit status) and census.
    let plain = text(&plain.stdout);
    let header = plain.lines().next().unwrap_or_default();
    let err = text(&out.stderr);
    assert!(err.starts_with(header), "{err}");
    let census = plain.lines().nth(1).unwrap_or_default();
    assert!(err.lines().nth(1) == Some(census), "{err}");
}

#[test]
fn the_summary_is_appended_and_its_problems_are_one_note() {
    let s = Scratch::new();
    s.log("pytest/default", "pytest.log");
    let summary = s.path("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let var = ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap());
    let plain = s.ctx(&["digest", "pytest.log"], &[]);
    for _ in 0..2 {
        let out = s.ctx(&["digest", "--summary", "pytest.log"], &[var]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(out.stdout, plain.stdout, "the digest is unchanged");
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    }
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(written.starts_with("earlier step\n"), "{written}");
    assert_eq!(
        written.matches("### `pytest`: FAILED").count(),
        2,
        "{written}"
    );
    assert!(written.contains("test_restock_new_sku"));

    // No variable, or a file that cannot be written: one note, the
    // command's status, the output.
    let nowhere = s.path("missing/dir/summary.md");
    for env in [
        vec![],
        vec![("GITHUB_STEP_SUMMARY", nowhere.to_str().unwrap())],
    ] {
        let out = s.ctx(
            &[
                "run",
                "--summary",
                "--",
                "sh",
                "-c",
                "cat pytest.log; exit 4",
            ],
            &env,
        );
        assert_eq!(out.status.code(), Some(4), "{env:?}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("[ctx] --summary: "), "{err}");
        assert!(err.trim_end().ends_with("no summary written"), "{err}");
        assert!(
            text(&out.stdout).starts_with("pytest: FAILED"),
            "{}",
            text(&out.stdout)
        );
    }
}

/// A fault while writing the annotations comes after the output: the
/// output is out once, the status is the command's, one note says so.
#[test]
fn a_fault_in_the_ci_outputs_keeps_output_and_status() {
    let s = Scratch::new();
    s.log("tsc/mid-plain", "tsc.log");
    let run = [
        "run",
        "--no-delta",
        "--annotate",
        "github",
        "--",
        "sh",
        "-c",
        "cat tsc.log; exit 5",
    ];
    let plain = s.ctx(&run, &[]);
    let out = s.ctx(&run, &[("CTX_FAULT", "ci")]);
    if !cfg!(debug_assertions) {
        return; // fault injection is compiled into debug builds only
    }
    assert_eq!(out.status.code(), Some(5));
    // The digest, without the annotations the fault cut off.
    let digest: String = text(&plain.stdout)
        .lines()
        .filter(|l| runner::parse(l).is_none() && !l.starts_with("[ctx] not annotated"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(text(&out.stdout), digest);
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("after the output was written; exit status kept"),
        "{err}"
    );
}

/// What the runner makes of a step's log: each workflow command shown as
/// the annotation GitHub records, every other line as a log line.
fn as_github_shows(log: &str) -> String {
    log.lines()
        .map(|line| match runner::parse(line) {
            Some(command) => format!("ANNOTATION {}\n", runner::shown(&command)),
            None => format!("log        {line}\n"),
        })
        .collect()
}

/// A real compiler's output: the digest, then its errors and warnings as
/// GitHub records them.
#[test]
fn golden_workflow_log_of_a_build() {
    let s = Scratch::new();
    s.log("cargo_build/check-mixed-nocolor", "build.log");
    // The fixture's output is on stderr, as cargo writes it.
    std::fs::copy(
        fixture("cargo_build/check-mixed-nocolor/stderr"),
        s.path("build.log"),
    )
    .unwrap();
    let out = s.ctx(&["digest", "build.log"], &[ACTIONS]);
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("golden_build", as_github_shows(&text(&out.stdout)));
}

/// Hostile findings: commas, colons and `%` in paths, `%`, `::` and a
/// would-be second command in messages. GitHub records each as written.
#[test]
fn golden_workflow_log_of_hostile_findings() {
    let s = Scratch::new();
    let hostile = [
        "src/a,b/c%0A.c:3:5: error: expected %d, got \"x\" :: see note, 100% sure",
        "src/a,b/c%0A.c:9:1: warning: unused: variable ::warning file=x,line=1::injected",
        "lib/x:y.c:12:7: error: colon in the path, comma in the message",
    ];
    std::fs::write(s.path("hostile.txt"), hostile.join("\n") + "\n").unwrap();
    let out = s.ctx(
        &[
            "run",
            "--digest",
            "--as",
            "gcc",
            "--",
            "sh",
            "-c",
            "cat hostile.txt >&2; exit 1",
        ],
        &[ACTIONS],
    );
    assert_eq!(out.status.code(), Some(1));
    // The raw lines go to stderr as the compiler wrote them; the
    // annotations to stdout, one command per line.
    assert_eq!(text(&out.stderr), hostile.join("\n") + "\n");
    let stdout = text(&out.stdout);
    let parsed = commands(&stdout);
    assert!(parsed.len() >= 2, "{stdout}");
    assert_eq!(parsed[0].properties["file"], "src/a,b/c%0A.c");
    assert_eq!(
        parsed[0].data,
        "expected %d, got \"x\" :: see note, 100% sure"
    );
    assert_eq!(parsed[1].name, "warning");
    assert_eq!(
        parsed[1].data,
        "unused: variable ::warning file=x,line=1::injected"
    );
    insta::assert_snapshot!("golden_hostile", as_github_shows(&stdout));
}
