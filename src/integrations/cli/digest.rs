//! `ctx digest [--label NAME] FILE…`: the pipe pipeline for saved logs, one digest per file.

use super::pipe::Ingest;
use crate::capture::spill::{self, Ingested, Place};
use crate::emit;

/// Arguments of `ctx digest`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files to digest; `-` is standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Read every file as this family instead of sniffing its content.
    #[arg(long = "as", value_name = "FAMILY")]
    pub family: Option<String>,
    /// What to call the input in the digest header and the ledger, as
    /// `ctx pipe --label` does (else the file's name in the header, and
    /// its family in `ctx gain`).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    #[arg(
        long,
        value_name = "TOKENS",
        help = super::budget::SHORT_HELP
    )]
    pub budget: Option<usize>,
    #[command(flatten)]
    pub output: super::format::FormatArgs,
    #[command(flatten)]
    pub ci: super::ci::CiArgs,
}

/// Exit 0 when every file was digested, 2 when any could not be read or
/// could not be given the shape asked for (`--format junit` of a build:
/// its text digest is printed instead), the others still digested.
///
/// Every input goes through the spill chain `ctx pipe` uses, `-` and files
/// alike: a large one is kept in an unlinked file, not in memory, and one
/// that no place can keep is passed through raw with one note, never lost.
pub fn execute(args: Args) -> anyhow::Result<i32> {
    super::pipe::check_family(args.family.as_deref())?;
    super::ci::check_shape(args.output.format, args.family.as_deref())?;
    // A SARIF log or a JUnit report is one document for one run: two
    // files would print two documents that no reader takes as one.
    if args.files.len() > 1
        && !args.output.formatting().shape_holds_raw_output()
        && !args.output.formatting().is_text()
    {
        anyhow::bail!(
            "--format {} reads one file per run; give the files one at a time",
            args.output.format.word()
        );
    }
    let formatting = super::ci::formatting(&args.output, &args.ci);
    // The `==>` lines separate text digests; a JSON document or a
    // markdown digest names its input itself.
    let many = args.files.len() > 1 && args.output.format == crate::format::Format::Text;
    let mut status = 0;
    for file in &args.files {
        let ingested = if file == "-" {
            if many {
                println!("[ctx] ==> {file} <==");
            }
            super::pipe::ingest_stdin()
        } else {
            match open_input(file) {
                Ok(mut opened) => {
                    if many {
                        println!("[ctx] ==> {file} <==");
                    }
                    ingest_file(&mut opened)
                }
                Err(e) => Ingest::Failed(e),
            }
        };
        let mut artifact = match ingested {
            Ingest::Kept(artifact) => artifact,
            Ingest::Done(0) => continue,
            Ingest::Done(other) => return Ok(other),
            Ingest::Failed(e) => {
                eprintln!("ctx: {file}: {e}");
                status = super::EXIT_CTX_ERROR;
                continue;
            }
        };
        // A label given is a name the user chose (`ctx pipe --label`'s
        // meaning); the file's name is only where the bytes were kept.
        artifact.label_is_file = args.label.is_none();
        artifact.label = Some(args.label.clone().unwrap_or_else(|| file.clone()));
        artifact.family = args.family.clone();
        if !crate::deliver::ingested(&artifact, args.budget, &formatting) {
            status = super::EXIT_CTX_ERROR;
        }
        if emit::reader_gone() {
            return Ok(super::pipe::reader_left());
        }
    }
    Ok(status)
}

/// A file to digest: a regular file, or a FIFO (`ctx digest <(make)` is
/// a pipe by design, read like `ctx pipe`'s stdin). A device or a socket
/// is refused before it is read: `/dev/zero` has no end to digest.
fn open_input(file: &str) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::FileTypeExt;
    let meta = std::fs::metadata(file)?;
    let t = meta.file_type();
    if t.is_char_device() || t.is_block_device() || t.is_socket() {
        return Err(crate::bounded::Refused::NotRegular {
            path: file.into(),
            what: crate::bounded::what(&meta),
        }
        .into());
    }
    std::fs::File::open(file)
}

/// A saved file, read into the spill chain.
fn ingest_file(file: &mut std::fs::File) -> Ingest {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match spill::read_input(file, &mut out, spill::spill_at(), &Place::fallbacks()) {
        Ok(Ingested::Kept(artifact)) => Ingest::Kept(artifact),
        Ok(Ingested::PassedThrough(why)) => {
            drop(out);
            eprintln!("[ctx] the input could not be kept ({why}); passed through raw");
            Ingest::Done(0)
        }
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            Ingest::Done(super::pipe::reader_left())
        }
        Err(e) => Ingest::Failed(e),
    }
}
