//! Which package manager argv runs, and whether the subcommand installs.

use crate::command::{basename, wrappers};

/// The package managers this family reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Manager {
    Npm,
    Pnpm,
    Yarn,
    Pip,
    Apt,
    Go,
    Bundle,
}

/// The manager and the name the header uses (`npm install`, `pip install`).
pub fn manager(argv: &[String]) -> Option<(Manager, String)> {
    let words = unwrapped(argv);
    let first = basename(words.first()?);
    let sub = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    let found = match first {
        "npm"
            if matches!(
                sub(1),
                "install" | "i" | "ci" | "add" | "update" | "uninstall"
            ) =>
        {
            (Manager::Npm, format!("npm {}", sub(1)))
        }
        "pnpm" if matches!(sub(1), "install" | "i" | "add" | "update" | "remove") => {
            (Manager::Pnpm, format!("pnpm {}", sub(1)))
        }
        "yarn" if matches!(sub(1), "" | "install" | "add" | "upgrade" | "remove") => (
            Manager::Yarn,
            format!("yarn {}", sub(1)).trim_end().to_string(),
        ),
        p if is_pip(p) && matches!(sub(1), "install" | "uninstall") => {
            (Manager::Pip, format!("pip {}", sub(1)))
        }
        "uv" if sub(1) == "pip" && sub(2) == "install" => (Manager::Pip, "uv pip install".into()),
        p if p.starts_with("python") && sub(1) == "-m" && is_pip(sub(2)) && sub(3) == "install" => {
            (Manager::Pip, "pip install".into())
        }
        "apt-get" | "apt" | "aptitude"
            if matches!(
                sub_after_flags(&words),
                "install" | "upgrade" | "dist-upgrade" | "full-upgrade" | "remove" | "purge"
            ) =>
        {
            (Manager::Apt, format!("{first} {}", sub_after_flags(&words)))
        }
        "go" if sub(1) == "mod" && matches!(sub(2), "download" | "tidy") => {
            (Manager::Go, format!("go mod {}", sub(2)))
        }
        "go" if sub(1) == "get" => (Manager::Go, "go get".into()),
        "bundle" | "bundler" if matches!(sub(1), "" | "install" | "update") => {
            (Manager::Bundle, "bundle install".into())
        }
        _ => return None,
    };
    Some(found)
}

fn is_pip(word: &str) -> bool {
    word == "pip"
        || word
            .strip_prefix("pip")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// apt-get's subcommand may come after its options (`apt-get -y install`).
fn sub_after_flags(words: &[String]) -> &str {
    words
        .iter()
        .skip(1)
        .find(|w| !w.starts_with('-'))
        .map_or("", String::as_str)
}

/// argv from the command an install runs: the shared wrappers looked
/// through (`env K=V`, `timeout N`, `nice`, `time`, `nohup`, …), and the
/// two prefixes only installs wear: `sudo` (with its flags) and leading
/// `K=V` assignments (`DEBIAN_FRONTEND=noninteractive apt-get …`).
fn unwrapped(argv: &[String]) -> Vec<String> {
    let mut at = 0;
    loop {
        let Some(first) = argv.get(at) else {
            return Vec::new();
        };
        let skip = if basename(first) == "sudo" {
            1 + argv[at + 1..].iter().take_while(|w| w.starts_with('-')).count()
        } else if first.contains('=') && !first.starts_with('-') {
            1
        } else {
            match wrappers::unwrap(&argv[at..]) {
                Some(0) | None => 0,
                Some(k) => k,
            }
        };
        if skip == 0 || at + skip >= argv.len() {
            return argv[at..].to_vec();
        }
        at += skip;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Option<(Manager, String)> {
        let argv: Vec<String> = s.split(' ').map(String::from).collect();
        manager(&argv)
    }

    #[test]
    fn installs_and_not_installs() {
        assert_eq!(m("npm ci").unwrap().0, Manager::Npm);
        assert_eq!(m("npm i -D x").unwrap().1, "npm i");
        assert!(m("npm test").is_none());
        assert!(m("npm run build").is_none());
        assert_eq!(m("yarn").unwrap().1, "yarn");
        assert_eq!(m("pnpm add react").unwrap().0, Manager::Pnpm);
        assert_eq!(m("/venv/bin/pip install x").unwrap().1, "pip install");
        assert_eq!(m("pip3.11 install x").unwrap().0, Manager::Pip);
        assert_eq!(m("python3 -m pip install x").unwrap().0, Manager::Pip);
        assert_eq!(m("uv pip install x").unwrap().1, "uv pip install");
        assert!(m("pip list").is_none());
        assert_eq!(
            m("sudo apt-get -y install tree").unwrap().1,
            "apt-get install"
        );
        assert_eq!(
            m("env DEBIAN_FRONTEND=noninteractive apt install x")
                .unwrap()
                .1,
            "apt install"
        );
        assert!(m("apt-get update").is_none());
        assert_eq!(m("go mod tidy").unwrap().0, Manager::Go);
        assert!(m("go build").is_none());
        assert_eq!(m("timeout 600 bundle install").unwrap().0, Manager::Bundle);
        assert!(m("cargo build").is_none());
    }
}
