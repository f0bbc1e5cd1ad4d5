//! The plan the planner hands the renderer: which rung, which blocks in
//! which order, what was left out and where it comes back from. A leaf of
//! plain types, so the renderer executes a plan without depending on the
//! planner, and the planner may price its lines with the renderer's own
//! functions.

use serde::Serialize;

use crate::artifact::{Artifact, Span};
use crate::contract::Noun;
use crate::evidence::{EvidenceGraph, Outcome};
use crate::words::shell_quote;

pub use crate::model::note::{
    CiLogNote, DataNote, DiffNote, FolderCount, Group, Grouping, Header, InstallNote, ListingNote,
    LogNote, NamesShown, RosterNote, SearchNote, TypeCount,
};

/// The rungs of the degradation ladder, least lossy first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Rung {
    /// Fits the budget: the raw bytes, unchanged, no footer.
    Verbatim,
    /// A green run: one line of counts, everything else retrievable.
    PassSummary,
    /// Every required identity plus ranked detail.
    FailCensus,
    /// Detail thinned to decisive lines; identities still complete.
    Dense,
    /// The census itself exceeds the ceiling: identities grouped with exact counts.
    Flood,
}

/// Where omitted evidence comes back from (the `ctx expand` arguments).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "by", content = "arg")]
pub enum Address {
    /// `--lines A-B`
    Lines(Span),
    /// `--item ID`
    Item(String),
    /// `--items [FILTER…]`
    Items(Option<String>),
    /// `--details`: the detail blocks of every census item.
    Details,
}

impl Address {
    /// The arguments after `ctx expand H`, shell-quoted where needed.
    pub fn args(&self) -> String {
        match self {
            Address::Lines(s) => format!("--lines {}-{}", s.first, s.last),
            Address::Item(id) => format!("--item {}", shell_quote(id)),
            Address::Items(None) => "--items".to_string(),
            Address::Items(Some(filter)) => format!("--items {filter}"),
            Address::Details => "--details".to_string(),
        }
    }
}

/// What an omission region held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Omitted {
    /// Lines of any content.
    Lines,
    /// Lines identical to the line kept just before them.
    Repeats,
    /// Items (failures, warnings, detail blocks…) left out: which, as
    /// facts; only the renderer words them (`render::items_left`).
    Items(Left),
}

/// Which items a marker counts and in what sense they are left out.
/// Nouns come from the contract (its decision unit, or the unit a
/// required class declares); the planner never composes the phrase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "left")]
pub enum Left {
    /// Census items whose detail blocks were left out (`--details`).
    WithoutDetail { unit: Noun },
    /// FLOOD: census items with detail, `more` when the first one's is shown.
    WithDetail { unit: Noun, more: bool },
    /// FLOOD: census items counted in groups but not named.
    CountedNotNamed { unit: Noun },
    /// Findings outside the census (warnings when `warnings`) not named.
    FindingsNotNamed { warnings: bool },
    /// Items the contract does not require, not named (listed by `--items`).
    NotNamed { unit: Noun },
    /// A re-run's findings outside the census, all as in the last run.
    FindingsAsBefore { warnings: bool },
    /// A re-run's findings outside the census, left of the last run's
    /// `before`.
    FindingsLeftOf { warnings: bool, before: usize },
    /// More items of the unit than were shown.
    More { unit: Noun },
    /// More items of the unit, all listed by `--items`.
    MoreListed { unit: Noun },
    /// Roster items shown without their detail, each whole by `--item`.
    ShownWithoutDetail { unit: Noun },
    /// Roster items collapsed by directory, listed by `--items`.
    CollapsedByDirectory { unit: Noun },
    /// Items counted above by status (a log's failing endpoints).
    CountedByStatus { unit: Noun },
    /// Steps of a CI job that succeeded, not listed.
    OtherSucceeded { unit: Noun },
    /// Steps of a CI job that were skipped, not listed.
    OtherSkipped { unit: Noun },
    /// Items counted only here (a CI job's annotations).
    Counted { unit: Noun },
    /// Searched files without a match (`grep -c`).
    FilesWithoutMatch,
    /// One file's matches not shown, of `total` in all.
    MoreMatches { total: String },
    /// A log template's later events: `total` in all, the last at line `last`.
    /// `itemised`: the error events were itemised only up to this many
    /// (the rest counted by template only), so `total` is a lower bound.
    MoreOfTemplate {
        total: usize,
        last: usize,
        itemised: Option<usize>,
    },
    /// Error templates not shown whole; `uncounted` events not even counted.
    TemplatesNotWhole { uncounted: usize },
    /// Log templates not shown, holding `lines` lines.
    MoreTemplates { lines: usize },
    /// A changed file's header lines left out.
    HeaderLinesOf { path: String },
    /// A changed file's hunks left out.
    HunksOf { path: String },
    /// A diff's FLOOD: every changed file and commit, listed by `--items`.
    FilesAndCommits,
    /// A collection's items not shown (`--item` shows it whole).
    MoreElements,
    /// A listing's folders and anomalies not named.
    MoreFoldersAndAnomalies,
}

impl Left {
    /// True when the items are census items, so that a marker pointing at
    /// `--items` may stand for identities the digest does not name.
    /// Findings outside the census never stand for a census identity.
    pub fn of_census(&self) -> bool {
        !matches!(
            self,
            Left::FindingsNotNamed { .. }
                | Left::FindingsAsBefore { .. }
                | Left::FindingsLeftOf { .. }
                | Left::NotNamed { .. }
        )
    }
}

/// One region left out of the digest, declared by exactly one marker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Omission {
    pub what: Omitted,
    /// How many lines (or items) left.
    pub count: usize,
    pub address: Address,
}

/// One piece of the digest, in output order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "block", content = "of")]
pub enum Block {
    /// `<tool>: <OUTCOME> · <counts> · exit N`.
    Header,
    /// Raw lines, after normalization.
    Raw(Span),
    /// The marker of `omissions[i]`.
    Marker(usize),
    /// A census entry: `items[index]`'s identity line, or with `detail`
    /// its decisive lines inline when they name it themselves.
    Item { index: usize, detail: bool },
    /// The complete census in its compact form: a `[ctx] census` opening
    /// line, then each file once with its items indented under it
    /// (`render::census`). `unit` is the plural noun the opening line
    /// counts; `form` how much of each item's line is written.
    Census {
        entries: Vec<CensusEntry>,
        unit: String,
        form: CensusForm,
    },
    /// `items[index]`'s detail under a `[ctx] --- identity (location)` line.
    Detail(usize),
    /// A ctx line of typed facts, worded by the renderer (`render::notes`):
    /// no planner words a line itself.
    Notice(Note),
    /// What changed since the last run of the same command: typed, worded
    /// by `render::delta`.
    Delta(Delta),
    /// `[ctx] next: ctx expand H <address>`.
    Next(Address),
    /// `[ctx] full output (N lines): …` — what `ctx expand H` prints, and `--all`.
    Footer,
}

/// How a compact census writes its items: the census planner's ladder,
/// from the richest form to the cheapest that still names every identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CensusForm {
    /// Every identity whole, each with its one-line reason.
    Whole,
    /// Every identity whole, without reasons or places: the ids alone,
    /// each still copyable into the runner (`tests/a.py::test_x[1.05-1.26]`).
    Bare,
    /// The parametrized cases of one test share a line (`test_x ×19 [a],
    /// [b], …`), and so do five or more items of one code and message:
    /// every identity named, not each copyable.
    Grouped,
}

/// One census identity with every occurrence of it (the same diagnostic
/// from 40 translation units is one entry, ×40).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CensusEntry {
    /// The first item of the identity (`graph.items[index]`).
    pub index: usize,
    pub times: usize,
}

/// What the renderer executes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeliveryPlan {
    pub rung: Rung,
    /// The outcome the header states, when the planner corrects the
    /// extractor's (facts and exit status disagree: invariant 10).
    pub outcome: Option<Outcome>,
    pub blocks: Vec<Block>,
    pub omissions: Vec<Omission>,
    /// The token budget the plan was made for.
    pub budget: usize,
    /// The planner's estimate of the digest's tokens.
    pub estimate: usize,
    /// Why this rung, in a few words (for `ctx explain`).
    pub why: String,
}

impl DeliveryPlan {
    /// The raw output as it is: nothing omitted, nothing added.
    pub fn verbatim(budget: usize, estimate: usize, why: impl Into<String>) -> Self {
        DeliveryPlan {
            rung: Rung::Verbatim,
            outcome: None,
            blocks: Vec::new(),
            omissions: Vec::new(),
            budget,
            estimate,
            why: why.into(),
        }
    }

    /// True when the digest leaves anything out (so it needs an archive key).
    pub fn omits(&self) -> bool {
        self.rung != Rung::Verbatim
    }

    /// How many marker blocks the plan has (one per omission, by construction).
    pub fn marker_count(&self) -> usize {
        self.blocks
            .iter()
            .filter(|b| matches!(b, Block::Marker(_)))
            .count()
    }
}

/// What the renderer words as the delta lines (`render::delta`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Delta {
    pub age_secs: u64,
    /// The short archive key of the earlier run.
    pub previous: String,
    /// `failures` or `errors`, as the census counts them.
    pub unit: String,
    pub fixed: Vec<String>,
    /// Still failing, as this run names them (at their current location).
    pub still: Vec<String>,
    /// The same, as the last run named them (one per `still`, in order):
    /// a diagnostic that moved has another location there.
    pub still_before: Vec<String>,
    pub new: Vec<String>,
    /// The warnings (the contract's preferred findings) compared with the
    /// last run's, when it kept them: their summaries leave the body.
    pub warnings: Option<WarningsDelta>,
}

/// How a run's warnings compare with the last run's (matched as failures
/// are, `plan::delta::matching_key`, each occurrence once).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WarningsDelta {
    /// `warnings` or `findings`.
    pub noun: String,
    /// In the last run, not in this one.
    pub fixed: usize,
    /// In both.
    pub same: usize,
    /// This run's identities of those not in the last run, in order.
    pub new: Vec<String>,
}

impl Delta {
    /// Nothing fixed, nothing new: the same failures again.
    pub fn unchanged(&self) -> bool {
        self.fixed.is_empty() && self.new.is_empty()
    }
}

/// What a ctx note says, as facts: the renderer words it
/// (`render::notes::words`), and the planner prices it with those words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "note")]
pub enum Note {
    /// The exit status says failure and no failure was parsed: the raw
    /// head, decisive lines and tail follow.
    Disagreement,
    /// No exit status and no complete report: the same raw lines follow.
    Unexplained,
    /// The census line above stands for `times` identical occurrences.
    Repeats { times: usize },
    /// The detail that follows is shared by `members` census items counted
    /// in `unit`; `index` is the item it is shown for.
    SameCause {
        members: usize,
        unit: String,
        index: usize,
    },
    /// What the extractor understood, when there is a census or the
    /// receipt is not complete.
    Coverage(Coverage),
    /// FLOOD: `items` census items (counted in `unit`) exceed `budget`.
    Grouped {
        items: usize,
        unit: String,
        budget: usize,
    },
    /// One FLOOD group: its key padded to `width`, how many items, and the
    /// first of them by index.
    Group {
        key: String,
        width: usize,
        members: usize,
        examples: Vec<usize>,
    },
    /// FLOOD groups not shown, and the items they hold.
    MoreGroups {
        groups: usize,
        items: usize,
        unit: String,
    },
    /// Values by how often they occur, most frequent first.
    Tally {
        of: Tally,
        counts: Vec<(String, usize)>,
    },
    /// A diff's note (`plan::diff`).
    Diff(DiffNote),
    /// A search's note (`plan::search`).
    Search(SearchNote),
    /// A listing's note (`plan::listing`).
    Listing(ListingNote),
    /// A roster's note (`plan::roster`).
    Roster(RosterNote),
    /// An install's note (`plan::install`).
    Install(InstallNote),
    /// A log's note (`plan::log`).
    Log(LogNote),
    /// A data set's note (`plan::data`).
    Data(DataNote),
    /// A CI log's note (`plan::ci_log`).
    CiLog(CiLogNote),
}

impl Note {
    /// The same note with every item index moved `by` on: a plan made over
    /// a window of the output, whose items are the whole graph's from `by`
    /// on (`plan::ci_log`).
    pub fn shifted(mut self, by: usize) -> Note {
        let mv = |i: &mut usize| *i += by;
        match &mut self {
            Note::SameCause { index, .. } => mv(index),
            Note::Group { examples, .. } => examples.iter_mut().for_each(mv),
            Note::Diff(DiffNote::File { index }) => mv(index),
            Note::Search(SearchNote::Files { indices })
            | Note::Listing(ListingNote::Folders { indices })
            | Note::Data(DataNote::Identity { indices }) => indices.iter_mut().for_each(mv),
            Note::Roster(RosterNote::Entry { index } | RosterNote::Bulk { first: index, .. }) => {
                mv(index)
            }
            Note::Log(
                LogNote::Endpoint { index }
                | LogNote::CountedTemplate { index, .. }
                | LogNote::SlowestRequest { index, .. }
                | LogNote::Template { index },
            ) => mv(index),
            Note::Data(
                DataNote::Lossless { index }
                | DataNote::Dependencies { index }
                | DataNote::DependenciesByItem { index }
                | DataNote::Collection { index }
                | DataNote::CollectionLength { index }
                | DataNote::Stats { index }
                | DataNote::Anomaly { index }
                | DataNote::AnomalyByItem { index }
                | DataNote::Sample { index }
                | DataNote::SampleOpening { index }
                | DataNote::CollectionShown { index, .. }
                | DataNote::Names { index, .. },
            ) => mv(index),
            Note::CiLog(CiLogNote::Step { index, .. }) => mv(index),
            _ => {}
        }
        self
    }

    /// The census items (`graph.items` indices) the note names by their
    /// identity, so the guard can tell a named identity from a dropped one.
    pub fn names(&self) -> Vec<usize> {
        match self {
            Note::Group { examples, .. } => examples.clone(),
            Note::Diff(DiffNote::File { index })
            | Note::Roster(RosterNote::Entry { index })
            | Note::Log(LogNote::Endpoint { index } | LogNote::CountedTemplate { index, .. })
            | Note::Data(DataNote::Anomaly { index } | DataNote::AnomalyByItem { index })
            | Note::CiLog(CiLogNote::Step { index, .. }) => {
                vec![*index]
            }
            Note::Search(SearchNote::Files { indices })
            | Note::Listing(ListingNote::Folders { indices }) => indices.clone(),
            _ => Vec::new(),
        }
    }
}

/// What a tally counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "of", content = "noun")]
pub enum Tally {
    /// The files of a FLOOD census.
    TopFiles,
    /// Preferred findings (`warnings`, `findings`) by file.
    ByFile(String),
    /// Preferred findings by code.
    ByCode(String),
}

/// The coverage note's facts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// The digest has a census: parsed items and detail blocks are told.
    pub census: bool,
    pub parsed: u64,
    pub announced: Option<u64>,
    /// The noun the census is counted in.
    pub unit: String,
    pub blocks: u64,
    pub unmatched: u64,
    pub truncated: bool,
    pub degraded: Option<String>,
}

/// Here rather than beside `Header` (model/note.rs), so that the notes
/// never import the plan that carries them.
impl Header {
    /// The header facts of `plan` over `artifact` and `graph`.
    pub fn of(artifact: &Artifact, graph: &EvidenceGraph, plan: &DeliveryPlan) -> Header {
        Header::facts(artifact, graph, plan.outcome)
    }

    /// The header facts of a digest of `artifact` and `graph` whose plan
    /// says `outcome` (`None`: the graph's own).
    pub fn facts(artifact: &Artifact, graph: &EvidenceGraph, outcome: Option<Outcome>) -> Header {
        Header {
            reader: graph.reader.clone(),
            outcome: outcome.unwrap_or(graph.outcome),
            counts: graph.counts.clone(),
            exit: artifact.exit,
            lines: artifact.line_count(),
            command: artifact.display_command(),
        }
    }
}
