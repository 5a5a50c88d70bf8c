//! What a bot's own folder holds, against its policy's `disk-mb` and
//! `files`, measured between calls (after each call of a per-move bot,
//! after each game of a persistent one) and every [`MEASURE_EVERY`] while
//! a call runs, so that one long move cannot fill the disk.
//!
//! The folder is the bot's: anything may be in it. The walk never follows
//! a symbolic link (each directory is opened beneath the folder with
//! symlinks refused), never opens anything but a directory (a FIFO or a
//! device is only `lstat`ed), counts the blocks a file really occupies
//! (`st_blocks`, so a sparse 4 TiB file counts what it uses) and every
//! entry (files, directories, links, anything), and stops as soon as
//! either limit is passed, so a folder of 200,000 files costs what its
//! first `files + 1` entries cost. The referee never deletes anything.
//!
//! A hard link counts once per name (a bot can only link its own files).
//! A directory the referee may not read (a bot can `chmod 000` one) is a
//! denial in itself: what it holds cannot be measured.

use nix::dir::Dir;
use nix::errno::Errno;
use nix::fcntl::{OFlag, OpenHow, ResolveFlag};
use nix::sys::stat::{fstatat, Mode, SFlag};
use referee_sandbox::{FolderAccess, Policy};
use std::ffi::{CString, OsStr};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// How often a bot's folder is measured while its processes run: a call
/// still running, a persistent process between games. A bot can write
/// past its quota for at most this long (and no file past `disk-mb`,
/// which `RLIMIT_FSIZE` stops), and a walk stops at the limit, so the
/// cost is bounded too.
pub const MEASURE_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// What a bot's own folder may hold: a policy's `disk-mb` and `files`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FolderQuota {
    /// Allocated bytes, in MiB.
    pub disk_mb: u64,
    /// Entries: files, directories, links, anything (the folder itself not
    /// counted).
    pub files: u64,
}

impl FolderQuota {
    /// The quota of `policy`, if its bots may write their folder (a
    /// read-only folder cannot grow, and is not measured).
    pub fn of(policy: &Policy) -> Option<FolderQuota> {
        (policy.own_folder == FolderAccess::ReadWrite).then_some(FolderQuota {
            disk_mb: policy.disk_mb,
            files: policy.files,
        })
    }

    /// The quota of the bundled policy `name` (a challenge id, or `build`).
    pub fn for_policy(name: &str) -> Option<FolderQuota> {
        Policy::named(name).ok().as_ref().and_then(FolderQuota::of)
    }

    fn bytes(&self) -> u64 {
        self.disk_mb.saturating_mul(1 << 20)
    }

    /// This quota on top of what `folder` holds now: what the organiser
    /// put there (a build's output, a Rust `target/`, a data file) never
    /// counts against the bot, only what it adds while playing. The folder
    /// is counted up to a million entries; an unreadable one adds nothing.
    pub fn beyond_what_is_in(self, folder: &Path) -> FolderQuota {
        let all = FolderQuota {
            disk_mb: u64::MAX >> 21,
            files: 1_000_000,
        };
        let held = match measure(folder, &all) {
            Verdict::Within(u) | Verdict::TooBig(u) | Verdict::TooMany(u) => u,
            Verdict::Unreadable(_) => Usage::default(),
        };
        FolderQuota {
            disk_mb: self.disk_mb.saturating_add(held.bytes.div_ceil(1 << 20)),
            files: self.files.saturating_add(held.entries),
        }
    }
}

/// What a walk counted (up to where it stopped).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Allocated bytes: `st_blocks * 512` of every entry counted.
    pub bytes: u64,
    /// Entries counted.
    pub entries: u64,
}

/// How a folder stands against its quota.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Within both limits: the whole folder was counted.
    Within(Usage),
    /// More bytes than `disk-mb`; the walk stopped there.
    TooBig(Usage),
    /// More entries than `files`; the walk stopped there.
    TooMany(Usage),
    /// A directory in the folder (this path, relative to it) that the
    /// referee may not read, so the folder cannot be measured.
    Unreadable(PathBuf),
}

impl Verdict {
    /// What is over, for the bot's log (`folder holds more than ...`), or
    /// `None` when the folder is within its quota.
    pub fn over(&self, quota: &FolderQuota) -> Option<String> {
        Some(match self {
            Verdict::Within(_) => return None,
            Verdict::TooBig(u) => format!(
                "folder holds more than disk-mb ({} MiB): {} bytes allocated when counting stopped",
                quota.disk_mb, u.bytes
            ),
            Verdict::TooMany(u) => format!(
                "folder holds more than files ({} entries): counting stopped at entry {}",
                quota.files, u.entries
            ),
            Verdict::Unreadable(path) => format!(
                "folder cannot be measured: the referee may not read `{}` in it",
                path.display()
            ),
        })
    }

    /// The line for the log of a per-move bot whose call left its folder
    /// over its quota, else `None`.
    pub fn note(&self, quota: &FolderQuota) -> Option<String> {
        self.over(quota).map(|what| {
            format!(
                "referee: {what}; the call is a sandbox fault (the referee deletes nothing: the bot must make room itself)"
            )
        })
    }
}

/// Flags of every directory the walk opens: never a link, never blocking.
fn dir_flags() -> OFlag {
    OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK
}

/// Measures `folder` against `quota`, stopping as soon as a limit is passed.
/// A folder that does not exist holds nothing.
pub fn measure(folder: &Path, quota: &FolderQuota) -> Verdict {
    // The folder itself may be a link the organiser made; nothing in it is
    // followed.
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    let root = match nix::fcntl::open(folder, flags, Mode::empty()).and_then(Dir::from_fd) {
        Ok(dir) => dir,
        Err(Errno::EACCES | Errno::EPERM) => return Verdict::Unreadable(PathBuf::from(".")),
        Err(_) => return Verdict::Within(Usage::default()),
    };
    let mut walk = Walk {
        root,
        names: Vec::new(),
        usage: Usage::default(),
        max_bytes: quota.bytes(),
        max_entries: quota.files,
        openat2: true,
    };
    // Directories still to read, relative to the folder.
    let mut pending: Vec<PathBuf> = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        if let Some(verdict) = walk.directory(&rel, &mut pending) {
            return verdict;
        }
    }
    Verdict::Within(walk.usage)
}

struct Walk {
    /// The folder, listed first and then the base every path is opened
    /// beneath.
    root: Dir,
    /// The names of the directory being counted (reused).
    names: Vec<CString>,
    usage: Usage,
    max_bytes: u64,
    max_entries: u64,
    /// Cleared when the kernel has no `openat2` (before 5.6).
    openat2: bool,
}

impl Walk {
    /// Counts the entries of directory `rel`, queueing its subdirectories.
    /// `Some` once the verdict is known.
    fn directory(&mut self, rel: &Path, pending: &mut Vec<PathBuf>) -> Option<Verdict> {
        let mut opened = None;
        if !rel.as_os_str().is_empty() {
            match self.open(rel).and_then(Dir::from_fd) {
                Ok(dir) => opened = Some(dir),
                Err(Errno::EACCES | Errno::EPERM) => return Some(Verdict::Unreadable(rel.into())),
                // Gone or replaced meanwhile (a persistent bot still runs),
                // or the referee is short of descriptors: nothing to count.
                Err(_) => return None,
            }
        }
        let Walk {
            root,
            names,
            usage,
            max_bytes,
            max_entries,
            ..
        } = self;
        let dir = match opened.as_mut() {
            Some(dir) => dir,
            None => root,
        };
        // The names first (the listing holds the directory), counted as
        // they come; then each is looked at without following it.
        names.clear();
        for entry in dir.iter() {
            let Ok(entry) = entry else { break };
            let name = entry.file_name();
            if matches!(name.to_bytes(), b"." | b"..") {
                continue;
            }
            usage.entries += 1;
            if usage.entries > *max_entries {
                return Some(Verdict::TooMany(*usage));
            }
            names.push(name.to_owned());
        }
        for name in names.iter() {
            let Ok(stat) = fstatat(
                dir.as_fd(),
                name.as_c_str(),
                nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
            ) else {
                continue;
            };
            let blocks = u64::try_from(stat.st_blocks).unwrap_or(0);
            usage.bytes = usage.bytes.saturating_add(blocks.saturating_mul(512));
            if usage.bytes > *max_bytes {
                return Some(Verdict::TooBig(*usage));
            }
            if SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFDIR {
                pending.push(rel.join(OsStr::from_bytes(name.to_bytes())));
            }
        }
        None
    }

    /// Opens directory `rel` (not empty) beneath the folder without
    /// following a link anywhere on the way.
    fn open(&mut self, rel: &Path) -> nix::Result<OwnedFd> {
        if self.openat2 {
            let how = OpenHow::new().flags(dir_flags()).resolve(
                ResolveFlag::RESOLVE_BENEATH
                    | ResolveFlag::RESOLVE_NO_SYMLINKS
                    | ResolveFlag::RESOLVE_NO_MAGICLINKS,
            );
            match nix::fcntl::openat2(self.root.as_fd(), rel, how) {
                Err(Errno::ENOSYS) => self.openat2 = false,
                other => return other,
            }
        }
        // One component at a time, each opened without following a link.
        let mut parts = rel.components();
        let first = parts.next().ok_or(Errno::ENOENT)?;
        let mut dir = nix::fcntl::openat(
            self.root.as_fd(),
            first.as_os_str(),
            dir_flags(),
            Mode::empty(),
        )?;
        for part in parts {
            dir = nix::fcntl::openat(dir.as_fd(), part.as_os_str(), dir_flags(), Mode::empty())?;
        }
        Ok(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const QUOTA: FolderQuota = FolderQuota {
        disk_mb: 2,
        files: 100,
    };

    fn usage(v: &Verdict) -> Usage {
        match v {
            Verdict::Within(u) | Verdict::TooBig(u) | Verdict::TooMany(u) => *u,
            Verdict::Unreadable(_) => panic!("unreadable: {v:?}"),
        }
    }

    #[test]
    fn what_a_folder_holds_at_the_start_is_added_to_its_quota() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..30 {
            std::fs::write(dir.path().join(format!("f{i}")), vec![1u8; 1 << 16]).unwrap();
        }
        let quota = FolderQuota {
            disk_mb: 1,
            files: 10,
        };
        // 30 entries against 10: over, as the organiser left them.
        assert!(matches!(measure(dir.path(), &quota), Verdict::TooMany(_)));
        let grown = quota.beyond_what_is_in(dir.path());
        assert_eq!(grown.files, 40);
        assert!(grown.disk_mb >= 2, "{grown:?}");
        assert!(matches!(measure(dir.path(), &grown), Verdict::Within(_)));
        // What the bot adds still counts: 11 more entries are over.
        for i in 0..11 {
            std::fs::write(dir.path().join(format!("new{i}")), "").unwrap();
        }
        assert!(matches!(measure(dir.path(), &grown), Verdict::TooMany(_)));
    }

    #[test]
    fn a_sparse_file_counts_the_blocks_it_uses() {
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::File::create(dir.path().join("sparse")).unwrap();
        // A terabyte of hole, and one written byte at its end.
        f.set_len(1 << 40).unwrap();
        let v = measure(dir.path(), &QUOTA);
        assert!(matches!(v, Verdict::Within(_)), "{v:?}");
        assert_eq!(usage(&v).entries, 1);
        assert!(usage(&v).bytes < 1 << 20, "{v:?}");
        // Real data counts.
        let mut real = std::fs::File::create(dir.path().join("real")).unwrap();
        real.write_all(&vec![7u8; 3 << 20]).unwrap();
        real.sync_all().unwrap();
        let v = measure(dir.path(), &QUOTA);
        assert!(matches!(v, Verdict::TooBig(_)), "{v:?}");
        assert!(usage(&v).bytes > 2 << 20);
        let note = v.note(&QUOTA).unwrap();
        assert!(
            note.starts_with("referee: folder holds more than disk-mb (2 MiB): "),
            "{note}"
        );
    }

    #[test]
    fn links_are_counted_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir(p.join("sub")).unwrap();
        // A loop, a link to the folder's parent and one to the root: each
        // is one entry, none is walked into.
        std::os::unix::fs::symlink("b", p.join("a")).unwrap();
        std::os::unix::fs::symlink("a", p.join("b")).unwrap();
        std::os::unix::fs::symlink("..", p.join("sub/up")).unwrap();
        std::os::unix::fs::symlink("/", p.join("sub/root")).unwrap();
        std::os::unix::fs::symlink(".", p.join("sub/self")).unwrap();
        let v = measure(p, &QUOTA);
        assert!(matches!(v, Verdict::Within(_)), "{v:?}");
        assert_eq!(usage(&v).entries, 6);
    }

    #[test]
    fn a_directory_swapped_for_a_link_is_not_followed() {
        // What openat2's fallback does when a component is a link.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir_all(p.join("real/deep")).unwrap();
        std::os::unix::fs::symlink("real", p.join("alias")).unwrap();
        for openat2 in [true, false] {
            let root = nix::fcntl::open(p, dir_flags(), Mode::empty()).unwrap();
            let mut walk = Walk {
                root: Dir::from_fd(root).unwrap(),
                names: Vec::new(),
                usage: Usage::default(),
                max_bytes: u64::MAX,
                max_entries: u64::MAX,
                openat2,
            };
            assert!(walk.open(Path::new("real/deep")).is_ok());
            assert!(walk.open(Path::new("alias/deep")).is_err(), "{openat2}");
            assert!(walk.open(Path::new("alias")).is_err(), "{openat2}");
        }
    }

    #[test]
    fn a_fifo_is_counted_and_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().to_path_buf();
        nix::unistd::mkfifo(&p.join("pipe"), Mode::S_IRWXU).unwrap();
        std::fs::create_dir(p.join("d")).unwrap();
        nix::unistd::mkfifo(&p.join("d/pipe"), Mode::S_IRWXU).unwrap();
        // Opening a FIFO for reading blocks until a writer comes: the walk
        // runs on a thread so that a regression fails instead of hanging.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(measure(&p, &QUOTA));
        });
        let v = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the walk blocked on a FIFO");
        assert_eq!(usage(&v).entries, 3, "{v:?}");
    }

    #[test]
    fn many_files_stop_the_walk_at_the_first_entry_over() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        for d in 0..5 {
            let sub = p.join(format!("d{d}"));
            std::fs::create_dir(&sub).unwrap();
            for i in 0..1000 {
                std::fs::File::create(sub.join(i.to_string())).unwrap();
            }
        }
        let v = measure(p, &QUOTA);
        assert_eq!(v, Verdict::TooMany(usage(&v)));
        // Counting stopped at the 101st entry of 5005.
        assert_eq!(usage(&v).entries, 101);
        let note = v.note(&QUOTA).unwrap();
        assert!(note.starts_with(
            "referee: folder holds more than files (100 entries): counting stopped at entry 101;"
        ));
        // Within a larger quota, everything is counted.
        let big = FolderQuota {
            disk_mb: 1024,
            files: 10_000,
        };
        assert_eq!(usage(&measure(p, &big)).entries, 5005);
    }

    #[test]
    fn deep_nesting_is_walked_without_a_descriptor_per_level() {
        let dir = tempfile::tempdir().unwrap();
        let mut path = dir.path().to_path_buf();
        for _ in 0..300 {
            path.push("n");
        }
        std::fs::create_dir_all(&path).unwrap();
        let quota = FolderQuota {
            disk_mb: 64,
            files: 1000,
        };
        let v = measure(dir.path(), &quota);
        assert_eq!(usage(&v).entries, 300, "{v:?}");
    }

    #[test]
    fn a_missing_folder_holds_nothing_and_a_read_only_policy_has_no_quota() {
        let dir = tempfile::tempdir().unwrap();
        let v = measure(&dir.path().join("none"), &QUOTA);
        assert_eq!(v, Verdict::Within(Usage::default()));
        assert!(v.note(&QUOTA).is_none());
        assert_eq!(FolderQuota::for_policy("heist"), None);
        let meta = FolderQuota::for_policy("meta-ttt").unwrap();
        assert!(meta.disk_mb >= 1 && meta.files >= 1);
    }

    #[test]
    fn a_directory_the_referee_cannot_read_is_a_denial() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        if std::fs::metadata(dir.path()).unwrap().uid() == 0 {
            // Root reads every directory: nothing to test.
            return;
        }
        let hidden = dir.path().join("hidden");
        std::fs::create_dir(&hidden).unwrap();
        std::fs::set_permissions(&hidden, std::fs::Permissions::from_mode(0o000)).unwrap();
        let v = measure(dir.path(), &QUOTA);
        std::fs::set_permissions(&hidden, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(v, Verdict::Unreadable(PathBuf::from("hidden")));
        assert!(v.note(&QUOTA).unwrap().contains("`hidden`"));
    }
}
