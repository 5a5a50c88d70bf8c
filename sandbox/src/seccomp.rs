//! The system calls a bot may not make, as seccomp filters compiled to BPF
//! in the parent; the child only loads them. Landlock confines files and
//! scopes signals; these close what it does not reach:
//!
//! - sockets: `socket()` of any family fails (a pathname Unix socket would
//!   reach any local daemon, an internet socket the network), and so does
//!   io_uring, which can open sockets without `socket()`. `socketpair()`
//!   works: a connected pair reaches nothing outside the bot.
//! - state shared between bots or across calls: keyrings, System V IPC and
//!   POSIX message queues.
//! - other processes' limits and scheduling: `prlimit`, `setpriority`,
//!   `sched_setaffinity`, `ioprio_set` and the `sched_set*` calls only on
//!   the calling process (pid 0); `setpriority` and `ioprio_set` never on
//!   all of a user's processes. Only these need a check by pid: signals
//!   are scoped by Landlock, and `ptrace`-like access by Landlock too.
//! - new namespaces (`unshare`, `setns`, `clone` with a namespace flag),
//!   which would widen what the kernel exposes to a bot; `clone3` answers
//!   ENOSYS so that the C library falls back to `clone`, whose flags a
//!   filter can read.
//! - terminal injection (`TIOCSTI`, `TIOCLINUX`), and calls that only a
//!   privileged process could use (mounts, modules, clocks, BPF, perf
//!   events, `userfaultfd`): refused even if a capability was left.
//!
//! Everything refused fails with EPERM, but `clone3` with ENOSYS. There
//! are two filters because a filter has one answer.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

fn arch() -> Result<TargetArch, String> {
    match std::env::consts::ARCH {
        "x86_64" => Ok(TargetArch::x86_64),
        "aarch64" => Ok(TargetArch::aarch64),
        "riscv64" => Ok(TargetArch::riscv64),
        other => Err(format!("no seccomp support for {other}")),
    }
}

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

fn err(e: seccompiler::BackendError) -> String {
    e.to_string()
}

/// A condition on argument `arg` (64 bits wide).
fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value).map_err(err)
}

/// A rule that matches when every condition holds.
fn when(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conditions).map_err(err)
}

fn compile(rules: Rules, errno: i32) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch()?,
    )
    .map_err(err)?;
    filter.try_into().map_err(err)
}

/// Calls refused whatever their arguments.
const ALWAYS: &[i64] = &[
    // keyrings: the session and user keyrings are shared
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    // System V IPC and POSIX message queues outlive the process
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_mq_open,
    libc::SYS_mq_unlink,
    libc::SYS_mq_timedsend,
    libc::SYS_mq_timedreceive,
    libc::SYS_mq_notify,
    libc::SYS_mq_getsetattr,
    // namespaces
    libc::SYS_unshare,
    libc::SYS_setns,
    // privileged or kernel-exposing
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_settimeofday,
    libc::SYS_io_uring_setup,
];

/// Namespace flags of `clone`.
const NAMESPACES: &[u64] = &[
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
];

/// The filters to load, in order. `starter`: the thread that starts the
/// bot's processes and shares their Landlock domain (see `starter.rs`),
/// which no bot may signal: neither it nor the referee's thread group may
/// be named by `tkill`, `tgkill`, `rt_tgsigqueueinfo` or `pidfd_open`
/// (any other thread of the referee is outside the domain, where Landlock
/// refuses signals).
pub fn filters(starter: Option<u32>) -> Result<Vec<BpfProgram>, String> {
    use SeccompCmpOp::{Eq, MaskedEq, Ne};
    let mut denied: Rules = BTreeMap::new();
    let referee = u64::from(std::process::id());
    if let Some(tid) = starter.map(u64::from) {
        denied.insert(libc::SYS_tkill, vec![when(vec![cond(0, Eq, tid)?])?]);
        denied.insert(libc::SYS_pidfd_open, vec![when(vec![cond(0, Eq, tid)?])?]);
    }
    for nr in [libc::SYS_tgkill, libc::SYS_rt_tgsigqueueinfo] {
        denied.insert(nr, vec![when(vec![cond(0, Eq, referee)?])?]);
    }
    for nr in ALWAYS {
        denied.insert(*nr, vec![]);
    }
    // Only on itself (pid 0).
    for nr in [
        libc::SYS_sched_setaffinity,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setparam,
        libc::SYS_sched_setattr,
    ] {
        denied.insert(nr, vec![when(vec![cond(0, Ne, 0)?])?]);
    }
    // Reading another process's limits is harmless; setting them is not.
    denied.insert(
        libc::SYS_prlimit64,
        vec![when(vec![cond(0, Ne, 0)?, cond(2, Ne, 0)?])?],
    );
    // setpriority(which, who, prio): who 0 is the caller (its process or
    // group); PRIO_USER would renice every process of the user.
    denied.insert(
        libc::SYS_setpriority,
        vec![
            when(vec![cond(0, Eq, libc::PRIO_USER as u64)?])?,
            when(vec![cond(1, Ne, 0)?])?,
        ],
    );
    // ioprio_set(which, who, ioprio): IOPRIO_WHO_USER is 3.
    denied.insert(
        libc::SYS_ioprio_set,
        vec![when(vec![cond(0, Eq, 3)?])?, when(vec![cond(1, Ne, 0)?])?],
    );
    denied.insert(
        libc::SYS_clone,
        NAMESPACES
            .iter()
            .map(|&f| when(vec![cond(0, MaskedEq(f), f)?]))
            .collect::<Result<_, _>>()?,
    );
    denied.insert(
        libc::SYS_ioctl,
        vec![
            when(vec![cond(1, Eq, libc::TIOCSTI)?])?,
            when(vec![cond(1, Eq, libc::TIOCLINUX)?])?,
        ],
    );
    denied.insert(libc::SYS_socket, vec![]);
    let mut clone3: Rules = BTreeMap::new();
    clone3.insert(libc::SYS_clone3, vec![]);
    Ok(vec![
        compile(denied, libc::EPERM)?,
        compile(clone3, libc::ENOSYS)?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filters_compile_for_this_machine() {
        let f = filters(Some(1)).unwrap();
        assert_eq!(f.len(), 2);
        assert!(f.iter().all(|p| !p.is_empty()));
    }
}
