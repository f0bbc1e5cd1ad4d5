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

use regex::{Regex, RegexSet};

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
    include!(concat!(env!("OUT_DIR"), "/filter_index.rs"));
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

/// One loaded filter. A built-in is known by its index entry until it is
/// used: its file is parsed only when it matched (or for `verify`).
pub struct Filter {
    pub name: String,
    /// `<name>/filter-v<N>`, for headers, `ctx profiles` and the ledger.
    pub label: &'static str,
    /// The `[match] command` pattern as written.
    pub pattern: String,
    /// The `[match] rewrite` pattern as written, when the filter has one.
    pub rewrite: Option<String>,
    pub origin: Origin,
    command: OnceLock<Option<Regex>>,
    rewrite_regex: OnceLock<Option<Regex>>,
    file: String,
    text: &'static str,
    spec: OnceLock<Result<Spec, String>>,
    compiled: OnceLock<Result<Compiled, String>>,
}

impl Filter {
    /// A filter from a parsed and validated file.
    pub fn new(spec: Spec, origin: Origin) -> Result<Filter, SpecError> {
        let mut filter = Filter::unparsed(
            format!("{}.toml", spec.name),
            spec.name.clone(),
            spec.version,
            spec.matcher.command.clone(),
            spec.matcher.rewrite.clone(),
            "",
            origin,
        )?;
        filter.spec = OnceLock::from(Ok(spec));
        Ok(filter)
    }

    /// A filter known by its name, version and command; `text` is parsed
    /// on first use.
    fn unparsed(
        file: String,
        name: String,
        version: u32,
        pattern: String,
        rewrite: Option<String>,
        text: &'static str,
        origin: Origin,
    ) -> Result<Filter, SpecError> {
        let label: &'static str = Box::leak(format!("{name}/filter-v{version}").into_boxed_str());
        Ok(Filter {
            name,
            label,
            pattern,
            rewrite,
            origin,
            command: OnceLock::new(),
            rewrite_regex: OnceLock::new(),
            file,
            text,
            spec: OnceLock::new(),
            compiled: OnceLock::new(),
        })
    }

    /// Whether this filter reads `argv`'s output.
    pub fn matches(&self, argv: &[String]) -> bool {
        let command = self
            .command
            .get_or_init(|| spec::compile(&spec::anchored(&self.pattern)).ok());
        !argv.is_empty()
            && command
                .as_ref()
                .is_some_and(|c| c.is_match(&command_line(argv)))
    }

    /// Whether `ctx rewrite`, the agent hook and the shims send `argv`
    /// through ctx for this filter: it reads the output, and its
    /// `[match] rewrite` pattern names the command.
    pub fn rewrites(&self, argv: &[String]) -> bool {
        let Some(pattern) = &self.rewrite else {
            return false;
        };
        let rewrite = self
            .rewrite_regex
            .get_or_init(|| spec::compile(&spec::anchored(pattern)).ok());
        self.matches(argv)
            && rewrite
                .as_ref()
                .is_some_and(|r| r.is_match(&command_line(argv)))
    }

    /// The whole filter file, parsed (a built-in on first use; its
    /// patterns are compiled by the test suite, not on the hot path).
    pub fn spec(&self) -> Result<&Spec, &str> {
        self.spec
            .get_or_init(|| {
                let spec =
                    Spec::parse_unchecked(&self.file, self.text).map_err(|e| e.to_string())?;
                if spec.name != self.name
                    || spec.matcher.command != self.pattern
                    || spec.matcher.rewrite != self.rewrite
                {
                    return Err(format!("filter {}: index and file disagree", self.file));
                }
                Ok(spec)
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// The compiled rules (compiled on first use: a run compiles only the
    /// filter that matched).
    pub fn rules(&self) -> Result<&Compiled, &str> {
        let spec = self.spec()?;
        self.compiled
            .get_or_init(|| Compiled::new(spec).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(String::as_str)
    }
}

/// The text a filter's `[match] command` is matched against: the words of
/// the command argv runs, wrappers looked through (`timeout 60 make` is
/// `make`, see `crate::command`), the first word reduced to its base name,
/// joined by single spaces.
pub fn command_line(argv: &[String]) -> String {
    crate::command::command_words(argv).join(" ")
}

/// Every filter this process uses, in the order they are tried, and the
/// problems met loading them (each one a `[ctx]` note's words).
pub struct Loaded {
    pub filters: Vec<Filter>,
    pub problems: Vec<String>,
    /// Every filter's command pattern in one set (compiled on first use:
    /// one set builds several times faster than thirty patterns).
    commands: OnceLock<Option<RegexSet>>,
}

/// The filters of this process, loaded once. Problems are noted on stderr
/// the first time (one line each).
pub fn registry() -> &'static Loaded {
    static LOADED: OnceLock<Loaded> = OnceLock::new();
    LOADED.get_or_init(|| {
        let (user, unreadable) = user_files();
        let mut loaded = load(&crate::trust::project_files("filters"), &user);
        loaded.problems.extend(unreadable);
        for problem in &loaded.problems {
            crate::emit::note(&format!("[ctx] {problem}"));
        }
        loaded
    })
}

/// True when the filter that reads `argv`'s output asks for the command
/// to be sent through ctx (`[match] rewrite`). Only filters this process
/// may use count: a project's own filters once trusted (`crate::trust`),
/// the user's, the built-ins.
pub fn rewrites(argv: &[String]) -> bool {
    for_command(argv, &[]).is_some_and(|f| f.rewrites(argv))
}

/// The first filter (not disabled) that reads `argv`'s output.
pub fn for_command(argv: &[String], disabled: &[String]) -> Option<&'static Filter> {
    registry().for_command(argv, disabled)
}

impl Loaded {
    /// The first filter (not disabled) whose command pattern matches.
    pub fn for_command(&self, argv: &[String], disabled: &[String]) -> Option<&Filter> {
        if argv.is_empty() {
            return None;
        }
        let set = self.commands.get_or_init(|| {
            RegexSet::new(self.filters.iter().map(|f| spec::anchored(&f.pattern))).ok()
        });
        let allowed = |f: &&Filter| !disabled.contains(&f.name);
        match set {
            Some(set) => {
                let line = command_line(argv);
                let hits = set.matches(&line);
                self.filters
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| hits.matched(*i))
                    .map(|(_, f)| f)
                    .find(allowed)
            }
            // A pattern the set refused: each filter on its own.
            None => self
                .filters
                .iter()
                .filter(allowed)
                .find(|f| f.matches(argv)),
        }
    }
}

pub use crate::trust::SourceFile;

/// Loads the filters: project files, then user files, then built-ins; a
/// name defined earlier hides the same name later. A file that does not
/// load is left out and named in `problems`; the built-ins are checked by
/// the test suite and `ctx filters verify`, so they are parsed without
/// compiling every pattern here.
pub fn load(project: &crate::trust::ProjectFiles, user: &[SourceFile]) -> Loaded {
    let mut filters: Vec<Filter> = Vec::new();
    let mut problems = project.problems.clone();
    let project = project
        .files
        .iter()
        .map(|f| (f, Origin::Project(f.path.clone())));
    let user = user.iter().map(|f| (f, Origin::User(f.path.clone())));
    for (f, origin) in project.chain(user) {
        let file = file_name(&f.path);
        match Spec::parse(&file, &f.text).and_then(|spec| Filter::new(spec, origin)) {
            Ok(filter) => {
                if !filters.iter().any(|g| g.name == filter.name) {
                    filters.push(filter);
                }
            }
            Err(e) => problems.push(format!("{e}; filter not used")),
        }
    }
    for (&(file, name, version, pattern, rewrite), &(_, text)) in
        embedded::INDEX.iter().zip(embedded())
    {
        if filters.iter().any(|g| g.name == name) {
            continue;
        }
        match Filter::unparsed(
            file.into(),
            name.into(),
            version,
            pattern.into(),
            (!rewrite.is_empty()).then(|| rewrite.to_string()),
            text,
            Origin::Builtin,
        ) {
            Ok(filter) => filters.push(filter),
            Err(e) => problems.push(format!("{e}; filter not used")),
        }
    }
    Loaded {
        filters,
        problems,
        commands: OnceLock::new(),
    }
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

/// The user's filter files, sorted by name, and one line for each that
/// could not be read (a FIFO, a device, a file over the limit: skipped,
/// the other filters still apply). The user's own configuration is
/// trusted as the user is.
pub fn user_files() -> (Vec<SourceFile>, Vec<String>) {
    let Some(dir) = user_dir() else {
        return (Vec::new(), Vec::new());
    };
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for path in crate::trust::toml_files(&dir) {
        match crate::bounded::read_to_string(&path, crate::bounded::SETTINGS_BYTES) {
            Ok(text) => files.push(SourceFile { path, text }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => problems.push(format!(
                "filter {}; skipped",
                crate::bounded::explain(&path, &e)
            )),
        }
    }
    (files, problems)
}
