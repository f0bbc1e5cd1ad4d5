//! Where ctx meets the outside: the command line (`cli`, the only place
//! `anyhow` is used), PATH shims, `ctx rewrite`, and agent hooks. They
//! call the pipeline through `deliver`; no stage calls them.

pub mod agents;
pub mod cli;
pub mod mcp;
pub mod rewrite;
pub mod shim;
