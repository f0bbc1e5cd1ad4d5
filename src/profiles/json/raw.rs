//! Reading a JSON document one level at a time over borrowed raw values:
//! an array becomes a list of slices of the input, an object its entries
//! in document order. Nothing below the level asked for is built, so a
//! 100 MB array costs one pointer pair per item, not a tree; key order and
//! number spelling are the input's own, because values stay its bytes.

use std::borrow::Cow;
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

/// An object key: borrowed from the input when it has no escapes, so
/// reading an item's fields allocates nothing per key.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// Calls `f` with each entry of an object in document order, without
/// collecting them (the per-item pass of a large collection). False, and
/// possibly some entries seen, when `raw` is not an object.
pub fn for_each_entry<'a>(raw: &'a RawValue, f: &mut dyn FnMut(&str, &'a RawValue)) -> bool {
    struct V<'f, 'a>(&'f mut dyn FnMut(&str, &'a RawValue));
    impl<'de> Visitor<'de> for V<'_, 'de> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some((k, v)) = map.next_entry::<Key<'de>, &'de RawValue>()? {
                (self.0)(&k.0, v);
            }
            Ok(())
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw.get());
    de.deserialize_map(V(f)).and_then(|()| de.end()).is_ok()
}

/// The whole document as one raw value: validated, not built.
pub fn document(text: &str) -> Option<&RawValue> {
    serde_json::from_str::<&RawValue>(text).ok()
}

pub fn entries(raw: &RawValue) -> Option<Vec<(String, &RawValue)>> {
    serde_json::from_str::<Entries>(raw.get()).ok().map(|e| e.0)
}

pub fn elements(raw: &RawValue) -> Option<Vec<&RawValue>> {
    array_elements(raw.get())
}

/// The items of a document that is one array (whitespace around it
/// allowed), validated in the same parse; None for any other text.
pub fn array_elements(text: &str) -> Option<Vec<&RawValue>> {
    serde_json::from_str::<Vec<&RawValue>>(text).ok()
}

/// [`array_elements`] on bytes, calling `read` with each item as the
/// parse passes it (a large input is released behind the parse). The
/// UTF-8 check is the parse's own (each item's text, and the syntax
/// between items admits only ASCII), so the input is read once.
pub fn array_elements_with<'a>(
    text: &'a [u8],
    read: &mut dyn FnMut(&RawValue),
) -> Option<Vec<&'a RawValue>> {
    struct V<'f>(&'f mut dyn FnMut(&RawValue));
    impl<'de> Visitor<'de> for V<'_> {
        type Value = Vec<&'de RawValue>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON array")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(v) = seq.next_element::<&'de RawValue>()? {
                (self.0)(v);
                out.push(v);
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(text);
    let items = de.deserialize_seq(V(read)).ok()?;
    de.end().ok()?;
    Some(items)
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
    escaped(key).into_owned()
}

/// [`escape`], borrowing the key when it needs no escape (nearly always).
pub fn escaped(key: &str) -> Cow<'_, str> {
    if memchr::memchr2(b'~', b'/', key.as_bytes()).is_some() {
        Cow::Owned(key.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(key)
    }
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
    fn array_items_from_bytes_match_the_text_parse() {
        let texts: [&[u8]; 7] = [
            b" [1, {\"a\":\"x\"}, [2], \"\xc3\xa9\"]\n",
            b"[]",
            b"[1,]",
            b"[1] [2]",
            b"{\"a\":1}",
            b"[\"\xff\"]",
            b"[1]\xff",
        ];
        for bytes in texts {
            let mut seen = Vec::new();
            let got = array_elements_with(bytes, &mut |v| seen.push(v.get().to_string()));
            let want = std::str::from_utf8(bytes).ok().and_then(array_elements);
            let got: Option<Vec<&str>> = got.map(|v| v.iter().map(|r| r.get()).collect());
            let want: Option<Vec<&str>> = want.map(|v| v.iter().map(|r| r.get()).collect());
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(bytes));
            if let Some(items) = got {
                assert_eq!(seen, items);
            }
        }
    }

    #[test]
    fn entries_stream_in_order_with_keys_unescaped() {
        let doc = document(r#"{"a":1,"b\u0041":[2],"a":{"c":3}}"#).unwrap();
        let mut seen = Vec::new();
        assert!(for_each_entry(doc, &mut |k, v| seen.push((k.to_string(), v.get().to_string()))));
        let want: Vec<(String, String)> = entries(doc)
            .unwrap()
            .into_iter()
            .map(|(k, v)| (k, v.get().to_string()))
            .collect();
        assert_eq!(seen, want);
        assert_eq!(seen[1].0, "bA");
        assert_eq!(escaped("a/b~c"), "a~1b~0c");
        assert!(matches!(escaped("plain"), Cow::Borrowed("plain")));
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
