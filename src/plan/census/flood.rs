//! FLOOD: the census alone exceeds the ceiling, so identities are grouped
//! by class with exact counts and examples, all of them behind `--items`.

use std::collections::HashMap;

use super::{Planner, unit};
use crate::plan::{Address, Block, Omitted, Rung};
use crate::render::count;
use crate::tokens;

impl Planner<'_> {
    /// The census exceeds the ceiling: group by class with exact counts.
    pub(super) fn flood(&mut self, census: &[usize], ceiling: usize) {
        self.rung = Rung::Flood;
        let unit = unit(self.graph);
        self.blocks.push(Block::Note(format!(
            "census grouped: {} {unit} exceed the {}-token ceiling",
            count(census.len()),
            count(ceiling)
        )));
        // Tests group by file and failure class; diagnostics by code.
        let by_file = unit == "failures";
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for &i in census {
            let item = self.item(i);
            let class = item
                .class
                .clone()
                .unwrap_or_else(|| "(unclassified)".to_string());
            let key = match (&item.location, by_file) {
                (Some(l), true) => format!("{} {class}", l.file),
                (None, true) => class,
                (_, false) => item
                    .class
                    .clone()
                    .or_else(|| item.location.as_ref().map(|l| l.file.clone()))
                    .unwrap_or(class),
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
        let mut shown = 0usize;
        let mut examples = 0usize;
        for (key, members) in &groups {
            let ids: Vec<&str> = members
                .iter()
                .take(2)
                .map(|&i| self.item(i).identity.as_str())
                .collect();
            let more = if members.len() > 2 { ", …" } else { "" };
            let line = format!(
                "  {key:<width$} ×{}  {}{more}",
                count(members.len()),
                ids.join(", ")
            );
            let cost = tokens::estimate(line.as_bytes()) + 2;
            if self.spent + cost > ceiling {
                break;
            }
            self.spent += cost;
            self.blocks.push(Block::Note(line));
            shown += 1;
            examples += ids.len();
        }
        if shown < groups.len() {
            let rest: usize = groups[shown..].iter().map(|g| g.1.len()).sum();
            self.blocks.push(Block::Note(format!(
                "  … {} more groups holding {} {unit}",
                count(groups.len() - shown),
                count(rest)
            )));
        }
        self.top_files(census, "top files");
        let listed = census.len() - examples;
        self.omit(
            Omitted::Items(format!("{unit} counted above but not named")),
            listed,
            Address::Items(None),
        );
        // The first failure's detail, when it fits: the likeliest shared cause.
        let first = census[0];
        let with_detail = census.iter().filter(|&&i| self.detail_usable(i)).count();
        if self.detail_usable(first) && self.spent + self.detail_cost(first) <= ceiling {
            self.spent += self.detail_cost(first);
            self.blocks.push(Block::Detail(first));
            if with_detail > 1 {
                let what = format!("more {unit} with detail");
                self.omit(Omitted::Items(what), with_detail - 1, Address::Details);
            }
        } else if with_detail > 0 {
            let what = format!("{unit} with detail");
            self.omit(Omitted::Items(what), with_detail, Address::Details);
        }
    }
}
