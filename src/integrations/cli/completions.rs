//! `ctx completions SHELL`: the shell's completion script for ctx, on
//! stdout, generated from the same clap definition the parser uses.

/// Arguments of `ctx completions`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    let mut cmd = super::command(false);
    clap_complete::generate(args.shell, &mut cmd, "ctx", &mut std::io::stdout());
    Ok(0)
}
