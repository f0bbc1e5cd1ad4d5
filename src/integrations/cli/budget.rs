//! The `--budget` help of `run`, `pipe` and `digest`: what budget a digest
//! is planned for when none is given, read from the contracts themselves
//! so the help cannot drift from them (`plan::Budget` is the rule).

use crate::contract;
use crate::plan::MAX_SHARE_PERCENT;
use crate::profiles;
use crate::render::count;

pub const SHORT_HELP: &str = "Tokens the digest should fit in (default: the family's target; \
     `--help` lists them)";

/// The precedence, the per-family targets, the floor and the share cap.
pub fn long_help() -> String {
    // Families grouped by target, in registry order: `500 (pytest, …)`.
    let mut targets: Vec<(usize, Vec<String>)> = Vec::new();
    let mut floors = Vec::new();
    for profile in profiles::registry() {
        if let Ok(c) = contract::for_family(profile.family()) {
            let target = c.rendering.target();
            match targets.iter_mut().find(|(t, _)| *t == target) {
                Some((_, families)) => families.push(c.family.clone()),
                None => targets.push((target, vec![c.family.clone()])),
            }
            floors.push(c.rendering.evidence_floor_tokens);
        }
    }
    let targets: Vec<String> = targets
        .iter()
        .map(|(t, families)| format!("{} tokens for {}", count(*t), families.join(", ")))
        .collect();
    floors.sort_unstable();
    floors.dedup();
    let floor = match floors.as_slice() {
        [one] => format!("{} tokens", count(*one)),
        _ => "its family's evidence floor".to_string(),
    };
    format!(
        "Tokens the digest should fit in.\n\n\
         Without --budget: $CTX_BUDGET, else `budget` in config.toml (`ctx config` shows \
         which), else the family contract's target: {}.\n\n\
         A budget is never below the evidence floor ({floor}), and a digest also aims at no \
         more than {MAX_SHARE_PERCENT}% of the output's own tokens. Output within the \
         budget is printed as it is.",
        targets.join("; ")
    )
}
