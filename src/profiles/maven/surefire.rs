//! Surefire's report on the console: the per-class `Tests run: … - in
//! CLASS` lines, each `<<< FAILURE!` / `<<< ERROR!` block with its Java
//! exception and cause chain, and the closing totals.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::Span;
use crate::evidence::{EvidenceItem, ItemKind, LABEL_FIELD, Location, Severity};

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static pattern")
}

/// `Tests run: 4, Failures: 1, Errors: 2, Skipped: 0, Time elapsed: 0.16 s
/// <<< FAILURE! - in com.x.CatalogueTest` (Surefire 3 writes `-- in`).
static CLASS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^Tests run: \d+, Failures: \d+, Errors: \d+, Skipped: \d+.*?,? Time elapsed: .*? -{1,2} in (\S+)$")
});
/// The closing totals: `Tests run: 11, Failures: 2, Errors: 3, Skipped: 1`.
static TOTALS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)(?:, Flakes: \d+)?$")
});
/// A test's block header: JUnit 4 under Surefire 2 (`name(pkg.Class)`),
/// JUnit 5 under Surefire 2 (`name`), Surefire 3 (`pkg.Class.name --`).
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(\S+?)(?:\(([\w$.]+)\))?\s+(?:-- )?Time elapsed: \S+ s\s+<<< (FAILURE|ERROR)!$")
});
/// `\tat pkg.Cls.method(File.java:12)`, a module prefix allowed
/// (`java.base/java.lang.reflect.Method.invoke(...)`).
static FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s+at (?:[\w.$-]+/)?([\w$.<>]+)\(([^)]*)\)$"));
/// An exception line: `java.lang.IllegalStateException: bad price line`.
static EXCEPTION: LazyLock<Regex> =
    LazyLock::new(|| re(r"^((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*)(?::\s?(.*))?$"));

pub fn class_line(body: &str) -> Option<String> {
    if !body.starts_with("Tests run: ") {
        return None;
    }
    CLASS.captures(body).map(|c| c[1].to_string())
}

pub fn totals(body: &str) -> Option<[u64; 4]> {
    if !body.starts_with("Tests run: ") {
        return None;
    }
    let c = TOTALS.captures(body)?;
    let n = |i: usize| c[i].parse::<u64>().ok();
    Some([n(1)?, n(2)?, n(3)?, n(4)?])
}

/// Surefire's listing after `Results:`, and its section words.
pub fn is_chrome(body: &str) -> bool {
    matches!(
        body.trim_end(),
        "Results:" | "Failures:" | "Errors:" | "Flakes:" | "Tests in error:" | "Failed tests:"
    ) || (body.starts_with("  ") && !body.trim().is_empty())
        || body.starts_with("Run 1: ")
}

/// One failing or erroring test's block.
pub struct TestBlock {
    pub id: String,
    error: bool,
    /// The test class, for a location when no frame is the project's.
    class: String,
    first: usize,
    last: usize,
    /// The first exception line: (line, text).
    exception: Option<(usize, String)>,
    /// Frames of the exception raised: (line, class.method, `File.java:N`).
    frames: Vec<(usize, String, String)>,
    /// Each `Caused by:` line, and the frames under the last one.
    causes: Vec<(usize, String)>,
    cause_frames: Vec<(usize, String, String)>,
}

pub fn header(body: &str, class: Option<&str>, n: usize) -> Option<TestBlock> {
    if !body.ends_with("<<< FAILURE!") && !body.ends_with("<<< ERROR!") {
        return None;
    }
    let c = HEADER.captures(body)?;
    let name = &c[1];
    let (id, cls) = match (c.get(2), class) {
        (Some(k), _) => (format!("{}.{name}", k.as_str()), k.as_str().to_string()),
        // A class-level failure names the class itself.
        (None, Some(k)) if name == k => (name.to_string(), k.to_string()),
        (None, Some(k)) if name.starts_with(&format!("{k}.")) => (name.to_string(), k.to_string()),
        (None, Some(k)) => (format!("{k}.{name}"), k.to_string()),
        (None, None) => {
            let cls = name.rsplit_once('.').map_or(name, |(k, _)| k);
            (name.to_string(), cls.to_string())
        }
    };
    Some(TestBlock {
        id,
        error: &c[3] == "ERROR",
        class: cls,
        first: n,
        last: n,
        exception: None,
        frames: Vec::new(),
        causes: Vec::new(),
        cause_frames: Vec::new(),
    })
}

impl TestBlock {
    /// Takes an unprefixed line into the block; a blank line ends it.
    pub fn take(&mut self, n: usize, text: &str) -> bool {
        if text.trim().is_empty() {
            return false;
        }
        self.last = n;
        if let Some(c) = FRAME.captures(text) {
            let frame = (n, c[1].to_string(), c[2].to_string());
            if self.causes.is_empty() {
                self.frames.push(frame);
            } else {
                self.cause_frames.push(frame);
            }
            return true;
        }
        if let Some(cause) = text.strip_prefix("Caused by: ") {
            self.causes.push((n, cause.to_string()));
            self.cause_frames.clear();
            return true;
        }
        if self.exception.is_none() {
            self.exception = Some((n, text.to_string()));
        }
        true
    }

    pub fn item(&self) -> EvidenceItem {
        let kind = if self.error {
            ItemKind::TestError
        } else {
            ItemKind::FailingTest
        };
        let mut it = EvidenceItem::new(kind, Severity::Error, self.id.clone());
        it.block = Some(Span::new(self.first, self.last));
        if let Some((_, line)) = &self.exception {
            it.summary = Some(line.clone());
            it.class = EXCEPTION
                .captures(line)
                .map(|c| c[1].to_string())
                .or_else(|| line.split(':').next().map(str::to_string));
        }
        if let Some((_, root)) = self.causes.last() {
            it.fields
                .insert(LABEL_FIELD.to_string(), format!("caused by {root}"));
        }
        // Where to look: the first frame in the project's own code, of the
        // exception raised, else of its last cause.
        let user = self
            .frames
            .iter()
            .find(|f| !is_library(&f.1))
            .or_else(|| self.cause_frames.iter().find(|f| !is_library(&f.1)));
        it.location = Some(match user.and_then(|f| frame_location(&f.1, &f.2)) {
            Some(loc) => loc,
            None => Location {
                file: class_file(&self.class),
                line: None,
                column: None,
            },
        });
        // Not the header: it carries Surefire's `Time elapsed`, and the
        // census line already names the test.
        let mut lines = Vec::new();
        if let Some((n, _)) = &self.exception {
            lines.push(*n);
        }
        if let Some(f) = user {
            lines.push(f.0);
        }
        for (n, _) in self.causes.iter().take(3) {
            lines.push(*n);
        }
        it.detail = crate::profiles::testrun::spans(&lines, 10);
        it
    }
}

/// `com/x/Cart.java` for `com.x.Cart` (an inner class's outer file).
fn class_file(class: &str) -> String {
    let outer = class.split('$').next().unwrap_or(class);
    format!("{}.java", outer.replace('.', "/"))
}

/// `com.x.Cart.total` at `Cart.java:22` → `com/x/Cart.java:22`: the
/// frame's package as a path and the file javac recorded.
fn frame_location(method: &str, source: &str) -> Option<Location> {
    let (file, line) = source.rsplit_once(':')?;
    let line: u32 = line.parse().ok()?;
    let class = method.rsplit_once('.')?.0;
    let dir = class.rsplit_once('.').map(|(pkg, _)| pkg.replace('.', "/"));
    let file = match dir {
        Some(d) => format!("{d}/{file}"),
        None => file.to_string(),
    };
    Some(Location {
        file,
        line: Some(line),
        column: None,
    })
}

/// Frames a reader does not fix: the JDK, the test framework, Maven.
fn is_library(method: &str) -> bool {
    const LIBS: &[&str] = &[
        "java.",
        "javax.",
        "jdk.",
        "sun.",
        "com.sun.",
        "org.junit.",
        "junit.",
        "org.hamcrest.",
        "org.opentest4j.",
        "org.assertj.",
        "org.mockito.",
        "org.apache.maven.",
        "kotlin.",
        "scala.",
    ];
    LIBS.iter().any(|p| method.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_name_class_and_method() {
        let id = |b: &str, k: Option<&str>| header(b, k, 1).map(|t| t.id);
        assert_eq!(
            id("countsItems(com.x.CartTest)  Time elapsed: 0 s  <<< FAILURE!", None),
            Some("com.x.CartTest.countsItems".into())
        );
        assert_eq!(
            id("testAdd  Time elapsed: 0.01 s  <<< ERROR!", Some("com.x.AppTest")),
            Some("com.x.AppTest.testAdd".into())
        );
        assert_eq!(
            id("com.x.AppTest.testAdd -- Time elapsed: 0.01 s <<< FAILURE!", Some("com.x.AppTest")),
            Some("com.x.AppTest.testAdd".into())
        );
        assert!(id("Tests run: 1, Failures: 1 <<< FAILURE!", None).is_none());
    }

    #[test]
    fn class_and_totals_lines() {
        assert_eq!(
            class_line("Tests run: 4, Failures: 1, Errors: 2, Skipped: 0, Time elapsed: 0.162 s <<< FAILURE! - in com.x.CatalogueTest"),
            Some("com.x.CatalogueTest".into())
        );
        assert_eq!(
            class_line("Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.05 s -- in com.x.T"),
            Some("com.x.T".into())
        );
        assert_eq!(totals("Tests run: 11, Failures: 2, Errors: 3, Skipped: 1"), Some([11, 2, 3, 1]));
        assert!(totals("Tests run: 4, Failures: 1, Errors: 2, Skipped: 0, Time elapsed: 1 s - in a.B").is_none());
    }

    #[test]
    fn a_cause_chain_gives_reason_root_and_user_frame() {
        let mut t = header("loadsFromFile(com.x.CatalogueTest)  Time elapsed: 0 s  <<< ERROR!", None, 1).unwrap();
        for (n, l) in [
            "java.io.UncheckedIOException: cannot load catalogue p.txt",
            "\tat com.x.Catalogue.load(Catalogue.java:29)",
            "\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
            "Caused by: java.nio.file.NoSuchFileException: p.txt",
            "\tat java.base/sun.nio.fs.UnixException.translateToIOException(UnixException.java:92)",
            "\t... 30 more",
        ]
        .iter()
        .enumerate()
        {
            assert!(t.take(n + 2, l));
        }
        assert!(!t.take(8, ""));
        let it = t.item();
        assert_eq!(it.kind, ItemKind::TestError);
        assert_eq!(it.class.as_deref(), Some("java.io.UncheckedIOException"));
        let loc = it.location.unwrap();
        assert_eq!((loc.file.as_str(), loc.line), ("com/x/Catalogue.java", Some(29)));
        assert_eq!(
            it.fields.get(LABEL_FIELD).map(String::as_str),
            Some("caused by java.nio.file.NoSuchFileException: p.txt")
        );
    }
}
