//! `ctx shims install [--dir D] [NAME…]`, `ctx shims uninstall [--dir D]`,
//! `ctx shims list [--dir D]`, `ctx shims doctor [--dir D]`: the folder of
//! links that puts ctx in front of an agent's commands. docs/shims.md
//! explains what a shim does.

use std::path::PathBuf;

use anyhow::Context;

use crate::shim::{doctor, install, locate};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// Create shims for commands found on PATH (default: the commands
    /// people type that a profile serves; compilers and rustc only by name).
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
    /// List the shims and the real program each one runs.
    List {
        /// The shim folder (default: <data dir>/shims).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Report shims whose program vanished, a folder not first on PATH,
    /// and loops; exit 1 when something is wrong.
    Doctor {
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
            let by_name = !names.is_empty();
            let names = if by_name {
                names
            } else {
                crate::config::shim_set().unwrap_or_else(install::default_names)
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
                    install::Installed::NotOnPath(n) => {
                        // A name asked for by name is an error; the default
                        // set simply skips what this machine lacks.
                        occupied |= by_name;
                        eprintln!("skipped {n}: not found on PATH");
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
        Action::Doctor { dir } => {
            let dir = folder(dir)?;
            let path = std::env::var_os("PATH").unwrap_or_default();
            let findings = doctor::check(&dir, &ctx, path.as_encoded_bytes())?;
            for finding in &findings {
                println!("{finding}");
            }
            if findings.is_empty() {
                println!("{}: no problem found", dir.display());
            }
            Ok(i32::from(findings.iter().any(doctor::Finding::is_problem)))
        }
    }
}
