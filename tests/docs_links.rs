//! The README and docs/ cite only what is in the repository: every
//! relative markdown link resolves to a file, and every `*.md` document
//! named in the text exists (no citing a design note that was never
//! committed).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let mut dirs = vec![root().join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("docs/ is readable") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn relative_links_resolve() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let dir = file.parent().unwrap();
        for c in link.captures_iter(&text) {
            let target = &c[1];
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let path = target.split('#').next().unwrap_or(target);
            checked += 1;
            if !dir.join(path).exists() {
                broken.push(format!("{}: {target}", shown(&file)));
            }
        }
    }
    assert!(broken.is_empty(), "links to nothing: {broken:#?}");
    assert!(
        checked >= 10,
        "only {checked} relative links: the README should link its docs"
    );
}

/// Files ctx reads or writes in the user's project, not documents of its own.
const USER_PROJECT_FILES: [&str; 3] = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"];

#[test]
fn named_documents_exist() {
    let name = regex::Regex::new(r"[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b").unwrap();
    let mut missing = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let dir = file.parent().unwrap();
        for m in name.find_iter(&text) {
            let cited = m.as_str().trim_start_matches("./");
            if cited.contains("://") || USER_PROJECT_FILES.contains(&cited) {
                continue;
            }
            let found = [dir.to_path_buf(), root(), root().join("docs")]
                .iter()
                .any(|base| base.join(cited).exists());
            if !found {
                missing.push(format!("{}: {cited}", shown(&file)));
            }
        }
    }
    missing.dedup();
    assert!(
        missing.is_empty(),
        "documents that are not in the repository: {missing:#?}"
    );
}

/// The source cites documents that exist, too.
#[test]
fn source_comments_cite_documents_that_exist() {
    let name =
        regex::Regex::new(r"[A-Za-z0-9_./-]*[A-Z][A-Za-z0-9_-]*\.md\b|docs/[A-Za-z0-9_./-]+\.md\b")
            .unwrap();
    let mut missing = Vec::new();
    let mut dirs = vec![root().join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for m in name.find_iter(&text) {
                    if USER_PROJECT_FILES.contains(&m.as_str()) {
                        continue;
                    }
                    if !root().join(m.as_str()).exists()
                        && !root().join("docs").join(m.as_str()).exists()
                    {
                        missing.push(format!("{}: {}", shown(&path), m.as_str()));
                    }
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "cited but not in the repository: {missing:#?}"
    );
}

/// The README's opening example is what the built ctx prints for it: the
/// `$ ctx digest FILE` line of its first code block, run in a private
/// home (the archive key is the content's, so it reads the same), gives
/// exactly the block's other lines.
#[test]
fn the_readme_example_is_what_ctx_prints() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let block: Vec<&str> = readme
        .split("```")
        .nth(1)
        .expect("a code block")
        .lines()
        .skip_while(|l| !l.starts_with("$ ctx digest "))
        .collect();
    let file = block[0].trim_start_matches("$ ctx digest ");
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(["digest", file])
        .current_dir(root())
        .env("CTX_HOME", home.path())
        .env("HOME", home.path())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CTX_BUDGET")
        .env_remove("CTX_CONFIG")
        .output()
        .unwrap();
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        printed.lines().collect::<Vec<_>>(),
        block[1..],
        "README's example is stale: ctx now prints\n{printed}"
    );
}
