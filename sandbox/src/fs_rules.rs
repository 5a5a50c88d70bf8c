//! Which paths a bot may touch, as Landlock rules.
//!
//! A bot may read and execute an allow-list: the system locations
//! ([`SYSTEM`]), what its `PATH` names ([`from_path_var`]), and the paths
//! the referee adds (its command line's files, the protocols folder); it
//! may read and write its own folder. Landlock only grants, so "a location,
//! but not the tournament inside it" is expressed as the complement of the
//! denied trees within that location: walking from the location down to
//! each denied path, every sibling along the way is granted, the path
//! itself is not.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// System locations every bot may read and execute: programs, libraries,
/// configuration, and the kernel's views that runtimes read (the JVM and
/// libuv read `/proc` and `/sys`). Missing ones are skipped.
pub const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc",
    "/sys", "/nix",
];

/// Files of `/etc` that hold secrets. Unreadable to other users by their
/// modes, but a bot of a root referee runs as uid 0 (without
/// capabilities), which owns them, so they are left out explicitly then.
pub const SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssh",
    "/etc/ssl/private",
    "/etc/security/opasswd",
    "/etc/credstore",
    "/etc/credstore.encrypted",
];

/// Devices a bot may read and write (interpreters write to `/dev/null`,
/// the JVM reads `/dev/urandom`); no other device, and no terminal.
pub const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// The directories a `PATH` value makes readable: each absolute entry, and
/// for an entry named `bin`, `sbin` or `shims` its parent too (a tool's
/// own tree: `~/.pyenv/shims` runs `~/.pyenv/versions/...`), unless that
/// parent is a home directory or `/`, which is never granted whole.
pub fn from_path_var(path: &OsStr, homes: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in path.as_bytes().split(|&b| b == b':') {
        let entry = Path::new(OsStr::from_bytes(entry));
        if !entry.is_absolute() {
            continue;
        }
        let tool_dir = entry
            .file_name()
            .is_some_and(|n| n == "bin" || n == "sbin" || n == "shims");
        match entry.parent() {
            Some(parent)
                if tool_dir && parent != Path::new("/") && !homes.iter().any(|h| h == parent) =>
            {
                out.push(parent.to_path_buf())
            }
            _ => out.push(entry.to_path_buf()),
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Home directories, never granted whole: `$HOME`, `/root` and each entry
/// of `/home`.
pub fn homes() -> Vec<PathBuf> {
    let mut homes = vec![PathBuf::from("/root"), PathBuf::from("/home")];
    homes.extend(std::env::var_os("HOME").map(PathBuf::from));
    homes.extend(list_dir(Path::new("/home")));
    homes
}

/// What to grant so that everything under each of `roots` but the
/// `denied` trees is reachable: a root holding no denied path is granted
/// whole, a root inside a denied tree not at all, and otherwise the
/// complement within it.
pub fn within(
    roots: &[PathBuf],
    denied: &[PathBuf],
    list: &dyn Fn(&Path) -> Vec<PathBuf>,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for root in roots {
        if denied.iter().any(|d| root.starts_with(d)) {
            continue;
        }
        let inside: Vec<PathBuf> = denied
            .iter()
            .filter(|d| d.starts_with(root))
            .cloned()
            .collect();
        if inside.is_empty() {
            out.push(root.clone());
        } else {
            out.extend(complement_from(root, &inside, list));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The directories and files to grant read+execute so that everything
/// except `denied` (absolute, normalised paths) is readable. `list` returns
/// a directory's entry names (an error or a file gives none).
pub fn complement(denied: &[PathBuf], list: &dyn Fn(&Path) -> Vec<PathBuf>) -> Vec<PathBuf> {
    complement_from(Path::new("/"), denied, list)
}

/// [`complement`] within `root`: every path in `denied` lies under it.
fn complement_from(
    root: &Path,
    denied: &[PathBuf],
    list: &dyn Fn(&Path) -> Vec<PathBuf>,
) -> Vec<PathBuf> {
    // A denied path inside another denied tree adds nothing (and must not
    // make its ancestors walkable, which would grant their other entries).
    let denied: Vec<PathBuf> = denied
        .iter()
        .filter(|d| !denied.iter().any(|o| o != *d && d.starts_with(o)))
        .cloned()
        .collect();
    if denied.is_empty() {
        return vec![root.to_path_buf()];
    }
    // Every strict ancestor of a denied path, from the root down, must be
    // walked into, not granted.
    let mut walk: BTreeSet<PathBuf> = BTreeSet::new();
    for d in &denied {
        let mut p = PathBuf::new();
        for c in d.components() {
            match c {
                Component::RootDir => p.push("/"),
                Component::Normal(n) => {
                    if p.starts_with(root) {
                        walk.insert(p.clone());
                    }
                    p.push(n);
                }
                _ => {}
            }
        }
    }
    let denied: BTreeSet<&PathBuf> = denied.iter().collect();
    let mut grants = Vec::new();
    for dir in &walk {
        for entry in list(dir) {
            if !walk.contains(&entry) && !denied.contains(&entry) {
                grants.push(entry);
            }
        }
    }
    grants
}

/// Lists a real directory.
pub fn list_dir(dir: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn tree() -> HashMap<PathBuf, Vec<PathBuf>> {
        let mut t = HashMap::new();
        let p = PathBuf::from;
        t.insert(p("/"), vec![p("/usr"), p("/home"), p("/etc")]);
        t.insert(p("/home"), vec![p("/home/ann"), p("/home/bob")]);
        t.insert(
            p("/home/ann"),
            vec![
                p("/home/ann/.pyenv"),
                p("/home/ann/t"),
                p("/home/ann/notes"),
            ],
        );
        t.insert(
            p("/home/ann/t"),
            vec![p("/home/ann/t/bot1"), p("/home/ann/t/results.db")],
        );
        t
    }

    #[test]
    fn everything_but_the_denied_tree_is_granted() {
        let t = tree();
        let list = |d: &Path| t.get(d).cloned().unwrap_or_default();
        let mut g = complement(&[PathBuf::from("/home/ann/t")], &list);
        g.sort();
        let expect: Vec<PathBuf> = [
            "/etc",
            "/home/ann/.pyenv",
            "/home/ann/notes",
            "/home/bob",
            "/usr",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(g, expect);
    }

    #[test]
    fn nothing_denied_grants_everything() {
        let t = tree();
        let list = |d: &Path| t.get(d).cloned().unwrap_or_default();
        assert_eq!(complement(&[], &list), vec![PathBuf::from("/")]);
    }

    #[test]
    fn a_denied_path_inside_a_denied_tree_changes_nothing() {
        let t = tree();
        let list = |d: &Path| t.get(d).cloned().unwrap_or_default();
        let outer = complement(&[PathBuf::from("/home/ann/t")], &list);
        let both = complement(
            &[
                PathBuf::from("/home/ann/t"),
                PathBuf::from("/home/ann/t/results.db"),
            ],
            &list,
        );
        assert_eq!(outer, both);
        assert!(!both.contains(&PathBuf::from("/home/ann/t/bot1")));
    }

    #[test]
    fn a_root_is_granted_whole_skipped_or_split_around_what_is_denied() {
        let t = tree();
        let list = |d: &Path| t.get(d).cloned().unwrap_or_default();
        let p = PathBuf::from;
        let g = within(
            &[p("/usr"), p("/home/ann"), p("/home/ann/t/bot1")],
            &[p("/home/ann/t")],
            &list,
        );
        assert_eq!(
            g,
            vec![p("/home/ann/.pyenv"), p("/home/ann/notes"), p("/usr")]
        );
        // A root with nothing denied inside is one grant.
        assert_eq!(within(&[p("/home")], &[p("/etc")], &list), vec![p("/home")]);
    }

    #[test]
    fn a_path_var_grants_its_entries_and_tool_trees_but_never_a_home() {
        let homes = [PathBuf::from("/root"), PathBuf::from("/home/ann")];
        let got = from_path_var(
            OsStr::new(
                "/root/.pyenv/shims:/root/bin:/usr/local/bin:relative:/home/ann/.cargo/bin:/opt/x",
            ),
            &homes,
        );
        let p = PathBuf::from;
        assert_eq!(
            got,
            vec![
                p("/home/ann/.cargo"),
                p("/opt/x"),
                p("/root/.pyenv"),
                p("/root/bin"),
                p("/usr/local")
            ]
        );
    }

    #[test]
    fn two_denied_paths_share_their_walk() {
        let t = tree();
        let list = |d: &Path| t.get(d).cloned().unwrap_or_default();
        let mut g = complement(
            &[PathBuf::from("/home/ann/t"), PathBuf::from("/home/bob")],
            &list,
        );
        g.sort();
        assert!(!g.contains(&PathBuf::from("/home/bob")));
        assert!(!g.iter().any(|p| p.starts_with("/home/ann/t")));
        assert!(g.contains(&PathBuf::from("/home/ann/notes")));
    }
}
