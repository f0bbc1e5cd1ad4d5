//! Invariant 9, line by line: a digest line is a raw line (normalized), a
//! `[ctx]` line, or the one header line of the documented form
//! (docs/invariants.md). Anything else sends the raw output instead.

use ctx::artifact::{Artifact, Exit};
use ctx::guard::{self, Rejection};
use ctx::plan::DeliveryPlan;
use ctx::render::{Origin, Rendered, RenderedLine};

fn artifact() -> Artifact {
    let text: String = (1..=400)
        .map(|i| format!("line {i}: some output the tool printed\n"))
        .collect();
    Artifact::from_stdout(text.into_bytes(), Exit::Code(1), vec!["tool".into()])
}

fn check(lines: &[(Origin, &str)]) -> Result<Vec<u8>, Rejection> {
    let a = artifact();
    let rendered = Rendered {
        lines: lines
            .iter()
            .map(|(origin, text)| RenderedLine {
                origin: *origin,
                text: text.to_string(),
            })
            .collect(),
    };
    let plan = DeliveryPlan::verbatim(500, 10, "test");
    guard::accept(&a, &plan, &rendered, None, 100_000)
}

#[test]
fn headers_of_the_documented_form_pass() {
    for header in [
        "pytest: FAILED · 3 failed, 495 passed, 2 skipped · exit 1",
        "cargo test: PASSED · 1,500 passed · exit 0",
        "go test: FAILED · 9 failed, 3 packages failed, 1 package no test files · exit 1",
        "junit: UNKNOWN · 3 errors, 0 passed",
        "make: INTERRUPTED · killed by signal 9",
        "ruff check: OK",
    ] {
        let got = check(&[
            (Origin::Header, header),
            (Origin::Raw(1), "line 1: some output the tool printed"),
        ]);
        assert!(got.is_ok(), "{header}: {got:?}");
    }
}

#[test]
fn a_header_that_is_not_of_the_form_is_rejected() {
    for header in [
        // Looks like tool output, is not in it.
        "error: could not compile `app` due to 2 previous errors",
        "pytest: all good",
        "pytest: FAILED · 3 failed · exit 1 · but it is fine",
        "FAILED tests/test_api.py::test_create_user",
        "[ctx] pytest: FAILED",
        "",
    ] {
        assert_eq!(
            check(&[(Origin::Header, header)]),
            Err(Rejection::Untruthful(1)),
            "{header:?}"
        );
    }
}

#[test]
fn the_header_is_the_first_line_and_there_is_one() {
    let header = "pytest: FAILED · 1 failed · exit 1";
    assert_eq!(
        check(&[
            (Origin::Raw(1), "line 1: some output the tool printed"),
            (Origin::Header, header)
        ]),
        Err(Rejection::Untruthful(2))
    );
    assert_eq!(
        check(&[(Origin::Header, header), (Origin::Header, header)]),
        Err(Rejection::Untruthful(2))
    );
}

#[test]
fn raw_and_ctx_lines_are_checked() {
    assert!(check(&[(Origin::Raw(2), "line 2: some output the tool printed")]).is_ok());
    assert_eq!(
        check(&[(Origin::Raw(2), "line 2: some output the tool did not print")]),
        Err(Rejection::Untruthful(1))
    );
    assert_eq!(
        check(&[(Origin::Raw(0), "")]),
        Err(Rejection::Untruthful(1))
    );
    assert!(check(&[(Origin::Ctx, "[ctx] … 3 lines omitted")]).is_ok());
    assert_eq!(
        check(&[(Origin::Ctx, "ctx: 3 lines omitted")]),
        Err(Rejection::Untruthful(1))
    );
    assert_eq!(
        check(&[(Origin::Ctx, "[ctx] two\nlines")]),
        Err(Rejection::Untruthful(1))
    );
}
