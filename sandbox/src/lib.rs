//! Everything the referee does to a bot process that needs `unsafe`:
//! starting it ([`spawn`]: clone, confinement, exec) and the few raw
//! process syscalls (pidfd, wait4 with resource usage) that std and nix do
//! not wrap. The rest of the referee is `#![forbid(unsafe_code)]`.
//!
//! A [`Confinement`] is prepared once per bot in the parent (Landlock rules
//! opened, seccomp filters compiled, cgroups made: everything that
//! allocates or opens files) and applied in the child between clone and
//! exec, where only async-signal-safe calls are made:
//!
//! 1. die with the referee (`PR_SET_PDEATHSIG`), a new session (no
//!    controlling terminal), stdio, working directory (done by [`spawn`]),
//! 2. join the bot's cgroups (pids, memory) unless born inside; resource
//!    limits: committed memory per process (`RLIMIT_DATA`, which counts
//!    what a process really allocates, not the address space the JVM and
//!    V8 reserve), stack, file size, no core files,
//! 3. as root: every capability dropped for good (bounding set, ambient
//!    set, securebits so that exec as uid 0 gives none back),
//! 4. `no_new_privs`, then the Landlock ruleset (files, and signals and
//!    abstract sockets scoped to the bot's own processes),
//! 5. the seccomp filters ([`seccomp`]).

pub mod cgroup;
pub mod fs_rules;
pub mod guardian;
pub mod namespace;
pub mod policy;
pub mod probe;
pub mod seccomp;
pub mod spawn;
mod starter;
pub mod sys;

pub use policy::{FolderAccess, Policy};
pub use probe::Support;

use landlock::{
    Access, AccessFs, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError,
    Scope, ABI,
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
    /// Trees the bot must not touch at all, even inside a readable
    /// location: the tournament folder, the results database.
    pub denied: &'a [PathBuf],
    /// Read-only grants beyond the system locations and `PATH` (the files
    /// a bot's command line names, the protocols folder), even inside a
    /// denied tree.
    pub readable: &'a [PathBuf],
}

/// What is applied to every process of one bot between fork and exec.
/// Cheap to clone (the prepared rules are shared).
#[derive(Debug, Clone, Default)]
pub struct Confinement {
    inner: Arc<Inner>,
}

// Fields drop in order: the starter thread ends before the groups it is in
// are removed.
#[derive(Debug, Default)]
struct Inner {
    /// The thread that starts every process of this bot (see `starter`).
    starter: Option<starter::Starter>,
    /// Whether the starter thread carries the confinement (capabilities,
    /// `no_new_privs`, Landlock rules, seccomp) for its children.
    thread_confined: bool,
    landlock: Option<OwnedFd>,
    seccomp: Vec<BpfProgram>,
    /// RLIMIT_DATA in bytes.
    memory: Option<u64>,
    /// RLIMIT_STACK (soft, hard) in bytes.
    stack: Option<(u64, u64)>,
    /// RLIMIT_FSIZE in bytes.
    file_size: Option<u64>,
    /// RLIMIT_NOFILE (soft and hard).
    open_files: Option<u64>,
    /// The bot's cgroups, which every process joins before exec.
    group: Option<cgroup::BotGroup>,
    /// RLIMIT_NPROC, where no cgroup is available (it binds non-root users only).
    nproc: Option<u64>,
    /// The highest capability number, when capabilities are to be dropped
    /// (the referee holds them: root).
    drop_caps: Option<u32>,
}

impl Confinement {
    /// No confinement but "die with the referee" (for `referee play` and tests).
    pub fn minimal() -> Confinement {
        Confinement::default()
    }

    /// Prepares the confinement of one bot with what this machine supports.
    pub fn prepare(setup: &Setup<'_>, support: &Support) -> Result<Confinement, String> {
        let landlock = match support.landlock_abi {
            Some(_) => {
                Some(landlock_ruleset(setup, support.root).map_err(|e| format!("landlock: {e}"))?)
            }
            None => None,
        };
        let seccomp = match (setup.policy.network, support.seccomp) {
            (false, true) => seccomp::filters(None)?,
            _ => Vec::new(),
        };
        let memory = setup.policy.memory_mb.saturating_mul(1 << 20);
        let mut group = if support.cgroups.pids.is_some() || support.cgroups.memory.is_some() {
            let name = setup
                .own_folder
                .file_name()
                .map_or_else(|| "bot".into(), |n| n.to_string_lossy());
            Some(
                cgroup::BotGroup::create(&support.cgroups, &name)
                    .map_err(|e| format!("cgroup: {e}"))?,
            )
        } else {
            None
        };
        let drop_caps = probe::holds_capabilities().then(probe::last_capability);
        // Nothing in the same Landlock domain as the starter thread may
        // trace it or read its memory (the referee's): see `starter`.
        sys::not_dumpable();
        let tasks = group
            .as_ref()
            .map(cgroup::BotGroup::thread_tasks)
            .unwrap_or_default();
        // A child that must move itself into a cgroup (v2) writes a file
        // the confinement forbids: then each child confines itself.
        let groups_by_birth = group.is_none() || !tasks.is_empty();
        let confined = landlock.is_some() || !seccomp.is_empty();
        let thread_confined = confined && groups_by_birth;
        // Escapees of a namespace are found through the pids cgroup, or
        // as the orphans its init holds (see `namespace`).
        let namespaces = support.namespaces;
        let hide = namespaces.then(|| {
            let keep: Vec<&Path> = std::iter::once(setup.own_folder)
                .chain(setup.readable.iter().map(PathBuf::as_path))
                .collect();
            namespace::Hide::plan(setup.denied, &keep)
        });
        let landlock_fd = landlock.as_ref().map(AsRawFd::as_raw_fd);
        let network = setup.policy.network || !support.seccomp;
        let confine: starter::Confine = Box::new(move |entered| {
            if let (true, Some(fd)) = (entered, landlock_fd) {
                // The bot's /proc is a new mount, which the rule for the
                // host's does not cover.
                // SAFETY: the ruleset descriptor outlives this call (the
                // caller waits for it).
                unsafe { grant_beneath(fd, c"/proc", AccessFs::from_read(ABI_LEVEL).bits()) }?;
            }
            if !thread_confined {
                return Ok(());
            }
            // The filters name this thread, so they are compiled here.
            // SAFETY: gettid has no preconditions.
            let tid = unsafe { libc::gettid() };
            let filters = if network {
                Vec::new()
            } else {
                seccomp::filters(Some(tid as u32)).map_err(|_| libc::EINVAL)?
            };
            // SAFETY: the starter thread restricts only itself, with a
            // descriptor that outlives this call (the caller waits).
            unsafe { confine_thread(drop_caps, landlock_fd, &filters) }
        });
        let starter = if thread_confined || !tasks.is_empty() || namespaces {
            Some(
                starter::Starter::start(tasks, hide, confine)
                    .map_err(|e| format!("the bot's starter thread: {e}"))?,
            )
        } else {
            None
        };
        if let Some(group) = group.as_mut() {
            let limits = cgroup::Limits {
                processes: setup.policy.processes,
                memory,
            };
            let inside = starter.as_ref().is_some_and(|s| s.inside);
            group
                .limit(limits, inside)
                .map_err(|e| format!("cgroup: {e}"))?;
        }
        // RLIMIT_NPROC counts all of the user's processes, so the bot's
        // allowance comes on top of what the user already runs.
        let nproc = match (&support.cgroups.pids, support.root) {
            (None, false) => Some(user_processes().saturating_add(setup.policy.processes)),
            _ => None,
        };
        // The stack may grow to the memory limit at most (a hard limit, so a
        // bot cannot raise it), never beyond what the referee's own soft
        // limit gives a program.
        let stack = {
            let mut cur = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: getrlimit writes one rlimit into a valid local.
            let ok = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut cur) } == 0;
            ok.then(|| (cur.rlim_cur.min(memory), memory))
        };
        Ok(Confinement {
            inner: Arc::new(Inner {
                starter,
                thread_confined,
                landlock,
                seccomp,
                memory: Some(memory),
                stack,
                file_size: Some(setup.policy.disk_mb.saturating_mul(1 << 20)),
                open_files: Some(open_files(setup.policy.open_files)),
                group,
                nproc,
                drop_caps,
            }),
        })
    }

    /// The thread that starts this bot's processes, if any.
    pub(crate) fn starter(&self) -> Option<&starter::Starter> {
        self.inner.starter.as_ref()
    }

    /// How many processes of this bot exist now (zombies included), from its
    /// pids cgroup; `None` without one. Zero after a call's process has
    /// been reaped means nothing escaped and there is nothing to sweep.
    pub fn bot_processes(&self) -> Option<u64> {
        self.inner
            .group
            .as_ref()
            .and_then(cgroup::BotGroup::bot_tasks)
    }

    /// Whether the bot's processes live in a PID namespace of their own
    /// (see [`namespace`]): its orphans then go to the namespace's init,
    /// and [`Confinement::members`] is how the referee finds them.
    pub fn namespaced(&self) -> bool {
        self.inner
            .starter
            .as_ref()
            .is_some_and(starter::Starter::namespaced)
    }

    /// The processes in the bot's pids cgroup now, and the orphans its
    /// namespace's init holds (as the referee sees their ids), never the
    /// referee itself; empty without either.
    pub fn members(&self) -> Vec<u32> {
        let mut pids = self
            .inner
            .group
            .as_ref()
            .map(cgroup::BotGroup::processes)
            .unwrap_or_default();
        if let Some(s) = self.inner.starter.as_ref() {
            pids.extend(s.orphans());
        }
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// How many of this bot's processes the kernel has killed so far for
    /// going over the bot's memory limit; `None` without a memory cgroup.
    pub fn oom_kills(&self) -> Option<u64> {
        self.inner
            .group
            .as_ref()
            .and_then(cgroup::BotGroup::oom_kills)
    }

    /// The memory a process of this bot may commit (RLIMIT_DATA, and the
    /// bot's memory cgroup where there is one), in bytes; `None` for
    /// [`Confinement::minimal`].
    pub fn memory_limit(&self) -> Option<u64> {
        self.inner.memory
    }

    /// Whether files and network are confined (false for [`Confinement::minimal`]).
    pub fn is_confined(&self) -> bool {
        self.inner.landlock.is_some() || !self.inner.seccomp.is_empty()
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
        if let Some(group) = inner.group.as_ref().filter(|_| join_cgroup) {
            for procs in &group.procs {
                // "0" moves the writing process into the group.
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
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
        }
        let limit = |resource, soft: u64, hard: u64| {
            let lim = libc::rlimit {
                rlim_cur: soft,
                rlim_max: hard,
            };
            libc::setrlimit(resource, &lim)
        };
        if let Some(n) = inner.nproc {
            limit(libc::RLIMIT_NPROC, n, n);
        }
        limit(libc::RLIMIT_CORE, 0, 0);
        if let Some(bytes) = inner.memory {
            if limit(libc::RLIMIT_DATA, bytes, bytes) != 0 {
                return Err(errno());
            }
        }
        if let Some((soft, hard)) = inner.stack {
            // Lowering a hard limit always succeeds; one already lower stays.
            limit(libc::RLIMIT_STACK, soft, hard);
        }
        if let Some(bytes) = inner.file_size {
            if limit(libc::RLIMIT_FSIZE, bytes, bytes) != 0 {
                return Err(errno());
            }
        }
        if let Some(n) = inner.open_files {
            if limit(libc::RLIMIT_NOFILE, n, n) != 0 {
                return Err(errno());
            }
        }
        if inner.thread_confined {
            // Everything else is inherited from the starter thread.
            return Ok(());
        }
        if let Some(last) = inner.drop_caps {
            drop_capabilities(last)?;
        }
        if (inner.landlock.is_some() || !inner.seccomp.is_empty())
            && libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
        {
            return Err(errno());
        }
        if let Some(fd) = &inner.landlock {
            if libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32) != 0 {
                return Err(errno());
            }
        }
        for bpf in &inner.seccomp {
            // No allocation: the error of a failed load is an OS error.
            if seccompiler::apply_filter(bpf).is_err() {
                return Err(errno());
            }
        }
        Ok(())
    }
}

/// Confines the calling thread (the bot's starter) once, for every child
/// it will clone: capabilities, `no_new_privs`, Landlock, seccomp.
///
/// # Safety
/// Restricts the calling thread for good: only for the starter thread.
unsafe fn confine_thread(
    drop_caps: Option<u32>,
    landlock: Option<std::os::fd::RawFd>,
    seccomp: &[BpfProgram],
) -> Result<(), i32> {
    if let Some(last) = drop_caps {
        drop_capabilities(last)?;
    }
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
        return Err(errno());
    }
    if let Some(fd) = landlock {
        if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) != 0 {
            return Err(errno());
        }
    }
    for bpf in seccomp {
        if seccompiler::apply_filter(bpf).is_err() {
            return Err(errno());
        }
    }
    Ok(())
}

/// Drops every capability of the calling process for good: the bounding
/// set (so exec cannot give any back), the ambient and inheritable sets,
/// then the permitted and effective sets; securebits make uid 0 no longer
/// special at exec and are locked.
///
/// # Safety
/// Raw system calls only, on locals: async-signal-safe.
unsafe fn drop_capabilities(last: u32) -> Result<(), i32> {
    for cap in 0..=last {
        // EINVAL: a capability this kernel does not know.
        if libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) != 0
            && errno() != libc::EINVAL
        {
            return Err(errno());
        }
    }
    libc::prctl(
        libc::PR_CAP_AMBIENT,
        libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
        0,
        0,
        0,
    );
    // NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE, each locked, and
    // KEEP_CAPS locked off.
    const SECUREBITS: libc::c_ulong = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x40 | 0x80;
    if libc::prctl(libc::PR_SET_SECUREBITS, SECUREBITS, 0, 0, 0) != 0 {
        return Err(errno());
    }
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let header = Header {
        version: 0x2008_0522, // _LINUX_CAPABILITY_VERSION_3
        pid: 0,
    };
    let none = [Data {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    if libc::syscall(libc::SYS_capset, &header, none.as_ptr()) != 0 {
        return Err(errno());
    }
    Ok(())
}

/// Adds a Landlock rule granting `access` beneath `path` to `ruleset`.
///
/// # Safety
/// `ruleset` must be an open Landlock ruleset descriptor.
unsafe fn grant_beneath(
    ruleset: std::os::fd::RawFd,
    path: &std::ffi::CStr,
    access: u64,
) -> Result<(), i32> {
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
    let fd = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(errno());
    }
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: fd,
    };
    let added = libc::syscall(
        libc::SYS_landlock_add_rule,
        ruleset,
        LANDLOCK_RULE_PATH_BENEATH,
        &attr as *const PathBeneathAttr,
        0u32,
    );
    let e = errno();
    libc::close(fd);
    if added != 0 {
        return Err(e);
    }
    Ok(())
}

/// The errno of the last failed system call (async-signal-safe: it only
/// reads the thread's errno).
fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// The highest Landlock ABI this referee asks for; older kernels get the
/// subset they support (best effort), and the start-up line says what is
/// missing.
const ABI_LEVEL: ABI = ABI::V6;

fn landlock_ruleset(setup: &Setup<'_>, root: bool) -> Result<OwnedFd, RulesetError> {
    let all = AccessFs::from_all(ABI_LEVEL);
    let read = AccessFs::from_read(ABI_LEVEL);
    let mut ruleset = Ruleset::default()
        .handle_access(all)?
        .scope(Scope::Signal | Scope::AbstractUnixSocket)?
        .create()?;
    let grant = |ruleset: landlock::RulesetCreated, path: &Path, access| {
        // A path that vanished or cannot be opened is simply not granted.
        match PathFd::new(path) {
            Ok(fd) => ruleset.add_rule(PathBeneath::new(fd, access)),
            Err(_) => Ok(ruleset),
        }
    };
    let mut locations: Vec<PathBuf> = fs_rules::SYSTEM.iter().map(PathBuf::from).collect();
    if let Some(path) = std::env::var_os("PATH") {
        locations.extend(fs_rules::from_path_var(&path, &fs_rules::homes()));
    }
    let mut denied = setup.denied.to_vec();
    if root {
        denied.extend(fs_rules::SECRETS.iter().map(PathBuf::from));
    }
    for path in fs_rules::within(&locations, &denied, &fs_rules::list_dir) {
        ruleset = grant(ruleset, &path, read)?;
    }
    for path in setup.readable {
        ruleset = grant(ruleset, path, read)?;
    }
    for dev in fs_rules::DEVICES {
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

/// The policy's descriptor limit, never above the referee's own hard
/// limit (which an unprivileged process cannot raise).
fn open_files(policy: u64) -> u64 {
    let mut cur = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into a valid local.
    match unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut cur) } {
        0 => policy.min(cur.rlim_max),
        _ => policy,
    }
}

/// Processes (threads count too for RLIMIT_NPROC) of the current user now,
/// in the referee's user namespace: the kernel counts a user's processes
/// against RLIMIT_NPROC per user namespace, so in the referee's own
/// ([`namespace::enter_own_user_namespace`]) the user's other processes
/// do not count.
fn user_processes() -> u64 {
    // SAFETY: getuid cannot fail and has no side effects.
    let uid = unsafe { libc::getuid() };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let ours = std::fs::read_link("/proc/self/ns/user").ok();
    let mut n = 0u64;
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let theirs = std::fs::read_link(format!("/proc/{pid}/ns/user")).ok();
        if ours.is_some() && theirs.is_some() && theirs != ours {
            continue;
        }
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
