//! Claude Code's Bash permission rules, read the way Claude Code reads
//! them, so that the hook grants a rewritten command exactly what the
//! original would have had (docs/agents.md, "Permissions").
//!
//! A rule is `Bash` or `Bash(*)` (every command), `Bash(npm run build)`
//! (that command exactly), `Bash(npm run test:*)` (that command, or it
//! followed by a space and anything), or a pattern with `*` wildcards
//! (`Bash(git * main)`; a single trailing ` *` also matches the bare
//! command). Rules from every settings file are pooled and evaluated deny,
//! then ask, then allow. A compound command is split into its simple
//! commands; it is allowed only when every one of them is.
//!
//! Where ctx cannot be sure, it errs the safe way for each list: a deny
//! or ask rule matches if it matches any reasonable reading of a command
//! (as typed, without its `A=1` prefixes, without its wrappers), an allow
//! rule only if it matches the command as typed with the wrappers Claude
//! Code documents as stripped (`timeout`, `time`, `nice`, `nohup`).

use serde_json::Value;

use crate::command::wrappers;
use crate::rewrite::{command_words, lexer};

/// One Bash rule's pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `Bash`, `Bash(*)`.
    Any,
    /// `Bash(npm run build)`.
    Exact(String),
    /// `Bash(npm run test:*)`: the command, or it and a space and more.
    Prefix(String),
    /// `Bash(git * main)`: `*` is any text.
    Wildcard(String),
}

impl Pattern {
    /// The pattern of a rule string, if it is a Bash rule.
    pub fn parse(rule: &str) -> Option<Pattern> {
        let rule = rule.trim();
        if rule == "Bash" {
            return Some(Pattern::Any);
        }
        let inner = rule.strip_prefix("Bash(")?.strip_suffix(')')?.trim();
        if inner == "*" || inner.is_empty() {
            return Some(Pattern::Any);
        }
        if let Some(prefix) = inner.strip_suffix(":*") {
            return Some(Pattern::Prefix(prefix.trim_end().to_string()));
        }
        if inner.contains('*') {
            return Some(Pattern::Wildcard(inner.to_string()));
        }
        Some(Pattern::Exact(inner.to_string()))
    }

    /// `matches`, and for `prefix:*` also without the word boundary: a
    /// deny rule counts if any reading of it could apply.
    pub fn may_match(&self, command: &str) -> bool {
        match self {
            Pattern::Prefix(p) => command.starts_with(p.as_str()),
            _ => self.matches(command),
        }
    }

    pub fn matches(&self, command: &str) -> bool {
        match self {
            Pattern::Any => true,
            Pattern::Exact(p) => command == p,
            Pattern::Prefix(p) => {
                command == p
                    || command
                        .strip_prefix(p.as_str())
                        .is_some_and(|r| r.starts_with(' '))
            }
            Pattern::Wildcard(p) => {
                // A single trailing ` *` is optional: `ls *` matches `ls`.
                let optional_tail = p.matches('*').count() == 1 && p.ends_with(" *");
                (optional_tail && command == &p[..p.len() - 2])
                    || wildcard(p.as_bytes(), command.as_bytes())
            }
        }
    }
}

/// `*` matches any run of bytes; everything else matches itself.
fn wildcard(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|b| *b == b'*')
}

/// The pooled Bash rules of every settings file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    pub allow: Vec<Pattern>,
    pub ask: Vec<Pattern>,
    pub deny: Vec<Pattern>,
}

/// What Claude Code would decide for a command line from the rules alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Deny,
    Ask,
    Allow,
    /// No rule decides: Claude Code's mode does.
    Unlisted,
}

impl Rules {
    /// Adds the `permissions.{allow,ask,deny}` lists of one settings file.
    pub fn add(&mut self, settings: &Value) {
        let Some(permissions) = settings.get("permissions") else {
            return;
        };
        for (key, list) in [
            ("allow", &mut self.allow),
            ("ask", &mut self.ask),
            ("deny", &mut self.deny),
        ] {
            let rules = permissions.get(key).and_then(Value::as_array);
            list.extend(
                rules
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .filter_map(Pattern::parse),
            );
        }
    }

    /// The verdict for a whole command line. A line ctx cannot split is
    /// `Ask` at best: it is never rewritten anyway.
    pub fn verdict(&self, line: &str) -> Verdict {
        let Ok(pipelines) = lexer::lex(line) else {
            return if self.deny.iter().any(|p| p.may_match(line.trim())) {
                Verdict::Deny
            } else {
                Verdict::Ask
            };
        };
        let commands: Vec<Readings> = pipelines
            .iter()
            .flatten()
            .map(|stage| readings(line, stage))
            .collect();
        let denied = |r: &Readings| {
            r.lenient
                .iter()
                .any(|text| self.deny.iter().any(|p| p.may_match(text)))
        };
        if self.deny.iter().any(|p| p.may_match(line.trim())) || commands.iter().any(denied) {
            return Verdict::Deny;
        }
        let asks = |r: &Readings| {
            r.lenient
                .iter()
                .any(|text| self.ask.iter().any(|p| p.matches(text)))
        };
        if commands.iter().any(asks) {
            return Verdict::Ask;
        }
        let allowed = |r: &Readings| r.harmless || self.allow.iter().any(|p| p.matches(&r.typed));
        if !commands.is_empty() && commands.iter().all(allowed) {
            Verdict::Allow
        } else {
            Verdict::Unlisted
        }
    }
}

/// The texts one simple command can be read as.
struct Readings {
    /// As typed (words only, no redirections), without the wrappers
    /// Claude Code documents as stripped.
    typed: String,
    /// Every reading a deny or ask rule may have been written for.
    lenient: Vec<String>,
    /// A shell builtin that changes nothing (`cd sub`, `pwd`, `true`).
    harmless: bool,
}

fn readings(line: &str, stage: &lexer::Stage) -> Readings {
    let raw = |w: &lexer::Word| &line[w.start..w.end];
    let join = |words: &[lexer::Word]| words.iter().map(raw).collect::<Vec<_>>().join(" ");
    let all = &stage.words;
    // `!` and `time [-p]` are the shell's; `A=1` stays in the typed form.
    let bare = command_words(stage);
    let from_assignments = all
        .iter()
        .position(|w| !matches!(raw(w), "!" | "time" | "-p"))
        .unwrap_or(all.len());
    let typed_words = strip_documented_wrappers(&all[from_assignments..]);
    let typed = join(typed_words);
    let values: Vec<String> = bare.iter().map(|w| w.value.clone()).collect();
    let core = wrappers::unwrap(&values).unwrap_or(0);
    let mut lenient = vec![
        typed.clone(),
        join(all),
        join(bare),
        join(&bare[core..]),
        join(strip_documented_wrappers(bare)),
        values.join(" "),
        values[core..].join(" "),
    ];
    if let (Some(first), Some(last)) = (all.first(), all.last()) {
        lenient.push(line[first.start..last.end].to_string());
    }
    lenient.dedup();
    Readings {
        harmless: harmless(bare),
        typed,
        lenient,
    }
}

/// Drops the leading wrappers Claude Code strips before matching:
/// `timeout [opts] N`, `time`, `nice [-n N]`, `nohup`.
fn strip_documented_wrappers(words: &[lexer::Word]) -> &[lexer::Word] {
    let mut i = 0;
    loop {
        let Some(w) = words.get(i) else {
            return &words[i..];
        };
        match w.value.as_str() {
            "nohup" | "time" => i += 1,
            "nice" => {
                i += 1;
                if words.get(i).is_some_and(|w| w.value == "-n") {
                    i += 2;
                } else if words.get(i).is_some_and(|w| w.value.starts_with('-')) {
                    i += 1;
                }
            }
            "timeout" => {
                i += 1;
                while let Some(w) = words.get(i).filter(|w| w.value.starts_with('-')) {
                    let takes_value =
                        matches!(w.value.as_str(), "-s" | "-k" | "--signal" | "--kill-after");
                    i += if takes_value { 2 } else { 1 };
                }
                i += 1; // the duration
            }
            _ => return &words[i..],
        }
    }
}

/// Builtins that read or change nothing outside the shell.
fn harmless(words: &[lexer::Word]) -> bool {
    let Some(first) = words.first() else {
        return false;
    };
    match first.value.as_str() {
        "pwd" | "true" | ":" => words.len() == 1,
        "cd" => match words.get(1..) {
            Some([]) => true,
            Some([dir]) => {
                dir.literal
                    && !dir.value.starts_with('/')
                    && !dir.value.starts_with('-')
                    && !dir.value.split('/').any(|part| part == "..")
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(allow: &[&str], ask: &[&str], deny: &[&str]) -> Rules {
        let mut r = Rules::default();
        r.add(&json!({"permissions": {"allow": allow, "ask": ask, "deny": deny}}));
        r
    }

    #[test]
    fn patterns() {
        let cases = [
            ("Bash(pytest:*)", "pytest", true),
            ("Bash(pytest:*)", "pytest -x", true),
            ("Bash(pytest:*)", "pytests", false),
            ("Bash(npm run test:*)", "npm run test:unit", false),
            ("Bash(npm run test:*)", "npm run test -- --ci", true),
            ("Bash(npm run test*)", "npm run test:unit", true),
            ("Bash(npm run build)", "npm run build", true),
            ("Bash(npm run build)", "npm run build --prod", false),
            ("Bash(ls *)", "ls", true),
            ("Bash(ls *)", "ls -la", true),
            ("Bash(ls *)", "lsof", false),
            ("Bash(git * main)", "git checkout main", true),
            ("Bash(git * main)", "git checkout dev", false),
            ("Bash(* --version)", "cargo --version", true),
            ("Bash", "anything at all", true),
            ("Bash(*)", "anything at all", true),
        ];
        for (rule, command, want) in cases {
            let p = Pattern::parse(rule).expect(rule);
            assert_eq!(p.matches(command), want, "{rule} vs {command}");
        }
        assert_eq!(Pattern::parse("Read(./.env)"), None);
    }

    #[test]
    fn verdicts() {
        let r = rules(
            &["Bash(pytest:*)", "Bash(cargo test:*)"],
            &["Bash(cargo publish:*)"],
            &["Bash(rm:*)"],
        );
        assert_eq!(r.verdict("pytest -x"), Verdict::Allow);
        assert_eq!(r.verdict("cd app && pytest"), Verdict::Allow);
        assert_eq!(r.verdict("timeout 60 pytest"), Verdict::Allow);
        assert_eq!(r.verdict("pytest && cargo test"), Verdict::Allow);
        assert_eq!(r.verdict("pytest && make"), Verdict::Unlisted);
        assert_eq!(r.verdict("cd .. && pytest"), Verdict::Unlisted);
        assert_eq!(r.verdict("FOO=1 pytest"), Verdict::Unlisted);
        assert_eq!(r.verdict("cargo publish"), Verdict::Ask);
        assert_eq!(r.verdict("pytest; rm -rf x"), Verdict::Deny);
        assert_eq!(r.verdict("A=1 rm -rf x"), Verdict::Deny);
        assert_eq!(r.verdict("timeout 5 rm x"), Verdict::Deny);
        // Deny and ask win over allow.
        let r = rules(&["Bash(cargo:*)"], &["Bash(cargo test:*)"], &[]);
        assert_eq!(r.verdict("cargo test"), Verdict::Ask);
        let r = rules(&["Bash"], &[], &["Bash(cargo test:*)"]);
        assert_eq!(r.verdict("cargo test"), Verdict::Deny);
        assert_eq!(r.verdict("make"), Verdict::Allow);
    }
}
