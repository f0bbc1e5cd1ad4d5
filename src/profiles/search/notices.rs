//! Lines a search prints about files rather than from them: binary-file
//! notices (a match whose lines are withheld) and errors.

use std::sync::LazyLock;

use regex::Regex;

/// `grep: F: binary file matches` (GNU grep 3.5+, stderr), `Binary file F
/// matches` (older grep, git grep), `F: binary file matches (found "\0"
/// byte around offset N)` (ripgrep, stdout).
static BINARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:e?f?grep|rg): (.+): binary file matches$",
        r"|^Binary file (.+) matches$",
        r"|^(.+): binary file matches \(found ",
    ))
    .expect("static")
});

/// The path of a binary-file notice.
pub fn binary_path(text: &str) -> Option<&str> {
    let c = BINARY.captures(text)?;
    (1..=3).find_map(|i| c.get(i)).map(|m| m.as_str())
}

/// An error's identity: the line without the tool's `grep: ` prefix, so
/// `src/x: Permission denied` reads the same from grep and rg.
pub fn error_identity(text: &str) -> String {
    let trimmed = text.trim_end();
    for prefix in ["grep: ", "egrep: ", "fgrep: ", "rg: ", "fatal: ", "error: "] {
        if let Some(rest) = trimmed.strip_prefix(prefix) {
            return rest.to_string();
        }
    }
    trimmed.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_notices_of_each_tool() {
        assert_eq!(
            binary_path("grep: src/blob.bin: binary file matches"),
            Some("src/blob.bin")
        );
        assert_eq!(binary_path("Binary file a.bin matches"), Some("a.bin"));
        assert_eq!(
            binary_path(r#"a.bin: binary file matches (found "\0" byte around offset 12)"#),
            Some("a.bin")
        );
        assert_eq!(binary_path("src/a.rs:12:binary file matches"), None);
    }

    #[test]
    fn error_identities_drop_the_tool_prefix() {
        assert_eq!(
            error_identity("grep: src/locked.rs: Permission denied"),
            "src/locked.rs: Permission denied"
        );
        assert_eq!(
            error_identity("rg: src/locked.rs: Permission denied (os error 13)"),
            "src/locked.rs: Permission denied (os error 13)"
        );
    }
}
