//! `bundle install`: the gems installed and used, Bundler's error message
//! whole (it wraps at the terminal's width and spans paragraphs: a
//! conflict's `In Gemfile:` tree, the versions a source has), a native
//! build's compiler error, and Bundler's own warnings.

use super::{COMPILER_ERROR, EXCERPT, Read, notice, one_line};

/// The first line of each error Bundler ends with.
const ERRORS: [&str; 8] = [
    "Could not find gem ",
    "Could not reach host ",
    "Bundler could not find compatible versions",
    "An error occurred while installing ",
    "Could not locate Gemfile",
    "Your bundle is locked to ",
    "Could not find ",
    "Bundler::",
];

pub fn read(lines: &[(usize, String)], r: &mut Read) {
    let mut installed: Vec<String> = Vec::new();
    let mut using = 0;
    let mut failed: Vec<String> = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let (n, t) = (lines[k].0, lines[k].1.as_str());
        k += 1;
        if let Some(gem) = t.strip_prefix("Installing ") {
            // `Installing stitch 0.1.0 with native extensions`: its name and version.
            installed.push(gem.split(' ').take(2).collect::<Vec<_>>().join(" "));
            r.packages.push(gem.to_string());
            r.conclusion.push(n);
        } else if let Some(gem) = t.strip_prefix("Using ") {
            using += 1;
            r.packages.push(gem.to_string());
            r.conclusion.push(n);
        } else if t.starts_with("Bundle complete!") || t.starts_with("Bundle updated!") {
            r.conclusion.push(n);
        } else if t.starts_with("Gem::Ext::BuildError") {
            // The build's log follows: its compiler error is read below.
            r.failures.push(one_line(n, t, Some("native extension".into())));
        } else if let Some(c) = COMPILER_ERROR.captures(t) {
            let mut f = one_line(n, &c[1], Some("compiler".into()));
            while let Some((m, _)) = lines.get(k).filter(|(_, l)| EXCERPT.is_match(l)) {
                f.lines.push(*m);
                k += 1;
            }
            r.failures.push(f);
        } else if ERRORS.iter().any(|e| t.starts_with(e)) {
            // `An error occurred while installing stitch (0.1.0), and …`
            if let Some((gem, version)) = t
                .strip_prefix("An error occurred while installing ")
                .and_then(|x| x.split_once(" ("))
                .and_then(|(g, v)| Some((g, v.split_once(')')?.0)))
            {
                failed.push(format!("{gem} {version}"));
            }
            let mut f = one_line(n, t, None);
            k = message(lines, k, &mut f.lines);
            r.failures.push(f);
        } else if t.starts_with("Don't run Bundler as root.") {
            let mut w = notice(n, t, "warning");
            while let Some((m, _)) = lines.get(k).filter(|(_, l)| wrapped(l)) {
                w.last = *m;
                k += 1;
            }
            r.notices.push(w);
        }
    }
    // A gem whose install failed was begun (`Installing …`), not installed.
    installed.retain(|g| !failed.contains(g));
    if !installed.is_empty() {
        r.counts.push(("installed".into(), installed.len() as u64));
    }
    if using > 0 {
        r.counts.push(("using".into(), using));
    }
    if !failed.is_empty() {
        r.counts.push(("failed".into(), failed.len() as u64));
    }
}

/// A line that continues the one before it: Bundler wraps its messages
/// at the terminal's width, so the rest starts at the margin, in words.
fn wrapped(l: &str) -> bool {
    !l.trim().is_empty()
        && !l.starts_with(' ')
        && !ERRORS.iter().any(|e| l.starts_with(e))
        && !["Installing ", "Using ", "Fetching ", "Resolving ", "Bundle ", "Gem::"]
            .iter()
            .any(|w| l.starts_with(w))
}

/// The rest of an error message from `k`: its wrapped lines, then each
/// further paragraph that belongs to it (indented, or one of the
/// sentences Bundler adds: the versions a source has, where the Gemfile
/// asks for the gem). Returns the index of the first line not taken.
fn message(lines: &[(usize, String)], mut k: usize, into: &mut Vec<usize>) -> usize {
    while let Some((m, _)) = lines.get(k).filter(|(_, l)| wrapped(l)) {
        into.push(*m);
        k += 1;
    }
    loop {
        let blank = lines[k.min(lines.len())..]
            .iter()
            .take_while(|(_, l)| l.trim().is_empty())
            .count();
        let Some((_, next)) = lines.get(k + blank) else {
            return k;
        };
        let belongs = next.starts_with([' ', '\t'])
            || next.starts_with("The source contains")
            || next.starts_with("In Gemfile:");
        if !belongs {
            return k;
        }
        into.extend(lines[k..k + blank].iter().map(|(m, _)| *m));
        k += blank;
        // The paragraph: its first line, then indented or wrapped ones.
        into.push(lines[k].0);
        k += 1;
        while let Some((m, _)) = lines
            .get(k)
            .filter(|(_, l)| !l.trim().is_empty() && (l.starts_with([' ', '\t']) || wrapped(l)))
        {
            into.push(*m);
            k += 1;
        }
    }
}
