//! A bot's own PID and mount namespaces, made once by its starter thread,
//! so that its processes see only each other in `/proc`: not the referee,
//! not the other bots, not a rival's command line (heist passes a player's
//! state in argv).
//!
//! The starter thread unshares a PID namespace for its children and a
//! mount namespace for itself (both per thread, so the rest of the referee
//! is untouched), then clones the namespace's first process, its *init*:
//! it mounts a fresh `/proc` showing only the namespace, and then only
//! reaps the orphans re-parented to it. Every process the starter clones
//! afterwards is born in the namespace and sees that `/proc` (the mount
//! namespace is inherited). The cost is paid once per bot, not per move.
//!
//! Init dies with the starter thread (its parent-death signal), and the
//! kernel then kills whatever is left in the namespace. Init is not in the
//! bot's cgroups (it is cloned before the thread joins them), so it counts
//! neither as one of the bot's processes nor against its limits.
//!
//! Orphans of a bot's processes are re-parented to init, not to the
//! referee (a subreaper is found only in the orphan's own namespace), so
//! the referee finds escapees through the bot's cgroup instead
//! ([`crate::Confinement::members`]).
//!
//! The mount namespace also hides the trees the bot must not touch (the
//! tournament folder, which is its working directory): each is covered by
//! an empty tmpfs, and what the bot may use inside it (its own
//! folder, files its command line names) is bound back at its place. A
//! bot cannot even `stat` another bot's files, `results.db` or the logs,
//! or list what the folder holds. Landlock rules belong to the files
//! themselves, so they hold through the binds.
//!
//! Creating namespaces needs `CAP_SYS_ADMIN`: a root referee has it. An
//! unprivileged referee gets it in a user namespace of its own, entered
//! once at start-up while it is still single-threaded
//! ([`enter_own_user_namespace`]: a thread of a multithreaded process
//! cannot enter one). It maps only the user's own ids, each to itself, so
//! the referee stays that user, with the same access to every file; only
//! its capabilities over namespaces it makes are new, and every bot
//! process drops them. Where the kernel refuses (user namespaces off, or
//! mounts refused in them), `/proc` stays shared, and the start-up line
//! says so.

use std::ffi::CString;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The inits of live bot namespaces, which the referee's sweep of
/// stray children must leave alone.
static INITS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Whether `pid` is the init of a bot's namespace (a child of the referee
/// that is not a bot process, and must not be swept).
pub fn is_init(pid: u32) -> bool {
    INITS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&pid)
}

/// A bot's namespaces, held by its starter thread's owner. Dropping it
/// kills and reaps init, which takes down every process left in the
/// namespace.
#[derive(Debug)]
pub(crate) struct Namespaces {
    init: u32,
    /// The write end of the pipe init watches: only the referee holds it
    /// (close-on-exec, and init closes its copy), so init sees end of file
    /// when the referee ends, however it ends.
    _alive: std::os::fd::OwnedFd,
}

impl Namespaces {
    /// Makes the calling thread's future children live in a new PID
    /// namespace, with a mount namespace (this thread's) whose `/proc`
    /// shows only that namespace. Returns the errno of the failed step.
    ///
    /// Then covers each of `hide.trees` and binds back what of it
    /// `hide.keep` names.
    ///
    /// # Safety
    /// Changes the calling thread's namespaces for good: only for a bot's
    /// starter thread, before it clones anything else.
    pub(crate) unsafe fn enter(hide: &Hide) -> Result<Namespaces, i32> {
        // Own filesystem attributes first: a mount namespace cannot be
        // entered by a thread that shares them with the others.
        if libc::unshare(libc::CLONE_FS | libc::CLONE_NEWNS | libc::CLONE_NEWPID) != 0 {
            return Err(crate::errno());
        }
        // Nothing mounted here (the new /proc) propagates back to the host.
        if libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_SLAVE,
            std::ptr::null(),
        ) != 0
        {
            return Err(crate::errno());
        }
        hide.apply()?;
        let mut ready = [0 as libc::c_int; 2];
        if libc::pipe2(ready.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(crate::errno());
        }
        // The parent-death signal alone does not do: the starter thread is
        // confined by then, and Landlock's signal scoping keeps it from
        // signalling init, which is outside its domain.
        let mut alive = [0 as libc::c_int; 2];
        if libc::pipe2(alive.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            let e = crate::errno();
            libc::close(ready[0]);
            libc::close(ready[1]);
            return Err(e);
        }
        let args = argument_area();
        // A plain fork without the C library's fork handlers: the child
        // makes raw system calls only.
        let pid = libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_ulong, 0, 0, 0, 0);
        if pid == 0 {
            libc::close(ready[0]);
            libc::close(alive[1]);
            init(ready[1], alive[0], args);
        }
        let forked = crate::errno();
        libc::close(ready[1]);
        libc::close(alive[0]);
        // SAFETY: the pipe's write end was just made, and only this owns it.
        let alive_w = std::os::fd::FromRawFd::from_raw_fd(alive[1]);
        if pid < 0 {
            libc::close(ready[0]);
            return Err(forked);
        }
        let pid = pid as u32;
        // Init writes 0 once /proc is mounted, or the errno of its failure.
        let mut answer = [0u8; 4];
        let n = loop {
            let n = libc::read(ready[0], answer.as_mut_ptr().cast(), answer.len());
            if n >= 0 || crate::errno() != libc::EINTR {
                break n;
            }
        };
        libc::close(ready[0]);
        let failed = if n == 4 {
            i32::from_ne_bytes(answer)
        } else {
            libc::EIO
        };
        if failed != 0 {
            kill_and_reap(pid);
            return Err(failed);
        }
        INITS.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
        Ok(Namespaces {
            init: pid,
            _alive: alive_w,
        })
    }
}

impl Namespaces {
    /// The children of the namespace's init, as the referee sees their
    /// ids: init starts nothing itself, so each is an orphan of the bot's
    /// processes, re-parented to init (a process that escaped its call's
    /// group, once its parent died).
    pub(crate) fn orphans(&self) -> Vec<u32> {
        std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", self.init))
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|p| p.parse::<u32>().ok())
            .collect()
    }
}

/// Moves this process into a user namespace of its own, with its user and
/// group ids each mapped to themselves, so that it may make a namespace
/// per bot without being root. Nothing for root, and false where it is
/// refused (user namespaces disabled, or this process already has more
/// than one thread: the kernel requires a single thread).
///
/// Call it first thing in `main`, before any thread exists. Processes the
/// referee starts run as the same user: those it starts unconfined (a
/// build) lose the namespace's capabilities at `execve`, as any non-root
/// program does, and every bot process drops them before (see `Setup`).
pub fn enter_own_user_namespace() -> bool {
    // SAFETY: these calls take no pointers and have no preconditions.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    if uid == 0 {
        return false;
    }
    let single = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .map(|n| n.trim() == "1")
        })
        .unwrap_or(false);
    if !single {
        return false;
    }
    // SAFETY: unshare takes flags only; the process has a single thread.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER) } != 0 {
        return false;
    }
    // An unprivileged process may map its own ids only, and the group
    // map needs setgroups refused first; supplementary groups are kept.
    std::fs::write("/proc/self/setgroups", "deny").is_ok()
        && std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1")).is_ok()
        && std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1")).is_ok()
}

/// What a bot's mount namespace hides: whole trees, but for what it may
/// use inside them. All paths as the referee sees them (canonical).
#[derive(Debug, Clone, Default)]
pub(crate) struct Hide {
    trees: Vec<PathBuf>,
    keep: Vec<PathBuf>,
}

impl Hide {
    /// Plans to hide the directories among `denied` (a file stays: it can
    /// only be `stat`ed) but for `keep` inside them. A tree holding a
    /// system location or a `PATH` entry is left alone (the bot needs
    /// what is there), and so is one inside another.
    pub(crate) fn plan(denied: &[PathBuf], keep: &[&Path]) -> Hide {
        let needed: Vec<PathBuf> = crate::fs_rules::SYSTEM
            .iter()
            .map(PathBuf::from)
            .chain(
                std::env::var_os("PATH")
                    .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
                    .unwrap_or_default(),
            )
            .filter_map(|p| p.canonicalize().ok())
            .collect();
        let mut trees: Vec<PathBuf> = denied
            .iter()
            .filter_map(|d| d.canonicalize().ok())
            .filter(|d| d.is_dir() && d.parent().is_some())
            .filter(|d| !needed.iter().any(|n| n.starts_with(d)))
            .collect();
        trees.sort_by_key(|t| t.components().count());
        let mut outer: Vec<PathBuf> = Vec::new();
        for t in trees {
            if !outer.iter().any(|o| t.starts_with(o)) {
                outer.push(t);
            }
        }
        let keep = keep
            .iter()
            .filter_map(|k| k.canonicalize().ok())
            .filter(|k| outer.iter().any(|t| k.starts_with(t) && k != t))
            .collect();
        Hide { trees: outer, keep }
    }

    /// Covers each tree with an empty tmpfs and binds back what is kept
    /// inside it. The tmpfs stays writable to the kernel, so that a bot's
    /// write there is refused by Landlock as anywhere else, with the
    /// usual "Permission denied" (not "Read-only file system"). Runs on the starter
    /// thread in its new mount namespace (an ordinary thread: it may
    /// allocate). Returns the errno of the failed step.
    fn apply(&self) -> Result<(), i32> {
        for tree in &self.trees {
            let inside: Vec<&PathBuf> = self.keep.iter().filter(|k| k.starts_with(tree)).collect();
            // Opened before the tree is covered, to bind them from there.
            let mut sources = Vec::with_capacity(inside.len());
            for k in inside {
                let file = std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_PATH)
                    .open(k)
                    .map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))?;
                sources.push((k, file, k.is_dir()));
            }
            let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
            mount(
                Some("tmpfs"),
                tree,
                Some("tmpfs"),
                flags,
                Some("mode=0755,size=64k"),
            )?;
            for (k, file, dir) in &sources {
                let made = match k.parent() {
                    Some(parent) => std::fs::create_dir_all(parent),
                    None => Ok(()),
                }
                .and_then(|()| match dir {
                    true => std::fs::create_dir(k),
                    false => std::fs::File::create(k).map(drop),
                });
                made.map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))?;
                let from = format!("/proc/self/fd/{}", file.as_raw_fd());
                mount(Some(&from), k, None, libc::MS_BIND | libc::MS_REC, None)?;
            }
        }
        Ok(())
    }
}

fn mount(
    source: Option<&str>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> Result<(), i32> {
    let c = |s: &str| CString::new(s).map_err(|_| libc::EINVAL);
    let source = source.map(c).transpose()?;
    let fstype = fstype.map(c).transpose()?;
    let data = data.map(c).transpose()?;
    let target = CString::new(target.as_os_str().as_bytes()).map_err(|_| libc::EINVAL)?;
    let ptr = |s: &Option<CString>| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: every pointer is a valid C string or null, alive for the call.
    let r = unsafe {
        libc::mount(
            ptr(&source),
            target.as_ptr(),
            ptr(&fstype),
            flags,
            ptr(&data).cast(),
        )
    };
    if r != 0 {
        return Err(crate::errno());
    }
    Ok(())
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        // Init cannot finish dying while a process of its namespace is a
        // zombie not yet reaped by its parent, the referee (a call being
        // reaped on another thread, or never): waiting here could wait for
        // this very thread. Init is reaped on a thread of its own, and
        // stays known as an init (never swept) until then.
        let init = self.init;
        // SAFETY: signalling our own child.
        unsafe { libc::kill(init as libc::pid_t, libc::SIGKILL) };
        let reap = move || {
            kill_and_reap(init);
            INITS
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|&p| p != init);
        };
        if std::thread::Builder::new()
            .name("reap-namespace".into())
            .spawn(reap)
            .is_err()
        {
            // No thread to spare: it stays a zombie until the referee exits.
        }
    }
}

fn kill_and_reap(pid: u32) {
    // SAFETY: signalling and reaping our own child.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
        while libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), libc::__WALL) < 0
            && crate::errno() == libc::EINTR
        {}
    }
}

/// Where this process's command line lies in its memory (`/proc/self/stat`
/// fields 48 and 49), which `/proc/PID/cmdline` shows to anyone.
fn argument_area() -> Option<(usize, usize)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces), from field 3.
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace().skip(45);
    let start = fields.next()?.parse::<usize>().ok()?;
    let end = fields.next()?.parse::<usize>().ok()?;
    (start < end).then_some((start, end))
}

/// What the namespace's init shows as its command line.
const INIT_NAME: &[u8] = b"bot-namespace-init\0";

/// The namespace's init: mounts `/proc`, says so on `ready`, then reaps
/// orphans until `alive` reads end of file (the referee is gone) or it is
/// killed.
///
/// Init is a copy of the referee, so its command line is the referee's,
/// and the bot sees it as its pid 1: init overwrites its copy of
/// `args` (the area [`argument_area`] found) with a name of its own.
///
/// # Safety
/// Runs in a child cloned from a multithreaded process: raw system calls
/// only, no allocation, never returns. `args` must be this process's
/// argument area.
unsafe fn init(ready: libc::c_int, alive: libc::c_int, args: Option<(usize, usize)>) -> ! {
    if let Some((start, end)) = args {
        let area = std::slice::from_raw_parts_mut(start as *mut u8, end - start);
        area.fill(0);
        let n = INIT_NAME.len().min(area.len());
        area[..n].copy_from_slice(&INIT_NAME[..n]);
    }
    // Die with the starter thread where the kernel may signal it.
    libc::prctl(
        libc::PR_SET_PDEATHSIG,
        libc::SIGKILL as libc::c_ulong,
        0,
        0,
        0,
    );
    // Nothing of the referee's stays open here (a pipe's write end held
    // by init would keep a bot's reader from ever seeing end of file).
    let (low, high) = (ready.min(alive), ready.max(alive));
    libc::syscall(
        libc::SYS_close_range,
        3 as libc::c_uint,
        low as libc::c_uint - 1,
        0u32,
    );
    libc::syscall(
        libc::SYS_close_range,
        low as libc::c_uint + 1,
        high as libc::c_uint - 1,
        0u32,
    );
    libc::syscall(
        libc::SYS_close_range,
        high as libc::c_uint + 1,
        libc::c_uint::MAX,
        0u32,
    );
    // Every signal blocked: the referee's handlers are not for this
    // process, and SIGCHLD is read from a signalfd below.
    let mut all: libc::sigset_t = std::mem::zeroed();
    libc::sigfillset(&mut all);
    libc::sigprocmask(libc::SIG_BLOCK, &all, std::ptr::null_mut());
    let mounted = libc::mount(
        c"proc".as_ptr(),
        c"/proc".as_ptr(),
        c"proc".as_ptr(),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        std::ptr::null(),
    );
    let answer: i32 = if mounted == 0 { 0 } else { crate::errno() };
    libc::write(ready, answer.to_ne_bytes().as_ptr().cast(), 4);
    libc::close(ready);
    if answer != 0 {
        libc::_exit(1);
    }
    let mut child: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut child);
    libc::sigaddset(&mut child, libc::SIGCHLD);
    let children = libc::signalfd(-1, &child, libc::SFD_CLOEXEC);
    if children < 0 {
        libc::_exit(1);
    }
    let mut info = [0u8; 128]; // one signalfd_siginfo
    loop {
        while libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG | libc::__WALL) > 0 {}
        let mut fds = [
            libc::pollfd {
                fd: alive,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: children,
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        if libc::poll(fds.as_mut_ptr(), 2, -1) < 0 {
            continue;
        }
        if fds[0].revents != 0 {
            // The referee is gone: the namespace goes with its init.
            libc::_exit(0);
        }
        if fds[1].revents != 0 {
            libc::read(children, info.as_mut_ptr().cast(), info.len());
        }
    }
}
