//! Shims in front of real toolchains, through bash with stdout a pipe as
//! an agent runs commands: the program behind a shim must not be able to
//! tell it is there (gcc finds cc1, rustc its sysroot, pip builds a C
//! extension, cargo links), and a build's inner commands (rustc under
//! cargo, gcc under make) are never digested on their own: one digest
//! per command the reader ran. Uses gcc, g++, make, cargo, rustc, perl and
//! python3 from the machine; clang when it is installed. Cargo runs
//! offline with its target folder in the test's temporary directory.

use std::fs;
use std::path::Path;
use std::process::Output;

#[path = "shims/agent.rs"]
mod agent;

use agent::{Agent, on_path, text};

const HELLO_C: &str = "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n";

fn ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {:?}\nstdout: {}\nstderr: {}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn compilers_behind_a_shim_find_their_own_install() {
    let agent = Agent::empty();
    let mut compilers = vec!["cc", "gcc", "g++"];
    for optional in ["clang", "clang++"] {
        if on_path(optional) {
            compilers.push(optional);
        } else {
            eprintln!("{optional} not installed: not tested");
        }
    }
    let mut shimmed = compilers.clone();
    shimmed.push("rustc");
    agent.install(&shimmed);
    fs::write(agent.dir("work/hello.c"), HELLO_C).expect("hello.c");
    for cc in &compilers {
        let lang = if cc.ends_with("++") { "-x c++ " } else { "" };
        for cmd in [
            format!("{cc} {lang}hello.c -o hello && ./hello"),
            format!("{cc} {lang}hello.c -o hello | cat && ./hello | cat"),
            format!("CTX_DISABLE=1 {cc} {lang}hello.c -o hello && ./hello"),
        ] {
            let out = agent.bash(&cmd);
            ok(&out, &cmd);
            assert_eq!(text(&out.stdout), "hi\n", "{cmd}");
            assert_eq!(text(&out.stderr), "", "{cmd}");
        }
    }
    let cmd = "rustc --print sysroot | cat";
    let (out, raw) = (agent.bash(cmd), agent.bare(cmd));
    ok(&out, cmd);
    assert_eq!(text(&out.stdout), text(&raw.stdout));
}

/// Prints what a program can learn about itself.
const PROBE_C: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n < 0 ? 0 : n] = 0;
    printf("argv0=%s\nexe=%s\nPATH=%s\n", argv[0], exe, getenv("PATH"));
    return 0;
}
"#;

#[test]
fn the_program_sees_its_own_path_and_its_children_see_the_shims() {
    let agent = Agent::empty();
    let tools = agent.dir("tools");
    fs::write(agent.dir("work/probe.c"), PROBE_C).expect("probe.c");
    let out = agent.bare(&format!("gcc probe.c -o {}/probe", tools.display()));
    ok(&out, "gcc probe.c");
    agent.tool("other", "#!/bin/sh\necho other\n");
    agent.install(&["probe", "other"]);
    let (shims, probe) = (agent.dir("shims"), tools.join("probe"));
    let path = agent.path(&[&shims, &tools]);
    // The program's PATH: the shim folder's view without its own name, so
    // a lookup of its bare argv[0] finds the program itself while its
    // children still meet every other shim first.
    let view = shims.join(".ctx-view/probe");
    let seen_path = path.replacen(&shims.display().to_string(), &view.display().to_string(), 1);
    let want = format!("argv0=probe\nexe={}\nPATH={seen_path}\n", probe.display());
    for cmd in [
        "probe",
        "probe | cat",
        "CTX_DISABLE=1 probe",
        "x=$(probe); echo \"$x\"",
    ] {
        let out = agent.bash(cmd);
        ok(&out, cmd);
        assert_eq!(text(&out.stdout), want, "{cmd}");
    }
    assert!(view.join("other").exists() && !view.join("probe").exists());
    let out = agent.bash_with_path("command -v probe other", &seen_path);
    assert_eq!(
        text(&out.stdout),
        format!("{}\n{}\n", probe.display(), view.join("other").display())
    );
    // Called by a path, the program gets its own path.
    let cmd = format!("{}/probe | head -1", shims.display());
    let out = agent.bash(&cmd);
    assert_eq!(text(&out.stdout), format!("argv0={}\n", probe.display()));
}

#[test]
fn make_running_gcc_is_one_digest() {
    let agent = Agent::empty();
    agent.install(&["make", "cc", "gcc"]);
    // Two compilations with a warning each, one link.
    fs::write(
        agent.dir("work/a.c"),
        "int a(void) { int unused; return 1; }\n",
    )
    .expect("a.c");
    fs::write(
        agent.dir("work/main.c"),
        "#include <stdio.h>\nint a(void);\nint main(void) { int unused; printf(\"%d\\n\", a()); return 0; }\n",
    )
    .expect("main.c");
    fs::write(
        agent.dir("work/Makefile"),
        "app: a.o main.o\n\tcc -o app a.o main.o\n%.o: %.c\n\tgcc -Wall -c $< -o $@\n",
    )
    .expect("Makefile");
    let out = agent.bash("make && ./app");
    ok(&out, "make");
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(text(&out.stdout).ends_with("\n1\n"), "{all}");
    assert_eq!(all.matches("unused variable").count(), 2, "{all}");
    for inner in ["gcc:", "cc:", "[ctx] warning"] {
        assert!(!all.contains(inner), "{inner} digested inside make: {all}");
    }
    assert_eq!(agent.ledger_commands(), ["make"]);
    // Piped, the bytes are make's own.
    let cmd = "make clean-and-build 2>&1 | cat";
    fs::write(
        agent.dir("work/GNUmakefile"),
        "include Makefile\nclean-and-build:\n\trm -f *.o app\n\t$(MAKE) --no-print-directory app\n",
    )
    .expect("GNUmakefile");
    let (out, raw) = (agent.bash(cmd), agent.bare(cmd));
    ok(&out, cmd);
    assert_eq!(text(&out.stdout), text(&raw.stdout));
}

/// A crate with an unused variable (one warning from rustc).
fn warning_crate(dir: &Path) {
    fs::create_dir_all(dir.join("src")).expect("mkdir");
    fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"warny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    )
    .expect("Cargo.toml");
    fs::write(dir.join("src/main.rs"), "fn main() {\n    let x = 1;\n}\n").expect("main.rs");
}

/// cargo's output with its one volatile part, the duration, masked.
fn mask_durations(out: &str) -> String {
    out.lines()
        .map(|l| match l.find(" target(s) in ") {
            Some(at) => format!("{} target(s) in <T>", &l[..at]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn cargo_build_is_one_digest_and_piped_is_byte_identical() {
    let agent = Agent::empty();
    // The default set (cargo) plus rustc and cc by name: the worst case.
    agent.install(&[]);
    agent.install(&["rustc", "cc"]);
    warning_crate(&agent.dir("work"));
    let target = |n: &str| format!("CARGO_TARGET_DIR={} ", agent.dir(n).display());
    let build = "cargo build --offline --color never";

    let out = agent.bash(&format!("{}{build}", target("t1")));
    ok(&out, build);
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(all.contains("generated 1 warning"), "{all}");
    assert!(all.contains("unused variable: `x`"), "{all}");
    assert!(
        !all.contains("rustc:"),
        "rustc digested inside cargo: {all}"
    );
    assert!(!all.contains("[ctx] warning"), "{all}");
    let runs = agent.ledger_commands();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert!(runs[0].starts_with("cargo"), "{runs:?}");

    let piped = format!("{build} 2>&1 | cat");
    let out = agent.bash(&format!("{}{piped}", target("t2")));
    let raw = agent.bare(&format!("{}{piped}", target("t3")));
    ok(&out, &piped);
    assert_eq!(
        mask_durations(&text(&out.stdout)),
        mask_durations(&text(&raw.stdout))
    );
}

/// A build script that compiles C with `cc` from PATH and links it in, as
/// the `cc` crate does (called directly here so that the test needs no
/// download).
const BUILD_RS: &str = r#"use std::process::Command;
fn main() {
    let out = std::env::var("OUT_DIR").unwrap();
    let obj = format!("{out}/native.o");
    let ok = Command::new("cc").args(["-c", "native.c", "-o", &obj]).status().unwrap();
    assert!(ok.success(), "cc failed");
    let ok = Command::new("ar").args(["crs", &format!("{out}/libnative.a"), &obj]).status().unwrap();
    assert!(ok.success(), "ar failed");
    println!("cargo:rustc-link-search=native={out}");
    println!("cargo:rustc-link-lib=static=native");
    println!("cargo:rerun-if-changed=native.c");
}
"#;

#[test]
fn cargo_builds_and_links_a_c_dependency_through_shims() {
    let agent = Agent::empty();
    agent.install(&["cargo", "rustc", "cc", "gcc"]);
    let work = agent.dir("work");
    fs::create_dir_all(work.join("src")).expect("mkdir");
    fs::write(
        work.join("Cargo.toml"),
        "[package]\nname = \"withc\"\nversion = \"0.1.0\"\nedition = \"2021\"\nbuild = \"build.rs\"\n",
    )
    .expect("Cargo.toml");
    fs::write(work.join("build.rs"), BUILD_RS).expect("build.rs");
    fs::write(
        work.join("native.c"),
        "int native_answer(void) { return 42; }\n",
    )
    .expect("c");
    fs::write(
        work.join("src/main.rs"),
        "extern \"C\" {\n    fn native_answer() -> i32;\n}\nfn main() {\n    println!(\"{}\", unsafe { native_answer() });\n}\n",
    )
    .expect("main.rs");
    let cmd = format!(
        "CARGO_TARGET_DIR={} cargo run --offline --quiet",
        agent.dir("target").display()
    );
    let out = agent.bash(&cmd);
    ok(&out, &cmd);
    assert_eq!(text(&out.stdout), "42\n");
}

/// A PEP 517 backend that needs nothing but setuptools (no `wheel`
/// package, no network): setuptools compiles the extension with the
/// machine's C compiler, as for any package with C code; the wheel is
/// zipped here.
const BACKEND_PY: &str = r#"import base64, hashlib, os, zipfile
from setuptools import Distribution, Extension
from setuptools.command.build_ext import build_ext

NAME, VERSION = "hello_ext", "0.1"

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist = Distribution({"name": NAME, "ext_modules": [Extension(NAME, ["hello_ext.c"])]})
    cmd = build_ext(dist)
    cmd.build_lib, cmd.build_temp = "build/lib", "build/tmp"
    cmd.ensure_finalized()
    cmd.run()
    files = {}
    for so in cmd.get_outputs():
        with open(so, "rb") as f:
            files[os.path.basename(so)] = f.read()
    info = f"{NAME}-{VERSION}.dist-info"
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: backend\nRoot-Is-Purelib: false\nTag: py3-none-any\n"
    record = ""
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += f"{path},sha256={digest},{len(data)}\n"
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    wheel = f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
    return wheel
"#;

const HELLO_EXT_C: &str = r#"#include <Python.h>
static PyObject *answer(PyObject *self, PyObject *args) { return PyLong_FromLong(42); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, "42"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "hello_ext", NULL, -1, methods};
PyMODINIT_FUNC PyInit_hello_ext(void) { return PyModule_Create(&mod); }
"#;

#[test]
fn pip_builds_a_c_extension_through_shims() {
    let agent = Agent::empty();
    let probe = agent.bare("python3 -c 'import setuptools, pip' 2>/dev/null");
    if !probe.status.success() {
        eprintln!("python3 with pip and setuptools not installed: not tested");
        return;
    }
    agent.install(&["cc", "gcc"]);
    let pkg = agent.dir("work/pkg");
    fs::create_dir_all(&pkg).expect("mkdir");
    fs::write(
        pkg.join("pyproject.toml"),
        "[build-system]\nrequires = []\nbuild-backend = \"backend\"\nbackend-path = [\".\"]\n",
    )
    .expect("pyproject");
    fs::write(pkg.join("backend.py"), BACKEND_PY).expect("backend");
    fs::write(pkg.join("hello_ext.c"), HELLO_EXT_C).expect("c");
    let site = agent.dir("site");
    let cmd = format!(
        "python3 -m pip install --no-build-isolation --no-deps --no-index --disable-pip-version-check \
         --target {} ./pkg && PYTHONPATH={} python3 -c 'import hello_ext; print(hello_ext.answer())'",
        site.display(),
        site.display()
    );
    let out = agent.bash(&cmd);
    ok(&out, "pip install");
    assert!(text(&out.stdout).ends_with("42\n"), "{}", text(&out.stdout));
}
