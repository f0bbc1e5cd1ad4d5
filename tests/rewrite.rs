//! `ctx rewrite`: a table of command lines and their expected rewrites
//! (chains, pipes, prefixes, wrappers, quotes, unattestable forms), then
//! the CLI's two printed forms and exit statuses.
//!
//! The table uses a fixed set of known commands so that it does not move
//! when profiles are added; the CLI cases use commands with profiles today.

use std::process::Command;

use ctx::rewrite::rewrite_with;

/// The known commands of the table.
fn known(argv: &[String]) -> bool {
    let Some(first) = argv.first() else {
        return false;
    };
    let base = first.rsplit('/').next().unwrap_or(first);
    let python = base == "python" || base == "python3";
    ["pytest", "cargo", "tsc", "make", "jest", "go", "mypy"].contains(&base)
        || python
            && argv.get(1).is_some_and(|a| a == "-m")
            && argv.get(2).is_some_and(|a| a == "pytest")
}

/// (line, expected rewrite; "=" for unchanged).
const TABLE: &[(&str, &str)] = &[
    // Simple commands.
    ("pytest", "ctx run -- pytest"),
    ("pytest -x -q tests/", "ctx run -- pytest -x -q tests/"),
    (
        "cargo test --workspace",
        "ctx run -- cargo test --workspace",
    ),
    ("/usr/bin/pytest", "ctx run -- /usr/bin/pytest"),
    (
        "./node_modules/.bin/tsc --noEmit",
        "ctx run -- ./node_modules/.bin/tsc --noEmit",
    ),
    (
        "python -m pytest -k slow",
        "ctx run -- python -m pytest -k slow",
    ),
    ("python3 -m pytest", "ctx run -- python3 -m pytest"),
    ("ls -la", "="),
    ("echo pytest", "="),
    ("python script.py", "="),
    ("", "="),
    ("   ", "="),
    // Chains.
    ("cd app && pytest", "cd app && ctx run -- pytest"),
    (
        "cargo build && cargo test",
        "ctx run -- cargo build && ctx run -- cargo test",
    ),
    ("pytest || echo failed", "ctx run -- pytest || echo failed"),
    ("pytest; echo done", "ctx run -- pytest; echo done"),
    ("cd a;pytest", "cd a;ctx run -- pytest"),
    (
        "cd a&&pytest||tsc",
        "cd a&&ctx run -- pytest||ctx run -- tsc",
    ),
    (
        "pytest\ncargo test",
        "ctx run -- pytest\nctx run -- cargo test",
    ),
    ("echo 'a && pytest'", "="),
    (
        "echo \"a; pytest\" && pytest",
        "echo \"a; pytest\" && ctx run -- pytest",
    ),
    // Pipelines: only the last stage, only when known.
    ("pytest | tail -n 20", "="),
    ("pytest 2>&1 | tee log", "="),
    ("echo y | pytest", "echo y | ctx run -- pytest"),
    (
        "cat list | xargs echo | make",
        "cat list | xargs echo | ctx run -- make",
    ),
    ("pytest |& grep FAILED", "="),
    (
        "cd x && pytest | cat; cargo test",
        "cd x && pytest | cat; ctx run -- cargo test",
    ),
    // Environment assignments and shell prefixes stay in front.
    ("FOO=1 pytest", "FOO=1 ctx run -- pytest"),
    (
        "A=1 B='x y' cargo test",
        "A=1 B='x y' ctx run -- cargo test",
    ),
    ("time pytest", "time ctx run -- pytest"),
    ("time -p cargo build", "time -p ctx run -- cargo build"),
    ("! pytest", "! ctx run -- pytest"),
    ("FOO=1", "="),
    // Wrappers stay, inside ctx run; classification looks through them.
    ("uv run pytest", "ctx run -- uv run pytest"),
    (
        "uv run --with pytest-xdist pytest -n 4",
        "ctx run -- uv run --with pytest-xdist pytest -n 4",
    ),
    ("poetry run pytest", "ctx run -- poetry run pytest"),
    (
        "pipenv run python -m pytest",
        "ctx run -- pipenv run python -m pytest",
    ),
    ("npx tsc --noEmit", "ctx run -- npx tsc --noEmit"),
    ("npx --yes jest", "ctx run -- npx --yes jest"),
    ("pnpm exec jest", "ctx run -- pnpm exec jest"),
    ("bunx tsc", "ctx run -- bunx tsc"),
    (
        "docker exec web pytest",
        "ctx run -- docker exec web pytest",
    ),
    (
        "docker exec -it -e A=1 -w /app web pytest -q",
        "ctx run -- docker exec -it -e A=1 -w /app web pytest -q",
    ),
    (
        "docker compose exec api pytest",
        "ctx run -- docker compose exec api pytest",
    ),
    (
        "docker compose exec -T api python -m pytest",
        "ctx run -- docker compose exec -T api python -m pytest",
    ),
    (
        "direnv exec . cargo test",
        "ctx run -- direnv exec . cargo test",
    ),
    (
        "nix develop --command cargo build",
        "ctx run -- nix develop --command cargo build",
    ),
    (
        "nix develop .#ci -c make",
        "ctx run -- nix develop .#ci -c make",
    ),
    ("env FOO=1 pytest", "ctx run -- env FOO=1 pytest"),
    ("env -u HOME pytest", "ctx run -- env -u HOME pytest"),
    (
        "timeout 300 cargo test",
        "ctx run -- timeout 300 cargo test",
    ),
    (
        "timeout -k 5 300 pytest",
        "ctx run -- timeout -k 5 300 pytest",
    ),
    ("uv run python script.py", "="),
    ("docker exec web ls", "="),
    ("npx prettier --check .", "="),
    ("timeout 5", "="),
    // Quotes and escapes are kept byte for byte.
    (
        "pytest -k 'a and not b'",
        "ctx run -- pytest -k 'a and not b'",
    ),
    (
        "pytest -k \"test_x or test_y\"",
        "ctx run -- pytest -k \"test_x or test_y\"",
    ),
    (
        "pytest tests/with\\ space.py",
        "ctx run -- pytest tests/with\\ space.py",
    ),
    ("\"pytest\" -q", "ctx run -- \"pytest\" -q"),
    ("pytest \"$HOME/x\"", "ctx run -- pytest \"$HOME/x\""),
    ("pytest 'unterminated", "="),
    // Redirections: stdout elsewhere stays raw; stderr and stdin are fine.
    ("pytest > out.txt", "="),
    ("pytest >> out.txt", "="),
    ("pytest 1>out.txt", "="),
    ("pytest &> log", "="),
    ("pytest >&2", "="),
    ("pytest 2>&1", "ctx run -- pytest 2>&1"),
    ("pytest 2>/dev/null", "ctx run -- pytest 2>/dev/null"),
    ("pytest < input.txt", "ctx run -- pytest < input.txt"),
    ("pytest <<< y", "ctx run -- pytest <<< y"),
    ("echo 2 > f && pytest", "echo 2 > f && ctx run -- pytest"),
    // Unattestable: the whole line is left alone.
    ("x=$(pytest)", "="),
    ("echo `cargo test`", "="),
    ("pytest -k \"$(cat keys)\"", "="),
    ("pytest <<EOF\ny\nEOF", "="),
    ("(cd app && pytest)", "="),
    ("f() { pytest; }; f", "="),
    ("{ pytest; }", "="),
    ("eval pytest", "="),
    ("eval \"$CMD\" && pytest", "="),
    ("for f in a b; do pytest $f; done", "="),
    ("if true; then pytest; fi", "="),
    ("pytest &", "="),
    ("diff <(pytest) <(pytest)", "="),
    ("case $x in a) pytest;; esac", "="),
    // Watch modes and servers are never captured.
    ("jest --watch", "="),
    ("cargo watch -x test", "="),
    ("make serve", "="),
    ("tsc --watch", "="),
    ("make dev", "="),
    // Already wrapped, or ctx itself.
    ("ctx run -- pytest", "="),
    ("ctx expand abc123", "="),
    // Comments.
    (
        "pytest # run the tests",
        "ctx run -- pytest # run the tests",
    ),
    ("# pytest", "="),
];

#[test]
fn table() {
    assert!(TABLE.len() >= 60);
    let mut wrong = Vec::new();
    for (line, want) in TABLE {
        let want = if *want == "=" {
            None
        } else {
            Some(want.to_string())
        };
        let got = rewrite_with(line, &known);
        if got != want {
            wrong.push(format!("{line:?}: got {got:?}, want {want:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

fn ctx_rewrite(line: &str) -> (String, Option<i32>) {
    let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(["rewrite", line])
        .output()
        .expect("ctx rewrite");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

#[test]
fn cli_prints_the_rewrite_and_exits_0() {
    let (out, code) = ctx_rewrite("cd app && FOO=1 pytest -q | cat; cargo test");
    assert_eq!(
        out,
        "cd app && FOO=1 pytest -q | cat; ctx run -- cargo test\n"
    );
    assert_eq!(code, Some(0));
}

#[test]
fn cli_prints_the_original_and_exits_1() {
    for line in ["ls -la", "x=$(pytest)", "pytest | tail"] {
        let (out, code) = ctx_rewrite(line);
        assert_eq!(out, format!("{line}\n"));
        assert_eq!(code, Some(1));
    }
}
