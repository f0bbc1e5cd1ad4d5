//! Many failures cost time linear in their number: a JUnit report and a
//! pytest run with N failing tests (half as many files as tests, pytest's
//! and JUnit's own layout, the census grouped then flooded), digested
//! whole (classify, extract, plan, render, guard) at three sizes, each
//! four times the last. Each size's CPU time per failure may not exceed
//! the smallest size's by more than `MAX_GROWTH`: work linear in the
//! input keeps the per-failure cost flat (the fixed cost of a run even
//! makes it fall), a stage that looks at every earlier failure for each
//! new one makes it grow with N (sixteen times over these sizes).
//!
//! Time, not a work counter: the stages that were quadratic (pairing a
//! summary line with its block, grouping by file, the census guard's
//! list of unnamed identities) compare strings, which no counter sees.
//! CPU time of this process (this file holds one test) is what the load
//! of other processes does not change.

use ctx::archive::Known;
use ctx::artifact::{Artifact, Exit};
use ctx::pipeline::{self, Options, Output};
use ctx::store::ArchiveKey;
use std::time::Duration;

/// The most the per-failure cost may grow from the smallest size to a
/// larger one. Linear work stays near 1; quadratic reaches 4 and 16.
const MAX_GROWTH: f64 = 2.5;

const SIZES: [usize; 3] = [2_000, 8_000, 32_000];

fn cpu() -> Duration {
    // SAFETY: an all-zero rusage is a valid value for getrusage to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid out-pointer.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// A pytest run's output with `n` failures, as pytest prints it: the
/// FAILURES section (one block per test) and the short summary.
fn pytest(n: usize) -> Vec<u8> {
    let mut out = String::new();
    out.push_str(
        "============================= test session starts ==============================\n\
         platform linux -- Python 3.11.2, pytest-8.3.4, pluggy-1.5.0\n",
    );
    out.push_str(&format!("collected {n} items\n\n"));
    out.push_str(
        "=================================== FAILURES ===================================\n",
    );
    for i in 0..n {
        out.push_str(&format!(
            "_________________________________ test_case_{i} _________________________________\n\n    \
             def test_case_{i}():\n>       assert {i} == 0\nE       assert {i} == 0\n\n\
             tests/test_m{}.py:{}: AssertionError\n",
            i / 2,
            i % 500 + 1
        ));
    }
    out.push_str(
        "=========================== short test summary info ============================\n",
    );
    for i in 0..n {
        out.push_str(&format!(
            "FAILED tests/test_m{}.py::test_case_{i} - assert {i} == 0\n",
            i / 2
        ));
    }
    out.push_str(&format!(
        "============================== {n} failed in 12.34s ==============================\n"
    ));
    out.into_bytes()
}

/// A JUnit report with `n` failing test cases, as pytest `--junitxml`
/// writes it.
fn junit(n: usize) -> Vec<u8> {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<testsuites><testsuite name=\"pytest\" \
         errors=\"0\" failures=\"{n}\" skipped=\"0\" tests=\"{n}\">\n"
    );
    for i in 0..n {
        out.push_str(&format!(
            "<testcase classname=\"tests.test_m{m}\" name=\"test_case_{i}\" time=\"0.001\">\
             <failure message=\"AssertionError: assert {i} == 0\">def test_case_{i}():\n\
             &gt;       assert {i} == 0\nE       AssertionError\ntests/test_m{m}.py:{l}: \
             AssertionError</failure></testcase>\n",
            m = i / 2,
            l = i % 500 + 1
        ));
    }
    out.push_str("</testsuite></testsuites>\n");
    out.into_bytes()
}

/// CPU time to digest `input` whole, and the digest's text.
fn digest(input: Vec<u8>, argv: &[&str]) -> (Duration, String) {
    let artifact = Artifact::from_stdout(
        input,
        Exit::Code(1),
        argv.iter().map(|s| s.to_string()).collect(),
    );
    let start = cpu();
    let delivery = pipeline::digest(&artifact, &Known(ArchiveKey([7; 32])), &Options::default())
        .expect("a family reads it");
    let spent = cpu() - start;
    let text = match delivery.output {
        Output::Digest(d) => String::from_utf8_lossy(&d).into_owned(),
        Output::Raw => panic!("the raw output, not a digest"),
    };
    (spent, text)
}

fn check(what: &str, make: fn(usize) -> Vec<u8>, argv: &[&str]) -> Vec<String> {
    // Warm: the first run pays for compiling patterns and loading tables.
    let _ = digest(make(200), argv);
    let mut per_item = Vec::new();
    for n in SIZES {
        let (spent, text) = digest(make(n), argv);
        let shown = ctx::words::count(n);
        assert!(
            text.contains(&shown),
            "{what} at {n}: the digest does not count {shown}:\n{text}"
        );
        per_item.push((n, spent.as_secs_f64() / n as f64));
    }
    println!("{what}: {per_item:?} (seconds per failure)");
    let (n0, base) = per_item[0];
    per_item[1..]
        .iter()
        .filter(|(_, cost)| *cost > base * MAX_GROWTH)
        .map(|(n, cost)| {
            format!(
                "{what}: {:.1} µs per failure at {n}, {:.1} µs at {n0} ({:.1}×)",
                cost * 1e6,
                base * 1e6,
                cost / base
            )
        })
        .collect()
}

#[test]
fn many_failures_cost_time_linear_in_their_number() {
    let mut failures = check("pytest", pytest, &["pytest"]);
    failures.extend(check("junit", junit, &[]));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
