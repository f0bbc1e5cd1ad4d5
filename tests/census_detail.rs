//! Detail that helps the next decision: when the census of many failures
//! uses the whole budget, the first (root-cause) failure's detail is still
//! shown, and each census line carries the decisive part of its message.

use std::path::Path;

use ctx::archive::Known;
use ctx::pipeline::{self, Options, Output};
use ctx::store::ArchiveKey;

fn digest(case: &str) -> String {
    digest_within(case, None)
}

fn digest_within(case: &str, budget: Option<usize>) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(case);
    let artifact = ctx::fixture::load(&dir).unwrap();
    let d = pipeline::digest(
        &artifact,
        &Known(ArchiveKey([0x5c; 32])),
        &Options {
            budget,
            ..Options::default()
        },
    )
    .unwrap();
    match &d.output {
        Output::Digest(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Output::Raw => panic!("{case}: raw output delivered"),
    }
}

/// 30 `mismatched types` errors: one census line says what was expected
/// and what was found, with every place it happened, and the first
/// error's block is shown.
#[test]
fn many_rustc_errors_keep_the_label_and_the_first_block() {
    let text = digest("cargo_test/build-failed-many");
    let line = text
        .lines()
        .find(|l| {
            l.trim_start().starts_with(
                "E0308 mismatched types: expected `u32`, found `u64` ×30 at 5:20, 11:20, ",
            )
        })
        .unwrap_or_else(|| panic!("no census line with the label:\n{text}"));
    assert!(line.ends_with(", 173:20, 179:20"), "{line:?}");
    assert!(
        text.contains("error[E0308]: mismatched types\n --> tests/sizes.rs:5:20"),
        "the first error's block is missing:\n{text}"
    );
}

/// Seven failing tests whose census takes the budget: the first one's
/// panic is still shown.
#[test]
fn many_test_failures_keep_the_first_failures_detail() {
    let text = digest("cargo_test/default");
    assert!(
        text.contains("panicked at src/lib.rs:94:9:\nassertion `left == right` failed\n  left: [2, 3, 4]\n right: [3, 4]"),
        "the first failure's detail is missing:\n{text}"
    );
}

/// 19 failing cases of one parametrized test, under a budget that holds
/// neither every id with its reason nor every id alone: one census line
/// names the test once, with the count and every case's parameters.
#[test]
fn parametrized_cases_are_grouped_under_their_test() {
    let text = digest_within("pytest/parametrized", Some(450));
    let line = text
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with("test_easter ×19 [1990-1990-04-15], ")
        })
        .unwrap_or_else(|| panic!("no grouped line:\n{text}"));
    for case in ["[1992-1992-04-19]", "[2014-2014-04-20]"] {
        assert!(line.contains(case), "{case} missing from {line:?}");
    }
    assert!(line.contains("(line 23)"), "{line:?}");
    assert!(
        !text.contains("test_easter[1992"),
        "cases listed one per line:\n{text}"
    );
    assert!(text.contains("test_easter_is_sunday"), "{text}");
}

/// The same run under the default budget: each case's id is printed whole,
/// copyable into `pytest`, before any grouping.
#[test]
fn parametrized_ids_stay_whole_while_they_fit() {
    let text = digest("pytest/parametrized");
    for case in [
        "test_easter[1990-1990-04-15]",
        "test_easter[2014-2014-04-20]",
    ] {
        assert!(
            text.lines().any(|l| l.trim() == case),
            "{case} not on a line of its own:\n{text}"
        );
    }
    assert!(!text.contains("test_easter ×19"), "grouped:\n{text}");
}

/// pytest cuts its short-summary lines at the terminal width
/// (`- AssertionError: as...`): when the census has room for reasons, it
/// says what was compared.
#[test]
fn cut_summary_lines_give_way_to_the_whole_reason() {
    let text = digest_within("pytest/default", Some(2000));
    for reason in [
        "AssertionError: assert '[draft]-plan' == 'draft-plan'",
        "AssertionError: assert 6 <= 5",
        "ConnectionError: cannot connect to postgres://db.invalid/shop",
    ] {
        assert!(text.contains(reason), "{reason:?} missing:\n{text}");
    }
    assert!(!text.contains("- AssertionError: as...\n"), "{text}");
}

/// Under the default budget the reasons of 15 failures do not fit beside
/// their ids: the ids stay, every one whole, and the reasons are one hop
/// away rather than cut mid-word.
#[test]
fn reasons_give_way_before_ids() {
    let text = digest("pytest/default");
    for id in [
        "test_slug_cases[[draft] Plan-draft-plan]",
        "TestDiscount::test_half_price",
        "ERROR TestQueries::test_query",
    ] {
        assert!(
            text.lines().any(|l| l.trim() == id),
            "{id:?} missing:\n{text}"
        );
    }
    assert!(!text.contains("AssertionError: as...\n"), "{text}");
}
