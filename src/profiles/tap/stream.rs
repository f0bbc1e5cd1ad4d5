//! The TAP stream itself, whoever wrote it: test lines (`ok N - name`,
//! `not ok N - name # SKIP why`), their nesting by indentation (node and
//! Test::More indent a subtest's lines by four spaces, and print the
//! parent's own line after its children), the YAML diagnostic block under a
//! test line (`  ---` … `  ...`), plans, `Bail out!` and `#` comments.
//! Lines that are none of these (a harness's own lines, a crash's stderr)
//! are the caller's to read.

use std::sync::LazyLock;

use regex::Regex;

/// `ok`, `not ok`, an optional number, then the description (with any
/// directive still in it).
static TEST: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(not ok|ok)(?: (\d+))?(?:$| (.*)$)").expect("static pattern"));
static PLAN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^1\.\.(\d+)(?:\s*#.*)?$").expect("static pattern"));
/// A YAML key at the block's own indentation: `error: |-`, `location: '…'`.
static KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([A-Za-z_]\w*):(?: (.*))?$").expect("static pattern"));

/// A TODO or SKIP directive after an unescaped `#` in a description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Directive {
    Skip(String),
    Todo(String),
}

/// One test line, with what the lines under it said.
#[derive(Clone, Debug)]
pub struct Point {
    /// The `ok`/`not ok` line.
    pub line: usize,
    /// Nesting depth: leading spaces over four.
    pub depth: usize,
    pub ok: bool,
    pub number: Option<u64>,
    /// The description, without the `- ` TAP allows before it and without
    /// its directive; `\#` unescaped.
    pub name: String,
    pub directive: Option<Directive>,
    /// The enclosing test: the first line at a smaller depth after this
    /// one (TAP prints a parent's line after its children).
    pub parent: Option<usize>,
    /// The first line of the test's region: its `# Subtest:` header, or
    /// its first child's region, or the test line.
    pub first: usize,
    /// The YAML block's lines (`---` to `...`), when there is one.
    pub yaml: Option<(usize, usize)>,
    /// Top-level keys of the YAML block: (key, value as written, line).
    /// A block scalar (`|-`) is its first non-blank line.
    pub fields: Vec<(String, String, usize)>,
    /// Lines of the block scalar `error: |-`, in order (at most a few).
    pub error_lines: Vec<usize>,
    /// `#` lines right under the test line at its depth (bats, Test::More
    /// in verbose runs): the diagnostics that explain it.
    pub comments: Vec<usize>,
}

impl Point {
    /// A failure: `not ok` without a TODO directive (TAP's rule: a TODO
    /// test that fails is expected to; a SKIP on `not ok` still fails, as
    /// prove counts it).
    pub fn failed(&self) -> bool {
        !self.ok && !matches!(self.directive, Some(Directive::Todo(_)))
    }

    /// A YAML field's value, unquoted.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, v, _)| unquote(v))
    }

    /// The line a YAML field is on.
    pub fn field_line(&self, key: &str) -> Option<usize> {
        self.fields
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, _, n)| *n)
    }

    /// The region the test's output covers, for `ctx expand --item`.
    pub fn last(&self) -> usize {
        self.yaml.map_or(self.line, |(_, end)| end).max(
            self.comments.last().copied().unwrap_or(0),
        )
    }
}

/// What one line is, to the stream.
#[derive(Debug)]
pub enum Line {
    Test,
    Plan,
    Bail,
    /// A `#` comment at `depth` (the text after `#`, trimmed).
    Comment(usize, String),
    /// `TAP version 13`.
    Version,
    /// Inside a YAML block.
    Yaml,
    Blank,
    /// Anything else.
    Other,
}

/// The stream, read line by line.
#[derive(Default)]
pub struct Stream {
    pub points: Vec<Point>,
    /// Top-level plans: (count, line).
    pub plans: Vec<(u64, usize)>,
    /// `Bail out!` lines: (reason, line).
    pub bails: Vec<(String, usize)>,
    /// An open YAML block: (point, its indentation, key of an open block scalar).
    yaml: Option<(usize, usize, Option<String>)>,
    /// `# Subtest: name` headers not yet claimed: (depth, name, line).
    headers: Vec<(usize, String, usize)>,
    /// Points whose parent has not been printed yet.
    orphans: Vec<usize>,
    /// The point whose comments are still running.
    commented: Option<usize>,
}

impl Stream {
    /// Reads line `n` (its visible text, trailing space kept off).
    pub fn push(&mut self, n: usize, text: &str) -> Line {
        let indent = text.len() - text.trim_start_matches(' ').len();
        let body = &text[indent..];
        if let Some((at, base, scalar)) = &mut self.yaml {
            let (at, base) = (*at, *base);
            if indent == base && body == "..." {
                self.points[at].yaml = self.points[at].yaml.map(|(s, _)| (s, n));
                self.yaml = None;
                return Line::Yaml;
            }
            // A block ends at a line less indented than its keys (a
            // producer that forgot the `...`): read that line as itself.
            if indent >= base || body.is_empty() {
                let point = &mut self.points[at];
                point.yaml = point.yaml.map(|(s, _)| (s, n));
                if indent == base
                    && let Some(c) = KEY.captures(body)
                {
                    let value = c.get(2).map_or("", |m| m.as_str()).to_string();
                    *scalar = matches!(value.as_str(), "|" | "|-" | ">" | ">-" | "|+")
                        .then(|| c[1].to_string());
                    point.fields.push((c[1].to_string(), value, n));
                } else if let Some(key) = scalar.as_deref()
                    && !body.is_empty()
                {
                    // The block scalar's first line stands for its value.
                    if let Some(f) = point.fields.iter_mut().rev().find(|f| f.0 == key)
                        && matches!(f.1.as_str(), "|" | "|-" | ">" | ">-" | "|+")
                    {
                        f.1 = body.to_string();
                    }
                    if key == "error" && point.error_lines.len() < 4 {
                        point.error_lines.push(n);
                    }
                }
                return Line::Yaml;
            }
            self.yaml = None;
        }
        if body.is_empty() {
            return Line::Blank;
        }
        let depth = indent / 4;
        if let Some(at) = self.commented {
            let p = &self.points[at];
            if body.starts_with('#') && depth == p.depth && !body.starts_with("# Subtest:") {
                self.points[at].comments.push(n);
            } else {
                self.commented = None;
            }
        }
        if body == "---"
            && let Some(at) = self.points.len().checked_sub(1)
            && self.points[at].line + 1 == n
            && self.points[at].yaml.is_none()
        {
            self.points[at].yaml = Some((n, n));
            self.yaml = Some((at, indent, None));
            self.commented = None;
            return Line::Yaml;
        }
        if let Some(c) = TEST.captures(body) {
            self.test(n, depth, c);
            return Line::Test;
        }
        if let Some(c) = PLAN.captures(body) {
            let count = c[1].parse().unwrap_or(0);
            if depth == 0 {
                self.plans.push((count, n));
            }
            return Line::Plan;
        }
        if let Some(reason) = body.strip_prefix("Bail out!") {
            self.bails.push((reason.trim().to_string(), n));
            return Line::Bail;
        }
        if let Some(comment) = body.strip_prefix('#') {
            let comment = comment.trim();
            if let Some(name) = comment.strip_prefix("Subtest:") {
                self.headers.push((depth, name.trim().to_string(), n));
            }
            return Line::Comment(depth, comment.to_string());
        }
        if depth == 0 && (body == "TAP version 13" || body == "TAP version 14") {
            return Line::Version;
        }
        Line::Other
    }

    fn test(&mut self, n: usize, depth: usize, c: regex::Captures<'_>) {
        let (name, directive) = describe(c.get(3).map_or("", |m| m.as_str()));
        // The `# Subtest:` header of this test: the latest one at this
        // depth (node) or one deeper (Test::More prints it among the
        // children) naming it.
        let header = self
            .headers
            .iter()
            .rposition(|(d, h, _)| (*d == depth || *d == depth + 1) && *h == name);
        let mut first = n;
        if let Some(i) = header {
            first = self.headers[i].2;
            self.headers.truncate(i);
        }
        let at = self.points.len();
        // Every orphan deeper than this line is its child (or grandchild
        // through a child already claimed).
        let mut i = 0;
        while i < self.orphans.len() {
            let o = self.orphans[i];
            if self.points[o].depth > depth {
                self.points[o].parent = Some(at);
                first = first.min(self.points[o].first);
                self.orphans.swap_remove(i);
            } else {
                i += 1;
            }
        }
        self.points.push(Point {
            line: n,
            depth,
            ok: &c[1] == "ok",
            number: c.get(2).and_then(|m| m.as_str().parse().ok()),
            name,
            directive,
            parent: None,
            first,
            yaml: None,
            fields: Vec::new(),
            error_lines: Vec::new(),
            comments: Vec::new(),
        });
        self.orphans.push(at);
        self.commented = Some(at);
    }

    /// The names from the outermost ancestor down to `at`.
    pub fn chain(&self, at: usize) -> Vec<&str> {
        let mut out = vec![self.points[at].name.as_str()];
        let mut up = self.points[at].parent;
        while let Some(p) = up {
            out.push(self.points[p].name.as_str());
            up = self.points[p].parent;
        }
        out.reverse();
        out
    }

    /// The outermost ancestor of `at` (itself when top-level).
    pub fn root(&self, at: usize) -> usize {
        let mut at = at;
        while let Some(p) = self.points[at].parent {
            at = p;
        }
        at
    }
}

/// The name and directive of a description: `- total # TODO rounding` →
/// (`total`, Todo(`rounding`)). TAP escapes a `#` that is part of the name
/// as `\#`.
pub fn describe(rest: &str) -> (String, Option<Directive>) {
    let bytes = rest.as_bytes();
    let mut hash = None;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'#' && (i == 0 || bytes[i - 1] != b'\\') {
            hash = Some(i);
            break;
        }
    }
    let (name, directive) = match hash {
        Some(i) => {
            let after = rest[i + 1..].trim_start();
            let word_end = after
                .find(|c: char| !c.is_ascii_alphabetic())
                .unwrap_or(after.len());
            let word = after[..word_end].to_ascii_lowercase();
            let reason = after[word_end..].trim().to_string();
            if word.starts_with("skip") {
                (&rest[..i], Some(Directive::Skip(reason)))
            } else if word == "todo" {
                (&rest[..i], Some(Directive::Todo(reason)))
            } else {
                (rest, None)
            }
        }
        None => (rest, None),
    };
    let name = name.trim();
    let name = name.strip_prefix("- ").unwrap_or(name);
    let name = if name == "-" { "" } else { name };
    (name.trim().replace("\\#", "#").replace("\\\\", "\\"), directive)
}

/// A YAML scalar as written, without its quotes.
pub fn unquote(v: &str) -> &str {
    let v = v.trim();
    if v.len() >= 2
        && ((v.starts_with('\'') && v.ends_with('\'')) || (v.starts_with('"') && v.ends_with('"')))
    {
        &v[1..v.len() - 1]
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_and_directives() {
        assert_eq!(describe("- total"), ("total".into(), None));
        assert_eq!(describe("adds two numbers"), ("adds two numbers".into(), None));
        assert_eq!(
            describe("- rounds # TODO rounding rules"),
            ("rounds".into(), Some(Directive::Todo("rounding rules".into())))
        );
        assert_eq!(
            describe("# skip no network"),
            ("".into(), Some(Directive::Skip("no network".into())))
        );
        assert_eq!(
            describe("ships # SKIP"),
            ("ships".into(), Some(Directive::Skip(String::new())))
        );
        // An escaped `#` is part of the name; a plain comment is not a directive.
        assert_eq!(describe(r"- issue \#12"), ("issue #12".into(), None));
        assert_eq!(describe("- a # note"), ("a # note".into(), None));
    }

    #[test]
    fn children_find_their_parent_and_yaml_its_fields() {
        let lines = [
            "TAP version 13",
            "# Subtest: outer",
            "    # Subtest: inner",
            "    not ok 1 - inner",
            "      ---",
            "      location: '/p/t.js:3:5'",
            "      error: |-",
            "        Expected values to be strictly equal:",
            "        ",
            "        1 !== 2",
            "      name: 'AssertionError'",
            "      ...",
            "    1..1",
            "not ok 1 - outer",
            "  ---",
            "  failureType: 'subtestsFailed'",
            "  ...",
            "1..1",
        ];
        let mut s = Stream::default();
        for (i, l) in lines.iter().enumerate() {
            s.push(i + 1, l);
        }
        assert_eq!(s.points.len(), 2);
        assert_eq!(s.chain(0), vec!["outer", "inner"]);
        let inner = &s.points[0];
        assert_eq!((inner.first, inner.yaml), (3, Some((5, 12))));
        assert_eq!(inner.field("location"), Some("/p/t.js:3:5"));
        assert_eq!(inner.field("error"), Some("Expected values to be strictly equal:"));
        assert_eq!(inner.field("name"), Some("AssertionError"));
        assert_eq!(inner.error_lines, vec![8, 10]);
        let outer = &s.points[1];
        assert_eq!((outer.first, outer.depth), (2, 0));
        assert_eq!(outer.field("failureType"), Some("subtestsFailed"));
        assert_eq!(s.plans, vec![(1, 18)]);
    }
}
