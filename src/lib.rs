//! ctx: capture a command's output, extract typed facts, print the smallest
//! digest that still supports the next decision, and archive the original so
//! that anything left out comes back with `ctx expand`.
//!
//! The folders follow the pipeline in `pipeline/mod.rs`, one stage each:
//! ingest (`capture`) → `classify` → extract (`profiles`) → `plan` (with
//! the archive, `store`, beside it) → `render` → `guard`; `pipeline`'s
//! `deliver` then runs `emit` and `ledger`. The types the stages share
//! are in `model`; the integrations (the CLI, PATH shims, `ctx rewrite`,
//! agent hooks) in `integrations`; test support in `testing`
//! (docs/architecture.md). Each module is also re-exported at the root
//! (`crate::plan`, `crate::artifact`), the one path code uses.

// Shared types and text rules every stage reads.
pub mod model;
pub use model::{
    artifact, ci, command, contract, delivery, delivery_plan, evidence, format, line_index, mapped,
    normalize, retention, words, workspace,
};

// The stages (capture → classify → the evidence layer (`recognise`) →
// profiles or filters → plan → render → guard, with the store beside them), the pipeline over them, the ledger.
pub mod capture;
pub mod classify;
pub mod filters;
pub mod guard;
pub mod plan;
pub mod profiles;
pub mod recognise;
pub mod render;
pub mod store;
pub use store::{archive, census_zoom as zoom};
pub mod pipeline;
pub use pipeline::{deliver, emit};
pub mod ledger;

// What the stages run on: settings, the data directory, tokens, faults,
// trust in project-local files.
pub mod runtime;
pub use runtime::{bounded, config, fault, home, tokens, trust};

// Integrations: the CLI, PATH shims, `ctx rewrite`, agent hooks.
pub mod integrations;
pub use integrations::{agents, cli, mcp, rewrite, shim};

// Test support: recorded fixtures and synthetic samples, used by the
// tests, benches and examples, never by the binary.
#[doc(hidden)]
pub mod testing;
pub use testing::fixture;

// `ctx read`: views of a file through its syntax tree.
pub mod read;
