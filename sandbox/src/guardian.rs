//! A guardian that outlives the referee to kill what its bots left behind.
//!
//! Bots die with the referee through their parent-death signal, but that
//! signal is set on the process the referee starts, not on what that
//! process starts in turn: a `setsid` helper orphaned by its bot would
//! outlive a referee killed with SIGKILL. Every process of a bot is in the
//! bot's cgroups, though, and the guardian empties them: a small process,
//! forked at start-up while the referee has a single thread, that waits
//! for the referee to end (the write end of a pipe, held only by the
//! referee, closes however it ends) and then SIGKILLs every process left
//! in the referee's groups. Without cgroups there is nothing to find it by
//! (the start-up line says so).
//!
//! The guardian is in its own session, so Ctrl-C at the terminal does not
//! stop it first, and it is not the referee's child (a double fork), so the
//! referee's escapee sweep never takes it for a bot. Bots cannot signal it
//! (Landlock scoping).

use std::os::fd::{FromRawFd, OwnedFd};

/// Starts the guardian. Must be called while the process has a single
/// thread (first thing in `main`). Does nothing if the referee has no
/// cgroups to watch or the fork fails.
pub fn start() {
    let roots = crate::cgroup::roots();
    if roots.pids.is_none() && roots.memory.is_none() {
        return;
    }
    let referee = std::process::id();
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    // SAFETY: both fds are new and ours.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: the process has one thread (the caller's promise), so the
    // child may run ordinary code after fork.
    match unsafe { libc::fork() } {
        0 => {
            drop(write);
            // SAFETY: single-threaded child; forking again and exiting.
            if unsafe { libc::fork() } != 0 {
                // SAFETY: the intermediate process ends at once.
                unsafe { libc::_exit(0) };
            }
            watch(referee, read, roots);
        }
        pid if pid > 0 => {
            drop(read);
            // Reap the intermediate process; the guardian is now init's.
            // SAFETY: waiting for our own child.
            unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
            // The write end stays open for the referee's whole life.
            std::mem::forget(write);
        }
        _ => {}
    }
}

/// The guardian's life: wait for the pipe to close, empty the groups, exit.
fn watch(referee: u32, read: OwnedFd, roots: crate::cgroup::Roots) -> ! {
    // SAFETY: setsid and signal only change this process's own state.
    unsafe {
        libc::setsid();
        for sig in [libc::SIGINT, libc::SIGHUP, libc::SIGTERM, libc::SIGPIPE] {
            libc::signal(sig, libc::SIG_IGN);
        }
        libc::prctl(libc::PR_SET_NAME, c"referee-guard".as_ptr(), 0, 0, 0);
    }
    // Close everything else inherited (the terminal stays usable).
    let keep = std::os::fd::AsRawFd::as_raw_fd(&read);
    for fd in crate::sys::open_fds_above_2() {
        if fd != keep {
            // SAFETY: closing descriptors this process no longer uses.
            unsafe { libc::close(fd) };
        }
    }
    let mut byte = 0u8;
    loop {
        // SAFETY: reading one byte into a local.
        let n = unsafe {
            libc::read(
                std::os::fd::AsRawFd::as_raw_fd(&read),
                (&mut byte as *mut u8).cast(),
                1,
            )
        };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        break;
    }
    crate::cgroup::remove_groups_of(&roots, referee);
    // SAFETY: ending this process without running the referee's destructors.
    unsafe { libc::_exit(0) }
}
