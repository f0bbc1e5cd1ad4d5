//! `ctx run`.

/// Arguments of `ctx run`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<i32> {
    anyhow::bail!("`ctx run` is not built yet")
}
