//! log/v1 — server and application logs: nginx/Apache access logs
//! (combined or common), nginx error logs, PostgreSQL server logs, Python
//! `logging` output with its tracebacks, syslog and journalctl, structured
//! logs (a JSON object per line, or logfmt pairs, naming a level and a
//! message: their template is the message), and any log whose lines open
//! with a timestamp or a level, with the Java, Go, Rust and Node stack
//! traces printed among them. Logs arrive through `ctx pipe`
//! and `ctx digest FILE`, so the family is told by content alone.
//!
//! **Decision.** What went wrong in this log and how often: which errors
//! (with their stack traces), which endpoints failed, over what time, and
//! which statements wrote the bulk of it, so the reader knows what to
//! open, fix or grep for next.
//!
//! **Unsafe loss.** A level count that is not exact, an error, fatal,
//! panic, critical or exception event dropped or cut from its stack trace
//! without an address, an endpoint that answered 4xx/5xx left unnamed or
//! miscounted, or a digest that changes when only timestamps do.
//!
//! **Typed facts.** The header counts: lines (exact), requests by status
//! class (access logs), events by level, exceptions printed without a log
//! prefix. A `Period` item (`from`, `to` as the log wrote them). One error
//! `Diagnostic` per error event (level ERROR or worse, or an exception):
//! identity its template (the line after its timestamp, variable parts
//! abstracted), class its level, headline its first line, block the event
//! with its stack trace or continuation lines. One `Endpoint` per
//! `STATUS METHOD PATH` that answered 4xx/5xx, field `count`, `first`,
//! `last`. `SlowRequest` items, the slowest requests when the access log
//! carries a duration. `LogTemplate` items: every template with its exact
//! `count` and `first`/`last` line, in order of first occurrence.
//!
//! **Ladder.** VERBATIM (fits the budget) → DENSE (counts, time range,
//! failing endpoints, every error event whole — or, past the target, the
//! first of each error template whole and the others counted per template
//! with `--item TEMPLATE` — slowest requests, the templates by count while
//! the budget allows, the rest behind markers; error templates past the
//! budget named with their counts) → FLOOD (the error templates exceed
//! the budget: the rest counted behind `--items`; endpoints past it
//! counted by status).

use rustc_hash::FxHashMap as HashMap;

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome, Precision, Severity,
};

use super::{Profile, ProfileSpec, ReceiptGroup};

pub mod access;
pub mod shape;
pub mod structured;
pub mod template;

use shape::{Format, Level, Line};
use template::Clusters;

pub struct Log;

static SPEC: ProfileSpec = ProfileSpec::new("log/v1", "log", ReceiptGroup::Everyday);


/// The class of a log template item, and the `--items --code` filter
/// that lists the templates (`plan::log`).
pub const TEMPLATE_CODE: &str = "template";

/// A field of a template logged at warning level: such templates come
/// first among the templates by count (`plan::log`).
pub const WARNING_FIELD: &str = "warning";

/// Error events kept as items; further ones are counted by template only,
/// so memory stays bounded whatever the log holds.
pub const MAX_ERROR_ITEMS: usize = 10_000;
/// A field of the first error item when the log holds more error events
/// than [`MAX_ERROR_ITEMS`]: how many in all, so that the plan can mark its
/// counts as the lower bounds they are.
pub const ERROR_EVENTS_FIELD: &str = "error_events";
/// Distinct failing endpoints kept apart.
pub const MAX_ENDPOINTS: usize = 10_000;
/// How many of the slowest requests are kept.
pub const SLOWEST: usize = 5;

/// The header's words for requests by status class, 1xx to 5xx (a count
/// word is lowercase words only).
pub const STATUS_CLASSES: [&str; 5] = [
    "informational",
    "successful",
    "redirected",
    "client errors",
    "server errors",
];

/// Head lines sniffing reads at most.
const SNIFF_LINES: usize = 20;

impl Profile for Log {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_content(&self, head: &str) -> Option<String> {
        let format = sniff(head)?;
        Some(format!("{} lines", format.name()))
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut r = Reader::default();
        artifact.for_each_line(|n, line| r.line(n, super::window(line)));
        r.finish();
        graph(artifact, r)
    }
}

/// The head is a log when its first line opens an event, at least three
/// of its complete lines do, and they are no fewer than the lines that
/// neither open an event nor continue one by indentation (a supervisor's
/// log holds its programs' own output): the format most of them share.
pub fn sniff(head: &str) -> Option<Format> {
    let mut lines: Vec<&str> = head.lines().collect();
    // The head is cut at a byte count: its last line may be partial.
    if head.len() >= crate::profiles::SNIFF_BYTES && !head.ends_with('\n') {
        lines.pop();
    }
    // The first line opens an event: a log starts with one.
    let first = lines.iter().find(|l| !l.trim().is_empty())?;
    if !matches!(shape::read(first.as_bytes()), Line::Start { .. }) {
        return None;
    }
    let mut formats: Vec<Format> = Vec::new();
    let mut other = 0;
    for l in lines.iter().take(SNIFF_LINES) {
        match shape::read(l.as_bytes()) {
            Line::Start { format, .. } => formats.push(format),
            Line::Exception => {}
            Line::Continuation if l.starts_with([' ', '\t']) || l.is_empty() => {}
            Line::Continuation => other += 1,
        }
    }
    if formats.len() < 3 || formats.len() < other {
        return None;
    }
    // A bare level word opening lines (`INFO x`) is how many tools print
    // progress: a log needs timestamps or a known format.
    if formats.iter().all(|f| *f == Format::Generic) {
        let stamped = lines
            .iter()
            .take(SNIFF_LINES)
            .filter(|l| {
                matches!(
                    shape::read(l.as_bytes()),
                    Line::Start { stamp: Some(_), .. }
                )
            })
            .count();
        if stamped * 2 < formats.len() {
            return None;
        }
    }
    Some(majority(&formats))
}

fn majority(formats: &[Format]) -> Format {
    let mut counts: Vec<(Format, usize)> = Vec::new();
    for f in formats {
        match counts.iter_mut().find(|c| c.0 == *f) {
            Some(c) => c.1 += 1,
            None => counts.push((*f, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    counts.first().map_or(Format::Generic, |c| c.0)
}

/// An event being read: its lines so far.
struct Event {
    first: usize,
    last: usize,
    level: Option<Level>,
    /// A stack trace that opened without a log prefix.
    exception: bool,
    /// The event's template (the first line after its timestamp).
    identity: String,
}

impl Event {
    fn is_error(&self) -> bool {
        self.exception || self.level.is_some_and(Level::is_error)
    }
}

/// A stamped line: its number and its stamp's byte range in the line.
type Stamped = (usize, usize, usize);

/// The text of a stamp, read back from the line it was found on (the
/// line as the reader saw it is a prefix of the artifact's line).
fn stamp_text(artifact: &Artifact, (n, from, to): Stamped) -> String {
    let line = artifact.line(n);
    String::from_utf8_lossy(line.get(from..to).unwrap_or_default()).into_owned()
}

/// One failing endpoint's tally.
struct Tally {
    count: u64,
    first: usize,
    last: usize,
}

#[derive(Default)]
struct Reader {
    clusters: Clusters,
    formats: HashMap<Format, u64>,
    levels: HashMap<Level, u64>,
    exceptions: u64,
    current: Option<Event>,
    errors: Vec<Event>,
    /// Error events past [`MAX_ERROR_ITEMS`].
    errors_uncounted: u64,
    /// Requests by status class (index 1 = 1xx … 5 = 5xx).
    classes: [u64; 6],
    endpoints: HashMap<(u16, String, String), Tally>,
    endpoint_order: Vec<(u16, String, String)>,
    endpoints_dropped: u64,
    slowest: Vec<(f64, usize, String)>,
    /// The first and last stamped lines with their stamps' byte ranges
    /// (the text is read back once, not copied per line).
    period: Option<(Stamped, Stamped)>,
    /// Lines before the first event.
    unmatched: u64,
    scratch: Vec<u8>,
    /// A structured line's message without its escapes.
    unescaped: Vec<u8>,
}

impl Reader {
    fn line(&mut self, n: usize, raw: &[u8]) {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        match shape::read(raw) {
            Line::Start {
                format,
                level,
                stamp,
                message,
            } => {
                *self.formats.entry(format).or_insert(0) += 1;
                if let Some(l) = level {
                    *self.levels.entry(l).or_insert(0) += 1;
                }
                // A structured line's message is its statement, read back
                // without the quoting's escapes.
                let mut unescaped = std::mem::take(&mut self.unescaped);
                let body = match (format, stamp, message) {
                    (_, _, Some((from, to))) => {
                        structured::unescape_into(&raw[from..to], &mut unescaped);
                        unescaped.as_slice()
                    }
                    (Format::Access, _, _) | (_, None, _) => raw,
                    (_, Some((_, end)), _) => raw[end..].trim_ascii_start(),
                };
                if let Some((from, to)) = stamp {
                    self.stamp((n, from, to));
                }
                if format == Format::Access
                    && let Some((_, close)) = stamp
                {
                    self.request(n, raw, close);
                }
                self.clusters.add(n, body, level == Some(Level::Warning));
                self.open(n, level, false, body);
                self.unescaped = unescaped;
            }
            Line::Exception => {
                let joins = self.current.as_ref().is_some_and(Event::is_error);
                if joins {
                    self.extend(n);
                } else {
                    self.exceptions += 1;
                    self.clusters.add(n, raw, false);
                    self.open(n, None, true, raw);
                }
            }
            Line::Continuation => {
                if self.current.is_some() {
                    self.extend(n);
                } else if !raw.is_empty() {
                    self.unmatched += 1;
                }
            }
        }
    }

    fn stamp(&mut self, stamped: Stamped) {
        match &mut self.period {
            None => self.period = Some((stamped, stamped)),
            Some(p) => p.1 = stamped,
        }
    }

    fn request(&mut self, n: usize, raw: &[u8], close: usize) {
        let Some(req) = access::read(raw, close) else {
            return;
        };
        self.classes[usize::from(req.status / 100)] += 1;
        if let Some(s) = req.seconds {
            self.slow(n, s, req.method, req.path);
        }
        if req.status < 400 {
            return;
        }
        let key = (req.status, req.method.to_string(), req.path.to_string());
        if let Some(t) = self.endpoints.get_mut(&key) {
            t.count += 1;
            t.last = n;
        } else if self.endpoints.len() < MAX_ENDPOINTS {
            self.endpoint_order.push(key.clone());
            self.endpoints.insert(
                key,
                Tally {
                    count: 1,
                    first: n,
                    last: n,
                },
            );
        } else {
            self.endpoints_dropped += 1;
        }
    }

    /// Keeps the `SLOWEST` longest requests, the earlier one first on ties.
    fn slow(&mut self, n: usize, seconds: f64, method: &str, path: &str) {
        if self.slowest.len() == SLOWEST && self.slowest.last().is_some_and(|s| s.0 >= seconds) {
            return;
        }
        self.slowest.push((seconds, n, format!("{method} {path}")));
        self.slowest
            .sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        self.slowest.truncate(SLOWEST);
    }

    fn open(&mut self, n: usize, level: Option<Level>, exception: bool, body: &[u8]) {
        self.close();
        let error = exception || level.is_some_and(Level::is_error);
        let identity = if error {
            template::abstract_into(body, &mut self.scratch);
            String::from_utf8_lossy(&self.scratch).trim().to_string()
        } else {
            String::new()
        };
        self.current = Some(Event {
            first: n,
            last: n,
            level,
            exception,
            identity,
        });
    }

    fn extend(&mut self, n: usize) {
        if let Some(e) = &mut self.current {
            e.last = n;
        }
    }

    fn close(&mut self) {
        let Some(e) = self.current.take() else { return };
        if !e.is_error() {
            return;
        }
        if self.errors.len() < MAX_ERROR_ITEMS {
            self.errors.push(e);
        } else {
            self.errors_uncounted += 1;
        }
    }

    fn finish(&mut self) {
        self.close();
    }
}

fn graph(artifact: &Artifact, r: Reader) -> (EvidenceGraph, CoverageReceipt) {
    let total = artifact.line_count();
    let format_counts: Vec<Format> = {
        let mut f: Vec<(Format, u64)> = r.formats.iter().map(|(k, v)| (*k, *v)).collect();
        f.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        f.into_iter().map(|(k, _)| k).collect()
    };
    let format = format_counts.first().copied().unwrap_or(Format::Generic);
    let mut counts = vec![("lines".to_string(), total as u64)];
    let requests: u64 = r.classes.iter().sum();
    if requests > 0 {
        counts.push(("requests".to_string(), requests));
        for (class, &n) in r.classes.iter().enumerate().skip(1) {
            if n > 0 {
                counts.push((STATUS_CLASSES[class - 1].to_string(), n));
            }
        }
    }
    for level in Level::ALL {
        if let Some(&n) = r.levels.get(&level) {
            counts.push((level.count_word().to_string(), n));
        }
    }
    if r.exceptions > 0 {
        counts.push(("exceptions".to_string(), r.exceptions));
    }

    let mut items = Vec::new();
    if let Some((first_stamp, last_stamp)) = r.period {
        let (first, last) = (&first_stamp.0, &last_stamp.0);
        let (from, to) = (
            stamp_text(artifact, first_stamp),
            stamp_text(artifact, last_stamp),
        );
        let mut item = EvidenceItem::new(ItemKind::Period, Severity::Info, "period");
        item.headline = Some(Span::line(*first));
        item.block = Some(Span::new(*first, *last));
        item.fields.insert("from".into(), from);
        item.fields.insert("to".into(), to);
        items.push(item);
    }
    for key in &r.endpoint_order {
        let t = &r.endpoints[key];
        let (status, method, path) = key;
        let severity = if *status >= 500 {
            Severity::Error
        } else {
            Severity::Warning
        };
        let mut item = EvidenceItem::new(
            ItemKind::Endpoint,
            severity,
            format!("{status} {method} {path}"),
        );
        item.class = Some(status.to_string());
        item.headline = Some(Span::line(t.first));
        item.fields.insert("count".into(), t.count.to_string());
        item.fields.insert("first".into(), t.first.to_string());
        item.fields.insert("last".into(), t.last.to_string());
        items.push(item);
    }
    for (i, e) in r.errors.iter().enumerate() {
        let mut item = EvidenceItem::new(ItemKind::Diagnostic, Severity::Error, e.identity.clone());
        if i == 0 && r.errors_uncounted > 0 {
            let all = r.errors.len() as u64 + r.errors_uncounted;
            item.fields.insert(ERROR_EVENTS_FIELD.into(), all.to_string());
        }
        item.class = Some(match e.level {
            Some(l) => l.word().to_string(),
            None => "exception".to_string(),
        });
        item.headline = Some(Span::line(e.first));
        item.block = Some(Span::new(e.first, e.last));
        items.push(item);
    }
    for (seconds, n, what) in &r.slowest {
        let mut item = EvidenceItem::new(ItemKind::SlowRequest, Severity::Info, what.clone());
        item.headline = Some(Span::line(*n));
        item.fields.insert("seconds".into(), format!("{seconds}"));
        items.push(item);
    }
    for c in &r.clusters.list {
        let mut item = EvidenceItem::new(ItemKind::LogTemplate, Severity::Info, c.text.clone());
        item.class = Some(TEMPLATE_CODE.to_string());
        item.headline = Some(Span::line(c.first));
        item.fields.insert("count".into(), c.count.to_string());
        item.fields.insert("first".into(), c.first.to_string());
        item.fields.insert("last".into(), c.last.to_string());
        if c.warning {
            item.fields.insert(WARNING_FIELD.into(), "true".into());
        }
        items.push(item);
    }

    let failing = !r.errors.is_empty() || r.classes[5] > 0;
    let outcome = match artifact.exit {
        Exit::Signal(_) => Outcome::Interrupted,
        Exit::Code(c) if c != 0 => Outcome::Error,
        _ if failing => Outcome::Error,
        _ => Outcome::Ok,
    };
    let mut receipt = CoverageReceipt::new(total as u64);
    receipt.items_parsed = (r.errors.len() + r.endpoint_order.len()) as u64;
    receipt.blocks_parsed = r.errors.len() as u64;
    receipt.lines_unmatched = r.unmatched;
    receipt.truncated = artifact.truncated;
    let mut degraded = Vec::new();
    if r.errors_uncounted > 0 {
        degraded.push(format!(
            "{} error events past the first {MAX_ERROR_ITEMS} are counted by template only",
            r.errors_uncounted
        ));
    }
    if r.endpoints_dropped > 0 {
        degraded.push(format!(
            "{} failing requests past {MAX_ENDPOINTS} distinct endpoints are counted by status class only",
            r.endpoints_dropped
        ));
    }
    if r.clusters.others > 0 {
        degraded.push(format!(
            "{} lines past {} distinct templates are not clustered",
            r.clusters.others,
            template::MAX_TEMPLATES
        ));
    }
    if !degraded.is_empty() {
        receipt.precision = Precision::Degraded(degraded.join("; "));
    }
    let graph = EvidenceGraph {
        reader: crate::evidence::Reader::family(format.name()),
        outcome,
        counts,
        items,
        conclusion: Vec::new(),
    };
    (graph, receipt)
}
