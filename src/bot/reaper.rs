//! No survivors: processes that escape their bot's process group (setsid,
//! double fork) are found and killed.
//!
//! The referee makes itself the *subreaper* of everything it starts, so an
//! orphaned escapee is re-parented to the referee rather than to init. Every
//! bot process the referee starts is registered while it lives; after a call
//! or a persistent bot ends, any child of the referee that is not a
//! registered bot is an escapee: it is killed (with its own group) and reaped.

use referee_sandbox::namespace;
use referee_sandbox::spawn::{Child, Command};
use referee_sandbox::Confinement;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, RwLock};

static LIVE: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());
/// Held shared while a bot starts and exclusively by a sweep: starts run in
/// parallel with each other, and a sweep never sees a child that is started
/// but not yet registered.
static STARTING: RwLock<()> = RwLock::new(());
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// Makes this process the subreaper of the bots it starts (once, at start-up).
pub fn enable() -> std::io::Result<()> {
    referee_sandbox::sys::become_subreaper()?;
    SUBREAPER.store(true, Ordering::Relaxed);
    Ok(())
}

/// Spawns `cmd` and registers its pid, under the lock that [`sweep_pids`] holds
/// exclusively, so a sweep never mistakes a bot that is just starting for an
/// escapee.
pub fn spawn(cmd: &Command) -> std::io::Result<Child> {
    let _starting = STARTING.read().unwrap_or_else(|e| e.into_inner());
    let child = cmd.spawn()?;
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(child.pid);
    Ok(child)
}

/// The bot process `pid` has been reaped.
pub fn forget(pid: u32) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).remove(&pid);
}

/// The referee's direct children, from /proc.
fn children() -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut pids = Vec::new();
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            pids.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    pids
}

/// A process the sweep killed and reaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    pub pid: u32,
    /// Its process group, read before the kill. A member of a call's own
    /// group that was orphaned (its parent died first) comes back here
    /// too: it did not escape, and its group says so.
    pub group: Option<u32>,
}

/// Kills and reaps every child of the referee that is not a registered bot
/// (or the init of a bot's namespace), and every process of `bot` (found
/// through its pids cgroup) outside the group of a registered bot: in a
/// bot's own PID namespace, orphans go to the namespace's init rather than
/// to the referee. Returns what it killed. Does nothing unless [`enable`]
/// succeeded.
pub fn sweep_pids(bot: &Confinement) -> Vec<Swept> {
    use nix::sys::signal::{kill, killpg, Signal};
    use nix::sys::wait::{waitpid, WaitPidFlag};
    use nix::unistd::Pid;
    if !SUBREAPER.load(Ordering::Relaxed) {
        return Vec::new();
    }
    let _no_start = STARTING.write().unwrap_or_else(|e| e.into_inner());
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let mut killed: Vec<Swept> = Vec::new();
    // Killing an escapee orphans its own children, which then arrive here:
    // repeat until no stranger is left (bounded, in case of a very fast forker).
    for _ in 0..64 {
        let children = children()
            .into_iter()
            .filter(|p| !live.contains(p) && !namespace::is_init(*p))
            .map(|p| (p, stat_of(p)));
        let members = bot.members().into_iter().filter_map(|p| {
            let stat = stat_of(p)?;
            // A zombie in a namespace is its init's to reap; a member of a
            // registered bot's group is part of a call still running.
            (!stat.zombie && !live.contains(&p) && !live.contains(&stat.group))
                .then_some((p, Some(stat)))
        });
        let strangers: Vec<(u32, Option<Stat>)> = children
            .chain(members)
            .filter(|(p, _)| !killed.iter().any(|k| k.pid == *p))
            .collect();
        if strangers.is_empty() {
            break;
        }
        for (pid, stat) in strangers {
            let group = stat.map(|s| s.group);
            let p = Pid::from_raw(pid as i32);
            let _ = killpg(p, Signal::SIGKILL);
            let _ = kill(p, Signal::SIGKILL);
            // Not a child of the referee (in a namespace): ECHILD at once,
            // and the namespace's init reaps it.
            let _ = waitpid(p, Some(WaitPidFlag::empty()));
            killed.push(Swept { pid, group });
        }
    }
    killed
}

/// The live (not zombie) processes in process group `pgid`, from /proc.
/// `referee check` uses it to tell a bot author that a call left processes
/// running after its leader exited; a tournament never needs it (the whole
/// group is killed anyway).
pub fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let pid = e.file_name().to_str()?.parse::<u32>().ok()?;
            let stat = stat_of(pid)?;
            (!stat.zombie && stat.group == pgid).then_some(pid)
        })
        .collect()
}

/// What /proc says of a process: whether it is a zombie, and its group
/// (a zombie keeps its group until reaped).
#[derive(Debug, Clone, Copy)]
struct Stat {
    zombie: bool,
    group: u32,
}

fn stat_of(pid: u32) -> Option<Stat> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name (which may hold spaces and parentheses):
    // state, ppid, pgrp.
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let group = fields.nth(1)?.parse::<u32>().ok()?;
    Some(Stat {
        zombie: state == "Z",
        group,
    })
}
