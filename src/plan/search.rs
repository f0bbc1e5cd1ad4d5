//! Planning for searches (grep, rg, git grep), whose census is the list of
//! matching files: each file named with its exact count, then its first
//! matches, round by round while the budget allows — every file's first
//! match before any file's second — and per file one marker with the exact
//! number left and `--item PATH`. Context lines come only with a file shown
//! whole. When the files with their first matches exceed the budget
//! (FLOOD), files are named with their counts while they fit and the rest
//! counted by folder behind `--items`.
//!
//! Match lines are raw spans, never rewritten; every line ctx adds is a
//! `[ctx]` note or marker.

use crate::artifact::{Artifact, Span, Stream};
use crate::contract::Contract;
use crate::delivery_plan::{FolderCount, Note, SearchNote};
use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind};
use crate::normalize;
use crate::render::{self, notes};
use crate::tokens;
use crate::words::count;

use super::{
    Address, Block, Budget, DeliveryPlan, FLOOD_CLOSING_TOKENS, Left, MARKER_TOKENS, Omission,
    Omitted, Rung, frame_tokens,
};

/// The width of one FLOOD note listing files, in characters.
const NOTE_WIDTH: usize = 160;

/// One matching file as the plan sees it.
struct File<'g> {
    /// Its index in `graph.items`.
    index: usize,
    item: &'g EvidenceItem,
    /// A heading line of its own (`--heading`, `-c`, `-l`, binary notice).
    heading: Option<usize>,
    matches: Vec<usize>,
    shown: usize,
    whole: bool,
    /// The contract requires it: named at every budget.
    required: bool,
}

impl File<'_> {
    fn total(&self) -> String {
        self.item
            .fields
            .get("matches")
            .cloned()
            .unwrap_or_else(|| count(self.matches.len()))
    }
}

pub fn plan(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    contract: &Contract,
    budget: Budget,
) -> DeliveryPlan {
    let mut p = Planner {
        artifact,
        contract,
        blocks: vec![Block::Header],
        omissions: Vec::new(),
        spent: frame_tokens(artifact, graph),
        rung: Rung::Dense,
    };
    // The diagnostics the contract requires (the search tool's errors)
    // come first; any other is shown after the files while the target
    // allows.
    let (errors, findings): (Vec<&EvidenceItem>, Vec<&EvidenceItem>) = graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Diagnostic)
        .partition(|i| contract.requires(i));
    p.errors(&errors, budget.ceiling / 2);
    // `grep -c` names every file it searched; those without a match are
    // counted in the header and listed by `--items`, not line by line.
    let zero = |i: &EvidenceItem| i.fields.get("matches").is_some_and(|m| m == "0");
    let unmatched = graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::MatchingFile && zero(i))
        .count();
    let mut files: Vec<File> = graph
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| i.kind == ItemKind::MatchingFile && !zero(i))
        .map(|(index, item)| {
            let matches: Vec<usize> = item.detail.iter().map(|s| s.first).collect();
            File {
                index,
                item,
                heading: item
                    .headline
                    .map(|h| h.first)
                    .filter(|h| !matches.contains(h)),
                matches,
                shown: 0,
                whole: false,
                required: contract.requires(item),
            }
        })
        .collect();
    // The census is the files the contract requires; any other file is
    // shown while the target allows and counted when it is not.
    let census: usize = files
        .iter()
        .filter(|f| f.required)
        .map(|f| p.least(f))
        .sum();
    // The census fits the budget as asked (`Budget::census`, as the census
    // planner's): past it, files are named in lines while they fit and the
    // rest counted by folder, all behind `--items`.
    let compact = p.spent + census > budget.census;
    if compact {
        let (named, others): (Vec<File>, Vec<File>) = files.into_iter().partition(|f| f.required);
        p.flood(graph, &named, budget.census);
        p.not_named(others.iter().map(|f| f.item), others.len());
    } else {
        p.spent += census;
        for f in files.iter_mut().filter(|f| f.required) {
            f.shown = f.matches.len().min(1);
        }
        p.rounds(&mut files, budget.target);
        p.whole_files(&mut files, budget.target);
        for f in &files {
            p.file(f);
        }
        let unshown: Vec<&File> = files
            .iter()
            .filter(|f| !f.required && f.shown == 0)
            .collect();
        p.not_named(unshown.iter().map(|f| f.item), unshown.len());
    }
    p.findings(&findings, budget.target);
    if unmatched > 0 {
        p.omit(
            Omitted::Items(Left::FilesWithoutMatch),
            unmatched,
            Address::Items(None),
        );
    }
    p.blocks.push(Block::Footer);
    let why = match (p.rung, compact) {
        (Rung::Flood, _) => {
            "the files with their first matches exceed the budget: named while they fit, the rest by folder"
        }
        (_, true) => {
            "the files with their first matches exceed the budget: every file named with its count"
        }
        _ => "every file with its count and first matches; the rest per file by --item",
    };
    DeliveryPlan {
        rung: p.rung,
        outcome: None,
        blocks: p.blocks,
        omissions: p.omissions,
        budget: budget.target,
        estimate: p.spent,
        why: why.to_string(),
    }
}

struct Planner<'a> {
    artifact: &'a Artifact,
    contract: &'a Contract,
    blocks: Vec<Block>,
    omissions: Vec<Omission>,
    spent: usize,
    rung: Rung,
}

impl Planner<'_> {
    fn line_cost(&self, n: usize) -> usize {
        tokens::estimate(normalize::line(self.artifact.line(n)).as_bytes()) + 1
    }

    /// What `file` prints for the file's matches not shown, with `shown`
    /// of them shown.
    fn more_matches(f: &File, shown: usize) -> Option<Omission> {
        let left = f.matches.len().saturating_sub(shown);
        (left > 0).then(|| Omission {
            what: Omitted::Items(Left::MoreMatches { total: f.total() }),
            count: left,
            address: Address::Item(f.item.identity.clone()),
        })
    }

    /// What the file costs as printed with `shown` of its matches shown:
    /// its heading, those matches, and the marker for the rest, priced as
    /// `render` prints it. A file the contract does not require and none
    /// of whose matches is shown is not printed at all.
    fn printed(&self, f: &File, shown: usize) -> usize {
        if shown == 0 && !f.required {
            return 0;
        }
        let heading = f.heading.map_or(0, |h| self.line_cost(h));
        let matches: usize = f.matches[..shown.min(f.matches.len())]
            .iter()
            .map(|&n| self.line_cost(n))
            .sum();
        let marker = Self::more_matches(f, shown).map_or(0, |m| render::marker_tokens(&m));
        heading + matches + marker
    }

    /// What a file costs at its least: its heading, its first match, and
    /// the marker for the rest.
    fn least(&self, f: &File) -> usize {
        self.printed(f, f.matches.len().min(1))
    }

    /// Every error line while they fit in `room`; the rest behind `--items`.
    fn errors(&mut self, errors: &[&EvidenceItem], room: usize) {
        let mut left = 0;
        for e in errors {
            let Some(h) = e.headline else { continue };
            let cost = self.line_cost(h.first);
            if left > 0 || self.spent + cost > room {
                left += 1;
                continue;
            }
            self.spent += cost;
            self.blocks.push(Block::Raw(h));
        }
        if left > 0 {
            let unit = self.contract.noun_of(errors[0]).clone();
            self.omit(
                Omitted::Items(Left::More { unit }),
                left,
                Address::Items(None),
            );
        }
    }

    /// Findings the contract does not require: each while the target
    /// allows, the rest counted.
    fn findings(&mut self, findings: &[&EvidenceItem], target: usize) {
        let mut left = Vec::new();
        for e in findings {
            let Some(h) = e.headline else { continue };
            let cost = self.line_cost(h.first);
            if !left.is_empty() || self.spent + cost + MARKER_TOKENS > target {
                left.push(*e);
                continue;
            }
            self.spent += cost;
            self.blocks.push(Block::Raw(h));
        }
        let n = left.len();
        self.not_named(left.into_iter(), n);
    }

    /// `n` items the contract does not require left unnamed: one marker,
    /// counted in their noun, listed by `--items`.
    fn not_named<'g>(&mut self, mut items: impl Iterator<Item = &'g EvidenceItem>, n: usize) {
        let Some(first) = items.next() else { return };
        let unit = self.contract.noun_of(first).clone();
        self.omit(
            Omitted::Items(Left::NotNamed { unit }),
            n,
            Address::Items(None),
        );
    }

    /// Second matches of every file, then third…, while the target allows.
    fn rounds(&mut self, files: &mut [File], target: usize) {
        loop {
            let mut progressed = false;
            for f in files.iter_mut() {
                if f.shown >= f.matches.len() {
                    continue;
                }
                // One more match shown: its line (and the file's heading
                // when it is the first), the marker's count one less.
                let before = self.printed(f, f.shown);
                let after = self.printed(f, f.shown + 1);
                // A file's last match costs no more than the marker it
                // replaces: shown even when the census is past the target.
                if after > before && self.spent - before + after > target {
                    return;
                }
                self.spent = self.spent - before + after;
                f.shown += 1;
                progressed = true;
            }
            if !progressed {
                return;
            }
        }
    }

    /// A file whose every match is shown gets its context lines too, when
    /// they fit and hold no line of another stream.
    fn whole_files(&mut self, files: &mut [File], target: usize) {
        for f in files.iter_mut() {
            let Some(block) = f.item.block else { continue };
            if f.shown < f.matches.len()
                || block.len() <= f.matches.len() + usize::from(f.heading.is_some())
            {
                continue;
            }
            let lines = block.first..=block.last;
            if lines
                .clone()
                .any(|n| self.artifact.stream_of_line(n) != Stream::Stdout)
            {
                continue;
            }
            let extra: usize = lines
                .filter(|n| !f.matches.contains(n) && f.heading != Some(*n))
                .map(|n| self.line_cost(n))
                .sum();
            if self.spent + extra <= target {
                self.spent += extra;
                f.whole = true;
            }
        }
    }

    fn file(&mut self, f: &File) {
        if f.shown == 0 && !f.required {
            return;
        }
        if f.whole
            && let Some(block) = f.item.block
        {
            self.blocks.push(Block::Raw(block));
            return;
        }
        if let Some(h) = f.heading {
            self.blocks.push(Block::Raw(Span::line(h)));
        }
        // Runs of adjacent match lines as one span each.
        let shown = &f.matches[..f.shown];
        let mut k = 0;
        while k < shown.len() {
            let mut end = k;
            while end + 1 < shown.len() && shown[end + 1] == shown[end] + 1 {
                end += 1;
            }
            self.blocks
                .push(Block::Raw(Span::new(shown[k], shown[end])));
            k = end + 1;
        }
        // Its marker is already priced, with the file (`printed`).
        if let Some(more) = Self::more_matches(f, f.shown) {
            self.mark(more);
        }
    }

    /// Adds a marker, priced as `render` prints it.
    fn omit(&mut self, what: Omitted, n: usize, address: Address) {
        let omission = Omission {
            what,
            count: n,
            address,
        };
        self.spent += render::marker_tokens(&omission);
        self.mark(omission);
    }

    /// A note, priced as printed.
    fn notice(&mut self, graph: &EvidenceGraph, note: Note) {
        self.spent += render::notice_tokens(&note, self.artifact, graph);
        self.blocks.push(Block::Notice(note));
    }

    fn mark(&mut self, omission: Omission) {
        self.omissions.push(omission);
        self.blocks.push(Block::Marker(self.omissions.len() - 1));
    }

    /// The files named with their counts while they fit, the rest counted
    /// by folder, every one behind `--items`.
    /// FLOOD only when some are counted by folder: every file named with
    /// its count is still the whole census, in its compact form.
    fn flood(&mut self, graph: &EvidenceGraph, files: &[File], budget: usize) {
        self.notice(
            graph,
            Note::Search(SearchNote::Flood {
                files: files.len(),
                budget,
            }),
        );
        let mut named = 0;
        // The files of the note being filled, and its width as printed.
        let mut line: Vec<usize> = Vec::new();
        let mut width = 0;
        for f in files {
            let entry = notes::search::file(f.item).len();
            if !line.is_empty() && width + entry + 3 > NOTE_WIDTH {
                let in_line = line.len();
                if !self.note_within(graph, &mut line, budget) {
                    break;
                }
                named += in_line;
                width = 0;
            }
            if !line.is_empty() {
                width += notes::search::SEPARATOR.len();
            }
            width += entry;
            line.push(f.index);
        }
        let in_line = line.len();
        if in_line > 0 && self.note_within(graph, &mut line, budget) {
            named += in_line;
        }
        // The named files' matches are left out: one marker says so, with
        // the address that gives one file's back.
        if let Some(first) = files.first().filter(|_| named > 0) {
            let unit = self.contract.noun_of(first.item).clone();
            self.omit(
                Omitted::Items(Left::ShownWithoutDetail { unit }),
                named,
                Address::Item(first.item.identity.clone()),
            );
        }
        if named < files.len() {
            self.rung = Rung::Flood;
            self.notice(
                graph,
                Note::Search(SearchNote::Folders {
                    folders: folders(&files[named..]),
                }),
            );
            let unit = self.contract.noun_of(files[0].item).clone();
            self.omit(
                Omitted::Items(Left::More { unit }),
                files.len() - named,
                Address::Items(None),
            );
        }
    }

    /// Pushes a note naming the files `line` holds when it fits under the
    /// budget with room left for the closing lines; empties it when it does.
    fn note_within(&mut self, graph: &EvidenceGraph, line: &mut Vec<usize>, budget: usize) -> bool {
        let note = Note::Search(SearchNote::Files {
            indices: line.clone(),
        });
        let cost = render::notice_tokens(&note, self.artifact, graph);
        if self.spent + cost + FLOOD_CLOSING_TOKENS > budget {
            return false;
        }
        self.spent += cost;
        line.clear();
        self.blocks.push(Block::Notice(note));
        true
    }
}

/// The files' folders, most files first (the output's order among equals).
fn folders(files: &[File]) -> Vec<FolderCount> {
    let mut dirs: Vec<FolderCount> = Vec::new();
    for f in files {
        let path = f.item.identity.as_str();
        let dir = path.rsplit_once('/').map_or(".", |(d, _)| d);
        let n: u64 = f
            .item
            .fields
            .get("matches")
            .and_then(|m| m.parse().ok())
            .unwrap_or(0);
        match dirs.iter_mut().find(|d| d.dir == dir) {
            Some(d) => {
                d.files += 1;
                d.matches += n;
            }
            None => dirs.push(FolderCount {
                dir: dir.to_string(),
                files: 1,
                matches: n,
            }),
        }
    }
    dirs.sort_by_key(|d| std::cmp::Reverse(d.files));
    dirs
}
