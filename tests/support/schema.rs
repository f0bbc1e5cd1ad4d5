//! The JSON Schemas in docs/schema/, compiled with boon (a validator that
//! passes the official JSON-Schema-Test-Suite; docs/dependencies.md).
#![allow(dead_code)]

use std::path::Path;

/// The compiled schemas and the index of each document's schema.
pub struct Schemas {
    schemas: boon::Schemas,
    pub digest: boon::SchemaIndex,
    pub items: boon::SchemaIndex,
}

const BASE: &str = "https://ctx.invalid/schema/";

impl Schemas {
    pub fn load() -> Schemas {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema");
        let mut compiler = boon::Compiler::new();
        for file in ["ctx.digest-v1.json", "ctx.items-v1.json"] {
            let text = std::fs::read_to_string(dir.join(file)).expect("schema file");
            let value: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
            compiler
                .add_resource(&format!("{BASE}{file}"), value)
                .expect("schema resource");
        }
        let mut schemas = boon::Schemas::new();
        let digest = compiler
            .compile(&format!("{BASE}ctx.digest-v1.json"), &mut schemas)
            .expect("ctx.digest/v1 compiles");
        let items = compiler
            .compile(&format!("{BASE}ctx.items-v1.json"), &mut schemas)
            .expect("ctx.items/v1 compiles");
        Schemas {
            schemas,
            digest,
            items,
        }
    }

    /// Ok, or every violation, worded by boon.
    pub fn check(
        &self,
        value: &serde_json::Value,
        schema: boon::SchemaIndex,
    ) -> Result<(), String> {
        self.schemas
            .validate(value, schema)
            .map_err(|e| format!("{e:#}"))
    }
}
