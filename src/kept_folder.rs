//! A bot folder kept as it was, and put back exactly: what lets the
//! preflight call a bot for real without leaving a trace of the call.
//!
//! [`Kept::take`] copies the folder into the tournament's
//! `.referee/preflight/` (hidden from every bot, as the whole tournament
//! folder is) and then
//! writes the journal line that names the folder; [`Kept::put_back`] makes
//! the folder equal to the copy again and removes it, journal first. A run
//! killed between the two leaves the copy with its journal, and the next
//! run or check of the tournament puts it back ([`recover`]) before
//! anything reads the folder. A copy without its journal was never used
//! and is removed.
//!
//! Putting back compares and fixes in place rather than replacing the
//! folder: the folder and every file whose bytes are unchanged keep their
//! inode, so what a bot's sandbox holds open or has bound (its folder, the
//! files its command names) stays valid. The result has the copy's names,
//! types, bytes, permission bits, owners (as root), and modification and
//! access times; extended attributes are not kept. A regular file with
//! other names (a hard link) is replaced, never written through. Nothing
//! is followed: a symlink is copied, compared and removed as a link.
//!
//! Only regular files, folders, symlinks and named pipes can be kept; a
//! folder holding a socket or a device is refused ([`Kept::take`] says
//! which).
//!
//! A folder is kept by one referee at a time: [`Kept`] holds an exclusive
//! `flock` on `NAME.lock` beside the copy from before the copy is taken
//! until it is removed, so the shards of one tournament (one folder,
//! several databases) call a bot one after the other, each on the folder
//! as it really is. The kernel drops the lock when its holder dies, so
//! [`recover`] puts back only copies whose lock it can take: never one in
//! use by a live referee, in this PID namespace or another. Lock files are
//! never removed (a waiter on a removed file's lock and a newcomer on a new
//! file would both hold "the" lock).
//!
//! Permission bits, owner and times are set only where they differ, so an
//! unprivileged referee puts back a folder holding files it does not own
//! (which the bot, the same user, could not have changed either). The one
//! thing such a referee cannot put back is the modification time of a
//! folder it does not own but may write (the organiser's, opened to it),
//! which changes when the call adds or removes entries there.

use nix::fcntl::{Flock, FlockArg};
use nix::sys::stat::{utimensat, UtimensatFlags};
use nix::sys::time::TimeSpec;
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The journal file of a kept copy: the folder's path, written once the
/// copy is whole.
const JOURNAL: &str = "folder";
/// The copy itself, beside its journal.
const TREE: &str = "tree";

/// Where a tournament keeps its copies: `DIR/.referee/preflight`.
pub fn store_of(tournament_dir: &Path) -> PathBuf {
    tournament_dir
        .join(crate::build_record::REFEREE_FOLDER)
        .join("preflight")
}

/// A folder's copy, taken before a call that may change the folder.
#[derive(Debug)]
pub struct Kept {
    folder: PathBuf,
    entry: PathBuf,
    _lock: EntryLock,
}

impl Kept {
    /// Copies `folder` into `store/NAME` (NAME its file name) and writes
    /// the journal, once no other referee keeps it (waiting for that). An
    /// earlier copy there without a journal is removed first; one with a
    /// journal is put back first.
    pub fn take(folder: &Path, store: &Path) -> io::Result<Kept> {
        let name = folder
            .file_name()
            .ok_or_else(|| io::Error::other("a bot folder has no name"))?;
        let entry = store.join(name);
        fs::create_dir_all(store)?;
        let lock = EntryLock::wait(&entry)?;
        finish_entry(&entry)?;
        fs::create_dir_all(&entry)?;
        copy_node(folder, &entry.join(TREE))?;
        write_journal(&entry, folder)?;
        Ok(Kept {
            folder: folder.to_path_buf(),
            entry,
            _lock: lock,
        })
    }

    /// Makes the folder what it was when taken, then removes the copy.
    pub fn put_back(self) -> io::Result<()> {
        restore(&self.entry.join(TREE), &self.folder)?;
        drop_entry(&self.entry)
    }
}

/// The exclusive lock on one entry (`NAME.lock` beside `NAME`), released
/// when dropped or when its holder dies.
#[derive(Debug)]
struct EntryLock(Option<Flock<File>>);

impl EntryLock {
    fn open(entry: &Path) -> io::Result<File> {
        let mut path = entry.as_os_str().to_owned();
        path.push(".lock");
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW)
            .open(PathBuf::from(path))
    }

    /// Waits for the lock.
    fn wait(entry: &Path) -> io::Result<EntryLock> {
        Flock::lock(EntryLock::open(entry)?, FlockArg::LockExclusive)
            .map(|f| EntryLock(Some(f)))
            .map_err(|(_, e)| io::Error::from(e))
    }

    /// The lock if nobody holds it.
    fn try_now(entry: &Path) -> io::Result<Option<EntryLock>> {
        match Flock::lock(EntryLock::open(entry)?, FlockArg::LockExclusiveNonblock) {
            Ok(f) => Ok(Some(EntryLock(Some(f)))),
            Err((_, nix::errno::Errno::EWOULDBLOCK)) => Ok(None),
            Err((_, e)) => Err(io::Error::from(e)),
        }
    }
}

impl Drop for EntryLock {
    fn drop(&mut self) {
        // `Flock`'s own drop panics when unlocking fails: then the
        // descriptor stays open, and the lock ends with the process.
        if let Some(Err((file, _))) = self.0.take().map(Flock::unlock) {
            std::mem::forget(file);
        }
    }
}

/// Puts back every folder whose copy an interrupted run left in `store`,
/// and removes copies that were never used; a copy whose lock a live
/// referee holds is its own and left alone. The folders put back, for a
/// progress line.
pub fn recover(store: &Path) -> io::Result<Vec<PathBuf>> {
    let mut put_back = Vec::new();
    let entries = match fs::read_dir(store) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(put_back),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?.path();
        if entry.extension().is_some_and(|e| e == "lock") {
            continue;
        }
        let Some(_lock) = EntryLock::try_now(&entry)? else {
            continue;
        };
        if let Some(folder) = finish_entry(&entry)? {
            put_back.push(folder);
        }
    }
    Ok(put_back)
}

/// Ends what an entry holds: a journalled copy is put back (its folder is
/// returned), anything else removed.
fn finish_entry(entry: &Path) -> io::Result<Option<PathBuf>> {
    if fs::symlink_metadata(entry).is_err() {
        return Ok(None);
    }
    let folder = match fs::read(entry.join(JOURNAL)) {
        Ok(bytes) => Some(PathBuf::from(
            <std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(bytes),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(folder) = &folder {
        restore(&entry.join(TREE), folder)?;
    }
    drop_entry(entry)?;
    Ok(folder)
}

/// Removes an entry, journal first: a removal cut short leaves a copy
/// without a journal, which is never put back.
fn drop_entry(entry: &Path) -> io::Result<()> {
    match fs::remove_file(entry.join(JOURNAL)) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    remove_node(entry)
}

fn write_journal(entry: &Path, folder: &Path) -> io::Result<()> {
    let tmp = entry.join(".folder.new");
    let mut f = File::create(&tmp)?;
    f.write_all(std::os::unix::ffi::OsStrExt::as_bytes(folder.as_os_str()))?;
    f.sync_all()?;
    fs::rename(&tmp, entry.join(JOURNAL))
}

/// Copies `from` (not followed) to the new path `to`, with its bytes,
/// permission bits, owner and times.
fn copy_node(from: &Path, to: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(from)?;
    let kind = meta.file_type();
    if kind.is_symlink() {
        std::os::unix::fs::symlink(fs::read_link(from)?, to)?;
    } else if kind.is_dir() {
        fs::create_dir(to)?;
        for child in sorted_children(from)? {
            copy_node(&from.join(&child), &to.join(&child))?;
        }
    } else if kind.is_file() {
        copy_bytes(from, to)?;
    } else if kind.is_fifo() {
        nix::unistd::mkfifo(to, nix::sys::stat::Mode::from_bits_truncate(0o600))
            .map_err(io::Error::from)?;
    } else {
        return Err(io::Error::other(format!(
            "{}: a socket or device cannot be kept",
            from.display()
        )));
    }
    set_attributes(to, &meta)
}

/// A regular file's bytes into the new file `to`, never through a link.
fn copy_bytes(from: &Path, to: &Path) -> io::Result<()> {
    let mut src = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(from)?;
    let mut dst = OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(to)?;
    io::copy(&mut src, &mut dst)?;
    Ok(())
}

/// Permission bits (not through a symlink), owner (as root) and times
/// of `meta`, each only where `path`'s differ.
fn set_attributes(path: &Path, meta: &Metadata) -> io::Result<()> {
    let have = fs::symlink_metadata(path)?;
    if nix::unistd::geteuid().is_root() && (have.uid(), have.gid()) != (meta.uid(), meta.gid()) {
        std::os::unix::fs::lchown(path, Some(meta.uid()), Some(meta.gid()))?;
    }
    let mode = meta.mode() & 0o7777;
    // A chown clears the set-id bits: the mode is compared after it.
    let have = fs::symlink_metadata(path)?;
    if !meta.file_type().is_symlink() && have.mode() & 0o7777 != mode {
        fs::set_permissions(path, fs::Permissions::from_mode(mode))?;
    }
    // Reading a file may move its access time on; only a changed
    // modification time is put back (with the access time).
    if (have.mtime(), have.mtime_nsec()) == (meta.mtime(), meta.mtime_nsec()) {
        return Ok(());
    }
    let atime = TimeSpec::new(meta.atime(), meta.atime_nsec());
    let mtime = TimeSpec::new(meta.mtime(), meta.mtime_nsec());
    match utimensat(
        nix::fcntl::AT_FDCWD,
        path,
        &atime,
        &mtime,
        UtimensatFlags::NoFollowSymlink,
    ) {
        // Only its owner may set a file's times: an unprivileged referee
        // cannot put back the time of a folder it does not own (the
        // organiser's, made writable to it), whose entries the call
        // changed. Everything in it is put back all the same. (Its owner
        // may show as this user: in the referee's user namespace, ids it
        // does not map read as the overflow id, nobody's.)
        Err(nix::errno::Errno::EPERM) => Ok(()),
        r => r.map_err(io::Error::from),
    }
}

/// Makes `path` equal to the copy `kept`, keeping what already matches.
fn restore(kept: &Path, path: &Path) -> io::Result<()> {
    let want = fs::symlink_metadata(kept)?;
    let have = fs::symlink_metadata(path).ok();
    let kind = want.file_type();
    let same_kind = have.as_ref().is_some_and(|h| {
        let k = h.file_type();
        (kind.is_dir() && k.is_dir())
            || (kind.is_file() && k.is_file() && h.nlink() == 1)
            || (kind.is_symlink()
                && k.is_symlink()
                && fs::read_link(kept).ok() == fs::read_link(path).ok())
            || (kind.is_fifo() && k.is_fifo())
    });
    if !same_kind {
        if have.is_some() {
            remove_node(path).map_err(at("remove", path))?;
        }
        return copy_node(kept, path).map_err(at("copy back", path));
    }
    if kind.is_dir() {
        open_up(path, have.as_ref()).map_err(at("open up", path))?;
        let wanted = sorted_children(kept)?;
        for child in sorted_children(path)? {
            if wanted.binary_search(&child).is_err() {
                let extra = path.join(&child);
                remove_node(&extra).map_err(at("remove", &extra))?;
            }
        }
        for child in &wanted {
            restore(&kept.join(child), &path.join(child))?;
        }
    } else if kind.is_file() && !same_bytes(kept, path)? {
        rewrite(kept, path, have.as_ref()).map_err(at("rewrite", path))?;
    }
    set_attributes(path, &want).map_err(at("set the attributes of", path))
}

/// An error that says what was done to which path.
fn at<'p>(what: &'p str, path: &'p Path) -> impl FnOnce(io::Error) -> io::Error + 'p {
    move |e| {
        // Already said where (a nested step).
        if e.to_string().contains(": ") {
            return e;
        }
        io::Error::new(e.kind(), format!("{what} {}: {e}", path.display()))
    }
}

/// Whether two regular files hold the same bytes (not followed).
fn same_bytes(a: &Path, b: &Path) -> io::Result<bool> {
    let open = |p: &Path| {
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(p)
    };
    let (mut a, mut b) = (open(a)?, open(b)?);
    if a.metadata()?.len() != b.metadata()?.len() {
        return Ok(false);
    }
    let (mut x, mut y) = (vec![0u8; 64 << 10], vec![0u8; 64 << 10]);
    loop {
        let n = read_full(&mut a, &mut x)?;
        let m = read_full(&mut b, &mut y)?;
        if n != m || x[..n] != y[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

fn read_full(f: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// The copy's bytes written over the file in place (same inode).
fn rewrite(kept: &Path, path: &Path, have: Option<&Metadata>) -> io::Result<()> {
    // The owner may have lost write permission to the bot's chmod.
    if have.is_some_and(|m| m.mode() & 0o200 == 0) {
        fs::set_permissions(path, fs::Permissions::from_mode(0o600))?;
    }
    let mut src = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(kept)?;
    let mut dst = OpenOptions::new()
        .write(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    io::copy(&mut src, &mut dst)?;
    Ok(())
}

/// Removes a file, link or whole folder (not followed), opening up
/// folders whose permissions would refuse it.
fn remove_node(path: &Path) -> io::Result<()> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if !meta.file_type().is_dir() {
        return fs::remove_file(path);
    }
    open_up(path, Some(&meta))?;
    for child in sorted_children(path)? {
        remove_node(&path.join(child))?;
    }
    fs::remove_dir(path)
}

/// Gives a folder the bot made unreadable or unwritable to its owner
/// (the same user as the referee, or any as root) its owner's rights back,
/// so that it can be listed and changed.
fn open_up(dir: &Path, meta: Option<&Metadata>) -> io::Result<()> {
    match meta {
        Some(m) if m.mode() & 0o700 == 0o700 => Ok(()),
        Some(m) => {
            fs::set_permissions(dir, fs::Permissions::from_mode((m.mode() | 0o700) & 0o7777))
        }
        None => Ok(()),
    }
}

/// A folder's entry names, sorted.
fn sorted_children(dir: &Path) -> io::Result<Vec<std::ffi::OsString>> {
    let mut names = fs::read_dir(dir)?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<io::Result<Vec<_>>>()?;
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// Everything the module promises to keep, as one comparable listing:
    /// path, kind, permission bits, size, bytes or link target, times.
    fn listing(root: &Path) -> Vec<String> {
        let mut out = Vec::new();
        fn walk(root: &Path, rel: &Path, out: &mut Vec<String>) {
            let path = root.join(rel);
            let meta = fs::symlink_metadata(&path).expect("stat");
            let kind = meta.file_type();
            let body = if kind.is_symlink() {
                format!("-> {}", fs::read_link(&path).expect("link").display())
            } else if kind.is_file() {
                format!("{:?}", fs::read(&path).expect("read"))
            } else {
                String::new()
            };
            out.push(format!(
                "{} {:?} {:o} {} {} {}.{}",
                rel.display(),
                kind,
                meta.mode() & 0o7777,
                if kind.is_dir() { 0 } else { meta.len() },
                body,
                meta.mtime(),
                meta.mtime_nsec()
            ));
            if kind.is_dir() {
                for child in sorted_children(&path).expect("list") {
                    walk(root, &rel.join(child), out);
                }
            }
        }
        walk(root, Path::new(""), &mut out);
        out
    }

    fn folder(base: &Path) -> PathBuf {
        let f = base.join("bot");
        fs::create_dir_all(f.join("sub/deep")).expect("mkdir");
        fs::write(f.join("data.txt"), "1 2 3\n").expect("write");
        fs::write(f.join("sub/deep/model.bin"), vec![7u8; 200_000]).expect("write");
        fs::write(f.join("run.sh"), "#!/bin/sh\necho 1\n").expect("write");
        fs::set_permissions(f.join("run.sh"), fs::Permissions::from_mode(0o755)).expect("chmod");
        symlink("data.txt", f.join("link")).expect("symlink");
        f
    }

    /// Every kind of change a call could make to a folder.
    fn vandalise(f: &Path, outside: &Path) {
        fs::write(f.join("data.txt"), "1 2 3\n4\n").expect("append");
        fs::write(f.join("new.txt"), "x").expect("create");
        fs::remove_file(f.join("run.sh")).expect("rm");
        fs::create_dir(f.join("run.sh")).expect("dir in place of a file");
        fs::remove_file(f.join("link")).expect("rm link");
        symlink(outside, f.join("link")).expect("link elsewhere");
        fs::write(f.join("sub/deep/model.bin"), vec![8u8; 200_000]).expect("same size");
        fs::create_dir_all(f.join("sub/locked/inner")).expect("mkdir");
        fs::set_permissions(f.join("sub/locked"), fs::Permissions::from_mode(0o0)).expect("chmod");
        fs::set_permissions(f.join("sub"), fs::Permissions::from_mode(0o500)).expect("chmod");
    }

    #[test]
    fn a_folder_is_put_back_exactly_and_the_copy_removed() {
        let base = tempfile::tempdir().expect("tempdir");
        let f = folder(base.path());
        let outside = base.path().join("outside.txt");
        fs::write(&outside, "not the bot's").expect("write");
        let before = listing(&f);
        let data_inode = fs::metadata(f.join("data.txt")).expect("stat").ino();
        let store = base.path().join(".preflight");
        let kept = Kept::take(&f, &store).expect("take");
        vandalise(&f, &outside);
        assert_ne!(listing(&f), before);
        kept.put_back().expect("put back");
        assert_eq!(listing(&f), before);
        assert_eq!(
            fs::metadata(f.join("data.txt")).expect("stat").ino(),
            data_inode,
            "a changed file is rewritten in place"
        );
        assert_eq!(fs::read_to_string(&outside).expect("read"), "not the bot's");
        assert!(!store.join("bot").exists(), "the copy was removed");
    }

    #[test]
    fn a_copy_in_use_by_a_live_referee_is_not_recovered() {
        let base = tempfile::tempdir().expect("tempdir");
        let f = folder(base.path());
        let before = listing(&f);
        let store = base.path().join(".preflight");
        let kept = Kept::take(&f, &store).expect("take");
        fs::write(f.join("data.txt"), "during the call\n").expect("write");
        // Another referee starting now (a shard) leaves it alone.
        assert!(recover(&store).expect("recover").is_empty());
        assert_eq!(
            fs::read_to_string(f.join("data.txt")).expect("read"),
            "during the call\n"
        );
        kept.put_back().expect("put back");
        assert_eq!(listing(&f), before);
    }

    #[test]
    fn a_hard_link_to_another_file_is_replaced_not_written_through() {
        let base = tempfile::tempdir().expect("tempdir");
        let f = folder(base.path());
        let other = base.path().join("other.txt");
        fs::write(&other, "other").expect("write");
        let before = listing(&f);
        let kept = Kept::take(&f, &base.path().join(".preflight")).expect("take");
        fs::remove_file(f.join("data.txt")).expect("rm");
        fs::hard_link(&other, f.join("data.txt")).expect("link");
        kept.put_back().expect("put back");
        assert_eq!(listing(&f), before);
        assert_eq!(fs::read_to_string(&other).expect("read"), "other");
    }

    #[test]
    fn an_interrupted_call_is_put_back_by_the_next_run() {
        let base = tempfile::tempdir().expect("tempdir");
        let f = folder(base.path());
        let before = listing(&f);
        let store = base.path().join(".preflight");
        let kept = Kept::take(&f, &store).expect("take");
        vandalise(&f, base.path());
        // The run dies here: its lock ends, the copy and its journal stay.
        drop(kept);
        let put_back = recover(&store).expect("recover");
        assert_eq!(put_back, vec![f.clone()]);
        assert_eq!(listing(&f), before);
        assert!(recover(&store).expect("again").is_empty());
    }

    #[test]
    fn a_copy_cut_short_is_removed_and_its_folder_left_alone() {
        let base = tempfile::tempdir().expect("tempdir");
        let f = folder(base.path());
        let store = base.path().join(".preflight");
        // A copy that never got its journal: the folder was not called.
        fs::create_dir_all(store.join("bot/tree")).expect("mkdir");
        fs::write(store.join("bot/tree/half"), "x").expect("write");
        fs::write(f.join("later.txt"), "written after").expect("write");
        let before = listing(&f);
        assert!(recover(&store).expect("recover").is_empty());
        assert_eq!(listing(&f), before);
        assert!(!store.join("bot").exists());
    }

    #[test]
    fn a_folder_holding_a_socket_is_refused() {
        let base = tempfile::tempdir().expect("tempdir");
        let f = folder(base.path());
        let _socket = std::os::unix::net::UnixListener::bind(f.join("s")).expect("bind");
        let err = Kept::take(&f, &base.path().join(".preflight")).expect_err("refused");
        assert!(err.to_string().contains("socket or device"), "{err}");
    }
}
