//! Digest time by input shape, per profile, on the library (no process
//! start-up, no archive write), run on demand:
//!
//!     cargo bench --bench shapes             # every profile
//!     cargo bench --bench shapes -- junit    # the profiles whose name has `junit`
//!
//! Each profile's largest fixture is grown (`ctx::fixture::shape`) to
//! 256 KiB, 1 MiB and 4 MiB, as many lines and as one line, and digested
//! with the profile forced (`--as`). The table gives the medians and the
//! growth from 1 MiB to 4 MiB (×4 when linear, ×16 when quadratic) and
//! from 256 KiB to 4 MiB (×16 when linear, ×256 when quadratic). Results are recorded in docs/performance.md.

use std::path::Path;
use std::time::{Duration, Instant};

use ctx::archive::Known;
use ctx::fixture::shape::{self, Shape};
use ctx::pipeline::{self, Options};
use ctx::profiles;
use ctx::store::ArchiveKey;

mod support;
use support::median;

const SIZES: [usize; 3] = [256 << 10, 1 << 20, 4 << 20];

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_default();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let key = ArchiveKey([7; 32]);
    println!("| profile | shape | 256 KiB | 1 MiB | 4 MiB | 1→4 MiB | 256 KiB→4 MiB |");
    println!("|---|---|---|---|---|---|---|");
    for &profile in profiles::registry() {
        if !profile.version().contains(filter.as_str()) {
            continue;
        }
        let family_dir = match profile.family() {
            "text" => "pytest".to_string(),
            f => f.to_string(),
        };
        let Some(base) = shape::largest(&fixtures.join(family_dir)) else {
            continue;
        };
        for shape in [Shape::Lines, Shape::OneLine] {
            let mut cells = Vec::new();
            for size in SIZES {
                let mut artifact = shape::grow(&base, shape, size);
                artifact.family = Some(profile.family().to_string());
                let reps = if size > 1 << 20 { 7 } else { 15 };
                let times: Vec<Duration> = (0..reps)
                    .map(|_| {
                        let start = Instant::now();
                        let delivery =
                            pipeline::digest(&artifact, &Known(key), &Options::default())
                                .expect("a known family");
                        std::hint::black_box(delivery);
                        start.elapsed()
                    })
                    .collect();
                cells.push(median(times));
            }
            println!(
                "| {} | {} | {:.1} ms | {:.1} ms | {:.1} ms | ×{:.1} | ×{:.1} |",
                profile.version(),
                shape.name(),
                ms(cells[0]),
                ms(cells[1]),
                ms(cells[2]),
                cells[2].as_secs_f64() / cells[1].as_secs_f64(),
                cells[2].as_secs_f64() / cells[0].as_secs_f64()
            );
        }
    }
}
