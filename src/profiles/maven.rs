//! maven/v1 — Maven builds (`mvn`, `./mvnw`, `mvnd`; batch mode or
//! coloured, `-q`, `-fae`, multi-module reactors) with maven-compiler-plugin
//! and Surefire, and plain `javac`.
//!
//! **Decision.** Which modules failed, which compile errors stop them (file,
//! line, column, message, the missing symbol), which tests failed or errored
//! and why (the assertion or exception, the cause at the end of its chain,
//! the first frame in the project's own code), and which modules never ran
//! because an earlier one failed. The reader opens the file and line, or
//! reruns `mvn test -Dtest=Class#method` with the test's class and method.
//!
//! **Unsafe loss.** A compile error, failing or erroring test, or failed
//! module dropped without a counted marker; a `SKIPPED` module read as
//! built; a test named by its method alone (`testAdd` exists in many
//! classes); a `BUILD FAILURE` whose only evidence is a goal that failed
//! (dependency resolution, a plugin) read as success; a run cut before
//! Surefire's `Tests run:` totals read as complete.
//!
//! **Typed facts.** `Diagnostic` per compile error or warning, from
//! maven-compiler-plugin's `[ERROR] /path/File.java:[L,C] message` (its
//! second listing under `Failed to execute goal` is the same error, not a
//! new one) or javac's `File.java:L: error: message` (the column from the
//! caret line); identity `file:line:col` relative to the run's directory,
//! summary = the message, label = javac's `symbol:` line, block = the
//! header with its source, caret and `symbol:`/`location:`/`required:`
//! lines. `FailingTest` / `TestError` per Surefire `<<< FAILURE!` / `<<<
//! ERROR!` block, identity `package.Class.method` (JUnit 4's
//! `method(package.Class)`, JUnit 5's bare method under its class's `- in`
//! line and Surefire 3's dotted form alike); class = the exception's class,
//! summary = its line, label = the last `Caused by:` of the chain,
//! location = the first frame outside the JDK, JUnit and Maven (its
//! package as a path: `com/x/Cart.java:22`), else the test class's file;
//! block = the header through the trace. `BuildFailure` per `Failed to
//! execute goal G:A:V:GOAL (exec) on project P: …`, identity `P A:GOAL`,
//! per reactor `FAILURE` module no such line names, and a bare `BUILD
//! FAILURE` with neither. `SuiteNotRun` per reactor `SKIPPED` module.
//! Counts: Surefire's closing `Tests run: N, Failures: F, Errors: E,
//! Skipped: S` summed over modules, the compiler's `N errors`, modules
//! failed and skipped.
//!
//! **Ladder.** PASS_SUMMARY (`BUILD SUCCESS` with the test totals) →
//! FAIL_CENSUS (every compile error, failing test, failed and skipped
//! module with its location and reason; frames while the budget lasts) →
//! DENSE (census only; each block by `--item ID`) → FLOOD (grouped with
//! exact counts; the whole list by `--items`).

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Severity};

use super::testrun::{self, Facts};
use super::{Profile, ProfileSpec, ReceiptGroup};

mod compile;
mod modules;
mod surefire;

use compile::Diag;
use modules::{module_item, module_pom};
use surefire::TestBlock;

pub struct Maven;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static pattern")
}

/// `Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:2.22.3:test
/// (default-test) on project shop: There are test failures.`
static GOAL: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^Failed to execute goal ([^:\s]+):([^:\s]+):([^:\s]+):(\S+) \(\S+\) on project (\S+?): (.*)$")
});
/// The same for a failure before any plugin ran (dependency resolution).
static GOAL_BARE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^Failed to execute goal on project (\S+?): (.*)$"));
/// A reactor summary line: `service ....... FAILURE [ 10.450 s]`.
static REACTOR_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(\S.*?) \.{2,} ?(SUCCESS|FAILURE|SKIPPED)(?: \[.*\])?$"));
/// Head sniffing: Maven's first line or verdict, Surefire's banner, or a
/// javac diagnostic.
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?m)^\[INFO\] (?:Scanning for projects\.\.\.|BUILD (?:FAILURE|SUCCESS)|\s*T E S T S)$|",
        r"^\[ERROR\] Failed to execute goal |",
        r"^\S+\.java:\d+: (?:error|warning): "
    ))
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["mvn", "mvnw", "mvnd", "javac"],
    sniff_words: &[
        "Scanning for projects...",
        "BUILD FAILURE",
        "BUILD SUCCESS",
        "T E S T S",
        "Failed to execute goal ",
        ".java:",
    ],
    sniff: Some(&SNIFF),
    sniff_reason: "Maven's banner, verdict or Surefire's T E S T S, or a javac diagnostic",
    decisive_words: &["BUILD FAILURE", "Failed to execute goal ", ".java:"],
    ..ProfileSpec::new("maven/v1", "maven", ReceiptGroup::TestRunner)
};

impl Profile for Maven {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        // `./mvnw`, `/opt/maven/bin/mvn`, `mvnw.cmd`: the program's own name.
        let words = testrun::command_words(argv);
        let first = words.first()?.rsplit('/').next()?;
        let name = first.strip_suffix(".cmd").unwrap_or(first);
        matches!(name, "mvn" | "mvnw" | "mvnd" | "javac")
            .then(|| format!("command {name} (Maven, Surefire, javac)"))
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        if line == "[INFO] BUILD FAILURE" || line.starts_with("[ERROR] Failed to execute goal ") {
            return Some("Maven's BUILD FAILURE or failed goal".into());
        }
        // javac's `File.java:12: error: …`, at the start of the line.
        if line.contains(".java:") && !line.starts_with(['+', '-', ' ', '[', '{']) {
            return compile::javac_header(line).map(|_| "a javac `File.java:N: error:` line".into());
        }
        None
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut r = Reader::new(artifact);
        for n in 1..=artifact.line_count() {
            let text = crate::profiles::visible(artifact, n);
            r.line(n, text.trim_end());
        }
        r.finish()
    }
}

/// A Maven log level prefix and the line's body; `None` for a line Maven
/// did not prefix (javac's own output, a stack trace, the tests' stdout).
fn level(text: &str) -> (Option<&'static str>, &str) {
    for lvl in ["INFO", "ERROR", "WARNING", "WARN", "DEBUG"] {
        let tag = match lvl {
            "INFO" => "[INFO]",
            "ERROR" => "[ERROR]",
            "WARNING" => "[WARNING]",
            "WARN" => "[WARN]",
            _ => "[DEBUG]",
        };
        if let Some(rest) = text.strip_prefix(tag) {
            if rest.is_empty() {
                return (Some(lvl), "");
            }
            if let Some(body) = rest.strip_prefix(' ') {
                return (Some(lvl), body);
            }
        }
    }
    (None, text)
}

/// What is open while lines are read.
enum Open {
    None,
    Diag(Diag),
    /// A compile error listed a second time: its lines are understood.
    Repeat,
    Test(TestBlock),
}

/// The state of one pass over the output.
struct Reader<'a> {
    artifact: &'a Artifact,
    open: Open,
    diags: Vec<Diag>,
    seen_diags: HashSet<String>,
    tests: Vec<TestBlock>,
    seen_tests: HashSet<String>,
    /// (identity, summary, first line, last line) of each failed goal.
    goals: Vec<(String, String, usize, usize)>,
    goal_open: bool,
    /// Reactor modules that failed, and those skipped: (name, line).
    failed_modules: Vec<(String, usize)>,
    skipped_modules: Vec<(String, usize)>,
    in_reactor: bool,
    /// The test class of the latest `Tests run: … - in CLASS` line.
    class: Option<String>,
    /// Surefire's closing totals, summed over modules.
    totals: Option<[u64; 4]>,
    announced_compile: Option<u64>,
    verdict: Option<bool>,
    verdict_line: Option<usize>,
    conclusion: Vec<usize>,
    unmatched: usize,
}

impl<'a> Reader<'a> {
    fn new(artifact: &'a Artifact) -> Self {
        Reader {
            artifact,
            open: Open::None,
            diags: Vec::new(),
            seen_diags: HashSet::new(),
            tests: Vec::new(),
            seen_tests: HashSet::new(),
            goals: Vec::new(),
            goal_open: false,
            failed_modules: Vec::new(),
            skipped_modules: Vec::new(),
            in_reactor: false,
            class: None,
            totals: None,
            announced_compile: None,
            verdict: None,
            verdict_line: None,
            conclusion: Vec::new(),
            unmatched: 0,
        }
    }

    fn close(&mut self) {
        match std::mem::replace(&mut self.open, Open::None) {
            Open::Diag(d) => {
                if self.seen_diags.insert(d.identity()) {
                    self.diags.push(d);
                }
            }
            Open::Test(t) => {
                if self.seen_tests.insert(t.id.clone()) {
                    self.tests.push(t);
                }
            }
            Open::Repeat | Open::None => {}
        }
    }

    fn line(&mut self, n: usize, text: &str) {
        let (lvl, body) = level(text);
        // A failed goal's block: its `[ERROR]` lines through `-> [Help 1]`.
        if self.goal_open {
            match (lvl, self.goals.last_mut()) {
                (Some("ERROR"), Some(g)) if !body.starts_with("Failed to execute goal") => {
                    g.3 = n;
                    if body.contains("-> [Help ") {
                        self.goal_open = false;
                    }
                }
                _ => self.goal_open = false,
            }
        }
        // Lines that continue the open block.
        let taken = match &mut self.open {
            Open::Diag(d) => d.take(n, lvl, body),
            Open::Repeat => compile::continues(lvl, body),
            Open::Test(t) => lvl.is_none() && t.take(n, body),
            Open::None => false,
        };
        if taken {
            return;
        }
        self.close();
        if lvl.is_none() {
            self.plain(n, body);
            return;
        }
        self.prefixed(n, lvl.unwrap_or("INFO"), body);
    }

    /// A line without Maven's prefix: javac's output, or test output.
    fn plain(&mut self, n: usize, text: &str) {
        if let Some(d) = compile::javac_header(text) {
            self.open = Open::Diag(d.at_line(n));
            return;
        }
        if let Some(count) = compile::javac_count(text) {
            if let Some(errors) = count {
                *self.announced_compile.get_or_insert(0) += errors;
            }
            self.conclusion.push(n);
            return;
        }
        if text.contains(": error:") || text.contains("<<< FAILURE!") || text.contains("<<< ERROR!")
        {
            self.unmatched += 1;
        }
    }

    fn prefixed(&mut self, n: usize, lvl: &str, body: &str) {
        if let Some(d) = compile::maven_header(lvl, body) {
            let d = d.at_line(n);
            self.open = if self.seen_diags.contains(&d.identity()) {
                Open::Repeat
            } else {
                Open::Diag(d)
            };
            return;
        }
        if let Some(c) = surefire::class_line(body) {
            self.class = Some(c);
            return;
        }
        if let Some(t) = surefire::totals(body) {
            let sum = self.totals.get_or_insert([0; 4]);
            for (s, v) in sum.iter_mut().zip(t) {
                *s += v;
            }
            self.conclusion.push(n);
            return;
        }
        if let Some(t) = surefire::header(body, self.class.as_deref(), n) {
            self.open = Open::Test(t);
            return;
        }
        if let Some(c) = body.strip_prefix("Running ").filter(|c| !c.contains(' ')) {
            self.class = Some(c.to_string());
            return;
        }
        if let Some(c) = GOAL.captures(body) {
            let id = format!("{} {}:{}", &c[5], &c[2], &c[4]);
            self.goals.push((id, goal_message(&c[6]), n, n));
            self.goal_open = !body.contains("-> [Help ");
            self.conclusion.push(n);
            return;
        }
        if let Some(c) = GOAL_BARE.captures(body) {
            self.goals
                .push((c[1].to_string(), goal_message(&c[2]), n, n));
            self.goal_open = !body.contains("-> [Help ");
            self.conclusion.push(n);
            return;
        }
        if body.starts_with("Reactor Summary") {
            self.in_reactor = true;
            return;
        }
        if self.in_reactor {
            if let Some(c) = REACTOR_LINE.captures(body) {
                match &c[2] {
                    "FAILURE" => self.failed_modules.push((c[1].to_string(), n)),
                    "SKIPPED" => self.skipped_modules.push((c[1].to_string(), n)),
                    _ => {}
                }
                return;
            }
            if body.starts_with("---") {
                self.in_reactor = false;
            }
        }
        match body {
            "BUILD FAILURE" | "BUILD SUCCESS" => {
                self.verdict = Some(body == "BUILD SUCCESS");
                self.verdict_line = Some(n);
                self.conclusion.push(n);
                return;
            }
            _ => {}
        }
        if let Some(count) = compile::maven_count(body) {
            *self.announced_compile.get_or_insert(0) += count;
            return;
        }
        if lvl == "ERROR" && !surefire::is_chrome(body) && !is_error_chrome(body) {
            self.unmatched += 1;
        }
    }

    fn finish(mut self) -> (EvidenceGraph, CoverageReceipt) {
        self.close();
        let artifact = self.artifact;
        let mut graph = EvidenceGraph::empty();
        let tool = tool(artifact);
        graph.reader = crate::evidence::Reader::family(tool);
        // What stopped the build first: compile errors, then tests, then
        // the modules that failed or never ran.
        graph
            .items
            .extend(self.diags.iter().map(|d| d.item(artifact)));
        graph.items.extend(self.tests.iter().map(|t| t.item()));
        let mut failed_projects: Vec<String> = Vec::new();
        for (id, summary, first, last) in &self.goals {
            if graph.items.iter().any(|i| &i.identity == id) {
                continue;
            }
            failed_projects.push(id.split(' ').next().unwrap_or(id).to_string());
            let mut it = EvidenceItem::new(ItemKind::BuildFailure, Severity::Error, id.clone());
            it.class = Some("failed goal".into());
            it.summary = Some(summary.clone());
            it.headline = Some(Span::line(*first));
            it.detail = vec![Span::line(*first)];
            it.block = Some(Span::new(*first, *last));
            it.location = Some(module_pom(artifact, *first, *last));
            graph.items.push(it);
        }
        for (name, n) in &self.failed_modules {
            if failed_projects.iter().any(|p| p == name) {
                continue;
            }
            graph.items.push(module_item(ItemKind::BuildFailure, name, *n, "FAILURE"));
        }
        for (name, n) in &self.skipped_modules {
            graph.items.push(module_item(ItemKind::SuiteNotRun, name, *n, "SKIPPED"));
        }
        // A failure Maven states with nothing else to show for it.
        if self.verdict == Some(false) && graph.items.iter().all(|i| i.severity != Severity::Error)
            && let Some(n) = self.verdict_line
        {
            let mut it =
                EvidenceItem::new(ItemKind::BuildFailure, Severity::Error, "BUILD FAILURE");
            it.summary = Some("Maven reported BUILD FAILURE".into());
            it.location = Some(module_pom(artifact, n, artifact.line_count()));
            it.headline = Some(Span::line(n));
            it.detail = vec![Span::line(n)];
            it.block = Some(Span::line(n));
            graph.items.push(it);
        }

        let errors = self.diags.iter().filter(|d| d.is_error()).count() as u64;
        let warnings = self.diags.len() as u64 - errors;
        if let Some([run, failed, errs, skipped]) = self.totals {
            graph.counts.push(("failed".into(), failed));
            graph.counts.push(("errors".into(), errs));
            graph.counts.push(("skipped".into(), skipped));
            graph.counts.push(("tests run".into(), run));
        }
        if errors > 0 || self.announced_compile.is_some() {
            graph.counts.push(("compile errors".into(), errors));
        }
        if warnings > 0 {
            graph.counts.push(("warnings".into(), warnings));
        }
        let failed_modules = graph
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::BuildFailure)
            .count() as u64;
        if !self.skipped_modules.is_empty() {
            graph
                .counts
                .push(("modules skipped".into(), self.skipped_modules.len() as u64));
        }
        graph.conclusion = testrun::spans(&self.conclusion, usize::MAX);

        let parsed = graph
            .items
            .iter()
            .filter(|i| i.severity == Severity::Error)
            .count();
        // Announced: Surefire's failures and errors (or, without its totals,
        // the blocks read), the compiler's error count (or the errors read),
        // and the modules, which announce themselves.
        let tests_announced = self
            .totals
            .map_or(self.tests.len() as u64, |t| t[1] + t[2]);
        let compile_announced = self.announced_compile.unwrap_or(errors);
        let announced = tests_announced
            + compile_announced
            + failed_modules
            + self.skipped_modules.len() as u64;
        // Complete when Maven's verdict, Surefire's totals, or (javac) its
        // error count closed the output; javac prints nothing when clean.
        let javac_clean = tool == "javac" && artifact.exit == crate::artifact::Exit::Code(0);
        // Surefire's totals close one module, not the build: only Maven's
        // verdict or its closing failure report (all `-q` leaves) does.
        let summary_seen = self.verdict.is_some()
            || !self.goals.is_empty()
            || (tool == "javac" && self.announced_compile.is_some())
            || javac_clean;
        let facts = Facts {
            failures: parsed,
            summary_seen,
            interrupted: false,
            not_run: false,
            announced,
            crashed: false,
        };
        graph.outcome = testrun::outcome(artifact.exit, facts);
        let blocks = graph.items.iter().filter(|i| i.block.is_some()).count();
        let receipt = testrun::receipt(
            artifact,
            parsed,
            Some(announced),
            blocks.min(parsed),
            self.unmatched,
            summary_seen,
        );
        (graph, receipt)
    }
}

/// `Compilation failure: Compilation failure: ` → `Compilation failure`.
fn goal_message(raw: &str) -> String {
    let msg = raw.split(" -> [Help ").next().unwrap_or(raw).trim();
    let msg = msg.trim_end_matches(':').trim();
    match msg.split_once(": ") {
        Some((a, b)) if a == b.trim_end_matches(':') => a.to_string(),
        _ => msg.to_string(),
    }
}

/// Maven's own advice after a failure: no fact of the build.
fn is_error_chrome(body: &str) -> bool {
    body.is_empty()
        || body.starts_with("To see the full stack trace")
        || body.starts_with("Re-run Maven using")
        || body.starts_with("For more information about the errors")
        || body.starts_with("[Help ")
        || body.starts_with("After correcting the problems")
        || body.starts_with("  mvn <args> -rf ")
        || body.starts_with("-> [Help ")
        || body.starts_with("Please refer to ")
        || body == "COMPILATION ERROR :"
}

/// The tool a digest is headed by.
fn tool(artifact: &Artifact) -> &'static str {
    let words = testrun::command_words(&artifact.argv);
    match words.first().and_then(|w| w.rsplit('/').next()) {
        Some("javac") => "javac",
        _ => "maven",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_split_prefix_and_body() {
        assert_eq!(level("[INFO] BUILD FAILURE"), (Some("INFO"), "BUILD FAILURE"));
        assert_eq!(level("[ERROR]   symbol: x"), (Some("ERROR"), "  symbol: x"));
        assert_eq!(level("[ERROR]"), (Some("ERROR"), ""));
        assert_eq!(level("\tat a.B.c(B.java:3)"), (None, "\tat a.B.c(B.java:3)"));
        assert_eq!(level("[INFOX] y"), (None, "[INFOX] y"));
    }

    #[test]
    fn goal_messages_lose_maven_repetition() {
        assert_eq!(
            goal_message("Compilation failure: Compilation failure: "),
            "Compilation failure"
        );
        assert_eq!(
            goal_message("There are test failures. -> [Help 1]"),
            "There are test failures."
        );
    }

    #[test]
    fn commands_by_program_name() {
        let argv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert!(Maven.by_command(&argv("./mvnw -B test")).is_some());
        assert!(Maven.by_command(&argv("mvn.cmd test")).is_some());
        assert!(Maven.by_command(&argv("mvnw.cmd test")).is_some());
        assert!(Maven.by_command(&argv("javac -d out A.java")).is_some());
        assert!(Maven.by_command(&argv("java -jar x.jar")).is_none());
    }
}
