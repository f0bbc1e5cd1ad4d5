//! Which project a hook payload belongs to, for its `.claude/` settings.
//!
//! Claude Code sets `CLAUDE_PROJECT_DIR` for its hooks; that is the
//! project. Without it the payload's `cwd` may be any folder the agent
//! `cd`'d into, so the project is found as Claude Code finds one: the
//! nearest folder, from `cwd` up, that holds a `.claude/` folder, looking
//! no further than the repository's root (the folder holding `.git`) and
//! never at the home folder itself (`~/.claude` is the user's settings,
//! not a project's). A repository without `.claude/` is its own project,
//! with no project settings.
//!
//! Deny and ask rules only ever narrow what the hook answers, so those of
//! every other `.claude/` between the project and the walk's end count
//! too (a package's own `.claude/` inside a monorepo that has one at its
//! root): whichever of them Claude Code took for the project, its denials
//! are honoured.
//!
//! Outside any repository, with no `.claude/` up to the home folder or
//! the root, the project is unknown: its settings may lie anywhere, so the
//! hook gives no answer at all and Claude Code decides on the command as
//! typed (mod.rs).

use std::path::{Path, PathBuf};

/// The project and the other settings folders that enclose `cwd`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Project {
    /// The folder whose `.claude/settings*.json` are the project's.
    pub dir: PathBuf,
    /// Other folders between `cwd` and the walk's end holding `.claude/`:
    /// only their deny and ask rules are read.
    pub enclosing: Vec<PathBuf>,
}

/// The project of a payload: `CLAUDE_PROJECT_DIR` when Claude Code set
/// it, else the walk up from `cwd`. `None`: unknown.
pub fn locate(env_dir: Option<&Path>, cwd: Option<&Path>, home: Option<&Path>) -> Option<Project> {
    if let Some(dir) = env_dir {
        return Some(Project {
            dir: dir.to_path_buf(),
            enclosing: Vec::new(),
        });
    }
    walk_up(cwd?, home)
}

/// The nearest ancestor of `cwd` (itself included) holding `.claude/`,
/// stopping at the repository's root or before the home folder.
pub fn walk_up(cwd: &Path, home: Option<&Path>) -> Option<Project> {
    // A relative `cwd` says nothing about where the session is.
    if !cwd.is_absolute() {
        return None;
    }
    let mut found: Vec<PathBuf> = Vec::new();
    let mut root = None;
    for dir in cwd.ancestors() {
        if home.is_some_and(|h| h == dir) {
            break;
        }
        if dir.join(".claude").is_dir() {
            found.push(dir.to_path_buf());
        }
        if crate::agents::repository::is_root(dir) {
            root = Some(dir.to_path_buf());
            break;
        }
    }
    let mut found = found.into_iter();
    match (found.next(), root) {
        (Some(dir), _) => Some(Project {
            dir,
            enclosing: found.collect(),
        }),
        (None, Some(dir)) => Some(Project {
            dir,
            enclosing: Vec::new(),
        }),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_claude_folder_up_to_the_repository_root() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let home = tmp.path().join("home");
        let repo = home.join("repo");
        let pkg = repo.join("packages/web");
        let deep = pkg.join("src/lib");
        std::fs::create_dir_all(&deep).expect("mkdir");
        std::fs::create_dir_all(home.join(".claude")).expect("mkdir");
        std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
        let at = |cwd: &Path| walk_up(cwd, Some(&home));

        // A repository without .claude/ is its own project.
        let want = Project {
            dir: repo.clone(),
            enclosing: vec![],
        };
        assert_eq!(at(&deep), Some(want.clone()));
        assert_eq!(at(&repo), Some(want));

        std::fs::create_dir_all(repo.join(".claude")).expect("mkdir");
        std::fs::create_dir_all(pkg.join(".claude")).expect("mkdir");
        assert_eq!(
            at(&deep),
            Some(Project {
                dir: pkg.clone(),
                enclosing: vec![repo.clone()],
            })
        );

        // Outside a repository: the home folder's .claude is the user's.
        let loose = home.join("notes/sub");
        std::fs::create_dir_all(&loose).expect("mkdir");
        assert_eq!(at(&loose), None);
        assert_eq!(at(&home), None);
        assert_eq!(at(Path::new("relative/dir")), None);
        std::fs::create_dir_all(home.join("notes/.claude")).expect("mkdir");
        assert_eq!(at(&loose).map(|p| p.dir), Some(home.join("notes")));

        // CLAUDE_PROJECT_DIR wins.
        let env = locate(Some(&deep), Some(&loose), Some(&home));
        assert_eq!(env.map(|p| p.dir), Some(deep));
    }
}
