//! `guard::isolate` from many threads at once never swaps the process-wide
//! panic hook: panics inside a boundary stay quiet, and a panic outside
//! one still reaches the hook that was installed before.

use std::sync::atomic::{AtomicUsize, Ordering};

static REPORTED: AtomicUsize = AtomicUsize::new(0);

#[test]
fn isolating_on_many_threads_leaves_other_panics_reported() {
    std::panic::set_hook(Box::new(|_| {
        REPORTED.fetch_add(1, Ordering::SeqCst);
    }));
    ctx::guard::install_panic_hook();
    let workers: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                for i in 0..200 {
                    let r: Result<(), _> = ctx::guard::isolate("test/v1", || panic!("{t}/{i}"));
                    assert!(r.is_err());
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    assert_eq!(
        REPORTED.load(Ordering::SeqCst),
        0,
        "an isolated panic was reported"
    );
    let outside = std::thread::spawn(|| panic!("outside any boundary"));
    assert!(outside.join().is_err());
    assert_eq!(
        REPORTED.load(Ordering::SeqCst),
        1,
        "the outside panic was not reported"
    );
}
