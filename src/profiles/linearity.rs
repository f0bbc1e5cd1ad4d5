//! Every profile, extraction and planning together, does work linear in
//! its input whatever the input's shape. Measured as bytes normalized
//! (`normalize::work`), not time: a stage that looks at one line again per
//! item shows as work that grows faster than the input (JUnit XML on one
//! line did, twice per failing test case).

use std::path::Path;

use crate::contract;
use crate::fixture::shape::{self, Shape};
use crate::normalize;
use crate::plan::{self, Budget};
use crate::tokens;

use super::{Profile, registry};

/// The fixture directory a profile's inputs are grown from.
fn fixture_dir(profile: &dyn Profile) -> std::path::PathBuf {
    let family = match profile.family() {
        "text" => "pytest",
        f => f,
    };
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(family)
}

/// Bytes normalized extracting and planning `artifact` with `profile`.
fn work(profile: &dyn Profile, artifact: &crate::artifact::Artifact) -> usize {
    let contract = contract::for_family(profile.family()).expect("embedded contract");
    let budget = Budget::from_contract(&contract, None);
    let raw_tokens = tokens::estimate_bulk(artifact.bytes());
    normalize::work::take();
    let (graph, receipt) = profile.extract(artifact);
    let _plan = plan::resolve(artifact, &graph, &receipt, &contract, budget, raw_tokens);
    normalize::work::take()
}

#[test]
fn every_profile_is_linear_in_both_shapes() {
    const SMALL: usize = 64 << 10;
    let mut failures = Vec::new();
    for &profile in registry() {
        let base = shape::largest(&fixture_dir(profile)).expect("a fixture to grow");
        for shape in [Shape::Lines, Shape::OneLine] {
            let small = shape::grow(&base, shape, SMALL);
            let large = shape::grow(&base, shape, 4 * SMALL);
            let (ws, wl) = (work(profile, &small), work(profile, &large));
            let per_byte =
                |w: usize, a: &crate::artifact::Artifact| w as f64 / a.bytes().len() as f64;
            let (ps, pl) = (per_byte(ws, &small), per_byte(wl, &large));
            // Linear: the work per input byte stays bounded by a small
            // constant and does not grow with the input.
            if pl > 8.0 || pl > ps * 1.25 + 0.05 {
                failures.push(format!(
                    "{} ({}): {ps:.2} bytes normalized per input byte at {} KB, \
                     {pl:.2} at {} KB",
                    profile.version(),
                    shape.name(),
                    small.bytes().len() >> 10,
                    large.bytes().len() >> 10,
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn extractors_look_at_a_bounded_window_of_a_long_line() {
    // A diagnostic-looking line far longer than the window: every profile
    // reads its lines, none may look at all of this one.
    let unit = b"src/app.py:12: error: Incompatible types in assignment  [assignment] ";
    let line: Vec<u8> = unit.iter().copied().cycle().take(2 << 20).collect();
    let artifact = crate::artifact::Artifact::from_stdout(
        line,
        crate::artifact::Exit::Code(1),
        vec!["tool".into()],
    );
    let mut failures = Vec::new();
    for &profile in registry() {
        normalize::work::take();
        let _ = profile.extract(&artifact);
        let looked = normalize::work::take();
        if looked > 4 * super::LINE_WINDOW {
            failures.push(format!(
                "{}: {} KB of a {} KB line",
                profile.version(),
                looked >> 10,
                artifact.bytes().len() >> 10
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_window_cuts_at_a_character_boundary() {
    let mut raw = vec![b'a'; super::LINE_WINDOW - 1];
    raw.extend_from_slice("é".repeat(10).as_bytes());
    let w = super::window(&raw);
    assert!(w.len() <= super::LINE_WINDOW);
    assert!(std::str::from_utf8(w).is_ok(), "cut inside a character");
}
