//! The filter engine and the file format, on small artifacts.

use crate::artifact::{Artifact, Exit, Segment, Stream};

use super::engine::{self, Piece};
use super::spec::Spec;
use super::{Filter, Origin, embedded};

const BASE: &str = r#"schema = "ctx.filter/v1"
name = "t"
version = 1
"#;

fn filter(extra: &str) -> Filter {
    let text = format!("{BASE}{extra}\n[match]\ncommand = 't'\n");
    Filter::new(Spec::parse("t.toml", &text).unwrap(), Origin::Builtin).unwrap()
}

fn run(f: &Filter, stdout: &str, stderr: &str, exit: i32) -> Vec<String> {
    let mut bytes = stdout.as_bytes().to_vec();
    bytes.extend_from_slice(stderr.as_bytes());
    let segments = [
        (Stream::Stdout, stdout.len()),
        (Stream::Stderr, stderr.len()),
    ]
    .into_iter()
    .filter(|(_, n)| *n > 0)
    .map(|(stream, n)| Segment {
        stream,
        len: n as u64,
    })
    .collect();
    let a = Artifact::new(bytes, segments, Exit::Code(exit), vec!["t".into()]);
    let body = engine::apply(f.spec().unwrap(), f.rules().unwrap(), &a);
    engine::lines(&body, &a, "H")
        .iter()
        .map(|l| l.text().to_string())
        .collect()
}

#[test]
fn every_builtin_loads_with_every_pattern_compiled() {
    assert!(embedded().len() >= 30);
    for (name, text) in embedded() {
        let spec = Spec::parse(name, text).unwrap_or_else(|e| panic!("{e}"));
        assert!(!spec.tests.is_empty(), "{name} has no inline test");
        Filter::new(spec, Origin::Builtin)
            .unwrap()
            .rules()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn rejects_broken_files() {
    let good = format!("{BASE}\n[match]\ncommand = 't'\n");
    Spec::parse("t.toml", &good).unwrap();
    let cases = [
        (good.replace("ctx.filter/v1", "v0"), "schema"),
        (good.replace("name = \"t\"", "name = \"u\""), "file name"),
        (good.replace("version = 1", "version = 0"), "version"),
        (
            good.replace("version = 1", "version = 1\nstrip_ansi = false"),
            "escape",
        ),
        (
            good.replace("version = 1", "version = 1\nstrip = ['(']"),
            "strip",
        ),
        (
            good.replace("version = 1", "version = 1\nhead = 5\nmax_lines = 3"),
            "max_lines",
        ),
        (
            format!("{good}\n[[match_output]]\npattern = 'ok'\nmessage = \"fine\"\n"),
            "unless",
        ),
        (
            format!("{good}\n[[match_output]]\npattern = 'ok'\nunless = ' '\nmessage = \"fine\"\n"),
            "unless",
        ),
        (format!("{good}\nextra = 1\n"), "unknown field"),
        (good.replace("command = 't'", "command = '('"), "[match]"),
        (
            good.replace("command = 't'", "command = 't'\nrewrite = '('"),
            "[match] rewrite",
        ),
    ];
    for (text, why) in cases {
        let err = Spec::parse("t.toml", &text).expect_err(why).to_string();
        assert!(err.contains(why), "{why}: {err}");
    }
}

#[test]
fn the_command_is_anchored_at_the_start() {
    let f = filter("");
    assert!(f.matches(&["/usr/bin/t".into(), "x".into()]));
    assert!(f.matches(&["timeout".into(), "5".into(), "t".into()]));
    assert!(!f.matches(&["xt".into()]));
    assert!(!f.matches(&[]));
}

#[test]
fn rewrite_names_a_subset_of_the_commands_read() {
    let text = format!("{BASE}\n[match]\ncommand = 't'\nrewrite = 't\\s+build'\n");
    let f = Filter::new(Spec::parse("t.toml", &text).unwrap(), Origin::Builtin).unwrap();
    let argv = |s: &str| -> Vec<String> { s.split(' ').map(String::from).collect() };
    assert!(f.rewrites(&argv("t build x")));
    assert!(f.rewrites(&argv("timeout 5 t build")));
    assert!(!f.rewrites(&argv("t run")));
    // Without the pattern nothing is rewritten.
    assert!(!filter("").rewrites(&argv("t build")));
}

#[test]
fn head_and_tail_keep_the_end_by_default() {
    let f = filter("max_lines = 3\n");
    let out = run(&f, "1\n2\n3\n4\n5\n6\n", "", 0);
    assert_eq!(
        out,
        [
            "[ctx] … 3 lines omitted: ctx expand H --lines 1-3",
            "4",
            "5",
            "6"
        ]
    );
    let f = filter("head = 1\ntail = 1\n");
    let out = run(&f, "1\n2\n3\n4\n", "", 0);
    assert_eq!(
        out,
        [
            "1",
            "[ctx] … 2 lines omitted: ctx expand H --lines 2-3",
            "4"
        ]
    );
}

#[test]
fn failing_runs_keep_their_decisive_lines_verbatim() {
    let f = filter("strip = ['.']\nmax_lines = 1\n[[replace]]\npattern = 'disk'\nwith = 'DISK'\n");
    let out = run(&f, "a\nb\nerror: disk full\nc\nd\n", "", 1);
    assert_eq!(
        out,
        ["error: disk full", "[ctx] 4 lines stripped by filter t"],
        "{out:?}"
    );
    // The same lines on success: stripped like any other.
    let out = run(&f, "a\nb\nerror: disk full\nc\nd\n", "", 0);
    assert_eq!(
        out,
        [
            "[ctx] filter t: no line kept",
            "[ctx] 5 lines stripped by filter t"
        ]
    );
}

#[test]
fn repeats_fold_with_their_range() {
    let f = filter("");
    let out = run(&f, "x\ny\ny\ny\ny\nz\n", "", 0);
    assert_eq!(
        out,
        [
            "x",
            "y",
            "[ctx] … previous line repeated 3 more times: ctx expand H --lines 3-5",
            "z"
        ]
    );
}

#[test]
fn stream_rules_apply_to_their_stream_only() {
    let f = filter("[stderr]\nstrip = ['^noise']\n");
    let out = run(&f, "noise out\n", "noise err\nreal err\n", 0);
    assert_eq!(
        out,
        ["noise out", "real err", "[ctx] 1 line stripped by filter t"]
    );
}

#[test]
fn replace_rewrites_and_says_so() {
    let f = filter("[[replace]]\npattern = ' in \\d+ms'\nwith = ''\n");
    let out = run(&f, "built a in 12ms\nbuilt b\n", "", 0);
    assert_eq!(
        out,
        [
            "built a",
            "built b",
            "[ctx] 1 line rewritten by filter t's replace rules"
        ]
    );
    let body = {
        let a = Artifact::from_stdout(
            b"built a in 12ms\n".to_vec(),
            Exit::Code(0),
            vec!["t".into()],
        );
        engine::apply(f.spec().unwrap(), f.rules().unwrap(), &a)
    };
    assert_eq!(body.pieces[0], Piece::Rewritten(1, "built a".into()));
}

#[test]
fn shortcuts_fire_only_on_success_and_never_past_unless() {
    let f = filter(
        "[[match_output]]\npattern = 'up to date'\nunless = 'warning'\nmessage = \"all up to date\"\n",
    );
    assert_eq!(run(&f, "a\nup to date\n", "", 0), ["[ctx] all up to date"]);
    assert_eq!(
        run(&f, "warning: x\nup to date\n", "", 0),
        ["warning: x", "up to date"]
    );
    assert_eq!(run(&f, "a\nup to date\n", "", 2), ["a", "up to date"]);
}

#[test]
fn keep_lists_keep_only_matching_lines() {
    let f = filter("keep = ['^K']\non_empty = \"nothing kept\"\n");
    assert_eq!(
        run(&f, "K1\nx\nK2\n", "", 0),
        ["K1", "K2", "[ctx] 1 line stripped by filter t"]
    );
    assert_eq!(
        run(&f, "x\n", "", 0),
        ["[ctx] nothing kept", "[ctx] 1 line stripped by filter t"]
    );
}

#[test]
fn the_first_matching_filter_wins_in_load_order() {
    let user = |name: &str, command: &str| super::SourceFile {
        path: format!("/u/{name}.toml").into(),
        text: format!("{BASE}\n[match]\ncommand = '{command}'\n")
            .replace("\"t\"", &format!("{name:?}")),
    };
    let loaded = super::load(
        &crate::trust::ProjectFiles::default(),
        &[user("make", "make\\s+special"), user("zz", "make")],
    );
    let argv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    let name = |s: &str, disabled: &[String]| {
        loaded
            .for_command(&argv(s), disabled)
            .map(|f| f.name.clone())
    };
    // The user's `make` hides the built-in of that name; `zz` comes next.
    assert_eq!(name("make special", &[]).as_deref(), Some("make"));
    assert_eq!(name("make all", &[]).as_deref(), Some("zz"));
    assert_eq!(name("make all", &["zz".into()]), None);
    assert_eq!(name("terraform plan", &[]).as_deref(), Some("terraform"));
    assert_eq!(name("nothing", &[]), None);
}
