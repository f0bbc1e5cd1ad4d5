//! Edits a JSON text in place: adds or removes one member or element and
//! leaves every other byte (key order, indentation, inline objects,
//! trailing newline) as the person wrote it. The caller checks the result
//! by parsing it again and comparing with the value it meant to write.
//!
//! Why not serde_json's `preserve_order`: it keeps key order but not the
//! formatting, and it changes map order for the whole crate.

use serde_json::Value;

/// A value's place in the text; containers list their children.
#[derive(Debug)]
pub struct Node {
    pub start: usize,
    /// Just after the value's last byte.
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug)]
pub enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Scalar,
}

#[derive(Debug)]
pub struct Member {
    pub key: String,
    pub key_start: usize,
    pub key_end: usize,
    pub value: Node,
}

impl Node {
    /// The member named `key` (the last one, as serde_json reads
    /// duplicates).
    pub fn member(&self, key: &str) -> Option<&Member> {
        match &self.kind {
            Kind::Object(members) => members.iter().rev().find(|m| m.key == key),
            _ => None,
        }
    }
}

/// The tree of a text that serde_json has already accepted.
pub fn parse(text: &str) -> Option<Node> {
    let mut p = Parser { text, i: 0 };
    p.ws();
    let node = p.value()?;
    p.ws();
    (p.i == text.len()).then_some(node)
}

struct Parser<'a> {
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.i).copied()
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn string(&mut self) -> Option<usize> {
        let start = self.i;
        self.i += 1;
        loop {
            match self.peek()? {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return Some(start);
                }
                _ => self.i += 1,
            }
        }
    }

    fn value(&mut self) -> Option<Node> {
        let start = self.i;
        let kind = match self.peek()? {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if self.peek()? == b'}' {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        let key_start = self.string()?;
                        let key_end = self.i;
                        let key = serde_json::from_str(&self.text[key_start..key_end]).ok()?;
                        self.ws();
                        self.i += 1; // ':'
                        self.ws();
                        let value = self.value()?;
                        members.push(Member {
                            key,
                            key_start,
                            key_end,
                            value,
                        });
                        self.ws();
                        let b = self.peek()?;
                        self.i += 1;
                        if b == b'}' {
                            break;
                        }
                    }
                }
                Kind::Object(members)
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek()? == b']' {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.value()?);
                        self.ws();
                        let b = self.peek()?;
                        self.i += 1;
                        if b == b']' {
                            break;
                        }
                    }
                }
                Kind::Array(items)
            }
            b'"' => {
                self.string()?;
                Kind::Scalar
            }
            _ => {
                while self
                    .peek()
                    .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
                {
                    self.i += 1;
                }
                Kind::Scalar
            }
        };
        Some(Node {
            start,
            end: self.i,
            kind,
        })
    }
}

/// How the file lays values out: the indent unit (`None`: all on one
/// line) and whether a space follows a colon.
#[derive(Clone, Debug)]
pub struct Style {
    unit: Option<String>,
    spaced: bool,
}

impl Style {
    pub fn of(text: &str, root: &Node) -> Style {
        let (unit, spaced) = match &root.kind {
            Kind::Object(members) if !members.is_empty() => {
                let first = &members[0];
                let spaced = text[first.key_end..first.value.start].contains(' ');
                let unit = inner_indent(text, root.start + 1, first.key_start);
                (unit, spaced)
            }
            _ => (Some("  ".to_string()), true),
        };
        Style {
            unit: unit.map(|u| if u.is_empty() { "  ".into() } else { u }),
            spaced,
        }
    }

    /// `value` laid out as the file would, its lines after the first
    /// indented by `indent`.
    fn render(&self, value: &Value, indent: &str) -> String {
        match &self.unit {
            Some(unit) => {
                let mut out = Vec::new();
                let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
                let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
                if serde::Serialize::serialize(value, &mut ser).is_err() {
                    return inline(value, self.spaced);
                }
                String::from_utf8_lossy(&out).replace('\n', &format!("\n{indent}"))
            }
            None => inline(value, self.spaced),
        }
    }
}

/// One-line JSON, with or without a space after `:` and `,`.
fn inline(value: &Value, spaced: bool) -> String {
    let (colon, comma) = if spaced { (": ", ", ") } else { (":", ",") };
    match value {
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}{colon}{}", Value::String(k.clone()), inline(v, spaced)))
                .collect();
            format!("{{{}}}", members.join(comma))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|v| inline(v, spaced)).collect();
            format!("[{}]", items.join(comma))
        }
        other => other.to_string(),
    }
}

/// The indentation of the text between `from` and `to` when it ends a
/// line break, else `None` (same line).
fn inner_indent(text: &str, from: usize, to: usize) -> Option<String> {
    let gap = &text[from..to];
    gap.rfind('\n').map(|nl| gap[nl + 1..].to_string())
}

/// The leading blanks of the line `at` is on.
fn line_indent(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |nl| nl + 1);
    text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

fn splice(text: &str, at: usize, until: usize, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..at]);
    out.push_str(with);
    out.push_str(&text[until..]);
    out
}

/// Adds a child after the container's last one, or into an empty one:
/// `head` (`"key": ` or nothing) and then `value`.
fn add_child(
    text: &str,
    node: &Node,
    last_child: Option<(usize, usize)>,
    style: &Style,
    head: &str,
    value: &Value,
) -> String {
    match last_child {
        Some((first_start, last_end)) => {
            let indent = inner_indent(text, node.start + 1, first_start);
            let child = match indent {
                Some(ind) => format!(",\n{ind}{head}{}", style.render(value, &ind)),
                None => {
                    let sep = if style.spaced { ", " } else { "," };
                    format!("{sep}{head}{}", inline(value, style.spaced))
                }
            };
            splice(text, last_end, last_end, &child)
        }
        None => {
            let inside = node.start + 1..node.end - 1;
            let child = match &style.unit {
                Some(unit) => {
                    let outer = line_indent(text, node.start);
                    let inner = format!("{outer}{unit}");
                    format!("\n{inner}{head}{}\n{outer}", style.render(value, &inner))
                }
                None => format!("{head}{}", style.render(value, "")),
            };
            splice(text, inside.start, inside.end, &child)
        }
    }
}

/// `object` with `"key": value` added as its last member.
pub fn insert_member(text: &str, object: &Node, key: &str, value: &Value, style: &Style) -> String {
    let Kind::Object(members) = &object.kind else {
        return text.to_string();
    };
    let colon = if style.spaced { ": " } else { ":" };
    let head = format!("{}{colon}", Value::String(key.to_string()));
    let last = members
        .first()
        .zip(members.last())
        .map(|(f, l)| (f.key_start, l.value.end));
    add_child(text, object, last, style, &head, value)
}

/// `array` with `value` appended.
pub fn append_element(text: &str, array: &Node, value: &Value, style: &Style) -> String {
    let Kind::Array(items) = &array.kind else {
        return text.to_string();
    };
    let last = items
        .first()
        .zip(items.last())
        .map(|(f, l)| (f.start, l.end));
    add_child(text, array, last, style, "", value)
}

/// Removes the child spanning `spans[k]` from a container whose children
/// span `spans`, with the comma and blanks that joined it.
fn remove_child(text: &str, container: &Node, spans: &[(usize, usize)], k: usize) -> String {
    match (
        k.checked_sub(1).and_then(|p| spans.get(p)),
        spans.get(k + 1),
    ) {
        (Some(prev), _) => splice(text, prev.1, spans[k].1, ""),
        (None, Some(next)) => splice(text, spans[k].0, next.0, ""),
        (None, None) => splice(text, container.start + 1, container.end - 1, ""),
    }
}

pub fn remove_element(text: &str, array: &Node, k: usize) -> String {
    let Kind::Array(items) = &array.kind else {
        return text.to_string();
    };
    let spans: Vec<(usize, usize)> = items.iter().map(|n| (n.start, n.end)).collect();
    remove_child(text, array, &spans, k)
}

pub fn remove_member(text: &str, object: &Node, key: &str) -> String {
    let Kind::Object(members) = &object.kind else {
        return text.to_string();
    };
    let Some(k) = members.iter().rposition(|m| m.key == key) else {
        return text.to_string();
    };
    let spans: Vec<(usize, usize)> = members.iter().map(|m| (m.key_start, m.value.end)).collect();
    remove_child(text, object, &spans, k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn adds_in_the_files_own_style() {
        let text = "{\n    \"b\": 1,\n    \"a\": {\"x\": []}\n}\n";
        let root = parse(text).expect("parse");
        let style = Style::of(text, &root);
        let out = insert_member(text, &root, "c", &json!({"k": [1]}), &style);
        assert_eq!(
            out,
            "{\n    \"b\": 1,\n    \"a\": {\"x\": []},\n    \"c\": {\n        \"k\": [\n            1\n        ]\n    }\n}\n"
        );
        let text = "{\"b\":1}";
        let root = parse(text).expect("parse");
        let style = Style::of(text, &root);
        assert_eq!(
            insert_member(text, &root, "c", &json!([{"k": 1}]), &style),
            "{\"b\":1,\"c\":[{\"k\":1}]}"
        );
        let text = "{\n  \"a\": []\n}";
        let root = parse(text).expect("parse");
        let style = Style::of(text, &root);
        let array = &root.member("a").expect("a").value;
        assert_eq!(
            append_element(text, array, &json!(1), &style),
            "{\n  \"a\": [\n    1\n  ]\n}"
        );
    }

    #[test]
    fn removes_with_its_separator() {
        let text = "{\"a\": [1, 2, 3], \"b\": 2}";
        let root = parse(text).expect("parse");
        let array = &root.member("a").expect("a").value;
        assert_eq!(remove_element(text, array, 1), "{\"a\": [1, 3], \"b\": 2}");
        assert_eq!(remove_element(text, array, 0), "{\"a\": [2, 3], \"b\": 2}");
        assert_eq!(remove_member(text, &root, "a"), "{\"b\": 2}");
        assert_eq!(remove_member(text, &root, "b"), "{\"a\": [1, 2, 3]}");
    }
}
