//! A command line as every reader of one sees it: classification (which
//! profile serves `uv run pytest`?), the rewrite hook (where does `ctx run`
//! go in `timeout 60 cargo test`?) and the shims. They once carried three
//! wrapper lists that disagreed about `timeout`, `nohup` and `uvx`; there
//! is now one ([`wrappers::unwrap`]) and one [`basename`].

pub mod secrets;
pub mod wrappers;

/// The last `/`-separated part of a program name: `/usr/bin/cargo` → `cargo`.
pub fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The words of the command `argv` runs, as a profile's command table
/// names it: wrappers looked through ([`wrappers::unwrap`]), then the
/// launchers that run a tool by name (`python -m pytest`, `node
/// node_modules/.bin/tsc`, `yarn tsc`, `npm run lint`), and the first word
/// reduced to its basename: `["/usr/bin/python3", "-m", "pytest", "-q"]` →
/// `["pytest", "-q"]`. A wrapper with nothing after it (`npx`, `env`) is
/// itself the command.
pub fn command_words<S: AsRef<str>>(argv: &[S]) -> Vec<&str> {
    let words: Vec<&str> = argv.iter().map(AsRef::as_ref).collect();
    let mut at = 0;
    while let Some(inner) = wrappers::unwrap(&words[at..]).map(|i| at + i) {
        if inner >= words.len() {
            break;
        }
        at = inner;
        match launched(&words[at..]) {
            Some(skip) if at + skip < words.len() => at += skip,
            _ => break,
        }
    }
    let mut out = words[at..].to_vec();
    if let Some(first) = out.first_mut() {
        *first = basename(first);
    }
    out
}

/// How many words launch the tool named after them, when `words` starts
/// with a launcher: an interpreter running a module or a script, or a
/// package manager running an installed program or a script by name.
fn launched(words: &[&str]) -> Option<usize> {
    let name = basename(words.first()?);
    let next = words.get(1).copied();
    let plain = |w: Option<&str>| w.is_some_and(|w| !w.starts_with('-'));
    match name {
        n if n.starts_with("python") && next == Some("-m") => Some(2),
        "node" if plain(next) => Some(1),
        "npm" | "yarn" | "pnpm" | "bun" if next == Some("run") => Some(2),
        "yarn" | "pnpm" if plain(next) => Some(1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> String {
        let argv: Vec<&str> = s.split(' ').collect();
        command_words(&argv).join(" ")
    }

    /// One table for every wrapper and launcher: the command each reader
    /// (classification, rewrite, shims) must find inside.
    #[test]
    fn wrappers_and_launchers_are_looked_through() {
        let cases = [
            ("pytest -q", "pytest -q"),
            ("/usr/bin/cargo build", "cargo build"),
            ("timeout 5 make", "make"),
            ("timeout -s KILL -k 10 5m cargo test", "cargo test"),
            ("timeout --signal=TERM 30 go test ./...", "go test ./..."),
            ("timeout --kill-after 5 60 pytest", "pytest"),
            ("nohup cargo test", "cargo test"),
            ("nohup timeout 5 pytest -x", "pytest -x"),
            ("env VAR=1 pytest", "pytest"),
            ("env -u HOME CC=clang make -k", "make -k"),
            ("env -i A=1 B=2 /usr/bin/go test", "go test"),
            ("uvx ruff check", "ruff check"),
            ("uvx --from ruff==0.6 ruff check", "ruff check"),
            ("npx tsc -p .", "tsc -p ."),
            ("npx --yes jest", "jest"),
            ("npx -p typescript tsc", "tsc"),
            ("poetry run pytest", "pytest"),
            ("uv run pytest -q", "pytest -q"),
            ("uv run --with pytest-xdist pytest -n 4", "pytest -n 4"),
            ("uv run python -m pytest", "pytest"),
            ("python -m pytest", "pytest"),
            ("/usr/bin/python3 -m mypy src", "mypy src"),
            ("python3.12 -m pytest tests", "pytest tests"),
            ("node node_modules/.bin/tsc", "tsc"),
            ("yarn tsc", "tsc"),
            ("pnpm exec vitest run", "vitest run"),
            ("npm run lint", "lint"),
            ("nice -n 5 time -f %e cargo build", "cargo build"),
            ("stdbuf -oL rg foo", "rg foo"),
            ("command grep -rn x", "grep -rn x"),
            ("docker exec -it box pytest", "pytest"),
            ("bundle exec rspec", "rspec"),
            ("timeout 5 -- make", "make"),
            // Nothing wrapped: the wrapper is the command.
            ("npx", "npx"),
            ("env", "env"),
            ("timeout 5", "timeout 5"),
            // Not wrappers: the package manager's own work.
            ("uv pip install", "uv pip install"),
            ("npm install", "npm install"),
            ("python script.py", "python script.py"),
        ];
        for (line, want) in cases {
            assert_eq!(words(line), want, "{line}");
        }
        assert!(command_words::<&str>(&[]).is_empty());
    }

    #[test]
    fn basename_keeps_the_last_part() {
        assert_eq!(basename("/usr/bin/cargo"), "cargo");
        assert_eq!(basename("cargo"), "cargo");
        assert_eq!(basename("./x/"), "");
    }
}
