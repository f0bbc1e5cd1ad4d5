//! `ctx config`: the effective configuration, each value with where it
//! came from (a flag on the command line still beats all of them).

use crate::config::{self, Config, Setting, Source};
use crate::render::count;

/// Arguments of `ctx config`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// ctx's own reports print as text or JSON (`crate::format`).
pub use crate::format::ReportFormat as Format;

/// Exit 0, or 1 when the file or a variable has a problem (each named on
/// stderr; the affected keys fell back to the next source).
pub fn execute(args: Args) -> anyhow::Result<i32> {
    let c = config::current();
    let rows = rows(c);
    if args.format == Format::Json {
        let settings: serde_json::Map<String, serde_json::Value> = rows
            .iter()
            .map(|r| {
                (
                    r.key.to_string(),
                    serde_json::json!({ "value": r.json, "source": r.source.to_string() }),
                )
            })
            .collect();
        let v = serde_json::json!({
            "file": c.path.as_ref().map(|p| p.display().to_string()),
            "file_exists": c.path.as_ref().is_some_and(|p| p.exists()),
            "settings": settings,
            "warnings": c.warnings,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        let file = match &c.path {
            Some(p) if p.exists() => p.display().to_string(),
            Some(p) => format!("{} (not present)", p.display()),
            None => "(no home directory)".to_string(),
        };
        println!("file: {file}");
        let w_key = rows.iter().map(|r| r.key.len()).max().unwrap_or(0);
        let w_val = rows
            .iter()
            .map(|r| r.text.chars().count())
            .max()
            .unwrap_or(0);
        for r in &rows {
            println!("{:<w_key$}  {:<w_val$}  {}", r.key, r.text, from(&r.source));
        }
    }
    for w in &c.warnings {
        eprintln!("ctx: config: {w}");
    }
    Ok(if c.warnings.is_empty() { 0 } else { 1 })
}

struct Row {
    key: &'static str,
    text: String,
    json: serde_json::Value,
    source: Source,
}

fn row<T>(key: &'static str, s: &Setting<T>, text: String, json: serde_json::Value) -> Row {
    Row {
        key,
        text,
        json,
        source: s.source.clone(),
    }
}

fn rows(c: &Config) -> Vec<Row> {
    let list = |v: &[String]| {
        if v.is_empty() {
            "(none)".to_string()
        } else {
            v.join(", ")
        }
    };
    vec![
        row(
            "budget",
            &c.budget,
            c.budget.value.map_or_else(
                || "each family's target (`ctx profiles`)".to_string(),
                |b| format!("{} tokens", count(b)),
            ),
            serde_json::json!(c.budget.value),
        ),
        row(
            "store.max_bytes",
            &c.max_bytes,
            super::store::size(c.max_bytes.value),
            serde_json::json!(c.max_bytes.value),
        ),
        row(
            "store.min_age",
            &c.min_age,
            super::store::duration(c.min_age.value),
            serde_json::json!(c.min_age.value.as_secs()),
        ),
        store_url(c),
        row(
            "disabled_families",
            &c.disabled_families,
            list(&c.disabled_families.value),
            serde_json::json!(c.disabled_families.value),
        ),
        row(
            "shims",
            &c.shims,
            c.shims.value.as_deref().map_or_else(
                || "the built-in set (`ctx shims install` with no names)".to_string(),
                list,
            ),
            serde_json::json!(c.shims.value),
        ),
    ]
}

/// `store.url`: `CTX_STORE` over the file's, else the local store. Shown
/// with its password masked, as every line ctx prints.
fn store_url(c: &Config) -> Row {
    let env = std::env::var("CTX_STORE")
        .ok()
        .filter(|v| !v.trim().is_empty());
    let (value, source) = match (env, &c.store_url) {
        (Some(v), _) => (Some(v), Source::Env("CTX_STORE")),
        (None, Some(v)) => (
            Some(v.clone()),
            Source::File(c.path.clone().unwrap_or_default()),
        ),
        (None, None) => (None, Source::Default),
    };
    let shown = value
        .as_deref()
        .map(|v| crate::store::postgres::redact(v.trim()));
    Row {
        key: "store.url",
        text: shown
            .clone()
            .unwrap_or_else(|| "the local SQLite store (`ctx store stats`)".to_string()),
        json: serde_json::json!(shown),
        source,
    }
}

fn from(source: &Source) -> String {
    match source {
        Source::Default => "(default)".to_string(),
        Source::File(_) => "(config file)".to_string(),
        Source::Env(var) => format!("(${var})"),
    }
}
