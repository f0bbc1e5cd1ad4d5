//! Classification and text/v1 on big unclaimed output, run on demand:
//!
//!     cargo bench --bench classify
//!
//! Classification reads each stream's head and then scans the whole output
//! once for every family's decisive words; text/v1 scans the buffer for
//! error-shaped lines. Both must stay linear and cheap beside what every
//! digest of such output already pays: indexing its lines. Each figure is
//! a median over repetitions with that baseline (building the `Artifact`,
//! one memchr pass plus the line index) measured in the same run, on:
//! - a 100 MB service log (timestamped INFO lines, an ERROR every 9,973);
//! - 100 MB where every line holds a decisive word of several families
//!   (`error: `, `warning: `, ` ... FAILED`, `--- FAIL: `) in a shape none
//!   of them claims: the scan's worst case, every line asked;
//! - 100 MB of located warnings (`src/m_7.c:12:5: warning: … [-Wunused]`,
//!   a distinct place each): the evidence layer's worst case, every line a
//!   finding (read by text/v1 once gcc is turned off).
//!
//! text/v1's extract includes the evidence layer (`recognise`), which is
//! also timed alone.
//!
//! Results are recorded in docs/performance.md.

use std::time::{Duration, Instant};

use ctx::artifact::{Artifact, Exit};
use ctx::classify;
use ctx::profiles::Profile;
use ctx::profiles::text::Text;

mod support;
use support::median;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn build(mb: usize, line: impl Fn(u64) -> String) -> Vec<u8> {
    let mut out = Vec::with_capacity(mb * 1_000_000 + 200);
    let mut i = 0u64;
    while out.len() < mb * 1_000_000 {
        out.extend_from_slice(line(i).as_bytes());
        i += 1;
    }
    out
}

fn service_log(i: u64) -> String {
    if i.is_multiple_of(9973) {
        format!(
            "2026-11-29T12:00:{:02}Z ERROR worker {i}: connection reset by peer\n",
            i % 60
        )
    } else {
        format!(
            "2026-11-29T12:00:{:02}Z INFO  worker {}: processed batch {i} in {} ms\n",
            i % 60,
            i % 16,
            i % 997
        )
    }
}

fn wordy(i: u64) -> String {
    match i % 4 {
        0 => format!("note {i}: the parser said error: none here\n"),
        1 => format!("step {i} printed warning: nothing to see\n"),
        2 => format!("case {i} ... FAILED was the old label\n"),
        _ => format!("rule {i} --- FAIL: is only quoted\n"),
    }
}

fn located(i: u64) -> String {
    format!(
        "src/m_{}.c:{}:5: warning: unused variable 'v{i}' [-Wunused-variable]\n",
        i % 97,
        i / 97 + 1
    )
}

fn measure(name: &str, bytes: Vec<u8>) {
    let (mut base, mut choose, mut text) = (Vec::new(), Vec::new(), Vec::new());
    let mut layer = Vec::new();
    let mut claimed = "";
    for _ in 0..5 {
        let start = Instant::now();
        let artifact = Artifact::from_stdout(bytes.clone(), Exit::Unknown, Vec::new());
        base.push(start.elapsed());

        let start = Instant::now();
        let (profile, _) = classify::choose(&artifact, None).expect("no forced family");
        choose.push(start.elapsed());
        claimed = profile.version();

        let start = Instant::now();
        let found = ctx::recognise::recognise(&artifact);
        layer.push(start.elapsed());
        std::hint::black_box(found);

        let start = Instant::now();
        let (graph, _) = Text.extract(&artifact);
        text.push(start.elapsed());
        std::hint::black_box(graph);
    }
    let (b, c, t, l) = (median(base), median(choose), median(text), median(layer));
    println!(
        "- {name} (read by {claimed}): building the artifact {:.0} ms; classify {:.0} ms ({:.2}×); evidence layer {:.0} ms ({:.2}×); text/v1 extract (layer included) {:.0} ms ({:.2}×)",
        ms(b),
        ms(c),
        ms(c) / ms(b),
        ms(l),
        ms(l) / ms(b),
        ms(t),
        ms(t) / ms(b)
    );
}

fn main() {
    println!("## classification and text/v1, 100 MB unclaimed output (median of 5)");
    measure("service log", build(100, service_log));
    measure("every line a decisive word", build(100, wordy));
    measure("located warnings", build(100, located));
}
