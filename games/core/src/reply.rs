//! What a transport observed of one bot decision, and the faults it reduces to.
//!
//! The transport never interprets output: it reports bytes and how the
//! process ended. A challenge's wire codec decides what that means, and the
//! rules decide what a [`Fault`] costs (an illegal move, a zero bet, ...).

use serde::{Deserialize, Serialize};

/// How a one-shot bot process ended, as seen by the transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ending {
    /// The process exited by itself with this status.
    Exited(i32),
    /// The process was killed by this signal (not by the referee's deadline).
    Signalled(i32),
    /// The deadline passed before the process exited; the referee killed it.
    TimedOut,
    /// The process wrote more than the byte cap on stdout; the referee killed it.
    TooLong,
    /// The process could not be started at all (missing program, bad permissions).
    SpawnFailed,
    /// The sandbox refused the call: the program (or its interpreter) is
    /// where the bot may not run programs, or the bot's folder held more
    /// than its policy allows once the call was over. The bot's log says
    /// which.
    Sandbox,
    /// The referee was asked to stop while the process was running.
    Cancelled,
}

/// Everything a one-shot decision produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// stdout as raw bytes, at most the cap the transport was given.
    pub stdout: Vec<u8>,
    pub ending: Ending,
}

impl Reply {
    pub fn exited(stdout: impl Into<Vec<u8>>, code: i32) -> Self {
        Reply {
            stdout: stdout.into(),
            ending: Ending::Exited(code),
        }
    }
    pub fn ended(stdout: impl Into<Vec<u8>>, ending: Ending) -> Self {
        Reply {
            stdout: stdout.into(),
            ending,
        }
    }
}

/// Why a bot's decision did not count, by kind. Records count faults per kind
/// so an organiser can see why a bot lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// Still running at the deadline.
    Timeout,
    /// Killed by a signal, or exited abnormally, without a usable answer.
    Crash,
    /// Output that does not parse as a move (including empty output).
    BadOutput,
    /// More output than the challenge's byte cap.
    TooLong,
    /// Output that is not valid UTF-8 where the contract needs text.
    NotUtf8,
    /// The process closed its pipe or died (persistent bots).
    Closed,
    /// The program could not be started.
    SpawnFailed,
    /// A well-formed move that the rules reject.
    IllegalMove,
    /// A denial of the sandbox the referee could see: the program could not
    /// be started where the bot may not run programs, or the bot's folder
    /// held more than its policy's `disk-mb` or `files` after a call.
    Sandbox,
}

impl Fault {
    pub const ALL: [Fault; 9] = [
        Fault::Timeout,
        Fault::Crash,
        Fault::BadOutput,
        Fault::TooLong,
        Fault::NotUtf8,
        Fault::Closed,
        Fault::SpawnFailed,
        Fault::IllegalMove,
        Fault::Sandbox,
    ];

    /// The name used in records, JSON and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Timeout => "timeout",
            Fault::Crash => "crash",
            Fault::BadOutput => "bad_output",
            Fault::TooLong => "too_long",
            Fault::NotUtf8 => "not_utf8",
            Fault::Closed => "closed",
            Fault::SpawnFailed => "spawn_failed",
            Fault::IllegalMove => "illegal_move",
            Fault::Sandbox => "sandbox",
        }
    }
}

/// Fault counts by kind, kept per bot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultCounts(pub std::collections::BTreeMap<Fault, u64>);

impl FaultCounts {
    pub fn add(&mut self, fault: Fault) {
        *self.0.entry(fault).or_insert(0) += 1;
    }
    pub fn merge(&mut self, other: &FaultCounts) {
        for (k, v) in &other.0 {
            *self.0.entry(*k).or_insert(0) += v;
        }
    }
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }
    pub fn get(&self, fault: Fault) -> u64 {
        self.0.get(&fault).copied().unwrap_or(0)
    }
}

/// What a persistent bot (one process for many decisions) answered to one
/// request. The transport cuts messages out of the bot's stdout with the
/// challenge's framing (a line, or a single byte) and reports each one, or
/// the fault that ended the wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineReply {
    /// One message, without its terminating newline (and without a trailing `\r`).
    Message(Vec<u8>),
    /// No complete message before the deadline.
    TimedOut,
    /// The process closed stdout or died; it will answer nothing more.
    Closed,
    /// A message longer than the cap; the rest of it was discarded.
    TooLong,
}

/// A [`LineReply`] whose message is borrowed: what a transport hands on
/// when it keeps the bytes of a whole read in one buffer (no allocation per
/// message on a hot path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRef<'a> {
    /// One message, without its terminating newline (and trailing `\r`).
    Message(&'a [u8]),
    /// No complete message before the deadline.
    TimedOut,
    /// The process closed stdout or died.
    Closed,
    /// A message longer than the cap.
    TooLong,
}

impl LineReply {
    /// The same reply, borrowed.
    pub fn as_line_ref(&self) -> LineRef<'_> {
        match self {
            LineReply::Message(m) => LineRef::Message(m),
            LineReply::TimedOut => LineRef::TimedOut,
            LineReply::Closed => LineRef::Closed,
            LineReply::TooLong => LineRef::TooLong,
        }
    }
}

impl<'a> From<&'a LineReply> for LineRef<'a> {
    fn from(reply: &'a LineReply) -> LineRef<'a> {
        reply.as_line_ref()
    }
}

impl LineRef<'_> {
    /// An owned copy.
    pub fn to_owned_reply(self) -> LineReply {
        match self {
            LineRef::Message(m) => LineReply::Message(m.to_vec()),
            LineRef::TimedOut => LineReply::TimedOut,
            LineRef::Closed => LineReply::Closed,
            LineRef::TooLong => LineReply::TooLong,
        }
    }
}
