//! Everything the referee does to a bot process that needs `unsafe`: the
//! pre-exec hook that confines a child before it runs bot code, and the few
//! raw process syscalls (pidfd, wait4 with resource usage) that std and nix
//! do not wrap. The rest of the referee is `#![forbid(unsafe_code)]`.
//!
//! Confinement itself (folders, network, memory) is prepared once per bot by
//! [`Confinement`] and applied in the child just before `exec`.

pub mod sys;

use std::os::unix::process::CommandExt;
use std::process::Command;

/// What is applied to every bot process between fork and exec.
///
/// Prepared once per bot (anything that allocates or opens files happens
/// here, in the parent), then installed on each `Command` with [`Confinement::install`].
#[derive(Debug, Clone, Default)]
pub struct Confinement {
    _private: (),
}

impl Confinement {
    /// The confinement applied when no sandbox policy is in force: only
    /// "die with the referee".
    pub fn minimal() -> Confinement {
        Confinement { _private: () }
    }

    /// Installs the pre-exec hook on `cmd`. The command must also be given
    /// its own process group (`CommandExt::process_group(0)`), which std does
    /// without a hook.
    pub fn install(&self, cmd: &mut Command) {
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: the closure runs in the forked child before exec and only
        // calls async-signal-safe functions (prctl, getppid), allocating nothing.
        unsafe {
            cmd.pre_exec(move || {
                // A referee killed with SIGKILL cannot clean up: have the
                // kernel kill the bot when the thread that forked it dies.
                // Bots are forked only from the runtime's long-lived worker
                // threads, so this fires only when the referee itself dies.
                if libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                ) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                // The referee may have died before prctl took effect.
                if libc::getppid() != parent {
                    libc::_exit(137);
                }
                Ok(())
            });
        }
    }
}
