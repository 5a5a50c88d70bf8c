//! Drives one duel between two bots over their interfaces, without doing
//! any I/O: it says what each bot must be sent, the runner performs it and
//! feeds the answers back.
//!
//! ```text
//! let mut d = DuelDriver::new(settings.turns, [seat_a, seat_b]);
//! while let Some([ra, rb]) = d.requests() {
//!     // perform both at once; Run -> Reply -> read_exit_reply,
//!     // Ask -> LineReply -> read_line_reply (Answer::DEAD for a dead bot)
//!     d.submit([answer_a, answer_b]);
//! }
//! // perform d.epilogue() (final exit-code call, last `P` line), then
//! // record d.result().
//! ```

use game_core::{Fault, FaultCounts};
use serde::{Deserialize, Serialize};

use crate::answer::Answer;
use crate::duel::{Duel, Outcome, Side, Turn};
use crate::exit_code::{final_args, turn_args};
use crate::io_lines::{intro_line, perceive_line, ASK_LINE};
use crate::settings::Interface;

/// One side of a duel: how the bot is spoken to and whom it faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seat {
    pub interface: Interface,
    /// The tournament id of this side's opponent (what the bot is told).
    pub opponent_id: u32,
}

/// What a bot must be asked for its move this turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Interface 1: run the command once with `args` appended (deadline
    /// `timeout-ms`, start-up included), then read its [`game_core::Reply`]
    /// with [`crate::read_exit_reply`].
    Run { args: Vec<String> },
    /// Interface 2: write `bytes` (`I` or the previous turn's `P`, then `F`)
    /// in one write, then read one move framed by [`crate::frame_move`]
    /// within `timeout-ms` (plus the start-up grace on the process's first
    /// `F`), and read the [`game_core::LineReply`] with
    /// [`crate::read_line_reply`]. For a dead bot write nothing and answer
    /// [`Answer::DEAD`].
    Ask { bytes: Vec<u8> },
}

/// What a bot must be sent once the duel is decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Epilogue {
    /// Interface 1: the extra call with status 0/1/2. Its exit status is
    /// ignored; a timeout kills that run and is logged but costs nothing.
    Run { args: Vec<String> },
    /// Interface 2: the last turn's `P` line; no answer is read. It may be
    /// sent on its own or in front of the bot's next write.
    Tell { bytes: Vec<u8> },
}

/// One turn as played, with the fault behind each missing action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnReport {
    pub turn: Turn,
    pub faults: [Option<Fault>; 2],
}

/// A finished duel, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuelResult {
    pub outcome: Outcome,
    pub turns: u32,
    /// Final counts, negative for a gun that exploded.
    pub ammo: [i32; 2],
    /// Both histories, `?` for no action.
    pub histories: [String; 2],
    pub faults: [FaultCounts; 2],
}

#[derive(Debug, Clone)]
pub struct DuelDriver {
    duel: Duel,
    seats: [Seat; 2],
    faults: [FaultCounts; 2],
}

impl DuelDriver {
    pub fn new(turn_limit: u32, seats: [Seat; 2]) -> DuelDriver {
        DuelDriver {
            duel: Duel::new(turn_limit),
            seats,
            faults: [FaultCounts::default(), FaultCounts::default()],
        }
    }

    pub fn duel(&self) -> &Duel {
        &self.duel
    }

    pub fn seat(&self, side: Side) -> Seat {
        self.seats[side.index()]
    }

    /// Both requests for the next turn (to be performed at once, since
    /// neither bot learns the other's move first), or `None` once decided.
    pub fn requests(&self) -> Option<[Request; 2]> {
        Some([self.request(Side::A)?, self.request(Side::B)?])
    }

    /// The request for one side's next move, or `None` once decided.
    pub fn request(&self, side: Side) -> Option<Request> {
        if self.duel.is_over() {
            return None;
        }
        let seat = self.seat(side);
        Some(match seat.interface {
            Interface::ExitCode => Request::Run {
                args: turn_args(seat.opponent_id, &self.duel, side),
            },
            Interface::Io => {
                let mut bytes = match self.last_opponent_move(side) {
                    None => intro_line(seat.opponent_id),
                    Some(opponent_move) => perceive_line(opponent_move),
                };
                bytes.extend_from_slice(ASK_LINE);
                Request::Ask { bytes }
            }
        })
    }

    /// Plays the turn from both answers. `None`, changing nothing, once the
    /// duel is already decided.
    pub fn submit(&mut self, answers: [Answer; 2]) -> Option<TurnReport> {
        let turn = self.duel.play([answers[0].action, answers[1].action])?;
        for (counts, answer) in self.faults.iter_mut().zip(answers) {
            if let Some(fault) = answer.fault {
                counts.add(fault);
            }
        }
        Some(TurnReport {
            turn,
            faults: [answers[0].fault, answers[1].fault],
        })
    }

    /// What each side must be sent after the duel; `None` while it goes on.
    pub fn epilogue(&self) -> Option<[Epilogue; 2]> {
        Some([self.epilogue_for(Side::A)?, self.epilogue_for(Side::B)?])
    }

    pub fn epilogue_for(&self, side: Side) -> Option<Epilogue> {
        let seat = self.seat(side);
        Some(match seat.interface {
            Interface::ExitCode => Epilogue::Run {
                args: final_args(seat.opponent_id, &self.duel, side)?,
            },
            Interface::Io => {
                if !self.duel.is_over() {
                    return None;
                }
                // A duel always has a turn unless its limit was 0; then
                // there is nothing to tell.
                let bytes = self
                    .last_opponent_move(side)
                    .map(perceive_line)
                    .unwrap_or_default();
                Epilogue::Tell { bytes }
            }
        })
    }

    /// The result once the duel is decided.
    pub fn result(&self) -> Option<DuelResult> {
        Some(DuelResult {
            outcome: self.duel.outcome()?,
            turns: self.duel.turns_played(),
            ammo: self.duel.ammo(),
            histories: [
                self.duel.history_string(Side::A),
                self.duel.history_string(Side::B),
            ],
            faults: self.faults.clone(),
        })
    }

    /// The opponent's move of the last turn played, if any turn was.
    fn last_opponent_move(&self, side: Side) -> Option<Option<crate::Action>> {
        self.duel.history(side.other()).last().copied()
    }
}
