//! The user's settings: `$XDG_CONFIG_HOME/ctx/config.toml` (else
//! `~/.config/ctx/config.toml`), each key overridden by its environment
//! variable, each unset key at its default. `ctx config` prints the
//! effective values and where each came from; docs/config.md is the
//! reference.
//!
//! A file that cannot be read or parsed never breaks the command ctx runs
//! (invariant 8): every key then comes from the environment or its
//! default, and `ctx config` names the problem.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use serde::Deserialize;

use crate::retention::{self, Retention};

/// The file name under the config directory.
const FILE: &str = "ctx/config.toml";

/// The config file itself, instead of the XDG location.
pub const ENV_FILE: &str = "CTX_CONFIG";

/// Environment variables, one per key.
pub const ENV_BUDGET: &str = "CTX_BUDGET";
pub const ENV_MAX_BYTES: &str = "CTX_STORE_MAX_BYTES";
pub const ENV_MIN_AGE: &str = "CTX_STORE_MIN_AGE";
pub const ENV_DISABLED: &str = "CTX_DISABLED_FAMILIES";
pub const ENV_SHIMS: &str = "CTX_SHIMS";

/// The file as written: every key optional, unknown keys refused (a typo
/// must be reported, not silently ignored).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default, deserialize_with = "tokens")]
    budget: Option<usize>,
    disabled_families: Option<Vec<String>>,
    shims: Option<Vec<String>>,
    store: Option<StoreFile>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [store] table")]
struct StoreFile {
    /// `postgres://…` for a shared server; `CTX_STORE` overrides it.
    url: Option<String>,
    max_bytes: Option<Size>,
    min_age: Option<String>,
}

/// `max_bytes = 1073741824` or `max_bytes = "1GiB"`.
#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "expected a number of bytes or a size (\"2GiB\", \"512M\")"
)]
enum Size {
    Bytes(u64),
    Text(String),
}

impl std::fmt::Display for Size {
    /// As written in the file: `1073741824` or `"lots"`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Size::Bytes(n) => write!(f, "{n}"),
            Size::Text(t) => write!(f, "{t:?}"),
        }
    }
}

/// `budget = 1200`: serde's own words for a wrong value would name the
/// Rust type (`expected usize`); the file's reader is told what to write.
fn tokens<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    struct Tokens;
    impl serde::de::Visitor<'_> for Tokens {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a whole number of tokens")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<usize, E> {
            usize::try_from(v)
                .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<usize, E> {
            usize::try_from(v)
                .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
        }
    }
    d.deserialize_u64(Tokens).map(Some)
}

/// Where a value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Default,
    File(PathBuf),
    Env(&'static str),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File(p) => write!(f, "{}", p.display()),
            Source::Env(var) => write!(f, "${var}"),
        }
    }
}

/// A value and its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Setting<T> {
    fn default(value: T) -> Self {
        Setting {
            value,
            source: Source::Default,
        }
    }
}

/// The effective configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The config file's path (whether or not it exists).
    pub path: Option<PathBuf>,
    /// Tokens a digest should fit in; `None`: each family contract's target.
    pub budget: Setting<Option<usize>>,
    pub max_bytes: Setting<u64>,
    pub min_age: Setting<Duration>,
    /// Families whose profile is never chosen (their output is read as text).
    pub disabled_families: Setting<Vec<String>>,
    /// The commands `ctx shims install` shims when given no names; `None`:
    /// the built-in default set.
    pub shims: Setting<Option<Vec<String>>>,
    /// `store.url` from the file (`CTX_STORE` is read where the store is
    /// opened); `None`: the local SQLite store.
    pub store_url: Option<String>,
    /// Problems found: an unreadable file, a bad value. Each one left the
    /// key at the next source down.
    pub warnings: Vec<String>,
}

/// The configuration of this process, read once.
pub fn current() -> &'static Config {
    static CURRENT: OnceLock<Config> = OnceLock::new();
    CURRENT.get_or_init(|| load(default_path(), &|var| std::env::var(var).ok()))
}

/// `$CTX_CONFIG` when set (a file path; scripts and tests use it to pin or
/// isolate the configuration), else `$XDG_CONFIG_HOME/ctx/config.toml`,
/// else `~/.config/ctx/config.toml`.
pub fn default_path() -> Option<PathBuf> {
    if let Some(file) = std::env::var_os(ENV_FILE).filter(|f| !f.is_empty()) {
        return Some(PathBuf::from(file));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::config_dir)?;
    Some(base.join(FILE))
}

/// Reads the file at `path` (if any) and layers `env` over it.
pub fn load(path: Option<PathBuf>, env: &dyn Fn(&str) -> Option<String>) -> Config {
    let mut warnings = Vec::new();
    let file = path
        .as_deref()
        .and_then(|p| read_file(p, &mut warnings))
        .unwrap_or_default();
    let from_file = |p: &Option<PathBuf>| Source::File(p.clone().unwrap_or_default());
    let store = file.store.unwrap_or_default();
    let store_url = store.url.clone().filter(|u| !u.trim().is_empty());

    let mut budget = Setting::default(None);
    if let Some(b) = file.budget {
        budget = Setting {
            value: Some(b),
            source: from_file(&path),
        };
    }
    if let Some(v) = env(ENV_BUDGET).filter(|v| !v.trim().is_empty()) {
        match v.trim().parse() {
            Ok(b) => {
                budget = Setting {
                    value: Some(b),
                    source: Source::Env(ENV_BUDGET),
                }
            }
            Err(_) => warnings.push(format!("{ENV_BUDGET}={v:?} is not a number of tokens")),
        }
    }

    let mut max_bytes = Setting::default(Retention::default().max_bytes);
    if let Some(size) = store.max_bytes {
        let parsed = match &size {
            Size::Bytes(n) => Some(*n),
            Size::Text(t) => retention::parse_bytes(t),
        };
        match parsed {
            Some(n) => {
                max_bytes = Setting {
                    value: n,
                    source: from_file(&path),
                }
            }
            None => warnings.push(format!("store.max_bytes = {size} is not a size")),
        }
    }
    if let Some(v) = env(ENV_MAX_BYTES) {
        match retention::parse_bytes(&v) {
            Some(n) => {
                max_bytes = Setting {
                    value: n,
                    source: Source::Env(ENV_MAX_BYTES),
                }
            }
            None => warnings.push(format!("{ENV_MAX_BYTES}={v:?} is not a size")),
        }
    }

    let mut min_age = Setting::default(Retention::default().min_age);
    let age = |s: &str| humantime::parse_duration(s.trim()).ok();
    if let Some(v) = store.min_age {
        match age(&v) {
            Some(d) => {
                min_age = Setting {
                    value: raised_to_floor(&format!("store.min_age = {v:?}"), d, &mut warnings),
                    source: from_file(&path),
                }
            }
            None => warnings.push(format!("store.min_age = {v:?} is not a duration")),
        }
    }
    if let Some(v) = env(ENV_MIN_AGE) {
        match age(&v) {
            Some(d) => {
                min_age = Setting {
                    value: raised_to_floor(&format!("{ENV_MIN_AGE}={v:?}"), d, &mut warnings),
                    source: Source::Env(ENV_MIN_AGE),
                }
            }
            None => warnings.push(format!("{ENV_MIN_AGE}={v:?} is not a duration")),
        }
    }

    let mut disabled_families = Setting::default(Vec::new());
    if let Some(list) = file.disabled_families {
        disabled_families = Setting {
            value: list,
            source: from_file(&path),
        };
    }
    if let Some(v) = env(ENV_DISABLED) {
        disabled_families = Setting {
            value: words(&v),
            source: Source::Env(ENV_DISABLED),
        };
    }
    disabled_families.value.retain(|family| {
        let known = crate::profiles::by_family(family).is_some();
        if !known {
            warnings.push(format!(
                "disabled family {family:?} is not a family (`ctx profiles` lists them)"
            ));
        } else if family == "text" {
            warnings.push(
                "the text family reads whatever no other family does; it cannot be disabled".into(),
            );
        }
        known && family != "text"
    });

    let mut shims = Setting::default(None);
    if let Some(list) = file.shims {
        shims = Setting {
            value: Some(list),
            source: from_file(&path),
        };
    }
    if let Some(v) = env(ENV_SHIMS) {
        shims = Setting {
            value: Some(words(&v)),
            source: Source::Env(ENV_SHIMS),
        };
    }

    Config {
        path,
        budget,
        max_bytes,
        min_age,
        disabled_families,
        shims,
        store_url,
        warnings,
    }
}

impl Config {
    /// The store's retention policy.
    pub fn retention(&self) -> Retention {
        Retention {
            max_bytes: self.max_bytes.value,
            min_age: self.min_age.value,
        }
    }

    /// Whether the family's profile is switched off.
    pub fn is_disabled(&self, family: &str) -> bool {
        self.disabled_families.value.iter().any(|f| f == family)
    }
}

/// The retention policy for the store, and any problem with its settings:
/// what `store::sqlite::Options` uses.
pub fn retention() -> (Retention, Vec<String>) {
    let c = current();
    (c.retention(), c.warnings.clone())
}

/// The shim set the configuration names, if it names one (`shims` in the
/// file, `CTX_SHIMS`); `None` means the built-in default set.
pub fn shim_set() -> Option<Vec<String>> {
    current().shims.value.clone()
}

/// A minimum age under the store's floor is raised to it, and said: the
/// user asked for something ctx will not do.
fn raised_to_floor(what: &str, d: Duration, warnings: &mut Vec<String>) -> Duration {
    let kept = retention::clamp_min_age(d);
    if kept != d {
        warnings.push(format!(
            "{what} is below the floor of {}; raised to it",
            humantime::format_duration(kept)
        ));
    }
    kept
}

/// `a, b c` → `[a, b, c]`: lists in environment variables.
fn words(v: &str) -> Vec<String> {
    v.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

fn read_file(path: &Path, warnings: &mut Vec<String>) -> Option<File> {
    let text = match crate::bounded::read_to_string(path, crate::bounded::SETTINGS_BYTES) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            warnings.push(format!(
                "{}; its settings are ignored",
                crate::bounded::explain(path, &e)
            ));
            return None;
        }
    };
    match toml::from_str(&text) {
        Ok(f) => Some(f),
        Err(e) => {
            let why = e.message().trim_end().to_string();
            let at = e
                .span()
                .map(|span| line_and_column(&text, span.start))
                .map_or(String::new(), |(line, col)| format!(":{line}:{col}"));
            warnings.push(format!(
                "{}{at}: {why}; its settings are ignored",
                path.display()
            ));
            None
        }
    }
}

/// The 1-based line and column (in characters) of byte `at` in `text`.
fn line_and_column(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(file: &str, env: &[(&str, &str)]) -> Config {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, file).unwrap();
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut c = load(Some(path), &|var| {
            env.iter().find(|(k, _)| k == var).map(|(_, v)| v.clone())
        });
        c.path = None;
        c
    }

    #[test]
    fn defaults_without_a_file() {
        let c = load(Some("/nonexistent/ctx/config.toml".into()), &|_| None);
        assert_eq!(c.budget, Setting::default(None));
        assert_eq!(c.max_bytes.value, 2 << 30);
        assert_eq!(c.min_age.value, Duration::from_secs(86_400));
        assert!(c.disabled_families.value.is_empty());
        assert_eq!(c.shims.value, None);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    #[test]
    fn the_file_sets_and_the_environment_overrides() {
        let file = r#"
budget = 800
disabled_families = ["jest"]
shims = ["pytest", "cargo"]
[store]
max_bytes = "500MiB"
min_age = "2h"
"#;
        let c = with(file, &[]);
        assert_eq!(c.budget.value, Some(800));
        assert!(matches!(c.budget.source, Source::File(_)));
        assert_eq!(c.max_bytes.value, 500 << 20);
        assert_eq!(c.min_age.value, Duration::from_secs(7200));
        assert!(c.is_disabled("jest"));
        assert_eq!(c.shims.value, Some(vec!["pytest".into(), "cargo".into()]));

        let c = with(
            file,
            &[
                ("CTX_BUDGET", "300"),
                ("CTX_STORE_MAX_BYTES", "1G"),
                ("CTX_STORE_MIN_AGE", "1m"),
                ("CTX_DISABLED_FAMILIES", "pytest,ruff"),
                ("CTX_SHIMS", "go make"),
            ],
        );
        assert_eq!(
            c.budget,
            Setting {
                value: Some(300),
                source: Source::Env("CTX_BUDGET")
            }
        );
        assert_eq!(c.max_bytes.value, 1 << 30);
        assert_eq!(
            c.min_age.value,
            retention::FLOOR_MIN_AGE,
            "clamped to the floor"
        );
        assert!(
            c.warnings
                .iter()
                .any(|w| w.contains("CTX_STORE_MIN_AGE=\"1m\" is below the floor of 30m")),
            "a raised minimum age is said: {:?}",
            c.warnings
        );
        assert!(c.is_disabled("pytest") && c.is_disabled("ruff") && !c.is_disabled("jest"));
        assert_eq!(c.shims.value, Some(vec!["go".into(), "make".into()]));
    }

    #[test]
    fn problems_are_reported_and_fall_through() {
        let c = with("budgt = 3\n", &[]);
        assert_eq!(c.budget.value, None);
        assert!(c.warnings[0].contains("budgt"), "{:?}", c.warnings);

        let c = with(
            "disabled_families = [\"nope\", \"text\", \"jest\"]\n[store]\nmin_age = \"soon\"\n",
            &[("CTX_BUDGET", "many")],
        );
        assert_eq!(c.disabled_families.value, vec!["jest".to_string()]);
        assert_eq!(c.min_age.source, Source::Default);
        assert_eq!(c.warnings.len(), 4, "{:?}", c.warnings);
    }

    #[test]
    fn problems_read_as_sentences_with_their_place() {
        let c = with("[store]\nmax_bytes = \"lots\"\n", &[]);
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert!(
            c.warnings[0].ends_with("store.max_bytes = \"lots\" is not a size"),
            "no debug formatting: {:?}",
            c.warnings
        );

        let c = with("budget = 300\n[store]\nmin_age = = 2\n", &[]);
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert!(
            c.warnings[0].contains("config.toml:3:11: "),
            "line and column of the TOML error: {:?}",
            c.warnings
        );
        assert!(!c.warnings[0].contains('\n'), "{:?}", c.warnings);
        assert_eq!(line_and_column("ab\ncé\nx", 6), (2, 3));
    }

    #[test]
    fn wrong_types_are_said_in_the_files_words() {
        for (file, says) in [
            ("budget = \"lots\"\n", "expected a whole number of tokens"),
            ("budget = -3\n", "expected a whole number of tokens"),
            (
                "[store]\nmax_bytes = true\n",
                "expected a number of bytes or a size",
            ),
            ("store = 1\n", "expected a [store] table"),
        ] {
            let c = with(file, &[]);
            assert_eq!(c.warnings.len(), 1, "{file}: {:?}", c.warnings);
            let w = &c.warnings[0];
            assert!(w.contains(says), "{file}: {w}");
            for jargon in ["usize", "untagged", "struct", "Size", "StoreFile"] {
                assert!(!w.contains(jargon), "{file}: {w}");
            }
        }
    }

    #[test]
    fn the_store_url_comes_from_the_file() {
        let c = with("[store]\nurl = \"postgres://ci@db/ctx\"\n", &[]);
        assert_eq!(c.store_url.as_deref(), Some("postgres://ci@db/ctx"));
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert_eq!(with("", &[]).store_url, None);
    }
}
