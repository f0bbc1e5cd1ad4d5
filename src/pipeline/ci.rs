//! The CI side of a delivery (docs/ci.md): which shapes a family can be
//! printed in, GitHub workflow-command annotations for the findings, and
//! the markdown digest appended to the job's step summary.
//!
//! Annotations go where the runner reads them and no document is broken:
//! after the text digest on stdout (GitHub documents workflow commands on
//! stdout), and on stderr when stdout carries a document (`--format
//! json|markdown|sarif|junit`), which the runner reads for workflow
//! commands too (actions/runner hands both streams to the same command
//! parser). A summary that cannot be written is one `[ctx]` note, never a
//! failure: the run's own status is what the job sees.

use std::io::Write;

use crate::emit;
use crate::format::{Format, Formatting};
use crate::profiles::{self, ReceiptGroup};
use crate::render::formats::{Report, markdown};
use crate::render::workflow;
use crate::words::CTX_PREFIX;

/// Why output read by `profile` (a family or `<family>/vN`) cannot be
/// printed as `format`, or `None` when it can: JUnit needs a test run,
/// SARIF a compiler's, type checker's or linter's diagnostics.
pub fn refusal(format: Format, profile: &str) -> Option<String> {
    let (group, needs) = match format {
        Format::Junit => (ReceiptGroup::TestRunner, "a test run"),
        Format::Sarif => (ReceiptGroup::Diagnostics, "a diagnostics run"),
        Format::Text | Format::Json | Format::Markdown => return None,
    };
    let family = profile.split('/').next().unwrap_or(profile);
    let fits = profiles::by_family(family).is_some_and(|p| p.spec().group == group);
    if fits {
        return None;
    }
    let families: Vec<&str> = profiles::registry()
        .iter()
        .filter(|p| p.spec().group == group)
        .map(|p| p.family())
        .collect();
    let read_as = if family.is_empty() {
        "no family".to_string()
    } else {
        family.to_string()
    };
    Some(format!(
        "--format {} needs {needs} ({}); this output reads as {read_as}",
        format.word(),
        families.join(", ")
    ))
}

/// Writes the annotations and the step summary `formatting.ci` asks for,
/// from the facts of `report` (none when the output was not read).
pub fn write(report: &Report, formatting: &Formatting) {
    if formatting.ci.annotate
        && let Some(facts) = report.facts
    {
        let annotations = workflow::annotations(facts.graph, &formatting.workspace);
        let bytes = annotations.to_bytes();
        if !bytes.is_empty() {
            emit::beside(&bytes, formatting.is_text());
        }
    }
    match &formatting.ci.summary {
        None => {}
        Some(Err(why)) => emit::note(&format!(
            "{CTX_PREFIX} --summary: {why}; no summary written"
        )),
        Some(Ok(path)) => {
            let mut document = markdown::document(report, formatting.link_base.as_deref());
            if !document.ends_with('\n') {
                document.push('\n');
            }
            let appended = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(path)
                .and_then(|mut file| file.write_all(document.as_bytes()));
            if let Err(e) = appended {
                emit::note(&format!(
                    "{CTX_PREFIX} --summary: cannot append to {}: {e}; no summary written",
                    path.display()
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_fit_their_families() {
        assert_eq!(refusal(Format::Junit, "pytest/v1"), None);
        assert_eq!(refusal(Format::Junit, "junit"), None);
        assert_eq!(refusal(Format::Sarif, "tsc/v1"), None);
        assert_eq!(refusal(Format::Json, "text/v1"), None);
        let no = refusal(Format::Junit, "gcc/v1").expect("gcc is no test run");
        assert!(
            no.starts_with("--format junit needs a test run (tap, pytest, "),
            "{no}"
        );
        assert!(no.ends_with("this output reads as gcc"), "{no}");
        assert!(refusal(Format::Sarif, "pytest").is_some());
        assert!(refusal(Format::Sarif, "").is_some());
    }
}
