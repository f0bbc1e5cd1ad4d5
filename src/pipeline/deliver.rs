//! One `deliver` for every verb and the shims: runs the pipeline (a
//! function of the artifact), then emits what it returns and records it
//! in the ledger, all inside one isolation boundary (invariant 8).

use std::cell::Cell;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use crate::archive::{self, Archive};
use crate::artifact::{Artifact, Exit};
use crate::capture::{Captured, CutShort};
use crate::delivery::Delivery;
use crate::emit::{self, RawTo};
use crate::fault;
use crate::guard::{self, Rejection};
use crate::ledger::last_run::DeltaSource;
use crate::ledger::{self, LedgerSink};
use crate::pipeline::{self, Options};

/// Exit status for ctx's own failures (bad usage, unreadable input).
pub const EXIT_CTX_ERROR: i32 = 2;

/// Where the pipeline's effects go.
pub struct Sinks<'a> {
    pub archive: &'a dyn Archive,
    pub ledger: &'a dyn LedgerSink,
    pub raw_to: RawTo,
}

/// Digests, emits and records one artifact, every stage (classify,
/// extract, plan, archive, render, guard, ledger) inside one isolation
/// boundary (invariant 8): whatever faults, the raw output goes out exactly
/// once, followed by one `[ctx]` note, and the caller still ends with the
/// command's status. `Err` says which fault replaced the delivery.
pub fn run(artifact: &Artifact, sinks: &Sinks, options: &Options) -> Result<Delivery, Rejection> {
    // Set just before the first byte can go out: from then on a fault must
    // not replay the output a second time.
    let emitting = Cell::new(false);
    let outcome = guard::isolate("the pipeline", || {
        let delivery = pipeline::digest(artifact, sinks.archive, options)
            .map_err(|unknown| Rejection::Unclassified(unknown.to_string()))?;
        emitting.set(true);
        emit::write(artifact, &delivery.output, delivery.note(), sinks.raw_to);
        fault::point("ledger");
        sinks.ledger.record(artifact, &delivery);
        Ok(delivery)
    });
    let fault = match outcome {
        Ok(Ok(delivery)) => return Ok(delivery),
        Ok(Err(fault)) | Err(fault) => fault,
    };
    if emitting.get() {
        emit::note(&format!(
            "[ctx] {fault} after the output was written; exit status kept"
        ));
    } else {
        emit::write_raw_now(artifact, sinks.raw_to);
        emit::note(&format!("[ctx] {fault}; output not shortened"));
    }
    Err(fault)
}

/// Digests and prints (or, for a capture cut short, replays); returns how
/// the command ended. Whatever goes wrong in here, the raw output goes out
/// and the caller still ends with the command's status (invariant 8:
/// `run` is the isolation boundary).
pub fn captured(
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
    let _ = run(&artifact, &sinks, &options);
    artifact.exit
}

/// Runs the pipeline on an ingested artifact with the default archive and
/// ledger, writing raw output (when it goes raw) to stdout. A fault in any
/// stage prints the raw output (`run` is the isolation boundary).
pub fn ingested(artifact: &Artifact, budget: Option<usize>) {
    let archive = crate::archive::open_default();
    let ledger = crate::ledger::open_default();
    let sinks = Sinks {
        archive: &*archive,
        ledger: &*ledger,
        raw_to: RawTo::Stdout,
    };
    let _ = run(artifact, &sinks, &Options::configured(budget));
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
