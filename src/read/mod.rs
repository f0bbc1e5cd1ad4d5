//! `ctx read`: the smallest view of a file that answers the question, an
//! exact count of what it leaves out, and the exact read that brings it
//! back (docs/read.md).
//!
//! `read` goes: load the file → what it is (`content`: text, image, PDF,
//! binary) → for text, the grammar (`languages`) and its declarations
//! (`outline`, `naming`) → the view the mode asks for (`symbol` finds
//! one declaration or section, `html` converts HTML for `section:`,
//! `view` words it) → the session's earlier reads (`stubs`).

pub mod anchors;
pub mod cache;
pub mod content;
pub mod error;
pub mod html;
pub mod languages;
pub mod mode;
pub mod naming;
pub mod outline;
pub mod retention;
pub mod streamed;
pub mod stubs;
pub mod symbol;
pub mod view;

use std::path::{Path, PathBuf};

use content::Content;
pub use error::ReadError;
use languages::Grammar;
pub use mode::Mode;
use outline::{Decl, Outline};
use symbol::Lookup;

/// Files whose estimated size is at most this many tokens are shown whole
/// by `auto`: an outline and a follow-up read would cost more round trips
/// than the tokens they save.
pub const AUTO_FULL_TOKENS: usize = 4_000;

/// Larger files get no syntax tree (parsing them would cost more than a
/// line view saves); they are read with `precision: lines`.
pub const GRAMMAR_MAX_BYTES: usize = streamed::STREAM_BYTES as usize;

/// Lines a line-precision view shows from the start and from the end.
const HEAD_LINES: usize = 60;
const TAIL_LINES: usize = 20;

#[derive(Debug, Clone)]
pub struct Request {
    pub path: PathBuf,
    /// The path as the user wrote it, for the follow-up commands.
    pub shown: String,
    pub mode: Mode,
    pub anchors: bool,
    /// Bypass the session's re-read stubs.
    pub fresh: bool,
    /// The agent session the read belongs to (`CTX_SESSION`, `--session`).
    pub session: Option<String>,
    /// ctx's home for this read (the outline cache, the session's stubs);
    /// `None` is the process's own (`CTX_HOME`, else `XDG_DATA_HOME/ctx`,
    /// else `~/.local/share/ctx`). A caller in another process's place
    /// (a test, a server) names its own.
    pub home: Option<PathBuf>,
}

/// What `ctx read` prints, and a note for standard error.
#[derive(Debug)]
pub struct Reading {
    pub bytes: Vec<u8>,
    /// Why the re-read stubs were off for this read, if they failed.
    pub note: Option<String>,
}

/// The view `req` asks for.
pub fn read(req: &Request) -> Result<Reading, ReadError> {
    let (mut file, size) = open(&req.path)?;
    if size > streamed::STREAM_BYTES {
        let view = streamed::view(req, file, size)?;
        return Ok(reuse(req, view));
    }
    let bytes = crate::bounded::read_opened(&mut file, &req.path, streamed::STREAM_BYTES)
        .map_err(|e| io_error(&req.path, e))?;
    let view = match content::classify(&req.path, bytes) {
        Content::Text(src) => text_view(req, &src)?,
        Content::Image {
            kind,
            width,
            height,
            bytes,
        } => view::described(
            &req.shown,
            &format!("image {kind}, {width}×{height} pixels"),
            bytes,
        ),
        Content::Binary { kind, bytes } => {
            view::described(&req.shown, &format!("binary {kind}"), bytes)
        }
        Content::Pdf { text: Ok(text), .. } => {
            document_view(req, &text, "PDF text (through pdftotext)")?
        }
        Content::Pdf {
            text: Err(why),
            bytes,
        } => view::described(&req.shown, &format!("PDF document; {why}"), bytes),
    };
    Ok(reuse(req, view))
}

/// The result of `--verify`: one line per anchor, and whether any drifted.
pub fn verify(
    path: &Path,
    shown: &str,
    anchors: &[anchors::Anchor],
) -> Result<(Vec<u8>, bool), ReadError> {
    // Streamed: a file of any size, or of one endless line, costs one
    // chunk of memory.
    let (file, _) = open(path)?;
    let report = anchors::verify_stream(file, anchors).map_err(|e| io_error(path, e))?;
    let mut out = Vec::new();
    let mut drifted = 0;
    for (a, drift) in &report {
        let moved = |m: &[usize]| match m {
            [] => String::new(),
            m => format!("; its content is now at line {}", join(m)),
        };
        let line = match drift {
            anchors::Drift::Unchanged => format!("{}:{} unchanged", a.line, a.hash),
            anchors::Drift::Changed { now, moved_to } => {
                drifted += 1;
                format!(
                    "{}:{} changed, now {}:{now}{}",
                    a.line,
                    a.hash,
                    a.line,
                    moved(moved_to)
                )
            }
            anchors::Drift::Gone { lines, moved_to } => {
                drifted += 1;
                format!(
                    "{}:{} gone: the file has {}{}",
                    a.line,
                    a.hash,
                    crate::words::counted(*lines, "lines"),
                    moved(moved_to)
                )
            }
        };
        view::note(&mut out, &line);
    }
    let summary = if drifted == 0 {
        match report.len() {
            1 => format!("{shown}: 1 anchor unchanged"),
            n => format!("{shown}: all {n} anchors unchanged"),
        }
    } else {
        format!(
            "{shown}: {drifted} of {} changed · current lines: {}",
            crate::words::counted(report.len(), "anchors"),
            view::command(shown, &Mode::Full).replace("--mode full", "--mode full --anchors")
        )
    };
    view::note(&mut out, &summary);
    Ok((out, drifted > 0))
}

fn join(lines: &[usize]) -> String {
    lines
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The file at `path`, opened without waiting on it (a FIFO), refused
/// unless it is a regular file (a device, a socket: `crate::bounded`),
/// and its size.
fn open(path: &Path) -> Result<(std::fs::File, u64), ReadError> {
    if path.is_dir() {
        return Err(ReadError::Directory(path.to_path_buf()));
    }
    let file =
        crate::bounded::open(path, crate::bounded::Links::Follow).map_err(|e| io_error(path, e))?;
    let size = file.metadata().map_err(|e| io_error(path, e))?.len();
    Ok((file, size))
}

fn io_error(path: &Path, reason: std::io::Error) -> ReadError {
    match reason
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<crate::bounded::Refused>())
    {
        Some(refused) => ReadError::NotAFile(refused.to_string()),
        None => ReadError::Io {
            path: path.to_path_buf(),
            reason,
        },
    }
}

/// A text file read through its grammar, if ctx has one for it.
fn text_view(req: &Request, src: &[u8]) -> Result<Vec<u8>, ReadError> {
    let grammar = languages::for_path(&req.path).filter(|_| src.len() <= GRAMMAR_MAX_BYTES);
    let doc = Doc::new(req, src, grammar, grammar.map_or("text", |g| g.name));
    doc.view(&req.mode)
}

/// A document with no grammar of its own (a PDF's text).
fn document_view(req: &Request, src: &[u8], what: &str) -> Result<Vec<u8>, ReadError> {
    let doc = Doc::new(req, src, None, what);
    doc.view(&req.mode)
}

/// A text being read: its bytes, line starts, grammar and outline.
struct Doc<'a> {
    req: &'a Request,
    src: &'a [u8],
    starts: Vec<usize>,
    grammar: Option<&'static Grammar>,
    what: &'a str,
    /// Found when a view first needs it: `full`, `lines:` and a small
    /// file's `auto` never parse.
    outline: std::cell::OnceCell<Option<Outline>>,
}

impl<'a> Doc<'a> {
    fn new(
        req: &'a Request,
        src: &'a [u8],
        grammar: Option<&'static Grammar>,
        what: &'a str,
    ) -> Doc<'a> {
        Doc {
            req,
            src,
            starts: outline::line_starts(src),
            grammar,
            what,
            outline: std::cell::OnceCell::new(),
        }
    }

    /// The file's declarations, from the outline cache or the parser.
    fn outline(&self) -> Option<&Outline> {
        self.outline
            .get_or_init(|| {
                self.grammar
                    .and_then(|g| cache::outline(self.req.home.as_deref(), g, self.src))
            })
            .as_ref()
    }

    fn total_lines(&self) -> usize {
        if self.src.is_empty() {
            0
        } else {
            self.starts.len()
        }
    }

    fn shown(&self) -> &str {
        &self.req.shown
    }

    fn view(&self, mode: &Mode) -> Result<Vec<u8>, ReadError> {
        match mode {
            Mode::Full => Ok(self.full()),
            Mode::Auto => {
                let whole = crate::tokens::estimate(self.src);
                if whole <= AUTO_FULL_TOKENS {
                    return Ok(self.full());
                }
                // Never worse: an outline as large as the file (a file of
                // one-line declarations) gives way to the file itself.
                let outline = self.skeleton(false)?;
                if crate::tokens::estimate(&outline) >= whole {
                    Ok(self.full())
                } else {
                    Ok(outline)
                }
            }
            Mode::Outline => self.skeleton(false),
            Mode::Signatures => self.skeleton(true),
            Mode::Lines(a, b) => self.lines(*a, *b),
            Mode::Symbol(name) => self.symbol(name),
            Mode::Section(heading) => self.section(heading),
        }
    }

    fn full(&self) -> Vec<u8> {
        if !self.req.anchors {
            return self.src.to_vec();
        }
        let mut out = Vec::new();
        if self.total_lines() > 0 {
            view::lines(
                &mut out,
                self.src,
                &self.starts,
                1,
                self.total_lines(),
                true,
            );
        }
        out
    }

    fn lines(&self, from: usize, to: usize) -> Result<Vec<u8>, ReadError> {
        let total = self.total_lines();
        if from > total {
            return Err(ReadError::PastEnd {
                path: self.shown().to_string(),
                lines: total,
                asked: from,
            });
        }
        let to = to.min(total);
        let mut out = Vec::new();
        view::lines(&mut out, self.src, &self.starts, from, to, self.req.anchors);
        view::slice_footer(&mut out, self.shown(), "", from, to, total);
        Ok(out)
    }

    /// `outline` or `signatures`; the line-precision view when there is
    /// no syntax tree or it holds no declaration.
    fn skeleton(&self, public_only: bool) -> Result<Vec<u8>, ReadError> {
        let Some(outline) = self.outline().filter(|o| !o.decls.is_empty()) else {
            return Ok(self.line_precision());
        };
        let g = self.grammar.map_or("text", |g| g.name);
        let has_visibility = self.grammar.is_some_and(|g| g.has_visibility);
        let kept = if public_only && has_visibility {
            public_api(&outline.decls)
        } else {
            vec![true; outline.decls.len()]
        };
        let decls: Vec<&Decl> = outline
            .decls
            .iter()
            .zip(&kept)
            .filter(|(_, k)| **k)
            .map(|(d, _)| d)
            .collect();
        let label = match (public_only, has_visibility) {
            (false, _) => "outline".to_string(),
            (true, true) => "signatures (public API)".to_string(),
            (true, false) => {
                format!("signatures ({g} has no visibility syntax: every declaration)")
            }
        };
        let precision = if outline.errors.is_empty() {
            "precision: syntax".to_string()
        } else {
            format!(
                "precision: syntax, {}",
                crate::words::counted(outline.errors.len(), "error regions")
            )
        };
        let mut out = Vec::new();
        view::note(
            &mut out,
            &format!(
                "{} · {precision}",
                view::header(self.shown(), g, self.total_lines(), &label)
            ),
        );
        view::outline(&mut out, &decls);
        view::errors(&mut out, &outline.errors);
        if self.grammar.is_some_and(|g| g.name == "html") {
            view::note(
                &mut out,
                &format!(
                    "as Markdown, by heading: {}",
                    view::command(self.shown(), &Mode::Section("HEADING".into()))
                ),
            );
        }
        let example = self.example(outline, &kept);
        view::outline_footer(
            &mut out,
            self.shown(),
            decls.len(),
            example.as_ref(),
            self.total_lines(),
        );
        Ok(out)
    }

    /// The follow-up read of the largest listed leaf declaration: by name
    /// when a name finds it alone, else by its lines.
    fn example(&self, outline: &Outline, kept: &[bool]) -> Option<Mode> {
        // A leaf (a function, a key) when there is one; else a container
        // that is not the whole file (a Markdown section under the title).
        let candidates = |leaf: bool| {
            outline
                .decls
                .iter()
                .enumerate()
                .filter(move |(i, d)| {
                    kept[*i]
                        && d.has_body
                        && (d.role == languages::Role::Leaf) == leaf
                        && (leaf || d.lines() * 10 < self.total_lines() * 9)
                })
                .max_by_key(|(_, d)| (d.lines(), std::cmp::Reverse(d.start_line)))
        };
        let (index, d) = candidates(true).or_else(|| candidates(false))?;
        let markdown = self.grammar.is_some_and(|g| g.name == "markdown");
        Some(match symbol::shortest_name(outline, index) {
            Some(name) if markdown => Mode::Section(name),
            Some(name) => Mode::Symbol(name),
            None => Mode::Lines(d.start_line, d.end_line),
        })
    }

    fn line_precision(&self) -> Vec<u8> {
        let why = match (self.grammar, self.outline()) {
            (None, _) => match self.req.path.extension().and_then(|e| e.to_str()) {
                Some(ext) if self.what == "text" => format!("no grammar for .{ext} files"),
                _ if self.what == "text" => "no grammar for this file name".to_string(),
                _ => self.what.to_string(),
            },
            (Some(g), Some(_)) => format!("{} with no declarations", g.name),
            (Some(g), None) => format!("{} could not be parsed", g.name),
        };
        let mut out = Vec::new();
        view::note(
            &mut out,
            &view::header(self.shown(), &why, self.total_lines(), "precision: lines"),
        );
        if self.total_lines() > 0 {
            view::head_tail(
                &mut out,
                self.shown(),
                self.src,
                &self.starts,
                HEAD_LINES,
                TAIL_LINES,
                self.req.anchors,
                streamed::LINE_BYTES,
            );
        }
        view::note(
            &mut out,
            &format!("whole file: {}", view::command(self.shown(), &Mode::Full)),
        );
        out
    }

    fn symbol(&self, name: &str) -> Result<Vec<u8>, ReadError> {
        let Some(outline) = self.outline() else {
            return Err(ReadError::Unsupported(format!(
                "{}: symbol: needs a syntax tree, and ctx has no grammar for this file; read it by lines: {}",
                self.shown(),
                view::command(
                    self.shown(),
                    &Mode::Lines(1, self.total_lines().clamp(1, 200))
                )
            )));
        };
        let d = self.lookup(outline, name, "symbol", false)?;
        self.slice(d, &format!("symbol {} · ", d.qualified()))
    }

    fn section(&self, heading: &str) -> Result<Vec<u8>, ReadError> {
        match self.grammar.map(|g| g.name) {
            Some("markdown") => {
                let outline = self.outline().ok_or_else(|| {
                    ReadError::Unsupported(format!(
                        "{}: the Markdown could not be parsed",
                        self.shown()
                    ))
                })?;
                let d = self.lookup(outline, heading, "section", true)?;
                self.slice(d, &format!("section {:?} · ", d.name))
            }
            Some("html") => html::section(self.req, self.src, heading),
            _ => Err(ReadError::Unsupported(format!(
                "{}: section: reads Markdown and HTML headings; this file has none ctx can read. Try {}",
                self.shown(),
                view::command(self.shown(), &Mode::Outline)
            ))),
        }
    }

    fn lookup<'o>(
        &self,
        outline: &'o Outline,
        query: &str,
        what: &str,
        heading: bool,
    ) -> Result<&'o Decl, ReadError> {
        let found = if heading {
            symbol::find_heading(outline, query)
        } else {
            symbol::find(outline, query, false)
        };
        match found {
            Lookup::Found(i) => Ok(&outline.decls[i]),
            Lookup::Ambiguous(found) => {
                let decls: Vec<&Decl> = found.iter().map(|&i| &outline.decls[i]).collect();
                Err(ReadError::NotFound(view::candidates(
                    self.shown(),
                    query,
                    &decls,
                )))
            }
            Lookup::NotFound(near) => {
                let hint = if near.is_empty() {
                    String::new()
                } else {
                    format!(" Close: {}.", near.join(", "))
                };
                Err(ReadError::NotFound(format!(
                    "{}: no {what} named {query:?}.{hint} The names: {}",
                    self.shown(),
                    view::command(self.shown(), &Mode::Outline)
                )))
            }
        }
    }

    fn slice(&self, d: &Decl, what: &str) -> Result<Vec<u8>, ReadError> {
        let mut out = Vec::new();
        view::lines(
            &mut out,
            self.src,
            &self.starts,
            d.start_line,
            d.end_line,
            self.req.anchors,
        );
        view::slice_footer(
            &mut out,
            self.shown(),
            what,
            d.start_line,
            d.end_line,
            self.total_lines(),
        );
        Ok(out)
    }
}

/// Which declarations `signatures` keeps: public ones whose enclosing
/// declarations are kept too. A Rust `impl` block has no visibility of its
/// own; it is kept when something public is in it.
fn public_api(decls: &[Decl]) -> Vec<bool> {
    let transparent = |d: &Decl| d.kind == "impl_item";
    let mut keep: Vec<bool> = decls.iter().map(|d| d.public && !transparent(d)).collect();
    // Children come after their parent: walking backwards settles every
    // child before its `impl`.
    for i in (0..decls.len()).rev() {
        if keep[i]
            && let Some(p) = decls[i].parent
            && transparent(&decls[p])
        {
            keep[p] = true;
        }
    }
    for i in 0..decls.len() {
        if let Some(p) = decls[i].parent
            && !keep[p]
        {
            keep[i] = false;
        }
    }
    keep
}

/// The session's earlier reads: a stub, a diff, or the view itself.
fn reuse(req: &Request, view: Vec<u8>) -> Reading {
    let Some(id) = req.session.as_deref().filter(|s| !s.is_empty()) else {
        return Reading {
            bytes: view,
            note: None,
        };
    };
    if req.fresh {
        // Still recorded: the next read compares against this one.
        let _ = record(req, id, &view);
        return Reading {
            bytes: view,
            note: None,
        };
    }
    match record(req, id, &view) {
        Ok(stubs::Reuse::Print) => Reading {
            bytes: view,
            note: None,
        },
        Ok(stubs::Reuse::Stub(b) | stubs::Reuse::Diff(b)) => Reading {
            bytes: b,
            note: None,
        },
        Err(e) => Reading {
            bytes: view,
            note: Some(format!("re-read stubs are off for this read: {e}")),
        },
    }
}

fn record(req: &Request, id: &str, view: &[u8]) -> std::io::Result<stubs::Reuse> {
    let session = stubs::Session::open(req.home.as_deref(), id)?;
    let canonical = std::fs::canonicalize(&req.path).unwrap_or_else(|_| req.path.clone());
    let key =
        blake3::hash(format!("{}\0{}\0{}", canonical.display(), req.mode, req.anchors).as_bytes())
            .to_hex()
            .to_string();
    let mut command = view::command(&req.shown, &req.mode);
    if req.anchors {
        command.push_str(" --anchors");
    }
    session.reuse(&key, view, &req.shown, &command)
}
