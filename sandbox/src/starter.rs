//! A bot's starter thread: the one thread that starts every process of a
//! bot, confined once so that its children inherit the confinement.
//!
//! Loading the bot's seccomp filters and merging its Landlock rules into a
//! new domain cost the kernel hundreds of microseconds each time (a new
//! filter is run for every system call number to build its cache; the
//! rules are copied into the domain), which a per-move bot would pay on
//! every move. Both are per thread and inherited by children, as are
//! `no_new_privs` and capabilities. So the starter thread joins the bot's
//! cgroups (v1), drops its capabilities, sets `no_new_privs` and applies
//! the bot's Landlock rules and seccomp filters to itself, once; each child
//! it clones is born confined and only sets its resource limits.
//!
//! The bot's processes then share a Landlock domain with this thread, which
//! lives in the referee's memory, so Landlock's own scoping would let them
//! signal or trace it. Two other walls stand there: the bot's seccomp
//! filters refuse any signal aimed at this thread or the referee's thread
//! group (`tkill`, `tgkill`, `rt_tgsigqueueinfo`, `pidfd_open` of it), and
//! the referee is not dumpable (`sys::not_dumpable`), so tracing it,
//! reading its memory or taking its descriptors needs `CAP_SYS_PTRACE`.
//! Every other thread of the referee is outside the domain. A test attacks
//! each of these (`tests/hostile.rs`).
//!
//! The starter thread only clones: it opens `/dev/null` and makes pipes,
//! which the confinement allows, and the rest of the referee never runs on
//! it.

use crate::namespace::{Hide, Namespaces};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::Mutex;
use std::thread::JoinHandle;

/// A job for the starter thread.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// What the thread does to itself when it starts, told whether it entered
/// the bot's own namespaces.
pub(crate) type Confine = Box<dyn FnOnce(bool) -> Result<(), i32> + Send>;

/// A bot's starter thread.
#[derive(Debug)]
pub(crate) struct Starter {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    thread: Option<JoinHandle<()>>,
    /// Whether the thread joined every group in `tasks`.
    pub(crate) inside: bool,
    /// The bot's namespaces, when the thread made them (dropped after the
    /// thread has ended).
    namespaces: Option<Namespaces>,
}

impl Starter {
    /// Starts the thread: it makes the bot's namespaces if `namespaces`
    /// (hiding what it says; before joining the groups, so that their
    /// init stays outside them), joins each group through its `tasks` file, then runs
    /// `confine` on itself. Fails if the thread cannot be made, or the
    /// namespaces or `confine` fail (the errno of the failed step).
    pub(crate) fn start(
        tasks: Vec<PathBuf>,
        namespaces: Option<Hide>,
        confine: Confine,
    ) -> std::io::Result<Starter> {
        let (tx, rx) = mpsc::channel::<Job>();
        let (ready_tx, ready) = mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("bot-starter".into())
            .spawn(move || {
                let made = match namespaces {
                    // SAFETY: this is the bot's starter thread, and it has
                    // cloned nothing yet.
                    Some(hide) => unsafe { Namespaces::enter(&hide) }.map(Some),
                    None => Ok(None),
                };
                // SAFETY: gettid has no preconditions.
                let tid = unsafe { libc::gettid() };
                let inside = made.is_ok()
                    && !tasks.is_empty()
                    && tasks
                        .iter()
                        .all(|t| std::fs::write(t, tid.to_string()).is_ok());
                let (made, confined) = match made {
                    Ok(made) => {
                        let entered = made.is_some();
                        (made, confine(entered))
                    }
                    Err(e) => (None, Err(e)),
                };
                let ok = confined.is_ok();
                let _ = ready_tx.send((inside, made, confined));
                if ok {
                    for job in rx {
                        job();
                    }
                }
            })?;
        let (inside, namespaces, confined) = ready
            .recv()
            .map_err(|_| std::io::Error::other("the bot's starter thread stopped"))?;
        let starter = Starter {
            jobs: Mutex::new(Some(tx)),
            thread: Some(thread),
            inside,
            namespaces,
        };
        confined.map_err(std::io::Error::from_raw_os_error)?;
        Ok(starter)
    }

    /// Whether the bot's processes live in namespaces of their own.
    pub(crate) fn namespaced(&self) -> bool {
        self.namespaces.is_some()
    }

    /// The orphans of the bot's processes, re-parented to its namespace's
    /// init; empty without namespaces.
    pub(crate) fn orphans(&self) -> Vec<u32> {
        self.namespaces
            .as_ref()
            .map(Namespaces::orphans)
            .unwrap_or_default()
    }

    /// Runs `job` on the starter thread. False if the thread is gone.
    pub(crate) fn run(&self, job: Job) -> bool {
        let jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        jobs.as_ref().is_some_and(|tx| tx.send(job).is_ok())
    }
}

impl Drop for Starter {
    fn drop(&mut self) {
        // Closing the channel ends the thread's loop.
        self.jobs.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(t) = self.thread.take() {
            if t.thread().id() != std::thread::current().id() {
                let _ = t.join();
            }
        }
        // Init dies with the thread anyway; this reaps it.
        self.namespaces.take();
    }
}
