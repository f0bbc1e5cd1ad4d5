//! Evidence contracts: per family, what the reader acts on (the decision
//! unit and its noun), which items must survive every budget, which are
//! shown while the budget allows, in what order, and which planner reads
//! them. Embedded from `contracts/*.toml` at build time and validated on
//! load; an invalid contract is a load error, never a silent default. The
//! planner, the census guard and `ctx expand --items` all read the census
//! rule from here: no other module decides what is required.

use serde::{Deserialize, Serialize};

use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind, Severity};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/contracts.rs"));
}

/// The only schema this build understands.
pub const SCHEMA: &str = "ctx.evidence-contract/v2";

/// Output up to this many tokens is printed verbatim under every contract:
/// no evidence floor may be lower (the pipeline skips sniffing below it).
pub const SMALL_OUTPUT_TOKENS: usize = 256;

#[derive(Debug, thiserror::Error)]
pub enum ContractError {
    #[error("no contract for family {0}")]
    Missing(String),
    #[error("contract {file}: {why}")]
    Invalid { file: String, why: String },
}

/// Which planner reads the family's evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Planner {
    /// Identities first (failing tests, error diagnostics), then detail.
    Census,
    /// Lines only: head, decisive lines, tail (text/v1).
    Lines,
    /// Changed files with their hunks (unified diffs).
    Diff,
    /// Matching files with their counts, then first matches.
    Search,
    /// Folders in the listing's order, anomalies whole, entries elastic.
    Listing,
    /// A failure's decisive lines first, then the lines naming packages.
    Install,
    /// Logs: counts, failing endpoints, error events, templates.
    Log,
    /// git's own listings: each item named by its line (status paths, log
    /// commits, conflicts, ref updates, refs, blamed commits).
    Roster,
    /// Data sets (JSON, tables): anomalous records, exact lengths,
    /// statistics and disclosed samples.
    Data,
    /// CI job logs: one line per step, the failing step's content planned
    /// by the family that reads it, every annotation.
    CiLog,
}

/// The order census items are listed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StableOrder {
    /// As the tool printed them.
    Occurrence,
    /// Errors first, then warnings…; ties in occurrence order.
    Severity,
    /// Grouped by file in order of the file's first item.
    File,
}

/// A noun in its two numbers: `failure`/`failures`, `changed file`/`changed files`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Noun {
    pub one: String,
    pub many: String,
}

impl Noun {
    pub fn new(one: &str, many: &str) -> Noun {
        Noun {
            one: one.to_string(),
            many: many.to_string(),
        }
    }

    /// The form that agrees with `n`.
    pub fn of(&self, n: usize) -> &str {
        if n == 1 { &self.one } else { &self.many }
    }
}

/// A class of items: every item of `kind`, narrowed to one `severity` and
/// to `classes` (the item's class or code: `destroy`, `E0308`) when given.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ItemClass {
    pub kind: ItemKind,
    #[serde(default)]
    pub severity: Option<Severity>,
    #[serde(default)]
    pub classes: Vec<String>,
    /// What a census made only of this class is counted as (`errors` in a
    /// test run that did not compile); else the family's unit.
    #[serde(default)]
    pub unit: Option<Noun>,
}

impl ItemClass {
    pub fn matches(&self, item: &EvidenceItem) -> bool {
        item.kind == self.kind
            && self.severity.is_none_or(|s| item.severity == s)
            && (self.classes.is_empty()
                || item
                    .class
                    .as_deref()
                    .is_some_and(|c| self.classes.iter().any(|k| k == c)))
    }
}

/// Where an item stands in the digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Named at every budget (inline, grouped with exact counts, or behind
    /// `--items`, declared): losing one is a rejected digest.
    Required,
    /// Named while the budget allows, counted and declared when not.
    Preferred,
    /// Left to `ctx expand` (its filters, `--item`, the raw lines).
    Retrievable,
}

/// The census rule: which item classes stand in each tier. An item is
/// in the first tier one of whose classes matches it; items no class
/// matches are retrievable.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Census {
    #[serde(default)]
    pub required: Vec<ItemClass>,
    #[serde(default)]
    pub preferred: Vec<ItemClass>,
    #[serde(default)]
    pub retrievable: Vec<ItemClass>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Rendering {
    pub stable_order: StableOrder,
    pub evidence_floor_tokens: usize,
    pub hard_ceiling_tokens: usize,
    /// What a digest aims for (detail is thinned to it); output within it
    /// is printed verbatim. The census alone may grow to the hard ceiling.
    /// Defaults to the hard ceiling.
    #[serde(default)]
    pub target_tokens: Option<usize>,
}

impl Rendering {
    pub fn target(&self) -> usize {
        self.target_tokens.unwrap_or(self.hard_ceiling_tokens)
    }
}

/// A validated contract.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    pub schema: String,
    pub family: String,
    pub profile: String,
    pub planner: Planner,
    /// The decision unit: what the reader acts on, as digests count it.
    pub unit: Noun,
    pub census: Census,
    pub rendering: Rendering,
}

impl Contract {
    /// Parses and validates one contract file.
    pub fn parse(file: &str, text: &str) -> Result<Contract, ContractError> {
        let invalid = |why: String| ContractError::Invalid {
            file: file.to_string(),
            why,
        };
        let contract: Contract = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        contract.validate().map_err(invalid)?;
        let stem = file.trim_end_matches(".toml");
        if stem != contract.family {
            return Err(invalid(format!(
                "family {:?} does not match the file name",
                contract.family
            )));
        }
        Ok(contract)
    }

    fn validate(&self) -> Result<(), String> {
        if self.schema != SCHEMA {
            return Err(format!("schema must be {SCHEMA:?}, not {:?}", self.schema));
        }
        let version = self
            .profile
            .strip_prefix(&format!("{}/v", self.family))
            .ok_or_else(|| format!("profile {:?} is not {}/vN", self.profile, self.family))?;
        if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("profile {:?} has no version number", self.profile));
        }
        let nouns = std::iter::once(&self.unit).chain(
            self.census
                .required
                .iter()
                .chain(&self.census.preferred)
                .chain(&self.census.retrievable)
                .filter_map(|c| c.unit.as_ref()),
        );
        for noun in nouns {
            if noun.one.trim().is_empty() || noun.many.trim().is_empty() {
                return Err("a unit noun is empty".into());
            }
        }
        if self.planner != Planner::Lines && self.census.required.is_empty() {
            return Err(format!(
                "the {:?} planner needs [census] required classes",
                self.planner
            ));
        }
        let classes: Vec<&ItemClass> = self
            .census
            .required
            .iter()
            .chain(&self.census.preferred)
            .chain(&self.census.retrievable)
            .collect();
        for (i, class) in classes.iter().enumerate() {
            if classes[..i].contains(class) {
                return Err(format!("[census] names {class:?} twice"));
            }
        }
        let r = &self.rendering;
        if r.evidence_floor_tokens < SMALL_OUTPUT_TOKENS
            || r.evidence_floor_tokens >= r.hard_ceiling_tokens
        {
            return Err(format!(
                "evidence_floor_tokens ({}) must be at least {SMALL_OUTPUT_TOKENS} and below hard_ceiling_tokens ({})",
                r.evidence_floor_tokens, r.hard_ceiling_tokens
            ));
        }
        if let Some(t) = r.target_tokens
            && (t < r.evidence_floor_tokens || t > r.hard_ceiling_tokens)
        {
            return Err(format!(
                "target_tokens ({t}) must lie between evidence_floor_tokens and hard_ceiling_tokens"
            ));
        }
        Ok(())
    }

    /// The class that places `item`, and its tier; None: retrievable by
    /// default (no class names it).
    fn placed(&self, item: &EvidenceItem) -> Option<(Tier, &ItemClass)> {
        let c = &self.census;
        [
            (Tier::Required, &c.required),
            (Tier::Preferred, &c.preferred),
            (Tier::Retrievable, &c.retrievable),
        ]
        .into_iter()
        .find_map(|(tier, classes)| {
            classes
                .iter()
                .find(|class| class.matches(item))
                .map(|class| (tier, class))
        })
    }

    /// Where `item` stands in the digest.
    pub fn tier(&self, item: &EvidenceItem) -> Tier {
        self.placed(item)
            .map_or(Tier::Retrievable, |(tier, _)| tier)
    }

    /// True when the item's identity must survive every budget.
    pub fn requires(&self, item: &EvidenceItem) -> bool {
        self.tier(item) == Tier::Required
    }

    /// The graph's required items, in the graph's order.
    pub fn census<'g>(&self, graph: &'g EvidenceGraph) -> impl Iterator<Item = &'g EvidenceItem> {
        graph.items.iter().filter(|i| self.requires(i))
    }

    /// Indices of the graph's required items, in the contract's order.
    pub fn census_indices(&self, graph: &EvidenceGraph) -> Vec<usize> {
        let mut census: Vec<usize> = (0..graph.items.len())
            .filter(|&i| self.requires(&graph.items[i]))
            .collect();
        let item = |i: &usize| &graph.items[*i];
        match self.rendering.stable_order {
            StableOrder::Occurrence => {}
            StableOrder::Severity => census.sort_by_key(|i| item(i).severity),
            StableOrder::File => {
                let mut first: Vec<&str> = Vec::new();
                for i in &census {
                    let file = item(i).location.as_ref().map_or("", |l| l.file.as_str());
                    if !first.contains(&file) {
                        first.push(file);
                    }
                }
                census.sort_by_key(|i| {
                    let file = item(i).location.as_ref().map_or("", |l| l.file.as_str());
                    first.iter().position(|f| *f == file)
                });
            }
        }
        census
    }

    /// What `item` is counted as: the unit its class declares, else the
    /// family's.
    pub fn noun_of(&self, item: &EvidenceItem) -> &Noun {
        self.placed(item)
            .and_then(|(_, class)| class.unit.as_ref())
            .unwrap_or(&self.unit)
    }

    /// What this graph's census is counted as: the noun its items'
    /// classes share when every one declares the same (a test run that did
    /// not compile counts errors), else the family's unit.
    pub fn census_unit(&self, graph: &EvidenceGraph) -> &Noun {
        let census: Vec<&EvidenceItem> = graph.items.iter().filter(|i| self.requires(i)).collect();
        let mut shared: Option<&Noun> = None;
        for item in census {
            let noun = self
                .placed(item)
                .and_then(|(_, class)| class.unit.as_ref())
                .unwrap_or(&self.unit);
            match shared {
                Some(n) if n != noun => return &self.unit,
                _ => shared = Some(noun),
            }
        }
        shared.unwrap_or(&self.unit)
    }
}

/// The embedded contract files, by file name.
pub fn embedded() -> &'static [(&'static str, &'static str)] {
    embedded::EMBEDDED
}

/// Loads and validates the contract for `family`: a trusted project's
/// `.ctx/contracts/<family>.toml` when there is one (`crate::trust`) and it
/// is valid, else the embedded one. An invalid project contract is noted
/// and the embedded one used (fail closed to the built-in).
pub fn for_family(family: &str) -> Result<Contract, ContractError> {
    let file = format!("{family}.toml");
    let project = crate::trust::project_files("contracts");
    if let Some(own) = project
        .files
        .iter()
        .find(|f| f.path.file_name().is_some_and(|n| *n == *file))
    {
        match Contract::parse(&file, &own.text) {
            Ok(contract) => return Ok(contract),
            Err(e) => crate::emit::note(&format!("[ctx] project {e}; built-in contract used")),
        }
    }
    let (name, text) = embedded()
        .iter()
        .find(|(name, _)| *name == file)
        .ok_or_else(|| ContractError::Missing(family.to_string()))?;
    Contract::parse(name, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_contract_is_valid() {
        assert!(!embedded().is_empty());
        for (name, text) in embedded() {
            Contract::parse(name, text).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    fn text_contract() -> String {
        embedded()
            .iter()
            .find(|(n, _)| *n == "text.toml")
            .map(|(_, t)| t.to_string())
            .unwrap()
    }

    /// The contract without its `required = [ … ]` list.
    fn without_required(contract: &str) -> String {
        let mut out = String::new();
        let mut inside = false;
        for line in contract.lines() {
            if line.starts_with("required = [") {
                inside = true;
            }
            if !inside {
                out.push_str(line);
                out.push('\n');
            }
            if inside && line == "]" {
                inside = false;
            }
        }
        out
    }

    #[test]
    fn rejects_broken_contracts() {
        let good = text_contract();
        let cases = [
            (good.replace(SCHEMA, "ctx.evidence-contract/v1"), "schema"),
            (
                good.replace("profile = \"text/v1\"", "profile = \"text\""),
                "profile",
            ),
            (
                good.replace("planner = \"lines\"", "planner = \"guess\""),
                "planner",
            ),
            (
                without_required(&good).replace("planner = \"lines\"", "planner = \"census\""),
                "required classes",
            ),
            (
                good.replace("one = \"finding\"", "one = \" \""),
                "noun is empty",
            ),
            (
                good.replace("kind = \"decisive_line\"", "kind = \"decisive_lines\""),
                "kind",
            ),
            (
                good.replace(
                    "preferred = [{ kind = \"decisive_line\" }]",
                    "preferred = [{ kind = \"decisive_line\" }, { kind = \"decisive_line\" }]",
                ),
                "twice",
            ),
            (
                good.replace("hard_ceiling_tokens = 1200", "hard_ceiling_tokens = 100"),
                "floor",
            ),
            (
                good.replace("stable_order = \"occurrence\"", "stable_order = \"random\""),
                "stable_order",
            ),
            (format!("{good}\nextra = 1\n"), "unknown field"),
        ];
        for (text, why) in cases {
            assert_ne!(text, good, "{why}: the case changes nothing");
            let err = Contract::parse("text.toml", &text)
                .expect_err(why)
                .to_string();
            assert!(err.contains(why), "{why}: {err}");
        }
        let err = Contract::parse("other.toml", &good)
            .unwrap_err()
            .to_string();
        assert!(err.contains("file name"), "{err}");
    }

    fn item(kind: ItemKind, severity: Severity, id: &str, class: Option<&str>) -> EvidenceItem {
        let mut item = EvidenceItem::new(kind, severity, id);
        item.class = class.map(str::to_string);
        item
    }

    /// A family that is neither a test runner nor a compiler declares its
    /// own unit and its own required classes: a plan's destroys and
    /// replaces survive, its updates are shown while they fit, and its
    /// census is counted in its own noun.
    #[test]
    fn a_family_declares_its_unit_and_required_classes() {
        let text = r#"
schema = "ctx.evidence-contract/v2"
family = "plan"
profile = "plan/v1"
planner = "census"
[unit]
one = "resource change"
many = "resource changes"
[census]
required = [{ kind = "decisive_line", classes = ["destroy", "replace"] }]
preferred = [{ kind = "decisive_line" }]
[rendering]
stable_order = "severity"
evidence_floor_tokens = 256
hard_ceiling_tokens = 4000
"#;
        let contract = Contract::parse("plan.toml", text).unwrap();
        let mut graph = EvidenceGraph::empty();
        graph.items = vec![
            item(ItemKind::DecisiveLine, Severity::Info, "a", Some("update")),
            item(
                ItemKind::DecisiveLine,
                Severity::Warning,
                "b",
                Some("destroy"),
            ),
            item(
                ItemKind::DecisiveLine,
                Severity::Error,
                "c",
                Some("replace"),
            ),
        ];
        assert_eq!(contract.tier(&graph.items[0]), Tier::Preferred);
        let ids: Vec<&str> = contract
            .census(&graph)
            .map(|i| i.identity.as_str())
            .collect();
        assert_eq!(ids, ["b", "c"]);
        // `severity` order: the error first, whatever the tool's order.
        assert_eq!(contract.census_indices(&graph), [2, 1]);
        assert_eq!(contract.census_unit(&graph).of(2), "resource changes");
        assert_eq!(contract.census_unit(&graph).of(1), "resource change");
    }

    /// A census made only of one class with a noun of its own is counted
    /// in it (a test run that did not compile counts errors); a mixed one
    /// in the family's unit.
    #[test]
    fn a_class_noun_counts_a_census_made_only_of_it() {
        let contract = for_family("cargo_test").unwrap();
        let mut graph = EvidenceGraph::empty();
        graph.items = vec![item(
            ItemKind::Diagnostic,
            Severity::Error,
            "src/a.rs:1:1 E0308",
            None,
        )];
        assert_eq!(contract.census_unit(&graph).many, "errors");
        graph
            .items
            .push(item(ItemKind::FailingTest, Severity::Error, "t", None));
        assert_eq!(contract.census_unit(&graph).many, "failures");
        // A warning is preferred, not required: it does not change the unit.
        graph.items[0].severity = Severity::Warning;
        assert_eq!(contract.tier(&graph.items[0]), Tier::Preferred);
        assert_eq!(contract.census_unit(&graph).many, "failures");
    }

    #[test]
    fn file_order_keeps_each_file_together() {
        let mut contract = for_family("tsc").unwrap();
        contract.rendering.stable_order = StableOrder::File;
        let mut graph = EvidenceGraph::empty();
        for file in ["a.ts", "b.ts", "a.ts"] {
            let mut it = item(ItemKind::Diagnostic, Severity::Error, file, None);
            it.location = Some(crate::evidence::Location {
                file: file.into(),
                line: None,
                column: None,
            });
            graph.items.push(it);
        }
        assert_eq!(contract.census_indices(&graph), [0, 2, 1]);
    }
}
