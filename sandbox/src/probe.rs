//! What this kernel and user allow, checked once at start-up so the
//! referee can say plainly which protections are missing.

/// Protections available on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI version, if Landlock is enabled.
    pub landlock_abi: Option<i32>,
    /// Whether seccomp filters can be loaded.
    pub seccomp: bool,
    /// Where per-bot pids cgroups can be created, if this user may.
    pub pids_cgroup: Option<std::path::PathBuf>,
    /// Whether the referee runs as root (for whom RLIMIT_NPROC does not bind).
    pub root: bool,
}

impl Support {
    /// Probes the running kernel.
    pub fn probe() -> Support {
        // SAFETY: with a null attribute and the VERSION flag the call only
        // returns the ABI version (or -1); it creates nothing.
        let abi = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                1u32, // LANDLOCK_CREATE_RULESET_VERSION
            )
        };
        // SAFETY: PR_GET_SECCOMP only reads the calling thread's mode.
        let seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } >= 0;
        Support {
            landlock_abi: (abi > 0).then_some(abi as i32),
            seccomp,
            pids_cgroup: crate::cgroup::pids_root(),
            // SAFETY: geteuid cannot fail and has no side effects.
            root: unsafe { libc::geteuid() } == 0,
        }
    }

    /// One line for each protection that cannot be applied here.
    pub fn missing(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.landlock_abi.is_none() {
            lines.push(
                "sandbox: this kernel has no Landlock (Linux 5.13+ with landlock in the lsm= list): bots are NOT confined to their folders"
                    .to_string(),
            );
        }
        if !self.seccomp {
            lines.push(
                "sandbox: seccomp filters are unavailable: bots are NOT cut off from the network"
                    .to_string(),
            );
        }
        if self.root && self.pids_cgroup.is_none() {
            lines.push(
                "sandbox: running as root without a usable pids cgroup: a fork bomb is stopped only when its move ends"
                    .to_string(),
            );
        }
        lines
    }
}
