//! The words of the planner's typed notes (`Note`). The planner prices a
//! note by calling [`words`], so its estimate is the line printed.

use crate::artifact::Artifact;
use crate::delivery_plan::{Coverage, Note, Tally};
use crate::evidence::EvidenceGraph;
use crate::words::{count, counted};

pub mod ci_log;
pub mod data;
pub mod diff;
pub mod install;
pub mod listing;
pub mod log;
pub mod roster;
pub mod search;

/// How many values a tally names before "… N more".
const TOP: usize = 8;

/// The note's words, without the `[ctx] ` prefix.
pub fn words(note: &Note, artifact: &Artifact, graph: &EvidenceGraph) -> String {
    match note {
        Note::Disagreement => format!(
            "{} but no failure was parsed: the head, decisive lines and tail of the output follow",
            artifact.exit.describe().unwrap_or_default()
        ),
        Note::Unexplained => "no exit status and no complete report: the head, decisive lines and tail of the output follow".to_string(),
        Note::Repeats { times } => {
            format!("the line above ×{} (identical occurrences)", count(*times))
        }
        Note::SameCause {
            members,
            unit,
            index,
        } => {
            // A note is one line: a summary of several (mocha's message
            // over its diff) is named by its first.
            let summary = graph
                .items
                .get(*index)
                .and_then(|i| i.summary.as_deref())
                .and_then(|s| s.lines().map(str::trim).find(|l| !l.is_empty()))
                .unwrap_or("");
            format!("same cause in {members} {unit}: {summary}")
        }
        Note::Coverage(c) => coverage(c),
        Note::Grouped {
            items,
            unit,
            budget,
        } => format!(
            "census grouped: {} exceed the {}-token budget",
            counted(*items, unit),
            count(*budget)
        ),
        Note::Group {
            key,
            width,
            members,
            examples,
        } => {
            let ids: Vec<&str> = examples
                .iter()
                .filter_map(|&i| graph.items.get(i).map(|it| it.identity.as_str()))
                .collect();
            let more = if *members > examples.len() { ", …" } else { "" };
            format!(
                "  {key:<width$} ×{}  {}{more}",
                count(*members),
                ids.join(", ")
            )
        }
        Note::MoreGroups {
            groups,
            items,
            unit,
        } => format!(
            "  … {} holding {}",
            counted(*groups, "more groups"),
            counted(*items, unit)
        ),
        Note::Tally { of, counts } => {
            let (label, noun) = match of {
                Tally::TopFiles => ("top files".to_string(), "files"),
                Tally::ByFile(what) => (format!("{what} by file"), "files"),
                Tally::ByCode(what) => (format!("{what} by code"), "codes"),
            };
            format!("{label}: {}", top_list(counts, noun))
        }
        Note::Diff(n) => diff::words(n, graph),
        Note::Search(n) => search::words(n, graph),
        Note::Listing(n) => listing::words(n, graph),
        Note::Roster(n) => roster::words(n, graph),
        Note::Install(n) => install::words(n),
        Note::Log(n) => log::words(n, graph),
        Note::Data(n) => data::words(n, graph),
        Note::CiLog(n) => ci_log::words(n, graph),
    }
}

fn coverage(c: &Coverage) -> String {
    let mut parts = Vec::new();
    if let Some(announced) = c.announced {
        parts.push(format!(
            "{}/{} parsed",
            count(c.parsed as usize),
            counted(announced as usize, &c.unit)
        ));
    } else if c.census {
        parts.push(format!("{} parsed", counted(c.parsed as usize, &c.unit)));
    }
    if c.census {
        parts.push(format!(
            "{}/{}",
            count(c.blocks as usize),
            counted(c.parsed as usize, "detail blocks")
        ));
    }
    parts.push(counted(c.unmatched as usize, "unmatched lines"));
    if c.truncated {
        parts.push("input truncated upstream: the census may be incomplete".into());
    }
    if let Some(why) = &c.degraded {
        parts.push(format!("degraded: {why}"));
    }
    format!("coverage: {}", parts.join(" · "))
}

fn top_list(counts: &[(String, usize)], noun: &str) -> String {
    let mut parts: Vec<String> = counts
        .iter()
        .take(TOP)
        .map(|(v, n)| format!("{v} ×{}", count(*n)))
        .collect();
    if counts.len() > TOP {
        parts.push(format!("… {} more {noun}", count(counts.len() - TOP)));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;
    use crate::evidence::{EvidenceItem, ItemKind, Severity};

    /// A note is one line, whatever the summary it quotes.
    #[test]
    fn a_shared_cause_is_named_by_its_first_line() {
        let artifact = Artifact::from_stdout(b"x\n".to_vec(), Exit::Code(1), vec![]);
        let mut graph = EvidenceGraph::empty();
        let mut item = EvidenceItem::new(ItemKind::FailingTest, Severity::Error, "t");
        item.summary = Some("Expected values to be strictly equal:\n\n11 !== 21".into());
        graph.items.push(item);
        let note = Note::SameCause {
            members: 3,
            unit: "failures".into(),
            index: 0,
        };
        assert_eq!(
            words(&note, &artifact, &graph),
            "same cause in 3 failures: Expected values to be strictly equal:"
        );
    }
}
