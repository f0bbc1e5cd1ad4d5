//! A usage error in `ctx pipe` or `ctx run` never costs the input or the
//! command: `pytest | ctx pipe --as pytets` would otherwise print nothing
//! of pytest, and `ctx run --bogus -- make` would not build. The error is
//! one line on stderr, with the nearest valid name where there is one;
//! then the input passes through raw (`pipe`), or the command runs as if
//! ctx were not there, with its own status (`run`). Other verbs have no
//! one else's bytes to lose and keep clap's full message.

use std::ffi::OsString;
use std::io::{self, Read, Write};

use super::EXIT_CTX_ERROR;

/// The valid name nearest to `typed`, when it is near enough to be what
/// was meant.
pub fn nearest<'a>(typed: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    names
        .into_iter()
        .map(|n| (strsim::jaro_winkler(typed, n), n))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n)
}

/// clap's message as one line: its first line without `error: `, and the
/// valid values or the similar argument it suggests.
pub fn one_line(e: &clap::Error) -> String {
    let text = e.to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines
        .next()
        .unwrap_or("usage error")
        .trim_start_matches("error: ")
        .to_string();
    let hint: Vec<&str> = lines
        .filter(|l| l.starts_with("[possible values") || l.starts_with("tip:"))
        .collect();
    if hint.is_empty() {
        first
    } else {
        format!("{first} {}", hint.join(" "))
    }
}

/// `ctx pipe` with a usage error: `message` on stderr, then stdin copied to
/// stdout untouched. Ends with ctx's error status (the input was not
/// digested), or as a filter whose reader left.
pub fn pipe_raw(message: &str) -> i32 {
    eprintln!("ctx pipe: {message}; the input follows unchanged");
    let mut stdin = io::stdin().lock();
    let mut stdout = io::stdout().lock();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("ctx pipe: reading standard input: {e}");
                break;
            }
        };
        if stdout.write_all(&buf[..n]).is_err() {
            return super::pipe::reader_left();
        }
    }
    if stdout.flush().is_err() {
        return super::pipe::reader_left();
    }
    EXIT_CTX_ERROR
}

/// `ctx run` with a usage error: `message` on stderr, then `command` run
/// in ctx's place, its status and output its own. No command: the error
/// alone, with ctx's error status.
pub fn run_raw(message: &str, command: &[OsString]) -> i32 {
    if command.is_empty() {
        eprintln!("ctx run: {message}");
        return EXIT_CTX_ERROR;
    }
    eprintln!("ctx run: {message}; running the command without ctx");
    let failure = crate::capture::exec(command);
    eprintln!("ctx: {failure}");
    failure.status()
}

/// The command in a `ctx run` argv (`args` from the word after `run`) that
/// clap refused: the words after the first `--`, or else after the leading
/// flags (and the values of the flags that take one, per clap's own
/// definition of `run`).
pub fn command_of_run(args: &[OsString]) -> Vec<OsString> {
    if let Some(i) = args.iter().position(|a| a == "--") {
        return args[i + 1..].to_vec();
    }
    let root = super::command(false);
    let takes_value = |flag: &str| {
        root.find_subcommand("run").is_some_and(|run| {
            run.get_arguments().any(|a| {
                a.get_long().is_some_and(|l| flag == format!("--{l}"))
                    && a.get_action().takes_values()
            })
        })
    };
    let mut i = 0;
    while let Some(word) = args.get(i).and_then(|w| w.to_str()) {
        if !word.starts_with('-') {
            break;
        }
        i += if !word.contains('=') && takes_value(word) {
            2
        } else {
            1
        };
    }
    args.get(i..).map(<[OsString]>::to_vec).unwrap_or_default()
}

/// A `ctx run` command whose first word is a flag clap did not know (the
/// command is a trailing list that takes hyphens, so clap hands an unknown
/// `--bogus` over as the command): the message, and the real command after
/// the unknown flags and an optional `--`.
pub fn unknown_run_flag(command: &[OsString]) -> Option<(String, Vec<OsString>)> {
    let first = command.first()?.to_str()?;
    if !first.starts_with('-') || first == "-" {
        return None;
    }
    let root = super::command(false);
    let longs: Vec<String> = root
        .find_subcommand("run")
        .map(|run| {
            run.get_arguments()
                .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
                .collect()
        })
        .unwrap_or_default();
    let name = first.split('=').next().unwrap_or(first);
    let message = match nearest(name, longs.iter().map(String::as_str)) {
        Some(near) => format!("unknown option {name} (did you mean {near}?)"),
        None => format!("unknown option {name} (`ctx run --help` lists them)"),
    };
    let rest: Vec<OsString> = command
        .iter()
        .skip_while(|w| w.to_str().is_some_and(|w| w.starts_with('-') && w != "--"))
        .cloned()
        .collect();
    let rest = match rest.first() {
        Some(w) if w == "--" => rest[1..].to_vec(),
        _ => rest,
    };
    Some((message, rest))
}

/// The message for an unknown `--as` family, with the nearest family.
pub fn unknown_family(name: &str) -> String {
    let families: Vec<&str> = crate::profiles::registry()
        .iter()
        .map(|p| p.family())
        .collect();
    match nearest(name, families.iter().copied()) {
        Some(near) => format!("no profile for family {name:?} (did you mean {near}?)"),
        None => format!("no profile for family {name:?} (`ctx profiles` lists them)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn the_command_is_found_after_the_flags_and_their_values() {
        assert_eq!(
            command_of_run(&words("--budget abc pytest -q")),
            words("pytest -q")
        );
        assert_eq!(
            command_of_run(&words("--format=nope --digest make -k")),
            words("make -k")
        );
        assert_eq!(
            command_of_run(&words("--as x --format nope -- sh -c x")),
            words("sh -c x")
        );
        assert!(command_of_run(&words("--format nope")).is_empty());
    }

    #[test]
    fn an_unknown_flag_names_the_nearest_and_leaves_the_command() {
        let (message, rest) = unknown_run_flag(&words("--budge 5 -- pytest -q")).unwrap();
        assert!(message.contains("did you mean --budget?"), "{message}");
        // `5` is not a flag: it is taken for the command, as clap would.
        assert_eq!(rest, words("5 -- pytest -q"));
        let (_, rest) = unknown_run_flag(&words("--bogus -- sh -c x")).unwrap();
        assert_eq!(rest, words("sh -c x"));
        assert!(unknown_run_flag(&words("pytest --bogus")).is_none());
    }

    #[test]
    fn nearest_names_only_what_is_close() {
        assert_eq!(
            nearest("pytets", ["pytest", "jest", "cargo_test"]),
            Some("pytest")
        );
        assert_eq!(nearest("zzzz", ["pytest", "jest"]), None);
        assert!(unknown_family("pytets").contains("did you mean pytest?"));
    }
}
