//! A connection string cut where the client library cuts it.
//!
//! What counts as the password, the host or a parameter is what
//! tokio-postgres decides (`Config::from_str`), and its rules are not a
//! URL's: the credentials run to the **first** `@` of the whole string,
//! so a password may hold unencoded `/`, `?` and `#`; the password is
//! everything after the first `:` in them; parameters are `key=value`
//! pairs split at `&`, keys percent-decoded, and a repeated key is taken
//! again (the last one wins). A masker with rules of its own (a URL
//! parser's, or "the authority ends at the first `/`") leaves whatever it
//! cut differently in the clear. So both the masking (`redact`) and the
//! TLS settings' split (`tls::split`) read the string through this one
//! cutter, which follows the client's parser step by step.

use std::ops::Range;

/// The byte ranges of a connection string, as the client reads it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pieces {
    /// Every password: the one in the credentials and each `password=`
    /// parameter's value (a `key=value` string's too).
    pub secrets: Vec<Range<usize>>,
    /// A URL's query string (after its `?`), when it has one.
    pub query: Option<Range<usize>>,
}

/// The URL schemes the client reads as URLs.
const SCHEMES: [&str; 2] = ["postgres://", "postgresql://"];

/// Cuts `s`: a URL when it starts with a PostgreSQL scheme (any other
/// `scheme://` is cut the same way, for masking a wrong value), else a
/// `key=value` string.
pub fn cut(s: &str) -> Pieces {
    let start = SCHEMES
        .iter()
        .find(|p| s.starts_with(*p))
        .map(|p| p.len())
        .or_else(|| s.find("://").map(|i| i + 3));
    match start {
        Some(start) => cut_url(s, start),
        None => cut_keywords(s),
    }
}

/// `UrlParser` of tokio-postgres: credentials, host, path, parameters.
fn cut_url(s: &str, start: usize) -> Pieces {
    let mut pieces = Pieces::default();
    let mut at = start;
    // Credentials: up to the first `@`, anywhere in the rest.
    if let Some(end) = s[at..].find('@').map(|i| at + i) {
        if let Some(colon) = s[at..end].find(':') {
            pieces.secrets.push(at + colon + 1..end);
        }
        at = end + 1;
    }
    // Host: up to the first `/` or `?`; path: up to the next `?`.
    at = s[at..].find(['/', '?']).map_or(s.len(), |i| at + i);
    if s[at..].starts_with('/') {
        at = s[at..].find('?').map_or(s.len(), |i| at + i);
    }
    if !s[at..].starts_with('?') {
        return pieces;
    }
    at += 1;
    pieces.query = Some(at..s.len());
    // Parameters: `key=value` split at `&`, the key percent-decoded.
    while at < s.len() {
        let Some(eq) = s[at..].find('=').map(|i| at + i) else {
            // The client refuses the string ("unterminated parameter").
            break;
        };
        let key = percent_encoding::percent_decode_str(&s[at..eq]).decode_utf8_lossy();
        let value_end = s[eq + 1..].find('&').map_or(s.len(), |i| eq + 1 + i);
        if key == "password" {
            pieces.secrets.push(eq + 1..value_end);
        }
        at = value_end + 1;
    }
    pieces
}

/// `Parser` of tokio-postgres: `keyword = value` pairs separated by
/// whitespace, a value either `'quoted'` or bare, `\` escaping the next
/// character in both.
fn cut_keywords(s: &str) -> Pieces {
    let mut pieces = Pieces::default();
    let bytes = s.as_bytes();
    let mut at = 0;
    let skip_ws = |mut i: usize| {
        while i < s.len() && s[i..].starts_with(char::is_whitespace) {
            i += s[i..].chars().next().map_or(1, char::len_utf8);
        }
        i
    };
    loop {
        at = skip_ws(at);
        let key_start = at;
        while at < s.len() && !s[at..].starts_with(|c: char| c.is_whitespace() || c == '=') {
            at += s[at..].chars().next().map_or(1, char::len_utf8);
        }
        if at == key_start {
            return pieces;
        }
        let key = &s[key_start..at];
        at = skip_ws(at);
        if bytes.get(at) != Some(&b'=') {
            return pieces;
        }
        at = skip_ws(at + 1);
        let value_start = at;
        let quoted = bytes.get(at) == Some(&b'\'');
        if quoted {
            at += 1;
        }
        let mut closed = !quoted;
        while at < s.len() {
            let c = s[at..].chars().next().map_or('\0', |c| c);
            if quoted && c == '\'' {
                at += 1;
                closed = true;
                break;
            }
            if !quoted && c.is_whitespace() {
                break;
            }
            at += c.len_utf8();
            if c == '\\' && at < s.len() {
                at += s[at..].chars().next().map_or(1, char::len_utf8);
            }
        }
        if key == "password" {
            pieces.secrets.push(value_start..at);
        }
        if !closed {
            return pieces;
        }
    }
}

/// `s` with every password replaced by `***`.
pub fn redact(s: &str) -> String {
    let mut secrets = cut(s).secrets;
    secrets.sort_by_key(|r| r.start);
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    for r in secrets {
        if r.start < at {
            continue;
        }
        out.push_str(&s[at..r.start]);
        out.push_str("***");
        at = r.end;
    }
    out.push_str(&s[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    /// The password the client itself finds in `url`.
    fn client_password(url: &str) -> Option<String> {
        tokio_postgres::Config::from_str(url)
            .ok()?
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned())
    }

    #[test]
    fn the_usual_forms_are_masked() {
        assert_eq!(
            redact("postgres://ci:hunter2@db.example:5432/ctx?sslmode=require"),
            "postgres://ci:***@db.example:5432/ctx?sslmode=require"
        );
        assert_eq!(
            redact("postgresql://db/ctx?user=a&password=hunter2&x=1"),
            "postgresql://db/ctx?user=a&password=***&x=1"
        );
        assert_eq!(
            redact("host=db password=hunter2 user=a"),
            "host=db password=*** user=a"
        );
        assert_eq!(redact("postgres://ci@db/ctx"), "postgres://ci@db/ctx");
    }

    #[test]
    fn a_password_with_url_delimiters_is_masked_whole() {
        for password in [
            "pa/ss",
            "pa?ss",
            "pa#ss",
            "a/b?c#d",
            "x?sslmode=disable&y",
            "/",
            "?#",
        ] {
            let url = format!("postgres://ci:{password}@db.example:5432/ctx?sslmode=require");
            assert_eq!(client_password(&url).as_deref(), Some(password), "{url}");
            let shown = redact(&url);
            assert_eq!(
                shown, "postgres://ci:***@db.example:5432/ctx?sslmode=require",
                "{url}"
            );
        }
    }

    #[test]
    fn every_password_parameter_is_masked() {
        let url = "postgres://ci@db/ctx?password=first&sslmode=require&password=second";
        assert_eq!(client_password(url).as_deref(), Some("second"));
        assert_eq!(
            redact(url),
            "postgres://ci@db/ctx?password=***&sslmode=require&password=***"
        );
        // A percent-encoded key is the same key to the client.
        let url = "postgres://ci@db/ctx?pass%77ord=third";
        assert_eq!(client_password(url).as_deref(), Some("third"));
        assert_eq!(redact(url), "postgres://ci@db/ctx?pass%77ord=***");
        // Both places at once.
        assert_eq!(
            redact("postgres://ci:one@db/ctx?password=two"),
            "postgres://ci:***@db/ctx?password=***"
        );
    }

    #[test]
    fn keyword_strings_are_cut_as_the_client_cuts_them() {
        assert_eq!(
            redact("host=db password='two words' user=a password=b\\ c"),
            "host=db password=*** user=a password=***"
        );
        assert_eq!(
            redact("password = 'it\\'s' host=db"),
            "password = *** host=db"
        );
        // Unterminated: the rest is the value.
        assert_eq!(redact("host=db password='open"), "host=db password=***");
    }

    #[test]
    fn the_query_starts_after_the_credentials() {
        let s = "postgres://ci:pa?ss@db/ctx?sslmode=require";
        let q = cut(s).query.expect("a query");
        assert_eq!(&s[q], "sslmode=require");
        assert_eq!(cut("postgres://ci:pa?ss@db/ctx").query, None);
    }

    #[test]
    fn another_scheme_is_masked_too() {
        assert_eq!(redact("mysql://u:p/w@h/db"), "mysql://u:***@h/db");
    }
}
