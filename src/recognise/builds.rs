//! Build, package-manager and runner verdicts: a step that failed, often
//! with no located diagnostic of its own.
//!
//! - make: `make[1]: *** [Makefile:13: app] Error 1` (each target that
//!   failed under `-k`), `*** No rule to make target …`; ninja's
//!   `FAILED: target`; `CMake Error at CMakeLists.txt:12 (…):`;
//! - linkers: `undefined reference to `sym'`, `undefined symbol: sym`
//!   (lld, mold), `multiple definition of`, `cannot find -lfoo`,
//!   `ld returned 1 exit status`, `Undefined symbols for architecture`;
//! - cargo: `failed to run custom build command for `pkg v1.0.0``,
//!   `could not compile `pkg``;
//! - Maven and Gradle: `[ERROR] Failed to execute goal … on project x`,
//!   `BUILD FAILURE`, `FAILURE: Build failed with an exception.` with the
//!   line under `* What went wrong:`, `> Task :app:test FAILED`;
//! - package managers: `npm ERR! code E…` / `npm error code …`, npm's
//!   `Lifecycle script `test` failed`, pnpm's `ERR_PNPM_…`, yarn's `error
//!   Command failed with exit code N.`, pip's `ERROR: Could not find a
//!   version …` and `No matching distribution found for …`;
//! - CI runners: Jenkins' `Finished: FAILURE`, GitHub Actions'
//!   `##[error]…` and `::error …::…`;
//! - the system: `Killed`, `Segmentation fault`, `Bus error`, `Aborted`
//!   (with `(core dumped)`), `No space left on device`, the kernel's
//!   `Out of memory: Killed process`.
//!
//! The identity is the step as the reader names it: the make target, the
//! missing symbol, the crate, the goal, the error code.
//!
//! A verdict that only sums up failures reported above it (`could not
//! compile`, `BUILD FAILURE`, make's `Error 2` for a target, npm's error
//! code, a CI job's exit) carries the class [`VERDICT`]: text/v1 keeps it
//! like any finding, but a typed family that read the failures themselves
//! owes no separate account of it.

use std::sync::LazyLock;

use regex::Regex;

use crate::evidence::{EvidenceItem, ItemKind, Severity};

use super::Dialect;
use super::page::{clip, compile, item};

/// The class of a build failure that sums up others (see the module's doc).
pub const VERDICT: &str = "verdict";

fn failure(identity: &str, n: usize, summary: &str) -> EvidenceItem {
    let mut f = item(
        ItemKind::BuildFailure,
        Severity::Error,
        clip(identity.trim(), 240),
        n,
    );
    // A line that only repeats the identity adds nothing to it.
    if !summary.contains(identity.trim()) {
        f.summary = Some(clip(summary.trim(), 200).to_string());
    }
    f
}

/// A failure that sums up the ones above it.
fn verdict(identity: &str, n: usize, summary: &str) -> EvidenceItem {
    let mut f = failure(identity, n, summary);
    f.class = Some(VERDICT.to_string());
    // The identity is the verdict's own words: a summary would repeat them.
    f.summary = None;
    f
}

pub(super) static MAKE: Dialect = Dialect {
    words: &["***", "FAILED: ", "CMake Error"],
    located: false,
    read: |page, n| {
        static MAKE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^(?:[\w./-]*make|mingw32-make)(?:\[\d+\])?: \*\*\* (?:\[(?P<target>[^\]]+)\] (?P<why>.+)|(?P<msg>.+))$",
            )
        });
        static NINJA: LazyLock<Regex> = LazyLock::new(|| compile(r"^FAILED: (?P<target>.+)$"));
        static CMAKE: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^CMake Error at (?P<at>\S+:\d+)(?: \((?P<what>[^)]*)\))?:"));
        let text = page.text(n);
        if let Some(c) = MAKE.captures(&text) {
            if let Some(target) = c.name("target") {
                return vec![verdict(
                    &format!("make [{}]", target.as_str()),
                    n,
                    &c["why"],
                )];
            }
            let msg = c.name("msg").map_or("", |m| m.as_str());
            if msg.starts_with("Waiting for unfinished jobs") {
                return Vec::new();
            }
            return vec![failure(
                &format!("make: {}", msg.trim_end_matches('.')),
                n,
                msg,
            )];
        }
        if let Some(c) = NINJA.captures(&text) {
            return vec![failure(&format!("ninja: {}", &c["target"]), n, &text)];
        }
        if let Some(c) = CMAKE.captures(&text) {
            return vec![failure(&format!("CMake Error at {}", &c["at"]), n, &text)];
        }
        Vec::new()
    },
};

pub(super) static LINKER: Dialect = Dialect {
    words: &[
        "undefined reference to",
        "undefined symbol",
        "multiple definition of",
        "cannot find -l",
        "ld returned",
        "Undefined symbols for architecture",
    ],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"(?P<what>undefined reference to|multiple definition of) [`'‘](?P<sym>[^'’`]+)['’`]|undefined symbol: (?P<sym2>\S+)|cannot find -l(?P<lib>\S+)|(?P<ld>ld returned \d+ exit status)|(?P<mac>Undefined symbols for architecture \S+?):?$",
            )
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let identity = if let (Some(what), Some(sym)) = (c.name("what"), c.name("sym")) {
            format!("{} {}", what.as_str(), sym.as_str())
        } else if let Some(sym) = c.name("sym2") {
            format!("undefined symbol {}", sym.as_str())
        } else if let Some(lib) = c.name("lib") {
            format!("cannot find -l{}", lib.as_str())
        } else if let Some(m) = c.name("ld") {
            return vec![verdict(m.as_str(), n, &text)];
        } else if let Some(m) = c.name("mac") {
            m.as_str().to_string()
        } else {
            return Vec::new();
        };
        vec![failure(&identity, n, &text)]
    },
};

pub(super) static CARGO: Dialect = Dialect {
    words: &[
        "failed to run custom build command for",
        "could not compile",
    ],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^error: (?:(?P<script>failed to run custom build command for)|could not compile) `(?P<pkg>[^`(]+?)(?: \([^)]*\))?`",
            )
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        if c.name("script").is_some() {
            return vec![failure(&format!("build script of {}", &c["pkg"]), n, &text)];
        }
        vec![verdict(
            &format!("could not compile {}", &c["pkg"]),
            n,
            &text,
        )]
    },
};

pub(super) static JVM_BUILD: Dialect = Dialect {
    words: &[
        "BUILD FAILURE",
        "Failed to execute goal",
        "FAILURE: Build failed",
        " FAILED",
    ],
    located: false,
    read: |page, n| {
        static GOAL: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^\[ERROR\] Failed to execute goal (?P<goal>\S+)(?: \([^)]*\))?(?: on project (?P<project>[\w.-]+))?",
            )
        });
        static TASK: LazyLock<Regex> = LazyLock::new(|| compile(r"^> Task (?P<task>:\S+) FAILED$"));
        // The reactor summary: `[INFO] web ....... SKIPPED`.
        static MODULE: LazyLock<Regex> = LazyLock::new(|| {
            compile(r"^\[INFO\] (?P<module>\S.*?) \.+ (?P<how>FAILURE|SKIPPED)\b")
        });
        let text = page.text(n);
        if let Some(c) = GOAL.captures(&text) {
            let identity = match c.name("project") {
                Some(p) => format!("{} on project {}", &c["goal"], p.as_str()),
                None => c["goal"].to_string(),
            };
            return vec![failure(&identity, n, &text)];
        }
        if text
            .trim_start_matches("[INFO] ")
            .trim_start_matches("[ERROR] ")
            == "BUILD FAILURE"
        {
            return vec![verdict("BUILD FAILURE", n, &text)];
        }
        if text.starts_with("FAILURE: Build failed with an exception") {
            // Gradle says what went wrong two lines below.
            let what = page
                .after(n, 6)
                .skip_while(|&m| page.text(m).trim() != "* What went wrong:")
                .nth(1)
                .map(|m| page.text(m).into_owned());
            let identity = match &what {
                Some(w) => format!("Gradle: {}", clip(w.trim(), 160)),
                None => "Gradle: build failed".to_string(),
            };
            return vec![failure(&identity, n, what.as_deref().unwrap_or(&text))];
        }
        if let Some(c) = TASK.captures(&text) {
            return vec![failure(&format!("task {}", &c["task"]), n, &text)];
        }
        if let Some(c) = MODULE.captures(&text) {
            let kind = if &c["how"] == "SKIPPED" {
                ItemKind::SuiteNotRun
            } else {
                ItemKind::BuildFailure
            };
            let mut m = failure(&c["module"], n, &text);
            m.kind = kind;
            return vec![m];
        }
        Vec::new()
    },
};

pub(super) static PACKAGE_MANAGER: Dialect = Dialect {
    words: &[
        "npm ERR!",
        "npm error",
        "ERR_PNPM_",
        "error Command failed",
        "ERROR: ",
    ],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(concat!(
                r"^(?:npm (?:ERR!|error) code (?P<code>\S+)$",
                r"|npm (?:ERR!|error) Lifecycle script `(?P<script>[^`]+)` failed",
                r"|npm (?:ERR!|error) (?P<test>Test failed)",
                r"|.*\b(?P<pnpm>ERR_PNPM_\w+)",
                r"|error (?P<yarn>Command failed with exit code \d+)",
                r"|ERROR: (?P<pip>(?:Could not find a version that satisfies the requirement|No matching distribution found for|Failed building wheel for|Could not install packages due to an \w+) ?\S*))",
            ))
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        if let Some(code) = c.name("code") {
            return vec![verdict(
                &format!("npm error code {}", code.as_str()),
                n,
                &text,
            )];
        }
        let identity = if let Some(script) = c.name("script") {
            format!("npm script {} failed", script.as_str())
        } else if c.name("test").is_some() {
            "npm test failed".to_string()
        } else if let Some(m) = c.name("yarn") {
            m.as_str().to_string()
        } else if let Some(m) = c.name("pnpm").or(c.name("pip")) {
            return vec![failure(m.as_str(), n, &text)];
        } else {
            return Vec::new();
        };
        // A script that failed says so after the failures it ran into.
        vec![verdict(&identity, n, &text)]
    },
};

pub(super) static RUNNER: Dialect = Dialect {
    words: &["Finished: ", "##[error]", "::error"],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^(?:Finished: (?P<jenkins>FAILURE|ABORTED|UNSTABLE)$|.*##\[error\](?P<gha>.+)$|::error(?: [^:]*)?::(?P<cmd>.+)$)",
            )
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        if let Some(j) = c.name("jenkins") {
            return vec![verdict(&format!("Finished: {}", j.as_str()), n, &text)];
        }
        let Some(m) = c.name("gha").or(c.name("cmd")) else {
            return Vec::new();
        };
        // `Process completed with exit code 1.` only reports the step's end.
        if m.as_str().starts_with("Process completed with exit code") {
            return vec![verdict(m.as_str(), n, &text)];
        }
        vec![failure(m.as_str(), n, &text)]
    },
};

pub(super) static SYSTEM: Dialect = Dialect {
    words: &[
        "Killed",
        "Segmentation fault",
        "Bus error",
        "Aborted",
        "No space left on device",
        "Out of memory",
    ],
    located: false,
    read: |page, n| {
        static SIGNAL: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^(?:\S+: )?(?:line \d+: )?(?:\d+ )?(?P<what>Killed|Segmentation fault|Bus error|Aborted)(?: \(core dumped\))?(?:\s+(?P<cmd>.+))?$",
            )
        });
        let text = page.text(n);
        if text.contains("No space left on device") {
            return vec![failure("No space left on device", n, &text)];
        }
        if text.contains("Out of memory: Kill") {
            return vec![failure("Out of memory", n, &text)];
        }
        let Some(c) = SIGNAL.captures(&text) else {
            return Vec::new();
        };
        let mut f = failure(&c["what"], n, &text);
        f.kind = ItemKind::Crash;
        vec![f]
    },
};
