//! What a file is before it is read as text: text, an image, a PDF, or
//! other binary data. Images and binary data are described (type, size,
//! dimensions), never printed; a PDF's text comes from `pdftotext` when
//! it is installed.

use std::path::Path;
use std::process::{Command, Stdio};

/// How much of the start of a file decides whether it is text.
const SNIFF_BYTES: usize = 8 << 10;

#[derive(Debug)]
pub enum Content {
    Text(Vec<u8>),
    Image {
        kind: String,
        width: usize,
        height: usize,
        bytes: u64,
    },
    Pdf {
        bytes: u64,
        /// The text `pdftotext` gave, or why there is none.
        text: Result<Vec<u8>, String>,
    },
    Binary {
        kind: String,
        bytes: u64,
    },
}

/// Sorts `bytes` (the whole file at `path`).
pub fn classify(path: &Path, bytes: Vec<u8>) -> Content {
    let size = bytes.len() as u64;
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    let sniffed = infer::get(head);
    if let Some(t) = sniffed {
        if t.mime_type() == "application/pdf" {
            return Content::Pdf {
                bytes: size,
                text: pdftotext(path),
            };
        }
        if t.matcher_type() == infer::MatcherType::Image {
            let kind = t.mime_type().to_string();
            return match imagesize::blob_size(&bytes) {
                Ok(dim) => Content::Image {
                    kind,
                    width: dim.width,
                    height: dim.height,
                    bytes: size,
                },
                Err(_) => Content::Binary { kind, bytes: size },
            };
        }
    }
    if is_text(head) {
        return Content::Text(bytes);
    }
    Content::Binary {
        kind: sniffed.map_or("data".to_string(), |t| t.mime_type().to_string()),
        bytes: size,
    }
}

/// For a file too large to load (`streamed`): None when its first bytes
/// are text, else what it is. An image or a PDF that large is described
/// like any binary file, never decoded.
pub fn sniff_large(head: &[u8], size: u64) -> Option<Content> {
    let head = &head[..head.len().min(SNIFF_BYTES)];
    if is_text(head) {
        return None;
    }
    Some(Content::Binary {
        kind: infer::get(head).map_or("data".to_string(), |t| t.mime_type().to_string()),
        bytes: size,
    })
}

/// How many bytes `sniff_large` looks at.
pub const SNIFF_LEN: usize = SNIFF_BYTES;

/// Text: no NUL byte, and valid UTF-8 up to a character the sniffed
/// window may have cut in two.
fn is_text(head: &[u8]) -> bool {
    if memchr::memchr(0, head).is_some() {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && head.len() == SNIFF_BYTES,
    }
}

/// The PDF's text through `pdftotext PATH -`, or a sentence saying why
/// there is none.
fn pdftotext(path: &Path) -> Result<Vec<u8>, String> {
    let out = Command::new("pdftotext")
        .args(["-enc", "UTF-8"])
        .arg(path)
        .arg("-")
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() => Ok(o.stdout),
        Ok(o) => {
            let why = String::from_utf8_lossy(&o.stderr);
            let first = why
                .lines()
                .next()
                .unwrap_or("no message")
                .trim()
                .to_string();
            Err(format!("pdftotext could not read it ({first})"))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err("pdftotext is not installed, so its text cannot be shown \
             (Debian and Ubuntu: apt-get install poppler-utils)"
                .to_string())
        }
        Err(e) => Err(format!("pdftotext could not run: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_binary_are_told_apart() {
        let p = Path::new("x");
        assert!(matches!(
            classify(p, b"fn main() {}\n".to_vec()),
            Content::Text(_)
        ));
        assert!(matches!(
            classify(p, "héllo\n".as_bytes().to_vec()),
            Content::Text(_)
        ));
        assert!(matches!(
            classify(p, vec![0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0]),
            Content::Binary { .. }
        ));
        assert!(matches!(
            classify(p, vec![b'a', 0, b'b']),
            Content::Binary { .. }
        ));
        assert!(matches!(
            classify(p, vec![0xff, 0xfe, 0x41]),
            Content::Binary { .. }
        ));
    }
}
