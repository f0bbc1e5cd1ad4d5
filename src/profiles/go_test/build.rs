//! Packages that did not build: go's `# <pkg>` groups of compiler and vet
//! lines (plain stderr, or go ≥ 1.24 `-json` `build-output` events), the
//! `FAIL <pkg> [build failed]` / `[setup failed]` lines, and the census
//! items they become — first in the census, each line with its package.

use std::sync::LazyLock;

use regex::Regex;

use super::{Scan, re};
use crate::artifact::Span;
use crate::evidence::{EvidenceItem, ItemKind, Location, Severity};
use crate::profiles::testrun;

pub(super) static BUILD_HEADER: LazyLock<Regex> =
    LazyLock::new(|| re(r"^# (\S+)(?: \[(\S+)\.test\])?$"));
pub(super) static COMPILE_ERROR: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(\S+\.go):(\d+)(?::(\d+))?: (.+)$"));

/// A `# <pkg>` (or `# <pkg> [<tested>.test]`) header and the compiler or
/// vet lines go printed under it.
pub(super) struct Group {
    header: usize,
    package: String,
    /// The package whose tests this build was for: `FAIL <tested> [build failed]`.
    tested: String,
    errors: Vec<CompileError>,
    /// Read from `-json` build events: no raw line is go's own.
    json: bool,
}

/// One `file.go:L:C: message` line and the tab-indented lines continuing it.
pub(super) struct CompileError {
    line: usize,
    last: usize,
    location: Location,
    message: String,
}

/// A tab-indented line right after a compile error continues it (`\thave
/// ()` / `\twant (int)`): it joins that error's block.
pub(super) fn continues_error(s: &mut Scan, n: usize, raw: &str) -> bool {
    let continues = std::mem::take(&mut s.continues);
    if !(continues && raw.starts_with('\t')) {
        return false;
    }
    if let Some(e) = s.groups.last_mut().and_then(|g| g.errors.last_mut()) {
        e.last = n;
    }
    s.continues = true;
    true
}

/// A `# pkg` header or a `file.go:L:C: message` line under it, from plain
/// stderr or from a go ≥ 1.24 `-json` `build-output` event (`json`: the
/// raw line is a JSON record, not go's own line, so it is no headline).
pub(super) fn build_line(s: &mut Scan, n: usize, text: &str, json: bool) -> bool {
    if let Some(c) = BUILD_HEADER.captures(text) {
        s.groups.push(Group {
            header: n,
            package: c[1].to_string(),
            tested: c.get(2).map_or(&c[1], |m| m.as_str()).to_string(),
            errors: Vec::new(),
            json,
        });
        return true;
    }
    let Some(c) = COMPILE_ERROR
        .captures(text)
        .filter(|c| !is_compiler_note(&c[4]))
    else {
        return false;
    };
    let location = Location {
        file: c[1].into(),
        line: c[2].parse().ok(),
        column: c.get(3).and_then(|m| m.as_str().parse().ok()),
    };
    if s.groups.is_empty() {
        // Errors with no `# pkg` above them (output cut at its head).
        s.groups.push(Group {
            header: 0,
            package: String::new(),
            tested: String::new(),
            errors: Vec::new(),
            json,
        });
    }
    if let Some(g) = s.groups.last_mut() {
        g.errors.push(CompileError {
            line: n,
            last: n,
            location,
            message: c[4].to_string(),
        });
    }
    s.continues = true;
    true
}

/// A cgo/C compiler warning or note under `# pkg`: not what stopped the build.
fn is_compiler_note(message: &str) -> bool {
    message.starts_with("warning:") || message.starts_with("note:")
}

/// The packages that did not build, first: each `# pkg` group is a
/// `BuildFailure` named by its package (its raw header line names it) and
/// each compiler or vet line under it a `Diagnostic` named `file:line:col`
/// (its raw line names it), so the census prints go's own lines in go's
/// order. A `FAIL <pkg> [build failed]` line with no group of its own (a
/// dependency did not build) is a `BuildFailure` of its own.
///
/// Also says whether the build part looks whole: a group that no `FAIL
/// [build failed]` line claims is a dependency of a package that did not
/// build, and such a package has its own line; with none, the output was
/// cut before go named the package.
pub(super) fn build_items(s: &mut Scan) -> (Vec<EvidenceItem>, bool) {
    let mut items = Vec::new();
    let mut absorbed = vec![false; s.not_built.len()];
    let mut unclaimed_groups = 0;
    for g in std::mem::take(&mut s.groups) {
        let Some(first) = g.errors.first() else {
            continue;
        };
        let fail = s
            .not_built
            .iter()
            .position(|(_, p, _)| !g.package.is_empty() && (*p == g.tested || *p == g.package));
        match fail {
            Some(i) => absorbed[i] = true,
            None => unclaimed_groups += 1,
        }
        let status = fail.map_or("build failed", |i| s.not_built[i].2);
        let last = g.errors.iter().map(|e| e.last).max().unwrap_or(first.last);
        if g.header > 0 {
            let mut item = EvidenceItem::new(ItemKind::BuildFailure, Severity::Error, &g.package);
            item.class = Some(status.into());
            item.headline = (!g.json).then_some(Span::line(g.header));
            item.summary = Some(first.message.clone());
            item.location = Some(first.location.clone());
            item.block = Some(Span::new(g.header, last));
            item.fields
                .insert("errors".into(), g.errors.len().to_string());
            if g.tested != g.package {
                item.fields.insert("tested".into(), g.tested.clone());
            }
            items.push(item);
        }
        for e in &g.errors {
            let loc = &e.location;
            let mut id = format!("{}:{}", loc.file, loc.line.unwrap_or(0));
            if let Some(col) = loc.column {
                id.push_str(&format!(":{col}"));
            }
            let mut item = EvidenceItem::new(ItemKind::Diagnostic, Severity::Error, id);
            item.class = Some(status.into());
            item.headline = (!g.json).then_some(Span::line(e.line));
            item.summary = Some(e.message.clone());
            item.location = Some(loc.clone());
            item.block = Some(Span::new(e.line, e.last));
            // The raw line is the census line; detail only when go continued it.
            if e.last > e.line {
                let lines: Vec<usize> = (e.line..=e.last).collect();
                item.detail = testrun::spans(&lines, 10);
            }
            if !g.package.is_empty() {
                item.fields.insert("package".into(), g.package.clone());
            }
            items.push(item);
        }
    }
    let mut orphans = 0;
    for (i, (n, pkg, status)) in s.not_built.iter().enumerate() {
        if absorbed[i] {
            continue;
        }
        orphans += 1;
        let mut item = EvidenceItem::new(ItemKind::BuildFailure, Severity::Error, pkg);
        item.class = Some((*status).into());
        item.headline = Some(Span::line(*n));
        item.location = Some(super::pkg_location(pkg));
        item.block = Some(Span::line(*n));
        items.push(item);
    }
    (items, unclaimed_groups == 0 || orphans > 0)
}

#[cfg(test)]
mod tests {
    use super::super::GoTest;
    use crate::artifact::Artifact;
    use crate::artifact::Exit;
    use crate::profiles::Profile;

    /// go ≥ 1.24 reports build failures as `-json` events. Not captured
    /// here (Debian's go is 1.19): the shapes are test2json's documented
    /// `build-output` / `FailedBuild` records, reduced to one package.
    #[test]
    fn json_build_events_are_the_census() {
        let lines = [
            r##"{"ImportPath":"example.com/m/dep [example.com/m/dep.test]","Action":"build-output","Output":"# example.com/m/dep [example.com/m/dep.test]\n"}"##,
            r##"{"ImportPath":"example.com/m/dep [example.com/m/dep.test]","Action":"build-output","Output":"dep/dep.go:3:27: not enough arguments in call to f\n"}"##,
            r##"{"ImportPath":"example.com/m/dep [example.com/m/dep.test]","Action":"build-output","Output":"\thave ()\n"}"##,
            r##"{"ImportPath":"example.com/m/dep [example.com/m/dep.test]","Action":"build-fail"}"##,
            r##"{"Time":"2025-01-01T00:00:00Z","Action":"start","Package":"example.com/m/dep"}"##,
            r##"{"Time":"2025-01-01T00:00:00Z","Action":"output","Package":"example.com/m/dep","Output":"FAIL\texample.com/m/dep [build failed]\n"}"##,
            r##"{"Time":"2025-01-01T00:00:00Z","Action":"fail","Package":"example.com/m/dep","Elapsed":0,"FailedBuild":"example.com/m/dep [example.com/m/dep.test]"}"##,
        ];
        let bytes = format!("{}\n", lines.join("\n")).into_bytes();
        let argv = vec!["go".into(), "test".into(), "-json".into(), "./...".into()];
        let a = Artifact::from_stdout(bytes, Exit::Code(1), argv);
        let (g, r) = GoTest.extract(&a);
        let ids: Vec<&str> = crate::contract::for_family("go_test")
            .unwrap()
            .census(&g)
            .map(|i| i.identity.as_str())
            .collect();
        assert_eq!(ids, ["example.com/m/dep", "dep/dep.go:3:27"]);
        let error = crate::contract::for_family("go_test")
            .unwrap()
            .census(&g)
            .nth(1)
            .unwrap();
        assert_eq!(
            error.summary.as_deref(),
            Some("not enough arguments in call to f")
        );
        // A JSON record is not go's own line: the census line is built.
        assert!(error.headline.is_none());
        assert_eq!(error.block.map(|b| b.len()), Some(2));
        assert_eq!(g.outcome, crate::evidence::Outcome::Error);
        assert!(r.is_complete(), "{r:?}");
    }
}
