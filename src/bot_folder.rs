//! What a bot's folder holds, as one hash: the cache key that decides when
//! a build is redone and which games a changed bot must replay.
//!
//! Files a bot writes while it plays must not count, or every game would
//! change its own key: `data.txt` (meta-ttt's data file) and `__pycache__`
//! (what Python writes beside a module a bot imports) never count, and
//! bot.toml's `ignore` names more (exact names, or `*.ext` patterns).

use std::path::Path;

/// Bytes read of one file; a bot can make a huge sparse file in a moment.
const HASHED_PER_FILE: u64 = 64 << 20;

/// Hash of every regular file below `folder` (path, size and bytes, at most
/// 64 MiB of them), in path order, skipping ignored names.
/// Symlinks count by their target path (never followed), other special
/// files by their name alone. Bot folders are written by bots: nothing in
/// one may hang or slow the referee.
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
            Ok(m) if m.file_type().is_file() => {
                h.update(&m.len().to_le_bytes());
                if m.len() > HASHED_PER_FILE {
                    // Past the cap, a change shows in the size or the
                    // modification time.
                    h.update(b"mtime:");
                    if let Ok(t) = m.modified() {
                        h.update(format!("{t:?}").as_bytes());
                    }
                }
                hash_file(&path, &mut h);
            }
            // FIFOs, sockets and device nodes are never opened: a FIFO
            // would block the referee, a device never end.
            Ok(_) => {
                h.update(b"special");
            }
            Err(_) => {}
        }
        h.update(&[0xff]);
    }
    h.finalize().to_hex()[..16].to_string()
}

/// Hashes the first [`HASHED_PER_FILE`] bytes of a regular file. Opened
/// without following a symlink and without blocking, and checked again
/// once open: the file may have been swapped for a FIFO since it was seen.
fn hash_file(path: &Path, h: &mut blake3::Hasher) {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(f) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    else {
        return;
    };
    if f.metadata().is_ok_and(|m| m.is_file()) {
        let _ = std::io::copy(&mut f.take(HASHED_PER_FILE), h);
    }
}

/// Names that never count, at any depth.
const NEVER_COUNTED: [&str; 2] = ["data.txt", "__pycache__"];

fn ignored(name: &str, ignore: &[String]) -> bool {
    NEVER_COUNTED.contains(&name)
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
        std::fs::create_dir(d.path().join("lib/__pycache__")).unwrap();
        std::fs::write(d.path().join("lib/__pycache__/util.pyc"), "\x00").unwrap();
        assert_eq!(content_hash(d.path(), &ignore), before);
        std::fs::write(d.path().join("lib/util.py"), "x = 2").unwrap();
        assert_ne!(content_hash(d.path(), &ignore), before);
    }

    #[test]
    fn fifos_and_huge_sparse_files_neither_hang_nor_take_long_to_hash() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("bot.py"), "print(1)").unwrap();
        let fifo = d.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        assert!(made, "mkfifo");
        // 1 TiB, sparse: nothing is written.
        let big = std::fs::File::create(d.path().join("big.bin")).unwrap();
        big.set_len(1 << 40).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let folder = d.path().to_path_buf();
        std::thread::spawn(move || {
            let _ = tx.send(content_hash(&folder, &[]));
        });
        // Hashing 64 MiB takes well under a second; a FIFO opened for
        // reading would block for ever, 1 TiB would take many minutes.
        let first = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("hashing finished");
        assert_eq!(content_hash(d.path(), &[]), first);
        // A change of the big file past the cap still shows (its size).
        big.set_len((1 << 40) + 1).unwrap();
        assert_ne!(content_hash(d.path(), &[]), first);
    }
}
