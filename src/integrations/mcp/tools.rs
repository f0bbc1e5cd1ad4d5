//! The tool list `ctx mcp` offers. An agent pays for every word of it in
//! every session, so it is three tools with one-line descriptions and bare
//! schemas: the whole list stays under 300 o200k tokens (tested in
//! tests/mcp.rs). Each argument maps to one flag of the verb it runs
//! (calls.rs); what a flag means is in `ctx VERB --help`.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

pub const RUN: &str = "ctx_run";
pub const EXPAND: &str = "ctx_expand";
pub const READ: &str = "ctx_read";

/// The names, in the order they are listed.
pub const NAMES: [&str; 3] = [RUN, EXPAND, READ];

/// The three tools as `tools/list` returns them.
pub fn list() -> Vec<Tool> {
    vec![
        Tool::new(
            RUN,
            "Run argv (no shell) and get a digest of its output and its exit status; \
             anything left out is archived for ctx_expand.",
            schema(
                json!({
                    "argv": {"type": "array", "items": {"type": "string"}},
                    "cwd": {"type": "string"},
                    "timeout": {"type": "integer", "description": "seconds"},
                    "budget": {"type": "integer", "description": "tokens"},
                }),
                &["argv"],
            ),
        ),
        Tool::new(
            EXPAND,
            "Zoom into archived output by the hash a digest names.",
            schema(
                json!({
                    "hash": {"type": "string"},
                    "lines": {"type": "string", "description": "A-B"},
                    "grep": {"type": "string", "description": "regex"},
                    "context": {"type": "integer"},
                    "stream": {"enum": ["both", "stdout", "stderr"]},
                    "item": {"type": "string"},
                    "items": {"type": "boolean"},
                    "code": {"type": "string"},
                    "file": {"type": "string"},
                    "severity": {"type": "string"},
                    "details": {"type": "boolean"},
                    "all": {"type": "boolean"},
                }),
                &["hash"],
            ),
        )
        .with_annotations(ToolAnnotations::new().read_only(true)),
        Tool::new(
            READ,
            "Read a file: the smallest view that answers, with the exact next read.",
            schema(
                json!({
                    "path": {"type": "string"},
                    "mode": {
                        "type": "string",
                        "description": "full|outline|signatures|auto|lines:A-B|symbol:NAME|section:HEADING"
                    },
                    "anchors": {"type": "boolean"},
                    "fresh": {"type": "boolean"},
                }),
                &["path"],
            ),
        )
        .with_annotations(ToolAnnotations::new().read_only(true)),
    ]
}

fn schema(properties: Value, required: &[&str]) -> Arc<JsonObject> {
    let mut object = JsonObject::new();
    object.insert("type".into(), json!("object"));
    object.insert("properties".into(), properties);
    object.insert("required".into(), json!(required));
    Arc::new(object)
}
