//! A process-count limit per bot through the cgroup `pids` controller, when
//! this user may create cgroups (root, or a delegated cgroup v2 subtree).
//! Elsewhere `RLIMIT_NPROC` stands in (it does not bind root).

use std::ffi::CString;
use std::path::{Path, PathBuf};

/// One bot's pids cgroup; removed when dropped (once empty).
#[derive(Debug)]
pub struct PidsGroup {
    dir: PathBuf,
    /// `<dir>/cgroup.procs`, pre-built for the child to write itself into.
    pub(crate) procs: CString,
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
    let root = candidates.into_iter().flatten().find(|d| {
        let probe = d.join(format!("referee-{}-probe", std::process::id()));
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
    /// Creates `<root>/referee-<pid>-<name>` with `pids.max = max`.
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
        std::fs::write(dir.join("pids.max"), max.to_string())?;
        let procs = CString::new(dir.join("cgroup.procs").to_string_lossy().into_owned())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        Ok(PidsGroup { dir, procs })
    }
}

impl Drop for PidsGroup {
    fn drop(&mut self) {
        // Fails (harmlessly) while processes remain; the kernel keeps an
        // empty group's directory until then.
        let _ = std::fs::remove_dir(&self.dir);
    }
}
