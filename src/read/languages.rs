//! Which grammar reads a file, and which of its syntax nodes are
//! declarations.
//!
//! One row per language: the file names it claims, the tree-sitter grammar
//! (from the published grammar crates), the node kinds that are
//! declarations (what an outline lists) and the node kinds that wrap a
//! declaration without being one (Python's `decorated_definition`, an
//! `export` statement, a C++ template): a wrapper's start is the
//! declaration's start, so `symbol:` returns the decorator or the `export`
//! keyword too. Data languages (JSON, YAML, TOML) list keys only to a
//! depth, or a lock file's outline would be as long as the file.

use std::path::Path;

/// What kind of thing a declaration is; the outline prints it only where
/// the signature does not say it already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Holds other declarations: modules, namespaces, types with members,
    /// `impl` blocks, Markdown sections, tables and objects.
    Container,
    /// A leaf: functions, methods, type aliases, constants, keys.
    Leaf,
}

/// One kind of declaration node.
#[derive(Debug, Clone, Copy)]
pub struct DeclKind {
    pub kind: &'static str,
    pub role: Role,
}

const fn c(kind: &'static str) -> DeclKind {
    DeclKind {
        kind,
        role: Role::Container,
    }
}

const fn l(kind: &'static str) -> DeclKind {
    DeclKind {
        kind,
        role: Role::Leaf,
    }
}

/// A language ctx reads through a syntax tree.
pub struct Grammar {
    /// The name printed in a view's header and used in tests.
    pub name: &'static str,
    /// File extensions (lower case, no dot) and exact file names it claims.
    pub extensions: &'static [&'static str],
    pub file_names: &'static [&'static str],
    language: fn() -> tree_sitter::Language,
    pub decls: &'static [DeclKind],
    /// Node kinds whose only purpose is to wrap one declaration.
    pub wrappers: &'static [&'static str],
    /// Node kinds with no declaration anywhere inside (a Rust macro's
    /// token tree is tokens, never items): the outline's walk does not
    /// enter them, which spares it a large share of a file's nodes.
    pub opaque: &'static [&'static str],
    /// How deep declarations nest before the outline stops listing them
    /// (data languages); `None` for code.
    pub depth: Option<usize>,
    /// Whether `signatures` can tell public from private in this
    /// language; when it cannot, `signatures` is the outline and says so.
    pub has_visibility: bool,
}

impl Grammar {
    pub fn language(&self) -> tree_sitter::Language {
        (self.language)()
    }

    pub fn decl(&self, kind: &str) -> Option<&DeclKind> {
        self.decls.iter().find(|d| d.kind == kind)
    }
}

/// Every grammar, in no particular order.
pub static GRAMMARS: &[Grammar] = &[
    Grammar {
        name: "rust",
        extensions: &["rs"],
        file_names: &[],
        language: || tree_sitter_rust::LANGUAGE.into(),
        decls: &[
            c("mod_item"),
            c("impl_item"),
            c("trait_item"),
            l("struct_item"),
            l("enum_item"),
            l("union_item"),
            l("type_item"),
            l("const_item"),
            l("static_item"),
            l("function_item"),
            l("function_signature_item"),
            l("macro_definition"),
        ],
        wrappers: &[],
        opaque: &["token_tree"],
        depth: None,
        has_visibility: true,
    },
    Grammar {
        name: "python",
        extensions: &["py", "pyi", "pyw"],
        file_names: &[],
        language: || tree_sitter_python::LANGUAGE.into(),
        decls: &[c("class_definition"), l("function_definition")],
        wrappers: &["decorated_definition"],
        opaque: &[],
        depth: None,
        has_visibility: true,
    },
    Grammar {
        name: "typescript",
        extensions: &["ts", "mts", "cts"],
        file_names: &[],
        language: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        decls: TS_DECLS,
        wrappers: JS_WRAPPERS,
        opaque: &[],
        depth: None,
        has_visibility: true,
    },
    Grammar {
        name: "tsx",
        extensions: &["tsx"],
        file_names: &[],
        language: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        decls: TS_DECLS,
        wrappers: JS_WRAPPERS,
        opaque: &[],
        depth: None,
        has_visibility: true,
    },
    Grammar {
        name: "javascript",
        extensions: &["js", "mjs", "cjs", "jsx"],
        file_names: &[],
        language: || tree_sitter_javascript::LANGUAGE.into(),
        decls: JS_DECLS,
        wrappers: JS_WRAPPERS,
        opaque: &[],
        depth: None,
        has_visibility: true,
    },
    Grammar {
        name: "go",
        extensions: &["go"],
        file_names: &[],
        language: || tree_sitter_go::LANGUAGE.into(),
        decls: &[
            l("function_declaration"),
            l("method_declaration"),
            l("type_spec"),
            l("type_alias"),
        ],
        wrappers: &["type_declaration"],
        opaque: &[],
        depth: None,
        has_visibility: true,
    },
    Grammar {
        name: "java",
        extensions: &["java"],
        file_names: &[],
        language: || tree_sitter_java::LANGUAGE.into(),
        decls: &[
            c("class_declaration"),
            c("interface_declaration"),
            c("enum_declaration"),
            c("record_declaration"),
            c("annotation_type_declaration"),
            l("method_declaration"),
            l("constructor_declaration"),
        ],
        wrappers: &[],
        opaque: &[],
        depth: None,
        has_visibility: true,
    },
    Grammar {
        name: "c",
        extensions: &["c", "h"],
        file_names: &[],
        language: || tree_sitter_c::LANGUAGE.into(),
        decls: &[
            l("function_definition"),
            l("declaration"),
            l("struct_specifier"),
            l("union_specifier"),
            l("enum_specifier"),
            l("type_definition"),
            l("preproc_function_def"),
        ],
        wrappers: &[],
        opaque: &[],
        depth: None,
        has_visibility: true,
    },
    Grammar {
        name: "cpp",
        extensions: &["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp"],
        file_names: &[],
        language: || tree_sitter_cpp::LANGUAGE.into(),
        decls: &[
            c("namespace_definition"),
            c("class_specifier"),
            c("struct_specifier"),
            l("union_specifier"),
            l("enum_specifier"),
            l("function_definition"),
            l("declaration"),
            l("field_declaration"),
            l("type_definition"),
            l("alias_declaration"),
            l("preproc_function_def"),
        ],
        wrappers: &["template_declaration"],
        opaque: &[],
        depth: None,
        has_visibility: false,
    },
    Grammar {
        name: "csharp",
        extensions: &["cs"],
        file_names: &[],
        language: || tree_sitter_c_sharp::LANGUAGE.into(),
        decls: &[
            c("namespace_declaration"),
            c("file_scoped_namespace_declaration"),
            c("class_declaration"),
            c("struct_declaration"),
            c("interface_declaration"),
            c("record_declaration"),
            l("enum_declaration"),
            l("delegate_declaration"),
            l("method_declaration"),
            l("constructor_declaration"),
            l("property_declaration"),
        ],
        wrappers: &[],
        opaque: &[],
        depth: None,
        has_visibility: true,
    },
    Grammar {
        name: "ruby",
        extensions: &["rb", "rake", "gemspec"],
        file_names: &["Rakefile", "Gemfile"],
        language: || tree_sitter_ruby::LANGUAGE.into(),
        decls: &[
            c("module"),
            c("class"),
            c("singleton_class"),
            l("method"),
            l("singleton_method"),
        ],
        wrappers: &[],
        opaque: &[],
        depth: None,
        has_visibility: false,
    },
    Grammar {
        name: "php",
        extensions: &["php", "phtml"],
        file_names: &[],
        language: || tree_sitter_php::LANGUAGE_PHP.into(),
        decls: &[
            c("namespace_definition"),
            c("class_declaration"),
            c("interface_declaration"),
            c("trait_declaration"),
            c("enum_declaration"),
            l("function_definition"),
            l("method_declaration"),
        ],
        wrappers: &[],
        opaque: &[],
        depth: None,
        has_visibility: true,
    },
    Grammar {
        name: "bash",
        extensions: &["sh", "bash", "zsh"],
        file_names: &[".bashrc", ".profile", ".bash_profile"],
        language: || tree_sitter_bash::LANGUAGE.into(),
        decls: &[l("function_definition")],
        wrappers: &[],
        opaque: &[],
        depth: None,
        has_visibility: false,
    },
    Grammar {
        name: "json",
        extensions: &["json", "jsonc", "geojson", "webmanifest"],
        file_names: &[".eslintrc", ".babelrc"],
        language: || tree_sitter_json::LANGUAGE.into(),
        decls: &[c("pair")],
        wrappers: &[],
        opaque: &[],
        depth: Some(2),
        has_visibility: false,
    },
    Grammar {
        name: "yaml",
        extensions: &["yaml", "yml"],
        file_names: &[],
        language: || tree_sitter_yaml::LANGUAGE.into(),
        decls: &[c("block_mapping_pair")],
        wrappers: &[],
        opaque: &[],
        depth: Some(2),
        has_visibility: false,
    },
    Grammar {
        name: "toml",
        extensions: &["toml"],
        file_names: &["Cargo.lock", "Pipfile"],
        language: || tree_sitter_toml_ng::LANGUAGE.into(),
        decls: &[c("table"), c("table_array_element"), l("pair")],
        wrappers: &[],
        opaque: &[],
        depth: Some(2),
        has_visibility: false,
    },
    Grammar {
        name: "markdown",
        extensions: &["md", "markdown", "mdx"],
        file_names: &[],
        language: || tree_sitter_md::LANGUAGE.into(),
        decls: &[c("section")],
        wrappers: &[],
        opaque: &[],
        depth: None,
        has_visibility: false,
    },
    Grammar {
        name: "html",
        extensions: &["html", "htm", "xhtml"],
        file_names: &[],
        language: || tree_sitter_html::LANGUAGE.into(),
        decls: &[c("element"), l("script_element"), l("style_element")],
        wrappers: &[],
        opaque: &[],
        depth: None,
        has_visibility: false,
    },
    Grammar {
        name: "css",
        extensions: &["css"],
        file_names: &[],
        language: || tree_sitter_css::LANGUAGE.into(),
        decls: &[
            l("rule_set"),
            c("media_statement"),
            c("supports_statement"),
            l("keyframes_statement"),
            l("import_statement"),
        ],
        wrappers: &[],
        opaque: &[],
        depth: None,
        has_visibility: false,
    },
];

const JS_DECLS: &[DeclKind] = &[
    c("class_declaration"),
    c("class"),
    l("function_declaration"),
    l("generator_function_declaration"),
    l("method_definition"),
    l("variable_declarator"),
];

/// TypeScript's declarations: JavaScript's and its types, namespaces and
/// signatures.
const TS_DECLS: &[DeclKind] = &[
    c("class_declaration"),
    c("abstract_class_declaration"),
    c("class"),
    c("internal_module"),
    c("module"),
    c("interface_declaration"),
    l("function_declaration"),
    l("generator_function_declaration"),
    l("function_signature"),
    l("method_definition"),
    l("method_signature"),
    l("abstract_method_signature"),
    l("type_alias_declaration"),
    l("enum_declaration"),
    l("variable_declarator"),
];

const JS_WRAPPERS: &[&str] = &[
    "export_statement",
    "lexical_declaration",
    "variable_declaration",
];

/// The grammar for `path`, by extension or exact file name.
pub fn for_path(path: &Path) -> Option<&'static Grammar> {
    let file_name = path.file_name()?.to_str()?;
    if let Some(g) = GRAMMARS.iter().find(|g| g.file_names.contains(&file_name)) {
        return Some(g);
    }
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    GRAMMARS
        .iter()
        .find(|g| g.extensions.contains(&ext.as_str()))
}

/// A grammar by its name (`rust`, `tsx`).
pub fn by_name(name: &str) -> Option<&'static Grammar> {
    GRAMMARS.iter().find(|g| g.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each grammar's ABI is one this tree-sitter reads: a grammar crate
    /// generated by a newer or much older CLI fails here, not in a read.
    #[test]
    fn every_grammar_loads_into_the_parser() {
        for g in GRAMMARS {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&g.language())
                .unwrap_or_else(|e| panic!("{}: {e}", g.name));
            let abi = g.language().abi_version();
            assert!(
                (tree_sitter::MIN_COMPATIBLE_LANGUAGE_VERSION..=tree_sitter::LANGUAGE_VERSION)
                    .contains(&abi),
                "{}: ABI {abi}",
                g.name
            );
        }
    }

    /// Every declaration kind named in the table exists in its grammar:
    /// a typo would silently drop a kind of declaration from outlines.
    #[test]
    fn every_declared_kind_is_a_node_of_its_grammar() {
        for g in GRAMMARS {
            let lang = g.language();
            for d in g.decls {
                assert!(
                    lang.id_for_node_kind(d.kind, true) != 0,
                    "{}: no node kind {}",
                    g.name,
                    d.kind
                );
            }
            for w in g.wrappers {
                assert!(
                    lang.id_for_node_kind(w, true) != 0,
                    "{}: no node kind {w}",
                    g.name
                );
            }
        }
    }

    #[test]
    fn paths_find_their_grammar() {
        let name = |p: &str| for_path(Path::new(p)).map(|g| g.name);
        assert_eq!(name("src/a.rs"), Some("rust"));
        assert_eq!(name("A.TSX"), Some("tsx"));
        assert_eq!(name("Cargo.lock"), Some("toml"));
        assert_eq!(name("x.unknown"), None);
        assert_eq!(name("Makefile"), None);
    }
}
