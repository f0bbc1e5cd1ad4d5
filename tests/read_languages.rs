//! `ctx read` over real source files, one per language, each taken
//! unchanged from a published package (tests/data/read/README.md names
//! them and their licences; fetch.sh regenerates them).
//!
//! - The outline of each, through the built binary, is a snapshot.
//! - Every declaration of every outline points at the declaration it
//!   names, and `symbol:` with the name the outline would give returns
//!   exactly the bytes of its span.

use std::path::{Path, PathBuf};
use std::process::Command;

use ctx::read::languages;
use ctx::read::outline::{self, Decl};
use ctx::read::symbol::{self, Lookup};
use ctx::read::{Mode, Request};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/read")
}

/// (language directory, file) for every source file.
fn sources() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(data()).unwrap().flatten() {
        if !entry.path().is_dir() || entry.file_name() == "image" {
            continue;
        }
        for file in std::fs::read_dir(entry.path()).unwrap().flatten() {
            out.push((
                entry.file_name().to_string_lossy().into_owned(),
                file.path(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn every_required_language_has_a_real_source_file() {
    let have: Vec<String> = sources().into_iter().map(|(l, _)| l).collect();
    for lang in [
        "rust",
        "python",
        "typescript",
        "tsx",
        "javascript",
        "go",
        "java",
        "c",
        "cpp",
        "csharp",
        "ruby",
        "php",
        "bash",
        "json",
        "yaml",
        "toml",
        "markdown",
        "html",
        "css",
    ] {
        assert!(have.iter().any(|h| h == lang), "no source file for {lang}");
    }
}

#[test]
fn outline_snapshots_per_language() {
    // The home holds the outline cache: never under the repository.
    let home = tempfile::tempdir().unwrap();
    for (lang, path) in sources() {
        let rel = path.strip_prefix(data()).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
            .current_dir(data())
            .args(["read", &rel.display().to_string(), "--mode", "outline"])
            .env("CTX_HOME", home.path())
            .env_remove("CTX_SESSION")
            .output()
            .unwrap();
        assert!(out.status.success(), "{lang}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let first = text.lines().next().unwrap();
        assert!(first.contains(&format!("· {lang} ·")), "{lang}: {first}");
        assert!(
            text.trim_end().ends_with("--mode full"),
            "{lang}: an outline ends with the exact command for the whole file"
        );
        insta::assert_snapshot!(format!("read_outline_{lang}"), text);
    }
}

fn outline_of(lang: &str, src: &[u8]) -> outline::Outline {
    let grammar = languages::by_name(lang).unwrap();
    outline::extract(grammar, src).unwrap()
}

/// The span of `d` holds its name (a heading's, a key's, a function's),
/// and its first line is where the declaration or its attributes begin.
fn points_at_its_declaration(src: &[u8], d: &Decl) -> bool {
    let span = String::from_utf8_lossy(&src[d.start_byte..d.end_byte]);
    if d.name.starts_with('(') {
        // A declaration with no name of its own (an anonymous namespace).
        return !span.trim().is_empty();
    }
    // A heading's name is its text with markup folded away.
    let words: Vec<&str> = d.name.split_whitespace().collect();
    words.iter().all(|w| span.contains(w))
}

#[test]
fn every_span_points_at_its_declaration_and_symbol_returns_its_bytes() {
    // The outline cache goes to this home, never to the person's.
    let home = tempfile::tempdir().unwrap();
    for (lang, path) in sources() {
        let src = std::fs::read(&path).unwrap();
        let outline = outline_of(&lang, &src);
        assert!(!outline.decls.is_empty(), "{lang}: no declarations");
        for (i, d) in outline.decls.iter().enumerate() {
            assert!(
                points_at_its_declaration(&src, d),
                "{lang}: {} at L{}-{} does not hold its name",
                d.qualified(),
                d.start_line,
                d.end_line
            );
            if lang == "html" {
                continue; // `section:` reads HTML's Markdown conversion.
            }
            let Some(name) = symbol::shortest_name(&outline, i) else {
                continue; // Overloads: the outline offers their lines instead.
            };
            let mode = if lang == "markdown" {
                Mode::Section(name.clone())
            } else {
                Mode::Symbol(name.clone())
            };
            let reading = ctx::read::read(&Request {
                path: path.clone(),
                shown: "f".into(),
                mode,
                anchors: false,
                fresh: false,
                session: None,
                home: Some(home.path().to_path_buf()),
            })
            .unwrap_or_else(|e| panic!("{lang}: {name}: {e}"));
            let span = &src[d.start_byte..d.end_byte];
            assert!(
                reading.bytes.starts_with(span),
                "{lang}: symbol:{name} is not the bytes of L{}-{}",
                d.start_line,
                d.end_line
            );
            let rest = &reading.bytes[span.len()..];
            let rest = rest.strip_prefix(b"\n").unwrap_or(rest);
            assert!(
                rest.starts_with(b"[ctx] "),
                "{lang}: {name}: more than the span"
            );
            assert_eq!(symbol::find(&outline, &name, false), Lookup::Found(i));
        }
    }
}

#[test]
fn a_file_with_syntax_errors_still_outlines_and_names_the_regions() {
    let src =
        b"fn ok() {\n    1\n}\n\nfn broken( {\n    let x = ;\n}\n\nstruct After {\n    a: u8,\n}\n";
    let o = outline_of("rust", src);
    let names: Vec<&str> = o.decls.iter().map(|d| d.name.as_str()).collect();
    assert!(
        names.contains(&"ok") && names.contains(&"After"),
        "{names:?}"
    );
    assert!(!o.errors.is_empty());
    assert!(
        o.errors.iter().all(|e| (5..=7).contains(&e.start_line)),
        "{:?}",
        o.errors
    );
}
