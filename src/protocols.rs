//! The referee's own copy of `protocols/` (forty's Python host, gun-duel's
//! C++ adapter, their examples), and the `{protocols}` placeholder that
//! names it in instructions.txt and bot.toml.
//!
//! A tournament folder copied away from the repository must still find
//! those files, so the referee carries them (embedded by `build.rs`) and
//! writes them out, on first use, to a folder of its own named by their
//! content hash: two referees of different versions never share one, and
//! two of the same version write the same bytes (each file by rename, so
//! a reader never sees half of one). Every use checks the files against
//! the embedded ones and rewrites any that differ.
//!
//! The commands keep `{protocols}` as written: what is stored with the
//! results names no machine's path, and [`versioned`] puts the hash of the
//! files a command names into a bot's identity instead, so a referee whose
//! host or adapter changed replays the games that used them.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

include!(concat!(env!("OUT_DIR"), "/protocols.rs"));

/// What stands for the folder in a command, a `run` or a `build` line.
pub const PLACEHOLDER: &str = "{protocols}";

/// Whether `text` names the folder.
pub fn uses(text: &str) -> bool {
    text.contains(PLACEHOLDER)
}

/// The first 16 hex digits of the BLAKE3 hash of the embedded files (paths,
/// modes and contents): the name of their copy on disk.
pub fn hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| subtree_hash(""))
}

/// [`hash`] of the embedded files at or under `rel` (all of them for "").
fn subtree_hash(rel: &str) -> String {
    let mut h = blake3::Hasher::new();
    let under = |path: &str| {
        rel.is_empty()
            || path == rel
            || path
                .strip_prefix(rel)
                .is_some_and(|inner| inner.starts_with('/'))
    };
    for (path, content, executable) in FILES.iter().filter(|(p, _, _)| under(p)) {
        h.update(&(path.len() as u64).to_le_bytes());
        h.update(path.as_bytes());
        h.update(&[u8::from(*executable)]);
        h.update(&(content.len() as u64).to_le_bytes());
        h.update(content);
    }
    h.finalize().to_hex()[..16].to_string()
}

/// `text` with each placeholder naming the version of what the path after
/// it names (`{protocols:HASH}/forty/forty_host.py`, the hash of that file;
/// of the whole folder for a folder): what a bot's identity and a build's
/// cache key are made of, so they change with those files (not with a
/// README beside them) and not with where the copy lies.
pub fn versioned(text: &str) -> Cow<'_, str> {
    if !uses(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 32);
    let mut rest = text;
    while let Some(at) = rest.find(PLACEHOLDER) {
        out.push_str(&rest[..at]);
        rest = &rest[at + PLACEHOLDER.len()..];
        let path_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "._/-".contains(c)))
            .unwrap_or(rest.len());
        let rel = rest[..path_len].trim_matches('/');
        out.push_str(&format!("{{protocols:{}}}", subtree_hash(rel)));
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Checks the words of a command that start with the placeholder: each must
/// name an embedded file or folder (`{protocols}/forty/forty_host.py`), so
/// a misspelt path is the organiser's error, found before anything runs.
pub fn check_words(words: &[String]) -> Result<(), String> {
    for word in words {
        let Some(rest) = word.strip_prefix(PLACEHOLDER) else {
            continue;
        };
        if !names_embedded(rest) {
            return Err(format!(
                "`{word}`: the referee's protocols folder has no `{}` (`referee protocols` prints where it is)",
                rest.trim_start_matches('/')
            ));
        }
    }
    Ok(())
}

/// Whether `rest` (what follows the placeholder) is empty, or `/` and the
/// path of an embedded file or folder.
fn names_embedded(rest: &str) -> bool {
    if rest.is_empty() || rest == "/" {
        return true;
    }
    let Some(rel) = rest.strip_prefix('/') else {
        return false;
    };
    let rel = rel.trim_end_matches('/');
    FILES.iter().any(|(path, _, _)| {
        *path == rel
            || path
                .strip_prefix(rel)
                .is_some_and(|inner| inner.starts_with('/'))
    })
}

/// `word` with every placeholder replaced by `dir`.
pub fn expand(word: &str, dir: &Path) -> String {
    word.replace(PLACEHOLDER, &dir.to_string_lossy())
}

/// `argv` with the placeholder expanded; the folder is written out only
/// when a word uses it.
pub fn expand_all(argv: &[String]) -> crate::error::Result<Vec<String>> {
    if !argv.iter().any(|w| uses(w)) {
        return Ok(argv.to_vec());
    }
    let dir = dir()?;
    Ok(argv.iter().map(|w| expand(w, dir)).collect())
}

/// The folder holding the files, written out (or checked) once per run.
/// A failure is the machine's: no candidate location could be written.
pub fn dir() -> crate::error::Result<&'static Path> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(materialize)
        .as_deref()
        .map_err(|e| crate::error::Error::machine(e.clone()))
}

/// Writes the files into the first location that takes them.
fn materialize() -> Result<PathBuf, String> {
    let name = format!("protocols-{}", hash());
    let mut failures = Vec::new();
    for (base, shared) in bases() {
        let dir = base.join(&name);
        let made = make_base(&base, shared).and_then(|()| write_tree(&dir));
        match made {
            Ok(()) => return Ok(dir),
            Err(e) => failures.push(format!("{}: {e}", dir.display())),
        }
    }
    Err(format!(
        "cannot write the referee's protocols folder (set XDG_CACHE_HOME to a writable folder): {}",
        failures.join("; ")
    ))
}

/// Where the folder may go, in order, and whether the location lies in a
/// directory others may write: the user's cache (`$XDG_CACHE_HOME`, else
/// `~/.cache`), then a folder of this user's own in the temporary
/// directory (for a user without a writable home).
fn bases() -> Vec<(PathBuf, bool)> {
    let absolute = |v: Option<std::ffi::OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    let mut out = Vec::new();
    if let Some(cache) = absolute(std::env::var_os("XDG_CACHE_HOME")) {
        out.push((cache.join("referee"), false));
    }
    if let Some(home) = absolute(std::env::var_os("HOME")) {
        out.push((home.join(".cache").join("referee"), false));
    }
    let uid = nix::unistd::geteuid();
    out.push((std::env::temp_dir().join(format!("referee-{uid}")), true));
    out
}

/// Creates `base` (private to the user) if missing; in a shared directory
/// it must then be this user's own folder that no one else may write,
/// since anyone could have made it first.
fn make_base(base: &Path, shared: bool) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(base)?;
    if !shared {
        return Ok(());
    }
    let meta = std::fs::symlink_metadata(base)?;
    let mine = meta.uid() == nix::unistd::geteuid().as_raw();
    if !meta.is_dir() || !mine || meta.permissions().mode() & 0o022 != 0 {
        return Err(std::io::Error::other(format!(
            "{} is not a folder of this user that only it may write",
            base.display()
        )));
    }
    Ok(())
}

/// Makes `dir` hold exactly the embedded bytes for every embedded file
/// (other files are left alone). A file that differs is replaced whole,
/// by rename.
fn write_tree(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    for (rel, content, executable) in FILES {
        let path = dir.join(rel);
        let mode = if *executable { 0o755 } else { 0o644 };
        let current = std::fs::symlink_metadata(&path).ok();
        let same = current
            .as_ref()
            .is_some_and(|m| m.is_file() && m.permissions().mode() & 0o777 == mode)
            && std::fs::read(&path).is_ok_and(|b| b == *content);
        if same {
            continue;
        }
        let parent = path.parent().unwrap_or(dir);
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(parent)?;
        let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let tmp = parent.join(format!(
            ".{}.{}.tmp",
            file_name.unwrap_or_default(),
            std::process::id()
        ));
        std::fs::write(&tmp, content)?;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode))?;
        std::fs::rename(&tmp, &path)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn the_host_and_the_adapter_are_embedded_and_nothing_built() {
        let paths: Vec<&str> = FILES.iter().map(|(p, _, _)| *p).collect();
        for needed in [
            "forty/forty_host.py",
            "gun-duel/driver.cpp",
            "gun-duel/Player.hpp",
        ] {
            assert!(paths.contains(&needed), "{paths:?}");
        }
        assert!(
            paths
                .iter()
                .all(|p| !p.contains("__pycache__") && !p.split('/').any(|c| c.starts_with('.'))),
            "{paths:?}"
        );
        let host = FILES.iter().find(|(p, _, _)| *p == "forty/forty_host.py");
        assert_eq!(
            host.map(|(_, c, _)| *c),
            Some(&include_bytes!("../protocols/forty/forty_host.py")[..])
        );
    }

    #[test]
    fn placeholder_words_must_name_embedded_paths() {
        let ok = words(&[
            "python3",
            "{protocols}/forty/forty_host.py",
            "{protocols}/gun-duel",
            "{protocols}/gun-duel/",
            "{protocols}",
            "-I{protocols}/anything",
        ]);
        assert_eq!(check_words(&ok), Ok(()));
        for bad in [
            "{protocols}/forty/fourty_host.py",
            "{protocols}/gun",
            "{protocols}x",
        ] {
            let e = check_words(&words(&["python3", bad])).unwrap_err();
            assert!(e.starts_with(&format!("`{bad}`: ")), "{e}");
        }
    }

    #[test]
    fn versioned_names_the_hash_of_what_the_path_names() {
        assert_eq!(versioned("./bot"), "./bot");
        let host = subtree_hash("forty/forty_host.py");
        assert_eq!(
            versioned("python3 {protocols}/forty/forty_host.py A/bot.py"),
            format!("python3 {{protocols:{host}}}/forty/forty_host.py A/bot.py")
        );
        // The file alone: the hash of its content, nothing beside it.
        let mut h = blake3::Hasher::new();
        let content = include_bytes!("../protocols/forty/forty_host.py");
        let path = "forty/forty_host.py";
        h.update(&(path.len() as u64).to_le_bytes());
        h.update(path.as_bytes());
        h.update(&[1]);
        h.update(&(content.len() as u64).to_le_bytes());
        h.update(content);
        assert_eq!(host, h.finalize().to_hex()[..16]);
        // A folder counts all its files; the whole copy is `hash()`.
        let adapter = subtree_hash("gun-duel");
        assert_eq!(
            versioned("g++ -I{protocols}/gun-duel/ \"{protocols}/gun-duel/driver.cpp\""),
            format!(
                "g++ -I{{protocols:{adapter}}}/gun-duel/ \"{{protocols:{}}}/gun-duel/driver.cpp\"",
                subtree_hash("gun-duel/driver.cpp")
            )
        );
        assert_ne!(adapter, subtree_hash("gun-duel/driver.cpp"));
        assert_eq!(
            versioned("{protocols}"),
            format!("{{protocols:{}}}", hash())
        );
        assert_eq!(hash().len(), 16);
    }

    #[test]
    fn the_tree_is_written_and_a_changed_file_is_put_back() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache").join("protocols-x");
        write_tree(&dir).unwrap();
        for (rel, content, _) in FILES {
            assert_eq!(std::fs::read(dir.join(rel)).unwrap(), *content, "{rel}");
        }
        let host = dir.join("forty/forty_host.py");
        std::fs::write(&host, "print('changed')").unwrap();
        write_tree(&dir).unwrap();
        assert_eq!(
            std::fs::read(&host).unwrap(),
            include_bytes!("../protocols/forty/forty_host.py")
        );
        assert_eq!(
            expand("{protocols}/forty/forty_host.py", &dir),
            host.to_string_lossy()
        );
    }

    #[test]
    fn a_shared_location_someone_else_can_write_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("referee-x");
        std::fs::create_dir(&base).unwrap();
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(make_base(&base, true).is_err());
        // In the user's own cache, the folder's mode is the user's business.
        assert!(make_base(&base, false).is_ok());
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(make_base(&base, true).is_ok());
        let link = tmp.path().join("referee-link");
        std::os::unix::fs::symlink(&base, &link).unwrap();
        assert!(make_base(&link, true).is_err());
    }
}
