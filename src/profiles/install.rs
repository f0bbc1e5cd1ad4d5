//! install/v1 — `npm`/`pnpm`/`yarn` install, ci, add; `pip`/`uv pip`
//! install; `apt-get`/`apt` install, upgrade, remove; `go mod download`,
//! `go mod tidy`, `go get`; `bundle install`.
//!
//! **Decision.** Did the install work, and if not, what to change: a
//! success is one line of counts (added, changed, removed) with the lines
//! that name the packages; a failure is its decisive error lines, first
//! and verbatim (npm's ERESOLVE block, pip's conflict and
//! ResolutionImpossible, the compiler error inside a native build).
//!
//! **Unsafe loss.** An error line dropped, cut or reworded (the reader
//! retries the wrong fix), a failure read as a success, a count that is not
//! the tool's, or a warning or deprecation that cannot be found again.
//!
//! **Typed facts.** One error `Diagnostic` per decisive failure (identity
//! its words, class npm's code or pip's kind or `compiler`, detail its
//! lines, e.g. a compiler error with its source excerpt). One `Warning`
//! per warning or deprecation (class `deprecated`, npm's code, `warning`;
//! block its continuation lines), retrievable by `ctx expand H --items
//! --severity warning` and `--item`. The conclusion: the lines that name
//! what changed (`Successfully installed …`, apt's package lists) and the
//! tool's summary. Counts as the tool states them.
//!
//! **Ladder.** VERBATIM (fits the budget) → DENSE (header with counts; the
//! failures' lines first, verbatim; the lines naming the packages; a note
//! counting warnings by class with their `--items` address; every other
//! run one marker with its `--lines` address) → FLOOD (the failures' own
//! lines exceed the ceiling: shown while they fit, the rest behind
//! `--items`).

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome, Severity};

use super::{Profile, ProfileSpec, ReceiptGroup};

mod command;
mod read;
mod sniff;

pub struct Install;

static SPEC: ProfileSpec = ProfileSpec {
    commands: &[
        "npm install",
        "npm ci",
        "pnpm install",
        "yarn install",
        "pip install",
        "uv pip install",
        "apt-get install",
        "go mod download",
        "go mod tidy",
        "bundle install",
    ],
    ..ProfileSpec::new("install/v1", "install", ReceiptGroup::Everyday)
};

impl Profile for Install {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_content(&self, head: &str) -> Option<String> {
        sniff::detect(head)
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        let (_, name) = command::manager(argv)?;
        Some(format!("{name} (install)"))
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        // No command named (a pipe, a saved log): the label's, else the
        // manager the output's banners name.
        let (manager, name) = command::manager(&super::sniff::stated_argv(artifact))
            .or_else(|| {
                let (m, argv, _) = sniff::shape(&super::sniff::head(artifact))?;
                Some((m, argv.join(" ")))
            })
            .unwrap_or((command::Manager::Npm, "install".to_string()));
        let r = read::read(artifact, manager);
        let mut items = Vec::new();
        for f in &r.failures {
            let mut item =
                EvidenceItem::new(ItemKind::Diagnostic, Severity::Error, f.identity.clone());
            item.class = f.class.clone();
            let first = f.lines[0];
            let last = *f.lines.last().unwrap_or(&first);
            item.headline = Some(Span::line(first));
            item.detail = f.lines.iter().map(|&n| Span::line(n)).collect();
            item.block = Some(Span::new(first, last));
            items.push(item);
        }
        for w in &r.notices {
            let mut item =
                EvidenceItem::new(ItemKind::Warning, Severity::Warning, w.identity.clone());
            item.class = Some(w.class.clone());
            item.headline = Some(Span::line(w.first));
            item.block = Some(Span::new(w.first, w.last));
            items.push(item);
        }
        let mut counts = r.counts.clone();
        if !r.notices.is_empty() {
            let n = r.notices.len() as u64;
            counts.push((if n == 1 { "warning" } else { "warnings" }.into(), n));
        }
        if !r.failures.is_empty() {
            let n = r.failures.len() as u64;
            counts.push((if n == 1 { "error" } else { "errors" }.into(), n));
        }
        let failed = !r.failures.is_empty();
        let outcome = match artifact.exit {
            Exit::Signal(_) => Outcome::Interrupted,
            Exit::Code(0) => Outcome::Ok,
            Exit::Code(_) => Outcome::Failed,
            Exit::Unknown if failed => Outcome::Failed,
            Exit::Unknown if !r.conclusion.is_empty() => Outcome::Ok,
            Exit::Unknown => Outcome::Unknown,
        };
        let mut receipt = CoverageReceipt::new(artifact.line_count() as u64);
        receipt.items_parsed = r.failures.len() as u64;
        receipt.blocks_parsed = r.failures.len() as u64;
        receipt.truncated = artifact.truncated;
        let graph = EvidenceGraph {
            reader: crate::evidence::Reader::family(name),
            outcome,
            counts,
            items,
            conclusion: r.conclusion.iter().map(|&n| Span::line(n)).collect(),
        };
        (graph, receipt)
    }
}
