//! `ctx explain HASH`: how an archived record is digested — which profile
//! read it and why, what it understood (the coverage receipt), and the plan
//! (rung, budget, every omission with its address). The record is re-read
//! through the same pipeline; nothing is archived or recorded again.

use crate::archive::Known;
use crate::format::Format;
use crate::pipeline::{self, Options, Output};
use crate::plan::{Omitted, Rung};
use crate::profiles::MatchedBy;
use crate::render::formats::json;
use crate::render::{count, counted};
use crate::store::{Store, key};

/// Arguments of `ctx explain`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The record's hash (12 hex as digests print it, or a unique prefix of 6+).
    #[arg(value_name = "HASH")]
    pub hash: String,
    /// Explain the plan for this budget (default: the configured budget, else the family's target).
    #[arg(long, value_name = "TOKENS")]
    pub budget: Option<usize>,
    #[command(flatten)]
    pub output: super::format::FormatArgs,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    if matches!(args.output.format, Format::Sarif | Format::Junit) {
        let word = args.output.format.word();
        anyhow::bail!(
            "ctx explain has no {word} form; `ctx expand {} --items --format {word}` gives the record's census as {word}",
            args.hash
        );
    }
    let prefix = match key::parse_prefix(&args.hash) {
        Ok(p) => p,
        Err(why) => anyhow::bail!("{why}"),
    };
    let (store, key) = match super::expand::open_record(&prefix)? {
        Ok(found) => found,
        Err(code) => return Ok(code),
    };
    let artifact = store.load(&key)?;
    // The other shapes list the census of small output too, as `ctx run
    // --format` does.
    let options = Options {
        read_small: args.output.format != Format::Text,
        ..Options::configured(args.budget)
    };
    let d = pipeline::digest(&artifact, &Known(key), &options)?;
    // The re-run deltas delivered for this record, from the ledger; a
    // missing or broken ledger means none known.
    let deltas = crate::ledger::Ledger::open_existing_default()
        .ok()
        .flatten()
        .and_then(|l| l.deltas_of(&key.0).ok())
        .unwrap_or_default();
    if args.output.format == Format::Json {
        let trace = d.trace.as_ref();
        let digest = crate::deliver::with_report(&artifact, &d, json::value);
        let json = serde_json::json!({
            "key": key.hex(),
            "command": artifact.display_command(),
            "lines": artifact.line_count(),
            "bytes": artifact.bytes().len(),
            "exit": artifact.exit,
            "profile": d.profile,
            "matched": d.matched,
            "budget": trace.map(|t| t.budget),
            "receipt": trace.map(|t| &t.receipt),
            "outcome": trace.map(|t| t.plan.outcome.unwrap_or(t.graph.outcome)),
            "counts": trace.map(|t| &t.graph.counts),
            "items": trace.map(|t| t.graph.items.len()),
            "census": trace.map(|t| t.contract.census(&t.graph).count()),
            "plan": trace.map(|t| &t.plan),
            "delivered": match d.output { Output::Raw => "raw", Output::Digest(_) => "digest" },
            "rejection": d.rejection.as_ref().map(|r| r.to_string()),
            "raw_tokens_estimate": d.raw_tokens,
            "delivered_tokens_estimate": d.delivered_tokens,
            "deltas": deltas.iter().map(|(at_ms, against, saved)| serde_json::json!({
                "at_ms": at_ms, "against": against, "saved_tokens_estimate": saved,
            })).collect::<Vec<_>>(),
            "digest": digest,
        });
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(0);
    }
    let lines = report(&artifact, &key, &d, &deltas);
    if args.output.format == Format::Markdown {
        let formatting = args.output.formatting();
        let digest = crate::deliver::shape(&artifact, &d, &formatting);
        print!("{}", String::from_utf8_lossy(&digest));
        println!("\n#### How ctx digested it\n");
        for line in &lines {
            println!("- {}", crate::render::formats::markdown::span(line));
        }
        return Ok(0);
    }
    for line in &lines {
        println!("{line}");
    }
    Ok(0)
}

/// The text report, line by line.
fn report(
    artifact: &crate::artifact::Artifact,
    key: &crate::store::ArchiveKey,
    d: &pipeline::Delivery,
    deltas: &[(i64, String, u64)],
) -> Vec<String> {
    let mut out = Vec::new();
    macro_rules! say {
        ($($t:tt)*) => { out.push(format!($($t)*)) };
    }
    let exit = artifact
        .exit
        .describe()
        .unwrap_or_else(|| "exit unknown".into());
    say!(
        "record {}: {} ({}, {}), {exit}",
        key.short(),
        artifact.display_command(),
        counted(artifact.line_count(), "lines"),
        counted(artifact.bytes().len(), "bytes")
    );
    say!(
        "profile: {} — matched by {}: {}",
        d.profile,
        matched_by(d.matched.by),
        d.matched.reason
    );
    let Some(t) = &d.trace else {
        if let Output::Digest(_) = &d.output {
            // A declarative filter's digest has no evidence graph or plan.
            say!(
                "declarative filter: {} → {} tokens (the filter's rules, docs/filters.md)",
                count(d.raw_tokens),
                count(d.delivered_tokens)
            );
            return out;
        }
        let why = d
            .rejection
            .as_ref()
            .map_or_else(|| "no trace".to_string(), |r| r.to_string());
        say!("no plan: {why}; the raw output is delivered");
        return out;
    };
    let r = &t.receipt;
    say!(
        "coverage: {} parsed{} · {} · {} of {} unmatched · truncated: {} · precision: {}",
        counted(r.items_parsed as usize, "items"),
        r.items_announced.map_or(String::new(), |a| format!(
            " of {} announced",
            count(a as usize)
        )),
        counted(r.blocks_parsed as usize, "detail blocks"),
        count(r.lines_unmatched as usize),
        counted(r.lines_total as usize, "lines"),
        if r.truncated { "yes" } else { "no" },
        match &r.precision {
            crate::evidence::Precision::Full => "full".to_string(),
            crate::evidence::Precision::Degraded(why) => format!("degraded ({why})"),
        }
    );
    let counts: Vec<String> = t
        .graph
        .counts
        .iter()
        .map(|(k, v)| counted(*v as usize, k))
        .collect();
    say!(
        "facts: outcome {} · {} · {}, {} in the census",
        t.plan.outcome.unwrap_or(t.graph.outcome).word(),
        if counts.is_empty() {
            "no counts".to_string()
        } else {
            counts.join(", ")
        },
        counted(t.graph.items.len(), "items"),
        count(t.contract.census(&t.graph).count())
    );
    say!(
        "plan: {} — {} (target {} tokens, census ceiling {}, planned ≈{})",
        rung(t.plan.rung),
        t.plan.why,
        count(t.budget.target),
        count(t.budget.ceiling),
        count(t.plan.estimate)
    );
    for o in &t.plan.omissions {
        say!(
            "  omits {}: ctx expand {} {}",
            omitted(o.count, &o.what),
            key.short(),
            o.address.args()
        );
    }
    match (&d.output, &d.rejection) {
        (Output::Digest(_), _) => say!(
            "delivered: digest, ≈{} tokens of ≈{} raw",
            count(d.delivered_tokens),
            count(d.raw_tokens)
        ),
        (Output::Raw, Some(r)) => say!("delivered: raw output ({r})"),
        (Output::Raw, None) => say!("delivered: raw output (fits the budget)"),
    }
    // What `ctx explain` re-plans is the normal digest; a run that
    // delivered a re-run delta instead is named with the run it compared.
    if let Some((_, against, saved)) = deltas.first() {
        say!(
            "re-run delta: last delivered against the run of ctx expand {against} (≈{} tokens saved); `ctx run --no-delta` gives the plan above",
            count(*saved as usize)
        );
    }
    out
}

fn matched_by(by: MatchedBy) -> &'static str {
    match by {
        MatchedBy::Forced => "--as",
        MatchedBy::Command => "command",
        MatchedBy::Content => "content",
        MatchedBy::Fallback => "fallback",
    }
}

/// The ladder's names, as docs/architecture.md spells them.
fn rung(rung: Rung) -> &'static str {
    match rung {
        Rung::Verbatim => "VERBATIM",
        Rung::PassSummary => "PASS_SUMMARY",
        Rung::FailCensus => "FAIL_CENSUS",
        Rung::Dense => "DENSE",
        Rung::Flood => "FLOOD",
    }
}

fn omitted(n: usize, what: &Omitted) -> String {
    match what {
        Omitted::Lines => counted(n, "lines"),
        Omitted::Repeats => counted(n, "repeated lines"),
        Omitted::Items(left) => crate::render::items_left(n, left),
    }
}
