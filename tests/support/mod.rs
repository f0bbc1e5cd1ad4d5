//! What the store and home integration tests share: the built ctx, run
//! against a private home with none of the caller's own settings.

use std::path::Path;
use std::process::Command;

/// `ctx ARGS` with `CTX_HOME=home`. The store's location and limits, the
/// budget, the ledger switch and the config file come from the test alone:
/// a developer's environment or `~/.config/ctx/config.toml` must not change
/// what a test sees.
pub fn ctx_cmd(home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ctx"));
    c.args(args).env("CTX_HOME", home);
    for var in [
        "CTX_STORE",
        "CTX_STORE_TIMEOUT",
        "CTX_NAMESPACE",
        "CTX_BUDGET",
        "CTX_NO_LEDGER",
        "CTX_STORE_MAX_BYTES",
        "CTX_STORE_MIN_AGE",
        "CTX_STORE_BUSY_TIMEOUT",
        "CTX_CONFIG",
        "XDG_CONFIG_HOME",
    ] {
        c.env_remove(var);
    }
    c
}
