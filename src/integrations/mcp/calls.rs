//! A tool call's arguments, typed, turned into the argv of the ctx verb
//! that serves it. No shell is involved anywhere: `ctx_run`'s `argv` is
//! the command's argv, and every value reaches ctx as one word of the
//! form `--flag=VALUE` (so a value that starts with `-` is never read as
//! a flag) with positionals after `--`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::tools;

/// The longest timeout a call may ask for: a day.
pub const MAX_TIMEOUT_SECS: u64 = 24 * 60 * 60;

/// How long `ctx_expand` and `ctx_read` may take: they read the store or
/// one file, so a minute means something is stuck.
pub const VIEW_TIMEOUT: Duration = Duration::from_secs(60);

/// Arguments an agent got wrong: reported to it as a tool error it can
/// correct (the MCP rule for input validation), never a crash.
#[derive(Debug, thiserror::Error)]
#[error("{tool}: {why}")]
pub struct BadArguments {
    pub tool: &'static str,
    pub why: String,
}

/// What to run for one call: ctx's argv (without the program), where, and
/// for how long at most.
#[derive(Debug, PartialEq, Eq)]
pub struct Invocation {
    pub argv: Vec<OsString>,
    pub cwd: Option<PathBuf>,
    pub timeout: Duration,
    /// A `ctx read --verify`, whose exit 1 means "an anchor drifted": an
    /// answer, not a failure.
    pub verifies: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunArgs {
    argv: Vec<String>,
    cwd: Option<String>,
    timeout: Option<u64>,
    budget: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpandArgs {
    hash: String,
    lines: Option<String>,
    grep: Option<String>,
    context: Option<usize>,
    stream: Option<Stream>,
    item: Option<String>,
    #[serde(default)]
    items: bool,
    code: Option<String>,
    file: Option<String>,
    severity: Option<String>,
    #[serde(default)]
    details: bool,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Stream {
    Both,
    Stdout,
    Stderr,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    path: String,
    mode: Option<String>,
    #[serde(default)]
    anchors: bool,
    #[serde(default)]
    fresh: bool,
    /// Anchors as `--anchors` prints them, separated by spaces or commas.
    verify: Option<String>,
}

fn parse<T: DeserializeOwned>(
    tool: &'static str,
    arguments: Option<Map<String, Value>>,
) -> Result<T, BadArguments> {
    let value = Value::Object(arguments.unwrap_or_default());
    serde_json::from_value(value).map_err(|e| BadArguments {
        tool,
        why: e.to_string(),
    })
}

fn flag(argv: &mut Vec<OsString>, name: &str, value: Option<impl std::fmt::Display>) {
    if let Some(value) = value {
        argv.push(format!("--{name}={value}").into());
    }
}

fn switch(argv: &mut Vec<OsString>, name: &str, on: bool) {
    if on {
        argv.push(format!("--{name}").into());
    }
}

/// `ctx_run`: `ctx run --digest [--budget=N] -- ARGV…`. `--digest`
/// because ctx's stdout is a pipe to this server, which ctx would
/// otherwise take for a reader other than the agent and pass the raw
/// output through.
pub fn run(
    arguments: Option<Map<String, Value>>,
    default_timeout: Duration,
) -> Result<Invocation, BadArguments> {
    let tool = tools::RUN;
    let bad = |why: String| BadArguments { tool, why };
    let args: RunArgs = parse(tool, arguments)?;
    match args.argv.first() {
        None => {
            return Err(bad(
                "argv is empty: give the command and its arguments".into()
            ));
        }
        Some(program) if program.is_empty() => {
            return Err(bad("argv[0] is empty: name the program to run".into()));
        }
        Some(_) => {}
    }
    if args.budget == Some(0) {
        return Err(bad("budget must be at least 1 token".into()));
    }
    let timeout = match args.timeout {
        None => default_timeout,
        Some(0) => return Err(bad("timeout must be at least 1 second".into())),
        Some(s) if s > MAX_TIMEOUT_SECS => {
            return Err(bad(format!(
                "timeout {s} is over the limit of {MAX_TIMEOUT_SECS} seconds"
            )));
        }
        Some(s) => Duration::from_secs(s),
    };
    let cwd = match args.cwd {
        None => None,
        Some(dir) => {
            let path = PathBuf::from(&dir);
            if !path.is_dir() {
                return Err(bad(format!("cwd {dir:?} is not a directory")));
            }
            Some(path)
        }
    };
    let mut argv: Vec<OsString> = vec!["run".into(), "--digest".into()];
    flag(&mut argv, "budget", args.budget);
    argv.push("--".into());
    argv.extend(args.argv.into_iter().map(OsString::from));
    Ok(Invocation {
        argv,
        cwd,
        timeout,
        verifies: false,
    })
}

/// `ctx_expand`: `ctx expand [--zoom=…]… -- HASH`. Which zooms go
/// together is ctx expand's rule; its refusal comes back as the message.
/// `--all` (the whole record, uncapped) is not offered: a zoom is
/// bounded, and an agent that wants everything reads it by `lines`.
pub fn expand(arguments: Option<Map<String, Value>>) -> Result<Invocation, BadArguments> {
    let args: ExpandArgs = parse(tools::EXPAND, arguments)?;
    let mut argv: Vec<OsString> = vec!["expand".into()];
    flag(&mut argv, "lines", args.lines);
    flag(&mut argv, "grep", args.grep);
    flag(&mut argv, "context", args.context);
    let stream = args.stream.map(|s| match s {
        Stream::Both => "both",
        Stream::Stdout => "stdout",
        Stream::Stderr => "stderr",
    });
    flag(&mut argv, "stream", stream);
    flag(&mut argv, "item", args.item);
    switch(&mut argv, "items", args.items);
    flag(&mut argv, "code", args.code);
    flag(&mut argv, "file", args.file);
    flag(&mut argv, "severity", args.severity);
    switch(&mut argv, "details", args.details);
    argv.push("--".into());
    argv.push(args.hash.into());
    Ok(Invocation {
        argv,
        cwd: None,
        timeout: VIEW_TIMEOUT,
        verifies: false,
    })
}

/// `ctx_read`: `ctx read [--mode=M] [--anchors] [--fresh] -- PATH`, or
/// with `verify`, `ctx read --verify=A:HASH… -- PATH` (the drift report;
/// a view's flags mean nothing there and are not passed).
pub fn read(arguments: Option<Map<String, Value>>) -> Result<Invocation, BadArguments> {
    let tool = tools::READ;
    let args: ReadArgs = parse(tool, arguments)?;
    if args.path.is_empty() {
        return Err(BadArguments {
            tool,
            why: "path is empty: name the file to read".into(),
        });
    }
    let mut argv: Vec<OsString> = vec!["read".into()];
    let verifies = args.verify.is_some();
    if let Some(list) = args.verify {
        let anchors: Vec<&str> = list
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|a| !a.is_empty())
            .collect();
        if anchors.is_empty() {
            return Err(BadArguments {
                tool,
                why: "verify is empty: give anchors as --anchors prints them (12:3fa1 13:9c0e)"
                    .into(),
            });
        }
        for anchor in anchors {
            flag(&mut argv, "verify", Some(anchor));
        }
    } else {
        flag(&mut argv, "mode", args.mode);
        switch(&mut argv, "anchors", args.anchors);
        switch(&mut argv, "fresh", args.fresh);
    }
    argv.push("--".into());
    argv.push(args.path.into());
    Ok(Invocation {
        argv,
        cwd: None,
        timeout: VIEW_TIMEOUT,
        verifies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Option<Map<String, Value>> {
        v.as_object().cloned()
    }

    fn words(inv: &Invocation) -> Vec<String> {
        inv.argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    const DEFAULT: Duration = Duration::from_secs(600);

    #[test]
    fn run_passes_argv_as_words_after_the_separator() {
        let inv = run(
            object(json!({"argv": ["-x", "a b", "$(rm -rf /)"], "budget": 300})),
            DEFAULT,
        )
        .expect("valid");
        assert_eq!(
            words(&inv),
            [
                "run",
                "--digest",
                "--budget=300",
                "--",
                "-x",
                "a b",
                "$(rm -rf /)"
            ]
        );
        assert_eq!(inv.timeout, DEFAULT);
        assert_eq!(inv.cwd, None);
    }

    #[test]
    fn run_refuses_what_it_cannot_run() {
        let cases = [
            (json!({}), "missing field `argv`"),
            (json!({"argv": []}), "argv is empty"),
            (json!({"argv": [""]}), "argv[0] is empty"),
            (json!({"argv": "make test"}), "invalid type: string"),
            (
                json!({"argv": ["true"], "shell": true}),
                "unknown field `shell`",
            ),
            (json!({"argv": ["true"], "timeout": 0}), "at least 1 second"),
            (json!({"argv": ["true"], "timeout": -3}), "invalid value"),
            (json!({"argv": ["true"], "budget": 0}), "at least 1 token"),
            (
                json!({"argv": ["true"], "cwd": "/no/such/dir/here"}),
                "is not a directory",
            ),
        ];
        for (args, want) in cases {
            let err = run(object(args.clone()), DEFAULT).expect_err("refused");
            let text = err.to_string();
            assert!(text.starts_with("ctx_run: "), "{text}");
            assert!(text.contains(want), "{args}: {text}");
        }
    }

    #[test]
    fn expand_maps_every_zoom_to_its_flag() {
        let inv = expand(object(json!({
            "hash": "3f9a2c1b7d4e", "lines": "1-5", "grep": "-E", "context": 2,
            "stream": "stderr", "details": true
        })))
        .expect("valid");
        assert_eq!(
            words(&inv),
            [
                "expand",
                "--lines=1-5",
                "--grep=-E",
                "--context=2",
                "--stream=stderr",
                "--details",
                "--",
                "3f9a2c1b7d4e"
            ]
        );
        let inv = expand(object(json!({
            "hash": "abcdef", "items": true, "code": "E0308", "file": "src/a.rs",
            "severity": "error"
        })))
        .expect("valid");
        assert_eq!(
            words(&inv),
            [
                "expand",
                "--items",
                "--code=E0308",
                "--file=src/a.rs",
                "--severity=error",
                "--",
                "abcdef"
            ]
        );
        let err = expand(object(json!({"hash": "abcdef", "stream": "both2"}))).expect_err("bad");
        assert!(err.to_string().contains("unknown variant"), "{err}");
    }

    #[test]
    fn read_maps_mode_and_switches() {
        let inv = read(object(json!({
            "path": "-odd.rs", "mode": "symbol:Parser::parse", "anchors": true, "fresh": true
        })))
        .expect("valid");
        assert_eq!(
            words(&inv),
            [
                "read",
                "--mode=symbol:Parser::parse",
                "--anchors",
                "--fresh",
                "--",
                "-odd.rs"
            ]
        );
        assert!(read(object(json!({"path": ""}))).is_err());
        assert!(read(None).is_err());
    }

    #[test]
    fn read_verify_passes_each_anchor_as_one_flag() {
        let inv = read(object(json!({
            "path": "a.rs", "verify": "12:3fa1, 13:9c0e\n14:0000", "mode": "outline"
        })))
        .expect("valid");
        assert!(inv.verifies);
        assert_eq!(
            words(&inv),
            [
                "read",
                "--verify=12:3fa1",
                "--verify=13:9c0e",
                "--verify=14:0000",
                "--",
                "a.rs"
            ]
        );
        let err = read(object(json!({"path": "a.rs", "verify": " , "}))).expect_err("empty");
        assert!(err.to_string().contains("verify is empty"), "{err}");
    }
}
