//! Test verdicts: one test's failure in the dialects runners print it.
//!
//! - `FAIL: test_x (mod.Class.test_x)` / `ERROR: …` — unittest, Django;
//! - `FAILED path::test - msg` / `ERROR path::test` — pytest's summary;
//! - `not ok N - name` — TAP (`node --test`, `prove`, `bats`), subtests
//!   indented; a `# TODO` failure is expected and not a verdict;
//! - `✗ name`, `✕ name (3 ms)`, `× name 3ms`, `✖ name` — jest, vitest,
//!   node's spec reporter, ava and their kin;
//! - `● Suite › test` — jest's failure blocks (`● Test suite failed to
//!   run` under `FAIL path`: the file did not run);
//! - ` FAIL  file > suite > test` — vitest's failure list;
//! - `---- path::test stdout ----` — cargo test's failure blocks;
//! - `[  FAILED  ] Suite.Test` — googletest;
//! - `--- FAIL: TestX`, `FAIL pkg [build failed]` — go test;
//! - `N/M Test #N: name ***Failed` and `N - name (Failed)` under
//!   `The following tests FAILED:` — ctest (`Not Run`: a test whose
//!   executable does not exist, a suite that did not run; `Not Run
//!   (Disabled)` and `Skipped` are no failures);
//! - `testAdd(com.x.AppTest)  Time elapsed: … <<< FAILURE!` — Surefire
//!   (JUnit 4 and 5 spellings);
//! - `rspec ./spec/x_spec.rb:12 # name` — RSpec's re-run list;
//! - numbered failure blocks under `N failing` (mocha) and
//!   `There were N failures:` (PHPUnit);
//! - `N) Failure:` / `N) Error:` over `Class#test [path:line]` — minitest.
//!
//! The identity is the test as the runner names it, the one the reader
//! passes back to the runner to re-run it.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::Span;
use crate::evidence::{EvidenceItem, ItemKind, Severity};

use super::Dialect;
use super::page::{Page, clip, compile, item};

fn test(kind: ItemKind, identity: &str, n: usize, summary: Option<&str>) -> EvidenceItem {
    let mut t = item(kind, Severity::Error, identity.trim(), n);
    t.summary = summary
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| clip(s, 200).to_string());
    t
}

pub(super) static UNITTEST: Dialect = Dialect {
    words: &["FAIL: ", "ERROR: ", "UNEXPECTED SUCCESS: "],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^(?P<v>FAIL|ERROR|UNEXPECTED SUCCESS): (?P<name>\w+) \((?P<owner>[\w.]+)\)(?: (?P<sub>\(.*\)|\[.*\].*))?$",
            )
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let (name, owner) = (&c["name"], &c["owner"]);
        // 3.11 writes the whole id in the parentheses, earlier releases
        // the class only.
        let mut id = if owner.ends_with(&format!(".{name}")) {
            owner.to_string()
        } else {
            format!("{owner}.{name}")
        };
        // A subtest's parameters name it apart from its siblings.
        if let Some(sub) = c.name("sub") {
            id = format!("{id} {}", sub.as_str());
        }
        let kind = if &c["v"] == "ERROR" {
            ItemKind::TestError
        } else {
            ItemKind::FailingTest
        };
        vec![test(kind, &id, n, None)]
    },
};

pub(super) static PYTEST: Dialect = Dialect {
    words: &["FAILED ", "ERROR ", "SUBFAILED"],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^(?:(?P<v>FAILED|ERROR)|SUBFAILED(?P<sub>.*?)) (?P<id>\S+?(?:::\S+|\.py))(?: - (?P<msg>.*))?$",
            )
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let kind = if c.name("v").is_some_and(|v| v.as_str() == "ERROR") {
            ItemKind::TestError
        } else {
            ItemKind::FailingTest
        };
        // pytest-subtests writes the subtest's label before the test's id.
        let id = match c.name("sub").map(|s| s.as_str().trim()) {
            Some(sub) if !sub.is_empty() => format!("{} {sub}", &c["id"]),
            _ => c["id"].to_string(),
        };
        vec![test(kind, &id, n, c.name("msg").map(|m| m.as_str()))]
    },
};

pub(super) static TAP: Dialect = Dialect {
    words: &["not ok"],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^(?P<indent>\s*)not ok (?P<num>\d+)(?:\s+-)?(?:\s+(?P<name>.*?))?\s*(?:#\s*(?P<directive>(?i:todo|skip))\b.*)?$",
            )
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        if c.name("directive").is_some() {
            return Vec::new();
        }
        let name = c.name("name").map_or("", |m| m.as_str());
        let id = if name.is_empty() {
            format!("test {}", &c["num"])
        } else {
            name.to_string()
        };
        let mut t = test(ItemKind::FailingTest, &id, n, None);
        t.block = Some(Span::new(n, yaml_end(page, n, c["indent"].len())));
        vec![t]
    },
};

/// The last line of the YAML diagnostics block under a TAP verdict (its
/// `---` … `...`, indented past the verdict), or the verdict's own line.
fn yaml_end(page: &Page, n: usize, indent: usize) -> usize {
    let opens = page.text(n + 1);
    if opens.trim() != "---" || opens.len() - opens.trim_start().len() <= indent {
        return n;
    }
    for m in page.after(n + 1, 400) {
        if page.text(m).trim() == "..." {
            return m;
        }
    }
    n
}

pub(super) static MARKS: Dialect = Dialect {
    words: &["✗", "✕", "×", "✖"],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^\s*[✗✕×✖]\s+(?P<name>\S.*?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\)|\s+\d+(?:\.\d+)?m?s)?\s*$",
            )
        });
        // A mark heading a count or a list is a summary, not one test.
        static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
            compile(r"^(?i:\d[\d,]*\s+\w+|failing tests|fail(?:ed|ures?)?\b|errors?\b)")
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let name = &c["name"];
        if name.ends_with(':') || SUMMARY.is_match(name) {
            return Vec::new();
        }
        vec![test(ItemKind::FailingTest, name, n, None)]
    },
};

pub(super) static GTEST: Dialect = Dialect {
    words: &["[  FAILED  ]"],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^\[  FAILED  \] (?P<name>[A-Za-z_][\w/]*\.[\w/]+)(?:, where .*)?(?: \(\d+ ms\))?$",
            )
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        vec![test(ItemKind::FailingTest, &c["name"], n, None)]
    },
};

pub(super) static GO: Dialect = Dialect {
    words: &["--- FAIL:", "FAIL"],
    located: false,
    read: |page, n| {
        static TEST: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s*--- FAIL: (?P<name>\S+)"));
        static PACKAGE: LazyLock<Regex> = LazyLock::new(|| {
            compile(r"^FAIL\s+(?P<pkg>\S+)\s+\[(?P<why>build failed|setup failed)\]$")
        });
        let text = page.text(n);
        if let Some(c) = TEST.captures(&text) {
            return vec![test(ItemKind::FailingTest, &c["name"], n, None)];
        }
        if let Some(c) = PACKAGE.captures(&text) {
            return vec![test(ItemKind::SuiteNotRun, &c["pkg"], n, Some(&c["why"]))];
        }
        Vec::new()
    },
};

pub(super) static CTEST: Dialect = Dialect {
    words: &[
        "***Failed",
        "***Timeout",
        "***Exception",
        "***Not Run",
        "(Failed)",
        "(Timeout)",
        "(SEGFAULT)",
        "(Not Run)",
        "(Subprocess aborted)",
        "(Child aborted)",
        "(Subprocess killed)",
        "(Exception)",
    ],
    located: false,
    read: |page, n| {
        static RUN: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^\s*\d+/\d+ Test\s+#\d+: (?P<name>\S+) \.*\s*(?P<why>[^*]*\*\*\*.*?)\s+\d+\.\d+ sec$",
            )
        });
        static LISTED: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^\s*\d+ - (?P<name>.+?) \((?P<why>Failed|Timeout|SEGFAULT|Not Run|Subprocess aborted|Child aborted|Subprocess killed|Exception)\)$",
            )
        });
        let text = page.text(n);
        let (name, verdict) = if let Some(c) = RUN.captures(&text) {
            (c["name"].to_string(), c["why"].to_string())
        } else if let Some(c) = LISTED.captures(&text) {
            (c["name"].to_string(), format!("***{}", &c["why"]))
        } else {
            return Vec::new();
        };
        let Some(verdict) = ctest_verdict(&verdict) else {
            return Vec::new();
        };
        let mut t = test(verdict.kind, &name, n, Some(&verdict.said));
        t.class = verdict.class;
        vec![t]
    },
};

/// What one CTest verdict says of its test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CtestVerdict {
    pub kind: ItemKind,
    /// What happened, when it is not a plain failure: `Timeout`,
    /// `SegFault`, `Subprocess aborted`, `Not Run`.
    pub class: Option<String>,
    /// The verdict's words without CTest's stars: `Failed`,
    /// `Exception: SegFault`.
    pub said: String,
}

/// A CTest verdict as it follows a test's name on its result line
/// (`***Failed`, `***Timeout`, `***Exception: SegFault`, `Subprocess
/// aborted***Exception:`, `***Not Run`) or, with `***` put in front, in
/// the closing list (`SEGFAULT`). `None` for one that is no failure: a
/// disabled test (`***Not Run (Disabled)`, `Disabled`), a skipped one.
/// `Not Run` alone is a test whose executable is missing: a suite that
/// did not run (CTest counts it failed).
pub(crate) fn ctest_verdict(verdict: &str) -> Option<CtestVerdict> {
    let (before, after) = verdict.split_once("***")?;
    let (before, after) = (before.trim(), after.trim());
    let word = after.split_whitespace().next().unwrap_or("");
    let (kind, class) = match word {
        "Failed" => (ItemKind::FailingTest, None),
        "Timeout" => (ItemKind::FailingTest, Some("Timeout")),
        "Not" if after.contains("(Disabled)") => return None,
        "Not" => (ItemKind::SuiteNotRun, Some("Not Run")),
        "Skipped" | "Disabled" => return None,
        "SEGFAULT" => (ItemKind::FailingTest, Some("SegFault")),
        _ => {
            let what = after
                .strip_prefix("Exception:")
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .or(Some(before).filter(|b| !b.is_empty()))
                .unwrap_or(after);
            (ItemKind::FailingTest, Some(what))
        }
    };
    let said = if before.is_empty() {
        after.to_string()
    } else {
        format!("{before} {after}")
    };
    Some(CtestVerdict {
        kind,
        class: class.map(str::to_string),
        said: said.trim().to_string(),
    })
}

pub(super) static SUREFIRE: Dialect = Dialect {
    words: &["<<< FAILURE!", "<<< ERROR!"],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^(?:\[ERROR\] )?(?P<id>\S.*?)\s+(?:-- )?Time elapsed:.*<<< (?P<v>FAILURE|ERROR)!",
            )
        });
        static JUNIT4: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^(?P<method>[\w$]+)\((?P<class>[\w.$]+)\)$"));
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        // `Tests run: …, Failures: 2 … <<< FAILURE! - in Class` sums a class.
        if c["id"].starts_with("Tests run:") {
            return Vec::new();
        }
        let id = match JUNIT4.captures(&c["id"]) {
            Some(j) => format!("{}.{}", &j["class"], &j["method"]),
            None => c["id"].to_string(),
        };
        let kind = if &c["v"] == "ERROR" {
            ItemKind::TestError
        } else {
            ItemKind::FailingTest
        };
        vec![test(kind, &id, n, None)]
    },
};

pub(super) static RSPEC: Dialect = Dialect {
    words: &["rspec "],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(r"^rspec (?P<id>\S+:\d+(?:\[[\d:]+\])?|\S+\[[\d:]+\]) # (?P<name>.*)$")
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        vec![test(ItemKind::FailingTest, &c["id"], n, Some(&c["name"]))]
    },
};

/// How far below its heading a numbered failure block is looked for.
const BLOCKS_REACH: usize = 20_000;

pub(super) static NUMBERED: Dialect = Dialect {
    words: &[" failing", "There was ", "There were "],
    located: false,
    read: |page, n| {
        static MOCHA: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s*\d+ failing$"));
        static PHPUNIT: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^There (?:was|were) \d+ (?P<what>failures?|errors?):$"));
        let text = page.text(n);
        if MOCHA.is_match(&text) {
            return mocha_blocks(page, n);
        }
        if let Some(c) = PHPUNIT.captures(&text) {
            let kind = if c["what"].starts_with("error") {
                ItemKind::TestError
            } else {
                ItemKind::FailingTest
            };
            return phpunit_blocks(page, n, kind);
        }
        Vec::new()
    },
};

/// Mocha's failure blocks: `  1) Suite` then the nested titles, indented
/// deeper, the last one ending in `:`; the identity is the titles joined.
fn mocha_blocks(page: &Page, heading: usize) -> Vec<EvidenceItem> {
    static OPEN: LazyLock<Regex> = LazyLock::new(|| compile(r"^  (?P<num>\d+)\) (?P<title>.+)$"));
    let mut out = Vec::new();
    let mut expected = 1;
    let mut m = heading;
    while m < page.count() && m < heading + BLOCKS_REACH {
        m += 1;
        let text = page.text(m);
        let Some(c) = OPEN.captures(&text) else {
            continue;
        };
        if c["num"].parse::<usize>().ok() != Some(expected) {
            continue;
        }
        expected += 1;
        let mut title = c["title"].trim_end().to_string();
        let mut end = m;
        while !title.ends_with(':') && end < m + 8 {
            let next = page.text(end + 1);
            if !next.starts_with("     ") || next.trim().is_empty() {
                break;
            }
            end += 1;
            title.push(' ');
            title.push_str(next.trim());
        }
        let title = title.trim_end_matches(':');
        // A failed hook (`"before all" hook for "x"`) is an error outside
        // any test body, as pytest's setup errors are.
        let kind = if title.contains("\" hook") {
            ItemKind::TestError
        } else {
            ItemKind::FailingTest
        };
        out.push(test(kind, title, m, None));
        m = end;
    }
    out
}

/// PHPUnit's blocks under `There were N failures:`: `1) Class::test`,
/// until the next heading or the verdict.
fn phpunit_blocks(page: &Page, heading: usize, kind: ItemKind) -> Vec<EvidenceItem> {
    static OPEN: LazyLock<Regex> =
        LazyLock::new(|| compile(r"^\d+\) (?P<id>\S+::\S+(?: with data set .+)?)$"));
    let mut out = Vec::new();
    for m in page.after(heading, BLOCKS_REACH) {
        let text = page.text(m);
        if text.starts_with("There w")
            || text.starts_with("FAILURES!")
            || text.starts_with("ERRORS!")
        {
            break;
        }
        if let Some(c) = OPEN.captures(&text) {
            out.push(test(kind, &c["id"], m, None));
        }
    }
    out
}

pub(super) static MINITEST: Dialect = Dialect {
    words: &[") Failure:", ") Error:"],
    located: false,
    read: |page, n| {
        static OPEN: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^\s*\d+\) (?P<v>Failure|Error):$"));
        static NAME: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^(?P<id>[\w:]+#[^\[\]]+?)(?: \[(?P<at>[^\]]+)\])?:$"));
        let text = page.text(n);
        let Some(c) = OPEN.captures(&text) else {
            return Vec::new();
        };
        let next = page.text(n + 1);
        let Some(name) = NAME.captures(&next) else {
            return Vec::new();
        };
        let kind = if &c["v"] == "Error" {
            ItemKind::TestError
        } else {
            ItemKind::FailingTest
        };
        let mut t = test(
            kind,
            &name["id"],
            n + 1,
            name.name("at").map(|m| m.as_str()),
        );
        t.block = Some(Span::new(n, n + 1));
        vec![t]
    },
};

pub(super) static JEST: Dialect = Dialect {
    words: &["● "],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s*● (?P<name>.+?)\s*$"));
        static FILE: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s*FAIL\s+(?P<file>\S+)"));
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let name = &c["name"];
        if name.starts_with("Console") {
            return Vec::new();
        }
        if name == "Test suite failed to run" {
            let file = (n.saturating_sub(4)..n)
                .rev()
                .find_map(|h| FILE.captures(&page.text(h)).map(|f| f["file"].to_string()));
            return match file {
                Some(file) => vec![test(ItemKind::SuiteNotRun, &file, n, Some(name))],
                None => Vec::new(),
            };
        }
        vec![test(ItemKind::FailingTest, name, n, None)]
    },
};

pub(super) static VITEST: Dialect = Dialect {
    words: &["FAIL "],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^\s*FAIL\s+(?P<id>\S+ > .+?)(?:\s+\[[^\]]*\])?\s*$"));
        // ` FAIL  file [ file ]`: the file failed to load, no test ran.
        static FILE: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^\s*FAIL\s+(?P<file>\S+) \[ (?P<same>\S+) \]\s*$"));
        let text = page.text(n);
        if let Some(c) = RE.captures(&text) {
            return vec![test(ItemKind::FailingTest, &c["id"], n, None)];
        }
        match FILE.captures(&text) {
            Some(c) if c["file"] == c["same"] => {
                vec![test(ItemKind::SuiteNotRun, &c["file"], n, None)]
            }
            _ => Vec::new(),
        }
    },
};

pub(super) static CARGO_TEST: Dialect = Dialect {
    words: &["---- "],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| compile(r"^---- (?P<name>\S+) stdout ----$"));
        let text = page.text(n);
        match RE.captures(&text) {
            Some(c) => vec![test(ItemKind::FailingTest, &c["name"], n, None)],
            None => Vec::new(),
        }
    },
};
