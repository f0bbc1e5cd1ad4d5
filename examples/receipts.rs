//! Savings receipts over every captured fixture, rerunnable by anyone:
//!
//!     cargo run --release --example receipts
//!
//! For each fixture: raw and digest tokens (exact o200k_base counts), the
//! rung the plan chose, and how many of the truth file's identities (derived
//! from the tool's machine-readable output, never from ctx) the digest names
//! — inline, or through `ctx expand H --items` when the census was grouped.
//! Writes docs/receipts/test-runners.md, docs/receipts/diagnostics.md,
//! docs/receipts/everyday.md and docs/receipts/data-logs.md.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ctx::archive::Known;
use ctx::pipeline::{self, Options, Output};
use ctx::profiles::ReceiptGroup;
use ctx::store::ArchiveKey;
use ctx::{tokens, zoom};

/// The families whose receipts go on one page, in registry order: the
/// registry is the one list of families, and each family's fixtures live
/// under its name.
fn families(group: ReceiptGroup) -> Vec<&'static str> {
    ctx::profiles::registry()
        .iter()
        .filter(|p| p.spec().group == group)
        .map(|p| p.family())
        .collect()
}

struct Row {
    case: String,
    profile: String,
    raw: usize,
    digest: usize,
    rung: String,
    truth: usize,
    failed: bool,
    inline: usize,
    listed: usize,
}

/// Marks a table row's key: named when a row of the digest (a line that
/// is not ctx's own) has it as one of its cells, not merely somewhere in
/// the text, where `311` would also match `1,311 rows`.
const ROW_KEY: &str = "row-key:";

fn row_named(hay: &str, key: &str) -> bool {
    hay.lines().filter(|l| !l.starts_with("[ctx]")).any(|line| {
        line.split(|c: char| c.is_whitespace() || matches!(c, ',' | '|' | '│' | '\t'))
            .any(|cell| cell == key)
    })
}

/// The identities a truth file requires, each as the words that must appear:
/// a failing test's id, or an error diagnostic's `file:line` and code.
fn truth_identities(case: &Path) -> Vec<Vec<String>> {
    let Ok(text) = std::fs::read_to_string(case.join("truth.json")) else {
        return Vec::new();
    };
    let Ok(truth) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for f in truth["failures"].as_array().into_iter().flatten() {
        if let Some(id) = f["id"].as_str() {
            out.push(vec![id.to_string()]);
        }
    }
    // A diff's changed files and a log's commits (`git diff --numstat`), and a
    // search's matching files (`rg --json`), by the path the tool printed.
    let commits = truth["commits"].as_array().into_iter().flatten();
    for files in std::iter::once(&truth).chain(commits) {
        // A log's commit by its short sha and subject (git_log/v1 prints
        // the short sha); a `git log -p` commit by its full sha.
        match (files["short"].as_str(), files["subject"].as_str()) {
            (Some(short), Some(subject)) => {
                out.push(vec![short.to_string(), subject.to_string()]);
            }
            // A blamed commit by its short sha alone.
            (Some(short), None) => out.push(vec![short.to_string()]),
            _ => {
                if let Some(sha) = files["sha"].as_str() {
                    out.push(vec![sha.to_string()]);
                }
            }
        }
        for f in files["files"].as_array().into_iter().flatten() {
            if let Some(path) = f["path"].as_str() {
                out.push(vec![path.to_string()]);
            }
        }
    }
    // A listing's folders (`find -printf`), by their last name: tree draws
    // names, not paths, and ls names a folder's entries under its section.
    for d in truth["directories"].as_array().into_iter().flatten() {
        if let Some(path) = d.as_str() {
            out.push(vec![path.rsplit('/').next().unwrap_or(path).to_string()]);
        }
    }
    // An install's named packages and its decisive error lines (pip's
    // report and log, apt's simulation, npm's --json error code).
    // A CI job log's failing steps, annotations (as shown) and the
    // failing tests its failing steps' pytest output names.
    for key in [
        "named",
        "errors",
        "compiler_errors",
        "failing_steps",
        "annotations",
        "census",
    ] {
        for v in truth[key].as_array().into_iter().flatten() {
            if let Some(word) = v.as_str() {
                out.push(vec![word.to_string()]);
            }
        }
    }
    // git status's paths, a merge's conflicted paths.
    for p in truth["paths"].as_array().into_iter().flatten() {
        if let Some(path) = p["path"].as_str() {
            out.push(vec![path.to_string()]);
        }
    }
    for c in truth["conflicts"].as_array().into_iter().flatten() {
        if let Some(path) = c.as_str() {
            out.push(vec![path.to_string()]);
        }
    }
    // A JSON document's records that need attention (`json.loads`), by
    // the pointer the digest names them with.
    for a in truth["anomalies"].as_array().into_iter().flatten() {
        if let Some(pointer) = a.as_str() {
            out.push(vec![format!("{pointer} (")]);
        }
    }
    // A table's rows that need attention, by the key cell the twin names
    // (deploy id, PID, filesystem, package).
    for k in truth["keys"].as_array().into_iter().flatten() {
        if let Some(key) = k.as_str() {
            out.push(vec![format!("{ROW_KEY}{key}")]);
        }
    }
    for d in truth["diagnostics"].as_array().into_iter().flatten() {
        if d["severity"].as_str() != Some("error") {
            continue;
        }
        let mut words = Vec::new();
        if let (Some(file), Some(line)) = (d["file"].as_str(), d["line"].as_u64()) {
            let file = file.trim_start_matches("./");
            words.push(format!(
                "{}:{line}",
                file.rsplit('/').next().unwrap_or(file)
            ));
        }
        if let Some(code) = d["code"].as_str() {
            words.push(code.to_string());
        }
        if words.is_empty()
            && let Some(msg) = d["message"].as_str()
        {
            words.push(msg.chars().take(40).collect());
        }
        out.push(words);
    }
    out
}

/// The digest's text, with each item of a compact census block also
/// written whole after it (`file:rest`, `file::rest`, `file > rest`,
/// `file rest`), so an identity whose file the block names once is found
/// as the truth spells it.
fn flattened(text: &str) -> String {
    let mut out = text.to_string();
    let mut folder: Option<&str> = None;
    let mut file: Option<&str> = None;
    for line in text.lines() {
        if let Some(opening) = line.strip_prefix("[ctx] census: ") {
            folder = Some(opening.split_once(" under ").map_or("", |(_, f)| f));
            file = None;
            continue;
        }
        let Some(prefix) = folder.filter(|_| line.starts_with("  ")) else {
            folder = None;
            continue;
        };
        match (line.strip_prefix("    "), file) {
            (Some(item), Some(f)) => {
                for item in shared(item) {
                    for sep in [":", "::", " > ", " "] {
                        out.push_str(&format!("\n{prefix}{f}{sep}{item}"));
                    }
                }
            }
            (Some(_), None) => {}
            (None, _) => {
                // A file, or an item written whole at the files'
                // indentation: the cases of one test among them.
                file = Some(&line[2..]);
                for item in shared(&line[2..]).into_iter().skip(1) {
                    out.push_str(&format!("\n{item}"));
                }
            }
        }
    }
    out
}

/// The items of one census line: itself, and the items a shared line
/// stands for (`E0308 msg ×30 at 5:20, 11:20` → `5:20 E0308 msg`, …;
/// `test_x ×3 [a], [b], [c] - …` → `test_x[a]`, …; `Suite.T ×2 /0, /1
/// (file:line) - …` → `Suite.T/0`, `Suite.T/1`).
fn shared(item: &str) -> Vec<String> {
    let mut out = vec![item.to_string()];
    // A kind word before the rest of the identity (`ERROR test_insert`).
    for word in ["ERROR ", "NOT RUN ", "BUILD FAILED "] {
        if let Some(rest) = item.strip_prefix(word) {
            out.push(rest.to_string());
        }
    }
    if let Some((what, places)) = item.rsplit_once(" at ")
        && let Some((what, _)) = what.rsplit_once(" ×")
    {
        let (code, message) = what.split_once(' ').unwrap_or((what, ""));
        out.extend(places.split(", ").map(|p| format!("{p} {code} {message}")));
    } else if let Some((test, rest)) = item.split_once(" ×")
        && let Some((_, cases)) = rest.split_once(' ')
    {
        if cases.starts_with('[') {
            let cases = cases.split(" (line ").next().unwrap_or(cases);
            let cases = cases.split(" - ").next().unwrap_or(cases);
            out.extend(cases.split("], [").map(|c| {
                format!(
                    "{test}[{}]",
                    c.trim_start_matches('[').trim_end_matches(']')
                )
            }));
        } else {
            // Cases as the runner writes them after the test (`/3`).
            let cases = cases.split(" (").next().unwrap_or(cases);
            let cases = cases.split(" - ").next().unwrap_or(cases);
            out.extend(cases.split(", ").map(|c| format!("{test}{c}")));
        }
    }
    out
}

fn receipt(case: &Path) -> Option<Row> {
    let artifact = ctx::fixture::load(case).ok()?;
    let d = pipeline::digest(
        &artifact,
        &Known(ArchiveKey([0x5c; 32])),
        &Options::default(),
    )
    .ok()?;
    let digest_bytes = match &d.output {
        Output::Digest(b) => b.clone(),
        Output::Raw => artifact.bytes().to_vec(),
    };
    let digest_text = flattened(&String::from_utf8_lossy(&digest_bytes));
    let listed_text = d
        .trace
        .as_ref()
        .map(|t| {
            zoom::listing(
                &artifact,
                &t.contract,
                &t.graph,
                &zoom::ItemFilter::default(),
            )
            .join("\n")
        })
        .unwrap_or_default();
    let truth = truth_identities(case);
    // `cargo test -q` never prints the test binary's name, so there the
    // digest's identity is `lib <path>` where the truth says `<crate> <path>`.
    let quiet_cargo =
        case.ends_with("cargo_test/quiet") || case.ends_with("cargo_test/green-quiet");
    // pip prints a package as its wheel spells it (`charset_normalizer`,
    // `pygments`) where the report's metadata says `charset-normalizer`,
    // `Pygments`: names compare as PEP 503 does.
    let pep503 = case.parent().is_some_and(|f| f.ends_with("install"));
    let norm = |s: &str| s.to_lowercase().replace('_', "-");
    let named = |hay: &str, words: &[String]| {
        words.iter().all(|w| {
            if let Some(key) = w.strip_prefix(ROW_KEY) {
                return row_named(hay, key);
            }
            hay.contains(w.as_str())
                || pep503 && norm(hay).contains(&norm(w))
                || quiet_cargo
                    && w.split_once(' ')
                        .is_some_and(|(_, path)| hay.contains(&format!(" {path}")))
        })
    };
    // Raw output omits nothing: every identity is there as the tool wrote it.
    let raw = d.output == Output::Raw;
    let inline = if raw {
        truth.len()
    } else {
        truth.iter().filter(|w| named(&digest_text, w)).count()
    };
    let listed = if raw {
        0
    } else {
        truth
            .iter()
            .filter(|w| !named(&digest_text, w) && named(&listed_text, w))
            .count()
    };
    let rung = match (&d.output, &d.trace) {
        (Output::Raw, _) => "raw".to_string(),
        (_, Some(t)) => format!("{:?}", t.plan.rung),
        _ => "?".into(),
    };
    let family = case.parent()?.file_name()?.to_string_lossy().into_owned();
    Some(Row {
        case: format!("{family}/{}", case.file_name()?.to_string_lossy()),
        profile: d.profile.to_string(),
        raw: tokens::exact(artifact.bytes()),
        digest: tokens::exact(&digest_bytes),
        rung,
        truth: truth.len(),
        // A diff's truth names changed files, not failures.
        failed: artifact.exit.is_failure() || (!truth.is_empty() && !is_everyday(case)),
        inline,
        listed,
    })
}

fn is_everyday(case: &Path) -> bool {
    case.parent()
        .and_then(|f| f.file_name())
        .is_some_and(|f| families(ReceiptGroup::Everyday).iter().any(|e| f == *e))
}

fn cases(families: &[&str]) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for family in families {
        let Ok(dir) = std::fs::read_dir(root.join(family)) else {
            continue;
        };
        for case in dir.flatten() {
            if case.path().join("case.json").is_file() {
                out.push(case.path());
            }
        }
    }
    out.sort();
    out
}

fn report(title: &str, families: &[&str], goals: &str) -> String {
    let rows: Vec<Row> = cases(families).iter().filter_map(|c| receipt(c)).collect();
    let mut md = String::new();
    let _ = writeln!(md, "# Receipts: {title}\n");
    let _ = writeln!(
        md,
        "Generated by `cargo run --release --example receipts` over every fixture in\n\
         fixtures/{{{}}}. Tokens are exact o200k_base counts. *Identities* are\n\
         the truth file's (from the tool's machine-readable output): named in the\n\
         digest inline, or listed by `ctx expand H --items` when the census was\n\
         grouped. `raw` means the output was delivered unchanged (nothing omitted,
so every identity counts as kept).\n\n{goals}\n",
        families.join(",")
    );
    let _ = writeln!(
        md,
        "| fixture | profile | raw tokens | digest tokens | saved | rung | identities inline | via --items |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---|---:|---:|");
    let (mut raw_total, mut digest_total, mut truth_total, mut kept_total) = (0, 0, 0, 0);
    for r in &rows {
        let saved = if r.raw == 0 {
            0.0
        } else {
            100.0 * (r.raw as f64 - r.digest as f64) / r.raw as f64
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {saved:.0} % | {} | {}/{} | {} |",
            r.case, r.profile, r.raw, r.digest, r.rung, r.inline, r.truth, r.listed
        );
        raw_total += r.raw;
        digest_total += r.digest;
        truth_total += r.truth;
        kept_total += r.inline + r.listed;
    }
    let saved = 100.0 * (raw_total as f64 - digest_total as f64) / raw_total.max(1) as f64;
    let _ = writeln!(
        md,
        "\n**Total:** {raw_total} → {digest_total} tokens ({saved:.1} % saved, size-weighted); \
         identities kept: {kept_total}/{truth_total}.\n"
    );
    let big: Vec<&Row> = rows.iter().filter(|r| r.raw > 5000).collect();
    let big_ok = big.iter().filter(|r| r.digest * 10 <= r.raw).count();
    let _ = writeln!(
        md,
        "Runs over 5,000 tokens reduced by ≥ 90 %: {big_ok}/{}.",
        big.len()
    );
    let failing: Vec<&Row> = rows.iter().filter(|r| r.raw > 1000 && r.failed).collect();
    let failing_ok = failing
        .iter()
        .filter(|r| r.digest * 10 <= r.raw * 4)
        .count();
    let _ = writeln!(
        md,
        "Failing runs over 1,000 tokens reduced by ≥ 60 %: {failing_ok}/{}.",
        failing.len()
    );
    md
}

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/receipts");
    std::fs::create_dir_all(&out).expect("docs/receipts");
    let pages = [
        (
            ReceiptGroup::TestRunner,
            "test runners",
            "Goals: every identity kept; runs over 5,000 tokens reduced by ≥ 90 %; failing runs over 1,000 tokens by ≥ 60 %.",
        ),
        (
            ReceiptGroup::Diagnostics,
            "diagnostics",
            "Goals: every error identity inline; runs over 5,000 tokens reduced by ≥ 90 %.",
        ),
        (
            ReceiptGroup::Data,
            "data sets",
            "Goals: every anomalous record of the truth named; large JSON and tables reduced by ≥ 95 %; small ones unchanged. CI job logs: every failing step, every annotation and the failing step's census named at every budget.",
        ),
        (
            ReceiptGroup::Everyday,
            "everyday commands",
            "Goals: no digest larger than its raw output; every changed file, commit, status path, conflict and matching file kept inline up to the hard ceiling; large diffs, logs and searches reduced by ≥ 80 %.",
        ),
    ];
    for (group, title, goals) in pages {
        let Some(page) = group.receipts_page() else {
            continue;
        };
        let md = report(title, &families(group), goals);
        std::fs::write(out.join(format!("{page}.md")), &md).expect("write receipts");
        println!("{md}");
    }
}
