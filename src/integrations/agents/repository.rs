//! The repository a folder belongs to: the project files an agent reads
//! (`.mcp.json`, `.claude/`, `.cursor/`) sit at its root, wherever in it
//! the person runs `ctx init`.

use std::path::Path;

/// The nearest folder from `dir` up (itself included) holding `.git`: a
/// folder in a clone, a file in a worktree or a submodule, as
/// `git rev-parse --show-toplevel` finds it. No git process is run: the
/// answer must not depend on git being installed.
pub fn root(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| is_root(d))
}

/// Whether `dir` itself holds `.git`.
pub fn is_root(dir: &Path) -> bool {
    dir.join(".git").exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_folder_with_git() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let repo = tmp.path().join("repo");
        let deep = repo.join("a/b");
        std::fs::create_dir_all(&deep).expect("mkdir");
        assert_eq!(root(&deep).filter(|r| r.starts_with(tmp.path())), None);
        std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
        assert_eq!(root(&deep), Some(repo.as_path()));
        // A worktree's or submodule's `.git` is a file.
        std::fs::write(deep.join(".git"), "gitdir: ../../.git/worktrees/b\n").expect("write");
        assert_eq!(root(&deep), Some(deep.as_path()));
    }
}
