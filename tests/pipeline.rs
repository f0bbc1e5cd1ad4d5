//! The pipeline's invariants on the library, without the store: markers
//! (5), never worse (3), determinism (6), fail-open (8), truthful lines (9).

use ctx::archive::{Disabled, Known};
use ctx::artifact::{Artifact, Exit};
use ctx::normalize;
use ctx::pipeline::{self, Options, Output};
use ctx::store::ArchiveKey;
use ctx::tokens;
use proptest::prelude::*;
use regex::Regex;

/// Archives nothing, answers with a fixed key: the tests check addresses
/// against the artifact's own line rule, which the store shares.
const KEY: ArchiveKey = ArchiveKey([0xab; 32]);
const FIXED: Known = Known(KEY);

fn digest_of(artifact: &Artifact, budget: usize) -> (Output, pipeline::Delivery) {
    let d = pipeline::digest(
        artifact,
        &FIXED,
        &Options {
            budget: Some(budget),
            ..Options::default()
        },
    )
    .expect("text needs no family");
    (d.output.clone(), d)
}

/// Walks a digest against its artifact: every kept line is the next raw
/// line, every marker names exactly the next region of omitted lines, no
/// two markers touch, and together they account for every line once.
fn check_accounting(artifact: &Artifact, digest: &[u8]) -> Result<(), String> {
    let marker = Regex::new(
        r"^\[ctx\] … (?:([\d,]+) lines? omitted|previous line repeated ([\d,]+) more times?): ctx expand abababababab --lines (\d+)-(\d+)$",
    )
    .unwrap();
    let footer = Regex::new(&format!(
        r"^\[ctx\] full output \({} lines\): (?:ctx expand abababababab|first [\d,]+ lines: ctx expand abababababab; everything: ctx expand abababababab --all)$",
        ctx::render::count(artifact.line_count())
    ))
    .unwrap();
    let text = String::from_utf8(digest.to_vec()).map_err(|e| e.to_string())?;
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() < 2
        || !lines[0].starts_with("[ctx] ")
        || !footer.is_match(lines[lines.len() - 1])
    {
        return Err(format!(
            "frame wrong: {:?} … {:?}",
            lines.first(),
            lines.last()
        ));
    }
    let mut next = 1usize;
    let mut markers = 0;
    let mut previous_was_marker = false;
    for line in &lines[1..lines.len() - 1] {
        if let Some(c) = marker.captures(line) {
            if previous_was_marker {
                return Err(format!("two markers touch at line {next}"));
            }
            let claimed: usize = c
                .get(1)
                .or(c.get(2))
                .unwrap()
                .as_str()
                .replace(',', "")
                .parse()
                .unwrap();
            let first: usize = c[3].parse().unwrap();
            let last: usize = c[4].parse().unwrap();
            if first != next || last < first || last - first + 1 != claimed {
                return Err(format!("marker {line:?} at line {next}"));
            }
            next = last + 1;
            markers += 1;
            previous_was_marker = true;
        } else {
            if line.starts_with("[ctx]") {
                return Err(format!("unexpected ctx line {line:?}"));
            }
            if *line != normalize::line(artifact.line(next)) {
                return Err(format!("line {next} is not the raw line: {line:?}"));
            }
            next += 1;
            previous_was_marker = false;
        }
    }
    if next != artifact.line_count() + 1 {
        return Err(format!(
            "accounted {} of {} lines",
            next - 1,
            artifact.line_count()
        ));
    }
    if markers == 0 {
        return Err("a digest with no marker".into());
    }
    Ok(())
}

fn line_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z ]{0,60}",
        1 => Just("error: something broke".to_string()),
        1 => Just("the same line".to_string()),
        1 => "[0-9]{1,12}",
        1 => Just("\x1b[31mred\x1b[0m text".to_string()),
        1 => Just("progress 10%\rprogress 100%".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn markers_account_for_every_line(
        lines in prop::collection::vec(line_strategy(), 0..3000),
        runs in prop::collection::vec((0usize..3000, 1usize..200), 0..4),
        budget in 256usize..2000,
        trailing_newline in any::<bool>(),
    ) {
        let mut lines = lines;
        for (at, len) in runs {
            let at = at.min(lines.len());
            lines.splice(at..at, std::iter::repeat_n("repeated line of output".to_string(), len));
        }
        let mut text = lines.join("\n");
        if trailing_newline && !text.is_empty() {
            text.push('\n');
        }
        let artifact = Artifact::from_stdout(text.into_bytes(), Exit::Code(1), vec!["tool".into()]);
        let (output, delivery) = digest_of(&artifact, budget);
        match output {
            Output::Raw => {
                // Raw only when it fits (small output is not even planned),
                // or when a digest would not be smaller.
                let small = delivery.trace.is_none()
                    && delivery.rejection.is_none()
                    && delivery.raw_tokens <= ctx::contract::SMALL_OUTPUT_TOKENS;
                let fits = small || delivery.trace.as_ref().is_some_and(|t| !t.plan.omits());
                prop_assert!(fits || delivery.rejection == Some(ctx::guard::Rejection::NotSmaller),
                    "raw for {:?}", delivery.rejection);
            }
            Output::Digest(bytes) => {
                prop_assert!(tokens::estimate(&bytes) < tokens::estimate(artifact.bytes()));
                if let Err(why) = check_accounting(&artifact, &bytes) {
                    prop_assert!(false, "{}", why);
                }
            }
        }
    }
}

fn big_log() -> Artifact {
    let mut text = String::new();
    for i in 0..5000 {
        text.push_str(&format!("[{i:05}] processing item {i} of 5000\n"));
        if i == 2500 {
            text.push_str("error: item 2500 could not be processed: disk quota exceeded\n");
        }
    }
    text.push_str("done: 4999 ok, 1 failed\n");
    Artifact::from_stdout(text.into_bytes(), Exit::Code(1), vec!["batch".into()])
}

#[test]
fn same_input_gives_identical_bytes() {
    let a = big_log();
    let (first, _) = digest_of(&a, 800);
    let (second, _) = digest_of(&a.clone(), 800);
    assert!(matches!(first, Output::Digest(_)));
    assert_eq!(first, second);
}

#[test]
fn decisive_middle_and_tail_survive_with_exit_status() {
    let a = big_log();
    let (out, _) = digest_of(&a, 800);
    let Output::Digest(bytes) = out else {
        panic!("expected a digest")
    };
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(
        text.starts_with("[ctx] batch: 5,002 lines · exit 1\n"),
        "{text}"
    );
    assert!(text.contains("\nerror: item 2500 could not be processed: disk quota exceeded\n"));
    assert!(text.contains("\ndone: 4999 ok, 1 failed\n"));
    check_accounting(&a, &bytes).unwrap();
}

fn footer_of(artifact: &Artifact) -> String {
    let (out, _) = digest_of(artifact, 256);
    let Output::Digest(bytes) = out else {
        panic!("expected a digest")
    };
    let text = String::from_utf8(bytes).unwrap();
    text.lines().last().unwrap().to_string()
}

/// The footer says what `ctx expand H` prints (a capped view: 300 lines,
/// 64 KiB) and how to get everything, on one line.
#[test]
fn footer_says_what_expand_returns() {
    let many: String = (0..1000)
        .map(|i| format!("line {i} of a long log\n"))
        .collect();
    let a = Artifact::from_stdout(many.into_bytes(), Exit::Code(1), vec!["batch".into()]);
    assert_eq!(
        footer_of(&a),
        "[ctx] full output (1,000 lines): first 300 lines: ctx expand abababababab; \
         everything: ctx expand abababababab --all"
    );
    // 200 lines of 1,001 bytes: the 64 KiB cap stops the view at 65 lines.
    let wide: String = (0..200).map(|i| format!("{i:<1000}\n")).collect();
    let a = Artifact::from_stdout(wide.into_bytes(), Exit::Code(1), vec!["batch".into()]);
    assert_eq!(
        footer_of(&a),
        "[ctx] full output (200 lines): first 65 lines: ctx expand abababababab; \
         everything: ctx expand abababababab --all"
    );
    // Within both caps, `ctx expand H` is everything.
    let short: String = (0..120)
        .map(|i| format!("{i} {}\n", "word ".repeat(20)))
        .collect();
    let a = Artifact::from_stdout(short.into_bytes(), Exit::Code(1), vec!["batch".into()]);
    assert_eq!(
        footer_of(&a),
        "[ctx] full output (120 lines): ctx expand abababababab"
    );
}

#[test]
fn small_output_is_verbatim() {
    let a = Artifact::from_stdout(
        b"\x1b[1mhello\x1b[0m\r\nworld".to_vec(),
        Exit::Code(0),
        vec![],
    );
    let (out, d) = digest_of(&a, 1200);
    assert_eq!(out, Output::Raw);
    assert!(d.key.is_none(), "nothing omitted, nothing archived");
    assert!(d.rejection.is_none());
}

#[test]
fn archive_failure_omits_nothing() {
    let a = big_log();
    let d = pipeline::digest(
        &a,
        &Disabled("read-only".into()),
        &Options {
            budget: Some(800),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(d.output, Output::Raw);
    let note = d.note().expect("a note says why");
    assert!(
        note.starts_with("[ctx] ") && note.contains("read-only"),
        "{note}"
    );
}

#[test]
fn panics_are_isolated() {
    let r: Result<(), _> = ctx::guard::isolate("test/v1", || panic!("boom {}", 7));
    assert_eq!(
        r.unwrap_err(),
        ctx::guard::Rejection::Panicked("test/v1", "boom 7".to_string())
    );
}

#[test]
fn guard_rejects_untruthful_lines() {
    use ctx::render::{Origin, Rendered, RenderedLine};
    let a = big_log();
    let d = pipeline::digest(
        &a,
        &FIXED,
        &Options {
            budget: Some(800),
            ..Options::default()
        },
    )
    .unwrap();
    let plan = &d.trace.as_ref().unwrap().plan;
    let mut rendered = ctx::render::render(&a, &d.trace.as_ref().unwrap().graph, plan, Some(&KEY));
    assert!(ctx::guard::accept(&a, plan, &rendered, Some(&KEY), d.raw_tokens).is_ok());
    let raw_at = rendered
        .lines
        .iter()
        .position(|l| matches!(l.origin, Origin::Raw(_)))
        .unwrap();
    rendered.lines[raw_at].text.push_str(" (all good)");
    assert!(matches!(
        ctx::guard::accept(&a, plan, &rendered, Some(&KEY), d.raw_tokens),
        Err(ctx::guard::Rejection::Untruthful(_))
    ));
    let mut forged = Rendered::default();
    forged.lines.push(RenderedLine {
        origin: Origin::Ctx,
        text: "tests passed".into(),
    });
    assert!(ctx::guard::accept(&a, plan, &forged, Some(&KEY), d.raw_tokens).is_err());
}

/// Through the binary and the real store: every marker's `ctx expand`
/// command, run as printed, returns exactly the lines it says were omitted.
#[test]
fn every_marker_command_returns_its_lines() {
    let home = tempfile::tempdir().unwrap();
    let mut input = String::new();
    for i in 0..4000 {
        input.push_str(&format!("step {i}: compiled unit {i} of 4000\n"));
        if i % 997 == 0 {
            input.push_str(&format!("error: unit {i} failed to link\n"));
        }
        if i == 2000 {
            input.push_str(&"the same progress line\n".repeat(40));
        }
    }
    let run = |args: &[&str], stdin: &[u8]| {
        use std::io::Write;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ctx"))
            .args(args)
            .env("CTX_HOME", home.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    };
    let out = run(&["pipe"], input.as_bytes());
    assert!(out.status.success());
    let digest = String::from_utf8(out.stdout).unwrap();
    let marker =
        Regex::new(r"^\[ctx\] … .*: ctx expand ([0-9a-f]{12}) --lines (\d+)-(\d+)$").unwrap();
    let lines: Vec<&str> = input.lines().collect();
    let mut checked = 0;
    for line in digest.lines() {
        let Some(c) = marker.captures(line) else {
            continue;
        };
        let (first, last): (usize, usize) = (c[2].parse().unwrap(), c[3].parse().unwrap());
        let range = format!("{first}-{last}");
        let back = run(&["expand", &c[1], "--lines", &range], b"");
        assert!(back.status.success());
        let text = String::from_utf8(back.stdout).unwrap();
        let expected = lines[first - 1..last].join("\n") + "\n";
        if last - first < 300 {
            assert_eq!(text, expected, "marker {line}");
        } else {
            // Bounded: the first lines, then one marker naming the rest.
            let shown: Vec<&str> = text.lines().filter(|l| !l.starts_with("[ctx]")).collect();
            assert_eq!(
                shown,
                lines[first - 1..first - 1 + shown.len()].to_vec(),
                "marker {line}"
            );
            let tail = text.lines().last().unwrap();
            assert!(
                tail.starts_with("[ctx] … ") && tail.contains(&format!("-{last}")),
                "{tail}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 3, "too few markers in:\n{digest}");
}

/// An input past the spill size goes through a mapped temporary file: the
/// digest names the record, and the record holds every byte.
#[test]
fn a_large_pipe_is_spilled_and_archived_whole() {
    use std::io::Write;
    let home = tempfile::tempdir().unwrap();
    let mut input = Vec::with_capacity(ctx::cli::pipe::SPILL_BYTES + (8 << 20));
    let mut i = 0u64;
    while input.len() < ctx::cli::pipe::SPILL_BYTES + (8 << 20) {
        if i % 50_000 == 7 {
            writeln!(input, "error: shard {i} lost its lease").unwrap();
        }
        writeln!(input, "shard {} processed {i} rows", i % 64).unwrap();
        i += 1;
    }
    let ctx_cmd = |args: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_ctx"));
        c.args(args).env("CTX_HOME", home.path());
        c
    };
    let mut child = ctx_cmd(&["pipe"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feed = input.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&feed).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    let digest = String::from_utf8(out.stdout).unwrap();
    assert!(
        digest.contains("\nerror: shard 7 lost its lease\n"),
        "{digest}"
    );
    let footer = digest.lines().last().unwrap();
    let key: String = footer
        .split("ctx expand ")
        .nth(1)
        .unwrap()
        .chars()
        .take_while(|c| c.is_ascii_hexdigit())
        .collect();
    let back = ctx_cmd(&["expand", &key, "--all"]).output().unwrap();
    assert!(back.status.success());
    assert!(
        back.stdout == input,
        "the archived record differs from the input"
    );
}

/// The header names the command as a shell would take it back: an
/// argument with a space keeps its quotes.
#[test]
fn header_keeps_the_command_quoting() {
    let text: String = (0..3000)
        .map(|i| format!("step {i} of 3000: module f{i} compiled\n"))
        .collect();
    // A command no family claims, and output no family's shape, so the
    // text header names it.
    let argv = ["mytool", "-rn", "fn ", "src", "it's"]
        .map(String::from)
        .to_vec();
    let a = Artifact::from_stdout(text.into_bytes(), Exit::Code(0), argv);
    assert_eq!(a.display_command(), r#"mytool -rn 'fn ' src 'it'\''s'"#);
    let (out, _) = digest_of(&a, 256);
    let Output::Digest(bytes) = out else {
        panic!("expected a digest")
    };
    let text = String::from_utf8(bytes).unwrap();
    assert!(
        text.starts_with(r#"[ctx] mytool -rn 'fn ' src 'it'\''s': 3,000 lines · exit 0"#),
        "{text}"
    );
}
