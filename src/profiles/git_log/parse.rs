//! Reads `git log` output (default, `--oneline`, `--stat`, `--graph`,
//! `--format=…`) into commits. The first commit line fixes the shape: a
//! `commit <sha>` head (with `Author:`, `Date:`, the indented subject and
//! the body), or a line that starts with a sha (`--oneline`, a format
//! that opens with `%h`/`%H`). After that, only the same shape opens a
//! commit, so a body line that starts with a hex word never does.

use crate::artifact::Span;

/// One commit as the log printed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogCommit {
    /// The sha as printed.
    pub sha: String,
    pub subject: String,
    pub author: Option<String>,
    /// `YYYY-MM-DD` when the printed date reads as one, else as printed.
    pub date: Option<String>,
    /// The line naming the sha.
    pub head: usize,
    /// The lines after the subject (body, stat), blank ends trimmed.
    pub detail: Option<Span>,
    /// Every line of the commit.
    pub block: Span,
    /// Printed over several lines (`commit <sha>` then `Author:`…).
    pub multiline: bool,
}

/// What one log output holds, in line order.
#[derive(Debug, Default)]
pub struct Log {
    pub commits: Vec<LogCommit>,
    /// `fatal:`/`error:`/`warning:` lines, kept verbatim.
    pub errors: Vec<usize>,
    /// Lines before the first commit that are not errors.
    pub unmatched: u64,
}

impl LogCommit {
    fn at(sha: &str, n: usize, multiline: bool) -> Self {
        LogCommit {
            sha: sha.to_string(),
            subject: String::new(),
            author: None,
            date: None,
            head: n,
            detail: None,
            block: Span::line(n),
            multiline,
        }
    }
}

#[derive(PartialEq)]
enum Shape {
    Unknown,
    Multi,
    OneLine,
}

/// The text after `--graph`'s drawing (`* | `, `| |\ `).
pub fn strip_graph(text: &str) -> &str {
    let cut = text
        .find(|c: char| !matches!(c, '*' | '|' | '/' | '\\' | '_' | ' ' | '-' | '.'))
        .unwrap_or(text.len());
    // A drawing is made of marks and single spaces; `-` and `.` alone (a
    // subject of dashes) are not one.
    if text[..cut].contains(['*', '|', '/', '\\']) {
        &text[cut..]
    } else {
        text.trim_start()
    }
}

/// A lowercase hex word of 7 to 64 digits.
pub(crate) fn is_sha(word: &str) -> bool {
    (7..=64).contains(&word.len())
        && word
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// `Tue Feb 3 07:00:00 2026 +0000` → `2026-02-03`; an ISO date's day;
/// anything else as printed.
pub fn compact_date(text: &str) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let words: Vec<&str> = text.split_whitespace().collect();
    if let [_, mon, day, _, year, ..] = words.as_slice()
        && let Some(m) = MONTHS.iter().position(|x| x == mon)
        && let Ok(d) = day.parse::<u32>()
        && year.len() == 4
    {
        return format!("{year}-{:02}-{d:02}", m + 1);
    }
    match words.first() {
        Some(w) if w.len() >= 10 && w.as_bytes()[4] == b'-' && w.as_bytes()[7] == b'-' => {
            w[..10].to_string()
        }
        _ => text.trim().to_string(),
    }
}

/// `Ada Example <ada@example.org>` → `Ada Example`.
fn author_name(text: &str) -> String {
    text.split(" <").next().unwrap_or(text).trim().to_string()
}

/// `(HEAD -> main, tag: v1) subject` → `subject`.
fn without_decoration(rest: &str) -> &str {
    if rest.starts_with('(')
        && let Some(end) = rest.find(") ")
    {
        return &rest[end + 2..];
    }
    rest
}

pub fn parse<'a>(lines: impl Iterator<Item = (usize, &'a str)>) -> Log {
    let mut log = Log::default();
    let mut shape = Shape::Unknown;
    // Inside a multi-line head: the subject not read yet.
    let mut in_head = false;
    for (n, raw) in lines {
        let text = strip_graph(raw);
        let mut words = text.splitn(2, ' ');
        let first = words.next().unwrap_or("");
        let rest = words.next().unwrap_or("");
        if shape != Shape::OneLine && first == "commit" {
            let sha = rest.split(' ').next().unwrap_or("");
            if is_sha(sha) {
                shape = Shape::Multi;
                in_head = true;
                log.commits.push(LogCommit::at(sha, n, true));
                continue;
            }
        }
        if shape != Shape::Multi && is_sha(first) {
            shape = Shape::OneLine;
            let mut c = LogCommit::at(first, n, false);
            c.subject = without_decoration(rest).to_string();
            log.commits.push(c);
            continue;
        }
        let Some(c) = log.commits.last_mut() else {
            if ["fatal:", "error:", "warning:"].contains(&first) {
                log.errors.push(n);
            } else {
                log.unmatched += 1;
            }
            continue;
        };
        c.block.last = n;
        if in_head {
            if let Some(a) = text.strip_prefix("Author:") {
                c.author = Some(author_name(a));
            } else if let Some(d) = text
                .strip_prefix("AuthorDate:")
                .or_else(|| text.strip_prefix("Date:"))
            {
                c.date = Some(compact_date(d));
            } else if ["Merge:", "Commit:", "CommitDate:"]
                .iter()
                .any(|h| text.starts_with(h))
            {
                // Other head fields: kept in the block.
            } else if !text.trim().is_empty() {
                c.subject = text.trim().to_string();
                in_head = false;
            }
            continue;
        }
        if !text.trim().is_empty() {
            let d = c.detail.get_or_insert(Span::line(n));
            d.last = n;
        }
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Log {
        parse(text.lines().enumerate().map(|(i, l)| (i + 1, l)))
    }

    #[test]
    fn default_format_with_body_and_stat() {
        let log = parsed(concat!(
            "commit 0123456789abcdef0123456789abcdef01234567\nMerge: a b\nAuthor: Ada Example <ada@example.org>\n",
            "Date:   Tue Feb 3 07:00:00 2026 +0000\n\n    Subject here\n\n    Body 1234567 line\n\n",
            " README.md | 2 ++\n 1 file changed\n\n",
            "commit 1123456789abcdef0123456789abcdef01234567\nAuthor: Ken <k@x>\nDate:   Mon Feb 2 07:00:00 2026 +0000\n\n    Second\n",
        ));
        assert_eq!(log.commits.len(), 2);
        let c = &log.commits[0];
        assert_eq!(c.subject, "Subject here");
        assert_eq!(c.author.as_deref(), Some("Ada Example"));
        assert_eq!(c.date.as_deref(), Some("2026-02-03"));
        assert_eq!(c.detail, Some(Span::new(8, 11)));
        assert_eq!(c.block, Span::new(1, 12));
        assert_eq!(log.commits[1].detail, None);
    }

    #[test]
    fn oneline_and_graph() {
        let log = parsed(
            "*   d8738f8 (HEAD -> main) Merge it\n|\\  \n| * 66bfc15 Point\n* | f74b56a Tag\n|/  \n",
        );
        let subjects: Vec<&str> = log.commits.iter().map(|c| c.subject.as_str()).collect();
        assert_eq!(subjects, ["Merge it", "Point", "Tag"]);
        assert_eq!(log.commits[2].block, Span::new(4, 5));
    }

    #[test]
    fn graph_of_the_default_format() {
        let log = parsed(
            "* commit 66bfc15c6c3eb3af8e310775a71723bb2a5ebd71\n| Author: G <g@x>\n| Date:   Tue Feb 3 06:00:00 2026 +0000\n| \n|     Point at it\n| \n",
        );
        assert_eq!(log.commits[0].subject, "Point at it");
        assert_eq!(log.commits[0].date.as_deref(), Some("2026-02-03"));
    }

    #[test]
    fn errors_before_any_commit() {
        let log = parsed("fatal: bad revision 'nope'\n");
        assert_eq!(log.errors, vec![1]);
        assert!(log.commits.is_empty());
    }
}
