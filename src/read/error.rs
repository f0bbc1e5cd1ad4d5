//! Why a read cannot give the view asked for.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    // The reason is part of the message and deliberately not a `source`:
    // a chain printer (`{:#}`, the MCP reply) would say it twice.
    #[error("cannot read {path}: {reason}")]
    Io {
        path: PathBuf,
        reason: std::io::Error,
    },
    #[error("{0} is a directory; ctx read reads files")]
    Directory(PathBuf),
    /// A FIFO, a device, a socket: refused before a byte is read.
    #[error("{0}; ctx read reads regular files")]
    NotAFile(String),
    #[error("bad --mode {0}")]
    Mode(String),
    #[error("bad --verify anchor {0:?}: anchors are LINE:HASH, as `--anchors` prints them")]
    Anchor(String),
    /// The mode needs a syntax tree (or Markdown headings) the file does
    /// not have; the message names the read that works instead.
    #[error("{0}")]
    Unsupported(String),
    /// Nothing by that name; the message lists the names that come close.
    #[error("{0}")]
    NotFound(String),
    #[error("{path} has {}; line {asked} is past its end", crate::words::counted(*.lines, "lines"))]
    PastEnd {
        path: String,
        lines: usize,
        asked: usize,
    },
}
