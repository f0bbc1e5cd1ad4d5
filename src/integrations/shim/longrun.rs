//! Commands that never end on their own or talk to a person: watch modes,
//! servers, followers and REPLs. Their output cannot be digested after the
//! fact (there is no after), so shims pass them through and `ctx rewrite`
//! leaves them alone. The list is documented in docs/shims.md.

/// Flags that turn a build or test command into a watcher or a server.
const WATCH_FLAGS: &[&str] = &[
    "--watch",
    "--watchAll",
    "--serve",
    "--follow",
    "--interactive",
];

/// First subcommands that start a watcher, a server or a shell.
const SUBCOMMANDS: &[&str] = &[
    "watch", "dev", "serve", "server", "start", "preview", "repl", "shell", "console", "attach",
];

/// Commands whose `-f` means "follow forever".
const FOLLOWERS: &[&str] = &["tail", "journalctl", "less"];

/// Interpreters that open a REPL when given no script.
const REPLS: &[&str] = &[
    "python",
    "python3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "irb",
    "ruby",
    "ghci",
    "iex",
    "erl",
    "lua",
    "R",
    "julia",
    "psql",
    "mysql",
    "sqlite3",
    "redis-cli",
];

/// Why `argv` must not be captured, if it must not.
pub fn long_running(argv: &[String]) -> Option<&'static str> {
    let name = argv.first().map(|w| crate::command::basename(w))?;
    let args = &argv[1..];
    if args.iter().any(|a| {
        WATCH_FLAGS.contains(&a.as_str())
            || WATCH_FLAGS
                .iter()
                .any(|f| a.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
    }) {
        return Some("watch or server flag");
    }
    let repl_name = name.strip_prefix("python").map_or(name, |v| {
        if v.chars().all(|c| c.is_ascii_digit() || c == '.') {
            "python"
        } else {
            name
        }
    });
    if REPLS.contains(&repl_name)
        && args
            .iter()
            .all(|a| a.starts_with('-') && a != "-c" && a != "-m" && a != "-e")
    {
        return Some("interactive interpreter");
    }
    let follows = args.iter().any(|a| {
        a == "-f"
            || a == "-F"
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('f') && name == "tail")
    });
    if FOLLOWERS.contains(&name) && follows {
        return Some("follows a file");
    }
    // `docker logs -f`, `kubectl logs -f`, `docker compose logs -f`.
    if args.iter().any(|a| a == "logs") && follows {
        return Some("follows logs");
    }
    if name == "watch" {
        return Some("repeats forever");
    }
    // `npm run dev`, `pnpm start`, `cargo watch`, `vite serve`, `docker compose up`.
    let mut subs = args.iter().filter(|a| !a.starts_with('-'));
    let sub = match subs.next().map(String::as_str) {
        Some("run" | "run-script" | "exec" | "compose") => subs.next().map(String::as_str),
        other => other,
    };
    match sub {
        Some(s) if SUBCOMMANDS.contains(&s) => Some("watch, server or shell subcommand"),
        Some("up") if !args.iter().any(|a| a == "-d" || a == "--detach") => Some("runs services"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn list() {
        for line in [
            "jest --watch",
            "vitest --watch=true",
            "npm run dev",
            "pnpm start",
            "cargo watch -x test",
            "python",
            "python3 -i",
            "node",
            "tail -f log",
            "tail -n 5 -F log",
            "docker logs -f web",
            "kubectl logs -f pod",
            "docker compose up",
            "watch make",
            "vite serve",
        ] {
            assert!(long_running(&argv(line)).is_some(), "{line}");
        }
        for line in [
            "pytest",
            "cargo test",
            "npm test",
            "python -m pytest",
            "python script.py",
            "node a.js",
            "tail -n 5 log",
            "docker compose up -d",
            "docker logs web",
            "make test",
            "tsc --noEmit",
        ] {
            assert!(long_running(&argv(line)).is_none(), "{line}");
        }
    }
}
