//! `ctx expand HASH`: bring back archived output, whole or zoomed.
//!
//! Every view but `--all` is bounded (`store::zoom`: a line and byte cap
//! with exactly one marker naming the rest). Expand writes straight to
//! stdout: its output is never digested or archived again.

use std::io::{self, Write};

use regex::bytes::Regex;

use crate::artifact::Stream;
use crate::format::{Format, Formatting};
use crate::render::counted;
use crate::render::formats::items::{Filter, Listing};
use crate::store::zoom::{Zoom, parse_range};
use crate::store::{self, AnyStore, ArchiveKey, Reader, RecordMeta, Store, StoreError, key};
use crate::{ledger, tokens};

use super::store::when;

const EXIT_NOT_FOUND: i32 = 1;
const EXIT_USAGE: i32 = super::EXIT_CTX_ERROR;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamArg {
    Both,
    Stdout,
    Stderr,
}

/// Arguments of `ctx expand`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The record's hash as a digest names it (12 hex), or any unique prefix of 6 or more.
    #[arg(value_name = "HASH")]
    pub hash: String,
    /// Lines A-B (1-based, inclusive); `A` alone is one line, `A-` runs to the end.
    #[arg(long, value_name = "A-B")]
    pub lines: Option<String>,
    /// Only lines matching RE, numbered like `grep -n` (N: match, N- context).
    #[arg(long, value_name = "RE")]
    pub grep: Option<String>,
    /// Lines of context around each --grep match.
    #[arg(long, short = 'C', value_name = "N", requires = "grep")]
    pub context: Option<usize>,
    /// With --grep: read the whole record to say how many result lines the
    /// page left out (without it the search stops at the end of its page).
    #[arg(long, requires = "grep")]
    pub count: bool,
    /// both: the interleaved view; stdout or stderr: that stream alone, numbered on its own.
    #[arg(long, value_enum, default_value_t = StreamArg::Both)]
    pub stream: StreamArg,
    /// The whole record (or stream) byte for byte, with no cap.
    #[arg(long, conflicts_with_all = ["lines", "grep", "item", "items"])]
    pub all: bool,
    /// One census item's whole block, by the identity a digest named.
    #[arg(long, value_name = "ID", conflicts_with_all = ["lines", "grep", "all", "items", "details"])]
    pub item: Option<String>,
    /// The complete census, one identity per line (never capped), or with
    /// --code/--file/--severity every item that matches.
    #[arg(long, conflicts_with_all = ["lines", "grep", "all", "details"])]
    pub items: bool,
    /// With --items: only this code or failure class (E0308, no-unused-vars, AssertionError).
    #[arg(long, value_name = "CODE", requires = "items")]
    pub code: Option<String>,
    /// With --items: only items located in this file (a path or its tail).
    #[arg(long, value_name = "FILE", requires = "items")]
    pub file: Option<String>,
    /// With --items: only this severity.
    #[arg(
        long,
        value_name = "SEVERITY",
        requires = "items",
        value_parser = clap::builder::PossibleValuesParser::new(crate::zoom::SEVERITY_WORDS)
    )]
    pub severity: Option<String>,
    /// The whole block of every census item, each under a `[ctx] ---` line.
    #[arg(long, conflicts_with_all = ["lines", "grep", "all"])]
    pub details: bool,
    /// With --items: `text`, `json` (a `ctx.items/v1` document),
    /// `markdown` (docs/formats.md), or the listed items as `sarif`
    /// (diagnostics) or `junit` (test failures) (docs/ci.md).
    #[arg(long, value_enum, default_value_t = Format::Text, value_name = "FORMAT", requires = "items")]
    pub format: Format,
    /// With --items --format markdown: link each file to URL/<path>#L<line>.
    #[arg(long, value_name = "URL", requires = "items")]
    pub link_base: Option<String>,
}

/// How many census blocks `--details` prints before pointing at `--items`.
const DETAILS_CAP: usize = 40;

pub fn execute(args: Args) -> anyhow::Result<i32> {
    let prefix = match key::parse_prefix(&args.hash) {
        Ok(p) => p,
        Err(why) => return usage(&why),
    };
    let range = match args.lines.as_deref().map(parse_range).transpose() {
        Ok(r) => r,
        Err(why) => return usage(&why),
    };
    let grep = match args.grep.as_deref().map(Regex::new).transpose() {
        Ok(g) => g,
        Err(e) => return usage(&format!("--grep: {e}")),
    };
    let (store, key) = match open_record(&prefix)? {
        Ok(found) => found,
        Err(code) => return Ok(code),
    };
    match show(&store, key, &prefix, range, grep, args) {
        Err(e) => match e.downcast::<StoreError>() {
            Ok(StoreError::Damaged { why, .. }) => Ok(damaged(&store, &key, &why)),
            Ok(StoreError::Unavailable(why)) => {
                // Mid-read: a chunk's statement met the deadline. What
                // was printed (`--all` streams) is the start of the
                // output, never a byte that is not its own.
                eprintln!(
                    "ctx: the shared store became unreachable while record {} was read ({why}); \
                     what was printed is incomplete: run the same ctx expand when the server answers",
                    key.short()
                );
                Ok(EXIT_USAGE)
            }
            Ok(other) => Err(other.into()),
            Err(e) => Err(e),
        },
        ok => ok,
    }
}

/// A record that failed a check: said once, quarantined (so that the next
/// identical run archives it afresh), exit 1.
fn damaged(store: &dyn Store, key: &ArchiveKey, why: &str) -> i32 {
    eprintln!("ctx: record {} is damaged ({why})", key.short());
    match store.quarantine(key, why) {
        Ok(()) => eprintln!(
            "ctx: it was removed from the store; running the command again archives it afresh"
        ),
        Err(e) => eprintln!("ctx: it could not be quarantined: {e}"),
    }
    EXIT_NOT_FOUND
}

/// Prints the view `args` asks for of a resolved record.
fn show(
    store: &AnyStore,
    key: ArchiveKey,
    prefix: &str,
    range: Option<(u64, u64)>,
    grep: Option<Regex>,
    args: Args,
) -> anyhow::Result<i32> {
    let store: &dyn Store = store;
    let meta = match store.meta(&key) {
        Ok(m) => m,
        Err(StoreError::NotFound(_)) => {
            eprintln!("ctx: no record {prefix} (never archived here, or removed over 30 days ago)");
            return Ok(EXIT_NOT_FOUND);
        }
        Err(e) => return Err(e.into()),
    };
    let stream = match args.stream {
        StreamArg::Both => None,
        StreamArg::Stdout => Some(Stream::Stdout),
        StreamArg::Stderr => Some(Stream::Stderr),
    };
    let mut reader = view(store, &meta, stream)?;
    if args.item.is_some() || args.items || args.details {
        let zoom = Zoom {
            key,
            stream: None,
            grep: None,
            count: false,
        };
        let printed = census_zoom(store, &mut reader, &zoom, &args)?;
        let _ = store.touch(&key);
        if let Some(tokens) = printed {
            ledger::record_expand(&key, tokens);
            return Ok(0);
        }
        return Ok(EXIT_NOT_FOUND);
    }
    let zoom = Zoom {
        key,
        stream,
        grep: grep.map(|re| (re, args.grep.unwrap_or_default(), args.context.unwrap_or(0))),
        count: args.count,
    };

    let stdout = io::stdout();
    let mut out = stdout.lock();
    let printed_tokens = if args.all {
        // The whole record is checked against its key. When the bytes
        // printed are the record's own and every chunk has a checksum,
        // that happens while printing (each chunk is checked before it is
        // written, the key at the end); otherwise (a reassembled stream, a
        // record from before checksums) a full pass first, so that damaged
        // bytes are never printed.
        let inline = meta.checksummed && reader.len() == meta.raw_bytes;
        if !inline {
            store::verify::record(store, &meta)?;
        }
        let mut hasher = store::verify::Hasher::default();
        let mut tokens = 0;
        let mut failed = None;
        reader.copy_range(0, reader.len(), &mut |bytes| {
            hasher.update(bytes);
            tokens += tokens::estimate(bytes);
            out.write_all(bytes).map_err(|e| failed = Some(e)).is_ok()
        })?;
        let failed = out.flush().err().or(failed);
        if inline && failed.is_none() {
            hasher.check(&meta)?;
        }
        finish(failed)?;
        tokens
    } else {
        let total = reader.line_count();
        let (first, last) = match range {
            None => (1, total),
            Some((a, b)) => (a, b.min(total)),
        };
        if range.is_some() && first > total {
            return usage(&format!(
                "line {first} is past the end: record {} has {}",
                key.short(),
                counted(total as usize, "lines")
            ));
        }
        let bytes = match &zoom.grep {
            Some(_) => zoom.grep_view(&mut reader, first, last),
            None => zoom.lines_view(&mut reader, first, last),
        }?;
        finish(out.write_all(&bytes).and_then(|()| out.flush()).err())?;
        tokens::estimate(&bytes)
    };
    let _ = store.touch(&key);
    ledger::record_expand(&key, printed_tokens);
    Ok(0)
}

/// `--item`, `--items`, `--details`: re-read the record with the profile
/// that digested it. Returns the tokens printed, or None when the item is
/// not in the record (after saying so).
fn census_zoom(
    store: &dyn Store,
    reader: &mut Reader,
    zoom: &Zoom,
    args: &Args,
) -> anyhow::Result<Option<usize>> {
    let artifact = store.load(&zoom.key)?;
    let (profile, graph, contract) = crate::zoom::evidence(&artifact)?;
    let mut bytes = Vec::new();
    if args.items {
        let filter = crate::zoom::ItemFilter {
            code: args.code.clone(),
            file: args.file.clone(),
            severity: args.severity.clone(),
        };
        let items = crate::zoom::selected(&contract, &graph, &filter);
        let lines: Vec<String> = items
            .iter()
            .map(|i| crate::zoom::listing_line(&artifact, i))
            .collect();
        let listing = Listing {
            artifact: &artifact,
            profile: profile.version(),
            key: &zoom.key,
            filter: Filter {
                code: filter.code.as_deref(),
                file: filter.file.as_deref(),
                severity: filter.severity.as_deref(),
            },
            items: &items,
            lines: &lines,
        };
        if let Some(why) = crate::pipeline::ci::refusal(args.format, profile.version()) {
            anyhow::bail!("{why}");
        }
        let formatting = Formatting {
            format: args.format,
            link_base: args.link_base.clone(),
            workspace: super::ci::workspace(&super::ci::Environment::current()),
            ..Formatting::default()
        };
        bytes = crate::render::formats::items::render(&formatting, &listing);
    } else if let Some(id) = &args.item
        && profile.family() == "json"
        && let Some(subtree) = crate::profiles::json::subtree(&artifact, id)
    {
        // A JSON pointer names any subtree, not only the census's records.
        bytes.extend_from_slice(subtree.as_bytes());
        bytes.push(b'\n');
    } else if let Some(id) = &args.item {
        match crate::zoom::item_spans(profile, &graph, id) {
            Ok(spans) => {
                for span in spans {
                    bytes.extend(zoom.lines_view(reader, span.first as u64, span.last as u64)?);
                }
            }
            Err(e) => {
                eprintln!("ctx: {e}");
                return Ok(None);
            }
        }
    } else {
        let blocks = crate::zoom::detail_spans(&contract, &graph);
        for (id, span) in blocks.iter().take(DETAILS_CAP) {
            bytes.extend_from_slice(format!("[ctx] --- {id}\n").as_bytes());
            bytes.extend(zoom.lines_view(reader, span.first as u64, span.last as u64)?);
        }
        if blocks.len() > DETAILS_CAP {
            let rest = blocks.len() - DETAILS_CAP;
            bytes.extend_from_slice(
                format!(
                    "[ctx] … {}: ctx expand {} --items, then --item ID for each\n",
                    counted(rest, "more blocks"),
                    zoom.key.short()
                )
                .as_bytes(),
            );
        }
    }
    let stdout = io::stdout();
    let mut out = stdout.lock();
    finish(out.write_all(&bytes).and_then(|()| out.flush()).err())?;
    Ok(Some(tokens::estimate(&bytes)))
}

/// The store and the record a hash prefix names, or the exit status after
/// saying why not: unknown, evicted or purged (1), ambiguous, with the candidates
/// listed (2). Shared by every verb that takes a record's hash.
pub(super) fn open_record(prefix: &str) -> anyhow::Result<Result<(AnyStore, ArchiveKey), i32>> {
    let not_found = || {
        eprintln!("ctx: no record {prefix} (never archived here, or removed over 30 days ago)");
        Ok(Err(EXIT_NOT_FOUND))
    };
    let store = match store::open_existing_to_read() {
        Ok(Some(store)) => store,
        Ok(None) => return not_found(),
        // The shared store cannot be reached: this machine's copy, if it
        // has one (a record the server did not take, or one archived
        // here before).
        Err(StoreError::Unavailable(why)) => return local_copy(prefix, Some(&why)),
        Err(e) => return Err(e.into()),
    };
    let key = match store.resolve(prefix) {
        Ok(k) => k,
        // Not on the server (yet): a record it did not take waits on
        // this machine until it is sent.
        Err(StoreError::NotFound(_)) if matches!(store, AnyStore::Postgres(_)) => {
            return local_copy(prefix, None);
        }
        Err(StoreError::Unavailable(why)) if matches!(store, AnyStore::Postgres(_)) => {
            return local_copy(prefix, Some(&why));
        }
        Err(StoreError::NotFound(_)) => return not_found(),
        Err(StoreError::Gone { key, why, gone_ms }) => {
            eprintln!("ctx: record {} was {why} ({})", key.short(), when(gone_ms));
            eprintln!("ctx: running the command again archives it afresh");
            return Ok(Err(EXIT_NOT_FOUND));
        }
        Err(StoreError::Damaged {
            key: Some(key),
            why,
        }) => {
            eprintln!("ctx: record {} is damaged ({why})", key.short());
            eprintln!("ctx: running the command again archives it afresh");
            return Ok(Err(EXIT_NOT_FOUND));
        }
        Err(StoreError::Ambiguous { prefix, candidates }) => {
            eprintln!(
                "ctx: {prefix} is ambiguous; it starts {} records:",
                candidates.len()
            );
            for c in &candidates {
                eprintln!("  {}  {}  {}", c.key.short(), when(c.used_ms), c.command);
            }
            eprintln!("ctx: give more digits of the hash");
            return Ok(Err(EXIT_USAGE));
        }
        Err(e) => return Err(e.into()),
    };
    Ok(Ok((store, key)))
}

/// The record in this machine's own store, when the shared one does not
/// have it or cannot be reached (`unreachable`: why). Without a local
/// copy: "no record" when the server answered, else "unreachable" (exit
/// 2), which says that the record may well exist.
fn local_copy(
    prefix: &str,
    unreachable: Option<&str>,
) -> anyhow::Result<Result<(AnyStore, ArchiveKey), i32>> {
    let local = store::SqliteStore::open_existing_to_read().ok().flatten();
    if let Some(local) = local
        && let Ok(key) = local.resolve(prefix)
    {
        if let Some(why) = unreachable {
            eprintln!("ctx: the shared store is unreachable ({why}); this is this machine's copy");
        }
        return Ok(Ok((AnyStore::Sqlite(local), key)));
    }
    match unreachable {
        Some(why) => {
            eprintln!(
                "ctx: the shared store is unreachable ({why}); record {prefix} is not on this \
                 machine (try again when the server answers)"
            );
            Ok(Err(EXIT_USAGE))
        }
        None => {
            eprintln!("ctx: no record {prefix} (never archived here, or removed over 30 days ago)");
            Ok(Err(EXIT_NOT_FOUND))
        }
    }
}

fn usage(why: &str) -> anyhow::Result<i32> {
    eprintln!("ctx: {}", super::bounded(why));
    Ok(EXIT_USAGE)
}

/// A reader that went away (`| head`) is not ctx's failure.
fn finish(err: Option<io::Error>) -> anyhow::Result<()> {
    match err {
        Some(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// The bytes a stream view reads: the interleaved record, or one stream
/// reassembled (only when the record really mixes both).
fn view<'s>(
    store: &'s dyn Store,
    meta: &RecordMeta,
    stream: Option<Stream>,
) -> Result<Reader<'s>, StoreError> {
    let Some(wanted) = stream else {
        return store::reader(store, meta);
    };
    if !meta.has_stream(wanted) {
        return Ok(Reader::from_bytes(Vec::new()));
    }
    if meta.segments.iter().all(|s| s.stream == wanted) {
        return store::reader(store, meta);
    }
    Ok(Reader::from_bytes(store::stream_bytes(
        store, meta, wanted,
    )?))
}
