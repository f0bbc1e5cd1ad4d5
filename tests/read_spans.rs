//! Property: on generated sources whose declarations are known, every
//! line span of the outline points at the declaration it names (the
//! expected name, path and lines), no declaration is left out, and
//! `symbol:` returns exactly the bytes of that span.

use ctx::read::languages;
use ctx::read::outline::{self, Outline};
use ctx::read::symbol::{self, Lookup};
use ctx::read::{Mode, Request};
use proptest::prelude::*;

/// A generated item: its source lines, and each declaration it holds as
/// (path, first line, last line) relative to the item's first line.
#[derive(Debug, Clone)]
enum Item {
    Fn {
        name: String,
        body: usize,
    },
    Struct {
        name: String,
        fields: usize,
    },
    Impl {
        ty: String,
        fns: Vec<(String, usize)>,
    },
    Mod {
        name: String,
        items: Vec<Item>,
    },
}

type Expected = Vec<(Vec<String>, usize, usize)>;

fn render(
    items: &[Item],
    indent: usize,
    scope: &[String],
    line: &mut usize,
    out: &mut String,
    want: &mut Expected,
) {
    let pad = "    ".repeat(indent);
    for item in items {
        let start = *line;
        match item {
            Item::Fn { name, body } => {
                out.push_str(&format!("{pad}pub fn {name}(a: u32) -> u32 {{\n"));
                for i in 0..*body {
                    out.push_str(&format!("{pad}    let x{i} = a;\n"));
                }
                out.push_str(&format!("{pad}    a\n{pad}}}\n"));
                *line += body + 3;
                want.push((path(scope, name), start, *line - 1));
            }
            Item::Struct { name, fields } => {
                out.push_str(&format!(
                    "{pad}#[derive(Debug)]\n{pad}pub struct {name} {{\n"
                ));
                for i in 0..*fields {
                    out.push_str(&format!("{pad}    f{i}: u8,\n"));
                }
                out.push_str(&format!("{pad}}}\n"));
                *line += fields + 3;
                want.push((path(scope, name), start, *line - 1));
            }
            Item::Impl { ty, fns } => {
                out.push_str(&format!("{pad}impl {ty} {{\n"));
                *line += 1;
                let inner = path(scope, ty);
                let mut members = Vec::new();
                for (name, body) in fns {
                    let s = *line;
                    out.push_str(&format!("{pad}    fn {name}(&self) {{\n"));
                    for i in 0..*body {
                        out.push_str(&format!("{pad}        let y{i} = 1;\n"));
                    }
                    out.push_str(&format!("{pad}    }}\n"));
                    *line += body + 2;
                    members.push((path(&inner, name), s, *line - 1));
                }
                out.push_str(&format!("{pad}}}\n"));
                *line += 1;
                want.push((inner.clone(), start, *line - 1));
                want.extend(members);
            }
            Item::Mod { name, items } => {
                out.push_str(&format!("{pad}mod {name} {{\n"));
                *line += 1;
                let inner = path(scope, name);
                let at = want.len();
                render(items, indent + 1, &inner, line, out, want);
                out.push_str(&format!("{pad}}}\n"));
                *line += 1;
                want.insert(at, (inner, start, *line - 1));
            }
        }
        out.push('\n');
        *line += 1;
    }
}

fn path(scope: &[String], name: &str) -> Vec<String> {
    let mut p = scope.to_vec();
    p.push(name.to_string());
    p
}

fn ident() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,6}".prop_filter("not a keyword", |s| {
        !matches!(
            s.as_str(),
            "fn" | "mod"
                | "pub"
                | "use"
                | "let"
                | "impl"
                | "if"
                | "in"
                | "as"
                | "for"
                | "loop"
                | "move"
                | "mut"
                | "ref"
                | "self"
                | "type"
                | "enum"
                | "else"
                | "true"
                | "false"
                | "match"
                | "const"
                | "crate"
                | "super"
                | "trait"
                | "where"
                | "while"
                | "async"
                | "await"
                | "break"
                | "do"
                | "dyn"
                | "box"
                | "gen"
                | "try"
                | "yield"
                | "macro"
                | "final"
                | "priv"
                | "unsafe"
                | "static"
                | "struct"
                | "return"
                | "extern"
                | "abstract"
                | "become"
                | "override"
                | "typeof"
                | "unsized"
                | "virtual"
                | "continue"
                | "union"
        )
    })
}

fn type_name() -> impl Strategy<Value = String> {
    "[A-Z][a-zA-Z0-9]{0,6}".prop_filter("not Self", |s| s != "Self")
}

fn item() -> impl Strategy<Value = Item> {
    let leaf = prop_oneof![
        (ident(), 0..4usize).prop_map(|(name, body)| Item::Fn { name, body }),
        (type_name(), 0..3usize).prop_map(|(name, fields)| Item::Struct { name, fields }),
        (
            type_name(),
            prop::collection::vec((ident(), 0..3usize), 0..3)
        )
            .prop_map(|(ty, fns)| Item::Impl { ty, fns }),
    ];
    leaf.prop_recursive(2, 12, 4, |inner| {
        (ident(), prop::collection::vec(inner, 0..4))
            .prop_map(|(name, items)| Item::Mod { name, items })
    })
}

fn outline_of(src: &str) -> Outline {
    outline::extract(languages::by_name("rust").unwrap(), src.as_bytes()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn spans_point_at_their_declarations_and_symbol_returns_their_bytes(
        items in prop::collection::vec(item(), 1..6)
    ) {
        let mut src = String::new();
        let mut want = Expected::new();
        let mut line = 1;
        render(&items, 0, &[], &mut line, &mut src, &mut want);
        let outline = outline_of(&src);
        prop_assert!(outline.errors.is_empty(), "{src}");
        let got: Expected = outline
            .decls
            .iter()
            .map(|d| (d.path.clone(), d.start_line, d.end_line))
            .collect();
        // Every declaration, each at its lines, in file order.
        prop_assert_eq!(&got, &want, "{}", src);

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("g.rs");
        std::fs::write(&file, &src).unwrap();
        let starts = outline::line_starts(src.as_bytes());
        for (i, d) in outline.decls.iter().enumerate() {
            let first = starts[d.start_line - 1];
            let end = starts.get(d.end_line).copied().unwrap_or(src.len());
            prop_assert_eq!((d.start_byte, d.end_byte), (first, end));
            let Some(name) = symbol::shortest_name(&outline, i) else {
                // The same path twice (two `impl T` blocks): the outline
                // offers lines, and the name is reported ambiguous, or it
                // means the one primary declaration of that very path (a
                // `struct T` beside its `impl T`, here in two `mod w`
                // blocks), as symbol.rs documents.
                let q = d.qualified();
                prop_assert!(!matches!(
                    symbol::find(&outline, &q, false),
                    Lookup::Found(j) if j != i
                        && (outline.decls[j].qualified() != q || outline.decls[j].kind == d.kind)
                ));
                continue;
            };
            let reading = ctx::read::read(&Request {
                path: file.clone(),
                shown: "g.rs".into(),
                mode: Mode::Symbol(name.clone()),
                anchors: false,
                fresh: false,
                session: None,
                home: Some(dir.path().to_path_buf()),
            }).unwrap();
            let span = &src.as_bytes()[d.start_byte..d.end_byte];
            prop_assert!(reading.bytes.starts_with(span), "symbol:{}", name);
            let tail = String::from_utf8_lossy(&reading.bytes[span.len()..]).into_owned();
            prop_assert!(tail.starts_with("[ctx] symbol ") && tail.lines().count() == 1, "{}", tail);
        }
    }
}
