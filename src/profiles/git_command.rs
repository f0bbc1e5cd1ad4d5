//! The git subcommand an argv runs, for every git family's command table:
//! wrappers (`timeout`, `env`…) and git's global options (`-C dir`,
//! `-c k=v`, `--no-pager`) passed over.

use crate::command::command_words;

/// The git subcommand and its arguments, from words already unwrapped.
pub(crate) fn git_words<'a>(words: &[&'a str]) -> Option<(&'a str, Vec<&'a str>)> {
    let first = words.first()?;
    if first.rsplit('/').next() != Some("git") {
        return None;
    }
    let mut k = 1;
    while let Some(w) = words.get(k) {
        match *w {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => k += 2,
            w if w.starts_with('-') => k += 1,
            _ => break,
        }
    }
    let sub = *words.get(k)?;
    Some((sub, words[k + 1..].to_vec()))
}

/// The git subcommand of `argv` and its arguments.
pub(crate) fn subcommand(argv: &[String]) -> Option<(&str, Vec<&str>)> {
    git_words(&command_words(argv))
}

/// True when `args` holds one of `flags` (alone or as `flag=value`).
pub(crate) fn has_any(args: &[&str], flags: &[&str]) -> bool {
    args.iter().any(|a| {
        flags
            .iter()
            .any(|f| a == f || (a.starts_with(f) && a[f.len()..].starts_with('=')))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn passes_over_wrappers_and_global_options() {
        let a = argv("timeout 5 git -C repo --no-pager log -n 3");
        assert_eq!(subcommand(&a), Some(("log", vec!["-n", "3"])));
        assert_eq!(
            subcommand(&argv("/usr/bin/git status -s")).map(|s| s.0),
            Some("status")
        );
        assert_eq!(subcommand(&argv("gitk --all")), None);
        assert!(has_any(&["--porcelain=v2"], &["--porcelain"]));
        assert!(!has_any(&["--porcelainx"], &["--porcelain"]));
    }
}
