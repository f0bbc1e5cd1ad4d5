//! The config file (`$XDG_CONFIG_HOME/ctx/config.toml`), the environment
//! over it, `ctx config`, and `ctx completions`, against the built binary.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

/// Variables a developer's shell may carry that the tests set themselves.
const OURS: [&str; 8] = [
    "CTX_CONFIG",
    "CTX_BUDGET",
    "CTX_STORE_MAX_BYTES",
    "CTX_STORE_MIN_AGE",
    "CTX_DISABLED_FAMILIES",
    "CTX_SHIMS",
    "CTX_STORE",
    "CTX_DISABLE",
];

struct Home {
    dir: TempDir,
}

impl Home {
    fn new(config: Option<&str>) -> Home {
        let dir = tempfile::tempdir().unwrap();
        if let Some(text) = config {
            std::fs::create_dir_all(dir.path().join("config/ctx")).unwrap();
            std::fs::write(dir.path().join("config/ctx/config.toml"), text).unwrap();
        }
        Home { dir }
    }

    fn cmd(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut c = Command::new(CTX);
        c.args(args)
            .env("CTX_HOME", self.dir.path().join("data"))
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"));
        for var in OURS {
            c.env_remove(var);
        }
        for (k, v) in env {
            c.env(k, v);
        }
        c
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.cmd(args, env).output().unwrap()
    }

    fn pipe(&self, args: &[&str], env: &[(&str, &str)], input: &[u8]) -> Output {
        let mut child = self
            .cmd(args, env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        child.wait_with_output().unwrap()
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The row of `ctx config` for `key`, whitespace collapsed.
fn row(out: &Output, key: &str) -> String {
    text(&out.stdout)
        .lines()
        .find(|l| l.starts_with(&format!("{key} ")))
        .unwrap_or_else(|| panic!("no {key} row in {}", text(&out.stdout)))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn without_a_file_every_value_is_a_default() {
    let home = Home::new(None);
    let out = home.run(&["config"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let first = text(&out.stdout).lines().next().unwrap().to_string();
    assert!(
        first.contains("config/ctx/config.toml (not present)"),
        "{first}"
    );
    assert_eq!(
        row(&out, "store.max_bytes"),
        "store.max_bytes 2.0 GiB (default)"
    );
    assert_eq!(row(&out, "store.min_age"), "store.min_age 1 day (default)");
    assert!(row(&out, "budget").ends_with("(default)"));
    assert!(row(&out, "shims").ends_with("(default)"));
}

#[test]
fn the_file_sets_values_and_the_environment_overrides_them() {
    let home = Home::new(Some(
        "budget = 900\ndisabled_families = [\"jest\"]\nshims = [\"pytest\"]\n\
         [store]\nmax_bytes = \"500MiB\"\nmin_age = \"2h\"\n",
    ));
    let out = home.run(&["config"], &[("CTX_STORE_MIN_AGE", "3h")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(row(&out, "budget"), "budget 900 tokens (config file)");
    assert_eq!(
        row(&out, "store.max_bytes"),
        "store.max_bytes 500.0 MiB (config file)"
    );
    assert_eq!(
        row(&out, "store.min_age"),
        "store.min_age 3 hours ($CTX_STORE_MIN_AGE)"
    );
    assert_eq!(
        row(&out, "disabled_families"),
        "disabled_families jest (config file)"
    );
    assert_eq!(row(&out, "shims"), "shims pytest (config file)");

    let json = home.run(&["config", "--format", "json"], &[("CTX_BUDGET", "300")]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["settings"]["budget"]["value"], 300);
    assert_eq!(v["settings"]["budget"]["source"], "$CTX_BUDGET");
    assert_eq!(v["settings"]["store.max_bytes"]["value"], 500u64 << 20);

    // `ctx store stats` reports the same limits and sources.
    let stats = text(&home.run(&["store", "stats"], &[]).stdout);
    assert!(stats.contains("cap           500.0 MiB ("), "{stats}");
    assert!(stats.contains("config.toml)"), "{stats}");
}

#[test]
fn ctx_config_names_the_file() {
    let home = Home::new(None);
    let file = home.path().join("elsewhere.toml");
    std::fs::write(&file, "budget = 700\n").unwrap();
    let out = home.run(&["config"], &[("CTX_CONFIG", file.to_str().unwrap())]);
    assert_eq!(row(&out, "budget"), "budget 700 tokens (config file)");
    assert!(text(&out.stdout).starts_with(&format!("file: {}\n", file.display())));
}

#[test]
fn a_broken_file_is_reported_and_ignored() {
    let home = Home::new(Some("budgte = 900\n"));
    let out = home.run(&["config"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("budgte"),
        "{}",
        text(&out.stderr)
    );
    assert!(row(&out, "budget").ends_with("(default)"));
    // The commands ctx runs are not affected.
    let out = home.pipe(&["pipe"], &[], b"hello\n");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"hello\n");
}

/// About 2,000 tokens of plain text: over text/v1's target of 1,200.
fn log() -> Vec<u8> {
    (0..400)
        .map(|i| format!("step {i}: compiled module number {i} in the build\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn the_configured_budget_is_used_and_the_flag_wins() {
    let input = log();
    // Default: the text target digests it.
    let home = Home::new(None);
    let out = home.pipe(&["pipe"], &[], &input);
    assert_ne!(out.stdout, input, "the default budget digests it");
    // A configured budget larger than the output: printed as it is.
    let home = Home::new(Some("budget = 20000\n"));
    let out = home.pipe(&["pipe"], &[], &input);
    assert_eq!(text(&out.stdout), text(&input));
    // The environment beats the file, the flag beats both.
    let out = home.pipe(&["pipe"], &[("CTX_BUDGET", "300")], &input);
    assert_ne!(out.stdout, input);
    let out = home.pipe(
        &["pipe", "--budget", "20000"],
        &[("CTX_BUDGET", "300")],
        &input,
    );
    assert_eq!(out.stdout, input);
}

#[test]
fn a_disabled_family_is_read_as_text() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pytest/many-failures/stdout");
    let input = std::fs::read(fixture).unwrap();
    let home = Home::new(None);
    let out = home.pipe(&["pipe"], &[], &input);
    assert!(
        text(&out.stdout).starts_with("pytest: FAILED"),
        "{}",
        text(&out.stdout)
    );
    let home = Home::new(Some("disabled_families = [\"pytest\"]\n"));
    let out = home.pipe(&["pipe"], &[], &input);
    assert!(
        text(&out.stdout).starts_with("[ctx] output: "),
        "{}",
        text(&out.stdout)
    );
    // `--as` still names it on purpose.
    let out = home.pipe(&["pipe", "--as", "pytest"], &[], &input);
    assert!(text(&out.stdout).starts_with("pytest: FAILED"));
}

#[test]
fn the_configured_shim_set_is_what_install_creates() {
    let home = Home::new(Some("shims = [\"sh\"]\n"));
    let dir = home.path().join("shims");
    let out = home.run(&["shims", "install", "--dir", dir.to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        // The folder's own hidden views (`.ctx-view`) are not shims.
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(names, ["sh"]);
}

#[test]
fn completions_for_bash_zsh_and_fish() {
    let home = Home::new(None);
    let bash = home.run(&["completions", "bash"], &[]);
    assert!(bash.status.success());
    // bash accepts the script and registers it for ctx.
    let script = home.path().join("ctx.bash");
    std::fs::write(&script, &bash.stdout).unwrap();
    let check = Command::new("bash")
        .arg("-c")
        .arg(format!("source {} && complete -p ctx", script.display()))
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert!(text(&check.stdout).contains("ctx"));
    assert!(text(&bash.stdout).contains("expand"), "verbs are completed");

    let zsh = text(&home.run(&["completions", "zsh"], &[]).stdout);
    assert!(zsh.starts_with("#compdef ctx"), "{zsh}");
    let fish = text(&home.run(&["completions", "fish"], &[]).stdout);
    assert!(fish.contains("complete -c ctx"), "{fish}");
    assert!(fish.contains("severity"), "flags are completed");

    let bad = home.run(&["completions", "cmd.exe"], &[]);
    assert_eq!(bad.status.code(), Some(2));
}

/// What a real shell offers after `line` (typed, then TAB), with the
/// completion script `ctx completions SHELL` printed; `None` when that
/// shell is not installed here.
fn offered(shell: &str, line: &str) -> Option<String> {
    use completest_pty::{BashRuntime, Term, ZshRuntime};
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {shell}"))
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        return None;
    }
    let home = Home::new(None);
    let script = home.run(&["completions", shell], &[]);
    assert!(script.status.success(), "{}", text(&script.stderr));
    let script = text(&script.stdout);
    let bin_root = Path::new(CTX).parent().unwrap().to_path_buf();
    let shell_home = home.path().join(shell);
    std::fs::create_dir_all(&shell_home).unwrap();
    let term = Term::new();
    let output = match shell {
        "bash" => {
            let mut r = BashRuntime::new(bin_root, shell_home).unwrap();
            r.register("ctx", &script).unwrap();
            r.complete(&format!("{line}\t\t"), &term)
        }
        "zsh" => {
            let mut r = ZshRuntime::new(bin_root, shell_home).unwrap();
            r.register("ctx", &script).unwrap();
            r.complete(&format!("{line}\t"), &term)
        }
        // fish's own completion engine, asked directly: its interactive
        // pager does not draw a list in a pseudo-terminal this small.
        "fish" => {
            let file = shell_home.join("ctx.fish");
            std::fs::write(&file, &script).unwrap();
            let asked = Command::new("fish")
                .arg("--no-config")
                .arg("-c")
                .arg(format!("source {}; complete -C {line:?}", file.display()))
                .env(
                    "PATH",
                    format!(
                        "{}:{}",
                        bin_root.display(),
                        std::env::var("PATH").unwrap_or_default()
                    ),
                )
                .output()
                .unwrap();
            assert!(asked.status.success(), "{}", text(&asked.stderr));
            Ok(text(&asked.stdout))
        }
        other => panic!("no runtime for {other}"),
    };
    Some(output.unwrap())
}

#[test]
fn real_shells_complete_the_words_ctx_checks_itself() {
    // Each line, and words the shell must offer after it.
    let cases: [(&str, &[&str]); 6] = [
        ("ctx init ", &["claude-code", "codex"]),
        ("ctx gain --since ", &["yesterday", "monday"]),
        ("ctx pipe --as ", &["pytest", "cargo_test"]),
        ("ctx read --mode ", &["outline", "signatures"]),
        ("ctx gain --by ", &["family", "day"]),
        ("ctx run --format ", &["sarif", "junit"]),
    ];
    for shell in ["bash", "zsh", "fish"] {
        for (line, words) in cases {
            let Some(screen) = offered(shell, line) else {
                println!("SKIPPED: {shell} is not installed (.ci/run installs it)");
                break;
            };
            for word in words {
                assert!(
                    screen.contains(word),
                    "{shell}: `{line}<TAB>` offers {word}:\n{screen}"
                );
            }
        }
    }
}
