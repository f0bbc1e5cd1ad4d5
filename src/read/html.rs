//! HTML read as text: converted to Markdown (by `htmd`, which keeps
//! headings, lists, links, code and tables) and then sliced by heading
//! like any Markdown file. The outline of an HTML file comes from its own
//! syntax tree instead (elements with an `id`, headings, scripts, styles),
//! so its line spans are the file's.

use super::error::ReadError;
use super::languages;
use super::outline;
use super::symbol::{self, Lookup};
use super::view;
use super::{Mode, Request};

/// The Markdown of `html`.
pub fn to_markdown(html: &[u8]) -> Result<String, ReadError> {
    htmd::convert(&String::from_utf8_lossy(html)).map_err(|e| {
        ReadError::Unsupported(format!("the HTML could not be converted to Markdown: {e}"))
    })
}

/// The section under `heading` of the Markdown conversion.
pub fn section(req: &Request, html: &[u8], heading: &str) -> Result<Vec<u8>, ReadError> {
    let markdown = to_markdown(html)?;
    let md = markdown.as_bytes();
    let grammar = languages::by_name("markdown")
        .ok_or_else(|| ReadError::Unsupported("no Markdown grammar".into()))?;
    let outline = outline::extract(grammar, md).ok_or_else(|| {
        ReadError::Unsupported("the converted Markdown could not be parsed".into())
    })?;
    let d = match symbol::find_heading(&outline, heading) {
        Lookup::Found(i) => &outline.decls[i],
        Lookup::Ambiguous(found) => {
            let decls: Vec<_> = found.iter().map(|&i| &outline.decls[i]).collect();
            return Err(ReadError::NotFound(view::candidates(
                &req.shown, heading, &decls,
            )));
        }
        Lookup::NotFound(_) => {
            let names: Vec<String> = outline
                .decls
                .iter()
                .take(20)
                .map(|d| format!("{:?}", d.name))
                .collect();
            return Err(ReadError::NotFound(format!(
                "{}: no heading {heading:?} in its Markdown conversion; its headings: {}",
                req.shown,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        }
    };
    let starts = outline::line_starts(md);
    let mut out = Vec::new();
    view::lines(&mut out, md, &starts, d.start_line, d.end_line, req.anchors);
    view::note(
        &mut out,
        &format!(
            "section {:?} of the Markdown conversion ({} of its {} lines) · the HTML itself: {}",
            d.name,
            if d.start_line == d.end_line {
                format!("line {}", d.start_line)
            } else {
                format!("lines {}-{}", d.start_line, d.end_line)
            },
            crate::words::count(starts.len()),
            view::command(&req.shown, &Mode::Full)
        ),
    );
    Ok(out)
}
