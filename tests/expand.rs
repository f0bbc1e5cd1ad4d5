//! `ctx expand` against the built binary: records are archived through
//! the library (`Store::put`, as the pipeline does) into a fresh
//! `CTX_HOME`, then read back by the binary.

use std::path::Path;
use std::process::{Command, Output};

use ctx::artifact::{Artifact, Exit, Segment, Stream};
use ctx::store::sqlite::{Options, SqliteStore};
use ctx::store::{self, ArchiveKey, Store};
use proptest::prelude::*;
use tempfile::TempDir;

fn home() -> TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn open(home: &Path) -> SqliteStore {
    SqliteStore::open(&home.join("store.db"), Options::default()).expect("open store")
}

fn put(home: &Path, artifact: &Artifact) -> ArchiveKey {
    open(home).put(artifact).expect("put")
}

fn stdout_artifact(bytes: &[u8]) -> Artifact {
    Artifact::from_stdout(bytes.to_vec(), Exit::Code(0), vec!["gen".into()])
}

fn ctx(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(args)
        .env("CTX_HOME", home)
        .env_remove("CTX_STORE")
        .output()
        .expect("run ctx")
}

fn expand(home: &Path, key: &ArchiveKey, more: &[&str]) -> Output {
    let short = key.short();
    let mut args = vec!["expand", short.as_str()];
    args.extend_from_slice(more);
    ctx(home, &args)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `line 1\n` … `line n\n`.
fn numbered(n: usize) -> Vec<u8> {
    (1..=n)
        .map(|i| format!("line {i}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn round_trips_are_byte_identical() {
    let mut long_line = vec![b'x'; 50 << 20];
    long_line.extend_from_slice(b"\n");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("one line", b"hello\n".to_vec()),
        ("no trailing newline", b"a\nb\nc".to_vec()),
        ("crlf", b"one\r\ntwo\r\n\r\n".to_vec()),
        ("invalid utf-8", b"ok\n\xff\xfe\xc3(\n\x80".to_vec()),
        ("nul bytes", b"a\0b\n\0\0\n\0".to_vec()),
        ("50 MB single line", long_line),
    ];
    let h = home();
    for (name, bytes) in cases {
        let key = put(h.path(), &stdout_artifact(&bytes));
        let out = expand(h.path(), &key, &["--all"]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        assert!(
            out.stdout == bytes,
            "{name}: {} bytes back for {}",
            out.stdout.len(),
            bytes.len()
        );
        let loaded = open(h.path()).load(&key).expect("load");
        assert!(loaded.bytes() == bytes.as_slice(), "{name}: load");
    }
}

#[test]
fn hundred_megabytes_of_log_round_trip() {
    let mut log = Vec::with_capacity(101 << 20);
    let mut i = 0u64;
    while log.len() < 100 << 20 {
        let level = ["INFO", "WARN", "DEBUG", "ERROR"][(i % 4) as usize];
        log.extend_from_slice(
            format!(
                "2024-05-01T12:{:02}:{:02}.{:03}Z {level} worker-{} request {i} done in {}ms\n",
                i / 60 % 60,
                i % 60,
                i % 1000,
                i % 17,
                i * 7 % 1000
            )
            .as_bytes(),
        );
        i += 1;
    }
    let h = home();
    let key = put(h.path(), &stdout_artifact(&log));
    let out = expand(h.path(), &key, &["--all"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout == log,
        "{} bytes back for {}",
        out.stdout.len(),
        log.len()
    );
    // A line range near the end is served without reading the rest.
    let art = stdout_artifact(&log);
    let n = art.line_count();
    let range = format!("{}-{}", n - 5, n);
    let out = expand(h.path(), &key, &["--lines", &range]);
    let want: Vec<u8> = (n - 5..=n)
        .flat_map(|l| [art.line(l), b"\n"].concat())
        .collect();
    assert!(out.stdout == want);
    let stats = open(h.path()).stats().expect("stats");
    assert!(stats.stored_bytes < stats.raw_bytes / 3, "{stats:?}");
}

#[test]
fn metadata_comes_back_with_the_record() {
    let h = home();
    let mut a = Artifact::new(
        b"out\nerr\nout2".to_vec(),
        vec![
            Segment {
                stream: Stream::Stdout,
                len: 4,
            },
            Segment {
                stream: Stream::Stderr,
                len: 4,
            },
            Segment {
                stream: Stream::Stdout,
                len: 4,
            },
        ],
        Exit::Signal(9),
        vec!["make".into(), "all".into()],
    );
    a.cwd = Some("/src".into());
    a.label = Some("build".into());
    a.family = Some("gcc".into());
    a.truncated = true;
    let s = open(h.path());
    let key = s.put(&a).expect("put");
    let b = s.load(&key).expect("load");
    assert_eq!(b.bytes(), a.bytes());
    assert_eq!(b.segments(), a.segments());
    assert_eq!(
        (b.argv, b.cwd, b.label, b.family, b.exit, b.truncated),
        (
            a.argv.clone(),
            a.cwd.clone(),
            a.label.clone(),
            a.family.clone(),
            a.exit,
            true
        )
    );
}

fn mixed() -> Artifact {
    let mut bytes = Vec::new();
    let mut segments = Vec::new();
    for i in 1..=40 {
        let (stream, line) = if i % 3 == 0 {
            (Stream::Stderr, format!("err {i}\n"))
        } else {
            (Stream::Stdout, format!("out {i}\n"))
        };
        segments.push(Segment {
            stream,
            len: line.len() as u64,
        });
        bytes.extend_from_slice(line.as_bytes());
    }
    Artifact::new(bytes, segments, Exit::Code(1), vec!["mixed".into()])
}

#[test]
fn single_streams_have_their_own_bytes_and_numbering() {
    let h = home();
    let a = mixed();
    let key = put(h.path(), &a);
    for (name, stream) in [("stdout", Stream::Stdout), ("stderr", Stream::Stderr)] {
        let out = expand(h.path(), &key, &["--stream", name, "--all"]);
        assert_eq!(out.stdout, a.stream_bytes(stream), "{name}");
    }
    // Line 2 of stderr is the second stderr line, wherever it sat.
    let out = expand(h.path(), &key, &["--stream", "stderr", "--lines", "2-3"]);
    assert_eq!(text(&out.stdout), "err 6\nerr 9\n");
    let out = expand(h.path(), &key, &["--lines", "2-3"]);
    assert_eq!(text(&out.stdout), "out 2\nerr 3\n");
    // A stream the record never wrote is empty, not an error.
    let key = put(h.path(), &stdout_artifact(b"only out\n"));
    let out = expand(h.path(), &key, &["--stream", "stderr", "--all"]);
    assert_eq!((out.status.code(), out.stdout.len()), (Some(0), 0));
}

#[test]
fn the_cap_marker_names_exactly_the_remaining_lines() {
    let h = home();
    let bytes = numbered(1000);
    let key = put(h.path(), &stdout_artifact(&bytes));
    let mut got = Vec::new();
    let mut args: Vec<String> = Vec::new();
    let mut hops = 0;
    loop {
        let refs: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let out = expand(h.path(), &key, &refs);
        assert_eq!(out.status.code(), Some(0));
        let body = text(&out.stdout);
        let markers: Vec<&str> = body.lines().filter(|l| l.starts_with("[ctx]")).collect();
        let raw: String = body
            .lines()
            .filter(|l| !l.starts_with("[ctx]"))
            .map(|l| format!("{l}\n"))
            .collect();
        got.extend_from_slice(raw.as_bytes());
        match markers.as_slice() {
            [] => break,
            [m] => {
                assert!(
                    body.ends_with(&format!("{m}\n")),
                    "the marker is the last line"
                );
                let shown = raw.lines().count();
                assert_eq!(shown, 300);
                let rest = 1000 - got.iter().filter(|&&b| b == b'\n').count();
                let from = 1001 - rest;
                assert_eq!(
                    *m,
                    format!(
                        "[ctx] … {rest} more lines: ctx expand {} --lines {from}-1000",
                        key.short()
                    )
                );
                args = vec!["--lines".into(), format!("{from}-1000")];
            }
            many => panic!("{} markers", many.len()),
        }
        hops += 1;
    }
    assert_eq!(hops, 3);
    assert_eq!(got, bytes);
}

#[test]
fn grep_with_context() {
    let h = home();
    let mut log = String::new();
    for i in 1..=50 {
        log.push_str(&if i == 20 || i == 23 || i == 40 {
            format!("error: boom {i}\n")
        } else {
            format!("ok {i}\n")
        });
    }
    let key = put(h.path(), &stdout_artifact(log.as_bytes()));
    let out = expand(h.path(), &key, &["--grep", "^error", "--context", "1"]);
    assert_eq!(
        text(&out.stdout),
        "19-ok 19\n20:error: boom 20\n21-ok 21\n22-ok 22\n23:error: boom 23\n24-ok 24\n--\n39-ok 39\n40:error: boom 40\n41-ok 41\n"
    );
    let out = expand(h.path(), &key, &["--grep", "boom 4", "--lines", "30-50"]);
    assert_eq!(text(&out.stdout), "40:error: boom 40\n");
    let out = expand(h.path(), &key, &["--grep", "("]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn lines_past_the_end_and_bad_ranges() {
    let h = home();
    let key = put(h.path(), &stdout_artifact(&numbered(10)));
    assert_eq!(
        text(&expand(h.path(), &key, &["--lines", "9-"]).stdout),
        "line 9\nline 10\n"
    );
    assert_eq!(
        text(&expand(h.path(), &key, &["--lines", "8-99"]).stdout),
        "line 8\nline 9\nline 10\n"
    );
    assert_eq!(
        expand(h.path(), &key, &["--lines", "11-12"]).status.code(),
        Some(2)
    );
    assert_eq!(
        expand(h.path(), &key, &["--lines", "3-1"]).status.code(),
        Some(2)
    );
    assert_eq!(
        expand(h.path(), &key, &["--all", "--lines", "1-2"])
            .status
            .code(),
        Some(2)
    );
    // An identity the record's census does not hold: not found, like a hash.
    let item = expand(h.path(), &key, &["--item", "x"]);
    assert_eq!(item.status.code(), Some(1));
    assert!(
        text(&item.stderr).contains("no item \"x\""),
        "{}",
        text(&item.stderr)
    );
}

#[test]
fn prefixes_resolve_or_say_why_not() {
    let h = home();
    let key = put(h.path(), &stdout_artifact(b"alpha\n"));
    let six = &key.hex()[..6];
    let out = ctx(h.path(), &["expand", six, "--all"]);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "alpha\n".into())
    );
    let full = key.hex().to_uppercase();
    assert_eq!(
        ctx(h.path(), &["expand", &full, "--all"]).status.code(),
        Some(0)
    );

    // Unknown: exit 1, and say so.
    let unknown = if six == "000000" { "111111" } else { "000000" };
    let out = ctx(h.path(), &["expand", unknown]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!("ctx: no record {unknown} (never archived here, or removed over 30 days ago)\n")
    );
    // Too short or not hex: usage.
    assert_eq!(
        ctx(h.path(), &["expand", &key.hex()[..5]]).status.code(),
        Some(2)
    );
    assert_eq!(
        ctx(h.path(), &["expand", "zzzzzzzz"]).status.code(),
        Some(2)
    );
    // No store at all: still just "no record".
    let empty = home();
    assert_eq!(
        ctx(empty.path(), &["expand", "abcdef"]).status.code(),
        Some(1)
    );
    assert!(
        !empty.path().join("store.db").exists(),
        "a read must not create the store"
    );
}

#[test]
fn an_ambiguous_prefix_lists_the_candidates() {
    // Find two outputs whose keys share their first 6 hex digits (a
    // birthday search over 24 bits: a few thousand hashes).
    let mut seen = std::collections::HashMap::new();
    let (a, b) = (0u32..)
        .find_map(|i| {
            let art = stdout_artifact(format!("output {i}\n").as_bytes());
            let hex = store::record::key_of_artifact(&art).hex();
            seen.insert(hex[..6].to_string(), i).map(|j| (j, i))
        })
        .expect("a collision");
    let h = home();
    let ka = put(
        h.path(),
        &stdout_artifact(format!("output {a}\n").as_bytes()),
    );
    let kb = put(
        h.path(),
        &stdout_artifact(format!("output {b}\n").as_bytes()),
    );
    let prefix = &ka.hex()[..6];
    assert_eq!(prefix, &kb.hex()[..6]);
    let out = ctx(h.path(), &["expand", prefix]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains(&ka.short()) && err.contains(&kb.short()),
        "{err}"
    );
    assert!(err.contains("gen"), "candidates show their command: {err}");
    // One more digit (where they differ) resolves.
    let n = (0..64)
        .find(|&i| ka.hex().as_bytes()[i] != kb.hex().as_bytes()[i])
        .expect("differ");
    let longer = &ka.hex()[..(n + 1).max(6)];
    let out = ctx(h.path(), &["expand", longer, "--all"]);
    assert_eq!(text(&out.stdout), format!("output {a}\n"));
}

/// A record big enough to span several chunks, with lines of every
/// length (empty, short, longer than a chunk) and no trailing newline.
fn chunky() -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut x = 7u64;
    for i in 0..6000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let len = match x >> 60 {
            _ if i == 1000 || i == 2500 || i == 4000 => (1 << 20) + 12345,
            0 => 0,
            1 => (x >> 20) as usize % 3000,
            _ => (x >> 30) as usize % 200,
        };
        bytes.extend((0..len).map(|j| b'a' + ((i as usize + j) % 26) as u8));
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(b"tail without newline");
    bytes
}

#[test]
fn lines_match_the_artifact_through_the_binary() {
    let bytes = chunky();
    assert!(bytes.len() > 3 << 20);
    let art = stdout_artifact(&bytes);
    let h = home();
    let key = put(h.path(), &art);
    let n = art.line_count();
    for (a, b) in [
        (1, 1),
        (n, n),
        (1, 40),
        (n - 30, n),
        (2999, 3010),
        (1500, 1500),
    ] {
        let out = expand(h.path(), &key, &["--lines", &format!("{a}-{b}")]);
        let want: Vec<u8> = (a..=b)
            .flat_map(|l| {
                let nl: &[u8] = if l < n { b"\n" } else { b"" };
                [art.line(l), nl].concat()
            })
            .collect();
        assert!(out.stdout == want, "{a}-{b}");
    }
}

/// One chunky record shared by the property tests (archiving it per case
/// would dominate their time).
fn shared() -> &'static (TempDir, ArchiveKey, Vec<u8>) {
    static STORE: std::sync::OnceLock<(TempDir, ArchiveKey, Vec<u8>)> = std::sync::OnceLock::new();
    STORE.get_or_init(|| {
        let bytes = chunky();
        let h = home();
        let key = put(h.path(), &stdout_artifact(&bytes));
        (h, key, bytes)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// `ctx expand H --lines A-B` prints the Artifact's lines A..k, raw,
    /// each with its newline (a final line without one prints without),
    /// and when the cap stops it at k < B, one marker naming k+1..B.
    #[test]
    fn binary_line_ranges_equal_artifact_lines(a in 1usize..6001, len in 0usize..40) {
        let (dir, key, bytes) = shared();
        let art = stdout_artifact(bytes);
        let n = art.line_count();
        let b = (a + len).min(n);
        let out = expand(dir.path(), key, &["--lines", &format!("{a}-{b}")]);
        let raw_line = |l: usize| -> Vec<u8> {
            let nl: &[u8] = if l < n { b"\n" } else { b"" };
            [art.line(l), nl].concat()
        };
        let mut shown = Vec::new();
        let mut k = a - 1;
        while k < b && out.stdout[shown.len()..].starts_with(&raw_line(k + 1)) {
            shown.extend(raw_line(k + 1));
            k += 1;
        }
        let rest = &out.stdout[shown.len()..];
        if k == b {
            prop_assert!(rest.is_empty(), "{}-{}: trailing bytes", a, b);
        } else {
            let marker = format!(
                "[ctx] … {} more line{}: ctx expand {} --lines {}-{}\n",
                b - k,
                if b - k == 1 { "" } else { "s" },
                key.short(),
                k + 1,
                b
            );
            prop_assert!(k > a - 1, "{}-{}: the first line always prints", a, b);
            prop_assert_eq!(text(rest), marker);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The store's line numbering is the Artifact's, for any range, at any
    /// chunk boundary.
    #[test]
    fn stored_line_ranges_equal_artifact_lines(a in 1usize..6001, len in 0usize..400) {
        let (dir, key, bytes) = shared();
        let art = stdout_artifact(bytes);
        let s = open(dir.path());
        let meta = s.meta(key).expect("meta");
        let mut r = store::reader(&s, &meta).expect("reader");
        prop_assert_eq!(r.line_count() as usize, art.line_count());
        let b = (a + len).min(art.line_count());
        let lines: Vec<Vec<u8>> = r.lines_from(a as u64).expect("lines").take(b + 1 - a).map(|l| l.expect("line")).collect();
        for (i, l) in lines.iter().enumerate() {
            let body = l.strip_suffix(b"\n").unwrap_or(l);
            prop_assert_eq!(body, art.line(a + i));
        }
        let (start, end) = (r.line_start(a as u64).expect("s"), r.line_end(b as u64).expect("e"));
        prop_assert_eq!(start as usize, art.line_start(a).expect("start"));
        let joined = lines.concat();
        prop_assert_eq!(&bytes[start as usize..end as usize], joined.as_slice());
    }
}

#[test]
fn an_unknown_severity_is_a_usage_error_naming_the_valid_ones() {
    let home = home();
    let key = put(home.path(), &stdout_artifact(&numbered(10)));
    let out = expand(home.path(), &key, &["--items", "--severity", "bogus"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    for valid in ["error", "warning", "note", "help", "info"] {
        assert!(err.contains(valid), "{valid} not listed in {err}");
    }
    assert!(out.stdout.is_empty());
}

/// `ctx explain` speaks words, not Rust: no `Items("…")`, `Dense`,
/// `Fallback`; counts agree with their nouns.
#[test]
fn explain_has_no_debug_formatting() {
    let home = home();
    let mut log = numbered(3000);
    log.extend_from_slice(b"error: boom\n");
    let key = put(home.path(), &stdout_artifact(&log));
    let out = ctx(home.path(), &["explain", &key.short()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    let debug = regex::Regex::new(r#"\b[A-Z][a-z]+[A-Z(]|\b(Fallback|Forced|Command|Content|Dense|Flood|Verbatim|Lines|Repeats|Items)\b"#).unwrap();
    assert!(!debug.is_match(&t), "debug formatting in:\n{t}");
    assert!(t.contains("matched by fallback"), "{t}");
    assert!(t.contains("1 item,"), "{t}");
    assert!(t.contains("omits 2,"), "{t}");
}

#[test]
fn an_overlong_argument_is_not_echoed_back_whole() {
    let home = home();
    let typed = "x".repeat(100_000);
    for args in [
        vec!["expand", typed.as_str()],
        vec!["explain", typed.as_str()],
        vec!["expand", "abcdef", "--lines", typed.as_str()],
    ] {
        let out = ctx(home.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{:?}", &args[..2]);
        let stderr = text(&out.stderr);
        assert!(
            stderr.len() < 1000,
            "{:?}: {} bytes of error",
            &args[..2],
            stderr.len()
        );
        assert!(stderr.contains("characters cut"), "{stderr}");
    }
}

/// Every `fixtures/<family>/<case>/` with a case.json, sorted.
fn fixture_cases() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for family in std::fs::read_dir(&root).expect("fixtures").flatten() {
        for case in std::fs::read_dir(family.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if case.path().join("case.json").is_file() {
                out.push(case.path());
            }
        }
    }
    out.sort();
    out
}

/// `--items` names each census item AND its one-line reason, for every
/// family, codes or not: `<identity>[ [code]][ (place)] - <reason>`.
#[test]
fn items_lines_carry_their_reason() {
    let home = home();
    let mut checked = 0;
    for case in fixture_cases() {
        let artifact = ctx::fixture::load(&case).expect("fixture");
        let (_, graph, contract) = ctx::zoom::evidence(&artifact).expect("profile");
        let census: Vec<&ctx::evidence::EvidenceItem> = contract.census(&graph).collect();
        if census.is_empty() {
            continue;
        }
        let key = put(home.path(), &artifact);
        let out = expand(home.path(), &key, &["--items"]);
        assert!(out.status.success(), "{}", case.display());
        let listed = text(&out.stdout);
        let lines: Vec<&str> = listed.lines().collect();
        assert_eq!(lines.len(), census.len(), "{}:\n{listed}", case.display());
        for (line, item) in lines.iter().zip(&census) {
            assert!(
                line.starts_with(&item.identity),
                "{}: {line}",
                case.display()
            );
            let reason = line[item.identity.len()..]
                .split_once(" - ")
                .map(|(_, r)| r.trim());
            assert!(
                reason.is_some_and(|r| !r.is_empty()),
                "{}: no reason on {line:?}",
                case.display()
            );
            if let Some(code) = &item.class {
                assert!(line.contains(code.as_str()), "{}: {line}", case.display());
            }
        }
        checked += 1;
    }
    assert!(checked > 40, "only {checked} fixtures with a census");
}

#[test]
fn items_of_rule_less_errors_say_what_failed() {
    let home = home();
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eslint/mid");
    let artifact = ctx::fixture::load(&case).expect("fixture");
    let key = put(home.path(), &artifact);
    let listed = text(&expand(home.path(), &key, &["--items"]).stdout);
    let first = listed.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "src/handlers/broken0.js:2:29 - Parsing error: Unexpected token {"
    );
    assert!(
        listed
            .contains("src/handlers/h00.js:3:3 no-var - Unexpected var, use let or const instead")
    );
}

/// The reason a command matched is the command, said once:
/// `matched by command: cargo test`, not `command: command cargo test`.
#[test]
fn explain_names_the_matching_command_once() {
    let home = home();
    let stdout = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/cargo_test/suites/stdout"
    ))
    .expect("fixture");
    let art = Artifact::from_stdout(stdout, Exit::Code(101), vec!["cargo".into(), "test".into()]);
    let key = put(home.path(), &art);
    let out = ctx(home.path(), &["explain", &key.short()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(t.contains("matched by command: cargo test\n"), "{t}");
    assert!(!t.contains("command command"), "{t}");
}
