//! What a digest's `--items` markers count: the tests that check a census
//! left out is counted behind one hop read the markers' numbers alike.
#![allow(dead_code)]

/// The sum of the counts of the `[ctx] … N WHAT… --items` markers whose
/// words after the number start with `what` (`annotation`, `more
/// anomalous row`); `1,234` is read as 1234.
pub fn counted_behind_items(text: &str, what: &str) -> usize {
    text.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("[ctx] … ")?;
            let (n, words) = rest.split_once(' ')?;
            (words.starts_with(what) && l.ends_with("--items"))
                .then(|| n.replace(',', "").parse::<usize>().unwrap())
        })
        .sum()
}
