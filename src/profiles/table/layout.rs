//! Where a table is in the output and how its rows split into cells: the
//! header line, the row lines (a CSV record may span lines), and one cell
//! per column for each row. Formats: whitespace-aligned (ps, df, lsblk,
//! ss, dpkg -l), two-space columns with multi-word headers (docker,
//! kubectl), a dashed separator giving column boundaries (sqlite3
//! -column), pipe-separated (psql aligned), box drawing (sqlite3 -box),
//! and CSV/TSV (psql --csv, sqlite3 -csv, files) read with the `csv` crate.

use crate::artifact::Artifact;

/// How rows split into cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Split on whitespace; the last column takes the rest of the line.
    Whitespace,
    /// Split on runs of two or more spaces (multi-word headers).
    TwoSpaces,
    /// Fixed columns from a dashed separator line (start, end) in chars.
    Fixed,
    /// `|`-separated (psql aligned).
    Pipes,
    /// `│`-separated (sqlite3 -box).
    Box,
    Csv(u8),
}

impl Format {
    /// Whether an empty cell can be told from a missing one.
    pub fn delimited(self) -> bool {
        matches!(
            self,
            Format::Pipes | Format::Box | Format::Csv(_) | Format::Fixed
        )
    }
}

pub struct Row {
    /// First line of the row (1-based artifact line).
    pub line: usize,
    pub last: usize,
    pub cells: Vec<String>,
}

pub struct Layout {
    pub format: Format,
    pub header_line: usize,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    /// The tool's own row count (`(12 rows)`), when it printed one.
    pub announced: Option<u64>,
    /// Lines neither header, row nor frame.
    pub unmatched: u64,
    pub last_line: usize,
    /// The tool drew the table's end (a box's bottom border).
    pub closed: bool,
}

fn text(artifact: &Artifact, n: usize) -> String {
    crate::profiles::visible(artifact, n).into_owned()
}

pub fn read(artifact: &Artifact, csv: Option<u8>) -> Option<Layout> {
    if let Some(delim) = csv {
        return read_csv(artifact, delim);
    }
    let total = artifact.line_count();
    let lines: Vec<String> = (1..=total).map(|n| text(artifact, n)).collect();
    // dpkg -l: the header is the `||/` line after the legend.
    let start = lines
        .iter()
        .position(|l| l.starts_with("||/ "))
        .or_else(|| lines.iter().position(|l| !l.trim().is_empty()))?;
    let header = &lines[start];
    if header.starts_with('┌') || header.starts_with('╭') {
        return read_box(&lines, start);
    }
    let second = lines.get(start + 1).map(String::as_str).unwrap_or("");
    if header.contains('|') && is_rule(second, &['-', '+']) && !header.starts_with("||/") {
        return Some(read_pipes(&lines, start));
    }
    let mut layout = Layout {
        format: Format::Whitespace,
        header_line: start + 1,
        columns: Vec::new(),
        rows: Vec::new(),
        announced: None,
        unmatched: 0,
        last_line: start + 1,
        closed: false,
    };
    let mut first_row = start + 1;
    let mut fixed: Vec<(usize, usize)> = Vec::new();
    if is_rule(second, &['-', ' ']) && second.contains('-') && !header.starts_with("||/") {
        fixed = runs(second);
        layout.format = Format::Fixed;
        layout.columns = cut(header, &fixed);
        first_row += 1;
    } else if header.starts_with("||/") {
        layout.columns = header.split_whitespace().map(str::to_string).collect();
        if lines.get(first_row).is_some_and(|l| l.starts_with("+++-")) {
            first_row += 1;
        }
    } else if all_gaps_wide(header) {
        layout.format = Format::TwoSpaces;
        layout.columns = split_two(header);
    } else {
        layout.columns = merge_names(header.split_whitespace().collect());
    }
    if layout.columns.len() < 2 {
        return None;
    }
    for (i, l) in lines.iter().enumerate().skip(first_row) {
        if l.trim().is_empty() {
            layout.unmatched += 1;
            continue;
        }
        let cells = match layout.format {
            Format::Fixed => cut(l, &fixed),
            Format::TwoSpaces => split_two(l),
            _ => split_ws(l, layout.columns.len()),
        };
        layout.rows.push(Row {
            line: i + 1,
            last: i + 1,
            cells,
        });
        layout.last_line = i + 1;
    }
    Some(layout)
}

/// Column names printed as two words with one space between them.
const TWO_WORD_NAMES: &[(&str, &str)] = &[
    ("Mounted", "on"),
    ("Local", "Address:Port"),
    ("Peer", "Address:Port"),
    ("Local", "Address"),
    ("Foreign", "Address"),
    ("CONTAINER", "ID"),
    ("IMAGE", "ID"),
];

fn merge_names(words: Vec<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words {
        if let Some(prev) = out.last_mut()
            && TWO_WORD_NAMES.iter().any(|(a, b)| prev == a && w == *b)
        {
            prev.push(' ');
            prev.push_str(w);
            continue;
        }
        out.push(w.to_string());
    }
    out
}

/// Every gap between the header's names is two spaces or more (docker,
/// kubectl): cells may then hold single spaces (`2 hours ago`).
fn all_gaps_wide(header: &str) -> bool {
    let joined = TWO_WORD_NAMES
        .iter()
        .fold(header.trim().to_string(), |h, (a, b)| {
            h.replace(&format!("{a} {b}"), &format!("{a}_{b}"))
        });
    let t = joined.as_str();
    let mut gaps = 0;
    let mut run = 0;
    for c in t.chars() {
        if c == ' ' {
            run += 1;
        } else {
            if run == 1 {
                return false;
            }
            gaps += usize::from(run >= 2);
            run = 0;
        }
    }
    gaps >= 1
}

fn is_rule(line: &str, chars: &[char]) -> bool {
    !line.trim().is_empty() && line.chars().all(|c| chars.contains(&c))
}

/// Runs of `-` as (start, end) char columns.
fn runs(rule: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in rule.chars().chain(std::iter::once(' ')).enumerate() {
        match (c == '-', start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    out
}

fn cut(line: &str, cols: &[(usize, usize)]) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    cols.iter()
        .enumerate()
        .map(|(k, &(s, e))| {
            // The last column takes the rest of the line.
            let e = if k + 1 == cols.len() {
                chars.len()
            } else {
                e.min(chars.len())
            };
            let s = s.min(chars.len());
            chars[s..e.max(s)]
                .iter()
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect()
}

fn split_ws(line: &str, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line.trim_start();
    while out.len() + 1 < n {
        let Some(end) = rest.find(char::is_whitespace) else {
            break;
        };
        out.push(rest[..end].to_string());
        rest = rest[end..].trim_start();
    }
    if !rest.is_empty() {
        out.push(rest.trim_end().to_string());
    }
    out
}

fn split_two(line: &str) -> Vec<String> {
    line.split("  ")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

fn read_pipes(lines: &[String], start: usize) -> Layout {
    let split = |l: &str| {
        l.split('|')
            .map(|c| c.trim().to_string())
            .collect::<Vec<_>>()
    };
    let mut layout = Layout {
        format: Format::Pipes,
        header_line: start + 1,
        columns: split(&lines[start]),
        rows: Vec::new(),
        announced: None,
        unmatched: 0,
        last_line: start + 2,
        closed: false,
    };
    for (i, l) in lines.iter().enumerate().skip(start + 2) {
        if let Some(n) = l
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(" rows)").or_else(|| r.strip_suffix(" row)")))
        {
            layout.announced = n.parse().ok();
            layout.last_line = i + 1;
            continue;
        }
        if l.trim().is_empty() {
            continue;
        }
        // A wrapped cell (`+` at the end of a line) continues the row.
        match layout.rows.last_mut() {
            Some(r) if lines[r.last - 1].trim_end().ends_with('+') => r.last = i + 1,
            _ => layout.rows.push(Row {
                line: i + 1,
                last: i + 1,
                cells: split(l),
            }),
        }
        layout.last_line = i + 1;
    }
    layout
}

fn read_box(lines: &[String], start: usize) -> Option<Layout> {
    let split = |l: &str| {
        let inner = l.trim().trim_start_matches('│').trim_end_matches('│');
        inner
            .split('│')
            .map(|c| c.trim().to_string())
            .collect::<Vec<_>>()
    };
    let header = lines.get(start + 1)?;
    let mut layout = Layout {
        format: Format::Box,
        header_line: start + 2,
        columns: split(header),
        rows: Vec::new(),
        announced: None,
        unmatched: 0,
        last_line: start + 2,
        closed: false,
    };
    for (i, l) in lines.iter().enumerate().skip(start + 2) {
        if l.starts_with('└') || l.starts_with('╰') {
            layout.closed = true;
        }
        if l.starts_with('│') {
            layout.rows.push(Row {
                line: i + 1,
                last: i + 1,
                cells: split(l),
            });
        }
        layout.last_line = i + 1;
    }
    Some(layout)
}

fn read_csv(artifact: &Artifact, delim: u8) -> Option<Layout> {
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delim)
        .has_headers(false)
        .flexible(true)
        .from_reader(artifact.bytes());
    let mut layout = Layout {
        format: Format::Csv(delim),
        header_line: 1,
        columns: Vec::new(),
        rows: Vec::new(),
        announced: None,
        unmatched: 0,
        last_line: 1,
        closed: false,
    };
    let mut record = csv::StringRecord::new();
    let mut first = true;
    loop {
        let line = rdr.position().line() as usize;
        match rdr.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(_) => return None,
        }
        let end = rdr.position().line() as usize;
        let cells: Vec<String> = record.iter().map(str::to_string).collect();
        if first {
            layout.header_line = line;
            layout.columns = cells;
            first = false;
            continue;
        }
        // A record ends where the next begins; its own last line is one before.
        let last = end.saturating_sub(1).max(line);
        layout.rows.push(Row { line, last, cells });
        layout.last_line = last;
    }
    (layout.columns.len() >= 2).then_some(layout)
}
