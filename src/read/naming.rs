//! What the syntax tree says about one declaration node: its name, the
//! scope a qualified name puts it in (`impl Foo::bar` in C++, a Go
//! method's receiver), where its body starts, and whether it is public.
//! Every answer comes from the node's fields and children, never from
//! matching its text.

use tree_sitter::Node;

/// The text of `node` in `src`.
pub fn text<'a>(node: Node, src: &'a [u8]) -> &'a str {
    std::str::from_utf8(&src[node.byte_range()]).unwrap_or("")
}

/// Whether a node of a declaration kind declares something the outline
/// lists: a C `declaration` only when it declares a function (a local
/// variable is not a declaration of the file), an HTML element only when
/// it has an `id` or is a heading, a JavaScript variable only when it
/// holds a function or a class.
pub fn is_listed(grammar: &str, node: Node, src: &[u8]) -> bool {
    match (grammar, node.kind()) {
        // A function's local `T x(args);` parses as a prototype; only
        // declarations outside function bodies declare something.
        ("c" | "cpp", "declaration" | "field_declaration") => {
            declares_function(node) && !has_ancestor(node, "compound_statement")
        }
        (
            "c" | "cpp",
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier",
        ) => {
            node.child_by_field_name("body").is_some()
                && node.parent().is_none_or(|p| p.kind() != "type_definition")
        }
        ("html", "element") => {
            element_id(node, src).is_some() || heading_level(node, src).is_some()
        }
        (_, "variable_declarator") => node.child_by_field_name("value").is_some_and(|v| {
            matches!(
                v.kind(),
                "arrow_function"
                    | "function_expression"
                    | "function"
                    | "class"
                    | "generator_function"
            )
        }),
        _ => true,
    }
}

fn declares_function(node: Node) -> bool {
    let mut d = node.child_by_field_name("declarator");
    while let Some(n) = d {
        if n.kind() == "function_declarator" {
            return true;
        }
        d = n.child_by_field_name("declarator");
    }
    false
}

/// The innermost declarator of a C or C++ declaration: the function's or
/// type's own name node.
fn declarator_name(node: Node) -> Option<Node> {
    let mut d = node.child_by_field_name("declarator")?;
    loop {
        match d.kind() {
            "identifier"
            | "field_identifier"
            | "type_identifier"
            | "qualified_identifier"
            | "destructor_name"
            | "operator_name"
            | "primitive_type" => return Some(d),
            _ => {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?
            }
        }
    }
}

/// The declaration's name and the scope its own syntax puts it in
/// (`Foo` for C++'s `void Foo::bar()`, `T` for Go's `func (t *T) M()`).
pub fn name(grammar: &str, node: Node, src: &[u8]) -> (String, Vec<String>) {
    let kind = node.kind();
    let plain = |n: Option<Node>| n.map(|n| text(n, src).trim().to_string());
    let found = match (grammar, kind) {
        ("rust", "impl_item") => plain(node.child_by_field_name("type").map(base_type)),
        ("go", "method_declaration") => {
            let scope = node
                .child_by_field_name("receiver")
                .and_then(|r| r.named_child(0))
                .and_then(|p| p.child_by_field_name("type"))
                .map(|t| text(base_type(t), src).trim_start_matches('*').to_string());
            let name = plain(node.child_by_field_name("name")).unwrap_or_default();
            return (name, scope.into_iter().collect());
        }
        (
            "c" | "cpp",
            "function_definition" | "declaration" | "field_declaration" | "type_definition",
        ) => match declarator_name(node) {
            Some(n) if n.kind() == "qualified_identifier" => {
                let full = text(n, src);
                let mut parts: Vec<String> =
                    full.split("::").map(|p| p.trim().to_string()).collect();
                let last = parts.pop().unwrap_or_default();
                return (last, parts);
            }
            other => plain(other),
        },
        ("json", "pair") => plain(node.child_by_field_name("key")).map(|k| unquote(&k)),
        ("yaml", "block_mapping_pair") => {
            plain(node.child_by_field_name("key")).map(|k| unquote(&k))
        }
        ("toml", _) => node
            .named_child(0)
            .filter(|k| k.kind().ends_with("key"))
            .map(|k| text(k, src).trim().to_string()),
        ("markdown", "section") => node.named_child(0).map(|h| heading_text(h, src)),
        ("html", "element") => element_id(node, src)
            .map(|id| format!("#{id}"))
            .or_else(|| heading_level(node, src).map(|_| collapse(&inner_text(node, src)))),
        ("html", "script_element") => Some("script".into()),
        ("html", "style_element") => Some("style".into()),
        ("css", "rule_set") => plain(node.named_child(0)),
        ("css", "keyframes_statement") => {
            plain(node.child_by_field_name("name").or(node.named_child(0)))
        }
        ("css", _) => Some(collapse(text(node, src).split('{').next().unwrap_or(""))),
        _ => plain(node.child_by_field_name("name")),
    };
    let name = found.unwrap_or_default();
    let name = if name.is_empty() {
        format!("({})", kind.replace('_', " "))
    } else {
        name
    };
    (name, Vec::new())
}

/// `Foo<T>` → `Foo`, `&mut Foo` → `Foo`: the name a path resolves by.
fn base_type(mut t: Node) -> Node {
    loop {
        match t.kind() {
            "generic_type" => match t.child_by_field_name("type") {
                Some(inner) => t = inner,
                None => return t,
            },
            "reference_type" | "pointer_type" => {
                match t.child_by_field_name("type").or_else(|| t.named_child(0)) {
                    Some(inner) => t = inner,
                    None => return t,
                }
            }
            _ => return t,
        }
    }
}

fn unquote(s: &str) -> String {
    let t = s.trim();
    for q in ['"', '\''] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            return t[1..t.len() - 1].to_string();
        }
    }
    t.to_string()
}

/// A Markdown heading's text: `## Install ##` → `Install`.
fn heading_text(heading: Node, src: &[u8]) -> String {
    if heading.kind() == "atx_heading" {
        if let Some(content) = heading.child_by_field_name("heading_content") {
            return collapse(text(content, src))
                .trim_end_matches('#')
                .trim()
                .to_string();
        }
        return String::new();
    }
    // A setext heading: its paragraph, without the underline.
    heading
        .named_child(0)
        .map(|p| collapse(text(p, src)))
        .unwrap_or_default()
}

fn start_tag(element: Node) -> Option<Node> {
    element
        .named_child(0)
        .filter(|t| t.kind() == "start_tag" || t.kind() == "self_closing_tag")
}

fn tag_name<'a>(element: Node, src: &'a [u8]) -> Option<&'a str> {
    let tag = start_tag(element)?;
    let mut cursor = tag.walk();
    let found = tag
        .named_children(&mut cursor)
        .find(|c| c.kind() == "tag_name");
    found.map(|n| text(n, src))
}

fn element_id(element: Node, src: &[u8]) -> Option<String> {
    let tag = start_tag(element)?;
    let mut cursor = tag.walk();
    for attr in tag
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "attribute")
    {
        let mut inner = attr.walk();
        let parts: Vec<Node> = attr.named_children(&mut inner).collect();
        if parts
            .first()
            .is_some_and(|n| text(*n, src).eq_ignore_ascii_case("id"))
        {
            return parts.get(1).map(|v| unquote(text(*v, src)));
        }
    }
    None
}

fn heading_level(element: Node, src: &[u8]) -> Option<u8> {
    let name = tag_name(element, src)?.to_ascii_lowercase();
    let level = name.strip_prefix('h')?.parse::<u8>().ok()?;
    (1..=6).contains(&level).then_some(level)
}

/// The text nodes under an HTML element, joined.
fn inner_text(node: Node, src: &[u8]) -> String {
    let mut out = String::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() == "text" {
            out.push_str(text(child, src));
            out.push(' ');
        } else if child.kind() == "element" {
            out.push_str(&inner_text(child, src));
        }
    }
    out
}

/// Runs of whitespace as one space, trimmed.
pub fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where the part of a declaration an outline leaves out begins: its body
/// (a block, a member list, an object's value); `None` for a declaration
/// that is all signature (a prototype, `type A = B;`, a scalar key).
pub fn body<'t>(grammar: &str, node: Node<'t>) -> Option<Node<'t>> {
    match (grammar, node.kind()) {
        ("html", "element") => return start_tag(node).and_then(|t| t.next_sibling()),
        ("markdown", "section") | ("toml", _) => return node.named_child(1),
        ("json", "pair") | ("yaml", "block_mapping_pair") => {
            let v = node.child_by_field_name("value")?;
            let structured = matches!(v.kind(), "object" | "array" | "block_node")
                || v.named_child(0).is_some_and(|c| {
                    c.kind().starts_with("block_") || c.kind().starts_with("flow_")
                });
            return structured.then_some(v);
        }
        _ => {}
    }
    if let Some(b) = node.child_by_field_name("body") {
        return Some(b);
    }
    if let Some(v) = node.child_by_field_name("value")
        && let Some(b) = v.child_by_field_name("body")
    {
        return Some(b);
    }
    if let Some(t) = node.child_by_field_name("type")
        && let Some(b) = t.child_by_field_name("body").or_else(|| {
            let mut cursor = t.walk();
            let found = t
                .named_children(&mut cursor)
                .find(|c| c.kind().ends_with("_list") || c.kind() == "block");
            found
        })
    {
        return Some(b);
    }
    let mut cursor = node.walk();
    let found = node.named_children(&mut cursor).find(|c| {
        matches!(
            c.kind(),
            "block"
                | "declaration_list"
                | "field_declaration_list"
                | "compound_statement"
                | "class_body"
                | "body_statement"
        )
    });
    found
}

/// Whether the language's own syntax makes this declaration part of the
/// public API (`pub`, `export`, `public`, an exported Go name, a Python
/// name without a leading underscore, a C function that is not `static`).
/// `in_type` says whether the declaration is a member of a type.
pub fn is_public(
    grammar: &str,
    node: Node,
    wrapper: Node,
    name: &str,
    src: &[u8],
    parent_kind: Option<&str>,
) -> bool {
    let has_child = |n: Node, kinds: &[&str], words: &[&str]| {
        let mut cursor = n.walk();
        let found = n.children(&mut cursor).any(|c| {
            kinds.contains(&c.kind())
                && (words.is_empty()
                    || words
                        .iter()
                        .any(|w| text(c, src).split_whitespace().any(|t| t == *w)))
        });
        found
    };
    match grammar {
        "rust" => {
            node.kind() == "impl_item"
                || has_child(node, &["visibility_modifier"], &[])
                || parent_kind == Some("trait_item")
        }
        "python" => {
            let dunder = name.starts_with("__") && name.ends_with("__");
            !name.starts_with('_') || dunder
        }
        "typescript" | "tsx" | "javascript" => match parent_kind {
            None | Some("internal_module" | "module") => {
                wrapper.kind() == "export_statement" || has_ancestor(node, "export_statement")
            }
            Some(_) => {
                !name.starts_with('#')
                    && !has_child(node, &["accessibility_modifier"], &["private", "protected"])
            }
        },
        "go" => name.chars().next().is_some_and(char::is_uppercase),
        "java" => {
            has_child(node, &["modifiers"], &["public", "protected"])
                || matches!(
                    parent_kind,
                    Some("interface_declaration" | "annotation_type_declaration")
                )
        }
        "csharp" => {
            matches!(
                node.kind(),
                "namespace_declaration" | "file_scoped_namespace_declaration"
            ) || has_child(node, &["modifier"], &["public", "protected"])
                || parent_kind == Some("interface_declaration")
        }
        "php" => !has_child(node, &["visibility_modifier"], &["private", "protected"]),
        "c" => !has_child(node, &["storage_class_specifier"], &["static"]),
        _ => true,
    }
}

fn has_ancestor(node: Node, kind: &str) -> bool {
    let mut p = node.parent();
    while let Some(n) = p {
        if n.kind() == kind {
            return true;
        }
        p = n.parent();
    }
    false
}
