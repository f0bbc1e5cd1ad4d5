//! Failed and skipped modules: where each is declared, and its item.

use crate::artifact::{Artifact, Span};
use crate::evidence::{EvidenceItem, ItemKind, Location, Severity};
use crate::profiles::testrun;

use super::level;

/// The failed module's `pom.xml`, from a path its failure report names
/// (`Please refer to /w/reactor/service/target/surefire-reports`, a
/// compile error's `/w/reactor/tools/src/main/java/…`), relative to the
/// run's directory; the reactor's own `pom.xml` when it names none.
pub(super) fn module_pom(artifact: &Artifact, first: usize, last: usize) -> Location {
    let cwd = artifact.cwd.as_deref().map(|c| c.trim_end_matches('/'));
    let dir = (first..=last).find_map(|n| {
        let text = crate::profiles::visible(artifact, n);
        let (_, body) = level(text.trim_end());
        let path = body
            .split_whitespace()
            .find(|w| w.starts_with('/') && (w.contains("/target/") || w.contains("/src/")))?;
        let module = path.split("/target/").next()?.split("/src/").next()?;
        let rel = testrun::relative(module, cwd);
        Some(if Some(module) == cwd { String::new() } else { rel })
    });
    let file = match dir {
        Some(d) if !d.is_empty() && !d.starts_with('/') => format!("{d}/pom.xml"),
        _ => "pom.xml".to_string(),
    };
    Location {
        file,
        line: None,
        column: None,
    }
}

pub(super) fn module_item(kind: ItemKind, name: &str, n: usize, status: &str) -> EvidenceItem {
    let mut it = EvidenceItem::new(kind, Severity::Error, name);
    it.class = Some(status.into());
    it.summary = Some(if status == "SKIPPED" {
        "SKIPPED: not built, an earlier module failed".into()
    } else {
        "FAILURE in the reactor summary".into()
    });
    it.headline = Some(Span::line(n));
    it.detail = vec![Span::line(n)];
    it.block = Some(Span::line(n));
    // The module is declared in the reactor's pom, which lists it.
    it.location = Some(Location {
        file: "pom.xml".into(),
        line: None,
        column: None,
    });
    it
}

