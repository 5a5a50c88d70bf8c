//! Stall groups: a cgroup v2 group per running call, so that the time a
//! bot's processes waited for a CPU can be read whole, including processes
//! that already exited (helpers an interpreter's launcher starts and reaps).
//!
//! The kernel's pressure-stall accounting (PSI) keeps, for every cgroup v2
//! group, the time during which at least one of its tasks was runnable but
//! not running (`cpu.pressure`, `some total=` in microseconds), and
//! `cpu.stat` keeps the CPU time its tasks used. Both count tasks that are
//! gone. A process is put into its group at birth (`clone3` with
//! `CLONE_INTO_CGROUP`, see `spawn`), which costs nothing like moving a
//! process later (a move waits for an RCU grace period, ~15 ms).
//!
//! A bot's calls can run side by side (two tournaments, two games), so each
//! bot has a pool: a call leases a group no other call is using, and gives
//! it back when its processes are reaped. Groups are made on demand and
//! removed with the pool.
//!
//! Where cgroup v2 is not mounted, this user may not create groups there,
//! or PSI is off (`psi=0`, or `CONFIG_PSI_DEFAULT_DISABLED` without
//! `psi=1`), there is no root and callers fall back to per-task figures.

use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// CPU used and time stalled waiting for a CPU, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stall {
    pub cpu_us: u64,
    pub waiting_us: u64,
}

/// One cgroup v2 group; removed when dropped (once empty).
#[derive(Debug)]
pub struct StallGroup {
    dir: PathBuf,
    /// The directory, for `CLONE_INTO_CGROUP`.
    fd: OwnedFd,
    pressure: File,
    stat: File,
}

fn parse_pressure(text: &str) -> Option<u64> {
    let some = text.lines().find(|l| l.starts_with("some "))?;
    some.split_ascii_whitespace()
        .find_map(|f| f.strip_prefix("total="))?
        .parse()
        .ok()
}

fn parse_usage(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("usage_usec "))?
        .trim()
        .parse()
        .ok()
}

fn read_all(file: &File, buf: &mut [u8]) -> Option<usize> {
    file.read_at(buf, 0).ok()
}

impl StallGroup {
    /// Makes `<root>/<name>` and opens what is read of it.
    fn create(root: &Path, name: &str) -> std::io::Result<StallGroup> {
        let dir = root.join(name);
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        let opened = (|| {
            let fd = OwnedFd::from(
                std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
                    .open(&dir)?,
            );
            let pressure = File::open(dir.join("cpu.pressure"))?;
            let stat = File::open(dir.join("cpu.stat"))?;
            Ok(StallGroup {
                dir: dir.clone(),
                fd,
                pressure,
                stat,
            })
        })();
        if opened.is_err() {
            let _ = std::fs::remove_dir(&dir);
        }
        opened
    }

    /// The figures now; `None` if unreadable (PSI off).
    pub fn read(&self) -> Option<Stall> {
        let mut buf = [0u8; 512];
        let n = read_all(&self.pressure, &mut buf)?;
        let waiting_us = parse_pressure(std::str::from_utf8(&buf[..n]).ok()?)?;
        let n = read_all(&self.stat, &mut buf)?;
        let cpu_us = parse_usage(std::str::from_utf8(&buf[..n]).ok()?)?;
        Some(Stall { cpu_us, waiting_us })
    }

    /// The group's directory fd, for `clone3`.
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl Drop for StallGroup {
    fn drop(&mut self) {
        // Fails (harmlessly) while a process is still inside; the kernel
        // keeps an empty group until then.
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// One bot's stall groups.
#[derive(Debug)]
pub struct StallPool {
    root: PathBuf,
    name: String,
    free: Mutex<Vec<StallGroup>>,
}

/// A group leased by one call; back in its pool when dropped.
#[derive(Debug)]
pub struct StallLease {
    group: Option<StallGroup>,
    pool: Arc<StallPool>,
}

impl StallLease {
    pub fn group(&self) -> Option<&StallGroup> {
        self.group.as_ref()
    }
}

impl Drop for StallLease {
    fn drop(&mut self) {
        if let Some(g) = self.group.take() {
            self.pool
                .free
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(g);
        }
    }
}

impl StallPool {
    /// A pool of groups named `referee-<pid>-stall-<name>-<n>` under `root`.
    pub fn new(root: &Path, name: &str) -> Arc<StallPool> {
        let safe: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Arc::new(StallPool {
            root: root.to_path_buf(),
            name: format!("referee-{}-stall{n}-{safe}", std::process::id()),
            free: Mutex::new(Vec::new()),
        })
    }

    /// A group no other call is using, made if need be. `None` if one
    /// cannot be made.
    pub fn lease(self: &Arc<Self>) -> Option<StallLease> {
        let reused = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let group = match reused {
            Some(g) => g,
            None => {
                static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                StallGroup::create(&self.root, &format!("{}-{n}", self.name)).ok()?
            }
        };
        Some(StallLease {
            group: Some(group),
            pool: Arc::clone(self),
        })
    }
}

/// The cgroup v2 mount point, from `/proc/self/mountinfo`.
fn v2_mount() -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    text.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        (right.split_ascii_whitespace().next()? == "cgroup2")
            .then(|| left.split_ascii_whitespace().nth(4).map(PathBuf::from))?
    })
}

/// [`stall_root`], probed once per process.
pub fn root() -> Option<&'static Path> {
    static ROOT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    ROOT.get_or_init(stall_root).as_deref()
}

/// Where stall groups can be made: this process's own cgroup v2 group, if
/// this user may create groups in it and PSI reports there.
pub fn stall_root() -> Option<PathBuf> {
    let mount = v2_mount()?;
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let root = mount.join(rel.trim().trim_start_matches('/'));
    static PROBES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let probe = StallGroup::create(
        &root,
        &format!("referee-{}-stallprobe{n}", std::process::id()),
    )
    .ok()?;
    probe.read()?;
    drop(probe);
    remove_stale(&root);
    Some(root)
}

/// Removes empty stall groups of referees that died without cleaning up.
fn remove_stale(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("referee-")) else {
            continue;
        };
        if !rest.contains("-stall") {
            continue;
        }
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pressure_and_usage_parse() {
        let p = "some avg10=0.00 avg60=0.00 avg300=0.00 total=54\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=50\n";
        assert_eq!(parse_pressure(p), Some(54));
        assert_eq!(parse_pressure("full total=3\n"), None);
        let s = "usage_usec 1234\nuser_usec 1000\nsystem_usec 234\n";
        assert_eq!(parse_usage(s), Some(1234));
        assert_eq!(parse_usage("user_usec 1\n"), None);
    }

    #[test]
    fn a_lease_is_given_back_and_reused() {
        let Some(root) = stall_root() else {
            return;
        };
        let pool = StallPool::new(&root, "lease test");
        let a = pool.lease().expect("a group");
        let b = pool.lease().expect("a second group while the first is out");
        let (da, db) = (
            a.group().map(|g| g.dir.clone()),
            b.group().map(|g| g.dir.clone()),
        );
        assert_ne!(da, db);
        drop(a);
        let c = pool.lease().expect("reused");
        assert_eq!(c.group().map(|g| g.dir.clone()), da);
        assert!(c.group().and_then(StallGroup::read).is_some());
    }

    #[test]
    fn a_process_is_born_in_its_group_and_its_waits_and_cpu_are_counted_after_it_exits() {
        let Some(root) = stall_root() else {
            return;
        };
        let pool = StallPool::new(&root, "birth test");
        let lease = pool.lease().expect("a group");
        let group = lease.group().expect("leased");
        let before = group.read().expect("readable");
        // A shell that burns a little CPU in a child it reaps, then says
        // which cgroup v2 group it is in.
        let mut cmd = crate::spawn::Command::new("sh");
        cmd.arg("-c")
            .arg("i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; (i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done); cat /proc/self/cgroup")
            .env("PATH", "/usr/bin:/bin")
            .into_cgroup(group.raw_fd());
        let child = cmd.spawn().expect("sh starts");
        assert!(child.in_cgroup, "clone3 into the group");
        let (_, out, _) = child.wait_with_output().expect("sh runs");
        let out = String::from_utf8_lossy(&out);
        let name = group.dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            out.lines().any(|l| l.starts_with("0::") && l.ends_with(&name)),
            "{out}"
        );
        let after = group.read().expect("readable");
        // Both shells' CPU is in the group's figures, though both are gone.
        assert!(after.cpu_us > before.cpu_us + 1000, "{before:?} {after:?}");
    }
}
