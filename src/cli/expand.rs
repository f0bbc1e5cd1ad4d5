//! `ctx expand`.

/// Arguments of `ctx expand`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<i32> {
    anyhow::bail!("`ctx expand` is not built yet")
}
