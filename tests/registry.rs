//! The profile registry is the one list of families: everything else that
//! names a family (its contract, docs page, fixtures folder, README row,
//! receipts page, extraction) must agree with it, under the family's one
//! name. A new family that forgets one of them fails here, by name.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctx::profiles::{self, ReceiptGroup};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn families() -> Vec<&'static str> {
    profiles::registry().iter().map(|p| p.family()).collect()
}

/// Names of the entries of `dir` that satisfy `keep`, with `suffix` cut.
fn names(dir: &str, suffix: &str, keep: impl Fn(&Path) -> bool) -> BTreeSet<String> {
    std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| keep(p))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            name.strip_suffix(suffix).map(String::from)
        })
        .collect()
}

#[test]
fn versions_and_family_names_agree() {
    let mut seen = BTreeSet::new();
    for p in profiles::registry() {
        let spec = p.spec();
        let (family, n) = spec
            .version
            .split_once("/v")
            .unwrap_or_else(|| panic!("{}: not <family>/vN", spec.version));
        assert_eq!(family, spec.family, "{}", spec.version);
        assert!(
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()),
            "{}: not <family>/vN",
            spec.version
        );
        // One convention for every name: the family is a Rust identifier,
        // so folders and files never drift between `a-b` and `a_b`.
        assert!(
            family
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "{family}: family names are lower_snake_case"
        );
        assert!(seen.insert(family), "{family} registered twice");
    }
    assert_eq!(
        families().last(),
        Some(&"text"),
        "text/v1, the fallback, is tried last"
    );
}

#[test]
fn every_family_has_its_contract_docs_page_and_fixtures_under_its_name() {
    for family in families() {
        let contract = root().join(format!("contracts/{family}.toml"));
        assert!(
            contract.is_file(),
            "{family}: {} missing",
            contract.display()
        );
        ctx::contract::for_family(family)
            .unwrap_or_else(|e| panic!("{family}: embedded contract: {e}"));
        let docs = root().join(format!("docs/profiles/{family}.md"));
        assert!(docs.is_file(), "{family}: {} missing", docs.display());
        let fixtures = root().join(format!("fixtures/{family}"));
        assert!(
            fixtures.is_dir(),
            "{family}: {} missing",
            fixtures.display()
        );
        assert!(
            !cases(family).is_empty(),
            "{family}: fixtures/{family} holds no case (a folder with case.json)"
        );
    }
}

#[test]
fn no_contract_docs_page_or_fixtures_folder_names_an_unregistered_family() {
    let registered: BTreeSet<String> = families().into_iter().map(String::from).collect();
    let contracts = names("contracts", ".toml", |p| p.is_file());
    let docs = names("docs/profiles", ".md", |p| p.is_file());
    let mut fixtures = names("fixtures", "", |p| p.is_dir());
    // The declarative filters' captures, one folder per filter (checked
    // against filters/*.toml by tests/filters.rs).
    fixtures.remove("filters");
    // Re-run sequences across families, one folder per sequence (checked
    // by tests/delta_sequences.rs).
    fixtures.remove("deltas");
    for (what, found) in [
        ("contracts/*.toml", contracts),
        ("docs/profiles/*.md", docs),
        ("fixtures/*/", fixtures),
    ] {
        let stray: Vec<&String> = found.difference(&registered).collect();
        assert!(
            stray.is_empty(),
            "{what} names no registered family: {stray:?} (a family's files all carry its one name)"
        );
    }
}

/// The README's family table: one row per group of families, the first
/// column naming them (`jest, vitest`).
fn readme_families() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let table = readme
        .split("| family | tools and formats |")
        .nth(1)
        .expect("README.md has the family table");
    table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('|').nth(1))
        .flat_map(|cell| cell.split(',').map(|f| f.trim().to_string()))
        .collect()
}

#[test]
fn readme_family_table_names_every_typed_family_once() {
    let listed = readme_families();
    let unique: BTreeSet<&String> = listed.iter().collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "a family listed twice: {listed:?}"
    );
    let typed: BTreeSet<String> = profiles::registry()
        .iter()
        .filter(|p| p.spec().group != ReceiptGroup::Fallback)
        .map(|p| p.family().to_string())
        .collect();
    let listed: BTreeSet<String> = listed.into_iter().collect();
    assert_eq!(
        listed, typed,
        "README.md's family table and the registry disagree"
    );
}

#[test]
fn receipts_pages_cover_every_typed_family() {
    for p in profiles::registry() {
        let spec = p.spec();
        let Some(page) = spec.group.receipts_page() else {
            continue;
        };
        let path = root().join(format!("docs/receipts/{page}.md"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            text.contains(&format!("| {}/", spec.family)),
            "{}: no receipt row for {} (rerun `cargo run --release --example receipts`)",
            path.display(),
            spec.family
        );
    }
}

fn cases(family: &str) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(root().join("fixtures").join(family)) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = dir
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    out.sort();
    out
}

/// Every family's extractor reads every one of its own fixtures: the
/// receipt accounts for every line, and reading twice gives the same facts.
#[test]
fn every_family_extracts_each_of_its_fixtures() {
    for p in profiles::registry() {
        for case in cases(p.family()) {
            let artifact =
                ctx::fixture::load(&case).unwrap_or_else(|e| panic!("{}: {e}", case.display()));
            let (graph, receipt) = p.extract(&artifact);
            assert_eq!(
                receipt.lines_total,
                artifact.line_count() as u64,
                "{}: the receipt must account for every line",
                case.display()
            );
            assert!(
                receipt.lines_unmatched <= receipt.lines_total,
                "{}",
                case.display()
            );
            let again = p.extract(&artifact);
            assert_eq!(
                (format!("{graph:?}"), format!("{receipt:?}")),
                (format!("{:?}", again.0), format!("{:?}", again.1)),
                "{}: extraction is deterministic",
                case.display()
            );
        }
    }
}
