//! The words of a re-run delta (`plan::delta`): one opening line with the
//! counts, the fixed identities, and every still-failing identity with
//! where its earlier detail is. The new failures are the census that
//! follows in the body. Every line is ctx's own: `[ctx]` lines, and lists
//! indented under a `[ctx]` line that opens them (`opens_a_list`), one
//! line per file: `  tests/a.py: test_x, test_y[1]` names
//! `tests/a.py::test_x` and `tests/a.py::test_y[1]`.

use super::{CTX_PREFIX, count, counted};
use crate::delivery_plan::{Address, Delta, WarningsDelta};

/// Fixed identities named before the rest are counted (still-failing ones
/// are all named: they are current failures).
pub const NAMED_AT_MOST: usize = 10;

/// The `[ctx]` lines under which a delta's indented lists stand.
const OPENINGS: [&str; 3] = ["[ctx] fixed:", "[ctx] still failing", "[ctx] same "];

/// True when `line` is a delta line that indented list lines may follow
/// (the guard's invariant 9: they are visibly ctx's by it).
pub fn opens_a_list(line: &str) -> bool {
    OPENINGS.iter().any(|o| line.starts_with(o))
}

/// The delta's lines, in order.
pub fn lines(d: &Delta) -> Vec<String> {
    let age = age(d.age_secs);
    // The earlier record names the item as the last run did.
    let pointer = match (d.still.as_slice(), d.still_before.as_slice()) {
        ([_], [before]) => format!(
            "ctx expand {} {}",
            d.previous,
            Address::Item(before.clone()).args()
        ),
        _ => format!("ctx expand {} --details", d.previous),
    };
    let mut out = Vec::new();
    if d.unchanged() {
        out.push(format!(
            "{CTX_PREFIX} same {} as the last run ({age} ago), detail as before: {pointer}",
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
    match d.fixed.as_slice() {
        [] => {}
        [only] => out.push(format!("{CTX_PREFIX} fixed: {only}")),
        many => {
            out.push(format!("{CTX_PREFIX} fixed:"));
            let named = &many[..many.len().min(NAMED_AT_MOST)];
            out.extend(grouped(named));
            if many.len() > NAMED_AT_MOST {
                out.push(format!(
                    "{CTX_PREFIX} … {} more fixed: ctx expand {} --items",
                    count(many.len() - NAMED_AT_MOST),
                    d.previous
                ));
            }
        }
    }
    match (d.still.as_slice(), d.unchanged()) {
        ([], _) => {}
        // The pointer names the one still failing.
        ([_], false) => out.push(format!(
            "{CTX_PREFIX} still failing, detail as before: {pointer}"
        )),
        (_, false) => {
            out.push(format!(
                "{CTX_PREFIX} still failing, detail as before: {pointer}"
            ));
            out.extend(grouped(&d.still));
        }
        // The pointer on the opening line names the one still failing.
        ([_], true) => {}
        (_, true) => out.extend(grouped(&d.still)),
    }
    if let Some(w) = &d.warnings {
        out.push(warnings(w));
    }
    out
}

/// The warnings compared with the last run's, on one line: the same ones
/// counted, the new ones named (up to `NAMED_AT_MOST`).
fn warnings(w: &WarningsDelta) -> String {
    if w.fixed == 0 && w.new.is_empty() {
        return format!(
            "{CTX_PREFIX} same {} as the last run",
            counted(w.same, &w.noun)
        );
    }
    let mut line = format!(
        "{CTX_PREFIX} {} since the last run: {} fixed, {} as before, {} new",
        w.noun,
        count(w.fixed),
        count(w.same),
        count(w.new.len())
    );
    if !w.new.is_empty() && w.new.len() <= NAMED_AT_MOST {
        // Grouped per file as the lists are, the groups after each other.
        let groups: Vec<String> = grouped(&w.new)
            .iter()
            .map(|g| g.trim_start().to_string())
            .collect();
        line.push_str(": ");
        line.push_str(&groups.join("; "));
    }
    line
}

/// Identities one line per file, in order of first appearance: a file of
/// several items is named once, `  FILE: rest, rest`; an item alone keeps
/// its whole identity. The file is what an identity starts with, up to its
/// first separator (`::`, ` > `, `: `, `:`, ` `).
pub fn grouped(ids: &[String]) -> Vec<String> {
    let mut groups: Vec<(Option<&str>, Vec<&str>)> = Vec::new();
    for id in ids {
        let file = split(id).0;
        match file.and_then(|f| groups.iter_mut().find(|g| g.0 == Some(f))) {
            Some(g) => g.1.push(id),
            None => groups.push((file, vec![id])),
        }
    }
    let mut out = Vec::new();
    for (file, members) in groups {
        match (file, members.as_slice()) {
            (Some(file), [_, _, ..]) => {
                let rests: Vec<&str> = members.iter().map(|id| split(id).1).collect();
                out.push(format!("  {file}: {}", cases(&rests).join(", ")));
            }
            _ => out.extend(members.iter().map(|id| format!("  {id}"))),
        }
    }
    out
}

/// Parametrized cases of one test after each other share its name:
/// `t[a], t[b]` is written `t[a], [b]`.
fn cases(rests: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut name: Option<&str> = None;
    for rest in rests {
        let this = rest
            .find('[')
            .filter(|_| rest.ends_with(']'))
            .map(|i| &rest[..i]);
        match (this, name) {
            (Some(t), Some(n)) if t == n => out.push(rest[t.len()..].to_string()),
            _ => out.push(rest.to_string()),
        }
        name = this;
    }
    out
}

/// An identity's file and the rest after the separator, or no file.
fn split(id: &str) -> (Option<&str>, &str) {
    let at = ["::", " > ", ": ", ":", " "]
        .iter()
        .filter_map(|sep| id.find(sep).map(|i| (i, sep.len())))
        .min_by_key(|&(i, len)| (i, std::cmp::Reverse(len)));
    match at {
        Some((i, len)) if i > 0 && i + len < id.len() => (Some(&id[..i]), &id[i + len..]),
        _ => (None, id),
    }
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
            still_before: v(still),
            new: v(new),
            warnings: None,
        }
    }

    #[test]
    fn counts_then_fixed_and_the_still_failing_by_identity() {
        let lines = lines(&delta(&["a::x", "a::y"], &["b::z"], &["c::w[1 2]"]));
        assert_eq!(
            lines,
            [
                "[ctx] since the last run 4 min ago: 2 fixed, 1 still failing, 1 new",
                "[ctx] fixed:",
                "  a: x, y",
                "[ctx] still failing, detail as before: ctx expand c0ffee12ab34 --item b::z",
            ]
        );
    }

    #[test]
    fn still_failing_ones_are_listed_under_their_file() {
        let lines = lines(&delta(
            &["src/a.ts:3:1 TS2322"],
            &[
                "src/a.ts:9:2 TS2345",
                "src/b.ts:1:1 TS6133",
                "src/a.ts:12:5 TS2304",
            ],
            &["src/c.ts:4:4 TS2554"],
        ));
        assert_eq!(
            lines,
            [
                "[ctx] since the last run 4 min ago: 1 fixed, 3 still failing, 1 new",
                "[ctx] fixed: src/a.ts:3:1 TS2322",
                "[ctx] still failing, detail as before: ctx expand c0ffee12ab34 --details",
                "  src/a.ts: 9:2 TS2345, 12:5 TS2304",
                "  src/b.ts:1:1 TS6133",
            ]
        );
    }

    #[test]
    fn the_same_failures_again() {
        let lines = lines(&delta(&[], &["t/b.py::z", "t/b.py::q[1]", "lonely"], &[]));
        assert_eq!(
            lines,
            [
                "[ctx] same 3 failures as the last run (4 min ago), detail as before: ctx expand c0ffee12ab34 --details",
                "  t/b.py: z, q[1]",
                "  lonely",
            ]
        );
        // The pointer names the one still failing: no list repeats it.
        assert_eq!(
            super::lines(&delta(&[], &["b::z"], &[])),
            [
                "[ctx] same 1 failure as the last run (4 min ago), detail as before: ctx expand c0ffee12ab34 --item b::z"
            ]
        );
    }

    #[test]
    fn warnings_as_before_are_counted_and_new_ones_named() {
        let mut d = delta(&["a::x"], &["b::z"], &[]);
        let w = |fixed, same, new: &[&str]| WarningsDelta {
            noun: "warnings".into(),
            fixed,
            same,
            new: new.iter().map(|s| s.to_string()).collect(),
        };
        d.warnings = Some(w(0, 7, &[]));
        assert_eq!(
            lines(&d).last().map(String::as_str),
            Some("[ctx] same 7 warnings as the last run")
        );
        d.warnings = Some(w(1, 5, &["src/a.rs:3:9 unused_mut"]));
        assert_eq!(
            lines(&d).last().map(String::as_str),
            Some(
                "[ctx] warnings since the last run: 1 fixed, 5 as before, 1 new: src/a.rs:3:9 unused_mut"
            )
        );
        d.warnings = Some(w(0, 5, &["a.rs:3:9 x", "b.rs:1:1 y", "a.rs:7:1 z"]));
        assert_eq!(
            lines(&d).last().map(String::as_str),
            Some(
                "[ctx] warnings since the last run: 0 fixed, 5 as before, 3 new: a.rs: 3:9 x, 7:1 z; b.rs:1:1 y"
            )
        );
    }

    #[test]
    fn long_fixed_lists_are_counted_past_ten() {
        let many: Vec<String> = (0..13).map(|i| format!("t{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let lines = lines(&delta(&refs, &[], &["n"]));
        assert_eq!(lines.len(), 2 + 10 + 1);
        assert_eq!(
            lines.last().map(String::as_str),
            Some("[ctx] … 3 more fixed: ctx expand c0ffee12ab34 --items")
        );
    }

    #[test]
    fn every_list_line_is_opened_by_a_ctx_line() {
        for l in lines(&delta(&["a::x", "a::y"], &["b::z", "b::w"], &["n"])) {
            assert!(l.starts_with("[ctx] ") || l.starts_with("  "), "{l}");
        }
        assert!(opens_a_list("[ctx] still failing, detail as before: …"));
        assert!(!opens_a_list("FAILED tests/a.py::t"));
    }

    #[test]
    fn parametrized_cases_share_their_test_name() {
        let ids: Vec<String> = ["t.py::a[1]", "t.py::a[x y]", "t.py::b", "t.py::a[2]"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(grouped(&ids), ["  t.py: a[1], [x y], b, a[2]"]);
    }

    #[test]
    fn identities_split_at_their_first_separator() {
        assert_eq!(split("tests/a.py::T::t"), (Some("tests/a.py"), "T::t"));
        assert_eq!(
            split("src/lib.rs tests::x"),
            (Some("src/lib.rs"), "tests::x")
        );
        assert_eq!(
            split("src/a.ts:3:1 TS2322"),
            (Some("src/a.ts"), "3:1 TS2322")
        );
        assert_eq!(split("a.js > d > t"), (Some("a.js"), "d > t"));
        assert_eq!(
            split("make: *** [Makefile:13: build/a.o] Error 1"),
            (Some("make"), "*** [Makefile:13: build/a.o] Error 1")
        );
        assert_eq!(split("lonely"), (None, "lonely"));
        assert_eq!(split("trailing::"), (None, "trailing::"));
    }

    #[test]
    fn ages_in_whole_units() {
        assert_eq!(age(0), "0 s");
        assert_eq!(age(59), "59 s");
        assert_eq!(age(60), "1 min");
        assert_eq!(age(3 * 3600 + 7 * 60 + 5), "3 h 7 min");
    }
}
