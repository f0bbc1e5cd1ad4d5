//! `ctx trust`, `ctx trust --list`, `ctx untrust`: pin (or unpin) the
//! SHA-256 of the project's `.ctx/filters/*.toml` and
//! `.ctx/contracts/*.toml` (docs/trust.md).

use anyhow::{Context, Result, bail};

use crate::contract::Contract;
use crate::filters::spec::Spec;
use crate::trust::{self, pins};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// List every pinned file and whether it still matches.
    #[arg(long)]
    pub list: bool,
}

#[derive(clap::Args, Debug)]
pub struct UntrustArgs {}

fn root() -> Result<std::path::PathBuf> {
    trust::project_root().with_context(|| {
        format!(
            "no {} directory here or in any parent directory",
            trust::DIR
        )
    })
}

pub fn execute(args: Args) -> Result<i32> {
    if args.list {
        return list();
    }
    let root = root()?;
    let files = trust::read_project(&root)
        .with_context(|| format!("{} cannot be trusted", root.join(trust::DIR).display()))?;
    if files.is_empty() {
        bail!(
            "{} holds no filters/*.toml or contracts/*.toml to trust",
            root.join(trust::DIR).display()
        );
    }
    // Only files that load are pinned: trusting a broken file would only
    // defer its rejection to every run.
    let mut broken = Vec::new();
    for f in &files {
        let name = f
            .relative
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(text) = std::str::from_utf8(&f.bytes) else {
            broken.push(format!("{}: not UTF-8", f.relative.display()));
            continue;
        };
        let checked = if f
            .relative
            .starts_with(std::path::Path::new(trust::DIR).join("contracts"))
        {
            Contract::parse(&name, text)
                .map(drop)
                .map_err(|e| e.to_string())
        } else {
            Spec::parse(&name, text)
                .map(drop)
                .map_err(|e| e.to_string())
        };
        if let Err(e) = checked {
            broken.push(format!("{}: {e}", f.relative.display()));
        }
    }
    if !broken.is_empty() {
        for b in &broken {
            eprintln!("ctx: {b}");
        }
        bail!("nothing trusted: fix the files above first");
    }
    let mut all = pins::read().context("reading the trust pins")?;
    all.retain(|p, _| !p.starts_with(&root));
    for f in &files {
        all.insert(f.path.clone(), f.sha256.clone());
    }
    pins::write(&all).context("writing the trust pins")?;
    for f in &files {
        println!("trusted {}  {}", &f.sha256[..12], f.relative.display());
    }
    Ok(0)
}

fn list() -> Result<i32> {
    let all = pins::read().context("reading the trust pins")?;
    let here = trust::project_root();
    let current = match &here {
        Some(root) => trust::read_project(root).unwrap_or_default(),
        None => Vec::new(),
    };
    for (path, hash) in &all {
        let state = match trust::read_project(
            path.parent()
                .and_then(|p| p.parent())
                .and_then(|p| p.parent())
                .unwrap_or(path),
        ) {
            Ok(files) => match files.iter().find(|f| f.path == *path) {
                Some(f) if f.sha256 == *hash => "trusted",
                Some(_) => "changed (trust revoked on next use)",
                None => "missing (trust revoked on next use)",
            },
            Err(_) => "unreadable (not used)",
        };
        println!("{}  {}  {state}", &hash[..12], path.display());
    }
    for f in current.iter().filter(|f| !all.contains_key(&f.path)) {
        println!(
            "{}  {}  not trusted (`ctx trust`)",
            &f.sha256[..12],
            f.path.display()
        );
    }
    if all.is_empty() && current.is_empty() {
        println!("no trusted project files");
    }
    Ok(0)
}

pub fn untrust(_args: UntrustArgs) -> Result<i32> {
    let root = root()?;
    let mut all = pins::read().context("reading the trust pins")?;
    let before = all.len();
    all.retain(|p, _| !p.starts_with(&root));
    let removed = before - all.len();
    if removed > 0 {
        pins::write(&all).context("writing the trust pins")?;
    }
    println!(
        "{removed} pinned {} of {} removed",
        if removed == 1 { "file" } else { "files" },
        root.display()
    );
    Ok(0)
}
