//! Which paths a bot may touch, as Landlock rules.
//!
//! Landlock only grants, so "everything needed to run, but not the
//! tournament" is expressed as the complement of the denied trees: walking
//! from `/` down to each denied path, every sibling along the way is granted
//! read and execute, the path itself is not. Then the bot's own folder (and
//! any extra paths) are granted explicitly, even inside a denied tree.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// The directories and files to grant read+execute so that everything
/// except `denied` (absolute, normalised paths) is readable. `list` returns
/// a directory's entry names (an error or a file gives none).
pub fn complement(denied: &[PathBuf], list: &dyn Fn(&Path) -> Vec<PathBuf>) -> Vec<PathBuf> {
    // A denied path inside another denied tree adds nothing (and must not
    // make its ancestors walkable, which would grant their other entries).
    let denied: Vec<PathBuf> = denied
        .iter()
        .filter(|d| !denied.iter().any(|o| o != *d && d.starts_with(o)))
        .cloned()
        .collect();
    if denied.is_empty() {
        return vec![PathBuf::from("/")];
    }
    // Every strict ancestor of a denied path must be walked into, not granted.
    let mut walk: BTreeSet<PathBuf> = BTreeSet::new();
    for d in &denied {
        let mut p = PathBuf::new();
        for c in d.components() {
            match c {
                Component::RootDir => p.push("/"),
                Component::Normal(n) => {
                    walk.insert(p.clone());
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
