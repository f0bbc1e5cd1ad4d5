//! `ctx run [--digest] [--as FAMILY] [--budget N] [--label NAME] -- CMD…`
//!
//! A person at a terminal sees the command live: with stdout a terminal and
//! no `--digest`, ctx execs the command in place, so colours, progress bars
//! and the exit status are the command's own by construction. Otherwise
//! ctx captures, digests, and ends the way the command ended.

use std::ffi::OsString;
use std::io::{self, IsTerminal, Write};
use std::os::fd::AsFd;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::artifact::Exit;
use crate::capture::{self, CaptureError, Captured, CutShort};
use crate::classify::UnknownFamily;
use crate::emit::{self, RawTo};
use crate::ledger::last_run::DeltaSource;
use crate::pipeline::{self, Options, Sinks};
use crate::{archive, ledger, profiles};

/// Arguments of `ctx run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Digest even when stdout is a terminal or leads somewhere other than
    /// the agent (`| head`, `> f`, `$( )`): normally the command then runs
    /// in place, undigested.
    #[arg(long)]
    pub digest: bool,
    /// Read the output as this family instead of classifying it.
    #[arg(long = "as", value_name = "FAMILY")]
    pub family: Option<String>,
    #[arg(
        long,
        value_name = "TOKENS",
        help = super::budget::SHORT_HELP
    )]
    pub budget: Option<usize>,
    /// A name for this run in digests and the ledger, instead of its argv.
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// No re-run delta: the full digest even when the same command ran
    /// recently (docs/deltas.md).
    #[arg(long)]
    pub no_delta: bool,
    /// The command and its arguments.
    #[arg(
        value_name = "CMD",
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<OsString>,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    // Checked before anything runs: a typo must not cost a second run.
    if let Some(family) = &args.family
        && profiles::by_family(family).is_none()
    {
        return Err(UnknownFamily(family.clone()).into());
    }
    // A command that prints secrets by design runs as if ctx were not
    // there, even under --digest: its output is never captured, digested,
    // archived or recorded (docs/secrets.md).
    let words: Vec<String> = args
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let secret = crate::command::secrets::prints_secrets(&words).is_some();
    if secret || (!args.digest && (io::stdout().is_terminal() || downstream().is_some())) {
        let failure = capture::exec(&args.command);
        eprintln!("ctx: {failure}");
        return Ok(failure.status());
    }

    let captured = match capture::run(&args.command) {
        Ok(captured) => captured,
        Err(CaptureError::Launch(failure)) => {
            eprintln!("ctx: {failure}");
            return Ok(failure.status());
        }
        Err(e) => return Err(e.into()),
    };
    let exit = deliver(
        captured,
        args.family,
        args.label,
        args.budget,
        !args.no_delta,
    );
    Ok(capture::exit_like(exit))
}

/// Why ctx's stdout positively does not reach the agent (invariant 7, the
/// shims' rule: `ctx run -- CMD | head`, `> f`, `$( )`, or an outer ctx
/// already capturing), or `None`. Such output must be the raw bytes, and
/// exec is the one way to give the reader (and the command) exactly what
/// it would have had without ctx: `seq 1 10000000 | head -1` then dies of
/// SIGPIPE at once, as bare.
fn downstream() -> Option<String> {
    let ctx = crate::shim::locate::ctx_binary().ok()?;
    let proc_root = Path::new("/proc");
    let own = std::fs::read_link(proc_root.join("self/fd/1")).ok()?;
    let me = crate::shim::procfs::Process::read(proc_root, std::process::id())?;
    crate::shim::audience::elsewhere(proc_root, &own.to_string_lossy(), &ctx, &me)
}

/// Digests and prints (or, for a capture cut short, replays); returns how
/// the command ended. Whatever goes wrong in here, the raw output goes out
/// and the caller still ends with the command's status (invariant 8:
/// `pipeline::run` is the isolation boundary).
pub(crate) fn deliver(
    captured: Captured,
    family: Option<String>,
    label: Option<String>,
    budget: Option<usize>,
    delta: bool,
) -> Exit {
    let mut artifact = match captured {
        Captured::Complete(artifact) => artifact,
        Captured::CutShort(cut) => {
            cut_short(&cut);
            return cut.exit;
        }
        Captured::PassedThrough { exit, why } => {
            emit::note(&format!(
                "[ctx] the output could not be kept ({why}); passed through raw"
            ));
            return exit;
        }
    };
    artifact.family = family;
    artifact.label = label;
    let archive = archive::open_default();
    let ledger = ledger::open_default();
    let sinks = Sinks {
        archive: &*archive,
        ledger: &*ledger,
        raw_to: RawTo::Split,
    };
    let options = Options {
        delta: delta.then(DeltaSource::from_env).flatten(),
        ..Options::configured(budget)
    };
    let _ = pipeline::run(&artifact, &sinks, &options);
    artifact.exit
}

/// How long ctx keeps writing the raw output after a stop request: the
/// user asked it to end, and a bare command would already have.
/// 150 ms keeps the whole stop (forwarding, the last look into the pipes,
/// the replay, the note) within 200 ms of the child's end
/// (docs/performance.md).
pub const STOP_GRACE: Duration = Duration::from_millis(150);

/// A capture that must not be digested (`Captured::CutShort`).
///
/// After a stop request the reader gets the raw output, as it would have
/// seen it live, for at most [`STOP_GRACE`]: the digest's cost (seconds on
/// a large output) is not paid, nothing is archived (what is written is
/// the original itself), and a reader that does not keep up cannot hold
/// ctx. What the grace period could not write is declared in the note.
///
/// When the reader of stdout is gone, only stderr, whose reader may still
/// be there, is replayed.
fn cut_short(cut: &CutShort) {
    let (bytes, segments) = (cut.bytes.as_slice(), &cut.segments[..]);
    if cut.reader_gone && cut.stopped_by.is_none() {
        let _ = emit::replay(
            bytes,
            segments,
            RawTo::Split,
            &mut io::sink(),
            &mut io::stderr().lock(),
        );
        return;
    }
    let until = Instant::now() + STOP_GRACE;
    let (stdout, stderr) = (io::stdout(), io::stderr());
    let mut out = emit::Deadline::new(stdout.as_fd(), until);
    let mut err = emit::Deadline::new(stderr.as_fd(), until);
    let result = if cut.reader_gone {
        emit::replay(bytes, segments, RawTo::Split, &mut io::sink(), &mut err)
    } else {
        emit::replay(bytes, segments, RawTo::Split, &mut out, &mut err)
    };
    let name = cut.stopped_by.map_or_else(String::new, |signal| {
        nix::sys::signal::Signal::try_from(signal)
            .map_or_else(|_| format!("signal {signal}"), |s| s.as_str().to_string())
    });
    let note = match result {
        Ok(()) => format!("[ctx] {name} while capturing; output not digested\n"),
        Err(_) => format!(
            "[ctx] {name} while capturing; output not digested, cut after {} of {} bytes\n",
            out.written + err.written,
            bytes.len()
        ),
    };
    let mut err = emit::Deadline::new(stderr.as_fd(), Instant::now() + STOP_GRACE);
    let _ = err.write_all(note.as_bytes());
}
