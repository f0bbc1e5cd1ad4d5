//! Declarative filters through the built binary: the built-ins' inline
//! tests pass and read captured fixtures, `ctx filters verify` fails loudly,
//! a filter without `unless` is rejected, filters sit between the typed
//! profiles and text/v1, and a filtered digest never hides a failure.

mod support;

use std::path::Path;
use std::process::Output;

use support::{ctx_cmd, text};

/// `ctx ARGS` in `cwd`, with `config` as XDG_CONFIG_HOME (user filters)
/// and no CI trust from the environment.
fn ctx(home: &Path, config: &Path, cwd: &Path, args: &[&str]) -> Output {
    ctx_cmd(home, args)
        .env("XDG_CONFIG_HOME", config)
        .env_remove("CI")
        .env_remove("CTX_TRUST_PROJECT")
        .current_dir(cwd)
        .output()
        .expect("ctx runs")
}

fn user_filter(config: &Path, name: &str, body: &str) {
    let dir = config.join("ctx").join("filters");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.toml")), body).unwrap();
}

#[test]
fn every_builtin_passes_its_inline_tests() {
    let (home, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let out = ctx(
        home.path(),
        config.path(),
        home.path(),
        &["filters", "verify"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.ends_with(" passed, 0 failed\n"), "{stdout}");
    let list = ctx(
        home.path(),
        config.path(),
        home.path(),
        &["filters", "list"],
    );
    let builtins = text(&list.stdout)
        .lines()
        .filter(|l| l.ends_with("built-in"))
        .count();
    assert!(builtins >= 30, "only {builtins} built-in filters");
}

/// Each built-in test reads output captured from the real tool
/// (`fixtures/filters/capture.sh`), never typed by hand: its command,
/// exit status, stdout and stderr are the fixture's, byte for byte, and
/// every fixture is some test's input.
#[test]
fn builtin_test_inputs_are_captured_fixtures() {
    #[derive(serde::Deserialize)]
    struct File {
        name: String,
        #[serde(default)]
        test: Vec<Case>,
    }
    #[derive(serde::Deserialize)]
    struct Case {
        name: String,
        command: String,
        exit: i32,
        input: String,
        stderr: String,
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for entry in std::fs::read_dir(root.join("filters")).unwrap() {
        let path = entry.unwrap().path();
        let file: File = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(!file.test.is_empty(), "{} has no test", file.name);
        let cases = root.join("fixtures/filters").join(&file.name);
        let captured = std::fs::read_dir(&cases)
            .unwrap_or_else(|_| panic!("no fixtures for {}", file.name))
            .count();
        assert_eq!(
            captured,
            file.test.len(),
            "{}: fixtures and tests differ",
            file.name
        );
        for case in file.test {
            let dir = cases.join(&case.name);
            let read = |f: &str| {
                std::fs::read_to_string(dir.join(f))
                    .unwrap_or_else(|_| panic!("{}", dir.join(f).display()))
            };
            assert_eq!(case.input, read("stdout"), "{}/{}", file.name, case.name);
            assert_eq!(case.stderr, read("stderr"), "{}/{}", file.name, case.name);
            assert_eq!(
                case.command,
                read("cmd").trim_end(),
                "{}/{}",
                file.name,
                case.name
            );
            assert_eq!(
                case.exit.to_string(),
                read("exit").trim(),
                "{}/{}",
                file.name,
                case.name
            );
            seen += 1;
        }
    }
    assert!(seen >= 30, "{seen} tests");
    for entry in std::fs::read_dir(root.join("fixtures/filters")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                root.join("filters").join(format!("{name}.toml")).is_file(),
                "fixtures/filters/{name} belongs to no filter"
            );
        }
    }
}

const SEQ: &str = r#"schema = "ctx.filter/v1"
name = "seq"
version = 1
strip = ['^\d*[02468]$']
max_lines = 20

[match]
command = 'seq(\s|$)'

[[test]]
name = "five"
command = "seq 5"
input = "1\n2\n3\n4\n5\n"
expected = """
1
3
5
[ctx] 2 lines stripped by filter seq
"""
"#;

#[test]
fn verify_names_the_failing_test_and_shows_a_diff() {
    let (home, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    user_filter(config.path(), "seq", SEQ);
    let ok = ctx(
        home.path(),
        config.path(),
        home.path(),
        &["filters", "verify", "seq"],
    );
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stdout));
    user_filter(
        config.path(),
        "seq",
        &SEQ.replace("\n3\n5\n", "\n3\n4\n5\n"),
    );
    let bad = ctx(
        home.path(),
        config.path(),
        home.path(),
        &["filters", "verify", "seq"],
    );
    let stdout = text(&bad.stdout);
    assert_eq!(bad.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL seq :: five"), "{stdout}");
    assert!(stdout.contains("-4\n"), "no diff: {stdout}");
    assert!(stdout.contains("--- expected"), "no diff header: {stdout}");
}

#[test]
fn a_shortcut_without_unless_is_rejected_at_load() {
    let (home, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let body = SEQ.replace(
        "[[test]]",
        "[[match_output]]\npattern = '1'\nmessage = \"all good\"\n\n[[test]]",
    );
    user_filter(config.path(), "seq", &body);
    let out = ctx(
        home.path(),
        config.path(),
        home.path(),
        &["filters", "verify"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("has no `unless` pattern"), "{stdout}");
    let list = ctx(
        home.path(),
        config.path(),
        home.path(),
        &["filters", "list"],
    );
    assert!(
        !text(&list.stdout).contains("seq/filter-v1"),
        "a rejected filter was loaded"
    );
}

#[test]
fn profiles_lists_filters_after_typed_profiles_and_before_text() {
    let (home, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let out = ctx(home.path(), config.path(), home.path(), &["profiles"]);
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let at = |what: &str| {
        lines
            .iter()
            .position(|l| l.contains(what))
            .unwrap_or_else(|| panic!("{what}: {stdout}"))
    };
    let make = at("make/filter-v1");
    assert!(at("pytest/v") < make, "{stdout}");
    assert!(at("search/v") < make, "{stdout}");
    assert!(make < at("text/v1"), "{stdout}");
    assert!(lines.last().unwrap().contains("text/v1"), "{stdout}");
}

/// A user filter reads a real command's output: a digest with the
/// `ctx expand` footer, and everything it left out comes back.
#[test]
fn a_filter_digests_and_everything_stays_retrievable() {
    let (home, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    user_filter(config.path(), "seq", SEQ);
    let out = ctx(
        home.path(),
        config.path(),
        home.path(),
        &["run", "--digest", "--", "seq", "3000"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout.starts_with("[ctx] seq 3000: 3,000 lines · exit 0 · filter seq/filter-v1\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("[ctx] … 2,959 lines omitted: ctx expand "),
        "{stdout}"
    );
    assert!(
        stdout.contains("[ctx] 21 lines stripped by filter seq\n"),
        "{stdout}"
    );
    let footer = stdout.lines().last().unwrap();
    assert!(
        footer.starts_with("[ctx] full output (3,000 lines)"),
        "{footer}"
    );
    let marker = stdout
        .lines()
        .find(|l| l.contains("omitted: ctx expand"))
        .expect("a marker");
    let words: Vec<&str> = marker.split(' ').collect();
    let key = words[words.iter().position(|w| *w == "expand").unwrap() + 1];
    let range = marker.rsplit(' ').next().unwrap();
    let back = ctx(
        home.path(),
        config.path(),
        home.path(),
        &["expand", key, "--lines", range],
    );
    assert_eq!(back.status.code(), Some(0), "{}", text(&back.stderr));
    assert!(
        text(&back.stdout).starts_with("1\n2\n3\n"),
        "{}",
        text(&back.stdout)
    );
}

/// On a failed run the decisive lines survive even when the filter's
/// rules would strip them, and no short-circuit summary replaces them.
#[test]
fn a_filter_never_hides_a_failure() {
    let (home, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    user_filter(
        config.path(),
        "sh",
        r#"schema = "ctx.filter/v1"
name = "sh"
version = 1
strip = ['.']
max_lines = 5

[match]
command = 'sh\s'

[[match_output]]
pattern = 'line'
unless = 'never-present'
message = "all fine"
"#,
    );
    let script =
        "seq -f 'line %g' 1 2000; echo 'error: the disk is full'; seq -f 'line %g' 1 500; exit 3";
    let out = ctx(
        home.path(),
        config.path(),
        home.path(),
        &["run", "--digest", "--", "sh", "-c", script],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(3));
    assert!(stdout.contains("\nerror: the disk is full\n"), "{stdout}");
    assert!(!stdout.contains("all fine"), "{stdout}");
    assert!(stdout.contains("exit 3"), "{stdout}");
    // The same output on success: the short-circuit may speak.
    let ok = ctx(
        home.path(),
        config.path(),
        home.path(),
        &[
            "run",
            "--digest",
            "--",
            "sh",
            "-c",
            "seq -f 'line %g' 1 2000",
        ],
    );
    assert!(
        text(&ok.stdout).contains("[ctx] all fine\n"),
        "{}",
        text(&ok.stdout)
    );
}

/// A command a filter reads takes no part in re-run deltas
/// (docs/filters.md): run twice, the same resources to destroy, exit 0,
/// the second digest is the first, with no delta line, even though the
/// same command read by a typed profile would be compared.
#[test]
fn a_filtered_rerun_is_never_a_delta() {
    let (home, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    user_filter(
        config.path(),
        "sh",
        r#"schema = "ctx.filter/v1"
name = "sh"
version = 1
keep = ['will be destroyed', 'Plan:']

[match]
command = 'sh\s'
"#,
    );
    let script = "for i in $(seq 1 60); do echo \"  # null_resource.item[$i] will be destroyed\"; \
                  echo \"  - resource \\\"null_resource\\\" \\\"item\\\" { id = $i }\"; done; \
                  echo 'Plan: 0 to add, 0 to change, 60 to destroy.'";
    let run = || {
        let out = ctx_cmd(home.path(), &["run", "--", "sh", "-c", script])
            .env("XDG_CONFIG_HOME", config.path())
            .env("CTX_DELTA", "1")
            .current_dir(home.path())
            .output()
            .expect("ctx runs");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let first = run();
    assert!(first.contains("filter sh/filter-v1"), "{first}");
    assert!(
        first.contains("null_resource.item[60] will be destroyed"),
        "{first}"
    );
    let second = run();
    assert!(
        !second
            .lines()
            .any(|l| l.starts_with("[ctx] since the last run") || l.starts_with("[ctx] same ")),
        "{second}"
    );
    assert_eq!(first, second);
}
