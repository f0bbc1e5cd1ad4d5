//! ctx: capture a command's output, extract typed facts, print the smallest
//! digest that still supports the next decision, and archive the original so
//! that anything left out comes back with `ctx expand`.
//!
//! The modules follow the pipeline in `pipeline.rs`, one stage each:
//! ingest (`capture`, `artifact`) → `classify` → extract (`profiles`,
//! `evidence`, `contract`) → `plan` (with `archive` beside it) → `render`
//! → `guard`; `deliver` then runs `emit` and `ledger`
//! (docs/architecture.md).

pub mod agents;
pub mod archive;
pub mod artifact;
pub mod capture;
pub mod classify;
pub mod cli;
pub mod command;
pub mod config;
pub mod contract;
pub mod deliver;
pub mod delivery;
pub mod delivery_plan;
pub mod emit;
pub mod evidence;
pub mod fault;
pub mod fixture;
pub mod guard;
pub mod home;
pub mod ledger;
pub mod line_index;
pub mod mapped;
pub mod normalize;
pub mod pipeline;
pub mod plan;
pub mod profiles;
pub mod render;
pub mod retention;
pub mod rewrite;
pub mod shim;
pub mod store;
pub mod tokens;
pub mod words;
pub mod zoom;
