//! `ctx store`.

/// Arguments of `ctx store`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<i32> {
    anyhow::bail!("`ctx store` is not built yet")
}
