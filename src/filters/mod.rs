//! Declarative filters: for the long tail of commands that need no typed
//! extractor (make, terraform, curl -v, …). A filter is data — one
//! `filters/<name>.toml` in the `ctx.filter/v1` format (docs/filters.md) —
//! embedded at build time, so adding one changes no Rust code.
//!
//! Classification tries them after every typed profile and before text/v1:
//! the pipeline asks `deliver` only when text/v1 would read the output.
//! Filters come from three places, the first that defines a name wins:
//! the project's `.ctx/filters/` (only once trusted, see `crate::trust`),
//! the user's `$XDG_CONFIG_HOME/ctx/filters/`, and the built-ins.

use std::path::PathBuf;
use std::sync::OnceLock;

use regex::Regex;

pub mod deliver;
pub mod engine;
pub mod spec;
#[cfg(test)]
mod tests;
pub mod verify;

pub use deliver::deliver;
use engine::Compiled;
use spec::{Spec, SpecError};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/filters.rs"));
}

/// The built-in filter files, by file name.
pub fn embedded() -> &'static [(&'static str, &'static str)] {
    embedded::EMBEDDED
}

/// Where a filter was loaded from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Builtin,
    User(PathBuf),
    /// A trusted project file.
    Project(PathBuf),
}

impl Origin {
    pub fn describe(&self) -> String {
        match self {
            Origin::Builtin => "built-in".to_string(),
            Origin::User(p) => format!("user: {}", p.display()),
            Origin::Project(p) => format!("project (trusted): {}", p.display()),
        }
    }
}

/// One loaded filter.
pub struct Filter {
    pub spec: Spec,
    pub origin: Origin,
    /// `<name>/filter-v<N>`, for headers, `ctx profiles` and the ledger.
    pub label: &'static str,
    command: Regex,
    compiled: OnceLock<Result<Compiled, String>>,
}

impl Filter {
    pub fn new(spec: Spec, origin: Origin) -> Result<Filter, SpecError> {
        let command =
            spec::compile(&spec::anchored(&spec.matcher.command)).map_err(|e| SpecError {
                file: format!("{}.toml", spec.name),
                why: e.to_string(),
            })?;
        let label: &'static str = Box::leak(spec.version_label().into_boxed_str());
        Ok(Filter {
            spec,
            origin,
            label,
            command,
            compiled: OnceLock::new(),
        })
    }

    /// Whether this filter reads `argv`'s output.
    pub fn matches(&self, argv: &[String]) -> bool {
        !argv.is_empty() && self.command.is_match(&command_line(argv))
    }

    /// The compiled rules (compiled on first use: a run compiles only the
    /// filter that matched).
    pub fn rules(&self) -> Result<&Compiled, &str> {
        self.compiled
            .get_or_init(|| Compiled::new(&self.spec).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(String::as_str)
    }
}

/// The text a filter's `[match] command` is matched against: argv[0]'s
/// base name, then the arguments, joined by single spaces.
pub fn command_line(argv: &[String]) -> String {
    let mut words = argv.iter();
    let first = words
        .next()
        .map_or("", |w| w.rsplit('/').next().unwrap_or(w));
    std::iter::once(first)
        .chain(words.map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every filter this process uses, in the order they are tried, and the
/// problems met loading them (each one a `[ctx]` note's words).
pub struct Loaded {
    pub filters: Vec<Filter>,
    pub problems: Vec<String>,
}

/// The filters of this process, loaded once. Problems are noted on stderr
/// the first time (one line each).
pub fn registry() -> &'static Loaded {
    static LOADED: OnceLock<Loaded> = OnceLock::new();
    LOADED.get_or_init(|| {
        let loaded = load(&crate::trust::project_files("filters"), &user_files());
        for problem in &loaded.problems {
            crate::emit::note(&format!("[ctx] {problem}"));
        }
        loaded
    })
}

/// The first filter (not disabled) that reads `argv`'s output.
pub fn for_command(argv: &[String], disabled: &[String]) -> Option<&'static Filter> {
    registry()
        .filters
        .iter()
        .find(|f| !disabled.contains(&f.spec.name) && f.matches(argv))
}

/// A file whose bytes were read and may be used.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
}

/// Loads the filters: project files, then user files, then built-ins; a
/// name defined earlier hides the same name later. A file that does not
/// load is left out and named in `problems`; the built-ins are checked by
/// the test suite and `ctx filters verify`, so they are parsed without
/// compiling every pattern here.
pub fn load(project: &crate::trust::ProjectFiles, user: &[SourceFile]) -> Loaded {
    let mut filters: Vec<Filter> = Vec::new();
    let mut problems = project.problems.clone();
    let mut add = |file: &str, text: &str, origin: Origin, filters: &mut Vec<Filter>| {
        let parsed = match origin {
            Origin::Builtin => Spec::parse_unchecked(file, text),
            _ => Spec::parse(file, text),
        };
        match parsed.and_then(|spec| Filter::new(spec, origin.clone())) {
            Ok(filter) => {
                if !filters.iter().any(|f| f.spec.name == filter.spec.name) {
                    filters.push(filter);
                }
            }
            Err(e) => problems.push(format!("{e}; filter not used")),
        }
    };
    for f in &project.files {
        add(
            &file_name(&f.path),
            &f.text,
            Origin::Project(f.path.clone()),
            &mut filters,
        );
    }
    for f in user {
        add(
            &file_name(&f.path),
            &f.text,
            Origin::User(f.path.clone()),
            &mut filters,
        );
    }
    for (name, text) in embedded() {
        add(name, text, Origin::Builtin, &mut filters);
    }
    Loaded { filters, problems }
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The user's filter directory: `$XDG_CONFIG_HOME/ctx/filters`, else
/// `~/.config/ctx/filters`.
pub fn user_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::config_dir)
        .map(|d| d.join("ctx").join("filters"))
}

/// The user's filter files, sorted by name. The user's own configuration
/// is trusted as the user is; an unreadable file is skipped.
pub fn user_files() -> Vec<SourceFile> {
    let Some(dir) = user_dir() else {
        return Vec::new();
    };
    crate::trust::toml_files(&dir)
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            Some(SourceFile { path, text })
        })
        .collect()
}
