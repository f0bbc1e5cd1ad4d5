//! The tool list `ctx mcp` offers. An agent pays for every word of it in
//! every session, so it is three tools with one-line descriptions and bare
//! schemas: the whole list stays under 300 o200k tokens (tested in
//! tests/mcp.rs). Each argument maps to one flag of the verb it runs
//! (calls.rs); what a flag means is in `ctx VERB --help`.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
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
            "Run argv (no shell): digest and exit status; omitted output via ctx_expand.",
            schema(
                json!({
                    "argv": {"type": "array", "items": {"type": "string"}},
                    "cwd": {"type": "string"},
                    "timeout": {"type": "integer", "description": "seconds"},
                    "budget": {"type": "integer"},
                }),
                &["argv"],
            ),
        ),
        Tool::new(
            EXPAND,
            "Zoom into archived output by a digest's hash.",
            schema(
                json!({
                    "hash": {"type": "string"},
                    "lines": {"type": "string", "description": "A-B"},
                    "grep": {"type": "string"},
                    "context": {"type": "integer"},
                    "stream": {"enum": ["both", "stdout", "stderr"]},
                    "item": {"type": "string"},
                    "items": {"type": "boolean"},
                    "code": {"type": "string"},
                    "file": {"type": "string"},
                    "severity": {"type": "string"},
                    "details": {"type": "boolean"},
                }),
                &["hash"],
            ),
        ),
        Tool::new(
            READ,
            "Read a file in the smallest view that answers.",
            schema(
                json!({
                    "path": {"type": "string"},
                    "mode": {
                        "type": "string",
                        "description": "full|outline|signatures|auto|lines:A-B|symbol:NAME|section:HEADING"
                    },
                    "anchors": {"type": "boolean"},
                    "fresh": {"type": "boolean"},
                    "verify": {"type": "string", "description": "LINE:HASH …"},
                }),
                &["path"],
            ),
        ),
    ]
}

fn schema(properties: Value, required: &[&str]) -> Arc<JsonObject> {
    let mut object = JsonObject::new();
    object.insert("type".into(), json!("object"));
    object.insert("properties".into(), properties);
    object.insert("required".into(), json!(required));
    Arc::new(object)
}
