//! The PATH a real program runs with behind its shim.
//!
//! A program that looks itself up on PATH by its bare argv[0] (gcc finds
//! cc1 that way, Python its `sys.executable`, make its `$(MAKE)`) must
//! find itself, not the shim: else it follows the link to the ctx binary
//! and looks for its install next to it. Its children must still find the
//! other shims first (a shimmed `make` running `pytest`).
//!
//! So each shim folder `D` holds one *view* per shim, `D/.ctx-view/NAME/`:
//! links to ctx for every shim of `D` but NAME. When the shim for NAME
//! execs the real program, every PATH entry that is `D` (or another view
//! of `D`) becomes `D/.ctx-view/NAME`. argv[0] stays as the shell passed
//! it, and a PATH search for it now ends at the real program, exactly as
//! it would without ctx. Views are rebuilt by every `ctx shims install`
//! and removed by `uninstall`.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use super::locate;

/// The folder of views inside a shim folder.
pub const VIEWS: &str = ".ctx-view";

/// Rebuilds `dir/.ctx-view` for the shims `names` of `dir`: one folder per
/// name holding a link to `ctx` for every other name.
pub fn rebuild(dir: &Path, names: &[String], ctx: &Path) -> io::Result<()> {
    remove(dir, ctx)?;
    if names.is_empty() {
        return Ok(());
    }
    let views = dir.join(VIEWS);
    for name in names {
        let view = views.join(name);
        std::fs::create_dir_all(&view)?;
        for other in names.iter().filter(|o| *o != name) {
            symlink(ctx, view.join(other))?;
        }
    }
    Ok(())
}

/// Removes `dir/.ctx-view`: only links to a ctx binary and the folders
/// they leave empty; anything else stays (and keeps its folder).
pub fn remove(dir: &Path, ctx: &Path) -> io::Result<()> {
    let views = dir.join(VIEWS);
    let entries = match std::fs::read_dir(&views) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for view in entries.filter_map(Result::ok) {
        let view = view.path();
        if let Ok(links) = std::fs::read_dir(&view) {
            for link in links.filter_map(Result::ok) {
                let link = link.path();
                let ours = std::fs::read_link(&link)
                    .is_ok_and(|t| t == ctx || t.file_name().is_some_and(|n| n == "ctx"));
                if ours {
                    std::fs::remove_file(&link)?;
                }
            }
        }
        let _ = std::fs::remove_dir(&view);
    }
    let _ = std::fs::remove_dir(&views);
    Ok(())
}

/// The view of shim folder `dir` for `name`, when it was built.
pub fn view_of(dir: &Path, name: &OsStr) -> Option<PathBuf> {
    let view = dir.join(VIEWS).join(name);
    view.is_dir().then_some(view)
}

/// `path` with every shim folder that holds a shim for `name` replaced by
/// its view for `name`, and every view of another name put back to its
/// folder. `None` when some shim folder for `name` has no view (a folder
/// made by hand, or by an older ctx): the caller then gives the program
/// its full path as argv[0] instead.
pub fn path_for(name: &OsStr, path: &OsStr, ctx: &Path) -> Option<OsString> {
    let mut out: Vec<u8> = Vec::with_capacity(path.len() + 32);
    for (i, entry) in path.as_bytes().split(|&b| b == b':').enumerate() {
        if i > 0 {
            out.push(b':');
        }
        if entry.is_empty() {
            continue;
        }
        let entry = Path::new(OsStr::from_bytes(entry));
        let base = folder_of_view(entry).unwrap_or(entry);
        let shimmed = locate::is_ctx(&base.join(name), ctx);
        let chosen = if shimmed {
            view_of(base, name)?
        } else {
            base.to_path_buf()
        };
        out.extend_from_slice(chosen.as_os_str().as_bytes());
    }
    Some(OsString::from_vec(out))
}

/// `D` for `D/.ctx-view/NAME`.
fn folder_of_view(entry: &Path) -> Option<&Path> {
    let parent = entry.parent()?;
    if parent.file_name()? == VIEWS {
        parent.parent()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn each_program_sees_every_shim_but_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let ctx = root.join("ctx");
        std::fs::write(&ctx, "").unwrap();
        std::fs::set_permissions(&ctx, std::fs::Permissions::from_mode(0o755)).unwrap();
        let shims = root.join("shims");
        std::fs::create_dir(&shims).unwrap();
        let names: Vec<String> = ["make", "pytest"].map(String::from).to_vec();
        for n in &names {
            symlink(&ctx, shims.join(n)).unwrap();
        }
        rebuild(&shims, &names, &ctx).unwrap();
        let path = format!("{}:/usr/bin::{}", shims.display(), shims.display());
        let make_view = shims.join(".ctx-view/make");
        let got = path_for(OsStr::new("make"), OsStr::new(&path), &ctx).unwrap();
        assert_eq!(
            got,
            OsString::from(format!(
                "{}:/usr/bin::{}",
                make_view.display(),
                make_view.display()
            ))
        );
        assert!(make_view.join("pytest").exists() && !make_view.join("make").exists());
        // pytest run by the real make: make's view becomes pytest's.
        let got = path_for(OsStr::new("pytest"), &got, &ctx).unwrap();
        let pytest_view = shims.join(".ctx-view/pytest");
        assert!(
            got.to_string_lossy()
                .starts_with(&*pytest_view.to_string_lossy())
        );
        // A command with no shim gets the whole folders back.
        let got = path_for(OsStr::new("ls"), &got, &ctx).unwrap();
        assert_eq!(got, OsString::from(&path));
        // No view for a shim: no PATH for it.
        remove(&shims, &ctx).unwrap();
        assert!(!shims.join(VIEWS).exists());
        assert_eq!(path_for(OsStr::new("make"), OsStr::new(&path), &ctx), None);
    }
}
