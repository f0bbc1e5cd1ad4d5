//! Every captured fixture, digested at its contract's default budget:
//! an insta snapshot per case, and the census invariant — every census
//! identity the profile extracted is named in the digest, or (FLOOD) listed
//! by `--items` — checked on each.

use ctx::archive::Known;
use ctx::artifact::Artifact;
use ctx::pipeline::{self, Options, Output};
use ctx::plan::Rung;
use ctx::store::ArchiveKey;
use ctx::zoom;

#[path = "support/census_text.rs"]
mod census_text;

#[path = "support/fixture_cases.rs"]
mod fixture_cases;
use fixture_cases::{cases, name};

fn digest(artifact: &Artifact) -> (String, pipeline::Delivery) {
    let d = pipeline::digest(
        artifact,
        &Known(ArchiveKey([0x5c; 32])),
        &Options::default(),
    )
    .unwrap();
    let text = match &d.output {
        Output::Digest(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Output::Raw => format!(
            "(raw output delivered: {} lines, {} bytes; profile {}; {})\n",
            artifact.line_count(),
            artifact.bytes().len(),
            d.profile,
            d.rejection
                .as_ref()
                .map_or("fits the budget".to_string(), |r| r.to_string())
        ),
    };
    (text, d)
}

#[test]
fn fixtures_digest_as_snapshotted() {
    let cases = cases();
    assert!(cases.len() > 20, "fixtures missing: {}", cases.len());
    for case in cases {
        let artifact = ctx::fixture::load(&case).unwrap();
        let (text, _) = digest(&artifact);
        insta::assert_snapshot!(name(&case), text);
    }
}

#[test]
fn every_census_identity_survives() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let (text, d) = digest(&artifact);
        let Some(trace) = &d.trace else { continue };
        if d.output == Output::Raw {
            // Raw output holds every identity by definition.
            continue;
        }
        let listed = zoom::items(&trace.contract, &trace.graph, &zoom::ItemFilter::default());
        let view = ctx::profiles::by_family(d.profile).and_then(|p| p.view(&artifact));
        let shown = view.as_ref().unwrap_or(&artifact);
        for item in trace.contract.census(&trace.graph) {
            // Lines as the digest shows them: a CI log's without their
            // timestamps (`Profile::view`, which keeps the working directory).
            let named = census_text::names(&text, shown, item);
            let grouped = trace.plan.rung == Rung::Flood && listed.contains(&item.identity);
            assert!(
                named || grouped,
                "{}: census identity {:?} lost (rung {:?})",
                name(&case),
                item.identity,
                trace.plan.rung
            );
        }
    }
}

#[test]
fn failed_runs_never_read_as_success() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        if !artifact.exit.is_failure() {
            continue;
        }
        let (text, d) = digest(&artifact);
        if d.output == Output::Raw {
            continue;
        }
        let first = text.lines().next().unwrap_or("");
        assert!(
            !first.contains("PASSED") && !first.contains(": OK"),
            "{}: {first}",
            name(&case)
        );
        assert!(
            first.contains("exit ") || first.contains("signal"),
            "{}: {first}",
            name(&case)
        );
    }
}

#[test]
fn digests_are_deterministic() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        assert_eq!(
            digest(&artifact).0,
            digest(&artifact.clone()).0,
            "{}",
            name(&case)
        );
    }
}

/// Rewrites every duration and clock time in the output (`0.52s`, `12 ms`,
/// `(0.00s)`, `12:04:31`) with other digits of the same length: a rerun of
/// the same tool on the same code.
fn rerun(artifact: &Artifact) -> Artifact {
    // A configured limit (jest's `timeout of 200 ms`, mocha's `Timeout of
    // 200ms`, vitest's `timed out in 300ms`) is not a measurement: kept.
    // A clock time stands alone; `18:20:18:26` is a mypy span.
    let volatile = regex::bytes::Regex::new(
        r"(?i:timeout of) \d+ ?ms|timed out in \d+ ?ms|\b\d+(\.\d+)?(ms| ms|s| s|sec| seconds)\b|(?m)(?:^|[^:\d])\d\d:\d\d:\d\d(?:[^:\d]|$)",
    )
    .unwrap();
    let bytes = volatile.replace_all(artifact.bytes(), |c: &regex::bytes::Captures| {
        if c[0].to_ascii_lowercase().starts_with(b"timeout") || c[0].starts_with(b"timed out") {
            return c[0].to_vec();
        }
        c[0].iter()
            .map(|&b| {
                if b.is_ascii_digit() {
                    b'0' + (b - b'0' + 7) % 10
                } else {
                    b
                }
            })
            .collect::<Vec<u8>>()
    });
    let mut copy = Artifact::new(
        bytes.into_owned(),
        artifact.segments().to_vec(),
        artifact.exit,
        artifact.argv.clone(),
    );
    copy.cwd = artifact.cwd.clone();
    copy
}

#[test]
fn volatile_reruns_digest_identically() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let again = rerun(&artifact);
        if again.bytes() == artifact.bytes() {
            continue;
        }
        let (first, d) = digest(&artifact);
        // A commit's `Date:` line is the commit's, not a measurement of
        // the run: the same log printed again shows the same date.
        // A log's times are its content the same way: the same log shows
        // the same times (that only times changing keeps every choice,
        // count and order is tests/log_extract.rs's). A blame line's time,
        // too.
        // A CI job log shows its steps' own lines the same way (its
        // timestamps are cut; what a step printed is its content).
        if d.output == Output::Raw
            || d.profile.starts_with("git_")
            || d.profile.starts_with("log/")
            || d.profile.starts_with("ci_log/")
        {
            continue;
        }
        let (second, _) = digest(&again);
        assert_eq!(
            first,
            second,
            "{}: durations leak into the digest",
            name(&case)
        );
    }
}

#[test]
fn truncated_failures_never_claim_completeness() {
    for case in cases() {
        let full = ctx::fixture::load(&case).unwrap();
        if !full.exit.is_failure() || full.line_count() < 20 {
            continue;
        }
        // The first 60 % of the bytes, as a CI log cut by a size limit.
        let cut = full.bytes().len() * 6 / 10;
        let artifact =
            Artifact::from_stdout(full.bytes()[..cut].to_vec(), full.exit, full.argv.clone());
        let (text, d) = digest(&artifact);
        if d.output == Output::Raw {
            continue;
        }
        let header = text.lines().next().unwrap_or("");
        assert!(
            !header.contains("PASSED") && !header.contains(": OK"),
            "{}: {header}",
            name(&case)
        );
        let Some(trace) = &d.trace else { continue };
        if trace.contract.census(&trace.graph).next().is_some() && !trace.receipt.is_complete() {
            assert!(
                text.contains("truncated") || text.contains("degraded"),
                "{}: an incomplete census reads as complete:\n{text}",
                name(&case)
            );
        }
    }
}

/// A package or target that did not build explains every test that never
/// ran: each compiler (or vet) error the truth file lists is in the digest
/// (go's line verbatim, under the `# pkg` header go printed it with; a
/// rustc error named by location and code with its message), before any
/// failing test is named.
#[test]
fn build_errors_are_inline_verbatim_and_first() {
    let mut checked = 0;
    for case in cases() {
        let Ok(truth) = std::fs::read(case.join("truth.json")) else {
            continue;
        };
        let truth: serde_json::Value = serde_json::from_slice(&truth).unwrap();
        let errors: Vec<&serde_json::Value> = truth["failures"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["kind"] == "compile_error")
            .collect();
        if errors.is_empty() {
            continue;
        }
        let artifact = ctx::fixture::load(&case).unwrap();
        let (text, d) = digest(&artifact);
        if d.output == Output::Raw {
            continue;
        }
        // A census that fits its budget only without its reasons names
        // every error by its place (`every_census_identity_survives`),
        // its message one `--item` away.
        let bare = d.trace.as_ref().is_some_and(|t| {
            t.plan.blocks.iter().any(|b| {
                matches!(
                    b,
                    ctx::plan::Block::Census {
                        form: ctx::plan::CensusForm::Bare,
                        ..
                    }
                )
            })
        });
        if bare {
            continue;
        }
        checked += 1;
        // A compact census block names each file once (`  FILE`) with its
        // items under it (`    L:C CODE message`): read each item line
        // with its file, as the reader does.
        let mut file = String::new();
        // Items of one code and message share a line listing their
        // places (`    E0308 mismatched types ×30 at 5:20, 11:20`): read
        // one item per place.
        let joined: Vec<String> = text
            .lines()
            .flat_map(|l| {
                if let Some(item) = l.strip_prefix("    ") {
                    if let Some((what, places)) = item.rsplit_once(" at ")
                        && let Some((what, _)) = what.rsplit_once(" ×")
                    {
                        return places
                            .split(", ")
                            .map(|p| format!("{file}:{p} {what}"))
                            .collect();
                    }
                    vec![format!("{file}:{item}")]
                } else {
                    if let Some(f) = l.strip_prefix("  ").filter(|f| !f.starts_with(' ')) {
                        file = f.to_string();
                    }
                    vec![l.to_string()]
                }
            })
            .collect();
        let lines: Vec<&str> = joined.iter().map(String::as_str).collect();
        let first_test = lines
            .iter()
            .position(|l| l.starts_with("[ctx] FAILED") || l.starts_with("--- FAIL"))
            .unwrap_or(lines.len());
        for e in errors {
            let (id, message) = (e["id"].as_str().unwrap(), e["message"].as_str().unwrap());
            // go's own line (`file.go:L:C: message`), or a census line that
            // names the error and carries its message (rustc's header line
            // holds no location).
            let raw = format!("{id}: {message}");
            let at = lines
                .iter()
                .position(|l| *l == raw || (l.contains(id) && l.contains(message)));
            assert!(
                at.is_some_and(|at| at < first_test),
                "{}: {raw:?} not inline before the failing tests:\n{text}",
                name(&case)
            );
            if let Some(pkg) = e["package"].as_str() {
                // go's own `# pkg` header, or the compact census's
                // `BUILD FAILED pkg` line that opens the package's errors.
                let header = lines[..=at.unwrap()].iter().rev().find_map(|l| {
                    l.strip_prefix("# ")
                        .or_else(|| l.split_once("BUILD FAILED ").map(|(_, r)| r))
                });
                assert!(
                    header.is_some_and(|h| h.split(' ').next() == Some(pkg)),
                    "{}: {raw:?} is not under `# {pkg}`:\n{text}",
                    name(&case)
                );
            }
        }
    }
    assert!(checked >= 3, "only {checked} fixtures with compile errors");
}

/// A census line ctx writes itself carries what the reader needs to open
/// the failure without a second call: the identity, the `file:line` the
/// extractor found (unless the identity already says it), and the one-line
/// reason when there is one.
#[test]
fn census_lines_carry_location_and_reason() {
    let words = ["FAILED ", "NOT RUN ", "ERROR ", "BUILD FAILED "];
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let (text, d) = digest(&artifact);
        let Some(trace) = &d.trace else { continue };
        if d.output == Output::Raw {
            continue;
        }
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("[ctx] ") else {
                continue;
            };
            let Some(rest) = words.iter().find_map(|w| rest.strip_prefix(w)) else {
                continue;
            };
            // The items whose identity the line starts with (the longest
            // such identity; a JUnit report may repeat one): one of them
            // must be fully carried by the line.
            let named: Vec<_> = trace
                .contract
                .census(&trace.graph)
                .filter(|i| {
                    rest.strip_prefix(i.identity.as_str())
                        .is_some_and(|r| r.is_empty() || r.starts_with(' '))
                })
                .collect();
            let Some(longest) = named.iter().map(|i| i.identity.len()).max() else {
                continue;
            };
            let carried = named
                .iter()
                .filter(|i| i.identity.len() == longest)
                .any(|item| {
                    let at = item
                        .location
                        .as_ref()
                        .and_then(|l| l.line.map(|n| format!("{}:{n}", l.file)));
                    let summary = item.summary.as_deref().and_then(|s| s.lines().next());
                    at.is_none_or(|at| line.contains(&at))
                        && summary.is_none_or(|s| line.contains(s))
                });
            assert!(
                carried,
                "{}: {line:?} lacks the location or reason of {:?}",
                name(&case),
                named
                    .iter()
                    .map(|i| (&i.location, &i.summary))
                    .collect::<Vec<_>>()
            );
        }
    }
}

/// Tokens of the raw lines that carry the census items: each item's
/// headline, block and detail lines, and — when the headline does not name
/// the item's file — the line above it that does (a grouped format's file
/// line), each line once.
fn carrying_tokens(
    artifact: &Artifact,
    contract: &ctx::contract::Contract,
    graph: &ctx::evidence::EvidenceGraph,
) -> usize {
    let text = |n: usize| ctx::normalize::line(artifact.line(n));
    let mut lines = std::collections::BTreeSet::new();
    for item in contract.census(graph) {
        let spans = item.headline.iter().chain(&item.block).chain(&item.detail);
        for s in spans {
            lines.extend(s.first..=s.last);
        }
        if let (Some(h), Some(loc)) = (item.headline, &item.location)
            && !text(h.first).contains(&loc.file)
            && let Some(n) = (1..h.first).rev().find(|&n| text(n).contains(&loc.file))
        {
            lines.insert(n);
        }
    }
    lines
        .into_iter()
        .map(|n| ctx::tokens::estimate(ctx::normalize::line(artifact.line(n)).as_bytes()) + 1)
        .sum()
}

#[test]
fn census_never_costs_more_than_the_raw_lines_it_stands_for() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let (_, d) = digest(&artifact);
        let Some(trace) = &d.trace else { continue };
        // Raw output went out (it was smaller): no census was printed.
        if trace.contract.census(&trace.graph).next().is_none() || d.output == Output::Raw {
            continue;
        }
        // git's listings are planned by plan::roster, which prices and
        // prints the tool's own lines, not the census block measured here;
        // data sets (records of JSON and tables) by `plan::data`, which
        // names each anomaly by its pointer or row.
        // A CI job log's census is its steps' and annotations' own lines
        // and each failing step's digest, planned by that step's family
        // (whose own fixtures hold this check).
        if matches!(
            trace.contract.planner,
            ctx::contract::Planner::Roster
                | ctx::contract::Planner::Data
                | ctx::contract::Planner::CiLog
        ) {
            continue;
        }
        let cost =
            ctx::plan::census::measure(&artifact, &trace.graph, &trace.receipt, &trace.contract);
        // What the planner lets the census use: the census, search and
        // listing planners, the budget as asked; the planners that have no
        // census ladder yet, the ceiling.
        let target = match trace.contract.planner {
            ctx::contract::Planner::Census
            | ctx::contract::Planner::Search
            | ctx::contract::Planner::Listing => trace.budget.census,
            _ => trace.budget.ceiling,
        };
        let census = cost.chosen(target);
        let raw = carrying_tokens(&artifact, &trace.contract, &trace.graph);
        assert!(
            census <= raw,
            "{}: the census costs {census} tokens, its raw lines {raw} ({cost:?})",
            name(&case)
        );
        // FLOOD exactly when no form of the census fits.
        assert_eq!(
            trace.plan.rung == Rung::Flood,
            !cost.fits(target),
            "{}: rung {:?} for a census of {census} tokens under a limit of {target}",
            name(&case),
            trace.plan.rung,
        );
    }
}

/// Parametrized ids are printed whole, each copyable into the runner,
/// whenever a whole form of the census fits the budget: the cases of one
/// test share a line (`test_x ×3 [a], [b], [c]`) only when neither the
/// ids with their reasons nor the ids alone fit.
#[test]
fn parametrized_ids_whole_whenever_they_fit() {
    use ctx::plan::{Block, CensusForm};
    let mut whole = 0;
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let (text, d) = digest(&artifact);
        let Some(trace) = &d.trace else { continue };
        // A CI log's census blocks are its steps', planned under their
        // own families' contracts (whose fixtures hold this check).
        if trace.contract.planner == ctx::contract::Planner::CiLog {
            continue;
        }
        let form = trace.plan.blocks.iter().find_map(|b| match b {
            Block::Census { form, .. } => Some(*form),
            _ => None,
        });
        let Some(form) = form.filter(|_| trace.plan.rung != Rung::Flood) else {
            continue;
        };
        let cost =
            ctx::plan::census::measure(&artifact, &trace.graph, &trace.receipt, &trace.contract);
        if form == CensusForm::Grouped {
            assert!(
                !cost.fits_whole(trace.budget.census),
                "{}: cases grouped, yet the whole ids fit ({cost:?})",
                name(&case)
            );
            continue;
        }
        for item in trace.contract.census(&trace.graph) {
            let Some(case_name) = item
                .identity
                .rsplit("::")
                .next()
                .filter(|c| c.contains('[') && c.ends_with(']'))
            else {
                continue;
            };
            whole += 1;
            assert!(
                text.lines()
                    .any(|l| l.trim_start().starts_with(case_name)
                        || l.contains(item.identity.as_str())),
                "{}: {case_name} not printed whole in\n{text}",
                name(&case)
            );
        }
    }
    assert!(whole > 0, "no fixture printed a parametrized id whole");
}
