//! The agents a shim recognises by their process, without help from their
//! configuration: the one list, with a test per entry. A harness missing
//! from it can still identify itself with `CTX_AGENT` (docs/shims.md).
//!
//! An entry is matched on the process that started the agent's shell (the
//! shell's parent), by the name a person would give that process (argv[0]'s
//! basename, or the script an interpreter runs), by the basename of its
//! executable, or by an installed package's folder in its first arguments
//! (`node …/@anthropic-ai/claude-code/cli.js`). Names are matched whole: a
//! tool merely called `claude-ish` is not Claude Code.

use super::procfs::{Process, basename};

/// One agent harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownAgent {
    /// How the docs and the `[ctx]` notes name it.
    pub title: &'static str,
    /// Process or executable names, matched whole.
    names: &'static [&'static str],
    /// Whether `NAME-anything` is the same program (Codex ships
    /// platform-suffixed binaries and a `codex-linux-sandbox` helper).
    suffixed: bool,
    /// Folders of its installed package, matched inside the first
    /// arguments (an interpreter and the script it runs).
    packages: &'static [&'static str],
    /// Whether it starts the model's commands as an argv, without a shell,
    /// reading their stdout itself. Only such an agent makes a shim with no
    /// shell above it digest: an agent that runs helpers of its own (Claude
    /// Code's search tool runs `rg`) must get their raw bytes.
    pub runs_argv_directly: bool,
}

/// Every agent recognised by its process. Sources for the names are in
/// docs/shims.md.
pub const KNOWN_AGENTS: &[KnownAgent] = &[
    KnownAgent {
        title: "Claude Code",
        names: &["claude"],
        suffixed: false,
        packages: &["/@anthropic-ai/claude-code/"],
        runs_argv_directly: false,
    },
    KnownAgent {
        title: "Codex CLI",
        names: &["codex"],
        suffixed: true,
        packages: &["/@openai/codex/"],
        runs_argv_directly: true,
    },
    KnownAgent {
        title: "Gemini CLI",
        names: &["gemini"],
        suffixed: false,
        packages: &["/@google/gemini-cli/"],
        runs_argv_directly: false,
    },
    KnownAgent {
        title: "Cursor Agent",
        names: &["cursor-agent"],
        suffixed: false,
        packages: &["/cursor-agent/"],
        runs_argv_directly: false,
    },
    KnownAgent {
        title: "OpenCode",
        names: &["opencode"],
        suffixed: false,
        packages: &["/opencode-ai/"],
        runs_argv_directly: false,
    },
    KnownAgent {
        title: "Aider",
        names: &["aider"],
        suffixed: false,
        packages: &[],
        runs_argv_directly: false,
    },
    KnownAgent {
        title: "GitHub Copilot CLI",
        names: &["copilot"],
        suffixed: false,
        packages: &["/@github/copilot/"],
        runs_argv_directly: false,
    },
    KnownAgent {
        title: "Qwen Code",
        names: &["qwen"],
        suffixed: false,
        packages: &["/@qwen-code/qwen-code/"],
        runs_argv_directly: false,
    },
    KnownAgent {
        title: "Amp",
        names: &["amp"],
        suffixed: false,
        packages: &["/@sourcegraph/amp/"],
        runs_argv_directly: false,
    },
    KnownAgent {
        title: "Crush",
        names: &["crush"],
        suffixed: false,
        packages: &[],
        runs_argv_directly: false,
    },
    KnownAgent {
        title: "Auggie",
        names: &["auggie"],
        suffixed: false,
        packages: &["/@augmentcode/auggie/"],
        runs_argv_directly: false,
    },
];

/// How many leading arguments may name the package: the interpreter, its
/// flags, the script.
const PACKAGE_ARGS: usize = 4;

impl KnownAgent {
    fn is_name(&self, name: &str) -> bool {
        self.names.iter().any(|n| {
            name == *n
                || (self.suffixed && name.strip_prefix(n).is_some_and(|r| r.starts_with('-')))
        })
    }

    fn matches(&self, p: &Process) -> bool {
        let exe_name = p
            .exe
            .as_deref()
            .and_then(|e| e.to_str())
            .map(|e| basename(e).to_string());
        self.is_name(&p.name)
            || exe_name.is_some_and(|e| self.is_name(&e))
            || p.argv
                .iter()
                .take(PACKAGE_ARGS)
                .any(|a| self.packages.iter().any(|pkg| a.contains(pkg)))
    }
}

/// The known agent `p` is, if any.
pub fn recognise(p: &Process) -> Option<&'static KnownAgent> {
    KNOWN_AGENTS.iter().find(|a| a.matches(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn process(name: &str, exe: &str, argv: &[&str]) -> Process {
        Process {
            pid: 10,
            ppid: 1,
            name: name.into(),
            exe: Some(PathBuf::from(exe)),
            argv: argv.iter().map(|a| a.to_string()).collect(),
        }
    }

    fn title(p: &Process) -> Option<&'static str> {
        recognise(p).map(|a| a.title)
    }

    /// One case per entry, as each is installed: a native binary or an
    /// interpreter running the package's script.
    #[test]
    fn every_entry_is_recognised_as_installed() {
        let cases: &[(&str, Process)] = &[
            (
                "Claude Code",
                process(
                    "claude",
                    "/home/u/.local/share/claude/versions/2.0.1",
                    &["claude"],
                ),
            ),
            (
                "Claude Code",
                process(
                    "cli",
                    "/usr/bin/node",
                    &[
                        "node",
                        "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js",
                    ],
                ),
            ),
            (
                "Codex CLI",
                process(
                    "codex-x86_64-unknown-linux-musl",
                    "/usr/lib/node_modules/@openai/codex/vendor/x86_64/codex/codex-x86_64-unknown-linux-musl",
                    &["codex-x86_64-unknown-linux-musl"],
                ),
            ),
            (
                "Codex CLI",
                process(
                    "codex-linux-sandbox",
                    "/usr/bin/codex",
                    &["codex-linux-sandbox"],
                ),
            ),
            (
                "Gemini CLI",
                process(
                    "index",
                    "/usr/bin/node",
                    &[
                        "node",
                        "/usr/lib/node_modules/@google/gemini-cli/dist/index.js",
                    ],
                ),
            ),
            (
                "Gemini CLI",
                process("gemini", "/usr/bin/node", &["gemini"]),
            ),
            (
                "Cursor Agent",
                process(
                    "index",
                    "/home/u/.local/share/cursor-agent/versions/2025.09.04/node",
                    &[
                        "/home/u/.local/share/cursor-agent/versions/2025.09.04/node",
                        "--use-system-ca",
                        "/home/u/.local/share/cursor-agent/versions/2025.09.04/index.js",
                    ],
                ),
            ),
            (
                "OpenCode",
                process("opencode", "/home/u/.opencode/bin/opencode", &["opencode"]),
            ),
            (
                "Aider",
                process(
                    "aider",
                    "/usr/bin/python3.12",
                    &["/usr/bin/python3", "/home/u/.local/bin/aider"],
                ),
            ),
            (
                "Aider",
                process("aider", "/usr/bin/python3.12", &["python3", "-m", "aider"]),
            ),
            (
                "GitHub Copilot CLI",
                process(
                    "index",
                    "/usr/bin/node",
                    &["node", "/usr/lib/node_modules/@github/copilot/index.js"],
                ),
            ),
            (
                "Qwen Code",
                process(
                    "cli",
                    "/usr/bin/node",
                    &["node", "/usr/lib/node_modules/@qwen-code/qwen-code/cli.js"],
                ),
            ),
            (
                "Amp",
                process(
                    "main",
                    "/usr/bin/node",
                    &[
                        "node",
                        "/usr/lib/node_modules/@sourcegraph/amp/dist/main.js",
                    ],
                ),
            ),
            (
                "Crush",
                process("crush", "/usr/local/bin/crush", &["crush"]),
            ),
            (
                "Auggie",
                process(
                    "augment",
                    "/usr/bin/node",
                    &[
                        "node",
                        "/usr/lib/node_modules/@augmentcode/auggie/augment.mjs",
                    ],
                ),
            ),
        ];
        for (want, p) in cases {
            assert_eq!(title(p), Some(*want), "{p:?}");
        }
        // Every entry has a case above.
        for agent in KNOWN_AGENTS {
            assert!(
                cases.iter().any(|(t, _)| *t == agent.title),
                "{} has no case",
                agent.title
            );
        }
    }

    #[test]
    fn look_alikes_and_interpreters_are_not_agents() {
        for p in [
            process("claude-ish", "/usr/bin/claude-ish", &["claude-ish"]),
            process("codexish", "/usr/bin/codexish", &["codexish"]),
            process("python3", "/usr/bin/python3", &["python3", "build.py"]),
            process("node", "/usr/bin/node", &["node", "-e", "require('x')"]),
            process("make", "/usr/bin/make", &["make", "claude"]),
            // An agent's package named far down a command line is an
            // argument, not the program.
            process(
                "grep",
                "/usr/bin/grep",
                &[
                    "grep",
                    "-r",
                    "x",
                    "y",
                    "/usr/lib/node_modules/@anthropic-ai/claude-code/",
                ],
            ),
        ] {
            assert_eq!(title(&p), None, "{p:?}");
        }
    }

    #[test]
    fn only_codex_runs_an_argv_directly() {
        let direct: Vec<&str> = KNOWN_AGENTS
            .iter()
            .filter(|a| a.runs_argv_directly)
            .map(|a| a.title)
            .collect();
        assert_eq!(direct, ["Codex CLI"]);
    }
}
