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
use crate::format::Formatting;
use crate::guard::{self, Rejection};
use crate::ledger::last_run::DeltaSource;
use crate::ledger::{self, LedgerSink};
use crate::pipeline::{self, Options, Output, ci};
use crate::render::formats::{self, Delivered, Facts, Report};

/// Exit status for ctx's own failures (bad usage, unreadable input).
pub const EXIT_CTX_ERROR: i32 = 2;

/// Where the pipeline's effects go.
pub struct Sinks<'a> {
    pub archive: &'a dyn Archive,
    pub ledger: &'a dyn LedgerSink,
    pub raw_to: RawTo,
    /// The shape the reader asked for (`--format`).
    pub formatting: &'a Formatting,
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
        with_report(artifact, &delivery, |report| {
            // A shape the family has no form for (SARIF of a test run,
            // JUnit of unclassified text) is still a valid document, with
            // no findings (and the run's failure, when it failed), so that
            // an upload step never meets nothing; the text delivery goes
            // to stderr, where the job's log shows it.
            let refused = ci::refusal(sinks.formatting.format, delivery.profile);
            let shaped = (!sinks.formatting.is_text()).then(|| {
                fault::point("format");
                let report = match refused {
                    Some(_) => formats::Report {
                        facts: None,
                        ..*report
                    },
                    None => *report,
                };
                Output::Digest(formats::render(sinks.formatting, &report))
            });
            // Where the record went, when not where the configuration
            // says (the shared store's local fallback): only a digest
            // that names it needs the note.
            let archived_elsewhere = match (&delivery.output, delivery.key) {
                (Output::Digest(_), Some(_)) => sinks.archive.note(),
                _ => None,
            };
            let notes: Vec<String> = refused
                .as_ref()
                .map(|why| {
                    format!(
                        "[ctx] {why}: an empty {} document is written; the digest is on stderr",
                        sinks.formatting.format.word()
                    )
                })
                .into_iter()
                .chain(delivery.note())
                .chain(archived_elsewhere)
                .collect();
            let note = (!notes.is_empty()).then(|| notes.join("\n"));
            emitting.set(true);
            if refused.is_some() && shaped.is_some() {
                emit::write_aside(artifact, &delivery.output);
            }
            let output = shaped.as_ref().unwrap_or(&delivery.output);
            match sinks.formatting.keep {
                Some(keep) => {
                    let kept = crate::pipeline::kept::compose(artifact, output, keep);
                    emit::write_kept(&kept.stdout, &kept.stderr, note);
                }
                None => emit::write(artifact, output, note, sinks.raw_to),
            }
            fault::point("ci");
            ci::write(report, sinks.formatting);
        });
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
    } else if !sinks.formatting.shape_holds_raw_output() {
        emit::write_raw_now(artifact, sinks.raw_to);
        emit::note(&format!("[ctx] {fault}; output not shortened"));
    } else {
        fallback(artifact, &fault.to_string(), sinks.formatting);
        emit::note(&format!("[ctx] {fault}; output not shortened"));
    }
    Err(fault)
}

/// The delivery in a shape other than text, made from the same facts and
/// plan as the text digest (`render::formats`).
pub fn shape(
    artifact: &Artifact,
    delivery: &crate::delivery::Delivery,
    formatting: &Formatting,
) -> Vec<u8> {
    with_report(artifact, delivery, |report| {
        formats::render(formatting, report)
    })
}

/// Calls `f` with the `render::formats` report of a delivery.
pub fn with_report<T>(
    artifact: &Artifact,
    delivery: &crate::delivery::Delivery,
    f: impl FnOnce(&Report) -> T,
) -> T {
    let reason = delivery.rejection.as_ref().map(ToString::to_string);
    // A digest shows the profile's view of the output (a CI log without
    // its timestamps), as `pipeline::digest` rendered it; raw output is
    // the original.
    let view = match &delivery.output {
        Output::Digest(_) => delivery
            .profile
            .split_once('/')
            .and_then(|(family, _)| crate::profiles::by_family(family))
            .and_then(|p| p.view(artifact)),
        Output::Raw => None,
    };
    let artifact = view.as_ref().unwrap_or(artifact);
    let delivered = match (&delivery.output, &delivery.rejection) {
        (Output::Digest(bytes), _) => Delivered::Digest(bytes),
        (Output::Raw, None | Some(Rejection::NotSmaller)) => Delivered::Verbatim,
        (Output::Raw, Some(_)) => Delivered::Fallback(reason.as_deref().unwrap_or_default()),
    };
    let report = Report {
        artifact,
        profile: delivery.profile,
        facts: delivery.trace.as_ref().map(|t| Facts {
            graph: &t.graph,
            receipt: &t.receipt,
            plan: &t.plan,
            contract: &t.contract,
        }),
        key: delivery.key.as_ref(),
        delivered,
        raw_tokens: delivery.raw_tokens,
        text_tokens: delivery.delivered_tokens,
    };
    f(&report)
}

/// After a fault, the raw output in the shape asked for: a document that
/// says it is the raw output and why, holding it whole. Should even that
/// fail, the raw bytes themselves: output is never lost.
fn fallback(artifact: &Artifact, why: &str, formatting: &Formatting) {
    let shaped = guard::isolate("the fallback document", || {
        let raw_tokens = crate::tokens::estimate_bulk(artifact.bytes());
        let report = Report {
            artifact,
            profile: "",
            facts: None,
            key: None,
            delivered: Delivered::Fallback(why),
            raw_tokens,
            text_tokens: raw_tokens,
        };
        formats::render(formatting, &report)
    });
    match shaped {
        Ok(bytes) => emit::write(artifact, &Output::Digest(bytes), None, RawTo::Stdout),
        _ => emit::write_raw_now(artifact, RawTo::Stdout),
    }
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
    formatting: &Formatting,
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
        formatting,
    };
    // Re-run deltas are a text digest's: the other shapes always carry
    // the whole census.
    let options = Options {
        delta: (delta && formatting.is_text())
            .then(DeltaSource::from_env)
            .flatten(),
        read_small: formatting.reads_small(),
        ..Options::configured(budget)
    };
    let _ = run(&artifact, &sinks, &options);
    artifact.exit
}

/// Runs the pipeline on an ingested artifact with the default archive and
/// ledger, writing raw output (when it goes raw) to stdout. A fault in any
/// stage prints the raw output (`run` is the isolation boundary). False
/// when the shape asked for was refused (`ci::refusal`: JUnit of a build)
/// and the text delivery went out instead.
pub fn ingested(artifact: &Artifact, budget: Option<usize>, formatting: &Formatting) -> bool {
    let archive = crate::archive::open_default();
    let ledger = crate::ledger::open_default();
    let sinks = Sinks {
        archive: &*archive,
        ledger: &*ledger,
        raw_to: RawTo::Stdout,
        formatting,
    };
    let options = Options {
        read_small: formatting.reads_small(),
        ..Options::configured(budget)
    };
    // Every shape is written, a refused one as an empty document.
    let _ = run(artifact, &sinks, &options);
    true
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
