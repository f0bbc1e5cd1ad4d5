//! `ctx shims install [--dir D] [NAME…]`, `ctx shims uninstall [--dir D]`,
//! `ctx shims list [--dir D]`: the folder of links that puts ctx in front
//! of an agent's commands. docs/shims.md explains what a shim does.

use std::path::PathBuf;

use anyhow::Context;

use crate::shim::{install, locate};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// Create shims (default: every command a profile serves).
    Install {
        /// The shim folder (default: <data dir>/shims).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Command names to shim.
        names: Vec<String>,
    },
    /// Remove the shims (only links to ctx) and the folder once empty.
    Uninstall {
        /// The shim folder (default: <data dir>/shims).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// List the shims and the real command each one runs.
    List {
        /// The shim folder (default: <data dir>/shims).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

fn folder(dir: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match dir {
        Some(dir) => Ok(dir),
        None => install::default_dir().context("finding the data directory"),
    }
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    let ctx = locate::ctx_binary().context("locating the ctx binary")?;
    match args.action {
        Action::Install { dir, names } => {
            let dir = folder(dir)?;
            let names = if names.is_empty() {
                crate::config::shim_set().unwrap_or_else(install::default_names)
            } else {
                names
            };
            let done = install::install(&dir, &names, &ctx)?;
            let mut occupied = false;
            for item in &done {
                match item {
                    install::Installed::Created(n) => eprintln!("created {n}"),
                    install::Installed::Present(n) => eprintln!("present {n}"),
                    install::Installed::Occupied(n) => {
                        occupied = true;
                        eprintln!(
                            "skipped {n}: {} exists and is not a ctx shim",
                            dir.join(n).display()
                        );
                    }
                }
            }
            // Links are made with the canonical folder in mind; PATH gets
            // the folder as given, which is what the person typed.
            println!("{}", install::export_line(&std::path::absolute(&dir)?));
            Ok(if occupied { 1 } else { 0 })
        }
        Action::Uninstall { dir } => {
            let dir = folder(dir)?;
            for name in install::uninstall(&dir, &ctx)? {
                eprintln!("removed {name}");
            }
            Ok(0)
        }
        Action::List { dir } => {
            let dir = folder(dir)?;
            for name in install::list(&dir, &ctx)? {
                let real = match locate::real_command(std::ffi::OsStr::new(&name), &ctx) {
                    Ok(path) => path.display().to_string(),
                    Err(e) => format!("({e})"),
                };
                println!("{name}\t{real}");
            }
            Ok(0)
        }
    }
}
