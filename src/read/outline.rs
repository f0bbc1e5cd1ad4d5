//! The declarations of a file, from its syntax tree: each with its name,
//! its qualified path, its signature, its line span and whether it is
//! public; and the regions the parser could not read.
//!
//! An extractor: it returns data and never words a view (`view.rs` does).

use std::sync::atomic::{AtomicBool, Ordering};

use tree_sitter::{Node, Parser, Tree};

use super::languages::{Grammar, Role};
use super::naming;

/// The separator of a qualified path (`Parser::parse`).
pub const PATH_SEPARATOR: &str = "::";

/// One declaration. Spans are whole lines: `start_byte` is the start of
/// its first line and `end_byte` the end of its last (newline included),
/// so `symbol:` and `lines:A-B` over the same span return the same bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decl {
    pub kind: &'static str,
    pub role: Role,
    pub name: String,
    /// Names of the enclosing declarations and of the scope the syntax
    /// names (a C++ `Foo::bar`), then `name`.
    pub path: Vec<String>,
    /// The declaration up to its body, whitespace collapsed to one line.
    pub signature: String,
    pub has_body: bool,
    /// First and last line, 1-based, inclusive.
    pub start_line: usize,
    pub end_line: usize,
    pub start_byte: usize,
    pub end_byte: usize,
    pub depth: usize,
    pub parent: Option<usize>,
    pub public: bool,
}

impl Decl {
    pub fn lines(&self) -> usize {
        self.end_line - self.start_line + 1
    }

    pub fn qualified(&self) -> String {
        self.path.join(PATH_SEPARATOR)
    }
}

/// A region the parser could not read (`ERROR`) or a token it had to
/// assume (`MISSING`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorRegion {
    pub start_line: usize,
    pub end_line: usize,
    /// `None` for an unreadable region, `Some(token)` for a missing one.
    pub missing: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Outline {
    pub grammar: &'static str,
    pub decls: Vec<Decl>,
    pub errors: Vec<ErrorRegion>,
}

/// How long a signature may be before it is cut (characters).
const SIGNATURE_CHARS: usize = 200;

/// The syntax tree of `src`, or `None` when the parser gives up (a
/// cancelled or impossible parse: never seen with these grammars, but a
/// read must not fail on it).
pub fn parse(grammar: &Grammar, src: &[u8]) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&grammar.language()).ok()?;
    parser.parse(src, None)
}

/// The outline of `src` in `grammar`.
pub fn extract(grammar: &'static Grammar, src: &[u8]) -> Option<Outline> {
    let tree = parse(grammar, src)?;
    let starts = line_starts(src);
    let mut walk = Walk {
        grammar,
        src,
        starts: &starts,
        decls: Vec::new(),
        is_decl: kind_ids(grammar, |name| grammar.decl(name).is_some()),
        is_opaque: kind_ids(grammar, |name| grammar.opaque.contains(&name)),
    };
    walk.visit(tree.root_node());
    let mut errors = Vec::new();
    if tree.root_node().has_error() {
        collect_errors(tree.root_node(), src, &starts, &mut errors);
    }
    dispose(tree);
    Some(Outline {
        grammar: grammar.name,
        decls: walk.decls,
        errors,
    })
}

struct Walk<'a> {
    grammar: &'static Grammar,
    src: &'a [u8],
    starts: &'a [usize],
    decls: Vec<Decl>,
    /// By node kind id: whether that kind is a declaration kind. The walk
    /// visits every node of the file, and a kind's name costs a C string
    /// conversion each time it is asked for; its id costs nothing.
    is_decl: Vec<bool>,
    /// By node kind id: nothing inside is a declaration (`Grammar::opaque`).
    is_opaque: Vec<bool>,
}

/// By named node kind id: whether `wanted` takes its name (a grammar may
/// give one name several ids, through aliases).
fn kind_ids(grammar: &Grammar, wanted: impl Fn(&str) -> bool) -> Vec<bool> {
    let lang = grammar.language();
    (0..lang.node_kind_count() as u16)
        .map(|id| lang.node_kind_is_named(id) && lang.node_kind_for_id(id).is_some_and(&wanted))
        .collect()
}

/// Whether syntax trees are left for the process's exit to reclaim
/// (`leak_trees_until_exit`).
static LEAK_TREES: AtomicBool = AtomicBool::new(false);

/// For a process that exits right after its one read (the `ctx read`
/// command): from now on, `extract` never frees its syntax tree. Freeing
/// a 5,000-line file's tree node by node costs about a tenth of its parse
/// (1.4 ms, a thread's start-up on top when done aside), and the kernel
/// takes the whole heap back at exit for nothing. Never for a process
/// that lives on (`ctx mcp`, a library caller): each outline would keep
/// its tree, megabytes per large file.
pub fn leak_trees_until_exit() {
    LEAK_TREES.store(true, Ordering::Relaxed);
}

fn dispose(tree: Tree) {
    if LEAK_TREES.load(Ordering::Relaxed) {
        // Deliberate: see `leak_trees_until_exit`.
        std::mem::forget(tree);
    } else {
        drop_aside(tree);
    }
}

/// Frees `tree` on a thread of its own. Freeing a large tree node by node
/// costs about a tenth of its parse (2 ms of a 5,000-line file), which a
/// reader would otherwise wait for before its view is printed; a process
/// that ends first leaves the work to the kernel.
fn drop_aside(tree: Tree) {
    // When no thread can be started, the closure (and the tree) is
    // dropped here instead.
    let _ = std::thread::Builder::new()
        .name("tree-drop".into())
        .spawn(move || drop(tree));
}

impl Walk<'_> {
    /// Every node, depth first, with one cursor (a cursor per node
    /// costs an allocation each, a measurable share of an outline).
    fn visit(&mut self, root: Node) {
        let mut cursor = root.walk();
        // For each open level: the enclosing declaration and its depth,
        // and whether the node that opened it was skipped entirely.
        let mut scopes: Vec<(Option<usize>, usize)> = vec![(None, 0)];
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            let node = cursor.node();
            let (parent, depth) = *scopes.last().unwrap_or(&(None, 0));
            // A keyword token can share its node's kind name (Ruby's
            // `module`): only named nodes are declarations.
            let listed = self
                .is_decl
                .get(node.kind_id() as usize)
                .copied()
                .unwrap_or(false)
                && node.is_named()
                && naming::is_listed(self.grammar.name, node, self.src);
            let opaque = || {
                self.is_opaque
                    .get(node.kind_id() as usize)
                    .copied()
                    .unwrap_or(false)
            };
            let descend = if !listed {
                (!opaque()).then_some((parent, depth))
            } else if self.grammar.depth.is_some_and(|limit| depth >= limit) {
                None
            } else {
                let index = self.push(node, parent, depth);
                Some((Some(index), depth + 1))
            };
            if let Some(scope) = descend
                && cursor.goto_first_child()
            {
                scopes.push(scope);
                continue;
            }
            while !cursor.goto_next_sibling() {
                if scopes.len() <= 1 || !cursor.goto_parent() {
                    return;
                }
                scopes.pop();
            }
        }
    }

    fn push(&mut self, node: Node, parent: Option<usize>, depth: usize) -> usize {
        let g = self.grammar;
        let src = self.src;
        let wrapper = outermost_wrapper(g, node);
        let mut start = wrapper.start_byte();
        // Rust's attributes are siblings before the item; they belong to it.
        let mut prev = wrapper.prev_named_sibling();
        while let Some(p) = prev.filter(|p| p.kind() == "attribute_item") {
            start = p.start_byte();
            prev = p.prev_named_sibling();
        }
        let end = wrapper.end_byte().max(node.end_byte());
        let (name, scope) = naming::name(g.name, node, src);
        let mut path: Vec<String> = parent
            .map(|p| self.decls[p].path.clone())
            .unwrap_or_default();
        path.extend(scope);
        path.push(name.clone());
        let body = naming::body(g.name, node);
        let sig_start = wrapper.start_byte();
        let sig_end = match body {
            Some(b) if b.start_byte() > sig_start => b.start_byte(),
            _ => first_line_end(src, sig_start, end),
        };
        let parent_kind = parent.map(|p| self.decls[p].kind);
        let public = naming::is_public(g.name, node, wrapper, &name, src, parent_kind);
        let (kind, role) = g
            .decl(node.kind())
            .map_or(("", Role::Leaf), |d| (d.kind, d.role));
        let sig = named_signature(signature(&src[sig_start..sig_end]), &name);
        let start_line = line_of(self.starts, start);
        let end_line = line_of(self.starts, end.saturating_sub(1).max(start));
        self.decls.push(Decl {
            kind,
            role,
            name,
            path,
            signature: sig,
            has_body: body.is_some(),
            start_line,
            end_line,
            start_byte: self.starts[start_line - 1],
            end_byte: self.starts.get(end_line).copied().unwrap_or(src.len()),
            depth,
            parent,
            public,
        });
        self.decls.len() - 1
    }
}

/// The outermost wrapper around `node` that wraps nothing else of its
/// kind (`export const f = () => …` up to `export`; a Go `type ( A; B )`
/// group is not one declaration's wrapper).
fn outermost_wrapper<'t>(g: &Grammar, node: Node<'t>) -> Node<'t> {
    let mut out = node;
    while let Some(p) = out.parent() {
        if !g.wrappers.contains(&p.kind()) {
            break;
        }
        let mut cursor = p.walk();
        let siblings = p
            .named_children(&mut cursor)
            .filter(|c| c.kind() == node.kind())
            .count();
        if siblings > 1 {
            break;
        }
        out = p;
    }
    out
}

fn first_line_end(src: &[u8], from: usize, limit: usize) -> usize {
    memchr::memchr(b'\n', &src[from..limit]).map_or(limit, |i| from + i)
}

fn signature(bytes: &[u8]) -> String {
    let text = naming::collapse(&String::from_utf8_lossy(bytes));
    let text = text
        .trim_end_matches(['{', ':', '='])
        .trim_end()
        .to_string();
    if text.chars().count() <= SIGNATURE_CHARS {
        return text;
    }
    let mut cut: String = text.chars().take(SIGNATURE_CHARS).collect();
    cut.push('…');
    cut
}

/// A signature that does not hold its declaration's name (C's `typedef
/// struct { … } Name`, an HTML heading's start tag) gets it after `…`:
/// every outline line names what it lists.
fn named_signature(mut signature: String, name: &str) -> String {
    let name = naming::collapse(name);
    if !name.starts_with('(') && !signature.contains(&name) {
        signature.push_str(" … ");
        signature.push_str(&name);
    }
    signature
}

fn collect_errors(node: Node, src: &[u8], starts: &[usize], out: &mut Vec<ErrorRegion>) {
    if node.is_error() || node.is_missing() {
        let end = node.end_byte().saturating_sub(1).max(node.start_byte());
        out.push(ErrorRegion {
            start_line: line_of(starts, node.start_byte()),
            end_line: line_of(starts, end.min(src.len().saturating_sub(1))),
            missing: node.is_missing().then(|| node.kind().to_string()),
        });
        return;
    }
    if !node.has_error() {
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect_errors(child, src, starts, out);
    }
}

/// Where each line starts; a trailing newline opens no extra line.
pub fn line_starts(src: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        memchr::memchr_iter(b'\n', src)
            .map(|i| i + 1)
            .filter(|&i| i < src.len()),
    );
    starts
}

/// The 1-based line holding byte `at`.
pub fn line_of(starts: &[usize], at: usize) -> usize {
    starts.partition_point(|&s| s <= at).max(1)
}
