//! Embeds every `contracts/*.toml` in the binary, so a contract is found by
//! its family name with no registration code.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new("contracts");
    println!("cargo:rerun-if-changed=contracts");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("contracts/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    let mut out = String::from("/// (file name, contents) of every embedded contract.\n");
    out.push_str("pub static EMBEDDED: &[(&str, &str)] = &[\n");
    for name in &names {
        println!("cargo:rerun-if-changed=contracts/{name}");
        let path = std::fs::canonicalize(dir.join(name)).expect("contract path");
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("contracts.rs");
    std::fs::write(dest, out).expect("write contracts.rs");
}
