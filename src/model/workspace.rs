//! Where a file a tool named lies in the repository: CI annotations and
//! SARIF name files relative to the checkout's root (`GITHUB_WORKSPACE`),
//! while a tool names them relative to the directory it ran in, or
//! absolute. Pure: both directories are handed in, nothing is read from
//! the disk or the environment, and `..` is resolved by the words alone.

/// The two directories a path is resolved between.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workspace {
    /// The checkout's root (`GITHUB_WORKSPACE`); absolute.
    pub root: Option<String>,
    /// The directory the tool ran in, which its relative paths start
    /// from; absolute.
    pub cwd: Option<String>,
}

/// A tool's path, placed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placed {
    /// Inside the root (or relative, with nothing to resolve it against):
    /// `/`-separated, no `.` or `..` left, never empty.
    Relative(String),
    /// An absolute path outside the root.
    Outside(String),
}

impl Placed {
    /// The path as written in an annotation's `file=`.
    pub fn as_str(&self) -> &str {
        match self {
            Placed::Relative(p) | Placed::Outside(p) => p,
        }
    }
}

impl Workspace {
    /// `file` as the repository names it.
    pub fn place(&self, file: &str) -> Placed {
        let absolute = if file.starts_with('/') {
            Some(normal(file))
        } else {
            self.cwd
                .as_deref()
                .filter(|cwd| cwd.starts_with('/'))
                .map(|cwd| normal(&format!("{cwd}/{file}")))
        };
        let Some(absolute) = absolute else {
            // Nothing to resolve it against: as written, tidied.
            let tidy = normal(file);
            let tidy = tidy.trim_start_matches('/');
            return Placed::Relative(if tidy.is_empty() {
                file.to_string()
            } else {
                tidy.to_string()
            });
        };
        let root = self
            .root
            .as_deref()
            .filter(|r| r.starts_with('/'))
            .map(normal);
        if let Some(root) = root {
            let root = root.trim_end_matches('/');
            if let Some(rest) = absolute
                .strip_prefix(root)
                .and_then(|r| r.strip_prefix('/'))
                && !rest.is_empty()
            {
                return Placed::Relative(rest.to_string());
            }
            return Placed::Outside(absolute);
        }
        // No root: relative to where the tool ran, when inside it.
        if let Some(cwd) = self.cwd.as_deref().map(normal) {
            let cwd = cwd.trim_end_matches('/');
            if let Some(rest) = absolute.strip_prefix(cwd).and_then(|r| r.strip_prefix('/'))
                && !rest.is_empty()
            {
                return Placed::Relative(rest.to_string());
            }
        }
        Placed::Outside(absolute)
    }
}

/// `path` with `.`, `..` and repeated `/` resolved lexically (`..` above
/// the root of an absolute path stays at the root; a relative path keeps
/// its leading `..`).
fn normal(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(root: Option<&str>, cwd: Option<&str>) -> Workspace {
        Workspace {
            root: root.map(String::from),
            cwd: cwd.map(String::from),
        }
    }

    #[test]
    fn relative_paths_are_resolved_from_where_the_tool_ran() {
        let w = ws(Some("/w/repo"), Some("/w/repo/web"));
        assert_eq!(w.place("src/a.ts"), Placed::Relative("web/src/a.ts".into()));
        assert_eq!(
            w.place("./src/../b.ts"),
            Placed::Relative("web/b.ts".into())
        );
        assert_eq!(w.place("../lib/c.rs"), Placed::Relative("lib/c.rs".into()));
        assert_eq!(
            w.place("/w/repo/web/src/a.ts"),
            Placed::Relative("web/src/a.ts".into())
        );
    }

    #[test]
    fn paths_outside_the_root_stay_absolute() {
        let w = ws(Some("/w/repo/"), Some("/w/repo"));
        assert_eq!(
            w.place("/usr/include/stdio.h"),
            Placed::Outside("/usr/include/stdio.h".into())
        );
        assert_eq!(
            w.place("../other/x.c"),
            Placed::Outside("/w/other/x.c".into())
        );
        // A sibling that shares the root's prefix is outside it.
        assert_eq!(
            w.place("/w/repo-old/x.c"),
            Placed::Outside("/w/repo-old/x.c".into())
        );
    }

    #[test]
    fn without_a_root_the_tools_directory_is_the_base() {
        let w = ws(None, Some("/tmp/shop"));
        assert_eq!(w.place("tests/t.py"), Placed::Relative("tests/t.py".into()));
        assert_eq!(
            w.place("/tmp/shop/tests/t.py"),
            Placed::Relative("tests/t.py".into())
        );
        let bare = ws(None, None);
        assert_eq!(bare.place("./a/b.go"), Placed::Relative("a/b.go".into()));
        assert_eq!(bare.place("/abs/b.go"), Placed::Outside("/abs/b.go".into()));
    }
}
