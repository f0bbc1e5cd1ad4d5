//! `ctx pipe`.

/// Arguments of `ctx pipe`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<i32> {
    anyhow::bail!("`ctx pipe` is not built yet")
}
