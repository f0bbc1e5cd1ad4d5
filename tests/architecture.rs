//! Imports point one way. Every `crate::<module>` path under `src/` (code
//! only: comments and `#[cfg(test)]` modules are left out, tests may reach
//! anywhere) is an edge between two top-level modules; a cycle among them
//! fails here, naming the files that close it. The stages then read in
//! one direction (capture → classify → profiles → plan → render → guard,
//! the pipeline over them, `deliver` over the pipeline, emit and ledger,
//! the integrations over `deliver`), as docs/architecture.md draws them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The files of modules declared behind `#[cfg(test)]` (`mod linearity;`).
fn test_only_modules(src: &Path, files: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for pair in lines.windows(2) {
            if pair[0] != "#[cfg(test)]" {
                continue;
            }
            let decl = pair[1]
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            let Some(name) = decl.strip_prefix("mod ").and_then(|d| d.strip_suffix(';')) else {
                continue;
            };
            // Children of `a.rs` and `a/mod.rs` live in `a/`; of lib.rs in src/.
            let parent = file.parent().unwrap();
            let stem = file.file_stem().unwrap().to_string_lossy();
            let dir = if file == &src.join("lib.rs") || stem == "mod" {
                parent.to_path_buf()
            } else {
                parent.join(stem.as_ref())
            };
            out.push(dir.join(format!("{name}.rs")));
            out.push(dir.join(name));
        }
    }
    out
}

/// The code of a file without comments and without its trailing
/// `#[cfg(test)] mod … { … }` block.
fn code(text: &str) -> String {
    let cut = text.find("#[cfg(test)]\nmod ").unwrap_or(text.len());
    text[..cut]
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The root's re-exports (`pub use store::{archive, census_zoom as zoom};`):
/// (folder, file stem) → the module name code uses (`crate::zoom`).
fn aliases(lib: &str) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    let flat = lib.split_whitespace().collect::<Vec<_>>().join(" ");
    for stmt in flat.split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((group, names)) = rest.split_once("::") else {
            continue;
        };
        let names = names.trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let (stem, alias) = name.split_once(" as ").unwrap_or((name, name));
            out.insert((group.to_string(), stem.to_string()), alias.to_string());
        }
    }
    out
}

/// The module a file belongs to: its top folder, or, for a file the root
/// re-exports (`model/artifact.rs` as `crate::artifact`), that name.
fn module_of(rel: &Path, aliases: &BTreeMap<(String, String), String>) -> String {
    let parts: Vec<String> = rel
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    if parts.len() > 1
        && let Some(alias) = aliases.get(&(parts[0].clone(), parts[1].clone()))
    {
        return alias.clone();
    }
    parts[0].clone()
}

fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let skipped = test_only_modules(&src, &files);
    let aliases = aliases(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut graph = Graph::new();
    for file in &files {
        if skipped.iter().any(|s| file.starts_with(s)) {
            continue;
        }
        let rel = file.strip_prefix(&src).unwrap();
        let top = module_of(rel, &aliases);
        if top == "lib" || top == "main" {
            continue;
        }
        let text = code(&std::fs::read_to_string(file).unwrap());
        for (at, _) in text.match_indices("crate::") {
            let target: String = text[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !target.is_empty() && target != top {
                graph
                    .entry(top.clone())
                    .or_default()
                    .entry(target)
                    .or_default()
                    .insert(rel.display().to_string());
            }
        }
    }
    graph
}

/// Modules reachable from `from`.
fn reach(graph: &Graph, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(m) = todo.pop() {
        for next in graph.get(&m).into_iter().flat_map(|e| e.keys()) {
            if seen.insert(next.clone()) {
                todo.push(next.clone());
            }
        }
    }
    seen
}

/// Every edge `a → b` where `b` also reaches `a`: the edges of a cycle.
fn cycle_edges(graph: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    for (a, edges) in graph {
        for (b, files) in edges {
            if reach(graph, b).contains(a) {
                out.push(format!(
                    "{a} → {b} ({})",
                    files.iter().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    out
}

#[test]
fn top_level_modules_import_one_way() {
    let graph = graph();
    assert!(graph.len() > 10, "{graph:?}");
    // The re-exported modules are seen under the names code uses.
    for name in ["artifact", "zoom", "deliver", "cli", "fixture"] {
        assert!(graph.contains_key(name), "{name}: {:?}", graph.keys());
    }
    let cycles = cycle_edges(&graph);
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The check can fail: a cycle written into the graph is found.
#[test]
fn a_cycle_is_found() {
    let mut graph = graph();
    graph
        .entry("evidence".into())
        .or_default()
        .entry("pipeline".into())
        .or_default()
        .insert("evidence.rs".into());
    let cycles = cycle_edges(&graph);
    assert!(
        cycles.iter().any(|c| c.starts_with("evidence → pipeline")),
        "{cycles:?}"
    );
}

/// Test support (`testing`: fixtures, synthetic samples) is reached by
/// tests, benches and examples only, never by the code the binary runs.
#[test]
fn only_tests_reach_test_support() {
    let graph = graph();
    let support = ["testing", "fixture", "synthetic"];
    let mut reached = Vec::new();
    for (from, edges) in &graph {
        if support.contains(&from.as_str()) {
            continue;
        }
        for (to, files) in edges {
            if support.contains(&to.as_str()) {
                reached.push(format!("{from} → {to} ({files:?})"));
            }
        }
    }
    assert!(reached.is_empty(), "{reached:#?}");
}
