//! The words of a re-run delta (`plan::delta`): one opening line with the
//! counts, then the identities that are not in the census (fixed ones),
//! the new ones by name, and where the earlier detail of the unchanged
//! ones is. Every line is ctx's own (`[ctx]`).

use super::{CTX_PREFIX, count, counted};
use crate::delivery_plan::{Address, Delta};

/// Identities named on one line before the rest are counted.
pub const NAMED_AT_MOST: usize = 10;

/// The delta's lines, in order.
pub fn lines(d: &Delta) -> Vec<String> {
    let age = age(d.age_secs);
    let mut out = Vec::new();
    if d.unchanged() {
        out.push(format!(
            "{CTX_PREFIX} same {} as the last run ({age} ago)",
            counted(d.still.len(), &d.unit)
        ));
    } else {
        out.push(format!(
            "{CTX_PREFIX} since the last run {age} ago: {} fixed, {} still failing, {} new",
            count(d.fixed.len()),
            count(d.still.len()),
            count(d.new.len())
        ));
    }
    if !d.fixed.is_empty() {
        out.push(format!(
            "{CTX_PREFIX} fixed: {}",
            named(&d.fixed, &d.previous, "--items")
        ));
    }
    // Both kinds are in the census; the shorter list says which is which.
    let name_new = !d.new.is_empty() && !d.still.is_empty() && d.new.len() <= d.still.len();
    let name_still = !d.new.is_empty() && d.still.len() < d.new.len();
    if name_new {
        out.push(format!(
            "{CTX_PREFIX} new: {}",
            named(&d.new, &d.previous, "")
        ));
    }
    let still = if name_still {
        format!("still failing: {} ·", named(&d.still, &d.previous, ""))
    } else {
        "still failing,".to_string()
    };
    match d.still.as_slice() {
        [] => {}
        [only] => out.push(format!(
            "{CTX_PREFIX} {still} detail as before: ctx expand {} {}",
            d.previous,
            Address::Item(only.clone()).args()
        )),
        _ => out.push(format!(
            "{CTX_PREFIX} {still} detail as before: ctx expand {} --details",
            d.previous
        )),
    }
    out
}

/// Up to [`NAMED_AT_MOST`] identities, then how many more (and, when
/// `more_args` is given, where the earlier run lists them all).
fn named(ids: &[String], previous: &str, more_args: &str) -> String {
    let mut s = ids
        .iter()
        .take(NAMED_AT_MOST)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > NAMED_AT_MOST {
        let more = count(ids.len() - NAMED_AT_MOST);
        if more_args.is_empty() {
            s.push_str(&format!(", … {more} more in the census above"));
        } else {
            s.push_str(&format!(
                ", … {more} more: ctx expand {previous} {more_args}"
            ));
        }
    }
    s
}

/// `12 s`, `4 min`, `1 h 5 min`: whole units, rounded down.
pub fn age(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        _ => format!("{} h {} min", secs / 3600, secs % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(fixed: &[&str], still: &[&str], new: &[&str]) -> Delta {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect();
        Delta {
            age_secs: 250,
            previous: "c0ffee12ab34".into(),
            unit: "failures".into(),
            fixed: v(fixed),
            still: v(still),
            new: v(new),
        }
    }

    #[test]
    fn counts_then_fixed_new_and_the_earlier_detail() {
        let lines = lines(&delta(&["a::x", "a::y"], &["b::z"], &["c::w[1 2]"]));
        assert_eq!(
            lines,
            [
                "[ctx] since the last run 4 min ago: 2 fixed, 1 still failing, 1 new",
                "[ctx] fixed: a::x, a::y",
                "[ctx] new: c::w[1 2]",
                "[ctx] still failing, detail as before: ctx expand c0ffee12ab34 --item b::z",
            ]
        );
    }

    #[test]
    fn the_shorter_of_new_and_still_is_named() {
        let lines = lines(&delta(&[], &["b::z"], &["c::w", "c::v"]));
        assert_eq!(
            lines,
            [
                "[ctx] since the last run 4 min ago: 0 fixed, 1 still failing, 2 new",
                "[ctx] still failing: b::z · detail as before: ctx expand c0ffee12ab34 --item b::z",
            ]
        );
    }

    #[test]
    fn the_same_failures_again() {
        let lines = lines(&delta(&[], &["b::z", "b::q"], &[]));
        assert_eq!(
            lines,
            [
                "[ctx] same 2 failures as the last run (4 min ago)",
                "[ctx] still failing, detail as before: ctx expand c0ffee12ab34 --details",
            ]
        );
        assert_eq!(
            super::lines(&delta(&[], &["b::z"], &[]))[0],
            "[ctx] same 1 failure as the last run (4 min ago)"
        );
    }

    #[test]
    fn long_lists_are_counted_past_ten() {
        let many: Vec<String> = (0..13).map(|i| format!("t{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let lines = lines(&delta(&refs, &[], &["n"]));
        assert!(lines[1].ends_with(", t9, … 3 more: ctx expand c0ffee12ab34 --items"));
    }

    #[test]
    fn ages_in_whole_units() {
        assert_eq!(age(0), "0 s");
        assert_eq!(age(59), "59 s");
        assert_eq!(age(60), "1 min");
        assert_eq!(age(3 * 3600 + 7 * 60 + 5), "3 h 7 min");
    }
}
