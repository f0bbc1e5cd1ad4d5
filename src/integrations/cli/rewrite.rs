//! `ctx rewrite "CMD LINE"`: prints the line with each command ctx knows
//! wrapped in `ctx run --`; exit 0 when something was rewritten, 1 when the
//! line is printed unchanged. The rules are in src/integrations/rewrite/mod.rs.

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shell command line, as one argument.
    pub line: String,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    match crate::rewrite::rewrite(&args.line) {
        Some(line) => {
            println!("{line}");
            Ok(0)
        }
        None => {
            println!("{}", args.line);
            Ok(1)
        }
    }
}
