//! What a bot decided, how a decision can fail, and how a turn ends.

use game_core::Fault;
use serde::{Deserialize, Serialize};

/// A bot's answer to one ask, as fed back to the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Throw another die.
    Throw,
    /// Stop and bank the turn's sum.
    Stop,
    /// No usable decision: the turn is lost (section 5).
    Failed(Failure),
}

/// Why a decision did not count. Each costs the turn it hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// The turn's time budget ran out before the reply.
    Timeout,
    /// The bot replied `G e` (its code raised).
    Error,
    /// The reply carried the right game id but no valid decision.
    Malformed,
    /// The process died, or was killed, with this ask outstanding.
    Crash,
    /// The seat's process was already gone (crashed and restarted, or
    /// disqualified): the bot was not asked at all.
    Lost,
}

impl Failure {
    pub const ALL: [Failure; 5] = [
        Failure::Timeout,
        Failure::Error,
        Failure::Malformed,
        Failure::Crash,
        Failure::Lost,
    ];

    /// The outcome word of a turn lost to this failure (transcripts, records).
    pub fn name(self) -> &'static str {
        match self {
            Failure::Timeout => "timeout",
            Failure::Error => "error",
            Failure::Malformed => "malformed",
            Failure::Crash => "crash",
            Failure::Lost => "lost",
        }
    }

    /// How the failed decision is shown among a transcript's decisions. A
    /// lost turn shows none, since the bot was never asked.
    pub fn mark(self) -> Option<&'static str> {
        match self {
            Failure::Timeout => Some("TO"),
            Failure::Error => Some("E"),
            Failure::Malformed => Some("M"),
            Failure::Crash => Some("X"),
            Failure::Lost => None,
        }
    }

    /// The shared fault kind, where one fits. `game_core::Fault` has no kind
    /// for a bot reporting its own exception, nor for a turn lost without an
    /// ask, so those two have none.
    pub fn core_fault(self) -> Option<Fault> {
        match self {
            Failure::Timeout => Some(Fault::Timeout),
            Failure::Malformed => Some(Fault::BadOutput),
            Failure::Crash => Some(Fault::Crash),
            Failure::Error | Failure::Lost => None,
        }
    }
}

impl Decision {
    /// How the decision is shown in a transcript (`T`, `S`, `E`, `TO`, `M`,
    /// `X`); `None` for a lost turn.
    pub fn mark(self) -> Option<&'static str> {
        match self {
            Decision::Throw => Some("T"),
            Decision::Stop => Some("S"),
            Decision::Failed(f) => f.mark(),
        }
    }
}

/// How one turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The bot stopped: the turn's sum was added.
    Bank,
    /// A 6 with the current total below the end score: the score stays.
    Six,
    /// A 6 with the current total at or above the end score: the score is 0.
    Bust,
    /// The decision failed: the score stays and no more dice were thrown.
    Failed(Failure),
}

impl Outcome {
    /// The transcript word: `bank six bust error timeout malformed crash lost`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Bank => "bank",
            Outcome::Six => "six",
            Outcome::Bust => "bust",
            Outcome::Failed(f) => f.name(),
        }
    }
}
