//! `ctx explain`.

/// Arguments of `ctx explain`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<i32> {
    anyhow::bail!("`ctx explain` is not built yet")
}
