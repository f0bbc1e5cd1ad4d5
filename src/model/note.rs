//! What the non-census planners' notes say, as facts (numbers, item
//! indices, paths): each planner has its own enum, `Note` carries them,
//! and only the renderer words them (`render::notes`). A planner prices a
//! note with those same words, so its estimate is the line printed.

use serde::Serialize;

use crate::artifact::Exit;
use crate::evidence::Outcome;

/// A diff's notes (`plan::diff`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "says")]
pub enum DiffNote {
    /// One changed file's census line (`graph.items[index]`): path, status,
    /// +/- counts, hunks.
    File { index: usize },
    /// Whole hunks were shown of `shown` of `files` changed files; `hunks`
    /// were left out, in `left_files` files.
    Shown {
        shown: usize,
        files: usize,
        hunks: usize,
        left_files: usize,
    },
    /// FLOOD: the file census exceeds `budget` (the budget as asked); files
    /// by top directory follow.
    Grouped { budget: usize },
    /// One top directory (`.` for files at the root) of a FLOOD census.
    Directory {
        dir: String,
        files: usize,
        insertions: usize,
        deletions: usize,
    },
    /// FLOOD directories not shown.
    MoreDirectories { count: usize },
    /// The extractor's precision was degraded (a diff cut short).
    Degraded { why: String },
}

/// A search's notes (`plan::search`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "says")]
pub enum SearchNote {
    /// FLOOD: `files` matching files with their first matches exceed
    /// `budget` (the budget as asked).
    Flood { files: usize, budget: usize },
    /// Matching files (`graph.items` indices), each with its match count.
    Files { indices: Vec<usize> },
    /// Files not named, counted by folder, most files first.
    Folders { folders: Vec<FolderCount> },
}

/// One folder's matching files and their matches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FolderCount {
    pub dir: String,
    pub files: usize,
    pub matches: u64,
}

/// A listing's notes (`plan::listing`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "says")]
pub enum ListingNote {
    /// Files by type, most files first.
    Types { types: Vec<TypeCount> },
    /// Anomalies kept whole, by kind, in order of first occurrence.
    KeptWhole { kinds: Vec<(String, usize)> },
    /// FLOOD: `folders` folders exceed `budget` (the budget as asked);
    /// named while they fit.
    FoldersFlood { folders: usize, budget: usize },
    /// `folders` folders named in notes, in the listing's order.
    FoldersInOrder { folders: usize },
    /// Folders (`graph.items` indices), each with its entry count.
    Folders { indices: Vec<usize> },
    /// Folders not named, counted by parent, most first.
    Parents { parents: Vec<(String, usize)> },
}

/// One file type of a listing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TypeCount {
    pub name: String,
    pub files: usize,
    pub bytes: Option<u64>,
}

/// A roster's notes (`plan::roster`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "says")]
pub enum RosterNote {
    /// One item's entry: the compact line its extractor wrote, or its identity.
    Entry { index: usize },
    /// Bulk items of one group collapsed: the group, the first member, how many.
    Bulk {
        group: String,
        first: usize,
        members: usize,
    },
    /// FLOOD: `items` items (`noun` agrees with the number) exceed
    /// `budget`; `listed` are listed above, `more` are not.
    Flood {
        items: usize,
        noun: String,
        /// The budget as asked, which the listed items fit.
        budget: usize,
        listed: usize,
        more: usize,
        grouping: Grouping,
    },
}

/// The items a roster's FLOOD leaves unlisted, grouped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Grouping {
    /// Their earliest and latest `date`.
    pub dates: Option<(String, String)>,
    /// What the groups are by (`author`), when any item has a group.
    pub by: Option<String>,
    /// Each group, most items first.
    pub groups: Vec<Group>,
}

/// One group of a roster's FLOOD.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    pub name: String,
    pub items: usize,
    /// Its items by class, classes in order.
    pub classes: Vec<(String, usize)>,
}

/// An install's notes (`plan::install`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "says")]
pub enum InstallNote {
    /// `total` warnings, by class in order of first occurrence.
    Warnings {
        total: usize,
        classes: Vec<(String, usize)>,
    },
    /// A failure, and no line of it was recognised: the output's end follows.
    NoFailureLine,
}

/// A log's notes (`plan::log`). Items are `graph.items` indices; the
/// renderer reads their counts and line numbers from their fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "says")]
pub enum LogNote {
    /// The time the log covers (its first and last timestamps).
    Time { from: String, to: String },
    /// `endpoints` endpoints answered 4xx/5xx, `requests` requests in all.
    FailingEndpoints { endpoints: usize, requests: usize },
    /// One failing endpoint with its count and line range.
    Endpoint { index: usize },
    /// Failing endpoints of one status, counted.
    ByStatus {
        status: String,
        endpoints: usize,
        requests: usize,
    },
    /// `events` error events in `templates` templates follow, the first of
    /// each whole while they fit; `of`: the log's error events in all, when
    /// only the first `events` were itemised.
    ErrorTemplates {
        events: usize,
        templates: usize,
        of: Option<usize>,
    },
    /// An error template counted only: `index` is its first event; it
    /// occurs `events` times, from line `first` to line `last`.
    CountedTemplate {
        index: usize,
        events: usize,
        first: usize,
        last: usize,
        /// Only the first error events were itemised: `events` is a lower
        /// bound.
        capped: bool,
    },
    /// The slowest request alone (`index`), at line `line`.
    SlowestRequest { index: usize, line: usize },
    /// The `count` slowest requests' lines follow.
    SlowestRequests { count: usize },
    /// `count` templates follow, the `warnings` logged at warning level
    /// first, then by count.
    Templates { count: usize, warnings: usize },
    /// One template with its count and line range.
    Template { index: usize },
}

/// A data set's notes (`plan::data`). Items are `graph.items` indices;
/// the renderer reads their values (minified JSON, statistics) from their
/// fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "says")]
pub enum DataNote {
    /// The minified document follows.
    LosslessHeading,
    /// The minified document (`index`'s value).
    Lossless { index: usize },
    /// The document's identity fields.
    Identity { indices: Vec<usize> },
    /// A dependency list, whole.
    Dependencies { index: usize },
    /// A dependency list, counted, listed by `--item`.
    DependenciesByItem { index: usize },
    /// A list's record names (`names` item `index`): every one when
    /// `all`, else the flagged ones alone (pip's requested distributions),
    /// else only their count; the rest are listed by `--items --code name`.
    Names { index: usize, shown: NamesShown },
    /// A collection (or a table's rows) with its exact length.
    Collection { index: usize },
    /// A collection with its exact length, its keys left to `--item`
    /// (what fits a small budget).
    CollectionLength { index: usize },
    /// One field's or column's statistics.
    Stats { index: usize },
    /// An anomalous record, whole.
    Anomaly { index: usize },
    /// An anomalous record named with its reason, whole by `--item`.
    AnomalyByItem { index: usize },
    /// Anomalies not named, by reason, most first.
    Reasons { reasons: Vec<(String, usize)> },
    /// A sample record, whole.
    Sample { index: usize },
    /// A sample record too large to show whole: its opening.
    SampleOpening { index: usize },
    /// Of collection `index`, `shown` items were shown: `samples` samples
    /// and `anomalies` anomalies.
    CollectionShown {
        index: usize,
        shown: usize,
        samples: usize,
        anomalies: usize,
    },
    /// Of a table's `rows` rows, `shown` were shown: `first_last` first and
    /// last rows, `anomalies` anomalous ones.
    RowsShown {
        shown: usize,
        rows: usize,
        first_last: usize,
        anomalies: usize,
    },
}

/// How much of a list's names a `Names` note prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NamesShown {
    /// Every name, the flagged ones first.
    All,
    /// The flagged names, the others counted.
    Flagged,
    /// The count alone.
    Counted,
}

/// A CI log's notes (`plan::ci_log`). Items are `graph.items` indices.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "says")]
pub enum CiLogNote {
    /// A step's line; `top` for a failing (or windowed) step up front,
    /// which says its number and whether it failed.
    Step { index: usize, top: bool },
    /// Every step (`steps` of them) follows.
    AllSteps { steps: usize },
    /// The steps with annotations follow.
    StepsWithAnnotations,
    /// A step's window could not be read again: its lines follow raw.
    LinesFollow { first: usize, last: usize },
    /// A step's window, read by another family: that family's header.
    ReadAs(Header),
}

/// What a digest's header says, as facts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Header {
    /// Who read the output: a family (its tool's name heads the digest)
    /// or text/v1 (a ctx line naming the command does).
    pub reader: crate::evidence::Reader,
    pub outcome: Outcome,
    pub counts: Vec<(String, u64)>,
    pub exit: Exit,
    pub lines: usize,
    /// The command as typed, for output no family read.
    pub command: String,
}
