//! FLOOD: no form of the census fits the budget, so identities are grouped
//! by class with exact counts and examples, all of them behind `--items`.

use std::collections::HashMap;

use super::Planner;
use crate::delivery_plan::{Note, Tally};
use crate::evidence::ItemKind;
use crate::plan::{Address, Block, Left, MARKER_TOKENS, Omitted, Rung};

/// The group of diagnostics that carry no code.
pub const NO_CODE: &str = "(no code)";

impl Planner<'_> {
    /// The census exceeds the budget (`limit`): group by class with exact
    /// counts.
    pub(super) fn flood(&mut self, census: &[usize], limit: usize) {
        self.rung = Rung::Flood;
        let unit = self.unit;
        self.notice(Note::Grouped {
            items: census.len(),
            unit: unit.to_string(),
            budget: limit,
        });
        // Tests group by file and failure class; diagnostics by code.
        let by_file = census.iter().any(|&i| {
            matches!(
                self.item(i).kind,
                ItemKind::FailingTest | ItemKind::TestError | ItemKind::SuiteNotRun
            )
        });
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for &i in census {
            let item = self.item(i);
            let class = item
                .class
                .clone()
                .unwrap_or_else(|| "(unclassified)".to_string());
            // A diagnostic without a code (a parsing error, a fatal
            // error) joins the one rule-less group, never a group per file.
            // The parametrized cases of one test are its own group: 600
            // cases of one test and 34 of another are two facts.
            let case_of = item.case().map(|(test, _)| test).filter(|_| by_file);
            let key = match (&item.location, case_of, by_file) {
                (_, Some(test), _) => format!("{test} {class}"),
                (Some(l), None, true) => format!("{} {class}", l.file),
                (None, None, true) => class,
                (_, _, false) => item.class.clone().unwrap_or_else(|| NO_CODE.to_string()),
            };
            match index.get(&key) {
                Some(&g) => groups[g].1.push(i),
                None => {
                    index.insert(key.clone(), groups.len());
                    groups.push((key, vec![i]));
                }
            }
        }
        groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.1[0].cmp(&b.1[0])));
        let width = groups
            .iter()
            .map(|g| g.0.chars().count())
            .max()
            .unwrap_or(0)
            .min(40);
        // What follows the groups is priced before them: the note for the
        // groups left out (at its widest), the marker of the items counted
        // but not named, and the marker of the details left out.
        let more = Note::MoreGroups {
            groups: groups.len(),
            items: census.len(),
            unit: unit.to_string(),
        };
        let reserve = super::note_tokens(self.artifact, self.graph, &more) + 2 * MARKER_TOKENS;
        let mut shown = 0usize;
        let mut examples = 0usize;
        for (key, members) in &groups {
            let note = Note::Group {
                key: key.clone(),
                width,
                members: members.len(),
                examples: members.iter().take(2).copied().collect(),
            };
            // Priced on the renderer's own words for it.
            let cost = super::note_tokens(self.artifact, self.graph, &note);
            // The largest group is shown whatever the budget: a FLOOD that
            // names no group at all says nothing about what failed.
            if shown > 0 && self.spent + cost + reserve > limit {
                break;
            }
            self.spent += cost;
            self.blocks.push(Block::Notice(note));
            shown += 1;
            examples += members.len().min(2);
        }
        if shown < groups.len() {
            let rest: usize = groups[shown..].iter().map(|g| g.1.len()).sum();
            self.notice(Note::MoreGroups {
                groups: groups.len() - shown,
                items: rest,
                unit: unit.to_string(),
            });
        }
        self.top_files(
            census,
            Tally::TopFiles,
            limit.saturating_sub(MARKER_TOKENS * 2),
        );
        let listed = census.len() - examples;
        self.omit(
            Omitted::Items(Left::CountedNotNamed {
                unit: self.noun.clone(),
            }),
            listed,
            Address::Items(None),
        );
        // The first failure's detail, when it fits: the likeliest shared cause.
        let first = census[0];
        let with_detail = census.iter().filter(|&&i| self.detail_usable(i)).count();
        if self.detail_usable(first) && self.spent + self.detail_cost(first) <= limit {
            self.spent += self.detail_cost(first);
            self.blocks.push(Block::Detail(first));
            if with_detail > 1 {
                let what = Left::WithDetail {
                    unit: self.noun.clone(),
                    more: true,
                };
                self.omit(Omitted::Items(what), with_detail - 1, Address::Details);
            }
        } else if with_detail > 0 {
            let what = Left::WithDetail {
                unit: self.noun.clone(),
                more: false,
            };
            self.omit(Omitted::Items(what), with_detail, Address::Details);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::artifact::{Artifact, Exit, Span};
    use crate::evidence::{
        CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Outcome, Severity,
    };
    use crate::plan::{Budget, Rung};

    /// 400 parsing errors without a code, one per file, and 400 coded ones.
    fn flood() -> (Artifact, EvidenceGraph) {
        let mut text = String::new();
        let mut items = Vec::new();
        for i in 0..800 {
            let file = format!("src/very/long/folder/name/module_{i:04}.js");
            let (code, msg) = if i % 2 == 0 {
                (None, "Parsing error: Unexpected token {")
            } else {
                (Some("no-undef"), "'helper' is not defined")
            };
            text.push_str(&format!("{file}:2:29: {msg}\n"));
            let mut item = EvidenceItem::new(
                ItemKind::Diagnostic,
                Severity::Error,
                format!(
                    "{file}:2:29{}",
                    code.map_or(String::new(), |c| format!(" {c}"))
                ),
            );
            item.class = code.map(str::to_string);
            item.summary = Some(msg.to_string());
            item.location = Some(Location {
                file,
                line: Some(2),
                column: Some(29),
            });
            item.headline = Some(Span::new(i + 1, i + 1));
            items.push(item);
        }
        let artifact =
            Artifact::from_stdout(text.into_bytes(), Exit::Code(1), vec!["eslint".into()]);
        let graph = EvidenceGraph {
            reader: crate::evidence::Reader::family("eslint"),
            outcome: Outcome::Failed,
            counts: vec![("errors".into(), 800)],
            items,
            conclusion: Vec::new(),
        };
        (artifact, graph)
    }

    /// 600 cases of one GoogleTest test and 34 of another are two facts:
    /// two groups, not one per case nor one for the file.
    #[test]
    fn cases_of_one_test_are_one_group() {
        let mut text = String::new();
        let mut items = Vec::new();
        for (test, n) in [
            ("Sweep/Wide.RoundsHalfUp", 600),
            ("Sweep/Narrow.Splits", 34),
        ] {
            for i in 0..n {
                let id = format!("{test}/{i}");
                text.push_str(&format!("[  FAILED  ] {id} (0 ms)\n"));
                let mut item = EvidenceItem::new(ItemKind::FailingTest, Severity::Error, &id);
                item.fields
                    .insert(crate::evidence::CASE_FIELD.to_string(), format!("/{i}"));
                item.location = Some(Location {
                    file: "test/many_test.cpp".into(),
                    line: Some(10),
                    column: None,
                });
                items.push(item);
            }
        }
        let artifact = Artifact::from_stdout(text.into_bytes(), Exit::Code(1), vec![]);
        let graph = EvidenceGraph {
            reader: crate::evidence::Reader::family("gtest"),
            outcome: Outcome::Failed,
            counts: vec![("failed".into(), 634)],
            items,
            conclusion: Vec::new(),
        };
        let receipt = CoverageReceipt::new(artifact.line_count() as u64);
        let budget = Budget {
            target: 500,
            ceiling: 4000,
            census: 500,
        };
        let contract = crate::contract::for_family("gtest").unwrap();
        let plan = super::super::plan(&artifact, &graph, &receipt, &contract, budget);
        assert_eq!(plan.rung, Rung::Flood);
        let rendered = crate::render::render(&artifact, &graph, &plan, None);
        let groups: Vec<&str> = rendered
            .lines
            .iter()
            .filter_map(|l| l.text.strip_prefix("[ctx]   "))
            .collect();
        assert_eq!(groups.len(), 2, "{groups:#?}");
        assert!(groups[0].starts_with("Sweep/Wide.RoundsHalfUp ") && groups[0].contains("×600"));
        assert!(groups[1].starts_with("Sweep/Narrow.Splits ") && groups[1].contains("×34"));
    }

    #[test]
    fn rule_less_errors_group_under_one_label() {
        let (artifact, graph) = flood();
        let receipt = CoverageReceipt::new(artifact.line_count() as u64);
        let budget = Budget {
            target: 500,
            ceiling: 4000,
            census: 500,
        };
        let contract = crate::contract::for_family("eslint").unwrap();
        let plan = super::super::plan(&artifact, &graph, &receipt, &contract, budget);
        assert_eq!(plan.rung, Rung::Flood);
        let rendered = crate::render::render(&artifact, &graph, &plan, None);
        let notes: Vec<&str> = rendered
            .lines
            .iter()
            .filter_map(|l| l.text.strip_prefix("[ctx] "))
            .collect();
        let no_code: Vec<&&str> = notes
            .iter()
            .filter(|n| n.trim_start().starts_with(super::NO_CODE))
            .collect();
        assert_eq!(no_code.len(), 1, "{notes:#?}");
        assert!(no_code[0].contains("×400"), "{}", no_code[0]);
        assert!(
            !notes.iter().any(|n| n.trim_start().starts_with("src/very")),
            "a group per file: {notes:#?}"
        );
    }
}
