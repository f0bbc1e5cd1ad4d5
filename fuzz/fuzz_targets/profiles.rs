//! Every profile, forced on arbitrary bytes, through the whole digest
//! (extract, plan, render, guard): no panic, and the same bytes in give
//! the same digest out (invariant 6).
#![no_main]

use ctx::archive::Known;
use ctx::artifact::{Artifact, Exit};
use ctx::pipeline::{self, Options};
use ctx::store::ArchiveKey;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the exit status: failure and success take
    // different planning paths.
    let (exit, bytes) = match data.split_first() {
        Some((&b, rest)) => (Exit::Code(i32::from(b & 1)), rest),
        None => (Exit::Code(0), data),
    };
    let key = ArchiveKey([7; 32]);
    for &profile in ctx::profiles::registry() {
        let mut artifact = Artifact::from_stdout(bytes.to_vec(), exit, vec!["fuzz".into()]);
        artifact.family = Some(profile.family().to_string());
        let once = pipeline::digest(&artifact, &Known(key), &Options { budget: Some(200) });
        let twice = pipeline::digest(&artifact, &Known(key), &Options { budget: Some(200) });
        match (once, twice) {
            (Ok(a), Ok(b)) => assert_eq!(
                a.output,
                b.output,
                "{} is not deterministic",
                profile.version()
            ),
            (Err(_), Err(_)) => {}
            _ => panic!("{}: one run failed, the other did not", profile.version()),
        }
    }
});
