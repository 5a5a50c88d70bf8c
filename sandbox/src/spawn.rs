//! Starting a bot process: `clone(CLONE_VM | CLONE_VFORK)`, the bot's
//! [`Confinement`], exec.
//!
//! std's `Command` starts a child with `posix_spawn`, which borrows the
//! parent's memory until the child execs (vfork semantics). A pre-exec hook
//! turns that into a real `fork()`: the kernel copies the page tables of the
//! whole multi-threaded referee, both sides take copy-on-write faults, exec
//! throws the copy away again, and two threads forking at once contend on
//! the referee's memory map. That was most of the per-move cost of a
//! sandboxed bot. This module does what `posix_spawn` does, plus the
//! confinement, so a sandboxed start costs what an unconfined one does plus
//! a few system calls.
//!
//! The child runs on its own small stack inside the referee's address space
//! while the calling thread is suspended (the rest of the referee runs on).
//! It therefore makes only raw system calls on data prepared by the parent:
//! no allocation, no locks, no `errno`-dependent library state. Signals are
//! blocked across the clone so that no handler of the referee (Ctrl-C) runs
//! in the child; the child resets every handler to the default and unblocks
//! all signals just before exec, as std does.

use crate::sys::{self, Reaped};
use crate::Confinement;
use std::ffi::{CStr, CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A step of the child before exec that failed (the working directory,
/// the confinement, ...): the error [`Command::spawn`] returns for it, so
/// that a caller can still read the errno (`io::Error::get_ref`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepFailed {
    pub step: &'static str,
    pub errno: i32,
}

impl std::fmt::Display for StepFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = io::Error::from_raw_os_error(self.errno);
        write!(f, "{}: {e}", self.step)
    }
}

impl std::error::Error for StepFailed {}

/// What the child's stdin is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stdin {
    /// `/dev/null`.
    Null,
    /// A pipe; the parent's end is [`Child::stdin`].
    Piped,
}

/// A process to start: program, arguments, a complete environment, working
/// directory, stdin, and the confinement applied just before exec. stdout
/// and stderr are always pipes; the child is the leader of a new session
/// (and so of a new process group), without a controlling terminal.
#[derive(Debug, Clone)]
pub struct Command {
    program: CString,
    argv: Vec<CString>,
    envp: Vec<CString>,
    path: Option<OsString>,
    cwd: Option<CString>,
    stdin: Stdin,
    confinement: Confinement,
    /// A NUL byte in any string: reported by [`Command::spawn`].
    nul: bool,
}

/// A started process and the parent's ends of its pipes.
#[derive(Debug)]
pub struct Child {
    pub pid: u32,
    /// Readable once the process has exited (opened atomically with the
    /// clone, so it can never name a recycled pid).
    pub pidfd: OwnedFd,
    pub stdin: Option<OwnedFd>,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

impl Command {
    /// `program` is looked up in `PATH` as `execvp` does when it has no `/`.
    /// The environment starts empty.
    pub fn new(program: impl AsRef<OsStr>) -> Command {
        let mut nul = false;
        let program = cstring(program.as_ref(), &mut nul);
        Command {
            argv: vec![program.clone()],
            program,
            envp: Vec::new(),
            path: None,
            cwd: None,
            stdin: Stdin::Null,
            confinement: Confinement::minimal(),
            nul,
        }
    }

    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Command {
        let arg = cstring(arg.as_ref(), &mut self.nul);
        self.argv.push(arg);
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        for a in args {
            self.arg(a);
        }
        self
    }

    /// Adds (or replaces) one environment variable. `PATH`, if set, is also
    /// where the program is looked up.
    pub fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Command {
        let (key, value) = (key.as_ref(), value.as_ref());
        if key.as_bytes() == b"PATH" {
            self.path = Some(value.to_os_string());
        }
        let mut kv = key.as_bytes().to_vec();
        kv.push(b'=');
        kv.extend_from_slice(value.as_bytes());
        let prefix = key.as_bytes().len() + 1;
        self.envp
            .retain(|e| e.as_bytes().get(..prefix) != Some(&kv[..prefix]));
        let kv = cstring(OsStr::from_bytes(&kv), &mut self.nul);
        self.envp.push(kv);
        self
    }

    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Command {
        self.cwd = Some(cstring(dir.as_ref().as_os_str(), &mut self.nul));
        self
    }

    pub fn stdin(&mut self, stdin: Stdin) -> &mut Command {
        self.stdin = stdin;
        self
    }

    pub fn confinement(&mut self, confinement: &Confinement) -> &mut Command {
        self.confinement = confinement.clone();
        self
    }

    /// Starts the process. Fails if it could not be started: no such
    /// program, not executable, or a confinement step the kernel refused.
    pub fn spawn(&self) -> io::Result<Child> {
        if let Some(starter) = self.confinement.starter() {
            // Started from the bot's starter thread, the child is born in
            // the bot's cgroups and confined (see `starter`). This thread waits, as it
            // would for its own vfork child.
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            let cmd = self.clone();
            let inside = starter.inside;
            let job = Box::new(move || {
                let r = cmd.spawn_here(!inside);
                // Dropped before replying: the caller's copy then keeps the
                // confinement (and this thread) alive, never this one.
                drop(cmd);
                let _ = tx.send(r);
            });
            if starter.run(job) {
                return rx
                    .recv()
                    .unwrap_or_else(|_| Err(io::Error::other("the bot's starter thread stopped")));
            }
        }
        self.spawn_here(true)
    }

    /// Starts the process from this thread; `join_cgroup`: the child moves
    /// itself into the bot's cgroup (if it has one) before exec.
    fn spawn_here(&self, join_cgroup: bool) -> io::Result<Child> {
        if self.nul {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a NUL byte in the command, its arguments or its environment",
            ));
        }
        let candidates = candidates(&self.program, self.path.as_deref());
        let candidate_ptrs = null_terminated(&candidates);
        let argv = null_terminated(&self.argv);
        let envp = null_terminated(&self.envp);

        let stdin = match self.stdin {
            Stdin::Null => (open_dev_null()?, None),
            Stdin::Piped => {
                let (r, w) = pipe()?;
                (r, Some(w))
            }
        };
        let (out_r, out_w) = pipe()?;
        let (err_r, err_w) = pipe()?;

        let mut ctx = ChildContext {
            candidates: candidate_ptrs.as_ptr(),
            argv: argv.as_ptr(),
            envp: envp.as_ptr(),
            cwd: self.cwd.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
            fds: [stdin.0.as_raw_fd(), out_w.as_raw_fd(), err_w.as_raw_fd()],
            confinement: &self.confinement,
            join_cgroup,
            parent: std::process::id() as libc::pid_t,
            failure: Failure::default(),
        };
        let (pid, pidfd) = clone_vfork(&mut ctx)?;
        // The child has exec'd or exited: its ends of the pipes are its own.
        drop((stdin.0, out_w, err_w));
        // SAFETY: the child no longer runs in our memory (CLONE_VFORK
        // returned), so reading what it wrote is race-free.
        let failure = unsafe { std::ptr::read_volatile(&ctx.failure) };
        if failure.errno != 0 {
            let _ = sys::wait4(pid, true);
            let step = STEPS.get(failure.step as usize).copied().unwrap_or("start");
            let e = io::Error::from_raw_os_error(failure.errno);
            return Err(if failure.step == STEP_EXEC {
                e
            } else {
                io::Error::new(
                    e.kind(),
                    StepFailed {
                        step,
                        errno: failure.errno,
                    },
                )
            });
        }
        Ok(Child {
            pid,
            pidfd,
            stdin: stdin.1,
            stdout: out_r,
            stderr: err_r,
        })
    }
}

impl Child {
    /// Waits (blocking) for the process to exit and reaps it.
    pub fn wait(&self) -> io::Result<Reaped> {
        sys::wait4(self.pid, true)?.ok_or_else(|| io::Error::other("wait4 returned no child"))
    }

    /// Closes stdin, reads stdout and stderr to their ends, then reaps: for
    /// tests and short-lived helpers.
    pub fn wait_with_output(mut self) -> io::Result<(Reaped, Vec<u8>, Vec<u8>)> {
        use std::io::Read;
        drop(self.stdin.take());
        let mut err = std::fs::File::from(self.stderr.try_clone()?);
        let reader = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = err.read_to_end(&mut buf);
            buf
        });
        let mut out = Vec::new();
        std::fs::File::from(self.stdout.try_clone()?).read_to_end(&mut out)?;
        let err = reader.join().unwrap_or_default();
        Ok((self.wait()?, out, err))
    }
}

fn cstring(s: &OsStr, nul: &mut bool) -> CString {
    CString::new(s.as_bytes()).unwrap_or_else(|_| {
        *nul = true;
        CString::default()
    })
}

/// The paths exec tries, in order: the program itself if it names a path,
/// else each `PATH` entry joined with it (an empty entry is the working
/// directory, as for execvp).
fn candidates(program: &CStr, path: Option<&OsStr>) -> Vec<CString> {
    let name = program.to_bytes();
    if name.contains(&b'/') || name.is_empty() {
        return vec![program.to_owned()];
    }
    let inherited;
    let path = match path {
        Some(p) => p,
        None => {
            inherited = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
            &inherited
        }
    };
    path.as_bytes()
        .split(|&b| b == b':')
        .filter_map(|dir| {
            let mut full = if dir.is_empty() {
                b".".to_vec()
            } else {
                dir.to_vec()
            };
            full.push(b'/');
            full.extend_from_slice(name);
            CString::new(full).ok()
        })
        .collect()
}

fn null_terminated(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both fds are new and ours alone.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn open_dev_null() -> io::Result<OwnedFd> {
    Ok(std::fs::File::open("/dev/null")?.into())
}

/// Which step of the child failed, for the error message.
const STEPS: [&str; 8] = [
    "start",
    "die with the referee",
    "new session",
    "redirect stdin/stdout/stderr",
    "working directory",
    "confinement",
    "exec",
    "signals",
];
const STEP_PDEATHSIG: u32 = 1;
const STEP_PGROUP: u32 = 2;
const STEP_STDIO: u32 = 3;
const STEP_CWD: u32 = 4;
const STEP_CONFINE: u32 = 5;
const STEP_EXEC: u32 = 6;

#[derive(Debug, Clone, Copy, Default)]
struct Failure {
    step: u32,
    errno: i32,
}

/// Everything the child reads, prepared by the parent. Lives on the parent's
/// stack, which stays valid because the parent thread is suspended until
/// the child execs or exits.
struct ChildContext<'a> {
    candidates: *const *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    cwd: *const libc::c_char,
    /// The child's stdin, stdout and stderr, in that order.
    fds: [RawFd; 3],
    confinement: &'a Confinement,
    join_cgroup: bool,
    parent: libc::pid_t,
    /// Written by the child if it cannot exec.
    failure: Failure,
}

/// The child's stack: a guard page below it catches an overflow rather
/// than corrupting the referee's memory. One per thread, reused.
struct Stack {
    base: *mut libc::c_void,
    len: usize,
}

const STACK_SIZE: usize = 256 * 1024;

impl Stack {
    fn new() -> io::Result<Stack> {
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        let len = STACK_SIZE + page;
        // SAFETY: a fresh private anonymous mapping; checked below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the lowest page of our own mapping becomes the guard.
        if unsafe { libc::mprotect(base, page, libc::PROT_NONE) } != 0 {
            let e = io::Error::last_os_error();
            // SAFETY: unmapping the mapping made above.
            unsafe { libc::munmap(base, len) };
            return Err(e);
        }
        Ok(Stack { base, len })
    }

    /// The initial stack pointer (stacks grow down), 16-byte aligned.
    fn top(&self) -> *mut libc::c_void {
        let top = (self.base as usize + self.len) & !15;
        top as *mut libc::c_void
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: our own mapping, no longer used by any child.
        unsafe { libc::munmap(self.base, self.len) };
    }
}

thread_local! {
    static STACK: std::cell::RefCell<Option<Stack>> = const { std::cell::RefCell::new(None) };
}

/// Clones the child sharing our memory, suspended until it execs or exits.
fn clone_vfork(ctx: &mut ChildContext<'_>) -> io::Result<(u32, OwnedFd)> {
    STACK.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(Stack::new()?);
        }
        let Some(stack) = slot.as_ref() else {
            return Err(io::Error::other("no stack for the child"));
        };
        let mut pidfd: libc::c_int = -1;
        // SAFETY: sigset_t is plain data; sigfillset initialises it.
        let mut all: libc::sigset_t = unsafe { std::mem::zeroed() };
        let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: valid pointers to locals. Blocking every signal keeps the
        // referee's handlers from running in the child before it resets them.
        unsafe {
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        }
        let flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PIDFD | libc::SIGCHLD;
        // SAFETY: `child_main` only makes raw system calls on `ctx`, which
        // outlives the call because this thread is suspended until the child
        // execs or exits (CLONE_VFORK). The stack is ours and unused by
        // anyone else. With CLONE_PIDFD the kernel stores the pidfd in the
        // parent_tid argument.
        let pid = unsafe {
            libc::clone(
                child_main,
                stack.top(),
                flags,
                (ctx as *mut ChildContext<'_>).cast(),
                &mut pidfd as *mut libc::c_int,
            )
        };
        let clone_error = io::Error::last_os_error();
        // SAFETY: restoring the mask saved above.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
        if pid < 0 {
            return Err(clone_error);
        }
        // SAFETY: with CLONE_PIDFD the kernel returned a new fd we own.
        let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
        Ok((pid as u32, pidfd))
    })
}

extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's ChildContext, alive while we run.
    let ctx = unsafe { &mut *arg.cast::<ChildContext<'_>>() };
    // SAFETY: see the module comment: raw system calls only.
    let failure = unsafe { child_exec(ctx) };
    // SAFETY: the parent reads this after we are gone; _exit runs no
    // destructors and no atexit handlers of the referee.
    unsafe {
        std::ptr::write_volatile(&mut ctx.failure, failure);
        libc::_exit(127)
    }
}

fn errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// Runs in the child. Returns only if exec failed.
unsafe fn child_exec(ctx: &ChildContext<'_>) -> Failure {
    let fail = |step| Failure {
        step,
        errno: errno(),
    };
    // Handlers of the referee (Ctrl-C) must not run here; SIGPIPE, which
    // Rust programs ignore, must be the default again for the bot.
    for sig in 1..libc::SIGRTMAX() {
        if sig == libc::SIGKILL || sig == libc::SIGSTOP {
            continue;
        }
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 {
            continue;
        }
        if old.sa_sigaction != libc::SIG_DFL
            && (old.sa_sigaction != libc::SIG_IGN || sig == libc::SIGPIPE)
        {
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(sig, &dfl, std::ptr::null_mut());
        }
    }
    // A referee killed with SIGKILL cannot clean up: have the kernel kill
    // the bot when the thread that started it dies. Bots are started only
    // from the runtime's long-lived threads, so this fires only when the
    // referee itself dies.
    if libc::prctl(
        libc::PR_SET_PDEATHSIG,
        libc::SIGKILL as libc::c_ulong,
        0,
        0,
        0,
    ) != 0
    {
        return fail(STEP_PDEATHSIG);
    }
    // The referee may have died before prctl took effect. In a bot's own
    // PID namespace the referee is outside it and reads as 0; an orphan
    // there would read as the namespace's init instead.
    let parent = libc::getppid();
    if parent != ctx.parent && parent != 0 {
        libc::_exit(137);
    }
    // A new session is a new process group the referee kills as one, and
    // leaves the bot without a controlling terminal: it cannot open the
    // organiser's terminal (`/dev/tty`) to read it or inject input.
    if libc::setsid() < 0 {
        return fail(STEP_PGROUP);
    }
    // Move the three fds out of 0..=2 first, so no dup2 below overwrites
    // one that is still to be used.
    let mut fds = ctx.fds;
    for fd in &mut fds {
        if *fd <= 2 {
            let moved = libc::fcntl(*fd, libc::F_DUPFD_CLOEXEC, 3);
            if moved < 0 {
                return fail(STEP_STDIO);
            }
            *fd = moved;
        }
    }
    for (target, fd) in fds.iter().enumerate() {
        // dup2 clears close-on-exec on the target.
        if libc::dup2(*fd, target as libc::c_int) < 0 {
            return fail(STEP_STDIO);
        }
    }
    if !ctx.cwd.is_null() && libc::chdir(ctx.cwd) != 0 {
        return fail(STEP_CWD);
    }
    if let Err(errno) = ctx.confinement.apply_in_child(ctx.join_cgroup) {
        return Failure {
            step: STEP_CONFINE,
            errno,
        };
    }
    // Only stdin, stdout and stderr go on: descriptors are opened
    // close-on-exec, but this also covers one another thread of the
    // referee opened without the flag just now.
    libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
    let empty: libc::sigset_t = {
        let mut s: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut s);
        s
    };
    libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());

    // execvp's search: a missing or non-directory entry moves on, a
    // permission error is remembered, anything else is final.
    let mut denied = false;
    let mut last = libc::ENOENT;
    let mut p = ctx.candidates;
    while !(*p).is_null() {
        libc::execve(*p, ctx.argv, ctx.envp);
        last = errno();
        match last {
            libc::ENOENT | libc::ENOTDIR => {}
            libc::EACCES => denied = true,
            _ => break,
        }
        p = p.add(1);
    }
    Failure {
        step: STEP_EXEC,
        errno: if denied && (last == libc::ENOENT || last == libc::ENOTDIR) {
            libc::EACCES
        } else {
            last
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_tried_as_is_and_a_name_in_each_path_entry() {
        let c = CString::new("./bot").unwrap_or_default();
        assert_eq!(candidates(&c, Some(OsStr::new("/a:/b"))), vec![c.clone()]);
        let c = CString::new("python3").unwrap_or_default();
        let got = candidates(&c, Some(OsStr::new("/usr/bin::/opt/x")));
        let got: Vec<_> = got.iter().map(|c| c.to_str().unwrap_or("")).collect();
        assert_eq!(got, ["/usr/bin/python3", "./python3", "/opt/x/python3"]);
    }

    #[test]
    fn env_replaces_a_variable_and_path_becomes_the_search_path() {
        let mut cmd = Command::new("true");
        cmd.env("A", "1").env("PATH", "/x").env("A", "2");
        let env: Vec<_> = cmd.envp.iter().map(|c| c.to_str().unwrap_or("")).collect();
        assert_eq!(env, ["PATH=/x", "A=2"]);
        assert_eq!(cmd.path.as_deref(), Some(OsStr::new("/x")));
    }
}
