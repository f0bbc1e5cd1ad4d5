//! `ctx filters`: list the declarative filters in the order they are
//! tried, and `ctx filters verify`: run every filter's inline tests.

use anyhow::{Context, Result};

use crate::filters::spec::{Case, Spec};
use crate::filters::{self, Filter, Origin, verify};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// The filters in the order they are tried, with where each comes from.
    List,
    /// Run every filter's inline tests; exit 1 if any fails.
    Verify {
        /// Only the filters with these names.
        names: Vec<String>,
    },
    /// Print what a filter file makes of captured output (key written `H`):
    /// for writing a filter and its tests.
    Apply {
        /// The filter file.
        file: std::path::PathBuf,
        /// The command line the output came from.
        #[arg(long)]
        command: String,
        /// Its exit status.
        #[arg(long, default_value_t = 0)]
        exit: i32,
        /// A file holding what it wrote to stdout.
        #[arg(long)]
        stdout: Option<std::path::PathBuf>,
        /// A file holding what it wrote to stderr.
        #[arg(long)]
        stderr: Option<std::path::PathBuf>,
    },
}

/// The most of a sample output `ctx filters apply` reads (`--stdout`,
/// `--stderr`): a filter is tried on a sample, not on a whole build log.
const SAMPLE_BYTES: u64 = 64 << 20;

pub fn execute(args: Args) -> Result<i32> {
    if let Action::Apply {
        file,
        command,
        exit,
        stdout,
        stderr,
    } = args.action
    {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = crate::bounded::read_to_string(&file, crate::bounded::SETTINGS_BYTES)
            .with_context(|| format!("reading {}", file.display()))?;
        let spec = Spec::parse(&name, &text)?;
        let filter = Filter::new(spec, Origin::User(file.clone()))?;
        let read = |p: Option<std::path::PathBuf>| -> Result<String> {
            match p {
                None => Ok(String::new()),
                Some(p) => crate::bounded::read_to_string(&p, SAMPLE_BYTES)
                    .with_context(|| format!("reading {}", p.display())),
            }
        };
        let case = Case {
            name: "apply".into(),
            command,
            exit,
            input: read(stdout)?,
            stderr: read(stderr)?,
            expected: String::new(),
        };
        let artifact = verify::artifact(&case).map_err(anyhow::Error::msg)?;
        if !filter.matches(&artifact.argv) {
            anyhow::bail!("the command does not match the filter's [match] command");
        }
        print!(
            "{}",
            verify::output(&filter, &artifact).map_err(anyhow::Error::msg)?
        );
        return Ok(0);
    }
    let loaded = filters::registry();
    match args.action {
        Action::List => {
            for f in &loaded.filters {
                println!("{:<28} {:<42} {}", f.label, f.pattern, f.origin.describe());
            }
            Ok(0)
        }
        Action::Verify { names } => {
            let mut passed = 0;
            let mut failed = 0;
            let mut unknown: Vec<&String> = names.iter().collect();
            for f in &loaded.filters {
                if !names.is_empty() && !names.contains(&f.name) {
                    continue;
                }
                unknown.retain(|n| **n != f.name);
                if f.spec().is_ok_and(|s| s.tests.is_empty()) {
                    println!("FAIL {}: no inline test", f.name);
                    failed += 1;
                }
                for v in verify::run(f) {
                    match v.failure {
                        None => passed += 1,
                        Some(why) => {
                            failed += 1;
                            println!("FAIL {} :: {}", v.filter, v.test);
                            for line in why.lines() {
                                println!("    {line}");
                            }
                        }
                    }
                }
            }
            for problem in &loaded.problems {
                failed += 1;
                println!("FAIL {problem}");
            }
            for name in unknown {
                failed += 1;
                println!("FAIL {name}: no such filter");
            }
            println!("{passed} passed, {failed} failed");
            Ok(if failed == 0 { 0 } else { 1 })
        }
        Action::Apply { .. } => unreachable!("handled above"),
    }
}
