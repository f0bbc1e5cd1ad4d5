//! `ctx digest FILE…`: the pipe pipeline for saved logs, one digest per file.

use std::io::Read;

use crate::artifact::{Artifact, Exit};

/// Arguments of `ctx digest`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files to digest; `-` is standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Read every file as this family instead of sniffing its content.
    #[arg(long = "as", value_name = "FAMILY")]
    pub family: Option<String>,
    #[arg(
        long,
        value_name = "TOKENS",
        help = super::budget::SHORT_HELP
    )]
    pub budget: Option<usize>,
}

/// Exit 0 when every file was digested, 2 when any could not be read (the
/// others are still digested).
pub fn execute(args: Args) -> anyhow::Result<i32> {
    super::pipe::check_family(args.family.as_deref())?;
    let many = args.files.len() > 1;
    let mut status = 0;
    for file in &args.files {
        let bytes = match read(file) {
            Ok(bytes) => bytes,
            Err(e) => {
                eprintln!("ctx: {file}: {e}");
                status = super::EXIT_CTX_ERROR;
                continue;
            }
        };
        if many {
            println!("[ctx] ==> {file} <==");
        }
        let mut artifact = Artifact::from_stdout(bytes, Exit::Unknown, Vec::new());
        artifact.label = Some(file.clone());
        artifact.family = args.family.clone();
        crate::deliver::ingested(&artifact, args.budget);
    }
    Ok(status)
}

fn read(file: &str) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if file == "-" {
        std::io::stdin().lock().read_to_end(&mut bytes)?;
    } else {
        std::fs::File::open(file)?.read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}
