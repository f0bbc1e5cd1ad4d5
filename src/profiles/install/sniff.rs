//! The package managers' own banners, for output that no longer names
//! its command: which manager printed it (the reader follows the
//! manager's shapes), told by at least two of its fixed lines, or one
//! only it prints.
//!
//! - apt: `Reading package lists...` then `Building dependency tree`.
//! - pip: `Collecting X` with `Looking in …`/`  Downloading …`/`Using pip`
//!   or `Requirement already satisfied:` lines.
//! - yarn: `yarn add|install|remove|upgrade v1.…` first.
//! - pnpm: `Progress: resolved N, reused N`, `Packages: +N`, `ERR_PNPM_`.
//! - npm: `added|removed|changed N packages`, or `npm error code` /
//!   `npm ERR! code` with an install's code (`ERESOLVE`, `E404`, …; `npm ls`
//!   and `npm run` print other codes).
//! - bundler: `Fetching gem metadata from`, `Fetching source index from`,
//!   `Don't run Bundler as root.`, `Bundle complete!`.
//! - go: two `go: downloading|finding|found|added|upgraded …` lines, or a
//!   `verifying M@V: checksum mismatch`.
//!
//! Refused: a head with a single generic line (`Resolving dependencies...`
//! alone, one `go: downloading`), and the managers quoted inside a build
//! or CI log (their families claim the log first).

use super::command::Manager;
use crate::profiles::sniff;

/// The codes npm ends a failed install with.
const NPM_INSTALL_CODES: &[&str] = &[
    "ERESOLVE", "E404", "ETARGET", "EINTEGRITY", "ENOTFOUND", "ECONNREFUSED", "ETIMEDOUT",
    "EBADENGINE", "EACCES", "ENOVERSIONS", "E403", "E401",
];

/// The manager whose banners a head holds, the command it stands for,
/// and why.
pub fn shape(head: &str) -> Option<(Manager, &'static [&'static str], &'static str)> {
    let lines = sniff::lines(head);
    let any = |p: &str| lines.iter().any(|l| l.starts_with(p));
    let count = |p: &[&str]| lines.iter().filter(|l| p.iter().any(|x| l.starts_with(x))).count();
    let first = lines.iter().find(|l| !l.trim().is_empty()).copied().unwrap_or("");
    if first.starts_with("Reading package lists") && any("Building dependency tree") {
        return Some((Manager::Apt, &["apt-get", "install"], "apt's `Reading package lists` banner"));
    }
    if any("Collecting ")
        && (any("Looking in ") || any("  Downloading ") || any("Using pip ") || any("  Using cached "))
        || count(&["Requirement already satisfied: "]) >= 2
    {
        return Some((Manager::Pip, &["pip", "install"], "pip's `Collecting` lines"));
    }
    if ["yarn add v", "yarn install v", "yarn remove v", "yarn upgrade v"]
        .iter()
        .any(|b| first.starts_with(b))
    {
        return Some((Manager::Yarn, &["yarn", "add"], "yarn's version banner"));
    }
    if any("Progress: resolved ") || any("Packages: +") || any("Packages: -") || head.contains("ERR_PNPM_") {
        return Some((Manager::Pnpm, &["pnpm", "add"], "pnpm's progress or error code"));
    }
    let npm_summary = lines.iter().any(|l| {
        let mut w = l.split(' ');
        matches!(w.next(), Some("added" | "removed" | "changed"))
            && w.next().is_some_and(|n| n.parse::<u64>().is_ok())
            && matches!(w.next(), Some("package" | "packages" | "packages," | "package,"))
    });
    // npm's error codes of a failed install only: `npm ls` and `npm run`
    // print `npm error code` too.
    let npm_code = lines.iter().any(|l| {
        l.strip_prefix("npm error code ")
            .or_else(|| l.strip_prefix("npm ERR! code "))
            .is_some_and(|c| NPM_INSTALL_CODES.contains(&c.trim()))
    });
    if npm_summary || npm_code {
        return Some((Manager::Npm, &["npm", "install"], "npm's summary or error code"));
    }
    if any("Fetching gem metadata from ")
        || any("Fetching source index from ")
        || any("Don't run Bundler as root.")
        || any("Bundle complete!")
    {
        return Some((Manager::Bundle, &["bundle", "install"], "bundler's banner"));
    }
    let go = count(&["go: downloading ", "go: finding ", "go: found ", "go: added ", "go: upgraded "]);
    if go >= 2 || lines.iter().any(|l| l.starts_with("verifying ") && l.ends_with(": checksum mismatch")) {
        return Some((Manager::Go, &["go", "mod", "download"], "go's module lines"));
    }
    None
}

/// Why a head is an install's, when it is.
pub fn detect(head: &str) -> Option<String> {
    shape(head).map(|(_, _, why)| why.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banners() {
        let apt = "Reading package lists...\nBuilding dependency tree...\n";
        assert_eq!(shape(apt).map(|s| s.0), Some(Manager::Apt));
        let npm = "\nadded 47 packages in 5s\n";
        assert_eq!(shape(npm).map(|s| s.0), Some(Manager::Npm));
        assert!(shape("Resolving dependencies...\n").is_none());
        assert!(shape("go: downloading x v1\n").is_none());
    }
}
