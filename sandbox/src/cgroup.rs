//! Per-bot cgroups: a process-count limit (`pids`) and a memory limit
//! (`memory`) that count every process of the bot together, shared memory
//! and `memfd`s included, when this user may create cgroups (root, or a
//! delegated cgroup v2 subtree). Elsewhere `RLIMIT_NPROC` and a per-process
//! `RLIMIT_DATA` stand in, and the start-up line says so.
//!
//! Moving a process into a cgroup is expensive when it happens now and
//! then: the kernel waits for an RCU grace period (about 15 ms here) before
//! the move, so a bot that starts a Python process per move would pay that
//! on every move. A process is born in the cgroups of the thread that
//! clones it, though, and cgroup v1 lets a single thread join a group. So
//! with cgroup v1 the bot's starter thread (`starter.rs`) moves itself
//! into the bot's groups once and then starts every process of that bot:
//! they are born inside, and nothing moves again. (With cgroup v2 a thread
//! cannot leave its process's group; there each process moves itself in
//! before exec.)
//!
//! Groups are made beneath the referee's own group of each hierarchy, so
//! limits set above the referee still hold for its bots.

use std::ffi::CString;
use std::path::{Path, PathBuf};

/// Where this user may make per-bot groups, per controller (the same
/// directory for both under cgroup v2).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Roots {
    pub pids: Option<PathBuf>,
    pub memory: Option<PathBuf>,
}

/// The limits of one bot's groups.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Processes and threads at once.
    pub processes: u64,
    /// Bytes of memory for all its processes together.
    pub memory: u64,
}

/// One bot's cgroups; emptied and removed when dropped.
#[derive(Debug)]
pub struct BotGroup {
    /// Each group directory (one per v1 hierarchy, or one v2 group).
    dirs: Vec<PathBuf>,
    /// `<dir>/cgroup.procs` of each, pre-built for the child to write
    /// itself into when it was not born inside.
    pub(crate) procs: Vec<CString>,
    pids: Option<PathBuf>,
    memory: Option<PathBuf>,
    /// Whether the bot's starter thread is a member (it then counts in
    /// `pids.current`).
    starter_inside: bool,
}

/// Kills every process left in a group (processes that escaped their
/// process group, or outlived a referee killed with SIGKILL), then removes
/// it. A group that is not empty yet stays; the next start retries.
///
/// Never this process: under cgroup v1 `cgroup.procs` lists every process
/// with a thread in the group, and the bot's starter thread is one of the
/// referee's. A thread that has just been joined may still be listed for
/// a moment (it is removed from its groups after `pthread_join` returns),
/// so removal is retried for up to 100 ms.
fn empty_and_remove(dir: &Path) {
    let me = std::process::id();
    for _ in 0..20 {
        if let Ok(text) = std::fs::read_to_string(dir.join("cgroup.procs")) {
            for pid in text.lines().filter_map(|l| l.trim().parse::<u32>().ok()) {
                if pid != me {
                    // SAFETY: kill has no memory effects; the pids are
                    // members of a group this referee (or a dead one) made
                    // for its bots.
                    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
                }
            }
        }
        if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Kills everything in the groups of the referee `pid` and removes them,
/// waiting up to two seconds for the killed processes to be reaped (by
/// init, their parent once the referee is gone). Run by the guardian.
pub fn remove_groups_of(roots: &Roots, pid: u32) {
    let prefix = format!("referee-{pid}-");
    let mut dirs = Vec::new();
    for root in [&roots.pids, &roots.memory].into_iter().flatten() {
        if let Ok(entries) = std::fs::read_dir(root) {
            dirs.extend(
                entries
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                    .map(|e| e.path()),
            );
        }
    }
    for _ in 0..40 {
        dirs.retain(|d| {
            empty_and_remove(d);
            d.exists()
        });
        if dirs.is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Removes groups left by referees that died without cleaning up (SIGKILL
/// skips destructors), killing what still runs in them.
fn remove_stale(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("referee-")) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            empty_and_remove(&e.path());
        }
    }
}

/// Where per-bot groups can be made, for each controller.
pub fn roots() -> Roots {
    let usable = |d: &PathBuf| {
        // Unique per probe: two threads probing at once must not see each
        // other's directory (`AlreadyExists`) and conclude there is no cgroup.
        static PROBES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let probe = d.join(format!("referee-{}-probe{n}", std::process::id()));
        let ok = std::fs::create_dir(&probe).is_ok();
        let _ = std::fs::remove_dir(&probe);
        ok
    };
    let find = |controller: &str| {
        let v2 = own_cgroup_v2().filter(|d| {
            controllers(&d.join("cgroup.subtree_control")).contains(&controller.to_string())
        });
        let root = v2
            .into_iter()
            .chain(own_cgroup_v1(controller))
            .find(usable)?;
        remove_stale(&root);
        Some(root)
    };
    Roots {
        pids: find("pids"),
        memory: find("memory"),
    }
}

/// The referee's own group in the v1 hierarchy of `controller`.
fn own_cgroup_v1(controller: &str) -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = text.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, list, path) = (parts.next()?, parts.next()?, parts.next()?);
        list.split(',').any(|c| c == controller).then_some(path)
    })?;
    let dir = Path::new("/sys/fs/cgroup")
        .join(controller)
        .join(rel.trim_start_matches('/'));
    dir.join("cgroup.procs").exists().then_some(dir)
}

fn own_cgroup_v2() -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = text.lines().find_map(|l| l.strip_prefix("0::"))?;
    let base = Path::new("/sys/fs/cgroup");
    base.join("cgroup.controllers")
        .exists()
        .then(|| base.join(rel.trim_start_matches('/')))
}

fn controllers(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .map(|t| t.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The first number after `key ` in a flat-keyed cgroup file.
fn keyed(file: &Path, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

impl BotGroup {
    /// Makes `referee-<pid>-<n>-<name>` under each root; [`BotGroup::limit`]
    /// sets the limits.
    pub fn create(roots: &Roots, name: &str) -> std::io::Result<BotGroup> {
        let safe: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        // Unique per group, so two confinements never share (or remove) one.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let leaf = format!("referee-{}-{n}-{safe}", std::process::id());
        let mut group = BotGroup {
            dirs: Vec::new(),
            procs: Vec::new(),
            pids: None,
            memory: None,
            starter_inside: false,
        };
        for root in [&roots.pids, &roots.memory].into_iter().flatten() {
            let dir = root.join(&leaf);
            if group.dirs.contains(&dir) {
                continue;
            }
            match std::fs::create_dir(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
            let procs = CString::new(dir.join("cgroup.procs").to_string_lossy().into_owned())
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
            group.procs.push(procs);
            group.dirs.push(dir);
        }
        group.pids = roots.pids.as_ref().map(|r| r.join(&leaf));
        group.memory = roots.memory.as_ref().map(|r| r.join(&leaf));
        Ok(group)
    }

    /// The `tasks` files a thread joins (cgroup v1 only: a v2 group takes
    /// whole processes), or none.
    pub(crate) fn thread_tasks(&self) -> Vec<PathBuf> {
        let tasks: Vec<PathBuf> = self.dirs.iter().map(|d| d.join("tasks")).collect();
        if tasks.iter().all(|t| t.exists()) {
            tasks
        } else {
            Vec::new()
        }
    }

    /// Sets the limits; `starter_inside`: the bot's starter thread joined
    /// the groups, and its own task comes on top of the process limit.
    pub fn limit(&mut self, limits: Limits, starter_inside: bool) -> std::io::Result<()> {
        self.starter_inside = starter_inside;
        let group = self;
        if let Some(dir) = &group.pids {
            let allowance = limits.processes.saturating_add(u64::from(starter_inside));
            std::fs::write(dir.join("pids.max"), allowance.to_string())?;
        }
        if let Some(dir) = &group.memory {
            let bytes = limits.memory.to_string();
            if dir.join("memory.max").exists() {
                std::fs::write(dir.join("memory.max"), &bytes)?;
                // No swap: the limit is on memory, not on what fits in RAM.
                let _ = std::fs::write(dir.join("memory.swap.max"), "0");
            } else {
                std::fs::write(dir.join("memory.limit_in_bytes"), &bytes)?;
                let _ = std::fs::write(dir.join("memory.memsw.limit_in_bytes"), &bytes);
            }
        }
        Ok(())
    }

    /// How many of the bot's processes (and threads) exist now, zombies
    /// included; the starter thread is not counted.
    pub fn bot_tasks(&self) -> Option<u64> {
        let text = std::fs::read_to_string(self.pids.as_ref()?.join("pids.current")).ok()?;
        let n: u64 = text.trim().parse().ok()?;
        Some(n.saturating_sub(u64::from(self.starter_inside)))
    }

    /// Whether the bot has a pids group (which counts and lists its
    /// processes).
    pub fn counts_processes(&self) -> bool {
        self.pids.is_some()
    }

    /// The processes in the bot's pids group now, as this process sees
    /// their ids; never this process (whose starter thread may be a member).
    pub fn processes(&self) -> Vec<u32> {
        let Some(dir) = &self.pids else {
            return Vec::new();
        };
        let own = std::process::id();
        std::fs::read_to_string(dir.join("cgroup.procs"))
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|p| p.parse::<u32>().ok())
            .filter(|&p| p != own)
            .collect()
    }

    /// How many times the kernel killed a process of the bot for going
    /// over its memory limit, so far.
    pub fn oom_kills(&self) -> Option<u64> {
        let dir = self.memory.as_ref()?;
        keyed(&dir.join("memory.events"), "oom_kill")
            .or_else(|| keyed(&dir.join("memory.oom_control"), "oom_kill"))
    }

    /// Whether the bot's memory is limited as a whole.
    pub fn limits_memory(&self) -> bool {
        self.memory.is_some()
    }
}

impl Drop for BotGroup {
    fn drop(&mut self) {
        // The starter thread has ended (it is dropped first, see `Inner`).
        for dir in &self.dirs {
            empty_and_remove(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_at_once_all_find_what_one_probe_finds() {
        let alone = roots();
        // Many threads of one process probe together (tests, or several
        // confinements prepared at once): none may miss the root because
        // another thread's probe directory was there at that moment.
        let found: Vec<Roots> = std::thread::scope(|s| {
            let probes: Vec<_> = (0..16).map(|_| s.spawn(roots)).collect();
            probes.into_iter().map(|p| p.join().unwrap()).collect()
        });
        for f in found {
            assert_eq!(f, alone);
        }
    }

    #[test]
    fn emptying_a_group_spares_this_process_whose_thread_is_inside() {
        let roots = roots();
        let Some(root) = roots.pids.clone() else {
            return; // no cgroups for this user
        };
        let group = BotGroup::create(
            &Roots {
                pids: Some(root),
                memory: None,
            },
            "spare",
        )
        .unwrap();
        let tasks = group.thread_tasks();
        if tasks.is_empty() {
            return; // cgroup v2: a thread cannot join alone
        }
        // A thread of this process joins the group and stays, as a bot's
        // starter thread does (or seems to, just after it is joined).
        let (joined_tx, joined) = std::sync::mpsc::channel();
        let (stop_tx, stop) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            // SAFETY: gettid has no preconditions.
            let tid = unsafe { libc::gettid() };
            std::fs::write(&tasks[0], tid.to_string()).unwrap();
            joined_tx.send(()).unwrap();
            let _ = stop.recv();
        });
        joined.recv().unwrap();
        let dir = group.dirs[0].clone();
        let listed = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap();
        assert!(listed.contains(&std::process::id().to_string()));
        // Were this process killed, the test binary would die here.
        empty_and_remove(&dir);
        assert!(dir.exists(), "a group with a live thread cannot go");
        stop_tx.send(()).unwrap();
        t.join().unwrap();
        drop(group);
    }

    #[test]
    fn keyed_reads_one_counter() {
        let dir = std::env::temp_dir().join(format!("referee-keyed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("memory.events");
        std::fs::write(&f, "low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n").unwrap();
        assert_eq!(keyed(&f, "oom_kill"), Some(2));
        assert_eq!(keyed(&f, "oom"), Some(1));
        assert_eq!(keyed(&f, "nope"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
