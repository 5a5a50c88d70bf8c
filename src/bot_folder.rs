//! What a bot's folder holds, as one hash: the cache key that decides when
//! a build is redone and which games a changed bot must replay.
//!
//! Files a bot writes while it plays must not count, or every game would
//! change its own key: `data.txt` (meta-ttt's data file) never counts, and
//! bot.toml's `ignore` names more (exact names, or `*.ext` patterns).

use std::path::Path;

/// Hash of every regular file below `folder` (path, size and bytes), in
/// path order, skipping ignored names. Symlinks count by their target path.
pub fn content_hash(folder: &Path, ignore: &[String]) -> String {
    let mut files = Vec::new();
    collect(folder, folder, ignore, &mut files);
    files.sort();
    let mut h = blake3::Hasher::new();
    for rel in files {
        let path = folder.join(&rel);
        h.update(rel.as_bytes());
        h.update(&[0]);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                if let Ok(target) = std::fs::read_link(&path) {
                    h.update(b"link:");
                    h.update(target.to_string_lossy().as_bytes());
                }
            }
            Ok(m) => {
                h.update(&m.len().to_le_bytes());
                if let Ok(mut f) = std::fs::File::open(&path) {
                    let _ = std::io::copy(&mut f, &mut h);
                }
            }
            Err(_) => {}
        }
        h.update(&[0xff]);
    }
    h.finalize().to_hex()[..16].to_string()
}

fn ignored(name: &str, ignore: &[String]) -> bool {
    name == "data.txt"
        || ignore.iter().any(|p| match p.strip_prefix("*.") {
            Some(ext) => name.rsplit_once('.').is_some_and(|(_, e)| e == ext),
            None => p == name,
        })
}

fn collect(root: &Path, dir: &Path, ignore: &[String], out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if ignored(&name, ignore) {
            continue;
        }
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            collect(root, &path, ignore, out);
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().into_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_files_and_ignored_names_do_not_change_the_hash() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("bot.py"), "print(1)").unwrap();
        std::fs::create_dir(d.path().join("lib")).unwrap();
        std::fs::write(d.path().join("lib/util.py"), "x = 1").unwrap();
        let ignore = vec!["memory.json".to_string(), "*.log".to_string()];
        let before = content_hash(d.path(), &ignore);
        std::fs::write(d.path().join("data.txt"), "learned").unwrap();
        std::fs::write(d.path().join("memory.json"), "{}").unwrap();
        std::fs::write(d.path().join("run.log"), "...").unwrap();
        assert_eq!(content_hash(d.path(), &ignore), before);
        std::fs::write(d.path().join("lib/util.py"), "x = 2").unwrap();
        assert_ne!(content_hash(d.path(), &ignore), before);
    }
}
