//! What this kernel and user allow, checked once at start-up so the
//! referee can say plainly which protections are missing.

/// Protections available on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI version, if Landlock is enabled.
    pub landlock_abi: Option<i32>,
    /// Whether seccomp filters can be loaded.
    pub seccomp: bool,
    /// Where per-bot cgroups (pids, memory) can be made, if this user may.
    pub cgroups: crate::cgroup::Roots,
    /// Whether the referee runs as root (for whom RLIMIT_NPROC does not
    /// bind, and whose capabilities every bot process drops).
    pub root: bool,
    /// Whether each bot can have PID and mount namespaces of its own
    /// ([`crate::namespace`]), so that its `/proc` shows only itself.
    pub namespaces: bool,
}

/// The Landlock ABI that scopes signals and abstract Unix sockets to the
/// bot's own processes (Linux 6.12).
pub const LANDLOCK_SCOPED: i32 = 6;

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
            cgroups: crate::cgroup::roots(),
            // SAFETY: geteuid cannot fail and has no side effects.
            root: unsafe { libc::geteuid() } == 0,
            namespaces: namespaces_work(),
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
        if let Some(abi) = self.landlock_abi.filter(|&a| a < LANDLOCK_SCOPED) {
            lines.push(format!(
                "sandbox: this kernel's Landlock is ABI {abi}, scoping needs {LANDLOCK_SCOPED} (Linux 6.12+): bots can signal the referee and each other"
            ));
        }
        match (&self.cgroups.pids, self.root) {
            (Some(_), _) => {}
            (None, true) => lines.push(
                "sandbox: running as root without a usable pids cgroup: a fork bomb is stopped only when its move ends"
                    .to_string(),
            ),
            (None, false) => lines.push(
                "sandbox: no pids cgroup for this user (a delegated cgroup v2 subtree): one process limit (RLIMIT_NPROC) is shared by all bots"
                    .to_string(),
            ),
        }
        if !self.namespaces {
            lines.push(
                "sandbox: no PID namespace per bot (it needs root, or user namespaces this user may make and mount in): a bot sees every process in /proc, command lines included"
                    .to_string(),
            );
        }
        if self.cgroups.memory.is_none() {
            lines.push(
                "sandbox: no memory cgroup for this user: memory is limited per process (RLIMIT_DATA), not per bot, and shared memory is not counted"
                    .to_string(),
            );
        }
        lines
    }
}

/// Makes and drops a bot's namespaces on a throwaway thread: whether the
/// kernel and this user allow them (a container may refuse mounts).
fn namespaces_work() -> bool {
    std::thread::Builder::new()
        .name("probe-namespaces".into())
        // SAFETY: the throwaway thread clones nothing else and then ends.
        .spawn(|| unsafe { crate::namespace::Namespaces::enter(&Default::default()) }.is_ok())
        .ok()
        .and_then(|t| t.join().ok())
        .unwrap_or(false)
}

/// Whether the referee holds capabilities its bots must not inherit (it
/// runs as root, or was given some): `CAP_SETPCAP` in its effective set,
/// which dropping the others needs.
pub fn holds_capabilities() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        // SAFETY: geteuid cannot fail and has no side effects.
        return unsafe { libc::geteuid() } == 0;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|eff| eff & (1 << 8) != 0) // CAP_SETPCAP
}

/// The highest capability number this kernel knows.
pub fn last_capability() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(63)
}
