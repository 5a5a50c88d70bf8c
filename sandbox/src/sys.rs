//! Thin safe wrappers over process syscalls std and nix do not expose.

use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::time::Duration;

/// Opens a pidfd for `pid` (Linux 5.3+). It becomes readable when the process
/// exits, which lets the referee wait for exit without polling or SIGCHLD.
pub fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0 as libc::c_uint) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this fd to us; nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// A pidfd registered with the tokio reactor: awaiting it waits for the
/// process to exit, without polling and without SIGCHLD.
#[derive(Debug)]
pub struct PidFd(tokio::io::unix::AsyncFd<OwnedFd>);

impl PidFd {
    /// Opens and registers a pidfd for `pid`. Must be called inside a tokio runtime.
    pub fn open(pid: u32) -> io::Result<PidFd> {
        PidFd::register(pidfd_open(pid)?)
    }

    /// Registers a pidfd already open (from [`crate::spawn::Child`]).
    /// Must be called inside a tokio runtime.
    pub fn register(fd: OwnedFd) -> io::Result<PidFd> {
        // SAFETY: the AsyncFd owns the OwnedFd, so the fd stays open and
        // unaliased for as long as it is registered.
        let fd = unsafe { tokio::io::unix::AsyncFd::register(fd) }?;
        Ok(PidFd(fd))
    }

    /// Completes once the process has exited (it may still need reaping).
    pub async fn exited(&self) -> io::Result<()> {
        let mut guard = self.0.readable().await?;
        // A pidfd stays readable after exit; clearing lets a later wait block
        // again only if a reap attempt found nothing, which cannot happen.
        guard.retain_ready();
        Ok(())
    }
}

/// How a reaped child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    Code(i32),
    Signal(i32),
}

/// A reaped child: how it ended and the CPU time it (and its reaped
/// descendants) used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reaped {
    pub exit: ExitKind,
    pub cpu: Duration,
}

fn timeval(tv: libc::timeval) -> Duration {
    Duration::from_secs(tv.tv_sec.max(0) as u64) + Duration::from_micros(tv.tv_usec.max(0) as u64)
}

/// Reaps `pid` with wait4, collecting its resource usage. With `block` false
/// returns `Ok(None)` if it has not exited yet.
pub fn wait4(pid: u32, block: bool) -> io::Result<Option<Reaped>> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data; zeroed is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let flags = if block { 0 } else { libc::WNOHANG };
    loop {
        // SAFETY: valid pointers to locals; pid is our own child.
        let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, flags, &mut usage) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if r == 0 {
            return Ok(None);
        }
        break;
    }
    let exit = if libc::WIFSIGNALED(status) {
        ExitKind::Signal(libc::WTERMSIG(status))
    } else {
        ExitKind::Code(libc::WEXITSTATUS(status))
    };
    Ok(Some(Reaped {
        exit,
        cpu: timeval(usage.ru_utime) + timeval(usage.ru_stime),
    }))
}

/// Makes the referee the "subreaper" of everything it starts: a bot's
/// process that escapes its group (setsid, double fork) and is orphaned is
/// re-parented to the referee instead of init, where it can be found and
/// killed.
pub fn become_subreaper() -> io::Result<()> {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag on this process.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Marks every descriptor this process inherited beyond stdin, stdout and
/// stderr close-on-exec, so that no bot (or build) started later inherits
/// what the referee's own parent left open (a pipe's write end, a shell's
/// descriptors). Called once at start-up, before anything is started.
/// Returns how many were marked.
pub fn cloexec_inherited() -> usize {
    let mut marked = 0;
    for fd in open_fds_above_2() {
        // SAFETY: F_GETFD/F_SETFD only read and set the close-on-exec flag
        // of a descriptor number; a closed one (the read_dir's) fails with
        // EBADF and is skipped.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0
                && flags & libc::FD_CLOEXEC == 0
                && libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) == 0
            {
                marked += 1;
            }
        }
    }
    marked
}

/// This process's open descriptors above 2 (collected before use: the
/// listing's own descriptor is among them, closed by then).
pub(crate) fn open_fds_above_2() -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect()
}

/// Makes the referee not dumpable: tracing it, reading its memory
/// (`/proc/PID/mem`, `process_vm_readv`) or taking its descriptors
/// (`pidfd_getfd`) then needs `CAP_SYS_PTRACE`, which no bot has. A bot's
/// processes share a Landlock domain with the referee's thread that
/// starts them (see `starter`), so Landlock alone would not refuse it.
/// Bots are dumpable again after their exec. Idempotent.
pub fn not_dumpable() {
    // SAFETY: PR_SET_DUMPABLE only sets a flag of this process.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
}
