//! `ctx profiles`.

/// Arguments of `ctx profiles`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<i32> {
    anyhow::bail!("`ctx profiles` is not built yet")
}
