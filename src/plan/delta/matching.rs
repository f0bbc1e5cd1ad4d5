//! How a run's items pair with the last run's (`plan::delta`): exact
//! equality of a matching key. A test's key is its identity; a located
//! diagnostic's is its file, code and message, so that an edit above it
//! that moves it leaves it the same diagnostic, while a changed message
//! makes it another. Warnings pair the same way, each occurrence once.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::contract::{Contract, Tier};
use crate::delivery_plan::WarningsDelta;
use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind, Severity};

/// The matching keys of a graph's warnings (the contract's preferred
/// findings, never census), every occurrence, in the graph's order.
pub fn warnings(contract: &Contract, graph: &EvidenceGraph) -> Vec<String> {
    graph
        .items
        .iter()
        .filter(|i| contract.tier(i) == Tier::Preferred)
        .map(matching_key)
        .collect()
}

/// This run's warnings against the last run's keys: each key occurrence
/// pairs once (`same`), the rest of the last run's are `fixed`, the rest
/// of this run's `new` (named by identity).
pub(super) fn compare_warnings(
    contract: &Contract,
    graph: &EvidenceGraph,
    previous: &[String],
) -> WarningsDelta {
    let mut left: HashMap<&str, usize> = HashMap::new();
    for key in previous {
        *left.entry(key.as_str()).or_default() += 1;
    }
    let mut same = 0;
    let mut new = Vec::new();
    let preferred: Vec<&EvidenceItem> = graph
        .items
        .iter()
        .filter(|i| contract.tier(i) == Tier::Preferred)
        .collect();
    // The noun the planner counts them in (`plan::census::secondary`).
    let noun = match preferred.first().map(|i| i.severity) {
        Some(Severity::Warning) | None => "warnings",
        Some(_) => "findings",
    };
    for item in preferred {
        let key = matching_key(item);
        match left.get_mut(key.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                same += 1;
            }
            _ => new.push(item.identity.clone()),
        }
    }
    WarningsDelta {
        noun: noun.to_string(),
        fixed: previous.len() - same,
        same,
        new,
    }
}

/// What makes two runs' items the same failure. A test is its identity.
/// A located diagnostic is its file, code and message: the line and
/// column say where it is now, and an edit above it moves it without
/// making it another diagnostic. Without a message the identity (with its
/// location) is all there is.
pub fn matching_key(item: &EvidenceItem) -> String {
    match (&item.kind, &item.location, &item.summary) {
        (ItemKind::Diagnostic, Some(at), Some(message)) if at.line.is_some() => format!(
            "{}\u{1f}{}\u{1f}{message}",
            at.file,
            item.class.as_deref().unwrap_or("")
        ),
        _ => item.identity.clone(),
    }
}

/// How the last run's items and this run's pair up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// The last run's identities not in this run, in its order.
    pub fixed: Vec<String>,
    /// (the last run's identity, this run's identity) of each item in
    /// both, in this run's order; the two differ when it moved.
    pub still: Vec<(String, String)>,
    /// This run's identities not in the last run, in its order.
    pub new: Vec<String>,
}

/// Pairs the last run's (identity, key) entries with this run's by exact
/// equality of their keys: first those whose identity is equal too (it did
/// not move), then the rest of each key in order (the k-th left of a key
/// before with the k-th left of it now). Every entry is in exactly one
/// list: previous = fixed + still, current = still + new. Entries are
/// taken once per identity.
pub fn compare(previous: &[(String, String)], current: &[(String, String)]) -> Comparison {
    let previous = once_each(previous);
    let current = once_each(current);
    let mut paired_before = vec![false; previous.len()];
    let mut partner: Vec<Option<usize>> = vec![None; current.len()];
    let exact: HashMap<(&str, &str), usize> = previous
        .iter()
        .enumerate()
        .map(|(i, (id, key))| ((id.as_str(), key.as_str()), i))
        .collect();
    for (c, (id, key)) in current.iter().enumerate() {
        if let Some(&p) = exact.get(&(id.as_str(), key.as_str())) {
            paired_before[p] = true;
            partner[c] = Some(p);
        }
    }
    let mut by_key: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (p, (_, key)) in previous.iter().enumerate() {
        if !paired_before[p] {
            by_key.entry(key.as_str()).or_default().push_back(p);
        }
    }
    for (c, (_, key)) in current.iter().enumerate() {
        if partner[c].is_none()
            && let Some(p) = by_key.get_mut(key.as_str()).and_then(VecDeque::pop_front)
        {
            paired_before[p] = true;
            partner[c] = Some(p);
        }
    }
    let mut out = Comparison::default();
    for (p, (id, _)) in previous.iter().enumerate() {
        if !paired_before[p] {
            out.fixed.push(id.clone());
        }
    }
    for (c, (id, _)) in current.iter().enumerate() {
        match partner[c] {
            Some(p) => out.still.push((previous[p].0.clone(), id.clone())),
            None => out.new.push(id.clone()),
        }
    }
    out
}

/// Each identity's first entry, in order.
fn once_each(entries: &[(String, String)]) -> Vec<&(String, String)> {
    let mut seen = HashSet::new();
    entries
        .iter()
        .filter(|(id, _)| seen.insert(id.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Entries whose key is their identity (tests).
    fn tests(v: &[&str]) -> Vec<(String, String)> {
        v.iter().map(|s| (s.to_string(), s.to_string())).collect()
    }

    /// `ID=KEY` entries (diagnostics).
    fn diags(v: &[&str]) -> Vec<(String, String)> {
        v.iter()
            .map(|s| {
                let (id, key) = s.split_once('=').expect("ID=KEY");
                (id.to_string(), key.to_string())
            })
            .collect()
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn exact_matching_splits_a_rename_into_fixed_and_new() {
        let Comparison { fixed, still, new } = compare(
            &tests(&["a::t[1]", "a::u", "b::v"]),
            &tests(&["a::t[2]", "a::u", "c::w"]),
        );
        assert_eq!(fixed, ids(&["a::t[1]", "b::v"]));
        assert_eq!(still, pairs(&[("a::u", "a::u")]));
        assert_eq!(new, ids(&["a::t[2]", "c::w"]));
    }

    /// A line removed above two diagnostics moves them: still failing, at
    /// their new location; one whose message changed is fixed + new.
    #[test]
    fn a_diagnostic_that_moved_is_still_failing_where_it_is_now() {
        let Comparison { fixed, still, new } = compare(
            &diags(&[
                "a.c:6:9=unused",
                "a.c:27:12=totl",
                "a.c:30:1=ret",
                "a.c:40:1=ret",
            ]),
            &diags(&["a.c:26:12=totl", "a.c:29:1=ret", "a.c:39:1=other"]),
        );
        assert_eq!(fixed, ids(&["a.c:6:9", "a.c:40:1"]));
        assert_eq!(
            still,
            pairs(&[("a.c:27:12", "a.c:26:12"), ("a.c:30:1", "a.c:29:1")])
        );
        assert_eq!(new, ids(&["a.c:39:1"]));
    }

    /// Two equal messages in one file: the one that did not move pairs
    /// with itself first, whatever the order.
    #[test]
    fn an_unmoved_twin_pairs_with_itself_first() {
        let Comparison { fixed, still, new } = compare(
            &diags(&["a.ts:3:1=x", "a.ts:9:1=x"]),
            &diags(&["a.ts:9:1=x"]),
        );
        assert_eq!(fixed, ids(&["a.ts:3:1"]));
        assert_eq!(still, pairs(&[("a.ts:9:1", "a.ts:9:1")]));
        assert!(new.is_empty());
    }

    proptest! {
        /// previous = fixed + still, current = still + new, as sets and
        /// as counts, and every current identity is still or new, whether
        /// identities are their own keys (tests) or several share a key
        /// (diagnostics that moved, twins).
        #[test]
        fn the_arithmetic_adds_up(
            before in proptest::collection::vec(("[a-e]{1,2}", "[xy]"), 0..12),
            now in proptest::collection::vec(("[a-e]{1,2}", "[xy]"), 0..12),
            keyed in any::<bool>(),
        ) {
            let entries = |v: &[(String, String)]| -> Vec<(String, String)> {
                v.iter()
                    .map(|(id, k)| (id.clone(), if keyed { k.clone() } else { id.clone() }))
                    .collect()
            };
            let previous_entries = entries(&before);
            let current_entries = entries(&now);
            let Comparison { fixed, still, new } = compare(&previous_entries, &current_entries);
            let previous: Vec<String> = before.iter().map(|(id, _)| id.clone()).collect();
            let current: Vec<String> = now.iter().map(|(id, _)| id.clone()).collect();
            let (still_before, still): (Vec<String>, Vec<String>) = still.into_iter().unzip();
            let set = |v: &[String]| v.iter().cloned().collect::<std::collections::BTreeSet<_>>();
            // A pair joins items of one key.
            let key_of = |v: &[(String, String)], id: &str| {
                v.iter().find(|(i, _)| i == id).map(|(_, k)| k.clone())
            };
            for (b, n) in still_before.iter().zip(&still) {
                prop_assert_eq!(key_of(&previous_entries, b), key_of(&current_entries, n));
            }
            prop_assert_eq!(set(&still_before).len(), still_before.len());
            prop_assert_eq!(set(&previous).len(), fixed.len() + still.len());
            prop_assert_eq!(set(&current).len(), still.len() + new.len());
            let mut prev_parts = set(&fixed);
            prev_parts.extend(set(&still_before));
            prop_assert_eq!(prev_parts, set(&previous));
            let mut cur_parts = set(&still);
            cur_parts.extend(set(&new));
            prop_assert_eq!(cur_parts, set(&current));
        }
    }
}
