//! Test-only fault injection and limits, compiled into debug builds only
//! (what `cargo test` builds and runs); a release binary ignores them.
//!
//! - `CTX_FAULT=<stage>` makes that pipeline stage panic (`classify`,
//!   `extract`, `plan`, `archive`, `render`, `format` (a `--format`
//!   shape other than text), `ci` (annotations, the step summary),
//!   `ledger`), so the integration
//!   tests can prove through the built binary that a fault anywhere after
//!   capture still prints the raw output with the right status
//!   (invariant 8).
//! - `CTX_TEST_<NAME>=<n>` overrides a size limit (see [`limit`]) so that a
//!   test can reach a fallback without moving gigabytes.

/// The variable naming the stage to break.
pub const VAR: &str = "CTX_FAULT";

/// Panics when `CTX_FAULT` names `stage` (debug builds only).
pub fn point(stage: &str) {
    #[cfg(debug_assertions)]
    if std::env::var_os(VAR).is_some_and(|v| v == stage) {
        panic!("fault injected in {stage} ({VAR})");
    }
    #[cfg(not(debug_assertions))]
    let _ = stage;
}

/// `default`, or `CTX_TEST_<name>` in a debug build when it is a number.
pub fn limit(name: &str, default: usize) -> usize {
    #[cfg(debug_assertions)]
    if let Some(n) = std::env::var(format!("CTX_TEST_{name}"))
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    #[cfg(not(debug_assertions))]
    let _ = name;
    default
}
