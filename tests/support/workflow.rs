//! GitHub's workflow-command syntax, read as the Actions runner reads it
//! (`ActionCommand.TryParseV2` in actions/runner): leading white space
//! trimmed, `::`, the command name up to the first space, properties up
//! to the next `::` split on `,` and each on its first `=`, then the
//! message. Unescaping replaces the escapes one after another, `%25`
//! last, exactly as the runner does, so a test that reads ctx's output
//! back through this sees what GitHub would show.
#![allow(dead_code)]

use std::collections::BTreeMap;

/// One workflow command as the runner understood it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub name: String,
    pub properties: BTreeMap<String, String>,
    pub data: String,
}

/// The commands the runner acts on (`error`, `warning`, `notice`, …).
const REGISTERED: [&str; 5] = ["error", "warning", "notice", "debug", "group"];

/// `line` as a workflow command, or `None` when the runner would print
/// it as an ordinary log line.
pub fn parse(line: &str) -> Option<Command> {
    let message = line.trim_start();
    let rest = message.strip_prefix("::")?;
    let end = rest.find("::")?;
    let info = &rest[..end];
    let (name, props) = match info.find(' ') {
        Some(space) => (&info[..space], Some(&info[space + 1..])),
        None => (info, None),
    };
    if !REGISTERED.contains(&name) {
        return None;
    }
    let mut properties = BTreeMap::new();
    if let Some(props) = props {
        for prop in props.trim().split(',').filter(|p| !p.is_empty()) {
            // .NET's Split('=', 2, RemoveEmptyEntries): an empty key or
            // value leaves one part, and the property is dropped.
            if let Some((key, value)) = prop.split_once('=')
                && !key.is_empty()
                && !value.is_empty()
            {
                properties.insert(key.to_string(), unescape_property(value));
            }
        }
    }
    Some(Command {
        name: name.to_string(),
        properties,
        data: unescape_data(&rest[end + 2..]),
    })
}

fn unescape_property(s: &str) -> String {
    s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

fn unescape_data(s: &str) -> String {
    s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%25", "%")
}

/// How the run's page shows an annotation: `level file:line:col title —
/// message`, with line breaks shown as `⏎`, for golden logs.
pub fn shown(command: &Command) -> String {
    let p = |k: &str| command.properties.get(k).cloned().unwrap_or_default();
    let mut place = p("file");
    for key in ["line", "col"] {
        if let Some(v) = command.properties.get(key) {
            place.push(':');
            place.push_str(v);
        }
    }
    format!(
        "{} {} [{}] {}",
        command.name,
        place,
        p("title"),
        command.data.replace('\n', "⏎").replace('\r', "␍")
    )
}
