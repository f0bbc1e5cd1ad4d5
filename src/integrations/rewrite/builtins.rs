//! The words bash runs itself: builtins and reserved words. In command
//! position such a word is no program: `ctx run -- command -v pytest`
//! would ask the kernel for a program named `command` and exit 127, where
//! the bare line printed pytest's path, and `ctx run -- cd x` or
//! `ctx run -- export A=1` would change nothing in the agent's shell. So a
//! stage whose command is one of these is left as written; ctx does not
//! try to prove an equivalent form (`command pytest` as
//! `command ctx run -- pytest`), because the builtin's meaning (no
//! function look-up, a replaced shell, a timed pipeline) is the shell's
//! and not ctx's to keep.
//!
//! `time [-p]` and `!` in front of a pipeline are the exception that the
//! rewrite already keeps in front (`time ctx run -- pytest`): they apply
//! to the pipeline, not to an argv, and `ctx run` exits with the
//! command's status, so `!` negates the same status and `time` times the
//! same run.
//!
//! tests/rewrite.rs checks both lists against the running bash
//! (`compgen -b`, `compgen -k`, `type -t`).

/// bash 5's builtins (`compgen -b`), POSIX special builtins included.
pub const BUILTINS: &[&str] = &[
    ".",
    ":",
    "[",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
];

/// bash 5's reserved words (`compgen -k`).
pub const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
];

/// Whether bash runs `word`, in command position, itself.
pub fn is_shell_own(word: &str) -> bool {
    BUILTINS.contains(&word) || KEYWORDS.contains(&word)
}
