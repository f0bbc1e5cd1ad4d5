//! Trust for project-local `.ctx/filters` and `.ctx/contracts`, through the
//! built binary: unused until `ctx trust`, pinned by SHA-256 in the ctx
//! home, revoked by any change with one `[ctx]` note, `--list`, `untrust`,
//! the CI switch, and fail-closed on doubt.

mod support;

use std::path::Path;
use std::process::Output;

use support::{ctx_cmd, text};

struct Project {
    home: tempfile::TempDir,
    config: tempfile::TempDir,
    root: tempfile::TempDir,
}

const FILTER: &str = r#"schema = "ctx.filter/v1"
name = "seq"
version = 1
strip = ['.']
on_empty = "project filter: everything stripped"

[match]
command = 'seq(\s|$)'
rewrite = 'seq\s+\d+$'
"#;

impl Project {
    fn new() -> Project {
        let p = Project {
            home: tempfile::tempdir().unwrap(),
            config: tempfile::tempdir().unwrap(),
            root: tempfile::tempdir().unwrap(),
        };
        let dir = p.root.path().join(".ctx/filters");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("seq.toml"), FILTER).unwrap();
        std::fs::create_dir_all(p.root.path().join("sub/dir")).unwrap();
        p
    }

    fn ctx_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = ctx_cmd(self.home.path(), args);
        c.env("XDG_CONFIG_HOME", self.config.path())
            .env_remove("CI")
            .env_remove("CTX_TRUST_PROJECT")
            .current_dir(self.root.path().join("sub/dir"));
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("ctx runs")
    }

    fn ctx(&self, args: &[&str]) -> Output {
        self.ctx_env(args, &[])
    }

    /// Whether `ctx run seq 3000` was read by the project's filter.
    fn project_filter_used(&self, env: &[(&str, &str)]) -> (bool, String) {
        let out = self.ctx_env(&["run", "--digest", "--", "seq", "3000"], env);
        assert_eq!(out.status.code(), Some(0));
        let used = text(&out.stdout).contains("[ctx] project filter: everything stripped");
        (used, text(&out.stderr))
    }

    fn file(&self) -> std::path::PathBuf {
        self.root.path().join(".ctx/filters/seq.toml")
    }
}

#[test]
fn project_filters_load_only_after_trust() {
    let p = Project::new();
    let (used, stderr) = p.project_filter_used(&[]);
    assert!(!used, "an untrusted project filter was used");
    assert!(stderr.is_empty(), "{stderr}");
    let list = p.ctx(&["trust", "--list"]);
    assert!(
        text(&list.stdout).contains("not trusted"),
        "{}",
        text(&list.stdout)
    );

    let trusted = p.ctx(&["trust"]);
    assert_eq!(trusted.status.code(), Some(0), "{}", text(&trusted.stderr));
    assert!(
        text(&trusted.stdout).contains("trusted "),
        "{}",
        text(&trusted.stdout)
    );
    assert!(text(&trusted.stdout).contains(".ctx/filters/seq.toml"));
    let pins = std::fs::read_to_string(p.home.path().join("trust")).unwrap();
    assert!(pins.contains("seq.toml"), "{pins}");
    assert!(pins.split('\t').next().unwrap().len() == 64, "{pins}");
    assert!(
        p.project_filter_used(&[]).0,
        "a trusted project filter was not used"
    );
    let list = p.ctx(&["trust", "--list"]);
    assert!(
        text(&list.stdout).contains("  trusted\n"),
        "{}",
        text(&list.stdout)
    );
    let filters = p.ctx(&["filters", "list"]);
    assert!(
        text(&filters.stdout).contains("project (trusted)"),
        "{}",
        text(&filters.stdout)
    );

    let untrusted = p.ctx(&["untrust"]);
    assert!(
        text(&untrusted.stdout).contains("1 pinned file"),
        "{}",
        text(&untrusted.stdout)
    );
    assert!(!p.project_filter_used(&[]).0, "used after untrust");
}

#[test]
fn any_change_revokes_trust_with_one_note() {
    let p = Project::new();
    assert_eq!(p.ctx(&["trust"]).status.code(), Some(0));
    std::fs::write(p.file(), FILTER.replace("everything stripped", "changed")).unwrap();
    let (used, stderr) = p.project_filter_used(&[]);
    assert!(!used);
    let notes: Vec<&str> = stderr.lines().collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    assert!(
        notes[0].starts_with("[ctx] .ctx/filters/seq.toml changed since `ctx trust`"),
        "{stderr}"
    );
    assert!(notes[0].contains("revoked"), "{stderr}");
    // Revoked for good: the old bytes back do not bring trust back.
    std::fs::write(p.file(), FILTER).unwrap();
    let (used, stderr) = p.project_filter_used(&[]);
    assert!(!used, "trust came back without `ctx trust`");
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn a_new_file_revokes_trust_too() {
    let p = Project::new();
    assert_eq!(p.ctx(&["trust"]).status.code(), Some(0));
    std::fs::write(
        p.root.path().join(".ctx/filters/other.toml"),
        FILTER.replace("\"seq\"", "\"other\""),
    )
    .unwrap();
    let (used, stderr) = p.project_filter_used(&[]);
    assert!(!used);
    assert!(
        stderr.contains("other.toml changed since `ctx trust`"),
        "{stderr}"
    );
}

#[test]
fn ci_may_trust_the_project_by_environment() {
    let p = Project::new();
    assert!(
        p.project_filter_used(&[("CI", "true"), ("CTX_TRUST_PROJECT", "1")])
            .0
    );
    assert!(
        !p.project_filter_used(&[("CTX_TRUST_PROJECT", "1")]).0,
        "trusted outside CI"
    );
    assert!(
        !p.project_filter_used(&[("CI", "true")]).0,
        "trusted without CTX_TRUST_PROJECT"
    );
}

#[test]
fn links_and_broken_files_fail_closed() {
    let p = Project::new();
    // A link where a filter file should be: `ctx trust` refuses.
    let elsewhere = p.root.path().join("elsewhere.toml");
    std::fs::write(&elsewhere, FILTER).unwrap();
    std::fs::remove_file(p.file()).unwrap();
    std::os::unix::fs::symlink(&elsewhere, p.file()).unwrap();
    let out = p.ctx(&["trust"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("ctx:"), "{}", text(&out.stderr));
    assert!(!p.home.path().join("trust").exists());
    // Trusted, then the file swapped for a link: not used, one note.
    std::fs::remove_file(p.file()).unwrap();
    std::fs::write(p.file(), FILTER).unwrap();
    assert_eq!(p.ctx(&["trust"]).status.code(), Some(0));
    std::fs::remove_file(p.file()).unwrap();
    std::os::unix::fs::symlink(&elsewhere, p.file()).unwrap();
    let (used, stderr) = p.project_filter_used(&[]);
    assert!(!used);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("[ctx] "), "{stderr}");
    // A pins file that is a link: nothing trusted.
    std::fs::remove_file(p.file()).unwrap();
    std::fs::write(p.file(), FILTER).unwrap();
    assert_eq!(p.ctx(&["trust"]).status.code(), Some(0));
    let pins = p.home.path().join("trust");
    let moved = p.home.path().join("trust.real");
    std::fs::rename(&pins, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &pins).unwrap();
    let (used, stderr) = p.project_filter_used(&[]);
    assert!(!used, "pins read through a link");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    // A broken file is never pinned.
    std::fs::remove_file(&pins).unwrap();
    std::fs::write(p.file(), FILTER.replace("[match]", "[match]\nbogus = 1")).unwrap();
    let out = p.ctx(&["trust"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("seq.toml"),
        "{}",
        text(&out.stderr)
    );
    assert!(!pins.exists());
}

/// A trusted project contract replaces the built-in one (here: text's
/// target), and is not used before `ctx trust`.
#[test]
fn project_contracts_need_trust_too() {
    let p = Project::new();
    let builtin =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("contracts/text.toml"))
            .unwrap();
    let dir = p.root.path().join(".ctx/contracts");
    std::fs::create_dir_all(&dir).unwrap();
    let ours = builtin.replace("hard_ceiling_tokens = 1200", "hard_ceiling_tokens = 1234");
    assert_ne!(ours, builtin, "the built-in text contract changed shape");
    std::fs::write(dir.join("text.toml"), ours).unwrap();
    let ceiling = |p: &Project| {
        text(&p.ctx(&["profiles"]).stdout)
            .lines()
            .any(|l| l.contains("text/v1") && l.contains("ceiling 1234"))
    };
    assert!(!ceiling(&p), "an untrusted contract was used");
    assert_eq!(p.ctx(&["trust"]).status.code(), Some(0));
    assert!(ceiling(&p), "a trusted contract was not used");
}

/// A project filter's `[match] rewrite` changes what `ctx rewrite` (and so
/// the agent hook) sends through ctx only once the file is trusted, and no
/// longer once it changed.
#[test]
fn a_project_filter_rewrites_only_once_trusted() {
    let p = Project::new();
    let rewrite = |p: &Project| {
        let out = p.ctx(&["rewrite", "seq 3000"]);
        (text(&out.stdout), out.status.code())
    };
    assert_eq!(rewrite(&p), ("seq 3000\n".to_string(), Some(1)));
    assert_eq!(p.ctx(&["trust"]).status.code(), Some(0));
    assert_eq!(rewrite(&p), ("ctx run -- seq 3000\n".to_string(), Some(0)));
    let changed = FILTER.replace("everything stripped", "changed");
    std::fs::write(p.file(), changed).unwrap();
    assert_eq!(rewrite(&p), ("seq 3000\n".to_string(), Some(1)));
}
