//! `ctx expand HASH --items --format json|markdown`: the complete census
//! of an archived record (or the items a filter keeps), in the shapes of
//! the digest's own item list. The JSON is a `ctx.items/v1` document
//! (docs/schema/ctx.items-v1.json) whose items are `ctx.digest/v1` items.

use serde::Serialize;

use crate::artifact::Artifact;
use crate::evidence::{EvidenceGraph, EvidenceItem};
use crate::format::{Format, Formatting};
use crate::store::ArchiveKey;

use super::json::{Item, item_of};
use super::markdown;

/// The schema of the `--items` document.
pub const SCHEMA: &str = "ctx.items/v1";

/// What `--items` lists, and of which record.
#[derive(Clone, Copy, Debug)]
pub struct Listing<'a> {
    pub artifact: &'a Artifact,
    /// `<family>/vN` of the profile that read the record.
    pub profile: &'a str,
    pub key: &'a ArchiveKey,
    pub filter: Filter<'a>,
    pub items: &'a [&'a EvidenceItem],
    /// Each item's `--items` text line, in the same order.
    pub lines: &'a [String],
}

/// `--code`, `--file`, `--severity` as given.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Filter<'a> {
    pub code: Option<&'a str>,
    pub file: Option<&'a str>,
    pub severity: Option<&'a str>,
}

/// The listing in `formatting`'s shape; text is its lines.
pub fn render(formatting: &Formatting, listing: &Listing) -> Vec<u8> {
    match formatting.format {
        Format::Text => listing
            .lines
            .iter()
            .flat_map(|l| [l.as_bytes(), b"\n"])
            .flatten()
            .copied()
            .collect(),
        Format::Json => json(listing),
        Format::Markdown => markdown::items(listing, formatting.link_base.as_deref()).into_bytes(),
        // The listed items as a report of their own: a test run's
        // failures as JUnit, a build's diagnostics as SARIF.
        Format::Sarif | Format::Junit => {
            let family = listing
                .profile
                .split_once('/')
                .map_or(listing.profile, |(f, _)| f);
            let graph = EvidenceGraph {
                reader: crate::evidence::Reader::family(family),
                items: listing.items.iter().map(|i| (*i).clone()).collect(),
                ..EvidenceGraph::empty()
            };
            let render = if formatting.format == Format::Sarif {
                super::sarif::render
            } else {
                super::junit::render
            };
            render(
                listing.artifact,
                &graph,
                listing.profile,
                &formatting.workspace,
                Some(listing.key),
            )
        }
    }
}

#[derive(Serialize)]
struct Document<'a> {
    schema: &'static str,
    family: &'a str,
    profile: &'a str,
    command: String,
    archive_key: String,
    filter: Filter<'a>,
    count: usize,
    items: Vec<Item<'a>>,
}

fn json(listing: &Listing) -> Vec<u8> {
    let doc = Document {
        schema: SCHEMA,
        family: listing
            .profile
            .split_once('/')
            .map_or(listing.profile, |(f, _)| f),
        profile: listing.profile,
        command: listing.artifact.display_command(),
        archive_key: listing.key.short(),
        filter: listing.filter,
        count: listing.items.len(),
        items: listing
            .items
            .iter()
            .map(|i| item_of(i, 1, Some(listing.key)))
            .collect(),
    };
    let mut out =
        serde_json::to_vec(&doc).expect("a document of strings and numbers always serializes");
    out.push(b'\n');
    out
}
