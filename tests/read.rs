//! `ctx read` through the built binary: modes, anchors and drift, the
//! session's re-read stubs across edits, sessions and `--fresh`, a broken
//! home, binary files, images, PDFs, HTML and files with no grammar.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;

struct Env {
    home: TempDir,
    dir: TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            home: tempfile::tempdir().unwrap(),
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn read(&self, args: &[&str], session: Option<&str>) -> Output {
        ctx(self.home.path(), self.dir.path(), args, session)
    }
}

fn ctx(home: &Path, cwd: &Path, args: &[&str], session: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ctx"));
    c.arg("read")
        .args(args)
        .current_dir(cwd)
        .env("CTX_HOME", home);
    match session {
        Some(s) => c.env("CTX_SESSION", s),
        None => c.env_remove("CTX_SESSION"),
    };
    c.output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A Rust file of `n` functions, each `body` lines long.
fn rust_file(n: usize, body: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("pub fn f{i}(x: u32) -> u32 {{\n"));
        for j in 0..body {
            s.push_str(&format!("    let v{j} = x + {j};\n"));
        }
        s.push_str("    x\n}\n\n");
    }
    s
}

#[test]
fn full_is_verbatim_and_auto_is_full_when_small() {
    let env = Env::new();
    let text = "fn main() {\n    println!(\"hi\");\n}\n";
    env.file("a.rs", text);
    for mode in ["full", "auto"] {
        let o = env.read(&["a.rs", "--mode", mode], None);
        assert!(o.status.success());
        assert_eq!(stdout(&o), text, "{mode}");
    }
}

#[test]
fn auto_on_a_large_file_is_the_outline_with_exact_follow_ups() {
    let env = Env::new();
    env.file("big.rs", &rust_file(120, 12));
    let o = env.read(&["big.rs"], None);
    let out = stdout(&o);
    assert!(out.starts_with("[ctx] big.rs · rust · "), "{out}");
    assert!(
        out.contains("L1-15 pub fn f0(x: u32) -> u32 (+14 lines)"),
        "{out}"
    );
    assert!(out.contains("--mode symbol:f0"), "{out}");
    assert!(
        out.trim_end().ends_with("ctx read big.rs --mode full"),
        "{out}"
    );
    // The follow-up it names works and returns that function.
    let f = env.read(&["big.rs", "--mode", "symbol:f0"], None);
    assert!(stdout(&f).starts_with("pub fn f0(x: u32) -> u32 {\n"));
}

#[test]
fn symbol_resolves_type_paths_and_lines_slices() {
    let env = Env::new();
    env.file(
        "p.rs",
        "pub struct Parser;\n\nimpl Parser {\n    pub fn parse(&self) -> u8 {\n        1\n    }\n}\n\nimpl Other {\n    fn parse(&self) {}\n}\n",
    );
    let o = env.read(&["p.rs", "--mode", "symbol:Parser::parse"], None);
    assert_eq!(
        stdout(&o),
        "    pub fn parse(&self) -> u8 {\n        1\n    }\n[ctx] symbol Parser::parse · lines 4-6 of 11 · whole file: ctx read p.rs --mode full\n"
    );
    // Two `parse`: listed with their exact reads, never guessed.
    let amb = env.read(&["p.rs", "--mode", "symbol:parse"], None);
    assert_eq!(amb.status.code(), Some(2));
    let err = String::from_utf8_lossy(&amb.stderr);
    assert!(
        err.contains("--mode lines:4-6") && err.contains("--mode lines:10"),
        "{err}"
    );
    // `symbol:Parser` means the struct, not its impl block.
    assert!(
        stdout(&env.read(&["p.rs", "--mode", "symbol:Parser"], None))
            .starts_with("pub struct Parser;\n[ctx]")
    );
    let lines = env.read(&["p.rs", "--mode", "lines:3-4"], None);
    assert!(
        stdout(&lines)
            .starts_with("impl Parser {\n    pub fn parse(&self) -> u8 {\n[ctx] lines 3-4 of 11")
    );
    let past = env.read(&["p.rs", "--mode", "lines:40-50"], None);
    assert_eq!(past.status.code(), Some(2));
}

#[test]
fn signatures_keep_the_public_api_only() {
    let env = Env::new();
    env.file(
        "m.py",
        "class Public:\n    def run(self):\n        pass\n\n    def _hidden(self):\n        pass\n\n\nclass _Private:\n    def run(self):\n        pass\n\n\ndef helper():\n    pass\n",
    );
    let out = stdout(&env.read(&["m.py", "--mode", "signatures"], None));
    assert!(
        out.contains("class Public") && out.contains("def run(self)"),
        "{out}"
    );
    assert!(out.contains("def helper()"), "{out}");
    assert!(
        !out.contains("_hidden") && !out.contains("_Private"),
        "{out}"
    );
}

#[test]
fn sections_slice_markdown_by_heading() {
    let env = Env::new();
    env.file(
        "doc.md",
        "# Title\n\nIntro.\n\n## Install\n\nRun it.\n\n### From source\n\nBuild it.\n\n## Usage\n\nUse it.\n",
    );
    let o = env.read(&["doc.md", "--mode", "section:install"], None);
    assert_eq!(
        stdout(&o),
        "## Install\n\nRun it.\n\n### From source\n\nBuild it.\n\n[ctx] section \"Install\" · lines 5-12 of 15 · whole file: ctx read doc.md --mode full\n"
    );
    let none = env.read(&["doc.md", "--mode", "section:Nope"], None);
    assert_eq!(none.status.code(), Some(2));
}

#[test]
fn html_is_outlined_by_its_tree_and_sectioned_as_markdown() {
    let env = Env::new();
    env.file(
        "page.html",
        "<html><body>\n<h1>Guide</h1>\n<p>Hello <b>there</b>.</p>\n<h2 id=\"setup\">Setup</h2>\n<ul><li>one</li><li>two</li></ul>\n<h2>Other</h2>\n<p>x</p>\n</body></html>\n",
    );
    let out = stdout(&env.read(&["page.html", "--mode", "outline"], None));
    assert!(
        out.contains("· html ·") && out.contains("--mode section:HEADING"),
        "{out}"
    );
    let sec = stdout(&env.read(&["page.html", "--mode", "section:Setup"], None));
    assert!(sec.starts_with("## Setup\n"), "{sec}");
    assert!(sec.contains("one") && !sec.contains("<li>"), "{sec}");
    assert!(!sec.contains("Other\n"), "{sec}");
}

#[test]
fn anchored_lines_round_trip_and_drift_is_reported() {
    let env = Env::new();
    let text = "alpha\nbeta\ngamma\n";
    let path = env.file("t.txt", text);
    let out = stdout(&env.read(&["t.txt", "--mode", "full", "--anchors"], None));
    let anchors: Vec<&str> = out.lines().map(|l| l.split('|').next().unwrap()).collect();
    let back: String = out
        .lines()
        .map(|l| format!("{}\n", l.split_once('|').unwrap().1))
        .collect();
    assert_eq!(back, text, "anchored lines are the file's lines");
    let mut args = vec!["t.txt", "--verify"];
    args.extend(anchors.iter().copied());
    let same = env.read(&args, None);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
    assert!(stdout(&same).contains("all 3 anchors unchanged"));

    std::fs::write(&path, "inserted\nalpha\nBETA\ngamma\n").unwrap();
    let drift = env.read(&args, None);
    assert_eq!(drift.status.code(), Some(1));
    let report = stdout(&drift);
    assert!(
        report.contains(&format!("{} changed", anchors[0])),
        "{report}"
    );
    assert!(report.contains("now at line 2"), "{report}");
    assert!(
        report.contains(&format!("{} changed", anchors[1])),
        "{report}"
    );
    assert!(
        report.contains("3 of 3 anchors changed") || report.contains("of 3 anchors changed"),
        "{report}"
    );

    let bad = env.read(&["t.txt", "--verify", "3:xyz"], None);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn stubs_across_reads_edits_sessions_and_fresh() {
    let env = Env::new();
    let path = env.file("s.rs", &rust_file(40, 10));
    let args = ["s.rs", "--mode", "outline"];
    let first = stdout(&env.read(&args, Some("s1")));
    assert!(first.starts_with("[ctx] s.rs · rust"), "{first}");

    let again = stdout(&env.read(&args, Some("s1")));
    assert_eq!(again.lines().count(), 1, "{again}");
    assert!(
        again.contains("unchanged since this session's read at"),
        "{again}"
    );
    assert!(again.contains("ctx read s.rs --mode outline"), "{again}");

    // Another session, no session, and --fresh each see the whole view.
    assert_eq!(stdout(&env.read(&args, Some("s2"))), first);
    assert_eq!(stdout(&env.read(&args, None)), first);
    assert_eq!(
        stdout(&env.read(&["s.rs", "--mode", "outline", "--fresh"], Some("s1"))),
        first
    );

    // A small edit: a diff against the earlier read.
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("pub fn added() {}\n");
    std::fs::write(&path, &text).unwrap();
    let diff = stdout(&env.read(&args, Some("s1")));
    assert!(
        diff.starts_with("[ctx] s.rs changed since this session's read"),
        "{diff}"
    );
    assert!(diff.contains("\n+L561 pub fn added()\n"), "{diff}");
    assert!(diff.lines().count() < 20, "{diff}");
    // Unchanged since that diff: a stub again.
    assert!(stdout(&env.read(&args, Some("s1"))).contains("unchanged since"));

    // A large change: the whole view, not a diff.
    std::fs::write(&path, rust_file(3, 2)).unwrap();
    let whole = stdout(&env.read(&args, Some("s1")));
    assert!(whole.starts_with("[ctx] s.rs · rust"), "{whole}");
}

/// Claude Code's hook gives `ctx read` the agent's `session_id`: the
/// command the hook hands back, run by a shell as the Bash tool would,
/// reads the file once and answers a second read with a stub. A
/// `CTX_SESSION` in the environment still wins.
#[test]
fn the_hooks_session_id_reaches_ctx_read() {
    use std::io::Write;
    let env = Env::new();
    env.file("h.rs", &rust_file(40, 10));
    let payload = serde_json::json!({
        "session_id": "4c3f0a8e-9b1d-4e2a-a7f0-2f6d3c1b9e55",
        "cwd": env.dir.path(),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ctx read h.rs --mode outline", "description": "d"},
    });
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(["hook", "claude", "--allow"])
        .env("HOME", env.home.path())
        .env("CTX_HOME", env.home.path())
        // As Claude Code sets it for hooks: without it, a cwd in no
        // repository and under no `.claude/` is no known project.
        .env("CLAUDE_PROJECT_DIR", env.dir.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("an answer");
    let command = answer["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .expect("a command")
        .to_string();
    assert!(
        command.contains("4c3f0a8e-9b1d-4e2a-a7f0-2f6d3c1b9e55"),
        "{command}"
    );

    let bin = Path::new(env!("CARGO_BIN_EXE_ctx")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |session: Option<&str>| {
        let mut c = Command::new("sh");
        c.args(["-c", &command])
            .current_dir(env.dir.path())
            .env("PATH", &path)
            .env("CTX_HOME", env.home.path());
        match session {
            Some(s) => c.env("CTX_SESSION", s),
            None => c.env_remove("CTX_SESSION"),
        };
        stdout(&c.output().unwrap())
    };
    let first = run(None);
    assert!(first.starts_with("[ctx] h.rs · rust"), "{first}");
    let again = run(None);
    assert!(
        again.contains("unchanged since this session's read"),
        "{again}"
    );
    // CTX_SESSION names another session, which has not read the file.
    assert_eq!(run(Some("mine")), first);
    assert!(run(Some("mine")).contains("unchanged since"));
}

/// An outline is kept by the file's content: the second outline of an
/// unchanged file is the first (from the cache), an edited file is
/// outlined again, and a read with no outline (`full`) keeps nothing.
#[test]
fn outlines_are_cached_by_content() {
    let env = Env::new();
    let path = env.file("c.rs", &rust_file(30, 5));
    let entries = || {
        std::fs::read_dir(env.home.path().join("reads/outlines"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    assert!(env.read(&["c.rs", "--mode", "full"], None).status.success());
    assert_eq!(entries(), 0, "full needs no outline");
    let cold = stdout(&env.read(&["c.rs", "--mode", "outline"], None));
    assert_eq!(entries(), 1);
    let warm = stdout(&env.read(&["c.rs", "--mode", "outline"], None));
    assert_eq!(warm, cold);
    let symbol = stdout(&env.read(&["c.rs", "--mode", "symbol:f29"], None));
    assert!(symbol.starts_with("pub fn f29(x: u32)"), "{symbol}");
    assert_eq!(entries(), 1, "one entry per content");

    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("pub fn added() {}\n");
    std::fs::write(&path, text).unwrap();
    let edited = stdout(&env.read(&["c.rs", "--mode", "outline"], None));
    assert!(edited.contains("pub fn added()"), "{edited}");
    assert_eq!(entries(), 2);
}

/// What re-read stubs keep is pruned: journals and views untouched for
/// over a week are removed by a read, at most once an hour.
#[test]
fn old_session_journals_and_views_are_pruned() {
    use std::time::{Duration, SystemTime};
    let env = Env::new();
    env.file("p.rs", "fn p() {}\n");
    let reads = env.home.path().join("reads");
    // The first read with a session creates the layout (and sweeps it).
    assert!(env.read(&["p.rs"], Some("s")).status.success());
    let week = SystemTime::now() - Duration::from_secs(8 * 24 * 60 * 60);
    let aged = |path: &Path, when: SystemTime| {
        std::fs::write(path, "{}\n").unwrap();
        std::fs::File::options()
            .append(true)
            .open(path)
            .unwrap()
            .set_modified(when)
            .unwrap();
    };
    let old_journal = reads.join("00000000000000000000000000000000.jsonl");
    let old_view = reads.join("views").join("0".repeat(64));
    let old_outline = reads.join("outlines").join("0".repeat(64));
    std::fs::create_dir_all(reads.join("outlines")).unwrap();
    let young_journal = reads.join("11111111111111111111111111111111.jsonl");
    aged(&old_journal, week);
    aged(&old_view, week);
    aged(
        &young_journal,
        SystemTime::now() - Duration::from_secs(24 * 60 * 60),
    );
    let swept = reads.join("swept");
    assert!(swept.exists());
    // Swept within the hour: nothing is removed yet.
    assert!(env.read(&["p.rs"], Some("s")).status.success());
    assert!(old_journal.exists() && old_view.exists());

    // An hour later, the next read sweeps.
    std::fs::File::options()
        .append(true)
        .open(&swept)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(2 * 60 * 60))
        .unwrap();
    assert!(env.read(&["p.rs"], Some("s")).status.success());
    assert!(!old_journal.exists(), "a week-old journal is removed");
    assert!(!old_view.exists(), "a week-old view is removed");
    assert!(
        !old_outline.exists(),
        "a week-old cached outline is removed"
    );
    assert!(young_journal.exists(), "a day-old journal stays");
    // The live session's reads still answer with a stub.
    let again = stdout(&env.read(&["p.rs"], Some("s")));
    assert!(again.contains("unchanged since"), "{again}");
}

#[test]
fn a_broken_home_degrades_to_a_normal_read() {
    let env = Env::new();
    env.file("b.rs", "fn x() {}\n");
    // The home is a regular file: nothing can be kept there.
    let home_file = env.dir.path().join("home-file");
    std::fs::write(&home_file, "").unwrap();
    let o = ctx(
        &home_file,
        env.dir.path(),
        &["b.rs", "--mode", "full"],
        Some("s"),
    );
    assert!(o.status.success());
    assert_eq!(stdout(&o), "fn x() {}\n");
    assert!(String::from_utf8_lossy(&o.stderr).contains("re-read stubs are off"));
    // A home that is a symbolic link is refused, and the read goes on.
    let link = env.dir.path().join("home-link");
    std::os::unix::fs::symlink(env.home.path(), &link).unwrap();
    let o = ctx(
        &link,
        env.dir.path(),
        &["b.rs", "--mode", "full"],
        Some("s"),
    );
    assert!(o.status.success());
    assert_eq!(stdout(&o), "fn x() {}\n");
}

#[test]
fn binary_images_and_pdfs_are_described_not_printed() {
    let env = Env::new();
    // ctx's own executable: an ELF file, described in one line.
    let exe = env!("CARGO_BIN_EXE_ctx");
    let size = std::fs::metadata(exe).unwrap().len() as usize;
    let out = stdout(&env.read(&[exe, "--mode", "full"], None));
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("· binary application/x-"), "{out}");
    let grouped = size
        .to_string()
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(",");
    assert!(out.contains(&format!("{grouped} bytes")), "{out}");
    let bin = env.dir.path().join("x.bin");
    std::fs::write(&bin, [1, 0, 2, 0, 3]).unwrap();
    let out = stdout(&env.read(&["x.bin"], None));
    assert!(
        out.contains("· binary data · 5 bytes · not text, not shown"),
        "{out}"
    );

    let png = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/read/image/favicon-32x32.png");
    let out = stdout(&env.read(&[png.to_str().unwrap()], None));
    assert!(out.contains("image image/png, 32×32 pixels"), "{out}");
    assert!(out.contains("690 bytes"), "{out}");

    let pdf = env.dir.path().join("doc.pdf");
    std::fs::write(&pdf, minimal_pdf()).unwrap();
    let with_tool = env.read(&["doc.pdf"], None);
    assert!(with_tool.status.success());
    let out = stdout(&with_tool);
    let installed = Command::new("pdftotext").arg("-v").output().is_ok();
    if installed {
        assert!(out.contains("Hello ctx"), "{out}");
    } else {
        assert!(out.contains("pdftotext is not installed"), "{out}");
    }
    // With no pdftotext on PATH, the message says so.
    let mut c = Command::new(env!("CARGO_BIN_EXE_ctx"));
    c.args(["read", "doc.pdf"])
        .current_dir(env.dir.path())
        .env("CTX_HOME", env.home.path())
        .env("PATH", env.dir.path());
    let out = stdout(&c.output().unwrap());
    assert!(
        out.contains("PDF document; pdftotext is not installed"),
        "{out}"
    );
}

/// A one-page PDF with "Hello ctx" in Helvetica, byte offsets computed.
fn minimal_pdf() -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        "<< /Length 38 >>\nstream\nBT /F1 12 Tf 20 50 Td (Hello ctx) Tj ET\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[test]
fn unknown_languages_get_a_labelled_line_view_never_a_guess() {
    let env = Env::new();
    let text: String = (1..=200).map(|i| format!("line {i}\n")).collect();
    env.file("data.xyz", &text);
    let out = stdout(&env.read(&["data.xyz", "--mode", "outline"], None));
    assert!(
        out.starts_with(
            "[ctx] data.xyz · no grammar for .xyz files · 200 lines · precision: lines\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("[ctx] … 120 lines omitted: ctx read data.xyz --mode lines:61-180"),
        "{out}"
    );
    assert!(out.contains("line 60\n") && !out.contains("line 61\n") && out.contains("line 181\n"));
    let sym = env.read(&["data.xyz", "--mode", "symbol:x"], None);
    assert_eq!(sym.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&sym.stderr).contains("--mode lines:1-200"));
}

#[test]
fn errors_are_clear_and_exit_2() {
    let env = Env::new();
    for args in [
        vec!["missing.rs"],
        vec!["."],
        vec!["x.rs", "--mode", "bogus"],
    ] {
        env.file("x.rs", "fn a() {}\n");
        let o = env.read(&args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!o.stderr.is_empty(), "{args:?}");
    }
}

/// Counts of one agree: `has 1 line`, `the file has 1 line`, `the 1
/// anchor unchanged`, never `1 lines` or `all 1 anchors`.
#[test]
fn counts_of_one_read_as_english() {
    let env = Env::new();
    env.file("one.txt", "alpha\n");
    let past = env.read(&["one.txt", "--mode", "lines:5"], None);
    assert_eq!(past.status.code(), Some(2));
    let said = String::from_utf8_lossy(&past.stderr);
    assert!(said.contains("one.txt has 1 line; line 5"), "{said}");

    let path = env.file("two.txt", "alpha\nbeta\n");
    let out = stdout(&env.read(&["two.txt", "--mode", "full", "--anchors"], None));
    let second = out
        .lines()
        .nth(1)
        .unwrap()
        .split('|')
        .next()
        .unwrap()
        .to_string();
    let first = out
        .lines()
        .next()
        .unwrap()
        .split('|')
        .next()
        .unwrap()
        .to_string();
    let same = stdout(&env.read(&["two.txt", "--verify", &first], None));
    assert!(same.contains("1 anchor unchanged"), "{same}");
    assert!(!same.contains("all 1 anchors"), "{same}");
    std::fs::write(&path, "alpha\n").unwrap();
    let gone = stdout(&env.read(&["two.txt", "--verify", &second], None));
    assert!(gone.contains("gone: the file has 1 line"), "{gone}");
    assert!(!gone.contains("1 lines"), "{gone}");
    assert!(
        gone.contains("1 of 1 anchor changed") || gone.contains("the 1 anchor changed"),
        "{gone}"
    );
}
