//! Embeds the sources of `protocols/` (forty's host, gun-duel's C++
//! adapter, their READMEs and examples) into the referee, so that
//! `{protocols}` in instructions.txt and bot.toml works wherever the
//! tournament folder and the binary are (`src/protocols.rs`).
//!
//! Only sources are taken: files with one of [`SOURCES`]' extensions, none
//! hidden or in `__pycache__`. What a checkout adds by using the folder (a
//! built example player, Python's bytecode) would otherwise change the
//! embedded tree, and with it the hash that names its copy on disk.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The extensions of the files embedded.
const SOURCES: &[&str] = &[
    "py", "cpp", "hpp", "h", "c", "md", "toml", "txt", "js", "java", "sh",
];

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let protocols = root.join("protocols");
    // Cargo rescans the whole tree for this: a file added, edited or
    // removed anywhere under it rebuilds the list.
    println!("cargo:rerun-if-changed=protocols");
    let mut files = Vec::new();
    collect(&protocols, &protocols, &mut files);
    files.sort();
    let mut out = String::from(
        "/// The embedded files of `protocols/`: path relative to it, content,\n\
         /// whether it is executable. Sorted by path.\n\
         pub static FILES: &[(&str, &[u8], bool)] = &[\n",
    );
    for (rel, abs, executable) in &files {
        writeln!(
            out,
            "    ({rel:?}, include_bytes!({:?}), {executable}),",
            abs.display().to_string()
        )
        .expect("writing to a String");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    std::fs::write(dest.join("protocols.rs"), out).expect("OUT_DIR is writable");
}

/// The source files under `dir`, as (path relative to `root` with `/`,
/// absolute path, executable).
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf, bool)>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "__pycache__" {
            continue;
        }
        let meta = std::fs::metadata(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if meta.is_dir() {
            collect(root, &path, out);
            continue;
        }
        let source = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| SOURCES.contains(&e));
        if !meta.is_file() || !source {
            continue;
        }
        let rel = path
            .strip_prefix(root)
            .expect("collected under root")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        use std::os::unix::fs::PermissionsExt;
        let executable = meta.permissions().mode() & 0o111 != 0;
        out.push((rel, path, executable));
    }
}
