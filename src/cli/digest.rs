//! `ctx digest`.

/// Arguments of `ctx digest`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<i32> {
    anyhow::bail!("`ctx digest` is not built yet")
}
