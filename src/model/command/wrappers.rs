//! Wrapper prefixes: commands that run another command and leave its
//! output alone. Classification looks through them; the rewrite keeps them
//! in front of the command and puts `ctx run` between.

/// Index of the wrapped command in `words`, looking through wrappers;
/// `None` when a wrapper has no command after it.
pub fn unwrap<S: AsRef<str>>(words: &[S]) -> Option<usize> {
    let mut i = 0;
    loop {
        let name = super::basename(words.get(i)?.as_ref());
        let next = words.get(i + 1).map(AsRef::as_ref);
        let after = match (name, next) {
            ("env", _) => skip(
                words,
                i + 1,
                &["-u", "-C", "--unset", "--chdir", "-S"],
                true,
            ),
            ("time", _) => skip(words, i + 1, &["-f", "-o", "--format", "--output"], false),
            ("nice", _) => skip(words, i + 1, &["-n", "--adjustment"], false),
            ("nohup" | "command" | "stdbuf", _) => skip(words, i + 1, &[], false),
            ("timeout", _) => {
                // Options, then the duration, then the command.
                let at = skip(
                    words,
                    i + 1,
                    &["-s", "-k", "--signal", "--kill-after"],
                    false,
                );
                at + 1
            }
            ("uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye", Some("run")) => skip(
                words,
                i + 2,
                &[
                    "--with",
                    "--python",
                    "-p",
                    "--package",
                    "--extra",
                    "--group",
                    "--env-file",
                    "--directory",
                    "--project",
                    "--index",
                    "-e",
                    "--env",
                ],
                false,
            ),
            ("npx" | "bunx" | "pnpx" | "uvx", _) => {
                skip(words, i + 1, &["-p", "--package", "--from"], false)
            }
            ("pnpm" | "yarn" | "bun", Some("exec" | "dlx" | "x")) => skip(words, i + 2, &[], false),
            ("bundle", Some("exec")) => skip(words, i + 2, &[], false),
            ("npm", Some("exec")) => skip(
                words,
                i + 2,
                &["-p", "--package", "-w", "--workspace"],
                false,
            ),
            ("docker" | "podman", Some("exec")) => container(words, i + 2, EXEC_ARGS),
            ("docker" | "podman", Some("compose")) => match words.get(i + 2).map(AsRef::as_ref) {
                Some("exec" | "run") => container(words, i + 3, COMPOSE_ARGS),
                _ => return Some(i),
            },
            ("docker-compose" | "podman-compose", Some("exec" | "run")) => {
                container(words, i + 2, COMPOSE_ARGS)
            }
            ("direnv", Some("exec")) => i + 3,
            ("nix", Some("develop" | "shell")) => {
                let at = words[i..]
                    .iter()
                    .position(|w| matches!(w.as_ref(), "--command" | "-c"))?;
                i + at + 1
            }
            _ => return Some(i),
        };
        // `--` ends a wrapper's options.
        i = if words.get(after).is_some_and(|w| w.as_ref() == "--") {
            after + 1
        } else {
            after
        };
    }
}

const EXEC_ARGS: &[&str] = &[
    "-e",
    "--env",
    "-w",
    "--workdir",
    "-u",
    "--user",
    "--env-file",
    "--detach-keys",
];
const COMPOSE_ARGS: &[&str] = &[
    "-e",
    "--env",
    "-w",
    "--workdir",
    "-u",
    "--user",
    "--index",
    "--entrypoint",
    "--name",
    "-p",
    "--publish",
    "-v",
    "--volume",
    "-l",
    "--label",
];

/// Skips options (and the values of those in `with_value`), plus `A=1`
/// words when `assignments`; returns the index of the first other word.
fn skip<S: AsRef<str>>(words: &[S], mut i: usize, with_value: &[&str], assignments: bool) -> usize {
    while let Some(w) = words.get(i).map(AsRef::as_ref) {
        if w == "--" {
            return i;
        }
        if w.starts_with('-') && w.len() > 1 {
            i += if with_value.contains(&w) { 2 } else { 1 };
        } else if assignments && w.contains('=') {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// Options, then the container (or service), then the command.
fn container<S: AsRef<str>>(words: &[S], i: usize, with_value: &[&str]) -> usize {
    skip(words, i, with_value, false) + 1
}

/// A container wrapper asked for a terminal (`docker exec -it`): the
/// session is interactive, not a run to digest.
pub fn interactive(wrapper: &[String]) -> bool {
    let containers = wrapper
        .iter()
        .any(|w| matches!(super::basename(w), "docker" | "podman"));
    containers
        && wrapper.iter().any(|w| {
            w == "--tty"
                || w == "--tty=true"
                || (w.starts_with('-') && !w.starts_with("--") && w.contains('t'))
        })
}
