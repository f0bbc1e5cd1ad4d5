//! Each dialect on the lines its tools print, and the lines it must not
//! take for a finding.

use super::*;
use crate::artifact::{Exit, Span};

fn found(text: &str) -> Vec<(ItemKind, String)> {
    let a = Artifact::from_stdout(text.as_bytes().to_vec(), Exit::Code(1), vec![]);
    recognise(&a)
        .items
        .into_iter()
        .map(|i| (i.kind, i.identity))
        .collect()
}

fn ids(text: &str) -> Vec<String> {
    found(text).into_iter().map(|(_, id)| id).collect()
}

#[test]
fn located_dialects() {
    let text = "\
src/a.c:3:5: error: 'x' undeclared (first use in this function)
src/a.c:9:1: warning: unused variable 'y' [-Wunused-variable]
App.java:12: error: cannot find symbol
pkg/mod.py:3:1: E302 expected 2 blank lines, found 1
pkg/mod.py:4:80: W291 trailing whitespace
pkg/mod.py:7:0: C0103: Constant name \"x\" doesn't conform (invalid-name)
pkg/mod.py:9: [W0611(unused-import), ] Unused import os
src/app.ts(4,7): error TS2322: Type 'string' is not assignable to type 'number'.
src/b.ts:2:3 - error TS2304: Cannot find name 'q'.
error[E0308]: mismatched types
 --> src/main.rs:4:18
[ERROR] /w/src/main/java/App.java:[57,8] cannot find symbol
✘ [ERROR] Could not resolve \"left-pad\"

    src/index.js:1:7:
";
    assert_eq!(
        ids(text),
        vec![
            "src/a.c:3:5",
            "src/a.c:9:1 -Wunused-variable",
            "App.java:12",
            "pkg/mod.py:3:1 E302",
            "pkg/mod.py:4:80 W291",
            "pkg/mod.py:7:0 C0103",
            "pkg/mod.py:9 W0611",
            "src/app.ts:4:7 TS2322",
            "src/b.ts:2:3 TS2304",
            "src/main.rs:4:18 E0308",
            "/w/src/main/java/App.java:57:8",
            "src/index.js:1:7",
        ]
    );
}

#[test]
fn listings_and_timestamps_are_not_diagnostics() {
    let text = "\
src/lib.rs:12:fn main() {
10:00:00: error: a log line
src/a.rs:3:    let error: u32 = 1;
+src/a.c:3:5: error: quoted by a diff
";
    assert!(ids(text).is_empty(), "{:?}", ids(text));
}

#[test]
fn test_verdicts() {
    let text = "\
FAIL: test_add (calc.tests.TestCalc.test_add)
ERROR: test_div (calc.tests.TestCalc)
FAILED tests/test_a.py::test_x[1-2] - assert 1 == 2
not ok 3 - rounds half up
    not ok 1 - inner
not ok 4 - later # TODO not written
  ✕ renders the header (12 ms)
✖ 3 problems (3 errors, 0 warnings)
[  FAILED  ] MathTest.Divides (0 ms)
[  FAILED  ] 1 test, listed below:
--- FAIL: TestParse (0.00s)
FAIL\texample.com/m [build failed]
1/3 Test #2: parser_test ......................***Failed    0.01 sec
\t  3 - io_test (Timeout)
[ERROR] testAdd(com.x.AppTest)  Time elapsed: 0.01 s  <<< FAILURE!
[ERROR] com.x.AppTest.testDiv -- Time elapsed: 0.002 s <<< ERROR!
[ERROR] Tests run: 3, Failures: 1, Errors: 1, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! - in com.x.AppTest
rspec ./spec/calc_spec.rb:12 # Calc adds
";
    assert_eq!(
        ids(text),
        vec![
            "calc.tests.TestCalc.test_add",
            "calc.tests.TestCalc.test_div",
            "tests/test_a.py::test_x[1-2]",
            "rounds half up",
            "inner",
            "renders the header",
            "MathTest.Divides",
            "TestParse",
            "example.com/m",
            "parser_test",
            "io_test",
            "com.x.AppTest.testAdd",
            "com.x.AppTest.testDiv",
            "./spec/calc_spec.rb:12",
        ]
    );
}

#[test]
fn numbered_failure_blocks() {
    let mocha = "\
  2 passing (8ms)
  2 failing

  1) Array
       #indexOf()
         should return -1:
     AssertionError [ERR_ASSERTION]: 1 == -1
      at Context.<anonymous> (test/a.js:6:14)

  2) Array fails too:
     Error: boom
";
    assert_eq!(
        ids(mocha),
        vec!["Array #indexOf() should return -1", "Array fails too"]
    );
    let phpunit = "\
There were 2 failures:

1) Tests\\CalcTest::testAdd
Failed asserting that 3 matches expected 4.

2) Tests\\CalcTest::testSub with data set #1 (1, 2)
Failed asserting that false is true.

FAILURES!
";
    assert_eq!(
        ids(phpunit),
        vec![
            "Tests\\CalcTest::testAdd",
            "Tests\\CalcTest::testSub with data set #1 (1, 2)"
        ]
    );
    let minitest = "\
  1) Failure:
TestCalc#test_add [test/calc_test.rb:8]:
Expected: 4
  2) Error:
TestCalc#test_div:
ZeroDivisionError: divided by 0
  3) Failure:
Inventory::#level#test_0001_reports what is left after a reservation [test/inventory_test.rb:27]:
Expected: 3
";
    // A spec-style test (`describe`/`it`) is named by its description,
    // spaces and all.
    assert_eq!(
        ids(minitest),
        vec![
            "TestCalc#test_add",
            "TestCalc#test_div",
            "Inventory::#level#test_0001_reports what is left after a reservation"
        ]
    );
}

#[test]
fn would_change_lists() {
    let text = "\
would reformat src/app.py
error: cannot format src/bad.py: Cannot parse: 3:4: def (
Oh no! 💥 💔 💥
[warn] src/index.js
[warn] Code style issues found in 2 files. Run Prettier with --write to fix.
Diff in /w/src/main.rs at line 3:
Diff in /w/src/main.rs at line 9:
";
    assert_eq!(
        ids(text),
        vec!["src/app.py", "src/bad.py", "src/index.js", "/w/src/main.rs"]
    );
}

#[test]
fn crashes_with_their_chains() {
    let python = "\
Traceback (most recent call last):
  File \"/w/app.py\", line 3, in load
    return int(s)
ValueError: invalid literal for int() with base 10: 'x'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File \"/w/app.py\", line 9, in <module>
    main()
  File \"/w/app.py\", line 6, in main
    raise RuntimeError('bad config')
RuntimeError: bad config
";
    assert_eq!(
        found(python),
        vec![(ItemKind::Crash, "RuntimeError at /w/app.py:6".to_string())]
    );
    let java = "\
Exception in thread \"main\" java.lang.IllegalStateException: no config
\tat java.base/java.util.Objects.requireNonNull(Objects.java:259)
\tat com.x.App.load(App.java:12)
\tat com.x.App.main(App.java:5)
Caused by: java.io.FileNotFoundException: app.conf
\t... 2 more
";
    let a = Artifact::from_stdout(java.as_bytes().to_vec(), Exit::Code(1), vec![]);
    let items = recognise(&a).items;
    assert_eq!(items.len(), 1);
    assert_eq!(
        items[0].identity,
        "java.lang.IllegalStateException at com.x.App.load(App.java:12)"
    );
    assert_eq!(items[0].fields["cause"], "java.io.FileNotFoundException");
    let node = "\
/w/index.js:2
  null.x
       ^

TypeError: Cannot read properties of null (reading 'x')
    at Object.<anonymous> (/w/index.js:2:8)
    at Module._compile (node:internal/modules/cjs/loader:1364:14)
";
    assert_eq!(
        ids(node),
        vec!["TypeError at Object.<anonymous> (/w/index.js:2:8)"]
    );
    let rust = "thread 'main' panicked at src/main.rs:3:5:\nindex out of bounds\n";
    assert_eq!(ids(rust), vec!["thread 'main' panicked at src/main.rs:3:5"]);
    let go = "\
panic: runtime error: index out of range [3] with length 1

goroutine 1 [running]:
main.main()
\t/w/main.go:7 +0x1d
exit status 2
";
    assert_eq!(ids(go), vec!["panic at /w/main.go:7"]);
}

#[test]
fn build_verdicts() {
    let text = "\
make[1]: *** [Makefile:13: app.o] Error 1
make: *** Waiting for unfinished jobs....
make: *** [Makefile:5: all] Error 2
FAILED: CMakeFiles/app.dir/main.c.o
/usr/bin/ld: main.o: in function `main':
main.c:(.text+0x9): undefined reference to `helper'
collect2: error: ld returned 1 exit status
error: failed to run custom build command for `sys v0.1.0 (/w/sys)`
error: could not compile `app` (bin \"app\") due to 2 previous errors
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project app: Compilation failure
[INFO] BUILD FAILURE
> Task :app:test FAILED
npm error code ELIFECYCLE
Finished: FAILURE
##[error]Process completed with exit code 1.
./run.sh: line 3: 4242 Killed                  ./worker
write: No space left on device
";
    assert_eq!(
        ids(text),
        vec![
            "make [Makefile:13: app.o]",
            "make [Makefile:5: all]",
            "ninja: CMakeFiles/app.dir/main.c.o",
            "undefined reference to helper",
            "ld returned 1 exit status",
            "build script of sys v0.1.0",
            "could not compile app",
            "org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile on project app",
            "BUILD FAILURE",
            "task :app:test",
            "npm error code ELIFECYCLE",
            "Finished: FAILURE",
            "Process completed with exit code 1.",
            "Killed",
            "No space left on device",
        ]
    );
}

#[test]
fn a_crash_under_a_failing_test_is_its_detail() {
    let text = "\
not ok 1 - parses
  ---
  error: boom
  ...
FAIL: test_x (m.T.test_x)
Traceback (most recent call last):
  File \"/w/t.py\", line 4, in test_x
    raise ValueError('v')
ValueError: v
";
    let a = Artifact::from_stdout(text.as_bytes().to_vec(), Exit::Code(1), vec![]);
    let items = recognise(&a).items;
    let ids: Vec<&str> = items.iter().map(|i| i.identity.as_str()).collect();
    assert_eq!(ids, vec!["parses", "m.T.test_x"]);
    assert_eq!(items[1].detail, vec![Span::line(9)]);
}

#[test]
fn every_identity_once() {
    let text = "not ok 1 - a\nnot ok 1 - a\n[  FAILED  ] S.T (1 ms)\n[  FAILED  ] S.T\n";
    assert_eq!(ids(text), vec!["a", "S.T"]);
}

#[test]
fn located_heads_are_found_by_bytes() {
    assert!(words::opens_with_location(b"src/a.c:3:5: error: x"));
    assert!(words::opens_with_location(b"a.ts(4,7): error TS1: x"));
    assert!(words::opens_with_location(b"a.py:12: [W0611]"));
    assert!(!words::opens_with_location(b"C:\\x\\y.c: error"));
    assert!(!words::opens_with_location(b"note: see src/a.c:3"));
    assert!(!words::opens_with_location(b"plain prose: 12 apples"));
    // Timestamps and addresses open like locations and are none.
    assert!(!words::opens_with_location(
        b"2026-11-29T12:00:05Z INFO worker 3: ok"
    ));
    assert!(!words::opens_with_location(b"12:00:00 started"));
    assert!(!words::opens_with_location(b"10.0.0.1:8080: refused"));
}

#[test]
fn dialects_under_a_heading() {
    let eslint = "\
/w/src/a.js
    2:10  warning  Identifier 'x_y' is not in camel case  camelcase
    5:3   error    Unexpected var, use let or const instead  no-var

/w/src/b.js
  1:1  error  Parsing error: Unexpected token
";
    assert_eq!(
        ids(eslint),
        vec![
            "/w/src/a.js:2:10 camelcase",
            "/w/src/a.js:5:3 no-var",
            "/w/src/b.js:1:1"
        ]
    );
    let shellcheck = "\
In scripts/run.sh line 3:
echo $1
     ^-- SC2086 (info): Double quote to prevent globbing and word splitting.
";
    assert_eq!(ids(shellcheck), vec!["scripts/run.sh:3:6 SC2086"]);
    let ruff = "E401 [*] Multiple imports on one line\n --> webapp/views.py:1:1\n  |\n";
    assert_eq!(ids(ruff), vec!["webapp/views.py:1:1 E401"]);
    let jest = "FAIL __tests__/cart.test.js\n  ● cart › applyDiscount › ten percent off\n\nFAIL __tests__/bad.test.js\n  ● Test suite failed to run\n";
    assert_eq!(
        found(jest),
        vec![
            (
                ItemKind::FailingTest,
                "cart › applyDiscount › ten percent off".to_string()
            ),
            (ItemKind::SuiteNotRun, "__tests__/bad.test.js".to_string()),
        ]
    );
    let vitest = "   × cart > summarize sorts names 3ms\n FAIL  src/cart.test.ts > cart > summarize sorts names\n";
    assert_eq!(
        ids(vitest),
        vec![
            "cart > summarize sorts names",
            "src/cart.test.ts > cart > summarize sorts names"
        ]
    );
    assert_eq!(ids("---- tests::adds stdout ----\n"), vec!["tests::adds"]);
}

#[test]
fn eslint_and_shellcheck_formats() {
    let text = "\
/w/a.js:5:3: Unexpected var, use let or const instead. [Error/no-var]
/w/b.js: line 2, col 8, Warning - 'p' is defined but never used. (no-unused-vars)
scripts/d.sh:7:7: note: Double quote to prevent globbing and word splitting. [SC2086]
src/a.c:4:2: note: declared here
In package/bin/n line 118:
if [ -n \"$HTTP_USER\" ];then
   ^-----------------^ SC2292 (style): Prefer [[ ]] over [ ] for tests in Bash/Ksh.
";
    assert_eq!(
        ids(text),
        vec![
            "/w/a.js:5:3 no-var",
            "/w/b.js:2:8 no-unused-vars",
            "scripts/d.sh:7:7 SC2086",
            "package/bin/n:118:4 SC2292",
        ]
    );
}

#[test]
fn subtests_and_files_that_did_not_load() {
    let text = "\
FAIL: test_composites (tests.test_grid.TestPrimes.test_composites) (n=6)
SUBFAILED[label alpha] (size=5) tests/test_grid.py::TestPrimes::test_labels
 FAIL  test/inventory.test.js [ test/inventory.test.js ]
unformatted: File would be reformatted
   --> documentation/conf.py:11:2
";
    assert_eq!(
        ids(text),
        vec![
            "tests.test_grid.TestPrimes.test_composites (n=6)",
            "tests/test_grid.py::TestPrimes::test_labels [label alpha] (size=5)",
            "test/inventory.test.js",
            "documentation/conf.py",
        ]
    );
}

#[test]
fn held_lines_are_asked_in_log_time_and_exactly() {
    let mut a = EvidenceItem::new(ItemKind::FailingTest, crate::evidence::Severity::Error, "a");
    a.block = Some(Span::new(3, 9));
    let mut b = EvidenceItem::new(ItemKind::FailingTest, crate::evidence::Severity::Error, "b");
    b.headline = Some(Span::line(5));
    let mut c = EvidenceItem::new(ItemKind::FailingTest, crate::evidence::Severity::Error, "c");
    c.headline = Some(Span::line(20));
    let held = held_by(&[a, b, c]);
    let holds: Vec<usize> = (1..=22).filter(|&n| held.holds(n)).collect();
    assert_eq!(holds, vec![3, 4, 5, 6, 7, 8, 9, 20]);
}

/// CTest's verdicts: a disabled or skipped test is no failure; a crash is
/// named by what CTest says happened (`SegFault`), not by `Exception`.
#[test]
fn ctest_words() {
    let text = "\
 7/33 Test  #7: MoneyTest.SplitsRemainder ...........***Not Run (Disabled)   0.00 sec
 8/33 Test  #8: MoneyTest.ConvertsCurrency ..........***Skipped   0.00 sec
 9/33 Test  #9: MoneyTest.FoldsSlowly ...............***Timeout   2.00 sec
12/33 Test #12: io_roundtrip .....................***Not Run   0.00 sec
25/33 Test #25: CrashTest.ReadsThroughNull ..........***Exception: SegFault  0.00 sec
26/33 Test #26: AbortTest.Aborts ....Subprocess aborted***Exception:   0.01 sec
\t  7 - MoneyTest.SplitsRemainder (Disabled)
\t  8 - MoneyTest.ConvertsCurrency (Skipped)
";
    let a = Artifact::from_stdout(text.as_bytes().to_vec(), Exit::Code(8), vec![]);
    let items: Vec<(ItemKind, String, Option<String>)> = recognise(&a)
        .items
        .into_iter()
        .map(|i| (i.kind, i.identity, i.class))
        .collect();
    let class = |c: &str| Some(c.to_string());
    assert_eq!(
        items,
        vec![
            (
                ItemKind::FailingTest,
                "MoneyTest.FoldsSlowly".to_string(),
                class("Timeout")
            ),
            (
                ItemKind::SuiteNotRun,
                "io_roundtrip".to_string(),
                class("Not Run")
            ),
            (
                ItemKind::FailingTest,
                "CrashTest.ReadsThroughNull".to_string(),
                class("SegFault")
            ),
            (
                ItemKind::FailingTest,
                "AbortTest.Aborts".to_string(),
                class("Subprocess aborted")
            ),
        ]
    );
}

/// Go's compiler, go vet and staticcheck: `file.go:line:col: message`,
/// `vet: ` before a package that does not type check, staticcheck's code
/// at the end; a test's `t.Errorf` line (indented, no column) is none.
/// Two findings at one place are one identity to the layer, as always.
#[test]
fn go_dialects() {
    let text = "\
# example.com/shop/cart
cart/cart.go:20:9: Total passes lock by value: example.com/shop/cart.Cart contains sync.Mutex
vet: broken/broken.go:5:3: undeclared name: sum
cart/cart.go:25:13: Printf format %s reads arg #2, but call has only 1 args (SA5009)
inventory/stock.go:8:16: error strings should not be capitalized (ST1005)
inventory/stock.go:8:16: error strings should not end with punctuation or newlines (ST1005)
    cart_test.go:12: expected 3, got 2
";
    assert_eq!(
        ids(text),
        vec![
            "cart/cart.go:20:9",
            "broken/broken.go:5:3 compile",
            "cart/cart.go:25:13 SA5009",
            "inventory/stock.go:8:16 ST1005",
        ]
    );
}

/// The failing cases of XML test reports, by their verdicts: JUnit's
/// child element (on the same line or the next), NUnit's and xUnit.net's
/// `result`; an empty `<failure>` under a passing NUnit case is none.
#[test]
fn xml_report_cases() {
    let text = r#"<testsuite name="pytest" tests="3"><testcase classname="tests.test_a" name="test_x" time="0.1"><failure message="assert 1 == 2">E assert</failure></testcase><testcase classname="tests.test_a" name="test_ok" time="0.1" />
    <testcase classname="cart" name="adds &quot;one&quot;" time="0">
      <error message="boom">TypeError</error>
    </testcase>
<test-case id="1" name="t1" fullname="tests/t.py::test_pass" result="Passed" label=""><failure><message><![CDATA[]]></message></failure></test-case><test-case id="2" fullname="tests/t.py::test_fail" result="Failed" label="">
<test-case id="3" fullname="App.Tests.Raises" result="Failed" label="Error">
      <test name="Cart total multiplies" time="0.001" result="Fail">
      <test name="Cart total sums" time="0" result="Pass">
    <UnitTestResult testId="e4" testName="cart / applyDiscount / ten percent off" outcome="Failed" testListId="8c">
    <UnitTestResult testId="e5" testName="cart / total" outcome="Passed"/>
"#;
    assert_eq!(
        found(text),
        vec![
            (ItemKind::FailingTest, "tests.test_a::test_x".to_string()),
            (ItemKind::TestError, "cart::adds \"one\"".to_string()),
            (ItemKind::FailingTest, "tests/t.py::test_fail".to_string()),
            (ItemKind::TestError, "App.Tests.Raises".to_string()),
            (ItemKind::FailingTest, "Cart total multiplies".to_string()),
            (
                ItemKind::FailingTest,
                "cart / applyDiscount / ten percent off".to_string(),
            ),
        ]
    );
}
