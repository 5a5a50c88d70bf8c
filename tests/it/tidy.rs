//! Tidy checks: ARCHITECTURE.md's codemap matches the tree, the game
//! crates stay pure, and source files stay short.
//!
//! The codemap is the first ```` ``` ```` block after the `## Codemap`
//! heading of ARCHITECTURE.md. Its paths are recognised like this (the
//! document states the same rule next to the block):
//! - a line with any text in its first [`DESCRIPTION_COLUMN`] characters is
//!   an *entry*, and its first word (up to the first space) is a path; a
//!   line that is blank there continues the description of the entry above;
//! - a path ending in `/` is a folder; an entry indented two spaces deeper
//!   than a folder entry lies in that folder, and its full path is the
//!   folder's followed by its own (an entry indented more than one level
//!   deeper than the last folder is an error);
//! - full paths are relative to the repository root.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where descriptions start in a codemap line: text before this column
/// makes the line an entry.
const DESCRIPTION_COLUMN: usize = 24;

/// Longest `.rs` file under `src/`, in lines.
const MAX_LINES: usize = 800;

/// What a game crate (`games/*` but `games/core`) may depend on.
const GAME_DEPENDENCIES: &[&str] = &["game-core", "rand", "rand_chacha", "serde"];
/// What `games/core` may depend on.
const CORE_DEPENDENCIES: &[&str] = &["rand", "rand_chacha", "serde"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One codemap entry: its full path and the line of ARCHITECTURE.md.
#[derive(Debug)]
struct Entry {
    path: String,
    line: usize,
}

/// The codemap entries of `text` (ARCHITECTURE.md), by the rule above.
fn codemap(text: &str) -> Result<Vec<Entry>, String> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    lines
        .by_ref()
        .find(|(_, l)| l.trim_end() == "## Codemap")
        .ok_or("ARCHITECTURE.md has no `## Codemap` heading")?;
    lines
        .by_ref()
        .find(|(_, l)| l.starts_with("```"))
        .ok_or("ARCHITECTURE.md's codemap has no ``` block")?;
    let mut entries = Vec::new();
    // The folders that enclose the current line: `folders[d]` is the folder
    // entry at depth d.
    let mut folders: Vec<String> = Vec::new();
    let mut closed = false;
    for (n, line) in lines {
        if line.starts_with("```") {
            closed = true;
            break;
        }
        let head: String = line.chars().take(DESCRIPTION_COLUMN).collect();
        if head.trim().is_empty() {
            continue; // a description's continuation, or a blank line
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent % 2 != 0 {
            return Err(format!("ARCHITECTURE.md:{n}: odd indentation"));
        }
        let depth = indent / 2;
        if depth > folders.len() {
            return Err(format!(
                "ARCHITECTURE.md:{n}: indented deeper than inside the folder above \
                 (a description's next line is blank in its first {DESCRIPTION_COLUMN} characters)"
            ));
        }
        folders.truncate(depth);
        let name = line.split_whitespace().next().unwrap_or_default();
        if name.starts_with('/') || name.split('/').any(|part| part == "..") {
            return Err(format!(
                "ARCHITECTURE.md:{n}: `{name}` is not a relative path"
            ));
        }
        let path = format!("{}{name}", folders.last().map_or("", String::as_str));
        if name.ends_with('/') {
            folders.push(path.clone());
        }
        entries.push(Entry { path, line: n });
    }
    if !closed {
        return Err("ARCHITECTURE.md's codemap block is not closed".into());
    }
    Ok(entries)
}

fn architecture_codemap() -> Vec<Entry> {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    codemap(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// Fails with every problem at once, one per line.
fn assert_none(problems: Vec<String>, what: &str) {
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
}

#[test]
fn codemap_lists_every_path_once() {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    let entries = architecture_codemap();
    for e in &entries {
        if let Some(first) = seen.insert(&e.path, e.line) {
            problems.push(format!(
                "ARCHITECTURE.md:{}: `{}` is already listed on line {first}",
                e.line, e.path
            ));
        }
    }
    assert_none(problems, "codemap paths listed twice");
}

#[test]
fn codemap_paths_exist() {
    let problems = architecture_codemap()
        .iter()
        .filter(|e| {
            let on_disk = root().join(&e.path);
            if e.path.ends_with('/') {
                !on_disk.is_dir()
            } else {
                !on_disk.is_file()
            }
        })
        .map(|e| format!("ARCHITECTURE.md:{}: `{}` does not exist", e.line, e.path))
        .collect();
    assert_none(problems, "codemap paths missing from the tree");
}

/// The entries of `dir` (relative to the root) as root-relative paths,
/// folders ending in `/`, sorted.
fn children(dir: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().unwrap().is_dir() {
                format!("{dir}{name}/")
            } else {
                format!("{dir}{name}")
            }
        })
        .collect();
    out.sort();
    out
}

#[test]
fn codemap_lists_every_module() {
    let listed: Vec<String> = architecture_codemap().into_iter().map(|e| e.path).collect();
    // Every .rs file directly under src/ and every folder under src/ and
    // src/challenges/; every file of a challenge folder.
    let mut required: Vec<String> = children("src/")
        .into_iter()
        .filter(|p| p.ends_with('/') || p.ends_with(".rs"))
        .collect();
    for challenge in children("src/challenges/") {
        if challenge.ends_with('/') {
            required.extend(children(&challenge));
        }
        required.push(challenge);
    }
    let problems = required
        .into_iter()
        .filter(|p| !listed.contains(p))
        .map(|p| format!("`{p}` is not in ARCHITECTURE.md's codemap"))
        .collect();
    assert_none(problems, "modules missing from the codemap");
}

/// The names of the packages a manifest depends on in every table that
/// ships with the crate: `[dependencies]`, `[build-dependencies]` and their
/// `[target.*.…]` forms (`[dev-dependencies]` are free). A renamed
/// dependency counts under its `package` name.
fn shipped_dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let doc: toml::Table =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let mut tables: Vec<&toml::Table> = Vec::new();
    let kinds = ["dependencies", "build-dependencies"];
    for kind in kinds {
        tables.extend(doc.get(kind).and_then(toml::Value::as_table));
    }
    if let Some(targets) = doc.get("target").and_then(toml::Value::as_table) {
        for target in targets.values().filter_map(toml::Value::as_table) {
            for kind in kinds {
                tables.extend(target.get(kind).and_then(toml::Value::as_table));
            }
        }
    }
    let mut names: Vec<String> = tables
        .iter()
        .flat_map(|t| t.iter())
        .map(|(key, spec)| {
            spec.get("package")
                .and_then(toml::Value::as_str)
                .unwrap_or(key)
                .to_string()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn game_crates_depend_only_on_pure_crates() {
    let mut problems = Vec::new();
    let mut crates = 0;
    for dir in children("games/") {
        let manifest = root().join(&dir).join("Cargo.toml");
        if !manifest.is_file() {
            continue;
        }
        crates += 1;
        let allowed = if dir == "games/core/" {
            CORE_DEPENDENCIES
        } else {
            GAME_DEPENDENCIES
        };
        for dep in shipped_dependencies(&manifest) {
            if !allowed.contains(&dep.as_str()) {
                problems.push(format!(
                    "{dir}Cargo.toml depends on `{dep}`; a game crate may use only {}",
                    allowed.join(", ")
                ));
            }
        }
    }
    assert!(crates >= 2, "no game crates found under games/");
    assert_none(problems, "impure game crates");
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn source_files_are_short() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    files.sort();
    let problems = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (lines > MAX_LINES).then(|| {
                format!(
                    "{}: {lines} lines (at most {MAX_LINES}; split it)",
                    f.strip_prefix(root()).unwrap_or(f).display()
                )
            })
        })
        .collect();
    assert_none(problems, "source files too long");
}

/// The relative links (`](target)`) of a Markdown text, without anchors.
fn relative_links(text: &str) -> Vec<&str> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|target| target.split('#').next().unwrap_or_default())
        .filter(|target| !target.is_empty() && !target.contains("://"))
        .collect()
}

#[test]
fn architecture_and_decision_links_resolve() {
    let mut docs = vec![PathBuf::from("ARCHITECTURE.md")];
    docs.extend(
        children("docs/decisions/")
            .into_iter()
            .filter(|p| p.ends_with(".md"))
            .map(PathBuf::from),
    );
    let mut problems = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        let dir = root().join(doc.parent().unwrap_or(Path::new("")));
        for target in relative_links(&text) {
            if !dir.join(target).exists() {
                problems.push(format!(
                    "{}: link to `{target}` leads nowhere",
                    doc.display()
                ));
            }
        }
    }
    assert_none(problems, "broken links");
}

#[test]
fn the_codemap_rule_reads_nested_entries() {
    let text = "\
## Codemap

```text
top.rs                  a file
dir/                    a folder whose description
                        goes on here.
  inner.rs              in dir/
  sub/
    deep.rs
  next.rs               in dir/ again
other/
```
after.rs                not in the codemap
";
    let paths: Vec<String> = codemap(text).unwrap().into_iter().map(|e| e.path).collect();
    assert_eq!(
        paths,
        [
            "top.rs",
            "dir/",
            "dir/inner.rs",
            "dir/sub/",
            "dir/sub/deep.rs",
            "dir/next.rs",
            "other/"
        ]
    );
    let too_deep = "## Codemap\n```\nfile.rs\n  inner.rs\n```\n";
    assert!(codemap(too_deep).is_err());
    let unclosed = "## Codemap\n```\nfile.rs\n";
    assert!(codemap(unclosed).is_err());
}
