//! The contract's preferred items (warnings, notes…), planned after the
//! census with what budget is left.

use super::Planner;
use super::tally::tally;
use crate::contract::Tier;
use crate::delivery_plan::{Note, Tally};
use crate::evidence::Severity;
use crate::plan::{Address, Block, Left, MARKER_TOKENS, Omitted};

impl Planner<'_> {
    /// Warnings and other non-census findings: counted by class and file,
    /// named while the budget allows, declared when it does not.
    pub(super) fn secondary(&mut self) {
        let items: Vec<usize> = (0..self.graph.items.len())
            .filter(|&i| self.contract.tier(self.item(i)) == Tier::Preferred)
            .collect();
        if items.is_empty() {
            return;
        }
        let noun = match self.item(items[0]).severity {
            Severity::Warning => "warnings",
            _ => "findings",
        };
        let classes = tally(items.iter().filter_map(|&i| self.item(i).class.as_deref()));
        // Tallies are summaries, never census: each only when it fits
        // with the marker that may follow.
        let limit = self.budget.target.saturating_sub(MARKER_TOKENS);
        let coded = !classes.is_empty();
        let by_code = Note::Tally {
            of: Tally::ByCode(noun.to_string()),
            counts: classes,
        };
        if coded && self.spent + self.note_cost(&by_code) <= limit {
            self.notice(by_code);
        }
        self.top_files(&items, Tally::ByFile(noun.to_string()), limit);
        // Identical findings (one header's warning from 40 translation
        // units) are named once with their count.
        let mut named = 0;
        for entry in super::dedupe(self.graph, &items) {
            let repeats = Note::Repeats { times: entry.times };
            let cost = self.line_cost(entry.index)
                + if entry.times > 1 {
                    super::note_tokens(self.artifact, self.graph, &repeats)
                } else {
                    0
                };
            if self.spent + cost + MARKER_TOKENS > self.budget.target {
                break;
            }
            self.spent += cost;
            self.blocks.push(Block::Item {
                index: entry.index,
                detail: false,
            });
            if entry.times > 1 {
                self.blocks.push(Block::Notice(repeats));
            }
            named += entry.times;
        }
        if named < items.len() {
            let warnings = noun == "warnings";
            let filter = warnings.then(|| "--severity warning".to_string());
            self.omit(
                Omitted::Items(Left::FindingsNotNamed { warnings }),
                items.len() - named,
                Address::Items(filter),
            );
        }
    }
}
