//! `ctx profiles`: the registry, in the order classification tries it.

use crate::contract;
use crate::filters;
use crate::profiles;

/// Arguments of `ctx profiles`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// `text` or `json`.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    pub format: String,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    let mut rows = Vec::new();
    let registry = profiles::registry();
    let (text, typed) = registry.split_last().expect("registry is never empty");
    for profile in typed.iter().chain(std::iter::once(text)) {
        let (contract_file, contract_state) = match contract::for_family(profile.family()) {
            Ok(c) => (
                format!("contracts/{}.toml", c.family),
                format!(
                    "valid: target {} · floor {} · ceiling {} tokens",
                    c.rendering.target(),
                    c.rendering.evidence_floor_tokens,
                    c.rendering.hard_ceiling_tokens
                ),
            ),
            Err(e) => (
                format!("contracts/{}.toml", profile.family()),
                format!("{e}"),
            ),
        };
        if std::ptr::eq(*profile, *text) {
            // Declarative filters are tried after every typed profile.
            for f in &filters::registry().filters {
                rows.push(serde_json::json!({
                    "order": rows.len() + 1,
                    "version": f.label,
                    "family": f.name,
                    "contract": format!("filters/{}.toml", f.name),
                    "contract_state": format!("filter: {}", f.origin.describe()),
                    "commands": [format!("^{}", f.pattern)],
                }));
            }
        }
        rows.push(serde_json::json!({
            "order": rows.len() + 1,
            "version": profile.version(),
            "family": profile.family(),
            "contract": contract_file,
            "contract_state": contract_state,
            "commands": profile.commands(),
        }));
    }
    if args.format == "json" {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(0);
    }
    let cell = |row: &serde_json::Value, key: &str| row[key].as_str().unwrap_or("").to_string();
    let width = |f: &dyn Fn(&serde_json::Value) -> String| {
        rows.iter().map(|r| f(r).chars().count()).max().unwrap_or(0)
    };
    let order = |r: &serde_json::Value| format!("{}.", r["order"]);
    let state = |r: &serde_json::Value| format!("[{}]", cell(r, "contract_state"));
    let (w_order, w_version, w_contract, w_state) = (
        width(&order),
        width(&|r| cell(r, "version")),
        width(&|r| cell(r, "contract")),
        width(&state),
    );
    for row in &rows {
        let commands: Vec<&str> = row["commands"]
            .as_array()
            .map(|a| a.iter().filter_map(|c| c.as_str()).collect())
            .unwrap_or_default();
        let commands = if commands.is_empty() {
            "(content sniffing / fallback)".to_string()
        } else {
            commands.join(", ")
        };
        println!(
            "{:>w_order$} {:<w_version$}  {:<w_contract$}  {:<w_state$}  {}",
            order(row),
            cell(row, "version"),
            cell(row, "contract"),
            state(row),
            commands
        );
    }
    Ok(0)
}
