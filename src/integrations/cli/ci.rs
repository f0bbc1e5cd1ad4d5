//! `--annotate` and `--summary`, shared by `run`, `pipe` and `digest`,
//! and the GitHub Actions environment they are resolved against
//! (docs/ci.md).

use std::path::PathBuf;

use super::format::FormatArgs;
use crate::ci::Ci;
use crate::format::{Format, Formatting};
use crate::workspace::Workspace;

/// Whether findings are annotated as GitHub workflow commands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Annotate {
    /// When `GITHUB_ACTIONS=true`, as GitHub's runners set it.
    #[default]
    Auto,
    /// Always (another runner that reads GitHub's syntax, a test).
    Github,
    /// Never.
    None,
}

/// The CI outputs on the command line.
#[derive(clap::Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct CiArgs {
    /// GitHub annotations for every finding with a file and line: `auto`
    /// (when GITHUB_ACTIONS=true), `github` (always) or `none`.
    #[arg(long, value_enum, default_value_t = Annotate::Auto, value_name = "WHEN")]
    pub annotate: Annotate,
    /// Append the markdown digest to $GITHUB_STEP_SUMMARY (the job's
    /// summary page).
    #[arg(long)]
    pub summary: bool,
}

/// The environment the CI outputs read: GitHub's variables and the
/// directory ctx runs in. One value, so tests can hand in their own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Environment {
    pub github_actions: Option<String>,
    pub workspace: Option<String>,
    pub step_summary: Option<String>,
    pub cwd: Option<String>,
}

impl Environment {
    pub fn current() -> Environment {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Environment {
            github_actions: var("GITHUB_ACTIONS"),
            workspace: var("GITHUB_WORKSPACE"),
            step_summary: var("GITHUB_STEP_SUMMARY"),
            cwd: std::env::current_dir()
                .ok()
                .map(|d| d.to_string_lossy().into_owned()),
        }
    }
}

impl CiArgs {
    /// The CI outputs these flags ask for in `env`.
    pub fn resolve(&self, env: &Environment) -> Ci {
        let annotate = match self.annotate {
            Annotate::Auto => env.github_actions.as_deref() == Some("true"),
            Annotate::Github => true,
            Annotate::None => false,
        };
        let summary = self.summary.then(|| match &env.step_summary {
            Some(path) => Ok(PathBuf::from(path)),
            None => Err("GITHUB_STEP_SUMMARY is not set".to_string()),
        });
        Ci { annotate, summary }
    }
}

/// Paths in SARIF, JUnit and annotations: relative to the checkout
/// (`GITHUB_WORKSPACE`), as the tool named them from where ctx runs.
pub fn workspace(env: &Environment) -> Workspace {
    Workspace {
        root: env.workspace.clone(),
        cwd: env.cwd.clone(),
    }
}

/// The shape and the CI outputs a verb hands to `deliver`.
pub fn formatting(output: &FormatArgs, ci: &CiArgs) -> Formatting {
    let env = Environment::current();
    Formatting {
        workspace: workspace(&env),
        ci: ci.resolve(&env),
        ..output.formatting()
    }
}

/// Refuses, before any input is read or any command runs, a shape that
/// `--as FAMILY` cannot have (`--format junit --as gcc`).
pub fn check_shape(format: Format, family: Option<&str>) -> anyhow::Result<()> {
    if let Some(family) = family
        && let Some(why) = crate::pipeline::ci::refusal(format, family)
    {
        anyhow::bail!("{why} (--as {family})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(actions: Option<&str>, summary: Option<&str>) -> Environment {
        Environment {
            github_actions: actions.map(String::from),
            workspace: Some("/w".into()),
            step_summary: summary.map(String::from),
            cwd: Some("/w/sub".into()),
        }
    }

    #[test]
    fn annotations_follow_github_actions_unless_told() {
        let auto = CiArgs::default();
        assert!(auto.resolve(&env(Some("true"), None)).annotate);
        assert!(!auto.resolve(&env(Some("false"), None)).annotate);
        assert!(!auto.resolve(&env(None, None)).annotate);
        let off = CiArgs {
            annotate: Annotate::None,
            ..CiArgs::default()
        };
        assert!(!off.resolve(&env(Some("true"), None)).annotate);
        let on = CiArgs {
            annotate: Annotate::Github,
            ..CiArgs::default()
        };
        assert!(on.resolve(&env(None, None)).annotate);
    }

    #[test]
    fn a_summary_without_its_variable_says_why() {
        let asked = CiArgs {
            summary: true,
            ..CiArgs::default()
        };
        assert_eq!(
            asked.resolve(&env(None, Some("/tmp/s.md"))).summary,
            Some(Ok(PathBuf::from("/tmp/s.md")))
        );
        assert!(matches!(
            asked.resolve(&env(None, None)).summary,
            Some(Err(why)) if why.contains("GITHUB_STEP_SUMMARY")
        ));
        assert_eq!(
            CiArgs::default().resolve(&env(None, Some("/x"))).summary,
            None
        );
    }

    #[test]
    fn shapes_are_checked_against_a_forced_family() {
        assert!(check_shape(Format::Junit, Some("pytest")).is_ok());
        assert!(check_shape(Format::Junit, Some("gcc")).is_err());
        assert!(check_shape(Format::Sarif, Some("cargo_test")).is_err());
        assert!(check_shape(Format::Sarif, None).is_ok());
        assert!(check_shape(Format::Json, Some("gcc")).is_ok());
    }
}
