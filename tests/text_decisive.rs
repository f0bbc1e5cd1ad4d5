//! text/v1 picks decisive lines by their shape, not by the words in them:
//! a diff, a JSON document or a source listing that mentions errors has no
//! decisive line, while the error-shaped lines of real failing runs are
//! all found. Fixtures captured by fixtures/text/regen.sh and the family
//! regen scripts.

use std::path::Path;

use ctx::archive::Known;
use ctx::artifact::{Artifact, Exit};
use ctx::evidence::ItemKind;
use ctx::pipeline::{self, Options, Output};
use ctx::profiles::Profile;
use ctx::profiles::text::Text;
use ctx::store::ArchiveKey;

fn load(case: &str) -> Artifact {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(case);
    ctx::fixture::load(&dir).unwrap_or_else(|e| panic!("{case}: {e}"))
}

/// The raw lines text/v1 calls decisive.
fn decisive(a: &Artifact) -> Vec<String> {
    let (graph, _) = Text.extract(a);
    graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::DecisiveLine)
        .filter_map(|i| i.headline)
        .map(|s| ctx::normalize::line(a.line(s.first)).into_owned())
        .collect()
}

fn digest(a: &Artifact) -> String {
    let d = pipeline::digest(a, &Known(ArchiveKey([0x5c; 32])), &Options::default()).unwrap();
    match d.output {
        Output::Digest(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Output::Raw => panic!("expected a digest: the fixture is over the budget"),
    }
}

/// Every line of a unified diff is a header or a line of a hunk; the word
/// "error" inside it (Rust source about errors, `#[error(...)]`, comments,
/// compiler-output test files) makes none of them decisive.
#[test]
fn a_diff_about_errors_has_no_decisive_line() {
    let a = load("text/git-diff-error-words");
    let text = String::from_utf8_lossy(a.bytes()).into_owned();
    let wordy = text
        .lines()
        .filter(|l| l.to_ascii_lowercase().contains("error"))
        .count();
    assert!(wordy > 20, "the premise: the diff talks about errors");
    // Structure, from the bytes: headers, hunk headers, and hunk lines.
    for l in text.lines() {
        let header = [
            "diff --git ",
            "index ",
            "--- ",
            "+++ ",
            "@@ ",
            "new file",
            "deleted file",
        ]
        .iter()
        .any(|h| l.starts_with(h));
        let hunk = l.is_empty() || l.starts_with([' ', '+', '-', '\\']);
        assert!(header || hunk, "not a diff line: {l:?}");
    }
    assert_eq!(decisive(&a), Vec::<String>::new());
    let out = digest(&a);
    for line in [
        "    \"error-handling\",",
        "-//!   same thing as if you had written an implementation of `std::error::Error`",
    ] {
        assert!(!out.lines().any(|l| l == line), "{line:?} kept:\n{out}");
    }
}

/// JSON keys, file names and keywords that say "error" are data.
#[test]
fn json_about_errors_has_no_decisive_line() {
    let a = load("text/npm-view-json");
    serde_json::from_slice::<serde_json::Value>(a.bytes()).expect("the fixture is JSON");
    let text = String::from_utf8_lossy(a.bytes()).into_owned();
    assert!(text.matches("error").count() > 50);
    assert_eq!(decisive(&a), Vec::<String>::new());
}

/// The error-shaped lines of real failing runs, read as text (`--as text`
/// or an unknown tool printing the same), are decisive; their warnings,
/// compile commands and passing lines are not.
#[test]
fn real_error_lines_stay_decisive() {
    let gcc = decisive(&load("gcc/gcc-make-k-late"));
    assert_eq!(
        gcc,
        vec![
            "src/x_types.c:5:23: error: incompatible types when initializing type ‘struct point *’ using type ‘struct point’",
            "src/x_types.c:6:19: error: ‘undefined_total’ undeclared (first use in this function)",
            "make: *** [Makefile:13: build/x_types.o] Error 1",
        ]
    );

    let cargo = decisive(&load("cargo_test/cold-deps"));
    assert_eq!(cargo.len(), 2, "{cargo:#?}");
    assert!(cargo[0].starts_with("thread 'tests::snake_case_of_camel' ("));
    assert!(cargo[0].ends_with(") panicked at src/lib.rs:57:9:"));
    assert_eq!(cargo[1], "error: test failed, to rerun pass `--lib`");

    let pytest = decisive(&load("pytest/default"));
    assert!(pytest.iter().any(|l| l.starts_with("FAILED ")));
    assert!(pytest.iter().any(|l| l.starts_with("E ")));
    assert!(pytest.iter().all(|l| !l.contains(" PASSED")));
}

/// Lines from the run of a tool, each one-line shape of the rule, and the
/// lines of diffs, JSON and sources that only mention the words.
#[test]
fn shapes_not_words() {
    let yes = [
        "error: could not find `Cargo.toml`",
        "error[E0308]: mismatched types",
        "Error: Cannot find module 'x'",
        "fatal: not a git repository (or any of the parent directories): .git",
        "FAILED tests/test_api.py::test_create - KeyError: 'id'",
        "FAIL: test_parse (test_mod.TestParse)",
        "panic: runtime error: index out of range [3] with length 3",
        "thread 'main' panicked at src/main.rs:3:5:",
        "Traceback (most recent call last):",
        "ValueError: invalid literal for int() with base 10: 'x'",
        "Exception in thread \"main\" java.lang.IllegalStateException: boom",
        "src/a.c:3:5: error: expected ‘;’ before ‘}’ token",
        "src/app.ts(4,7): error TS2322: Type 'string' is not assignable",
        "make: *** [Makefile:13: all] Error 2",
        "collect2: error: ld returned 1 exit status",
        "ls: cannot access 'nope': No such file or directory",
        "bash: frobnicate: command not found",
        "npm ERR! code E404",
        "##[error]Process completed with exit code 1.",
        "Process completed with exit code 2.",
        "subprocess.CalledProcessError: Command '['false']' returned non-zero exit status 1.",
        "exit status 1",
        "Segmentation fault (core dumped)",
        "2024-05-01T10:00:00.123Z ERROR request failed",
        "[ERROR] Failed to execute goal",
        "E       assert 1 == 2",
        "not ok 32 - ten percent off",
        "    not ok 2 - inner bad",
        "not ok 3 - addition works # TODO later",
        "  ✗ adds two numbers",
        "  ✕ renders the cart (5 ms)",
        "   × src/cart.test.ts > cart > applies discount",
        "✖ failing tests:",
        "[  FAILED  ] CartTest.AppliesDiscount (0 ms)",
        "--- FAIL: TestDiscount (0.00s)",
        "    --- FAIL: TestDiscount/ten_percent (0.00s)",
        "The following tests FAILED:",
        "testDiscount(com.shop.CartTest)  Time elapsed: 0.01 s  <<< FAILURE!",
        "Tests run: 3, Failures: 1, Errors: 1, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! - in com.shop.CartTest",
        "[INFO] BUILD FAILURE",
        "Finished: FAILURE",
        "cp: error writing 'out.bin': No space left on device",
        "/usr/bin/ld: main.o: in function `main': main.c:(.text+0x5): undefined reference to `total'",
    ];
    let no = [
        "+    // Returns an error when the input is empty.",
        "-//!   same thing as if you had written an implementation of `std::error::Error`",
        " #[error(\"{0}: case.json: {1}\")]",
        "@@ -4,10 +4,8 @@ error[E0277]: `MyError` doesn't implement `std::fmt::Display`",
        "    \"esnext.error.is-error\": {",
        "  \"description\": \"Serialize/deserialize an error into a plain object\",",
        "      \"error-constructors.js\",",
        "    if err != nil { return fmt.Errorf(\"could not open: %w\", err) }",
        "    raise ValueError(\"not found\")",
        "// error handling below",
        "Process completed with exit code 0.",
        "test result: ok. 3 passed; 0 failed",
        "warning: unused variable: `x`",
        "src/lib.rs:3: the errors module",
        "ok 31 - ten percent off",
        "# fail 0",
        "    ✓ adds two numbers",
        "[       OK ] CartTest.AppliesDiscount (0 ms)",
        "--- PASS: TestDiscount (0.00s)",
        "Tests run: 3, Failures: 0, Errors: 0, Skipped: 0",
        "[INFO] BUILD SUCCESS",
        "Finished: SUCCESS",
        "3 × 4 = 12",
        "+  not ok() is a helper",
    ];
    let check = |line: &str| {
        let a = Artifact::from_stdout(format!("{line}\n").into_bytes(), Exit::Code(1), vec![]);
        !decisive(&a).is_empty()
    };
    for l in yes {
        assert!(check(l), "should be decisive: {l:?}");
    }
    for l in no {
        assert!(!check(l), "should not be decisive: {l:?}");
    }
}

/// A source listing of an error-handling crate: doc comments, attributes
/// and code that say "error" on a third of their lines.
#[test]
fn a_source_listing_about_errors_has_no_decisive_line() {
    let a = load("text/git-show-source");
    let text = String::from_utf8_lossy(a.bytes()).into_owned();
    assert!(text.lines().filter(|l| l.contains("rror")).count() > 50);
    assert_eq!(decisive(&a), Vec::<String>::new());
}

/// `node --test` (TAP) with the tap family disabled, so text/v1 reads it:
/// every failing test of the run's own JUnit report is in the digest, as
/// the `not ok` line TAP printed.
#[test]
fn every_failing_tap_test_is_kept() {
    let a = load("text/node-test-tap");
    let text_only = Options {
        disabled: vec!["tap".into()],
        ..Options::default()
    };
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/node-test-tap/truth.json"),
        )
        .expect("truth.json"),
    )
    .expect("json");
    let d = pipeline::digest(&a, &Known(ArchiveKey([0x5c; 32])), &text_only).unwrap();
    assert_eq!(d.profile, "text/v1");
    let Output::Digest(bytes) = d.output else {
        panic!("expected a digest: the fixture is over the budget")
    };
    let shown = String::from_utf8_lossy(&bytes).into_owned();
    let failed = truth["failed"].as_array().expect("failed");
    assert!(failed.len() >= 6, "{truth}");
    for name in failed {
        let name = name.as_str().expect("name");
        assert!(
            shown.lines().any(
                |l| l.trim_start().starts_with("not ok ") && l.ends_with(&format!(" - {name}"))
            ),
            "{name} lost:\n{shown}"
        );
    }
}
