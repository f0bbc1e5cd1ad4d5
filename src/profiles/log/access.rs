//! One access-log request (nginx/Apache combined or common format): after
//! the bracketed time, `"METHOD PATH PROTO" STATUS BYTES`, then optionally
//! referer and user agent in quotes, then any fields a custom format adds.
//! A request duration is read when the format carries one: a field named
//! `rt=`, `request_time=` or `upstream_response_time=`, or a bare decimal
//! number after the user agent (`$request_time`, seconds).

/// The parts of a request line the digest uses.
#[derive(Clone, Debug, PartialEq)]
pub struct Request<'a> {
    pub method: &'a str,
    /// The path without its query string.
    pub path: &'a str,
    pub status: u16,
    pub seconds: Option<f64>,
}

/// Reads the request after the stamp's closing bracket at `close`.
pub fn read(line: &[u8], close: usize) -> Option<Request<'_>> {
    let rest = line.get(close + 1..)?.strip_prefix(b" \"")?;
    let end = quote_end(rest)?;
    let request = std::str::from_utf8(&rest[..end]).ok()?;
    // Split on bytes (every request passes here); the cuts are at ASCII
    // bytes, so the pieces stay valid text.
    let (method, target) = match memchr::memchr(b' ', request.as_bytes()) {
        Some(sp) => {
            let after = &request[sp + 1..];
            let t_end = memchr::memchr(b' ', after.as_bytes()).unwrap_or(after.len());
            (&request[..sp], &after[..t_end])
        }
        // A request line that is not HTTP (a scanner's garbage, `-`).
        None => (request, ""),
    };
    let path = memchr::memchr(b'?', target.as_bytes()).map_or(target, |q| &target[..q]);
    let after = rest.get(end + 1..)?.strip_prefix(b" ")?;
    let status_end = after.iter().position(|&b| b == b' ').unwrap_or(after.len());
    let status: u16 = std::str::from_utf8(&after[..status_end])
        .ok()?
        .parse()
        .ok()?;
    if !(100..600).contains(&status) {
        return None;
    }
    Some(Request {
        method,
        path,
        status,
        seconds: duration(&after[status_end..]),
    })
}

/// The end of a quoted field whose opening quote came just before `s`.
fn quote_end(s: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// A duration field in what follows the status, read on bytes: every
/// request of a large access log passes here.
fn duration(tail: &[u8]) -> Option<f64> {
    let mut bare = None;
    let mut quoted = false;
    let mut quotes = 0;
    for field in tail.split(|&b| b == b' ') {
        // Skip the inside of quoted fields (referer, user agent).
        let q = memchr::memchr_iter(b'"', field).count();
        if quoted || q % 2 == 1 {
            if q % 2 == 1 {
                quoted = !quoted;
                quotes += 1;
            }
            continue;
        }
        if q > 0 {
            quotes += 1;
            continue;
        }
        for key in [&b"rt="[..], b"request_time=", b"upstream_response_time="] {
            if let Some(v) = field.strip_prefix(key) {
                return std::str::from_utf8(v).ok()?.parse().ok();
            }
        }
        // Bytes sent come before the quoted fields; a bare decimal after
        // them is a time.
        if quotes >= 2 && field.contains(&b'.') && field.first().is_some_and(u8::is_ascii_digit) {
            bare = std::str::from_utf8(field)
                .ok()
                .and_then(|f| f.parse().ok())
                .or(bare);
        }
    }
    bare
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(line: &str) -> Option<Request<'_>> {
        let close = line.find(']').unwrap();
        read(line.as_bytes(), close)
    }

    #[test]
    fn combined_and_timed() {
        let r = req(r#"1.2.3.4 - - [30/Nov/2026:23:10:01 +0000] "GET /api/users?id=3 HTTP/1.1" 404 153 "-" "curl/7.88.1""#).unwrap();
        assert_eq!(
            (r.method, r.path, r.status, r.seconds),
            ("GET", "/api/users", 404, None)
        );
        let r = req(r#"1.2.3.4 - - [30/Nov/2026:23:10:01 +0000] "POST /slow HTTP/1.1" 502 157 "-" "curl/7.88.1 (x y)" 1.503"#).unwrap();
        assert_eq!((r.status, r.seconds), (502, Some(1.503)));
        let r = req(r#"1.2.3.4 - - [30/Nov/2026:23:10:01 +0000] "GET / HTTP/1.1" 200 5 rt=0.250"#)
            .unwrap();
        assert_eq!(r.seconds, Some(0.25));
        let r =
            req(r#"1.2.3.4 - - [30/Nov/2026:23:10:01 +0000] "\x16\x03" 400 157 "-" "-""#).unwrap();
        assert_eq!((r.path, r.status), ("", 400));
    }
}
