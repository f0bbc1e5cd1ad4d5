//! SARIF 2.1.0 (`--format sarif`): a diagnostics family's findings as a
//! static-analysis log that code-scanning tools accept. One run: the tool
//! (the compiler or linter that wrote the output) as its driver, ctx as
//! the converter, one rule per diagnostic code, one result per finding
//! that names a file (relative to the checkout's root, `%SRCROOT%`), and
//! the findings that name none (a linker's or make's own failure) as the
//! invocation's notifications, where code scanning does not require a
//! location. A failing exit with no error parsed is said so in a
//! notification: a log never reads clean when the run was not
//! (invariant 10).
//!
//! Pure: the graph, the artifact's exit and argv, a [`Workspace`], and the
//! archive key in, bytes out. Keys come out in the declared order, so the
//! same input gives the same bytes.

use serde::Serialize;

use crate::artifact::{Artifact, Exit};
use crate::evidence::{EvidenceGraph, EvidenceItem, Outcome, Severity};
use crate::render::workflow::{is_finding, reason};
use crate::store::ArchiveKey;
use crate::workspace::{Placed, Workspace};

/// The schema every log names: the OASIS standard's, errata 01.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The base id relative URIs are resolved against: the checkout's root.
pub const SRCROOT: &str = "%SRCROOT%";

/// The SARIF log of one digested output, pretty-printed, ending with `\n`.
/// `profile` is the `<family>/vN` that read the output.
pub fn render(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    profile: &str,
    workspace: &Workspace,
    key: Option<&ArchiveKey>,
) -> Vec<u8> {
    let log = log(artifact, graph, profile, workspace, key);
    let mut bytes = serde_json::to_vec_pretty(&log).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

fn log(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    profile: &str,
    workspace: &Workspace,
    key: Option<&ArchiveKey>,
) -> Log {
    let family = profile.split('/').next().unwrap_or(profile);
    let mut rules: Vec<Rule> = Vec::new();
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    let mut errors = 0usize;
    for item in graph.items.iter().filter(|i| is_finding(i.kind)) {
        let rule_id = rule_id(family, item);
        let level = level(item.severity);
        if level == "error" {
            errors += 1;
        }
        let message = Message { text: reason(item) };
        let properties = ItemProperties {
            identity: item.identity.clone(),
        };
        match item.location.as_ref().filter(|l| !l.file.trim().is_empty()) {
            Some(location) => {
                let index = match rules.iter().position(|r| r.id == rule_id) {
                    Some(i) => i,
                    None => {
                        rules.push(Rule::new(&rule_id, family, &message.text));
                        rules.len() - 1
                    }
                };
                let (uri, uri_base_id) = match workspace.place(&location.file) {
                    Placed::Relative(path) => (encode(&path), Some(SRCROOT)),
                    Placed::Outside(path) => (format!("file://{}", encode(&path)), None),
                };
                let region = location.line.filter(|&l| l > 0).map(|line| Region {
                    start_line: line,
                    start_column: location.column.filter(|&c| c > 0),
                });
                results.push(Result_ {
                    rule_id,
                    rule_index: index,
                    level,
                    message,
                    locations: vec![Location {
                        physical_location: PhysicalLocation {
                            artifact_location: ArtifactLocation { uri, uri_base_id },
                            region,
                        },
                    }],
                    properties,
                });
            }
            None => notifications.push(Notification {
                level,
                message,
                descriptor: Descriptor { id: rule_id },
                properties,
            }),
        }
    }
    if artifact.exit.is_failure() && errors == 0 {
        let how = artifact.exit.describe().unwrap_or_default();
        let expand = key.map_or_else(String::new, |k| format!("; ctx expand {}", k.short()));
        notifications.push(Notification {
            level: "error",
            message: Message {
                text: format!("{how} but no error was parsed from the output{expand}"),
            },
            descriptor: Descriptor {
                id: "ctx/unparsed-failure".into(),
            },
            properties: ItemProperties {
                identity: String::new(),
            },
        });
    }
    let (exit_code, exit_signal_number) = match artifact.exit {
        Exit::Code(c) => (Some(c), None),
        Exit::Signal(s) => (None, Some(s)),
        Exit::Unknown => (None, None),
    };
    let tool = super::tool_name(graph, profile).to_string();
    Log {
        schema: SCHEMA_URI,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver { name: tool, rules },
            },
            conversion: Conversion {
                tool: Tool {
                    driver: Driver {
                        name: "ctx".into(),
                        rules: Vec::new(),
                    },
                },
            },
            invocations: vec![Invocation {
                command_line: (!artifact.argv.is_empty()).then(|| artifact.display_command()),
                execution_successful: !matches!(
                    graph.outcome,
                    Outcome::Unknown | Outcome::Interrupted
                ) && !matches!(artifact.exit, Exit::Signal(_)),
                exit_code,
                exit_signal_number,
                tool_execution_notifications: notifications,
            }],
            results,
            properties: RunProperties {
                ctx_profile: profile.to_string(),
                ctx_expand: key.map(|k| format!("ctx expand {}", k.short())),
            },
        }],
    }
}

/// The rule a finding reports under: its code (`E0308`, `no-unused-vars`),
/// else the family and the severity (`gcc/error`: a compiler message
/// without a code).
fn rule_id(family: &str, item: &EvidenceItem) -> String {
    match item.class.as_deref().map(str::trim) {
        Some(code) if !code.is_empty() => code.to_string(),
        _ => format!("{family}/{}", item.severity.word()),
    }
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note | Severity::Help | Severity::Info => "note",
    }
}

/// A path as a URI reference: every byte outside the unreserved set, `/`
/// and the sub-delimiters percent-encoded (so a space, `#`, `?`, `%`, a
/// colon that would read as a scheme, or a non-ASCII name stay one path).
fn encode(path: &str) -> String {
    use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
    const PATH: &AsciiSet = &CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'#')
        .add(b'%')
        .add(b'<')
        .add(b'>')
        .add(b'?')
        .add(b'[')
        .add(b'\\')
        .add(b']')
        .add(b'^')
        .add(b'`')
        .add(b'{')
        .add(b'|')
        .add(b'}')
        .add(b':');
    utf8_percent_encode(path, PATH).to_string()
}

#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    conversion: Conversion,
    invocations: Vec<Invocation>,
    results: Vec<Result_>,
    properties: RunProperties,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
struct Driver {
    name: String,
    /// Present even when empty: consumers (GitHub code scanning) look the
    /// results' `ruleIndex` up in it, and read a missing array as an error.
    rules: Vec<Rule>,
}

/// A rule as GitHub code scanning requires one: an id with a short and a
/// full description and help. ctx knows a rule only from the findings that
/// name it: the short description is the tool and the rule's id, the full
/// one quotes the tool's words for its first finding, and the help says
/// where the whole finding is.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    short_description: Message,
    full_description: Message,
    help: Message,
}

impl Rule {
    fn new(id: &str, family: &str, first_message: &str) -> Rule {
        Rule {
            id: id.to_string(),
            short_description: Message {
                text: format!("{family} {id}"),
            },
            full_description: Message {
                text: format!("{family} {id}; first reported in this run as: {first_message}"),
            },
            help: Message {
                text: format!(
                    "See {family}'s documentation for {id}; each result's properties name the finding, and `ctx expand` with its archive address shows the tool's whole output for it."
                ),
            },
        }
    }
}

#[derive(Serialize)]
struct Conversion {
    tool: Tool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    command_line: Option<String>,
    execution_successful: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exit_signal_number: Option<i32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notification {
    level: &'static str,
    message: Message,
    descriptor: Descriptor,
    #[serde(skip_serializing_if = "ItemProperties::is_empty")]
    properties: ItemProperties,
}

#[derive(Serialize)]
struct Descriptor {
    id: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Result_ {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: Message,
    locations: Vec<Location>,
    properties: ItemProperties,
}

#[derive(Serialize)]
struct Message {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(rename = "uriBaseId", skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<u32>,
}

/// ctx's own facts about the run, in the run's property bag.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunProperties {
    ctx_profile: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    ctx_expand: Option<String>,
}

/// The finding's identity as the digest names it (`ctx expand --item`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ItemProperties {
    #[serde(rename = "ctxIdentity")]
    identity: String,
}

impl ItemProperties {
    fn is_empty(&self) -> bool {
        self.identity.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(encode("src/a b#1?.rs"), "src/a%20b%231%3F.rs");
        assert_eq!(encode("C:x/é.ts"), "C%3Ax/%C3%A9.ts");
        assert_eq!(encode("lib/a-b_c.~d,e=f"), "lib/a-b_c.~d,e=f");
    }
}
