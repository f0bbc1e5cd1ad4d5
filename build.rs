//! Embeds every `contracts/*.toml` and `filters/*.toml` in the binary, so
//! a contract is found by its family name and a filter is added by adding
//! its file, with no registration code.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    embed("contracts", "contracts.rs", "contract");
    embed("filters", "filters.rs", "filter");
}

/// Writes `$OUT_DIR/<out>`: a static list of (file name, contents) of the
/// `.toml` files of `dir`, sorted by name.
fn embed(dir: &str, out_name: &str, what: &str) {
    let path = Path::new(dir);
    println!("cargo:rerun-if-changed={dir}");
    let mut names: Vec<String> = std::fs::read_dir(path)
        .unwrap_or_else(|e| panic!("{dir}/ exists: {e}"))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    let mut out = format!("/// (file name, contents) of every embedded {what}.\n");
    out.push_str("pub static EMBEDDED: &[(&str, &str)] = &[\n");
    for name in &names {
        println!("cargo:rerun-if-changed={dir}/{name}");
        let file = std::fs::canonicalize(path.join(name)).expect("embedded file path");
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            file.display().to_string()
        )
        .expect("writing to a String");
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join(out_name);
    std::fs::write(dest, out).expect("write the embedded list");
}
