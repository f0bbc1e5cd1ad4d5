//! What an ancestor process is to a shim deciding who reads its stdout.
//! The lists are documented in docs/shims.md; a name missing from them
//! makes the shim pass through, never digest.

/// Shells: their stdout is what a command inherits unless redirected.
const SHELLS: &[&str] = &[
    "bash", "sh", "dash", "zsh", "fish", "ksh", "mksh", "ash", "busybox",
];

/// Programs that run a command without touching its stdout and are typed
/// by a person in front of it (`timeout 60 pytest`, `make test`).
const WRAPPERS: &[&str] = &[
    "make", "gmake", "timeout", "env", "nice", "nohup", "time", "xargs", "stdbuf", "ionice",
    "taskset", "chrt", "flock", "setsid", "npm", "npx", "pnpm", "pnpx", "yarn", "bun", "bunx",
    "uv", "uvx", "poetry", "pipenv", "pdm", "hatch", "rye", "just", "task", "direnv", "nix", "tox",
    "nox",
];

/// Programs whose children's output is theirs to read, never the agent's:
/// build tools, compiler drivers, package builders and test runners.
/// Anywhere among a shim's ancestors, they make it pass through.
const BUILD_TOOLS: &[&str] = &[
    "cargo",
    "cargo-clippy",
    "rustc",
    "rustdoc",
    "clippy-driver",
    "cc",
    "c++",
    "gcc",
    "g++",
    "clang",
    "clang++",
    "cpp",
    "collect2",
    "ld",
    "cmake",
    "ctest",
    "ninja",
    "samu",
    "meson",
    "bazel",
    "bazelisk",
    "buck",
    "buck2",
    "scons",
    "gradle",
    "gradlew",
    "mvn",
    "sbt",
    "go",
    "node-gyp",
    "pip",
    "pip3",
    "setup.py",
    "pytest",
    "py.test",
    "jest",
    "vitest",
    "mocha",
    "rspec",
];

/// Prefixes of build-tool names that carry a suffix (cargo's
/// `build-script-build`, `x86_64-linux-gnu-gcc-12`, `ld.lld`).
const BUILD_TOOL_PREFIXES: &[&str] =
    &["build-script-", "build_script_", "ld.", "x86_64-linux-gnu-"];

/// The role of a process named `name` on the walk up from a shim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Shell,
    Wrapper,
    BuildTool,
    /// Anything else: the walk stops here.
    Other,
}

pub fn role(name: &str) -> Role {
    if SHELLS.contains(&name) {
        Role::Shell
    } else if WRAPPERS.contains(&name) {
        Role::Wrapper
    } else if BUILD_TOOLS.contains(&name) || BUILD_TOOL_PREFIXES.iter().any(|p| name.starts_with(p))
    {
        Role::BuildTool
    } else {
        Role::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles() {
        for (name, want) in [
            ("bash", Role::Shell),
            ("make", Role::Wrapper),
            ("npm", Role::Wrapper),
            ("cargo", Role::BuildTool),
            ("build-script-build", Role::BuildTool),
            ("x86_64-linux-gnu-gcc-12", Role::BuildTool),
            ("pip", Role::BuildTool),
            ("codex", Role::Other),
            ("node", Role::Other),
            ("claude", Role::Other),
        ] {
            assert_eq!(role(name), want, "{name}");
        }
    }
}
