//! The persistent transport: one long-lived process per bot that is talked
//! to in messages (forty's multiplexed lines, gun-duel's interface 2).
//!
//! Neither side can deadlock on a full pipe. [`LineProcess::send`] never
//! blocks: it writes into stdin at once while the pipe has room (no task
//! hop on the hot path), and otherwise queues the rest for a pump task that
//! writes it as the bot reads. stdout is cut into messages with the
//! challenge's [`Framing`], each stamped with the time of the read that
//! completed it: by the owner itself, inside [`LineProcess::next_before`]
//! (gun-duel, checks), or by a reader task that hands each read's messages
//! to a sink shared by many processes (forty). A drain copies stderr,
//! capped, into the bot's log. Nothing reads ahead without bound: a bot
//! that floods faster than the referee consumes is simply blocked by its
//! own full pipe.

use super::folder_quota;
use super::framing::Cutter;
pub use super::framing::{lines, Frame, Framing};
use super::log::BotLog;
use super::one_shot::kill_group;
use super::program::BotProgram;
use super::start::{self, StartFailure};
use game_core::{LineRef, LineReply};
use referee_sandbox::spawn::Stdin;
use referee_sandbox::sys::{self, PidFd, Reaped};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::sync::{mpsc, Notify};

/// One message from the bot, or the end of its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    /// A message and when the read that completed it returned.
    Message(Vec<u8>, Instant),
    /// A message over the framing's cap (skipped).
    TooLong(Instant),
    /// stdout closed: the process exited or closed it. Nothing more will come.
    Closed,
}

/// One piece of a [`Batch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// A message: `bytes[start..end]` of its batch.
    Message { start: usize, end: usize },
    /// A message over the framing's cap (skipped).
    TooLong,
    /// stdout closed: the process exited or closed it. Nothing more will come.
    Closed,
}

/// What one read of a process's stdout completed, for a shared sink: the
/// messages' bytes in one buffer, so that a busy process costs two
/// allocations per read rather than one per message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The tag the process was spawned with.
    pub tag: u64,
    /// When the read returned (for `Closed`, when the end was seen).
    pub at: Instant,
    /// The messages, back to back.
    pub bytes: Vec<u8>,
    /// In order; [`Piece::Closed`] comes last and only once.
    pub pieces: Vec<Piece>,
}

impl Batch {
    /// Only the end of output, seen now.
    fn closed() -> Batch {
        Batch {
            tag: 0,
            at: Instant::now(),
            bytes: Vec::new(),
            pieces: vec![Piece::Closed],
        }
    }

    /// What `piece` says, borrowed from the batch.
    pub fn reply(&self, piece: Piece) -> LineRef<'_> {
        match piece {
            Piece::Message { start, end } => {
                LineRef::Message(self.bytes.get(start..end).unwrap_or_default())
            }
            Piece::TooLong => LineRef::TooLong,
            Piece::Closed => LineRef::Closed,
        }
    }

    /// The pieces as owned messages (for callers off the hot path).
    pub fn incoming(&self) -> impl Iterator<Item = Incoming> + '_ {
        self.pieces.iter().map(|&piece| match self.reply(piece) {
            LineRef::Message(m) => Incoming::Message(m.to_vec(), self.at),
            LineRef::TooLong | LineRef::TimedOut => Incoming::TooLong(self.at),
            LineRef::Closed => Incoming::Closed,
        })
    }
}

/// Where a reader task delivers the messages of a process spawned with a
/// shared sink.
struct Sink {
    tag: u64,
    sink: mpsc::Sender<Batch>,
}

impl Sink {
    /// Delivers one read's messages (`batch.tag` is filled in here); false
    /// once nobody listens.
    async fn deliver(&self, mut batch: Batch) -> bool {
        if batch.pieces.is_empty() {
            return true;
        }
        batch.tag = self.tag;
        self.sink.send(batch).await.is_ok()
    }
}

/// The stdout of a process read by its owner, in
/// [`LineProcess::next_before`]: no task and no channel between the pipe
/// and the ask, which is gun-duel's path every turn. What the bot writes
/// while nobody asks waits in the pipe; a bot that floods it blocks on its
/// own full pipe.
struct OwnReader {
    stdout: pipe::Receiver,
    cutter: Cutter,
    /// Messages read but not taken yet.
    ready: VecDeque<Incoming>,
    chunk: Box<[u8]>,
    /// stdout reached its end (or failed).
    ended: bool,
}

impl OwnReader {
    async fn next_before(&mut self, deadline: Instant) -> Option<Incoming> {
        loop {
            if let Some(m) = self.ready.pop_front() {
                return Some(m);
            }
            if self.ended {
                return Some(Incoming::Closed);
            }
            let read =
                tokio::time::timeout_at(deadline.into(), self.stdout.read(&mut self.chunk)).await;
            match read {
                Err(_) => return None,
                Ok(Ok(0) | Err(_)) => self.ended = true,
                Ok(Ok(n)) => {
                    let batch = self.cutter.cut(&self.chunk[..n], Instant::now());
                    self.ready.extend(batch.incoming());
                }
            }
        }
    }
}

/// stderr kept per bot process over its life.
const STDERR_CAP: u64 = 1 << 20;
/// How long shutdown waits for the rest of stderr once the group is dead.
const STDERR_LAST_WORDS: Duration = Duration::from_millis(200);
/// Bytes an owner's read takes from a bot's stdout at once.
const OWN_READ: usize = 16 * 1024;

/// A running persistent bot process.
pub struct LineProcess {
    pid: u32,
    exited: PidFd,
    /// `None` once stdin is closed (the pump may still hold it to finish).
    stdin: Option<Arc<pipe::Sender>>,
    to_write: Arc<Backlog>,
    /// `None` for a process whose messages go to a shared sink.
    own: Option<Box<OwnReader>>,
    closed: bool,
    reaped: Option<Reaped>,
    /// Processes killed and reaped by the sweep after this one was reaped.
    swept: Vec<u32>,
    /// Kept while the process lives: the bot's processes are started by a
    /// thread of its confinement, and die with that thread (parent-death
    /// signal).
    confinement: referee_sandbox::Confinement,
    started: Instant,
    /// The stderr drain, awaited (briefly) at shutdown so a bot's last words
    /// reach its log.
    stderr_drain: Option<tokio::task::JoinHandle<()>>,
    /// The watch on the bot's folder while the process lives, if it has a
    /// quota (see [`watch_folder`]).
    folder: Option<Arc<FolderWatch>>,
}

/// What a live process's folder watch shares with the process.
#[derive(Debug, Default)]
struct FolderWatch {
    /// Why the watch killed the process: its folder went over its quota.
    over: std::sync::OnceLock<String>,
    /// Set, under the lock, before the process is reaped: from then on its
    /// group id may be reused, and the watch must not kill it.
    reaping: Mutex<bool>,
}

impl FolderWatch {
    fn stop(&self) {
        *self.reaping.lock().unwrap_or_else(|e| e.into_inner()) = true;
    }
}

/// Measures a persistent process's folder every
/// [`folder_quota::MEASURE_EVERY`] while it lives, between and during
/// asks, so a bot cannot fill the disk from a thread of its own while it
/// waits: over its quota, the process group is killed, and the challenge
/// reads why from [`LineProcess::over_quota`].
async fn watch_folder(
    pid: u32,
    folder: std::path::PathBuf,
    quota: folder_quota::FolderQuota,
    watch: Arc<FolderWatch>,
) {
    loop {
        tokio::time::sleep(folder_quota::MEASURE_EVERY).await;
        if *watch.reaping.lock().unwrap_or_else(|e| e.into_inner()) {
            return;
        }
        let Some(what) = folder_quota::measure(&folder, &quota).over(&quota) else {
            continue;
        };
        let reaping = watch.reaping.lock().unwrap_or_else(|e| e.into_inner());
        if !*reaping {
            let _ = watch.over.set(what);
            kill_group(pid);
        }
        return;
    }
}

impl LineProcess {
    /// Starts `program` with `args` appended, stdin piped. Its messages are
    /// read with [`LineProcess::next_before`]. A failure to start says
    /// whose it is: the bot's (`SpawnFailed` or `Sandbox`) or the machine's.
    pub fn spawn(
        program: &BotProgram,
        args: &[String],
        framing: Framing,
        log: BotLog,
    ) -> Result<LineProcess, StartFailure> {
        Self::start(program, args, framing, log, None)
    }

    /// Starts `program` like [`LineProcess::spawn`], but delivers its
    /// messages to `sink`, shared with other processes: everything one read
    /// of its stdout completed arrives as one [`Batch`] labelled `tag`. One
    /// event loop can then serve many processes, and pays one channel
    /// message per read rather than per line. `next_before` and `ask` are
    /// not available on such a process (they report `Closed`).
    pub fn spawn_shared(
        program: &BotProgram,
        args: &[String],
        framing: Framing,
        log: BotLog,
        tag: u64,
        sink: mpsc::Sender<Batch>,
    ) -> Result<LineProcess, StartFailure> {
        Self::start(program, args, framing, log, Some(Sink { tag, sink }))
    }

    fn start(
        program: &BotProgram,
        args: &[String],
        framing: Framing,
        log: BotLog,
        sink: Option<Sink>,
    ) -> Result<LineProcess, StartFailure> {
        let child = start::start(program, &program.command(args, Stdin::Piped))?;
        let pid = child.pid;
        // Registering with the runtime fails only for want of the
        // referee's resources (or of a pipe it just made).
        let registered = PidFd::register(child.pidfd).and_then(|exited| {
            let stdin = child
                .stdin
                .map(pipe::Sender::from_owned_fd)
                .transpose()?
                .map(Arc::new);
            let stdout = pipe::Receiver::from_owned_fd(child.stdout)?;
            let stderr = pipe::Receiver::from_owned_fd(child.stderr)?;
            Ok((exited, stdin, stdout, Some(stderr)))
        });
        let (exited, stdin, stdout, stderr) = match registered {
            Ok(parts) => parts,
            Err(e) => {
                kill_group(pid);
                let _ = sys::wait4(pid, true);
                super::reaper::forget(pid);
                return Err(start::judge(program, &e));
            }
        };

        let own = match sink {
            Some(sink) => {
                tokio::spawn(read_messages(stdout, Cutter::new(framing), sink));
                None
            }
            None => Some(Box::new(OwnReader {
                stdout,
                cutter: Cutter::new(framing),
                ready: VecDeque::new(),
                chunk: vec![0u8; OWN_READ].into_boxed_slice(),
                ended: false,
            })),
        };
        let stderr_drain = stderr.map(|stderr| {
            let label = format!("{} (pid {pid}) stderr", program.name);
            tokio::spawn(drain_stderr(stderr, log, label))
        });
        let folder = program.quota.map(|quota| {
            let watch = Arc::new(FolderWatch::default());
            tokio::spawn(watch_folder(
                pid,
                program.folder.clone(),
                quota,
                watch.clone(),
            ));
            watch
        });
        Ok(LineProcess {
            folder,
            pid,
            exited,
            stdin,
            to_write: Arc::new(Backlog::default()),
            own,
            closed: false,
            reaped: None,
            swept: Vec::new(),
            confinement: program.confinement.clone(),
            started: Instant::now(),
            stderr_drain,
        })
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Why the folder watch killed this process, if it did: its folder
    /// went over the bot's quota (a `sandbox` fault, not a crash).
    pub fn over_quota(&self) -> Option<&str> {
        self.folder
            .as_ref()
            .and_then(|w| w.over.get())
            .map(String::as_str)
    }

    /// Queues bytes for the bot's stdin. Never blocks; a dead bot's bytes are
    /// dropped. Bytes are written in the order they are sent.
    pub fn send(&self, bytes: impl Into<Vec<u8>>) {
        let Some(stdin) = &self.stdin else { return };
        let bytes = bytes.into();
        let Ok(mut queue) = self.to_write.queue.lock() else {
            return;
        };
        if queue.failed || bytes.is_empty() {
            return;
        }
        let mut done = 0;
        if queue.chunks.is_empty() {
            // Nothing ahead of these bytes: write what the pipe takes now.
            while done < bytes.len() {
                match stdin.try_write(&bytes[done..]) {
                    Ok(n) => done += n,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(_) => {
                        // The bot is gone; the reader will see stdout close.
                        queue.failed = true;
                        return;
                    }
                }
            }
            if done == bytes.len() {
                return;
            }
        }
        queue.chunks.push_back(if done == 0 {
            bytes
        } else {
            bytes[done..].to_vec()
        });
        if !queue.pumping {
            queue.pumping = true;
            tokio::spawn(pump(Arc::clone(stdin), Arc::clone(&self.to_write)));
        }
    }

    /// Waits until everything [`LineProcess::send`] queued has been written
    /// into the bot's stdin, or until `deadline`. False means a write is
    /// still blocked at the deadline: the bot stopped reading its stdin and
    /// the pipe is full. Bytes dropped for a dead bot count as written.
    pub async fn flushed_before(&mut self, deadline: Instant) -> bool {
        // The usual case, every ask: `send` wrote everything at once.
        if self.to_write.is_done() {
            return true;
        }
        let until = tokio::time::Instant::from_std(deadline);
        loop {
            let drained = self.to_write.drained.notified();
            tokio::pin!(drained);
            drained.as_mut().enable();
            if self.to_write.is_done() {
                return true;
            }
            if tokio::time::timeout_at(until, drained).await.is_err() {
                return self.to_write.is_done();
            }
        }
    }

    /// The next message, or `None` if the deadline passes first.
    pub async fn next_before(&mut self, deadline: Instant) -> Option<Incoming> {
        if self.closed {
            return Some(Incoming::Closed);
        }
        let Some(own) = self.own.as_mut() else {
            return Some(Incoming::Closed);
        };
        let incoming = own.next_before(deadline).await?;
        if incoming == Incoming::Closed {
            self.closed = true;
        }
        Some(incoming)
    }

    /// One request, one answer: sends `bytes`, waits for the next message
    /// until `timeout`. Convenience for lockstep protocols (gun-duel).
    pub async fn ask(&mut self, bytes: impl Into<Vec<u8>>, timeout: Duration) -> LineReply {
        self.send(bytes);
        match self.next_before(Instant::now() + timeout).await {
            None => LineReply::TimedOut,
            Some(Incoming::Message(m, _)) => LineReply::Message(m),
            Some(Incoming::TooLong(_)) => LineReply::TooLong,
            Some(Incoming::Closed) => LineReply::Closed,
        }
    }

    /// Closes stdin (the bot sees EOF once what is queued is written).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Kills the whole process group now and reaps the process.
    pub async fn kill(&mut self) -> Option<Reaped> {
        self.stdin = None;
        kill_group(self.pid);
        self.reap().await
    }

    /// The end of a bot's life: EOF on stdin, up to `grace` to exit by
    /// itself, then the whole group is killed either way.
    pub async fn shutdown(mut self, grace: Duration) -> Option<Reaped> {
        self.close_stdin();
        let _ = tokio::time::timeout(grace, self.exited.exited()).await;
        let reaped = self.kill().await;
        // The group is dead, so stderr is at its end (unless a process
        // escaped the group): let the drain log what is left.
        if let Some(drain) = self.stderr_drain.take() {
            let _ = tokio::time::timeout(STDERR_LAST_WORDS, drain).await;
        }
        reaped
    }

    /// CPU time and exit, once reaped.
    pub fn reaped(&self) -> Option<Reaped> {
        self.reaped
    }

    /// Waits up to `grace` for the process to exit by itself (it stays
    /// unreaped); true if it did.
    pub async fn exited_within(&self, grace: Duration) -> bool {
        self.reaped.is_some()
            || matches!(
                tokio::time::timeout(grace, self.exited.exited()).await,
                Ok(Ok(_))
            )
    }

    /// Processes the sweep killed and reaped after this one was reaped:
    /// escapees of its group, and members of it orphaned before the kill
    /// (`referee check` tells them apart).
    pub fn swept(&self) -> &[u32] {
        &self.swept
    }

    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    async fn reap(&mut self) -> Option<Reaped> {
        if self.reaped.is_none() {
            let _ = self.exited.exited().await;
            if let Some(w) = &self.folder {
                w.stop();
            }
            self.reaped = sys::wait4(self.pid, true).ok().flatten();
            super::reaper::forget(self.pid);
            self.swept.extend(
                super::reaper::sweep_pids(&self.confinement)
                    .into_iter()
                    .map(|s| s.pid),
            );
        }
        self.reaped
    }
}

impl Drop for LineProcess {
    fn drop(&mut self) {
        if self.reaped.is_none() {
            // Not shut down properly (a panic, an early return): never leave
            // the group behind. Reaping without blocking is best effort; an
            // unreaped zombie is collected when the referee exits.
            if let Some(w) = &self.folder {
                w.stop();
            }
            kill_group(self.pid);
            if let Ok(Some(_)) = sys::wait4(self.pid, false) {
                super::reaper::forget(self.pid);
            }
        }
    }
}

/// Bytes waiting for room in a bot's stdin.
#[derive(Default)]
struct Backlog {
    queue: Mutex<Queue>,
    /// Notified when the queue empties (or writing failed).
    drained: Notify,
}

#[derive(Default)]
struct Queue {
    chunks: VecDeque<Vec<u8>>,
    /// Bytes of the front chunk already written.
    offset: usize,
    /// A pump task is writing the queue.
    pumping: bool,
    /// A write failed: the bot is gone and everything is dropped.
    failed: bool,
}

impl Backlog {
    fn is_done(&self) -> bool {
        self.queue
            .lock()
            .map_or(true, |q| q.failed || q.chunks.is_empty())
    }
}

/// Writes the queue as the pipe makes room, then ends. Holds stdin open
/// until then, so a closed stdin still gets what was sent before.
async fn pump(stdin: Arc<pipe::Sender>, backlog: Arc<Backlog>) {
    loop {
        let ready = stdin.writable().await;
        let Ok(mut guard) = backlog.queue.lock() else {
            return;
        };
        let q: &mut Queue = &mut guard;
        if ready.is_err() {
            q.failed = true;
        }
        while !q.failed {
            let Some(front) = q.chunks.front() else { break };
            let len = front.len();
            match stdin.try_write(&front[q.offset..]) {
                Ok(n) => {
                    q.offset += n;
                    if q.offset >= len {
                        q.chunks.pop_front();
                        q.offset = 0;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(_) => q.failed = true,
            }
        }
        if q.failed || q.chunks.is_empty() {
            q.chunks.clear();
            q.pumping = false;
            drop(guard);
            backlog.drained.notify_waiters();
            return;
        }
    }
}

async fn read_messages(mut stdout: pipe::Receiver, mut cutter: Cutter, sink: Sink) {
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match stdout.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if !sink.deliver(cutter.cut(&chunk[..n], Instant::now())).await {
            return;
        }
    }
    let _ = sink.deliver(Batch::closed()).await;
}

async fn drain_stderr(mut stderr: pipe::Receiver, log: BotLog, label: String) {
    let mut chunk = vec![0u8; 8192];
    let mut kept: u64 = 0;
    loop {
        match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if kept < STDERR_CAP {
                    let take = n.min((STDERR_CAP - kept) as usize);
                    log.section(&label, &chunk[..take]);
                    kept += take as u64;
                }
            }
        }
    }
}
