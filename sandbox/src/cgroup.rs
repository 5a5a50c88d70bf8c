//! A process-count limit per bot through the cgroup `pids` controller, when
//! this user may create cgroups (root, or a delegated cgroup v2 subtree).
//! Elsewhere `RLIMIT_NPROC` stands in (it does not bind root).
//!
//! Moving a process into a cgroup is expensive when it happens now and
//! then: the kernel waits for an RCU grace period (about 15 ms here) before
//! the move, so a bot that starts a Python process per move would pay that
//! on every move. A process is born in the cgroup of the thread that
//! clones it, though, and cgroup v1 lets a single thread join a group. So
//! with cgroup v1 each bot gets a *starter thread* that moves itself into
//! the bot's group once and then starts every process of that bot: they are
//! born inside, and nothing moves again. (With cgroup v2 a thread cannot
//! leave its process's group; there each process moves itself in before
//! exec.)

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Mutex;
use std::thread::JoinHandle;

/// One bot's pids cgroup; removed when dropped (once empty).
#[derive(Debug)]
pub struct PidsGroup {
    dir: PathBuf,
    /// `<dir>/cgroup.procs`, pre-built for the child to write itself into.
    pub(crate) procs: CString,
    /// The thread that starts this bot's processes from inside the group
    /// (cgroup v1), if it got in.
    pub(crate) starter: Option<Starter>,
}

/// A job for the starter thread; the flag says whether the thread is in
/// the group (if not, the child must move itself in).
pub(crate) type Job = Box<dyn FnOnce(bool) + Send>;

/// A thread inside a bot's cgroup that runs start jobs.
#[derive(Debug)]
pub(crate) struct Starter {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    thread: Option<JoinHandle<()>>,
    /// Whether the thread got into the group (it then counts in `pids.current`).
    inside: bool,
}

impl Starter {
    /// Starts the thread and moves it into the group through `tasks`.
    fn start(tasks: PathBuf) -> std::io::Result<Starter> {
        let (tx, rx) = mpsc::channel::<Job>();
        let (joined_tx, joined) = mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("bot-starter".into())
            .spawn(move || {
                // SAFETY: gettid has no preconditions.
                let tid = unsafe { libc::gettid() };
                let inside = std::fs::write(&tasks, tid.to_string()).is_ok();
                let _ = joined_tx.send(inside);
                for job in rx {
                    job(inside);
                }
            })?;
        Ok(Starter {
            jobs: Mutex::new(Some(tx)),
            thread: Some(thread),
            inside: joined.recv().unwrap_or(false),
        })
    }

    /// Runs `job` on the starter thread. False if the thread is gone.
    pub(crate) fn run(&self, job: Job) -> bool {
        let jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        jobs.as_ref().is_some_and(|tx| tx.send(job).is_ok())
    }
}

impl Drop for Starter {
    fn drop(&mut self) {
        // Closing the channel ends the thread's loop.
        self.jobs.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(t) = self.thread.take() {
            if t.thread().id() != std::thread::current().id() {
                let _ = t.join();
            }
        }
    }
}

/// Removes empty groups left by referees that died without cleaning up
/// (SIGKILL skips destructors). A group still holding processes stays.
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
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

/// Where pids cgroups can be created, if anywhere.
pub fn pids_root() -> Option<PathBuf> {
    let own = own_cgroup_v2();
    let candidates = [
        // cgroup v2: our own cgroup, if the pids controller is enabled for children.
        own.filter(|d| {
            controllers(&d.join("cgroup.subtree_control")).contains(&"pids".to_string())
        }),
        // cgroup v1: the pids hierarchy.
        Some(PathBuf::from("/sys/fs/cgroup/pids")).filter(|d| d.join("cgroup.procs").exists()),
    ];
    // Unique per probe: two threads probing at once must not see each
    // other's directory (`AlreadyExists`) and conclude there is no cgroup.
    static PROBES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let root = candidates.into_iter().flatten().find(|d| {
        let probe = d.join(format!("referee-{}-probe{n}", std::process::id()));
        let ok = std::fs::create_dir(&probe).is_ok();
        let _ = std::fs::remove_dir(&probe);
        ok
    })?;
    remove_stale(&root);
    Some(root)
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

impl PidsGroup {
    /// Creates `<root>/referee-<pid>-<name>` with `pids.max = max` (plus
    /// one for the starter thread, which counts as a task of the group).
    pub fn create(root: &Path, name: &str, max: u64) -> std::io::Result<PidsGroup> {
        let safe: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        // Unique per group, so two confinements never share (or remove) one.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = root.join(format!("referee-{}-{n}-{safe}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        let tasks = dir.join("tasks");
        let starter = if tasks.exists() {
            Starter::start(tasks).ok()
        } else {
            None
        };
        let allowance = max.saturating_add(u64::from(starter.is_some()));
        std::fs::write(dir.join("pids.max"), allowance.to_string())?;
        let procs = CString::new(dir.join("cgroup.procs").to_string_lossy().into_owned())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        Ok(PidsGroup {
            dir,
            procs,
            starter,
        })
    }
}

impl PidsGroup {
    /// How many of the bot's processes (and threads) exist now, zombies
    /// included; the starter thread is not counted.
    pub fn bot_tasks(&self) -> Option<u64> {
        let text = std::fs::read_to_string(self.dir.join("pids.current")).ok()?;
        let n: u64 = text.trim().parse().ok()?;
        let starter = self.starter.as_ref().is_some_and(|s| s.inside);
        Some(n.saturating_sub(u64::from(starter)))
    }
}

impl Drop for PidsGroup {
    fn drop(&mut self) {
        // The starter thread leaves the group by ending.
        drop(self.starter.take());
        // Fails (harmlessly) while processes remain; the kernel keeps an
        // empty group's directory until then.
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_at_once_all_find_what_one_probe_finds() {
        let alone = pids_root();
        // Many threads of one process probe together (tests, or several
        // confinements prepared at once): none may miss the root because
        // another thread's probe directory was there at that moment.
        let found: Vec<Option<PathBuf>> = std::thread::scope(|s| {
            let probes: Vec<_> = (0..16).map(|_| s.spawn(pids_root)).collect();
            probes.into_iter().map(|p| p.join().unwrap()).collect()
        });
        for f in found {
            assert_eq!(f, alone);
        }
    }
}
