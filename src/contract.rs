//! Evidence contracts: per family, which facts must survive every budget,
//! which may shrink, which may leave the digest as long as their address
//! stays. Embedded from `contracts/*.toml` at build time and validated on
//! load; an invalid contract is a load error, never a silent default.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/contracts.rs"));
}

/// The only schema this build understands.
pub const SCHEMA: &str = "ctx.evidence-contract/v1";

/// Outcome sections a contract may have; `default` is mandatory.
pub const OUTCOMES: &[&str] = &["pass", "fail", "error", "interrupted", "default"];

/// Output up to this many tokens is printed verbatim under every contract:
/// no evidence floor may be lower (the pipeline skips sniffing below it).
pub const SMALL_OUTPUT_TOKENS: usize = 256;

/// Orders a renderer may be asked to keep.
pub const STABLE_ORDERS: &[&str] = &["occurrence", "severity", "file"];

#[derive(Debug, thiserror::Error)]
pub enum ContractError {
    #[error("no contract for family {0}")]
    Missing(String),
    #[error("contract {file}: {why}")]
    Invalid { file: String, why: String },
}

/// How bad losing a fact class is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Loss {
    Catastrophic,
    Major,
    Minor,
}

/// The three tiers of one outcome.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Tiers {
    #[serde(default)]
    pub required: Vec<String>,
    #[serde(default)]
    pub preferred: Vec<String>,
    #[serde(default)]
    pub retrievable: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Rendering {
    pub stable_order: String,
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
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    pub schema: String,
    pub family: String,
    pub profile: String,
    pub decision_unit: String,
    pub outcomes: BTreeMap<String, Tiers>,
    pub loss_severities: BTreeMap<String, Loss>,
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
        if self.decision_unit.trim().is_empty() {
            return Err("decision_unit is empty".into());
        }
        if !self.outcomes.contains_key("default") {
            return Err("[outcomes.default] is missing".into());
        }
        let mut named = BTreeSet::new();
        for (outcome, tiers) in &self.outcomes {
            if !OUTCOMES.contains(&outcome.as_str()) {
                return Err(format!("unknown outcome [outcomes.{outcome}]"));
            }
            if tiers.required.is_empty() {
                return Err(format!("[outcomes.{outcome}] requires nothing"));
            }
            let mut seen = BTreeSet::new();
            for class in tiers
                .required
                .iter()
                .chain(&tiers.preferred)
                .chain(&tiers.retrievable)
            {
                if !seen.insert(class) {
                    return Err(format!("[outcomes.{outcome}] names {class:?} twice"));
                }
                named.insert(class.clone());
            }
            for class in &tiers.required {
                match self.loss_severities.get(class) {
                    Some(Loss::Catastrophic | Loss::Major) => {}
                    Some(Loss::Minor) => {
                        return Err(format!(
                            "{class:?} is required in [outcomes.{outcome}] but its loss is minor"
                        ));
                    }
                    None => return Err(format!("{class:?} has no loss severity")),
                }
            }
        }
        for class in self.loss_severities.keys() {
            if !named.contains(class) {
                return Err(format!(
                    "loss severity for {class:?}, which no outcome names"
                ));
            }
        }
        for class in &named {
            if !self.loss_severities.contains_key(class) {
                return Err(format!("{class:?} has no loss severity"));
            }
        }
        if !STABLE_ORDERS.contains(&self.rendering.stable_order.as_str()) {
            return Err(format!(
                "stable_order {:?} is not one of {STABLE_ORDERS:?}",
                self.rendering.stable_order
            ));
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

    /// The tiers for an outcome word (`pass`, `fail`…), else `default`.
    pub fn tiers(&self, outcome: &str) -> &Tiers {
        self.outcomes
            .get(outcome)
            .or_else(|| self.outcomes.get("default"))
            .expect("validated: default exists")
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

    #[test]
    fn rejects_broken_contracts() {
        let good = text_contract();
        let cases = [
            (good.replace("ctx.evidence-contract/v1", "v0"), "schema"),
            (
                good.replace("profile = \"text/v1\"", "profile = \"text\""),
                "profile",
            ),
            (
                good.replace("[outcomes.default]", "[outcomes.sometimes]"),
                "outcome",
            ),
            (good.replace("head = \"minor\"", ""), "loss severity"),
            (
                good.replace("exit_status = \"catastrophic\"", "exit_status = \"minor\""),
                "minor",
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
}
