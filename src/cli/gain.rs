//! `ctx gain`.

/// Arguments of `ctx gain`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<i32> {
    anyhow::bail!("`ctx gain` is not built yet")
}
