//! The identities of a list of records: the field that names each one
//! (`name`, `id`, `key`, `metadata/name`…), with its version joined when
//! the records carry one (`requests@2.34.2`), so that a digest can say
//! *which* packages, pods or issues a list holds, not only how many.
//!
//! Found by shape, not by a word list: the key is a scalar field every
//! record has, its values identifiers (no spaces, at most [`KEY_CHARS`]
//! characters) and unique across the records — alone, or joined with a
//! sibling whose values look like versions (`1.3.0.post0`, `v2.1`). Of
//! the candidates, one whose values all start with a letter wins (a pod's
//! name over its resource version or timestamp), then the shortest. A boolean field that is true in some records
//! and false in others (pip inspect's `requested`) is the list's flag: its
//! records are named first, because they are what was asked for.

use std::collections::HashSet;

use serde_json::value::RawValue;

use super::raw::{self, Kind};
use crate::evidence::{EvidenceItem, ItemKind, Severity};

/// Lists longer than this are not named: uniqueness is checked exactly,
/// and a thousand names are far beyond any digest's budget anyway.
pub const MAX_RECORDS: usize = 1000;
/// A key value longer than this is not a name (a path, a URL, a summary).
const KEY_CHARS: usize = 64;
/// A key whose values average more than this is a description, not a name.
const MEAN_CHARS: usize = 40;
/// Nesting searched for the key (`metadata/name`).
const DEPTH: usize = 2;

/// One named record.
pub struct Named {
    /// Its 0-based position in the list.
    pub index: usize,
    /// `name` or `name@version`.
    pub name: String,
    /// The key's value alone (`name`).
    pub key: String,
    /// The flag field is true for it.
    pub flagged: bool,
}

/// The names of a list's records, in list order.
pub struct Names {
    /// The key's path (`metadata/name`, or `name@version` for a pair).
    pub key: String,
    /// The flag field's path, when the list has one.
    pub flag: Option<String>,
    pub records: Vec<Named>,
}

/// A field of the records, as the key search sees it.
#[derive(Default)]
struct Column {
    path: String,
    /// Each record's value (None: absent, null, not a short scalar).
    values: Vec<Option<String>>,
    /// Some value was a scalar too long to be a name.
    long: bool,
    trues: usize,
    falses: usize,
}

impl Column {
    fn complete(&self) -> bool {
        !self.long && self.values.iter().all(Option::is_some)
    }

    fn parent(&self) -> &str {
        self.path.rsplit_once('/').map_or("", |(p, _)| p)
    }

    fn mean_chars(&self) -> usize {
        let total: usize = self.values.iter().flatten().map(|v| v.chars().count()).sum();
        total / self.values.len().max(1)
    }

    fn distinct(&self) -> usize {
        self.values.iter().flatten().collect::<HashSet<_>>().len()
    }

    /// No value has a space: a title or a sentence is not a name.
    fn identifiers(&self) -> bool {
        self.values
            .iter()
            .flatten()
            .all(|v| !v.is_empty() && !v.contains(char::is_whitespace))
    }

    /// Every value starts with a letter (or npm's `@scope`): a name, not
    /// a number, a date or a hash.
    fn words(&self) -> bool {
        self.values
            .iter()
            .flatten()
            .all(|v| v.starts_with(|c: char| c.is_alphabetic() || c == '@'))
    }

    /// Every value looks like a version (`2.34.2`, `v1.0`, `1.3.0.post0`)
    /// and most have a dot: a build number or a year alone is not one.
    fn versions(&self) -> bool {
        let shaped = |v: &str| {
            let v = v.strip_prefix('v').unwrap_or(v);
            v.starts_with(|c: char| c.is_ascii_digit())
                && v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'))
        };
        let dotted = self.values.iter().flatten().filter(|v| v.contains('.')).count();
        self.complete()
            && self.values.iter().flatten().all(|v| shaped(v))
            && dotted * 2 >= self.values.len()
    }
}

/// The names of `items` (a list of objects), or None when no field names
/// them: too few or too many records, not all objects, no short unique key.
pub fn of(items: &[&RawValue]) -> Option<Names> {
    let n = items.len();
    if !(2..=MAX_RECORDS).contains(&n) || items.iter().any(|v| Kind::of(v) != Kind::Object) {
        return None;
    }
    let mut columns: Vec<Column> = Vec::new();
    let mut path = String::new();
    for (i, item) in items.iter().enumerate() {
        scalars(item, &mut path, DEPTH, &mut |path, v| {
            let c = match columns.iter().position(|c| c.path == path) {
                Some(c) => c,
                None => {
                    columns.push(Column {
                        path: path.to_string(),
                        values: vec![None; n],
                        ..Column::default()
                    });
                    columns.len() - 1
                }
            };
            let col = &mut columns[c];
            match Kind::of(v) {
                Kind::Bool if v.get() == "true" => col.trues += 1,
                Kind::Bool => col.falses += 1,
                Kind::String | Kind::Number => match raw::scalar_text(v) {
                    Some(t) if t.chars().count() <= KEY_CHARS && !t.contains(['\n', '\r']) => {
                        col.values[i] = Some(t);
                    }
                    _ => col.long = true,
                },
                _ => {}
            }
        });
    }
    let version = |key: &Column| {
        columns
            .iter()
            .filter(|c| c.path != key.path && c.parent() == key.parent() && c.versions())
            .max_by_key(|c| c.distinct())
    };
    // Ranked: word-like values first (a pod's name before its
    // timestamp or resource version), then the shortest.
    let mut best: Option<((bool, usize), &Column, Option<&Column>)> = None;
    for key in columns.iter().filter(|c| c.complete() && !c.versions() && c.identifiers()) {
        let rank = (!key.words(), key.mean_chars());
        if rank.1 > MEAN_CHARS || best.as_ref().is_some_and(|(r, _, _)| *r <= rank) {
            continue;
        }
        let v = version(key);
        if (0..n).map(|i| joined(key, v, i)).collect::<HashSet<_>>().len() == n {
            best = Some((rank, key, v));
        }
    }
    let (_, key, v) = best?;
    let flag = columns
        .iter()
        .find(|c| c.trues > 0 && c.falses > 0 && c.trues + c.falses == n);
    let records = (0..n)
        .map(|i| Named {
            index: i,
            name: joined(key, v, i),
            key: key.values[i].clone().unwrap_or_default(),
            flagged: flag.is_some_and(|f| bool_at(items[i], &f.path)),
        })
        .collect();
    Some(Names {
        key: match v {
            Some(v) => format!("{}@{}", key.path, v.path),
            None => key.path.clone(),
        },
        flag: flag.map(|f| f.path.clone()),
        records,
    })
}

fn joined(key: &Column, version: Option<&Column>, i: usize) -> String {
    let k = key.values[i].as_deref().unwrap_or("");
    match version.and_then(|v| v.values[i].as_deref()) {
        Some(v) => format!("{k}@{v}"),
        None => k.to_string(),
    }
}

fn bool_at(item: &RawValue, path: &str) -> bool {
    raw::pointer(item, &format!("/{path}")).is_some_and(|v| v.get() == "true")
}

/// Calls `f` with every non-container field of an object, nested objects
/// flattened to `depth` levels (`metadata/name`).
fn scalars<'a>(
    obj: &'a RawValue,
    path: &mut String,
    depth: usize,
    f: &mut dyn FnMut(&str, &'a RawValue),
) {
    let base = path.len();
    raw::for_each_entry(obj, &mut |k, v| {
        path.truncate(base);
        if base > 0 {
            path.push('/');
        }
        path.push_str(&raw::escaped(k));
        match Kind::of(v) {
            Kind::Object if depth > 1 => scalars(v, path, depth - 1, f),
            Kind::Object | Kind::Array | Kind::Null => {}
            _ => f(path, v),
        }
    });
    path.truncate(base);
}

/// The code of one record's name item: `ctx expand H --items --code name`
/// lists them all.
pub const NAME_CODE: &str = "name";

/// A list's names as one `names` field (flagged records first), and each
/// name as its own item (class [`NAME_CODE`], summary its pointer) for the
/// `--items --code name` listing.
pub fn items(
    pointer: &str,
    names: &Names,
    owner: Option<(String, String)>,
    items: &mut Vec<EvidenceItem>,
) {
    let at = if pointer.is_empty() { "/" } else { pointer };
    let mut item = EvidenceItem::new(ItemKind::Field, Severity::Info, at);
    item.fields.insert("role".into(), "names".into());
    let (flagged, others): (Vec<&Named>, Vec<&Named>) =
        names.records.iter().partition(|r| r.flagged);
    let join = |v: &[&Named]| v.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", ");
    item.fields.insert("key".into(), names.key.clone());
    item.fields.insert("code".into(), NAME_CODE.into());
    item.fields.insert("count".into(), names.records.len().to_string());
    if let Some(flag) = &names.flag {
        item.fields.insert("flag".into(), flag.clone());
        item.fields.insert("flagged".into(), join(&flagged));
        item.fields.insert("flagged_count".into(), flagged.len().to_string());
    }
    item.fields.insert("others".into(), join(&others));
    if let Some((name, by)) = owner {
        item.fields.insert("owner".into(), name);
        item.fields.insert("owner_by".into(), by);
    }
    items.push(item);
    for r in flagged.iter().chain(&others) {
        let mut one = EvidenceItem::new(ItemKind::Field, Severity::Info, r.name.clone());
        one.class = Some(NAME_CODE.into());
        one.fields.insert("role".into(), "name".into());
        let mut summary = format!("{pointer}/{}", r.index);
        if let (true, Some(flag)) = (r.flagged, &names.flag) {
            summary.push_str(&format!(" ({flag})"));
        }
        one.summary = Some(summary);
        items.push(one);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(doc: &str) -> Option<Names> {
        let items = raw::array_elements(doc)?;
        of(&items)
    }

    #[test]
    fn a_name_with_its_version() {
        let n = names(
            r#"[{"name":"a","version":"1.0","summary":"x"},{"name":"b","version":"1.0","summary":"y"}]"#,
        )
        .unwrap();
        assert_eq!(n.key, "name@version");
        let all: Vec<&str> = n.records.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(all, ["a@1.0", "b@1.0"]);
    }

    #[test]
    fn the_pair_when_the_name_repeats_and_the_shortest_unique_key() {
        let n = names(
            r#"[{"id":"registry#a@1.0.0","name":"a","version":"1.0.0"},
                {"id":"registry#a@2.0.0","name":"a","version":"2.0.0"},
                {"id":"registry#b@1.0.0","name":"b","version":"1.0.0"}]"#,
        )
        .unwrap();
        assert_eq!(n.key, "name@version");
        let n = names(r#"[{"number":12,"title":"Fix the parser"},{"number":13,"title":"Docs"}]"#)
            .unwrap();
        assert_eq!(n.key, "number");
        let n = names(
            r#"[{"metadata":{"name":"web-1","resourceVersion":"81","creationTimestamp":"2026-01-02T03:04:05Z"}},
                {"metadata":{"name":"web-2","resourceVersion":"82","creationTimestamp":"2026-01-02T03:04:06Z"}}]"#,
        )
        .unwrap();
        assert_eq!(n.key, "metadata/name");
    }

    #[test]
    fn nested_key_and_flag_first() {
        let n = names(
            r#"[{"metadata":{"name":"a","version":"2.0"},"requested":false},
                {"metadata":{"name":"b","version":"0.1"},"requested":true}]"#,
        )
        .unwrap();
        assert_eq!(n.key, "metadata/name@metadata/version");
        assert_eq!(n.flag.as_deref(), Some("requested"));
        assert!(n.records[1].flagged && !n.records[0].flagged);
    }

    #[test]
    fn no_key_no_names() {
        assert!(names(r#"[{"s":"ok"},{"s":"ok"}]"#).is_none());
        assert!(names(r#"[1,2,3]"#).is_none());
        assert!(names(r#"[{"name":"a"}]"#).is_none());
    }
}
