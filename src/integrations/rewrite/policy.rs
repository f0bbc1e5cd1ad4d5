//! Which commands `ctx rewrite` sends through `ctx run`: the ones an agent
//! runs to learn whether the code builds, type-checks and passes its
//! tests, and that end by themselves; and the everyday commands a typed
//! family digests without losing an identity (diffs: `git diff`, `git
//! show`, `git log -p`; searches: `grep -r`, `rg`, `git grep`). A command that runs the program
//! (`cargo run`, `npm start`), installs or publishes something
//! (`cargo install`, `cargo publish`), prints data the agent will use as
//! data (`gcc -E`, `rustc --print`), or waits for a person (`pytest
//! --pdb`) is left as it is. The lists are documented in docs/rewrite.md.

use super::lexer::Word;
use crate::profiles::Profile;
use crate::profiles::git_diff::GitDiff;
use crate::profiles::search::options::{Options, Tool};

/// Whether `words` (wrappers already looked through) is rewritten;
/// `reads_pipe` when the stage reads the output of the one before it.
pub fn rewritable(words: &[Word], reads_pipe: bool) -> bool {
    let argv: Vec<&str> = words.iter().map(|w| w.value.as_str()).collect();
    let Some(first) = argv.first() else {
        return false;
    };
    if !words[0].literal {
        return false;
    }
    let name = crate::command::basename(first);
    let args = &argv[1..];
    // Help and version output is read in full; there is nothing to digest.
    if args.iter().any(|a| *a == "--help" || *a == "--version") {
        return false;
    }
    let literal = |k: usize| words.get(k).is_some_and(|w| w.literal);
    if python_version(name).is_some() {
        return args.first() == Some(&"-m")
            && literal(2)
            && args
                .get(1)
                .is_some_and(|m| PYTHON_MODULES.contains(m) && python_tool(m, &args[2..]));
    }
    match name {
        "pytest" | "py.test" | "mypy" | "pyright" | "basedpyright" | "tsc" | "vue-tsc" | "tsgo"
        | "eslint" | "jest" | "vitest" => python_tool(name, args),
        "dmypy" => {
            subcommand(words, 1, &[]).is_some_and(|s| ["check", "run", "recheck"].contains(&s))
        }
        "ruff" => subcommand(words, 1, &[]).is_some_and(|s| s == "check" || s == "format"),
        "cargo" => cargo(words),
        "go" => subcommand(words, 1, &[]).is_some_and(|s| ["test", "build", "vet"].contains(&s)),
        "make" | "gmake" | "just" => targets(
            words,
            &[
                "-C",
                "-f",
                "--file",
                "--directory",
                "-j",
                "-l",
                "-o",
                "-W",
                "--justfile",
                "--working-directory",
            ],
        ),
        "npm" | "pnpm" | "yarn" | "bun" => package_script(name, words),
        "gcc" | "g++" | "cc" | "c++" | "clang" | "clang++" => compiles(args),
        // Other ecosystems' test and build runners, digested as text.
        "playwright" => subcommand(words, 1, &[]) == Some("test"),
        "deno" => subcommand(words, 1, &[]).is_some_and(|s| ["test", "check", "lint"].contains(&s)),
        "dotnet" => subcommand(words, 1, &[]).is_some_and(|s| ["build", "test"].contains(&s)),
        "swift" => subcommand(words, 1, &[]).is_some_and(|s| ["build", "test"].contains(&s)),
        "mix" => subcommand(words, 1, &[]).is_some_and(|s| ["test", "compile"].contains(&s)),
        "mvn" | "mvnw" | "gradle" | "gradlew" => {
            let goals: Vec<&str> = argv[1..]
                .iter()
                .copied()
                .filter(|a| !a.starts_with('-'))
                .collect();
            !goals.is_empty()
                && words[1..].iter().all(|w| w.literal)
                && goals.iter().all(|g| BUILD_GOALS.contains(g))
        }
        "rspec" | "phpunit" | "ctest" | "tox" | "nox" => python_tool(name, args),
        "git" => git(words, reads_pipe),
        "grep" | "egrep" | "fgrep" | "rg" => search(&argv, reads_pipe),
        // The long tail: a declarative filter that reads the output and
        // names the command in its `[match] rewrite` (docs/filters.md).
        _ => words.iter().all(|w| w.literal) && crate::filters::rewrites(&values(words)),
    }
}

/// The stage's words as the argv the profiles read.
fn values(words: &[Word]) -> Vec<String> {
    words.iter().map(|w| w.value.clone()).collect()
}

/// `git diff`, `git show`, `git log -p` (whatever git_diff/v1 reads by its
/// command) and `git grep`. Never a summary the profile does not claim
/// (`git diff --stat`), a blob (`git show REV:PATH` prints a file, which
/// the reader wants whole), or output meant for a program (`-z`,
/// `--output`).
fn git(words: &[Word], reads_pipe: bool) -> bool {
    const GLOBAL: &[&str] = &["-C", "-c", "--git-dir", "--work-tree", "--namespace"];
    let Some(sub) = subcommand(words, 1, GLOBAL) else {
        return false;
    };
    let argv = values(words);
    let at = argv.iter().position(|w| w == sub).unwrap_or(0);
    let args = &argv[at + 1..];
    let for_programs = args
        .iter()
        .any(|a| a == "-z" || a == "--null" || a.starts_with("--output"));
    if for_programs {
        return false;
    }
    match sub {
        // The profile declines what prints no patch, and `show REV:PATH`.
        "diff" | "show" | "log" | "whatchanged" => GitDiff.by_command(&argv).is_some(),
        "grep" => search(
            &argv.iter().map(String::as_str).collect::<Vec<_>>(),
            reads_pipe,
        ),
        _ => false,
    }
}

/// A search whose output names the file of every match (recursive grep,
/// several files, rg over a tree, git grep), so search/v1 can group it by
/// file. Not a search of standard input (`… | grep x`, `rg x -`), whose
/// lines name no file, nor NUL-separated output or rg's non-search modes.
fn search(argv: &[&str], reads_pipe: bool) -> bool {
    let argv: Vec<String> = argv.iter().map(|w| w.to_string()).collect();
    let Some(o) = Options::from_argv(&argv) else {
        return false;
    };
    let stdin = argv[1..].iter().any(|a| a == "-");
    let not_a_search = argv[1..].iter().any(|a| {
        matches!(
            a.as_str(),
            "--files" | "--type-list" | "--help" | "--version"
        )
    });
    let from_pipe = reads_pipe && o.tool != Tool::GitGrep;
    !stdin && !not_a_search && !from_pipe && !o.null_separated && o.with_path != Some(false)
}

/// `python`, `python3`, `python3.12`.
fn python_version(name: &str) -> Option<()> {
    let rest = name.strip_prefix("python")?;
    rest.chars()
        .all(|c| c.is_ascii_digit() || c == '.')
        .then_some(())
}

/// Maven goals and Gradle tasks that compile, test or check.
const BUILD_GOALS: &[&str] = &[
    "clean",
    "compile",
    "test-compile",
    "test",
    "verify",
    "package",
    "build",
    "check",
    "assemble",
    "classes",
    "testClasses",
];

/// The modules `python -m M` is rewritten for.
const PYTHON_MODULES: &[&str] = &["pytest", "mypy", "ruff", "unittest"];

/// Test runners and checkers: everything but the interactive debugger.
fn python_tool(name: &str, args: &[&str]) -> bool {
    if name == "ruff" {
        return args
            .first()
            .is_some_and(|s| *s == "check" || *s == "format");
    }
    !args.iter().any(|a| {
        ["--pdb", "--trace", "--pdbcls", "--inspect-brk"].contains(a) || a.starts_with("--pdbcls=")
    })
}

/// The first word from `from` on that is not an option (skipping the
/// values of `with_value`), when it is literal.
fn subcommand<'a>(words: &'a [Word], from: usize, with_value: &[&str]) -> Option<&'a str> {
    let mut k = from;
    while let Some(w) = words.get(k) {
        let v = w.value.as_str();
        if v.starts_with('-') || v.starts_with('+') {
            k += if with_value.contains(&v) { 2 } else { 1 };
            continue;
        }
        return w.literal.then_some(v);
    }
    None
}

/// cargo's checks, tests and builds; never `run`, `install`, `publish`.
fn cargo(words: &[Word]) -> bool {
    const GLOBAL: &[&str] = &["--color", "-Z", "-C", "--config", "--manifest-path"];
    let Some(sub) = subcommand(words, 1, GLOBAL) else {
        return false;
    };
    let at = words.iter().position(|w| w.value == sub).unwrap_or(1);
    match sub {
        "build" | "b" | "check" | "c" | "test" | "t" | "clippy" | "doc" | "bench" | "miri" => true,
        "nextest" => subcommand(words, at + 1, &[]).is_some_and(|s| s == "run" || s == "r"),
        _ => false,
    }
}

/// Make targets and just recipes that run, serve, install or ship
/// something instead of building or checking it.
const NOT_BUILD_TARGETS: &[&str] = &[
    "run",
    "serve",
    "server",
    "dev",
    "watch",
    "start",
    "shell",
    "repl",
    "console",
    "install",
    "uninstall",
    "deploy",
    "release",
    "publish",
    "upload",
    "push",
    "up",
    "debug",
    "attach",
];

/// `make [opts] [targets]`: every target must be a build or a check.
fn targets(words: &[Word], with_value: &[&str]) -> bool {
    let mut k = 1;
    while let Some(w) = words.get(k) {
        let v = w.value.as_str();
        if v.starts_with('-') {
            k += if with_value.contains(&v) { 2 } else { 1 };
            continue;
        }
        k += 1;
        if v.contains('=') {
            continue; // a variable, `make CC=clang`
        }
        if !w.literal || NOT_BUILD_TARGETS.contains(&v) {
            return false;
        }
    }
    true
}

/// Script names (or their first part before `:`, `-`, `_`) that build,
/// check or test.
const SCRIPTS: &[&str] = &[
    "test",
    "tests",
    "build",
    "lint",
    "typecheck",
    "type-check",
    "types",
    "tsc",
    "check",
    "ci",
    "coverage",
    "cov",
    "unit",
    "e2e",
    "verify",
    "validate",
    "compile",
];

/// A part of a script name that makes it a watcher or a server.
const LONG_SCRIPT_PARTS: &[&str] = &["watch", "dev", "serve", "start", "preview"];

fn script_ok(name: &str) -> bool {
    let parts: Vec<&str> = name.split([':', '-', '_', '.']).collect();
    if parts.iter().any(|p| LONG_SCRIPT_PARTS.contains(p)) {
        return false;
    }
    SCRIPTS.contains(&name) || parts.first().is_some_and(|p| SCRIPTS.contains(p))
}

/// `npm test`, `npm run test:unit`, `pnpm -r build`, `yarn workspace a
/// test`, `bun test`.
fn package_script(tool: &str, words: &[Word]) -> bool {
    const WITH_VALUE: &[&str] = &[
        "--prefix",
        "-w",
        "--workspace",
        "-C",
        "--dir",
        "--filter",
        "-F",
        "--cwd",
    ];
    let with_value: &[&str] = if tool == "pnpm" || tool == "yarn" || tool == "npm" {
        WITH_VALUE
    } else {
        &["--cwd"]
    };
    let Some(sub) = subcommand(words, 1, with_value) else {
        return false;
    };
    let at = words
        .iter()
        .skip(1)
        .position(|w| w.value == sub)
        .map_or(1, |p| p + 1);
    let next = || subcommand(words, at + 1, &[]);
    match (tool, sub) {
        (_, "test" | "t" | "tst") => true,
        ("npm", "run" | "run-script" | "rum" | "urn") | ("pnpm" | "yarn" | "bun", "run") => {
            next().is_some_and(script_ok)
        }
        ("yarn", "workspace") => {
            // `yarn workspace NAME SCRIPT`
            subcommand(words, at + 2, &[]).is_some_and(|s| s == "run" || script_ok(s))
        }
        // pnpm and yarn run a script named as their first word.
        ("pnpm" | "yarn", s) => script_ok(s),
        _ => false,
    }
}

/// A compile, not a preprocessor dump or a query whose stdout is data.
fn compiles(args: &[&str]) -> bool {
    let data = args.iter().enumerate().any(|(k, a)| {
        matches!(*a, "-E" | "-M" | "-MM" | "-v" | "-###")
            || a.starts_with("-dump")
            || a.starts_with("-print-")
            || (*a == "-o" && args.get(k + 1) == Some(&"-"))
    });
    !args.is_empty() && !data
}
