//! `--format json`: the `ctx.digest/v1` document (docs/formats.md, the
//! schema in docs/schema/ctx.digest-v1.json). Keys come in the order the
//! structs below declare them, so equal reports print equal bytes.

use base64::Engine;
use serde::Serialize;

use crate::artifact::Exit;
use crate::delivery_plan::{Omitted, Rung};
use crate::evidence::{CoverageReceipt, EvidenceItem, ItemKind, Precision, Severity};
use crate::store::ArchiveKey;

use super::{Delivered, Report, Shown, expand_command, reason, shown};

/// The schema's name and major version; a reader refuses other majors.
pub const SCHEMA: &str = "ctx.digest/v1";

/// The document, one line, ending in `\n` (JSON Lines when `ctx digest`
/// reads several files).
pub fn document(report: &Report) -> Vec<u8> {
    let mut out = serde_json::to_vec(&Document::of(report))
        .expect("a document of strings and numbers always serializes");
    out.push(b'\n');
    out
}

/// The document indented, keys in the same order (snapshots, docs).
pub fn pretty(report: &Report) -> String {
    serde_json::to_string_pretty(&Document::of(report))
        .expect("a document of strings and numbers always serializes")
}

/// The document as a value (tests, `ctx explain`).
pub fn value(report: &Report) -> serde_json::Value {
    serde_json::to_value(Document::of(report))
        .expect("a document of strings and numbers always serializes")
}

#[derive(Serialize)]
struct Document<'a> {
    schema: &'static str,
    /// The tool's name as the header says it; null for plain text.
    tool: Option<&'a str>,
    family: Option<&'a str>,
    profile: Option<&'a str>,
    command: String,
    /// `digest`, `raw` (it fits the budget) or `fallback` (ctx refused or
    /// failed to digest it; `fallback_reason` says why).
    delivery: &'static str,
    fallback_reason: Option<&'a str>,
    outcome: Option<&'static str>,
    exit: ExitStatus,
    counts: Vec<Count<'a>>,
    rung: Option<Rung>,
    items: Vec<Item<'a>>,
    coverage: Option<Coverage<'a>>,
    omissions: Vec<Omission>,
    archive_key: Option<String>,
    /// `ctx expand KEY`: the whole output.
    expand: Option<String>,
    lines: usize,
    bytes: usize,
    tokens: Tokens,
    /// The raw output itself when that is what ctx delivered.
    raw: Option<Raw>,
    /// The text digest, when a declarative filter made it: such a digest
    /// has no typed facts for the fields above.
    text: Option<String>,
}

#[derive(Serialize)]
struct ExitStatus {
    /// `code`, `signal` or `unknown` (piped or saved input).
    kind: &'static str,
    value: Option<i32>,
}

#[derive(Serialize)]
struct Count<'a> {
    name: &'a str,
    count: u64,
}

#[derive(Serialize)]
pub(super) struct Item<'a> {
    kind: ItemKind,
    identity: &'a str,
    file: Option<&'a str>,
    line: Option<u32>,
    column: Option<u32>,
    code: Option<&'a str>,
    severity: Severity,
    reason: Option<String>,
    /// How many occurrences of this identity the output holds.
    times: usize,
    /// `ctx expand KEY --item ID`: the item's whole block.
    expand: Option<String>,
}

#[derive(Serialize)]
struct Coverage<'a> {
    complete: bool,
    items_parsed: u64,
    items_announced: Option<u64>,
    blocks_parsed: u64,
    lines_total: u64,
    lines_unmatched: u64,
    truncated: bool,
    precision: &'static str,
    degraded_why: Option<&'a str>,
}

#[derive(Serialize)]
struct Omission {
    /// `lines`, `repeats` or `items`.
    what: &'static str,
    /// What the items are (`warnings`, `passing tests`); null for lines.
    noun: Option<String>,
    count: usize,
    expand: String,
}

#[derive(Serialize)]
struct Tokens {
    raw: usize,
    /// The text digest's tokens (the raw output's when it went out raw).
    digest: usize,
    budget: Option<usize>,
}

#[derive(Serialize)]
struct Raw {
    /// `utf-8`: `text` is the output byte for byte; `base64`: the output
    /// is not UTF-8, `data` holds its bytes and `text` a lossy reading.
    encoding: &'static str,
    text: String,
    data: Option<String>,
}

impl<'a> Document<'a> {
    fn of(report: &'a Report<'a>) -> Document<'a> {
        let artifact = report.artifact;
        let facts = report.facts;
        let key = report.key;
        let family = report
            .profile
            .split_once('/')
            .map_or(report.profile, |(f, _)| f);
        let (delivery, fallback_reason) = match report.delivered {
            Delivered::Digest(_) => ("digest", None),
            Delivered::Verbatim => ("raw", None),
            Delivered::Fallback(why) => ("fallback", Some(why)),
        };
        let omissions = match (report.delivered, facts, key) {
            (Delivered::Digest(_), Some(f), Some(key)) => f
                .plan
                .omissions
                .iter()
                .map(|o| {
                    let (what, noun) = match &o.what {
                        Omitted::Lines => ("lines", None),
                        Omitted::Repeats => ("repeats", None),
                        Omitted::Items(left) => {
                            ("items", Some(crate::render::left_phrase(o.count, left)))
                        }
                    };
                    Omission {
                        what,
                        noun,
                        count: o.count,
                        expand: expand_command(key, &o.address.args()),
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        let items = shown(report).into_iter().map(|s| item(s, report)).collect();
        Document {
            schema: SCHEMA,
            tool: facts.and_then(|f| f.graph.reader.tool()),
            family: Some(family).filter(|f| !f.is_empty()),
            profile: Some(report.profile).filter(|p| !p.is_empty()),
            command: artifact.display_command(),
            delivery,
            fallback_reason,
            outcome: facts
                .filter(|f| f.graph.reader.tool().is_some())
                .map(|f| f.plan.outcome.unwrap_or(f.graph.outcome).word()),
            exit: match artifact.exit {
                Exit::Code(c) => ExitStatus {
                    kind: "code",
                    value: Some(c),
                },
                Exit::Signal(s) => ExitStatus {
                    kind: "signal",
                    value: Some(s),
                },
                Exit::Unknown => ExitStatus {
                    kind: "unknown",
                    value: None,
                },
            },
            counts: facts.map_or_else(Vec::new, |f| {
                f.graph
                    .counts
                    .iter()
                    .map(|(name, count)| Count {
                        name,
                        count: *count,
                    })
                    .collect()
            }),
            rung: facts.map(|f| f.plan.rung),
            items,
            coverage: facts.map(|f| coverage(f.receipt)),
            omissions,
            archive_key: key.map(|k| k.short()),
            expand: key.map(|k| expand_command(k, "")),
            lines: artifact.line_count(),
            bytes: artifact.bytes().len(),
            tokens: Tokens {
                raw: report.raw_tokens,
                digest: report.text_tokens,
                budget: facts.map(|f| f.plan.budget),
            },
            raw: report.delivered.is_raw().then(|| raw(artifact.bytes())),
            text: match (report.delivered, facts) {
                (Delivered::Digest(bytes), None) => {
                    Some(String::from_utf8_lossy(bytes).into_owned())
                }
                _ => None,
            },
        }
    }
}

fn item<'a>(shown: Shown<'a>, report: &Report) -> Item<'a> {
    item_of(shown.item, shown.times, report.key)
}

/// An item as both documents list it.
pub(super) fn item_of<'a>(
    it: &'a EvidenceItem,
    times: usize,
    key: Option<&ArchiveKey>,
) -> Item<'a> {
    let location = it.location.as_ref();
    Item {
        kind: it.kind,
        identity: &it.identity,
        file: location.map(|l| l.file.as_str()),
        line: location.and_then(|l| l.line),
        column: location.and_then(|l| l.column),
        code: it.class.as_deref(),
        severity: it.severity,
        reason: reason(it),
        times,
        expand: key.map(|k| {
            expand_command(
                k,
                &crate::delivery_plan::Address::Item(it.identity.clone()).args(),
            )
        }),
    }
}

fn coverage(r: &CoverageReceipt) -> Coverage<'_> {
    let (precision, degraded_why) = match &r.precision {
        Precision::Full => ("full", None),
        Precision::Degraded(why) => ("degraded", Some(why.as_str())),
    };
    Coverage {
        complete: r.is_complete(),
        items_parsed: r.items_parsed,
        items_announced: r.items_announced,
        blocks_parsed: r.blocks_parsed,
        lines_total: r.lines_total,
        lines_unmatched: r.lines_unmatched,
        truncated: r.truncated,
        precision,
        degraded_why,
    }
}

fn raw(bytes: &[u8]) -> Raw {
    match std::str::from_utf8(bytes) {
        Ok(text) => Raw {
            encoding: "utf-8",
            text: text.to_string(),
            data: None,
        },
        Err(_) => Raw {
            encoding: "base64",
            text: String::from_utf8_lossy(bytes).into_owned(),
            data: Some(base64::engine::general_purpose::STANDARD.encode(bytes)),
        },
    }
}
