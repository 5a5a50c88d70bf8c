//! The no-network filter: `socket()` for any family but AF_UNIX fails with
//! EACCES, and io_uring (which can open sockets without `socket()`) is
//! unavailable. Compiled to BPF in the parent; the child only loads it.

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

/// The compiled filter.
pub fn no_network() -> Result<BpfProgram, String> {
    let e = |e: seccompiler::BackendError| e.to_string();
    // Matches socket(domain, ...) when domain is anything but AF_UNIX.
    let not_unix = SeccompRule::new(vec![SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Ne,
        libc::AF_UNIX as u64,
    )
    .map_err(e)?])
    .map_err(e)?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, vec![not_unix]);
    rules.insert(libc::SYS_io_uring_setup, vec![]);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch()?,
    )
    .map_err(e)?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())
}
