//! The digest pipeline, as docs/architecture.md draws it:
//! classify → extract → plan → archive → render → guard. Ingest happens
//! before (each verb captures its own way) and hands over a read-only
//! `Artifact`; `digest` returns a `Delivery` and writes nothing but the
//! archive. Emitting it and recording it in the ledger is `deliver`'s,
//! which holds every stage after ingest inside one isolation boundary
//! (invariant 8).
//!
//! The archive comes after planning and before rendering: a plan that
//! omits nothing (the output fits) needs no archive write, and a digest that
//! omits anything is only rendered once its original is safely stored.

mod binary;
pub mod ci;
pub mod deliver;
pub mod emit;
pub mod kept;
mod rerun;

use crate::archive::Archive;
use crate::artifact::Artifact;
use crate::classify::{self, UnknownFamily};
use crate::contract;
use crate::fault;
use crate::guard::{self, Rejection};
use crate::ledger::last_run::DeltaSource;
use crate::plan::{self, Budget};
use crate::profiles::{Match, MatchedBy};
use crate::render;
use crate::tokens;

/// What the caller may choose.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--budget N`: tokens the digest should fit in.
    pub budget: Option<usize>,
    /// Families whose profile is never chosen unless `--as` names it.
    pub disabled: Vec<String>,
    /// Where the last run of the same command is found for a re-run
    /// delta; None turns deltas off (`--no-delta`, `CTX_DELTA=0`, and
    /// every verb but `ctx run` and the shims).
    pub delta: Option<DeltaSource>,
    /// Read the facts of output too small to digest (printed verbatim):
    /// the JSON and markdown shapes list its census items whatever its
    /// size. The delivery is still the raw output.
    pub read_small: bool,
}

impl Options {
    /// The user's configuration (`crate::config`) under an explicit budget.
    pub fn configured(budget: Option<usize>) -> Options {
        let config = crate::config::current();
        Options {
            budget: budget.or(config.budget.value),
            disabled: config.disabled_families.value.clone(),
            delta: None,
            read_small: false,
        }
    }
}

pub use crate::delivery::{Delivery, DeltaUse, Output, Trace};

/// classify → extract → plan (with the archive beside it) → render → guard.
pub fn digest(
    artifact: &Artifact,
    archive: &dyn Archive,
    options: &Options,
) -> Result<Delivery, UnknownFamily> {
    let delivery = digest_as(artifact, artifact.family.as_deref(), archive, options)?;
    // A typed family that left a failure unread (the evidence layer found
    // it, the family's facts do not account for it) gives way to text/v1,
    // which plans from the layer itself: every failure shown or counted,
    // at the size of a digest rather than of the raw output.
    if let Some(Rejection::FindingLost(identity)) = &delivery.rejection {
        let mut text = digest_as(artifact, Some("text"), archive, options)?;
        text.matched = Match {
            by: delivery.matched.by,
            reason: format!(
                "{}; {} left {identity:?} unread, so text/v1 read the output",
                delivery.matched.reason, delivery.profile
            ),
        };
        return Ok(text);
    }
    Ok(delivery)
}

/// `digest`, read by the family `forced` names (`--as`) when it names one.
fn digest_as(
    artifact: &Artifact,
    forced: Option<&str>,
    archive: &dyn Archive,
    options: &Options,
) -> Result<Delivery, UnknownFamily> {
    fault::point("classify");
    let raw_tokens = tokens::estimate_bulk(artifact.bytes());
    // Binary output past the evidence floor is described, never read as
    // lines (binary.rs); smaller output goes out byte for byte, as all
    // output within the floor does; a family asked for by name reads it.
    if forced.is_none()
        && raw_tokens > contract::SMALL_OUTPUT_TOKENS
        && let Some(shape) = binary::shape(artifact.bytes())
    {
        return Ok(binary::deliver(artifact, archive, &shape));
    }
    // Output within every contract's evidence floor is printed verbatim
    // whichever profile reads it: classify it by command only, and stop.
    // A failing run with deltas on is read all the same by a typed
    // profile: it may be a delta (when smaller than the output) and the
    // next run's last run. Filters and text/v1 never read it.
    let within_floor = raw_tokens <= contract::SMALL_OUTPUT_TOKENS && !options.read_small;
    let small = within_floor && !(options.delta.is_some() && artifact.exit.is_failure());
    let (profile, matched) = if small {
        classify::choose_by_command_except(artifact, forced, &options.disabled)?
    } else {
        classify::choose_except(artifact, forced, &options.disabled)?
    };
    let mut delivery = Delivery {
        output: Output::Raw,
        profile: profile.version(),
        matched,
        key: None,
        raw_tokens,
        delivered_tokens: raw_tokens,
        rejection: None,
        trace: None,
        compared: options.delta.is_some(),
        delta: None,
    };
    if small || (within_floor && delivery.matched.by == MatchedBy::Fallback) {
        return Ok(delivery);
    }
    // Declarative filters (`filters/`) read what no typed profile claims,
    // before text/v1; a filter that declines leaves it to text/v1.
    if delivery.matched.by == MatchedBy::Fallback
        && let Some(filtered) = crate::filters::deliver(
            artifact,
            archive,
            options.budget,
            &options.disabled,
            raw_tokens,
        )
    {
        return Ok(filtered);
    }
    let contract = match contract::for_family(profile.family()) {
        Ok(contract) => contract,
        Err(e) => {
            delivery.rejection = Some(Rejection::Contract(e.to_string()));
            return Ok(delivery);
        }
    };
    let budget = Budget::from_contract(&contract, options.budget);
    // What the digest shows: the captured lines, or the profile's view of
    // them (a CI log without its timestamps); the archive keeps the
    // original either way.
    let view = match guard::isolate(profile.version(), || profile.view(artifact)) {
        Ok(view) => view,
        Err(rejection) => {
            delivery.rejection = Some(rejection);
            return Ok(delivery);
        }
    };
    let shown = view.as_ref().unwrap_or(artifact);

    // The plan omits exactly when the output exceeds the target (see
    // `plan::resolve`), so the archive write — the largest cost of a big
    // digest — runs beside extraction and planning on the other core. Both
    // finish before a digest byte is rendered.
    let omits = raw_tokens > budget.target;
    let (staged, archived) = std::thread::scope(|scope| {
        let planning = scope.spawn(|| {
            guard::isolate(profile.version(), || {
                fault::point("extract");
                let (graph, receipt) = profile.extract(artifact);
                // The evidence layer under a typed family: a failure it
                // found that the family's facts do not account for hands
                // the output to text/v1, which plans from the layer.
                if let Some(orphan) = classify::unread_failure(profile, artifact, &graph.items) {
                    return Err(Rejection::FindingLost(orphan.identity));
                }
                fault::point("plan");
                let plan = plan::resolve(shown, &graph, &receipt, &contract, budget, raw_tokens);
                Ok((graph, receipt, plan))
            })
            .and_then(|staged| staged)
        });
        let archived = omits.then(|| {
            fault::point("archive");
            archive.put(artifact)
        });
        let staged = planning.join().unwrap_or_else(|_| {
            Err(Rejection::Panicked(
                profile.version(),
                "planning thread".into(),
            ))
        });
        (staged, archived)
    });
    let (graph, receipt, plan) = match staged {
        Ok(staged) => staged,
        Err(rejection) => {
            delivery.rejection = Some(rejection);
            return Ok(delivery);
        }
    };
    debug_assert_eq!(omits, plan.omits());
    let census = guard::check_census(&contract, &graph, &plan);
    delivery.trace = Some(Trace {
        graph,
        receipt,
        plan,
        budget,
        contract: contract.clone(),
    });
    if let Err(rejection) = census {
        delivery.rejection = Some(rejection);
        return Ok(delivery);
    }
    let Some(archived) = archived else {
        if let Some(source) = &options.delta {
            rerun::verbatim(artifact, shown, archive, source, &contract, &mut delivery);
        }
        return Ok(delivery);
    };
    let key = match archived {
        Ok(key) => key,
        Err(e) => {
            delivery.rejection = Some(Rejection::NotArchived(e.to_string()));
            return Ok(delivery);
        }
    };
    delivery.key = Some(key);
    let trace = delivery.trace.as_ref().expect("set above");

    let rendered = guard::isolate("render", || {
        fault::point("render");
        render::render(shown, &trace.graph, &trace.plan, Some(&key))
    });
    match rendered.and_then(|r| guard::accept(shown, &trace.plan, &r, Some(&key), raw_tokens)) {
        Ok(bytes) => {
            delivery.delivered_tokens = tokens::estimate(&bytes);
            delivery.output = Output::Digest(bytes);
        }
        Err(rejection) => delivery.rejection = Some(rejection),
    }
    if let (Output::Digest(_), Some(source)) = (&delivery.output, &options.delta) {
        let budget = trace.budget;
        rerun::delta(
            artifact,
            shown,
            source,
            &contract,
            &key,
            budget,
            &mut delivery,
        );
    }
    Ok(delivery)
}
