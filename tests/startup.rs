//! Start-up stays cheap: a run pays only for the profile that reads it.
//! Timings live in benches/startup.rs; these check the mechanism.

use ctx::archive::Disabled;
use ctx::artifact::{Artifact, Exit};
use ctx::classify;
use ctx::pipeline::{self, Options, Output};
use ctx::profiles::MatchedBy;

/// A real pytest run (fixtures/pytest/no-tests) under a command no table
/// knows, so only content sniffing could name pytest.
fn pytest_output_under_unknown_command() -> Artifact {
    let stdout = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/pytest/no-tests/stdout"
    ))
    .expect("fixture");
    Artifact::from_stdout(stdout, Exit::Code(5), vec!["./run-checks".into()])
}

/// Small output is printed verbatim whichever profile would read it, so
/// no profile's sniffing patterns may be compiled or run for it: the
/// pipeline classifies it by command only, although sniffing would have
/// claimed it.
#[test]
fn small_output_is_never_sniffed() {
    let artifact = pytest_output_under_unknown_command();
    let (_, sniffed) = classify::choose(&artifact, None).expect("classify");
    assert_eq!(
        sniffed.by,
        MatchedBy::Content,
        "the fixture no longer sniffs as a profile: pick another"
    );

    let delivery = pipeline::digest(
        &artifact,
        &Disabled("not needed".into()),
        &Options::default(),
    )
    .expect("no family forced");
    assert_eq!(
        delivery.matched.by,
        MatchedBy::Fallback,
        "{:?}",
        delivery.matched
    );
    assert_eq!(delivery.output, Output::Raw);
}

/// `ctx run`'s usual argv reaches the verb without clap's command tree
/// (which once parsed every contract for a help text on every run); other
/// verbs still get clap's parsing and errors.
#[test]
fn run_argv_skips_clap() {
    let argv = |w: &[&str]| w.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
    let before = ctx::cli::trees_built();
    let verb = ctx::cli::read_verb(argv(&["ctx", "run", "--label", "x", "--", "true"]));
    assert!(matches!(verb, Ok(ctx::cli::Verb::Run(_))));
    assert_eq!(ctx::cli::trees_built(), before);

    let err = ctx::cli::read_verb(argv(&["ctx", "run", "--budget", "lots", "--", "true"]));
    assert!(
        err.is_err(),
        "clap must refuse a budget that is not a number"
    );
    assert_eq!(ctx::cli::trees_built(), before + 1);
}
