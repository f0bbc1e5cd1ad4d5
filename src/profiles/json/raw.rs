//! Reading a JSON document one level at a time over borrowed raw values:
//! an array becomes a list of slices of the input, an object its entries
//! in document order. Nothing below the level asked for is built, so a
//! 100 MB array costs one pointer pair per item, not a tree; key order and
//! number spelling are the input's own, because values stay its bytes.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// What a raw value is, by its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

impl Kind {
    pub fn of(raw: &RawValue) -> Kind {
        match raw.get().as_bytes().first() {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'n') => Kind::Null,
            _ => Kind::Number,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Kind::Object => "object",
            Kind::Array => "array",
            Kind::String => "string",
            Kind::Number => "number",
            Kind::Bool => "bool",
            Kind::Null => "null",
        }
    }
}

/// An object's entries in document order (duplicates kept as written).
pub struct Entries<'a>(pub Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Entries<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The whole document as one raw value: validated, not built.
pub fn document(text: &str) -> Option<&RawValue> {
    serde_json::from_str::<&RawValue>(text).ok()
}

pub fn entries(raw: &RawValue) -> Option<Vec<(String, &RawValue)>> {
    serde_json::from_str::<Entries>(raw.get()).ok().map(|e| e.0)
}

pub fn elements(raw: &RawValue) -> Option<Vec<&RawValue>> {
    serde_json::from_str::<Vec<&RawValue>>(raw.get()).ok()
}

/// A string value's text; None for any other kind.
pub fn string(raw: &RawValue) -> Option<String> {
    (Kind::of(raw) == Kind::String)
        .then(|| serde_json::from_str::<String>(raw.get()).ok())
        .flatten()
}

/// A scalar as a reader would name it: strings unquoted, the rest as written.
pub fn scalar_text(raw: &RawValue) -> Option<String> {
    match Kind::of(raw) {
        Kind::Object | Kind::Array => None,
        Kind::String => string(raw),
        _ => Some(raw.get().to_string()),
    }
}

/// `value` with insignificant whitespace removed; strings, numbers and key
/// order untouched. Only whitespace outside strings is dropped, so the
/// result is the same value by construction (and checked by the caller).
pub fn minify(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in value.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    out
}

/// True when both texts parse to the same JSON value (numbers compared
/// as written, objects as ordered entries): the lossless tier's check.
pub fn same_value(a: &str, b: &str) -> bool {
    match (document(a), document(b)) {
        (Some(x), Some(y)) => same(x, y),
        _ => false,
    }
}

fn same(a: &RawValue, b: &RawValue) -> bool {
    let (ka, kb) = (Kind::of(a), Kind::of(b));
    if ka != kb {
        return false;
    }
    match ka {
        Kind::Object => match (entries(a), entries(b)) {
            (Some(x), Some(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(&y)
                        .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
            }
            _ => false,
        },
        Kind::Array => match (elements(a), elements(b)) {
            (Some(x), Some(y)) => x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| same(p, q)),
            _ => false,
        },
        Kind::String => string(a) == string(b),
        _ => a.get() == b.get(),
    }
}

/// The subtree a JSON pointer (RFC 6901) names, as the input's own bytes.
pub fn pointer<'a>(root: &'a RawValue, pointer: &str) -> Option<&'a RawValue> {
    if pointer.is_empty() {
        return Some(root);
    }
    let rest = pointer.strip_prefix('/')?;
    let mut at = root;
    for token in rest.split('/') {
        let token = token.replace("~1", "/").replace("~0", "~");
        at = match Kind::of(at) {
            Kind::Object => entries(at)?
                .into_iter()
                .rev()
                .find(|(k, _)| *k == token)
                .map(|(_, v)| v)?,
            Kind::Array => {
                let i: usize = token.parse().ok()?;
                if token.len() > 1 && token.starts_with('0') {
                    return None;
                }
                elements(at)?.into_iter().nth(i)?
            }
            _ => return None,
        };
    }
    Some(at)
}

/// One pointer token for a key (`~` and `/` escaped).
pub fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minify_keeps_strings_and_numbers() {
        let doc = "{ \"a b\" : [1.50, 2e3 ],\n \"c\": \"x \\\" y\" }";
        let m = minify(doc);
        assert_eq!(m, r#"{"a b":[1.50,2e3],"c":"x \" y"}"#);
        assert!(same_value(doc, &m));
        assert!(!same_value(doc, r#"{"a b":[1.5,2e3],"c":"x \" y"}"#));
        assert!(!same_value(r#"{"a":1,"b":2}"#, r#"{"b":2,"a":1}"#));
    }

    #[test]
    fn pointers_return_exact_subtrees() {
        let text = r#"{"a/b":{"x":[10, {"y":1.0}]},"~":2}"#;
        let doc = document(text).unwrap();
        assert_eq!(pointer(doc, "/a~1b/x/1").unwrap().get(), r#"{"y":1.0}"#);
        assert_eq!(pointer(doc, "/~0").unwrap().get(), "2");
        assert!(pointer(doc, "/a~1b/x/01").is_none());
        assert!(pointer(doc, "/nope").is_none());
        assert_eq!(pointer(doc, "").unwrap().get(), text);
    }
}
