//! One collection of a document (an array, or an object whose values are
//! all objects) crushed into facts: its length, the shape of its items,
//! each field's statistics, its anomalies with their reasons, and the
//! deterministic samples (first and last items).

use std::collections::{BTreeMap, HashMap};

use rustc_hash::FxHashMap;

use serde_json::value::RawValue;

use super::raw::{self, Kind};
use super::rules;
use crate::words::clip_chars;

/// Distinct values tracked per field before counting stops naming them.
const DISTINCT_CAP: usize = 1000;
/// Nesting inside an item that fields are flattened to (`status/phase`).
const FIELD_DEPTH: usize = 2;
/// Outliers flagged per numeric field, farthest first.
const OUTLIERS_PER_FIELD: usize = 3;
pub const FIRST: usize = 3;
pub const LAST: usize = 2;

/// A field of the collection's items (`name`, `status/phase`).
#[derive(Default)]
pub struct FieldStats {
    pub path: String,
    pub present: usize,
    pub kinds: Vec<(Kind, usize)>,
    pub numbers: Vec<(f64, usize)>,
    pub min: Option<String>,
    pub max: Option<String>,
    /// `min` and `max` as numbers, so that each value is compared without
    /// parsing them again.
    min_x: f64,
    max_x: f64,
    /// Value, as its raw JSON text (no allocation to look one up) →
    /// (count, first item); stops growing at DISTINCT_CAP.
    values: FxHashMap<String, (usize, usize)>,
    /// The last token of `path`, lowercased: what the anomaly rules match.
    pub key: String,
    pub distinct_capped: bool,
    pub lengths: Option<(usize, usize)>,
}

impl FieldStats {
    fn kind(&mut self, k: Kind) {
        match self.kinds.iter_mut().find(|(x, _)| *x == k) {
            Some(e) => e.1 += 1,
            None => self.kinds.push((k, 1)),
        }
    }

    pub fn distinct(&self) -> usize {
        self.values.len()
    }

    /// The most frequent values, ties by first occurrence.
    pub fn top(&self, n: usize) -> Vec<(String, usize)> {
        let mut v: Vec<(&String, &(usize, usize))> = self.values.iter().collect();
        v.sort_by_key(|(_, (c, first))| (std::cmp::Reverse(*c), *first));
        v.into_iter()
            .take(n)
            .map(|(k, (c, _))| {
                let shown = raw::document(k)
                    .and_then(raw::scalar_text)
                    .unwrap_or_else(|| k.clone());
                (shown, *c)
            })
            .collect()
    }

    /// The item holding `value` (raw JSON text) when it holds it alone.
    pub fn only_item_with(&self, value: &str) -> Option<usize> {
        match self.values.get(value) {
            Some(&(1, item)) => Some(item),
            _ => None,
        }
    }

    /// Some item holds `value` (raw JSON text).
    pub fn holds(&self, value: &str) -> bool {
        self.values.contains_key(value)
    }

    fn share_percent(&self, value: &str, of: usize) -> usize {
        self.values
            .get(value)
            .map_or(0, |(c, _)| c * 100 / of.max(1))
    }
}

/// An item kept whole: an anomaly (with its reasons) or a sample.
pub struct Kept {
    pub index: usize,
    /// The pointer token of the item (its index, or its key).
    pub token: String,
    pub reasons: Vec<String>,
}

pub struct Crushed {
    pub pointer: String,
    pub len: usize,
    pub keyed: bool,
    pub kinds: Vec<(Kind, usize)>,
    pub fields: Vec<FieldStats>,
    pub anomalies: Vec<Kept>,
    pub samples: Vec<Kept>,
    /// The items' raw text by index, for the kept ones.
    pub texts: HashMap<usize, String>,
    /// A short array of scalars in full (`["a","b"]`), shown inline.
    pub scalars: Option<String>,
}

/// A collection of at most this many scalars is shown whole inline.
const INLINE_SCALARS: usize = 20;
const INLINE_CHARS: usize = 400;

/// `keys` names the items of a keyed collection (an object's values), in
/// the same order; None for an array (items are named by index, and a
/// large array costs one slice per item).
pub fn crush(
    pointer: &str,
    items: &[&RawValue],
    keys: Option<&[String]>,
    all_bad: bool,
    read: &mut dyn FnMut(&RawValue),
) -> Crushed {
    let keyed = keys.is_some();
    let mut kinds: Vec<(Kind, usize)> = Vec::new();
    let mut fields: Vec<FieldStats> = Vec::new();
    let mut index: FxHashMap<String, usize> = FxHashMap::default();
    let mut path = String::new();
    // First pass: statistics. Nothing per item is kept, so memory follows
    // the number of fields, not of items.
    for (i, item) in items.iter().enumerate() {
        let k = Kind::of(item);
        match kinds.iter_mut().find(|(x, _)| *x == k) {
            Some(e) => e.1 += 1,
            None => kinds.push((k, 1)),
        }
        if k == Kind::Object {
            flatten(item, &mut path, FIELD_DEPTH, &mut |path, v| {
                let f = match index.get(path) {
                    Some(&f) => f,
                    None => {
                        fields.push(FieldStats {
                            path: path.to_string(),
                            key: path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase(),
                            ..FieldStats::default()
                        });
                        index.insert(path.to_string(), fields.len() - 1);
                        fields.len() - 1
                    }
                };
                record(&mut fields[f], v, i);
            });
        }
        read(item);
    }
    let majority = kinds.iter().max_by_key(|(_, c)| *c).map(|(k, _)| *k);
    let n = items.len();
    let shaped = n >= 10 && majority == Some(Kind::Object);
    // Keys nearly every item has (an item without one is odd), and fields
    // null in a handful of items only.
    let expected: Vec<usize> = (0..fields.len())
        .filter(|&f| {
            let s = &fields[f];
            shaped && !s.path.contains('/') && s.present * 10 >= n * 9 && s.present < n
        })
        .collect();
    let rare_null: Vec<bool> = fields.iter().map(|s| shaped && rare_nulls(s)).collect();
    // Second pass: each item's reasons, read again from its raw text.
    let mut reasons: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut seen: Vec<usize> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mut mine = Vec::new();
        if all_bad {
            mine.push(format!("listed under {}", last_token(pointer)));
        }
        let k = Kind::of(item);
        if Some(k) != majority && n >= 3 {
            mine.push(format!(
                "a {} among {}s",
                k.word(),
                majority.map_or("", Kind::word)
            ));
        }
        if k == Kind::Object {
            seen.clear();
            flatten(item, &mut path, FIELD_DEPTH, &mut |path, v| {
                let Some(&f) = index.get(path) else { return };
                seen.push(f);
                if let Some(r) = value_reason(&fields[f], v, n) {
                    mine.push(r);
                }
                if rare_null[f] && v.get() == "null" {
                    mine.push(format!("{} null", fields[f].path));
                }
            });
            for &f in &expected {
                if !seen.contains(&f) {
                    mine.push(format!("no {}", fields[f].path));
                }
            }
        }
        if !mine.is_empty() {
            reasons.insert(i, mine);
        }
        read(item);
    }
    if shaped {
        outliers(&fields, &mut reasons);
    }
    let token = |i: usize| match keys {
        Some(keys) => raw::escape(&keys[i]),
        None => i.to_string(),
    };
    let anomalies: Vec<Kept> = reasons
        .into_iter()
        .map(|(i, reasons)| Kept {
            index: i,
            token: token(i),
            reasons,
        })
        .collect();
    let mut samples = Vec::new();
    let inline = n <= INLINE_SCALARS
        && items
            .iter()
            .all(|v| !matches!(Kind::of(v), Kind::Object | Kind::Array));
    for i in (0..n.min(FIRST)).chain(n.saturating_sub(LAST).max(FIRST.min(n))..n) {
        if !inline && !anomalies.iter().any(|a| a.index == i) {
            samples.push(Kept {
                index: i,
                token: token(i),
                reasons: Vec::new(),
            });
        }
    }
    let texts = anomalies
        .iter()
        .chain(&samples)
        .map(|k| (k.index, raw::minify(items[k.index].get())))
        .collect();
    let scalars = (!keyed
        && n <= INLINE_SCALARS
        && items
            .iter()
            .all(|v| !matches!(Kind::of(v), Kind::Object | Kind::Array)))
    .then(|| {
        let parts: Vec<&str> = items.iter().map(|v| v.get()).collect();
        format!("[{}]", parts.join(","))
    })
    .filter(|s| s.chars().count() <= INLINE_CHARS);
    Crushed {
        scalars,
        pointer: pointer.to_string(),
        len: n,
        keyed,
        kinds,
        fields,
        anomalies,
        samples,
        texts,
    }
}

fn last_token(pointer: &str) -> &str {
    pointer.rsplit('/').next().unwrap_or(pointer)
}

/// Calls `f` with every field of an object, nested objects flattened to
/// `depth` levels (`status/phase`); arrays and deeper objects are leaves.
/// `path` holds the prefix (empty at the top) and is restored on return;
/// every item of a large collection passes here twice, so nothing is
/// allocated per field.
fn flatten<'a>(
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
        if Kind::of(v) == Kind::Object && depth > 1 {
            flatten(v, path, depth - 1, f);
        } else {
            f(path, v);
        }
    });
    path.truncate(base);
}

fn record(f: &mut FieldStats, v: &RawValue, item: usize) {
    f.present += 1;
    let k = Kind::of(v);
    f.kind(k);
    match k {
        Kind::Number => {
            if let Ok(x) = v.get().parse::<f64>() {
                f.numbers.push((x, item));
                // `min`/`max` hold texts that parsed to `min_x`/`max_x`.
                if f.min.is_none() || x < f.min_x {
                    f.min = Some(v.get().to_string());
                    f.min_x = x;
                }
                if f.max.is_none() || x > f.max_x {
                    f.max = Some(v.get().to_string());
                    f.max_x = x;
                }
            }
        }
        Kind::Array => {
            let len = raw::elements(v).map_or(0, |e| e.len());
            f.lengths = Some(match f.lengths {
                None => (len, len),
                Some((a, b)) => (a.min(len), b.max(len)),
            });
            return;
        }
        Kind::Object => return,
        _ => {}
    }
    // Every scalar counts, however long: the distinct count is exact up to
    // the cap (memory stays DISTINCT_CAP values per field).
    let text = v.get();
    let cap = f.values.len() >= DISTINCT_CAP;
    match f.values.get_mut(text) {
        Some(e) => e.0 += 1,
        None if cap => f.distinct_capped = true,
        None => {
            f.values.insert(text.to_string(), (1, item));
        }
    }
}

fn value_reason(f: &FieldStats, v: &RawValue, n: usize) -> Option<String> {
    let key = f.key.as_str();
    let kind = Kind::of(v);
    if rules::ERROR_KEYS.contains(&key) {
        let empty = matches!(v.get(), "null" | "false" | "\"\"" | "[]" | "{}" | "0");
        if !empty && kind != Kind::Bool {
            return Some(format!("{} {}", f.path, clip_chars(&raw::minify(v.get()), 60)));
        }
    }
    if kind == Kind::Bool {
        let t = v.get() == "true";
        if (t && rules::FALSE_KEYS.contains(&key)) || (!t && rules::TRUE_KEYS.contains(&key)) {
            return Some(format!("{} {}", f.path, v.get()));
        }
    }
    if kind == Kind::Number {
        let x: f64 = v.get().parse().ok()?;
        if rules::EXIT_KEYS.contains(&key) && x != 0.0 {
            return Some(format!("{} {}", f.path, v.get()));
        }
        if rules::HTTP_KEYS.contains(&key) && x >= 400.0 {
            return Some(format!("{} {}", f.path, v.get()));
        }
    }
    if kind == Kind::String && rules::STATUS_KEYS.contains(&key) {
        let s = raw::string(v)?;
        if rules::state_anomaly(&s, f.share_percent(v.get(), n)) {
            return Some(format!("{} {}", f.path, clip_chars(&s, 60)));
        }
    }
    None
}

fn outliers(fields: &[FieldStats], reasons: &mut BTreeMap<usize, Vec<String>>) {
    for f in fields {
        let values: Vec<f64> = f.numbers.iter().map(|(x, _)| *x).collect();
        let Some((lo, hi)) = rules::outlier_bounds(&values) else {
            continue;
        };
        let mut far: Vec<&(f64, usize)> = f
            .numbers
            .iter()
            .filter(|(x, _)| *x < lo || *x > hi)
            .collect();
        far.sort_by(|a, b| {
            let d = |x: f64| if x > hi { x - hi } else { lo - x };
            d(b.0).total_cmp(&d(a.0)).then(a.1.cmp(&b.1))
        });
        for (x, i) in far.into_iter().take(OUTLIERS_PER_FIELD) {
            reasons
                .entry(*i)
                .or_default()
                .push(format!("{} {x} is an outlier", f.path));
        }
    }
}

/// A field that is null in a handful of items and set in all the others
/// (an owner missing from three records of 1,200).
fn rare_nulls(stats: &FieldStats) -> bool {
    let nulls = stats
        .kinds
        .iter()
        .find(|(k, _)| *k == Kind::Null)
        .map_or(0, |(_, c)| *c);
    nulls > 0
        && stats.kinds.len() >= 2
        && (nulls * 100 <= stats.present || nulls <= 3)
        && nulls * 2 < stats.present
}
