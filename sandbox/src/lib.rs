//! Everything the referee does to a bot process that needs `unsafe`:
//! starting it ([`spawn`]: clone, confinement, exec) and the few raw
//! process syscalls (pidfd, wait4 with resource usage) that std and nix do
//! not wrap. The rest of the referee is `#![forbid(unsafe_code)]`.
//!
//! A [`Confinement`] is prepared once per bot in the parent (Landlock rules
//! opened, the seccomp filter compiled: everything that allocates or opens
//! files) and applied in the child between clone and exec, where only
//! async-signal-safe calls are made:
//!
//! 1. die with the referee (`PR_SET_PDEATHSIG`), own process group, stdio,
//!    working directory (done by [`spawn`]),
//! 2. join the bot's pids cgroup; resource limits: committed memory
//!    (`RLIMIT_DATA`, which counts what a process really allocates, not the
//!    address space the JVM and V8 reserve), no core files,
//! 3. `no_new_privs`, then the Landlock ruleset (files),
//! 4. the seccomp filter (no internet sockets).

pub mod cgroup;
pub mod fs_rules;
pub mod policy;
pub mod probe;
pub mod seccomp;
pub mod spawn;
pub mod sys;

pub use policy::{FolderAccess, Policy};
pub use probe::Support;

use landlock::{
    Access, AccessFs, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError,
    ABI,
};
use seccompiler::BpfProgram;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What one bot's processes may touch.
#[derive(Debug, Clone)]
pub struct Setup<'a> {
    pub policy: &'a Policy,
    /// The bot's own folder (granted per the policy; skipped if missing).
    pub own_folder: &'a Path,
    /// Trees the bot must not touch at all: the tournament folder, the
    /// results database. Everything else stays readable and executable.
    pub denied: &'a [PathBuf],
    /// Extra read-only grants, even inside a denied tree.
    pub readable: &'a [PathBuf],
}

/// What is applied to every process of one bot between fork and exec.
/// Cheap to clone (the prepared rules are shared).
#[derive(Debug, Clone, Default)]
pub struct Confinement {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    landlock: Option<OwnedFd>,
    seccomp: Option<BpfProgram>,
    /// RLIMIT_DATA in bytes.
    memory: Option<u64>,
    /// The bot's pids cgroup, which every process joins before exec.
    pids: Option<cgroup::PidsGroup>,
    /// RLIMIT_NPROC, where no cgroup is available (it binds non-root users only).
    nproc: Option<u64>,
}

impl Confinement {
    /// No confinement but "die with the referee" (for `referee play` and tests).
    pub fn minimal() -> Confinement {
        Confinement::default()
    }

    /// Prepares the confinement of one bot with what this machine supports.
    pub fn prepare(setup: &Setup<'_>, support: &Support) -> Result<Confinement, String> {
        let landlock = match support.landlock_abi {
            Some(_) => Some(landlock_ruleset(setup).map_err(|e| format!("landlock: {e}"))?),
            None => None,
        };
        let seccomp = match (setup.policy.network, support.seccomp) {
            (false, true) => Some(seccomp::no_network()?),
            _ => None,
        };
        let pids = match &support.pids_cgroup {
            Some(root) => {
                let name = setup
                    .own_folder
                    .file_name()
                    .map_or_else(|| "bot".into(), |n| n.to_string_lossy());
                Some(
                    cgroup::PidsGroup::create(root, &name, setup.policy.processes)
                        .map_err(|e| format!("pids cgroup: {e}"))?,
                )
            }
            None => None,
        };
        // RLIMIT_NPROC counts all of the user's processes, so the bot's
        // allowance comes on top of what the user already runs.
        let nproc = match (&pids, support.root) {
            (None, false) => Some(user_processes().saturating_add(setup.policy.processes)),
            _ => None,
        };
        Ok(Confinement {
            inner: Arc::new(Inner {
                landlock,
                seccomp,
                memory: Some(setup.policy.memory_mb.saturating_mul(1 << 20)),
                pids,
                nproc,
            }),
        })
    }

    /// The thread that starts this bot's processes inside its cgroup, if any.
    pub(crate) fn starter(&self) -> Option<&cgroup::Starter> {
        self.inner.pids.as_ref().and_then(|g| g.starter.as_ref())
    }

    /// How many processes of this bot exist now (zombies included), from its
    /// pids cgroup; `None` without one. Zero after a call's process has
    /// been reaped means nothing escaped and there is nothing to sweep.
    pub fn bot_processes(&self) -> Option<u64> {
        self.inner
            .pids
            .as_ref()
            .and_then(cgroup::PidsGroup::bot_tasks)
    }

    /// Whether files and network are confined (false for [`Confinement::minimal`]).
    pub fn is_confined(&self) -> bool {
        self.inner.landlock.is_some() || self.inner.seccomp.is_some()
    }

    /// Applies the confinement to the calling process: run by the child of
    /// [`spawn::Command::spawn`] between clone and exec. Returns the errno of
    /// the step that failed.
    ///
    /// # Safety
    /// Only async-signal-safe system calls on data prepared by
    /// [`Confinement::prepare`]; nothing allocates. Must be called in a
    /// freshly cloned child that is about to exec (it restricts the calling
    /// process for good).
    pub(crate) unsafe fn apply_in_child(&self, join_cgroup: bool) -> Result<(), i32> {
        let inner = &*self.inner;
        let errno = || {
            std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO)
        };
        if let Some(group) = inner.pids.as_ref().filter(|_| join_cgroup) {
            // "0" moves the writing process into the group.
            let fd = libc::open(group.procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return Err(errno());
            }
            let written = libc::write(fd, b"0".as_ptr().cast(), 1);
            let e = errno();
            libc::close(fd);
            if written != 1 {
                return Err(e);
            }
        }
        if let Some(n) = inner.nproc {
            let lim = libc::rlimit {
                rlim_cur: n,
                rlim_max: n,
            };
            libc::setrlimit(libc::RLIMIT_NPROC, &lim);
        }
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        if let Some(bytes) = inner.memory {
            let lim = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &lim) != 0 {
                return Err(errno());
            }
        }
        if (inner.landlock.is_some() || inner.seccomp.is_some())
            && libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
        {
            return Err(errno());
        }
        if let Some(fd) = &inner.landlock {
            if libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32) != 0 {
                return Err(errno());
            }
        }
        if let Some(bpf) = &inner.seccomp {
            // No allocation: the error of a failed load is an OS error.
            if seccompiler::apply_filter(bpf).is_err() {
                return Err(errno());
            }
        }
        Ok(())
    }
}

/// The highest Landlock ABI this crate knows; older kernels get the subset
/// they support (best effort), newer ones this level.
const ABI_LEVEL: ABI = ABI::V5;

fn landlock_ruleset(setup: &Setup<'_>) -> Result<OwnedFd, RulesetError> {
    let all = AccessFs::from_all(ABI_LEVEL);
    let read = AccessFs::from_read(ABI_LEVEL);
    let mut ruleset = Ruleset::default().handle_access(all)?.create()?;
    let grant = |ruleset: landlock::RulesetCreated, path: &Path, access| {
        // A path that vanished or cannot be opened is simply not granted.
        match PathFd::new(path) {
            Ok(fd) => ruleset.add_rule(PathBeneath::new(fd, access)),
            Err(_) => Ok(ruleset),
        }
    };
    for path in fs_rules::complement(setup.denied, &fs_rules::list_dir) {
        ruleset = grant(ruleset, &path, read)?;
    }
    for path in setup.readable {
        ruleset = grant(ruleset, path, read)?;
    }
    // Interpreters write to /dev/null (and read /dev/zero); nothing else of /dev is writable.
    for dev in ["/dev/null", "/dev/zero", "/dev/full"] {
        ruleset = grant(ruleset, Path::new(dev), AccessFs::from_file(ABI_LEVEL))?;
    }
    let own = match setup.policy.own_folder {
        FolderAccess::ReadWrite => all,
        FolderAccess::ReadOnly => read,
    };
    if setup.own_folder.exists() {
        ruleset = grant(ruleset, setup.own_folder, own)?;
    }
    let fd: Option<OwnedFd> = ruleset.into();
    fd.ok_or(RulesetError::CreateRuleset(
        landlock::CreateRulesetError::MissingHandledAccess,
    ))
}

/// Processes (threads count too for RLIMIT_NPROC) of the current user now.
fn user_processes() -> u64 {
    // SAFETY: getuid cannot fail and has no side effects.
    let uid = unsafe { libc::getuid() };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut n = 0u64;
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            let owner = status
                .lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().next());
            if owner == Some(uid.to_string().as_str()) {
                let threads = status
                    .lines()
                    .find_map(|l| l.strip_prefix("Threads:"))
                    .and_then(|t| t.trim().parse::<u64>().ok())
                    .unwrap_or(1);
                n += threads;
            }
        }
    }
    n
}
