//! `ctx filters verify`: every inline test of every filter, run through the
//! same engine the pipeline uses. A test names the command it captured,
//! its exit status and its output; the filter's lines (header and footer
//! aside, the archive key written `H`) must equal `expected`.

use crate::artifact::{Artifact, Exit, Segment, Stream};

use super::Filter;
use super::engine;
use super::spec::Case;

/// One test's verdict.
pub struct Verdict {
    pub filter: String,
    pub test: String,
    /// `None`: passed. Otherwise why not (a diff, or a mismatch of command).
    pub failure: Option<String>,
}

/// Runs every test of `filter`.
pub fn run(filter: &Filter) -> Vec<Verdict> {
    // Compiling the rules checks every pattern (a built-in is parsed
    // without that on the hot path).
    let spec = match filter.rules().and_then(|_| filter.spec()) {
        Ok(spec) => spec,
        Err(why) => {
            return vec![Verdict {
                filter: filter.name.clone(),
                test: "(load)".into(),
                failure: Some(why.to_string()),
            }];
        }
    };
    spec.tests
        .iter()
        .map(|case| Verdict {
            filter: filter.name.clone(),
            test: case.name.clone(),
            failure: check(filter, case).err(),
        })
        .collect()
}

/// The artifact a test describes: stdout, then stderr.
pub fn artifact(case: &Case) -> Result<Artifact, String> {
    let argv = shell_words::split(&case.command).map_err(|e| format!("command: {e}"))?;
    let mut bytes = case.input.as_bytes().to_vec();
    let mut segments = Vec::new();
    if !case.input.is_empty() {
        segments.push(Segment {
            stream: Stream::Stdout,
            len: case.input.len() as u64,
        });
    }
    if !case.stderr.is_empty() {
        bytes.extend_from_slice(case.stderr.as_bytes());
        segments.push(Segment {
            stream: Stream::Stderr,
            len: case.stderr.len() as u64,
        });
    }
    Ok(Artifact::new(bytes, segments, Exit::Code(case.exit), argv))
}

/// The filter's lines for a test's output, key `H`, one string.
pub fn output(filter: &Filter, artifact: &Artifact) -> Result<String, String> {
    let rules = filter.rules().map_err(str::to_string)?;
    let spec = filter.spec().map_err(str::to_string)?;
    let body = engine::apply(spec, rules, artifact);
    let mut out = String::new();
    for line in engine::lines(&body, artifact, "H") {
        out.push_str(line.text());
        out.push('\n');
    }
    Ok(out)
}

fn check(filter: &Filter, case: &Case) -> Result<(), String> {
    let artifact = artifact(case)?;
    if !filter.matches(&artifact.argv) {
        return Err(format!(
            "command {:?} does not match the filter's [match] command {:?}",
            case.command, filter.pattern
        ));
    }
    let got = output(filter, &artifact)?;
    let want = if case.expected.ends_with('\n') || case.expected.is_empty() {
        case.expected.clone()
    } else {
        format!("{}\n", case.expected)
    };
    if got == want {
        return Ok(());
    }
    Err(diff(&want, &got))
}

/// A unified diff, expected (`-`) against what the filter printed (`+`).
fn diff(want: &str, got: &str) -> String {
    similar::TextDiff::from_lines(want, got)
        .unified_diff()
        .context_radius(3)
        .header("expected", "filter output")
        .to_string()
}
