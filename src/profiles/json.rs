//! json/v1 — JSON documents and JSON Lines from tools and APIs:
//! `cargo metadata`, `npm ls --json`, `pip inspect`, `pip list
//! --format=json`, `kubectl get -o json`, `docker inspect`, `gh api`, and
//! any `cmd | ctx pipe` whose output is one JSON document or one per line.
//!
//! **Decision.** What is in this data and what in it needs attention:
//! its shape (keys, types, how many of each), exact totals, the identity
//! of the document (root name and version, direct dependencies), and every
//! item that is not like the others, so the reader can act on it or ask
//! for exactly the subtree it needs.
//!
//! **Unsafe loss.** An item whose status is not OK, whose `error` is set,
//! that is an outlier or has an odd shape, dropped or cut; an array length
//! or count that is not exact; a sample passed off as the whole; a value
//! rewritten (a number respelled, keys reordered) in what is shown.
//!
//! **Typed facts.** `Record` items, identity a JSON pointer (`/packages/17`;
//! for JSON Lines the first token is the 0-based record): anomalies
//! (severity warning, summary their reasons, census) and samples (first
//! three and last two of each collection, severity info), each with field
//! `json` its minified text. `Field` items: the document's identity
//! scalars (`role = identity`), direct dependencies (`role = dependencies`),
//! each collection with its exact length and keys (`role = collection`),
//! per-field statistics (`role = stats`: presence, types, min/max/mean,
//! distinct count, top values), and for small documents the lossless form
//! (`role = lossless`: minified, checked to parse to the same value).
//! Each list of records with a naming key (`names`: unique, short, joined
//! with a version field as `name@version`, flagged records first) is a
//! `role = names` field, and each of its names an item of class `name`
//! (`--items --code name`).
//! The document is read one level at a time over borrowed raw values, so
//! a large array is never built as a tree.
//!
//! **Ladder.** VERBATIM (fits the budget) → LOSSLESS (the minified
//! document fits: printed whole, value unchanged) → DENSE (identity,
//! collections, names (whole, flagged, or counted), statistics, every
//! anomaly whole, samples disclosed as "N of M shown") → FLOOD (anomalies
//! past the budget as asked named by pointer and reason while they fit,
//! the rest grouped by reason with exact counts, all behind `--items`).
//! `ctx expand H --item POINTER` prints any subtree exactly.

use serde_json::value::RawValue;

use crate::artifact::{Artifact, Exit, Stream};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome, Precision, Severity,
};

use super::{Profile, ProfileSpec, ReceiptGroup};

pub mod collection;
pub mod names;
pub mod raw;
pub mod rules;

use collection::Crushed;
use names::Names;
use raw::Kind;

pub struct Json;

/// An array's first element when it is a number: `[1,`, `[-0.5]`, `[2e3 ,`.
static NUMBER_HEAD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\s*[,\]]")
        .expect("a valid pattern")
});

/// Documents up to this size get a lossless (minified) form.
const LOSSLESS_BYTES: usize = 256 << 10;
/// Collections looked for this deep under the root object.
const COLLECTION_DEPTH: usize = 3;
/// An object is a keyed collection when it has this many object values.
const KEYED_MIN: usize = 5;
/// A root list of at most this many strings may name the document's own
/// records (`workspace_members`).
const MEMBERS_MAX: usize = 20;
/// Root keys naming direct dependencies (`name → {version}`).
const DEPENDENCY_KEYS: &[&str] = &["dependencies", "devDependencies"];

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["cargo metadata", "npm ls", "pip inspect", "pip list", "jq"],
    ..ProfileSpec::new("json/v1", "json", ReceiptGroup::Data)
};

impl Profile for Json {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        // Wrappers (`timeout`, `env A=1`, `uv run`, …) looked through.
        let words = crate::command::command_words(argv);
        let name = words.first().map(|a| a.rsplit('/').next().unwrap_or(a))?;
        let argv: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let has = |w: &str| argv.iter().any(|a| a == w);
        let json_flag = argv.iter().any(|a| {
            a == "--json" || a == "--format=json" || a == "-ojson" || a == "--output=json"
        }) || argv
            .windows(2)
            .any(|w| matches!(w[0].as_str(), "-o" | "--output" | "--format") && w[1] == "json");
        let yes = match name {
            "cargo" => argv.get(1).is_some_and(|a| a == "metadata"),
            "pip" | "pip3" => has("inspect") || (has("list") && json_flag),
            "npm" | "pnpm" | "yarn" | "kubectl" | "gh" => json_flag || (name == "gh" && has("api")),
            "docker" | "podman" => has("inspect"),
            "jq" => true,
            _ => false,
        };
        yes.then(|| format!("{name} (JSON output)"))
    }

    fn by_content(&self, head: &str) -> Option<String> {
        let t = head.trim_start();
        let first = t.as_bytes().first()?;
        if !matches!(first, b'{' | b'[') {
            return None;
        }
        // A JSON head: an object key or an array of values right away.
        let rest = t[1..].trim_start();
        let looks = match first {
            b'{' => rest.starts_with('"') || rest.starts_with('}'),
            // `[00012] …` and `[2026-11-30 …]` are log prefixes, not arrays:
            // a number must be a JSON number followed by `,` or `]`.
            _ => rest.starts_with(['{', '[', '"', ']']) || NUMBER_HEAD.is_match(rest),
        };
        looks.then(|| "a JSON document".to_string())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let bytes = stdout(artifact);
        let mut facts = Facts::default();
        // A large array (the common big document) is validated and split
        // into its items in one parse; the whole-document parse would only
        // repeat it.
        // Each pass over its items releases the input behind it.
        if bytes.len() > LOSSLESS_BYTES && bytes.trim_ascii_start().starts_with(b"[") {
            let t: &[u8] = &bytes;
            let mut behind = Behind::new(artifact, t);
            if let Some(items) = raw::array_elements_with(t, &mut |v| behind.passed(v)) {
                let c = collection::crush("", &items, None, false, &mut |v| behind.passed(v));
                facts.shape = Some((format!("{} in an array", plural_of(&c)), c.len as u64));
                facts.collections.push(c);
                facts.name("", &items, None);
                return graph(artifact, facts, true);
            }
        }
        let text = std::str::from_utf8(&bytes).ok();
        let parsed = match text.and_then(raw::document) {
            Some(doc) => {
                read_document(doc, &mut facts);
                if bytes.len() <= LOSSLESS_BYTES {
                    lossless(doc.get(), &mut facts);
                }
                true
            }
            None => text.is_some_and(|t| read_lines(t, &mut facts)),
        };
        graph(artifact, facts, parsed)
    }
}

/// The JSON text: stdout alone (stderr carries the tool's notes).
fn stdout(artifact: &Artifact) -> std::borrow::Cow<'_, [u8]> {
    if artifact
        .segments()
        .iter()
        .all(|s| s.stream == Stream::Stdout)
    {
        std::borrow::Cow::Borrowed(artifact.bytes())
    } else {
        std::borrow::Cow::Owned(artifact.stream_bytes(Stream::Stdout))
    }
}

/// Releases a mapped input behind a pass over items that are slices of
/// it: a large array is read three times (parse, statistics, reasons), and
/// none of them needs what it has passed to stay resident.
struct Behind<'a> {
    artifact: &'a Artifact,
    /// The input's text, when it is the artifact's own bytes (not stdout
    /// reassembled apart from stderr).
    base: Option<std::ops::Range<usize>>,
    done: usize,
}

impl<'a> Behind<'a> {
    fn new(artifact: &'a Artifact, text: &[u8]) -> Self {
        let whole = artifact.bytes().as_ptr_range();
        let mine = text.as_ptr_range();
        let base = (whole == mine).then_some(whole.start as usize..whole.end as usize);
        Behind {
            artifact,
            base,
            done: 0,
        }
    }

    /// `item` was read; a new pass starts over from the front.
    fn passed(&mut self, item: &RawValue) {
        let Some(base) = &self.base else { return };
        let start = (item.get().as_ptr() as usize).saturating_sub(base.start);
        let end = start + item.get().len();
        if start < self.done {
            self.done = start;
        }
        if end - self.done >= crate::artifact::SCAN_WINDOW {
            self.artifact.release(self.done..end);
            self.done = end;
        }
    }
}

#[derive(Default)]
struct Facts {
    items: Vec<EvidenceItem>,
    collections: Vec<Crushed>,
    /// Each list of records with a naming key: (its pointer, its names,
    /// the record that owns it when it is nested in one).
    named: Vec<(String, Names, Option<Owner>)>,
    /// (noun, n) for the header.
    shape: Option<(String, u64)>,
    lines: bool,
}

/// The record a nested list belongs to, named by the root list that
/// refers to it (`/workspace_members` → `/packages/44`).
struct Owner {
    name: String,
    by: String,
}

impl Facts {
    /// Names the records of the list at `pointer` when a key names them.
    fn name(&mut self, pointer: &str, items: &[&RawValue], owner: Option<Owner>) {
        if let Some(n) = names::of(items) {
            self.named.push((pointer.to_string(), n, owner));
        }
    }
}

fn field(identity: &str, role: &str) -> EvidenceItem {
    let mut item = EvidenceItem::new(ItemKind::Field, Severity::Info, identity);
    item.fields.insert("role".into(), role.into());
    item
}

fn read_document(doc: &RawValue, facts: &mut Facts) {
    match Kind::of(doc) {
        Kind::Array => read_array(raw::elements(doc).unwrap_or_default(), facts),
        Kind::Object => {
            let entries = raw::entries(doc).unwrap_or_default();
            facts.shape = Some(("keys in an object".into(), entries.len() as u64));
            for (k, v) in &entries {
                let p = format!("/{}", raw::escape(k));
                if let Some(text) = raw::scalar_text(v) {
                    let mut item = field(&p, "identity");
                    item.fields
                        .insert("value".into(), crate::words::clip_chars(&text, 100));
                    facts.items.push(item);
                } else if DEPENDENCY_KEYS.contains(&k.as_str()) && Kind::of(v) == Kind::Object {
                    dependencies(&p, v, facts);
                }
            }
            walk(&entries, "", COLLECTION_DEPTH, facts);
            members(doc, &entries, facts);
        }
        _ => facts.shape = Some(("scalar".into(), 1)),
    }
}

fn read_array(items: Vec<&RawValue>, facts: &mut Facts) {
    let c = collection::crush("", &items, None, false, &mut |_| {});
    facts.shape = Some((format!("{} in an array", plural_of(&c)), c.len as u64));
    facts.collections.push(c);
    facts.name("", &items, None);
}

/// Lists nested in the document's own records: a short root list of
/// strings (`workspace_members`) whose every value is held by exactly one
/// record of a collection (`/packages/*/id`) picks those records out, and
/// each list of records inside them that refers to that collection's
/// records (`/packages/44/dependencies`: its names are package names) is
/// named like a collection. What a document says is its own is what a
/// reader asks about first: cargo's direct dependencies are these.
fn members(doc: &RawValue, entries: &[(String, &RawValue)], facts: &mut Facts) {
    // (the record's pointer, its name, the root list naming it, its collection)
    let mut owned: Vec<(String, String, String, usize)> = Vec::new();
    for (k, v) in entries {
        let Some(refs) = raw::elements(v) else { continue };
        if refs.is_empty()
            || refs.len() > MEMBERS_MAX
            || refs.iter().any(|r| Kind::of(r) != Kind::String)
        {
            continue;
        }
        for (ci, c) in facts.collections.iter().enumerate().filter(|(_, c)| !c.keyed) {
            let found: Option<Vec<usize>> = c
                .fields
                .iter()
                .filter(|f| f.present == c.len && f.distinct() == c.len)
                .find_map(|f| {
                    refs.iter()
                        .map(|r| f.only_item_with(r.get()))
                        .collect::<Option<Vec<usize>>>()
                });
            for i in found.into_iter().flatten() {
                let ptr = format!("{}/{i}", c.pointer);
                let name = facts
                    .named
                    .iter()
                    .find(|(p, _, _)| *p == c.pointer)
                    .and_then(|(_, n, _)| n.records.get(i))
                    .map_or_else(|| ptr.clone(), |r| r.name.clone());
                if !owned.iter().any(|(p, _, _, _)| *p == ptr) {
                    owned.push((ptr, name, format!("/{}", raw::escape(k)), ci));
                }
            }
        }
    }
    for (ptr, name, by, ci) in owned {
        let Some(record) = raw::pointer(doc, &ptr) else {
            continue;
        };
        for (k, v) in raw::entries(record).unwrap_or_default() {
            let Some(items) = raw::elements(v).filter(|i| !i.is_empty()) else {
                continue;
            };
            let Some(list) = names::of(&items) else {
                continue;
            };
            // A list of references: most of its names are values the
            // collection's records hold (dependencies are packages; a
            // package's build targets are not).
            let fields = &facts.collections[ci].fields;
            let held = |key: &str| {
                let quoted = serde_json::to_string(key).unwrap_or_default();
                fields.iter().any(|f| f.holds(&quoted) || f.holds(key))
            };
            let refs = list.records.iter().filter(|r| held(&r.key)).count();
            if refs * 2 > list.records.len() {
                let owner = Owner {
                    name: name.clone(),
                    by: by.clone(),
                };
                let p = format!("{ptr}/{}", raw::escape(&k));
                facts.named.push((p, list, Some(owner)));
            }
        }
    }
}


/// Collections under an object: arrays, and objects whose values are all
/// objects (`name → record`); other objects are walked into.
fn walk(entries: &[(String, &RawValue)], prefix: &str, depth: usize, facts: &mut Facts) {
    for (k, v) in entries {
        let p = format!("{prefix}/{}", raw::escape(k));
        let lower = k.to_ascii_lowercase();
        let all_bad = rules::ERROR_KEYS.contains(&lower.as_str());
        match Kind::of(v) {
            Kind::Array => {
                let items = raw::elements(v).unwrap_or_default();
                facts
                    .collections
                    .push(collection::crush(&p, &items, None, all_bad, &mut |_| {}));
                facts.name(&p, &items, None);
            }
            Kind::Object => {
                let inner = raw::entries(v).unwrap_or_default();
                let objects = inner
                    .iter()
                    .filter(|(_, x)| Kind::of(x) == Kind::Object)
                    .count();
                if inner.len() >= KEYED_MIN && objects == inner.len() {
                    let (keys, items): (Vec<String>, Vec<&RawValue>) = inner.iter().cloned().unzip();
                    facts
                        .collections
                        .push(collection::crush(&p, &items, Some(&keys), all_bad, &mut |_| {}));
                } else if depth > 1 {
                    walk(&inner, &p, depth - 1, facts);
                }
            }
            _ => {}
        }
    }
}

/// `name@version` of each direct dependency (npm's `dependencies`).
fn dependencies(p: &str, deps: &RawValue, facts: &mut Facts) {
    let mut list = Vec::new();
    for (name, v) in raw::entries(deps).unwrap_or_default() {
        let version = raw::entries(v)
            .and_then(|e| e.into_iter().find(|(k, _)| k == "version"))
            .and_then(|(_, v)| raw::scalar_text(v));
        list.push(match version {
            Some(ver) => format!("{name}@{ver}"),
            None => name,
        });
    }
    let mut item = field(p, "dependencies");
    item.fields.insert("count".into(), list.len().to_string());
    item.fields.insert("value".into(), list.join(", "));
    facts.items.push(item);
}

fn lossless(doc: &str, facts: &mut Facts) {
    let min = raw::minify(doc);
    // Run-time check: the minified text must be the same value, else the
    // lossless tier is not offered.
    if min.len() < doc.trim().len() && raw::same_value(doc, &min) {
        let mut item = field("", "lossless");
        item.fields.insert("value".into(), min);
        facts.items.push(item);
    }
}

/// JSON Lines: every non-blank line one document; false when any is not.
fn read_lines(text: &str, facts: &mut Facts) -> bool {
    let mut items = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match raw::document(line) {
            Some(doc) => items.push(doc),
            None => return false,
        }
    }
    if items.len() < 2 {
        return false;
    }
    facts.lines = true;
    let c = collection::crush("", &items, None, false, &mut |_| {});
    facts.shape = Some(("records".into(), c.len as u64));
    facts.collections.push(c);
    facts.name("", &items, None);
    true
}

fn plural_of(c: &Crushed) -> String {
    match c.kinds.as_slice() {
        [(k, _)] => format!("{}s", k.word()),
        _ => "items".into(),
    }
}

fn graph(artifact: &Artifact, mut facts: Facts, parsed: bool) -> (EvidenceGraph, CoverageReceipt) {
    let mut anomalies = 0u64;
    let lines = facts.lines;
    let mut items = std::mem::take(&mut facts.items);
    // The document's own records' lists first: they are what it depends on.
    facts.named.sort_by_key(|(_, _, owner)| owner.is_none());
    for (pointer, names, owner) in std::mem::take(&mut facts.named) {
        let owner = owner.map(|o| (o.name, o.by));
        names::items(&pointer, &names, owner, &mut items);
    }
    for c in &facts.collections {
        items.push(collection_item(c));
        for f in &c.fields {
            items.push(stats_item(c, f));
        }
        for (kept, severity) in c
            .anomalies
            .iter()
            .map(|k| (k, Severity::Warning))
            .chain(c.samples.iter().map(|k| (k, Severity::Info)))
        {
            let mut item = EvidenceItem::new(
                ItemKind::Record,
                severity,
                format!("{}/{}", c.pointer, kept.token),
            );
            if !kept.reasons.is_empty() {
                item.summary = Some(kept.reasons.join("; "));
                anomalies += 1;
            }
            item.fields.insert("collection".into(), c.pointer.clone());
            if let Some(t) = c.texts.get(&kept.index) {
                item.fields.insert("json".into(), t.clone());
            }
            items.push(item);
        }
    }
    let mut counts = Vec::new();
    if let Some((noun, n)) = facts.shape.take() {
        counts.push((noun, n));
    }
    if anomalies > 0 {
        counts.push(("flagged".to_string(), anomalies));
    }
    // A document that parses attests its own end; JSON Lines cut at a line
    // boundary read whole, so without an exit status they are not OK.
    let outcome = match artifact.exit {
        Exit::Signal(_) => Outcome::Interrupted,
        Exit::Code(c) if c != 0 => Outcome::Error,
        _ if !parsed => Outcome::Unknown,
        Exit::Unknown if lines => Outcome::Unknown,
        _ => Outcome::Ok,
    };
    let mut receipt = CoverageReceipt::new(artifact.line_count() as u64);
    receipt.items_parsed = anomalies;
    receipt.blocks_parsed = facts.collections.len() as u64;
    receipt.truncated = artifact.truncated;
    if !parsed {
        receipt.lines_unmatched = artifact.line_count() as u64;
        receipt.precision = Precision::Degraded("not a JSON document nor JSON Lines".into());
    }
    let graph = EvidenceGraph {
        reader: crate::evidence::Reader::family(if facts.lines { "jsonl" } else { "json" }),
        outcome,
        counts,
        items,
        conclusion: Vec::new(),
    };
    (graph, receipt)
}

fn collection_item(c: &Crushed) -> EvidenceItem {
    let mut item = field(
        if c.pointer.is_empty() {
            "/"
        } else {
            &c.pointer
        },
        "collection",
    );
    item.fields.insert("length".into(), c.len.to_string());
    let kinds: Vec<String> = c
        .kinds
        .iter()
        .map(|(k, n)| format!("{} ×{n}", k.word()))
        .collect();
    item.fields.insert("kinds".into(), kinds.join(", "));
    if c.keyed {
        item.fields.insert("keyed".into(), "true".into());
    }
    if let Some(v) = &c.scalars {
        item.fields.insert("values".into(), v.clone());
    }
    // The items' own keys in first-seen order; a nested object's key is
    // present as often as its most frequent field.
    let mut top: Vec<(&str, usize)> = Vec::new();
    for f in &c.fields {
        let key = f.path.split('/').next().unwrap_or(&f.path);
        match top.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = e.1.max(f.present),
            None => top.push((key, f.present)),
        }
    }
    let keys: Vec<String> = top
        .iter()
        .map(|(k, present)| {
            if *present == c.len {
                k.to_string()
            } else {
                format!("{k} ({present})")
            }
        })
        .collect();
    if !keys.is_empty() {
        item.fields.insert("keys".into(), keys.join(", "));
    }
    item
}

fn stats_item(c: &Crushed, f: &collection::FieldStats) -> EvidenceItem {
    let mut item = field(&format!("{}/*/{}", c.pointer, f.path), "stats");
    item.fields.insert("present".into(), f.present.to_string());
    item.fields.insert("of".into(), c.len.to_string());
    let kinds: Vec<&str> = f.kinds.iter().map(|(k, _)| k.word()).collect();
    item.fields.insert("types".into(), kinds.join("|"));
    if let (Some(lo), Some(hi)) = (&f.min, &f.max) {
        item.fields.insert("min".into(), lo.clone());
        item.fields.insert("max".into(), hi.clone());
        let sum: f64 = f.numbers.iter().map(|(x, _)| x).sum();
        let mean = sum / f.numbers.len().max(1) as f64;
        item.fields.insert(
            "mean".into(),
            format!("{mean:.4}")
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string(),
        );
    }
    if let Some((lo, hi)) = f.lengths {
        item.fields.insert("lengths".into(), format!("{lo}–{hi}"));
    }
    if f.distinct() > 0 {
        let d = if f.distinct_capped {
            format!("≥{}", f.distinct())
        } else {
            f.distinct().to_string()
        };
        item.fields.insert("distinct".into(), d);
    }
    // Top values only where values repeat: the first three of a column of
    // unique values say nothing.
    if f.distinct() > 0 && !f.distinct_capped && (f.distinct() < f.present || f.present <= 3) {
        let top: Vec<String> = f
            .top(3)
            .into_iter()
            .map(|(v, n)| format!("{} ×{n}", crate::words::clip_chars(&v, 40)))
            .collect();
        item.fields.insert("top".into(), top.join(", "));
    }
    item
}

/// `ctx expand H --item POINTER`: the subtree a JSON pointer names, as the
/// document's own bytes (key order, number spelling and spacing kept). In
/// JSON Lines the first token is the record (0-based, blank lines skipped).
pub fn subtree(artifact: &Artifact, pointer: &str) -> Option<String> {
    let bytes = stdout(artifact);
    let text = std::str::from_utf8(&bytes).ok()?;
    // `/` names the root collection on digest lines: the whole document.
    let pointer = if pointer == "/" { "" } else { pointer };
    if let Some(doc) = raw::document(text) {
        return raw::pointer(doc, pointer).map(|v| v.get().to_string());
    }
    let records = || text.lines().filter(|l| !l.trim().is_empty());
    if pointer.is_empty() {
        // The records as one array.
        return Some(format!("[{}]", records().collect::<Vec<_>>().join(",")));
    }
    let rest = pointer.strip_prefix('/')?;
    let (first, tail) = rest.split_once('/').map_or((rest, ""), |(a, b)| (a, b));
    let index: usize = first.parse().ok()?;
    let line = records().nth(index)?;
    let doc = raw::document(line)?;
    let tail = if tail.is_empty() {
        String::new()
    } else {
        format!("/{tail}")
    };
    raw::pointer(doc, &tail).map(|v| v.get().to_string())
}
