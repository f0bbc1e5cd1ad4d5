//! Embeds every `contracts/*.toml` and `filters/*.toml` in the binary, so
//! a contract is found by its family name and a filter is added by adding
//! its file, with no registration code.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    embed("contracts", "contracts.rs", "contract");
    embed("filters", "filters.rs", "filter");
    index_filters();
}

/// Writes `$OUT_DIR/filter_index.rs`: each built-in filter's file name,
/// name, version, `[match] command` and `[match] rewrite` (empty when none), so that choosing a filter at run
/// time compiles 30 small patterns and parses only the file that matched
/// (parsing every file, inline tests and all, took milliseconds). A file
/// without those keys fails the build.
fn index_filters() {
    let mut names: Vec<String> = std::fs::read_dir("filters")
        .expect("filters/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    let mut out = String::from(
        "/// (file name, name, version, command pattern, rewrite pattern) of every built-in filter, in file-name order.\n",
    );
    out.push_str("pub static INDEX: &[(&str, &str, u32, &str, &str)] = &[\n");
    for file in &names {
        let text = std::fs::read_to_string(Path::new("filters").join(file)).expect("filter file");
        let table: toml::Table = text
            .parse()
            .unwrap_or_else(|e| panic!("filters/{file}: {e}"));
        let name = table
            .get("name")
            .and_then(|v| v.as_str())
            .unwrap_or_else(|| panic!("filters/{file}: no name"));
        let version = table
            .get("version")
            .and_then(|v| v.as_integer())
            .unwrap_or_else(|| panic!("filters/{file}: no version"));
        let command = table
            .get("match")
            .and_then(|m| m.get("command"))
            .and_then(|c| c.as_str())
            .unwrap_or_else(|| panic!("filters/{file}: no [match] command"));
        let rewrite = table
            .get("match")
            .and_then(|m| m.get("rewrite"))
            .and_then(|c| c.as_str())
            .unwrap_or("");
        writeln!(
            out,
            "    ({file:?}, {name:?}, {version}, {command:?}, {rewrite:?}),"
        )
        .expect("writing to a String");
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("filter_index.rs");
    std::fs::write(dest, out).expect("write the filter index");
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
