//! The rules of one game (section 2) as a deterministic state machine.
//!
//! The game throws its own dice and stops whenever a seat must decide:
//! [`Game::advance`] returns [`Next::Ask`], the caller gets the decision
//! somehow (a bot process, a script, a test) and hands it to
//! [`Game::answer`], then calls `advance` again. Nothing here waits, reads a
//! clock or performs I/O, so thousands of games can be in flight at once.

use std::time::Duration;

use crate::decision::{Decision, Failure, Outcome};
use crate::dice::Dice;
use crate::wire;

/// The score that starts the last round, and above which a 6 busts.
pub const END_SCORE: u32 = 40;
/// Complete passes after which the game ends whatever the scores.
pub const ROUND_LIMIT: u32 = 200;

/// Where a turn sits in the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Pass N (1-based) of the main loop; the transcript's `rN`.
    Pass(u32),
    /// The final turns after the last pass; the transcript's `fin`.
    Final,
}

/// One finished turn, as reported to an [`Observer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnRecord<'a> {
    pub phase: Phase,
    pub seat: usize,
    /// The last-round flag the turn was played with.
    pub last_round: bool,
    /// Every die of the turn, the first included.
    pub dice: &'a [u8],
    /// The decisions the seat made (a failed one last); empty when the
    /// first die was a 6 or the turn was lost without an ask.
    pub decisions: &'a [Decision],
    pub outcome: Outcome,
    pub score_before: u32,
    /// The seat's score after the turn.
    pub score: u32,
}

/// Something worth a line of its own in a transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A seat reached the end score while the flag was false.
    LastRound { seat: usize, score: u32, round: u32 },
    /// The round counter reached [`ROUND_LIMIT`].
    RoundLimit { rounds: u32 },
    /// The first die past a `--dice` list was drawn.
    DiceExhausted { after: usize },
}

/// Receives turns and events as the game plays them. `()` ignores them,
/// which is what a tournament uses.
pub trait Observer {
    fn turn(&mut self, _turn: &TurnRecord<'_>) {}
    fn event(&mut self, _event: &Event) {}
}

impl Observer for () {}

/// What the game needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// This seat must decide; send it [`Game::write_ask`]'s line.
    Ask { seat: usize },
    /// The game is over; see [`Game::result`].
    Over,
}

/// The end of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameResult {
    /// Final scores in seat order.
    pub scores: Vec<u32>,
    /// The highest final score (the game's winning score).
    pub best: u32,
    /// Every seat with the highest score, in seat order.
    pub winners: Vec<usize>,
    /// Complete passes played; final turns do not count.
    pub rounds: u32,
    pub tied: bool,
    pub round_limit: bool,
}

/// Per-seat counts of one game (section 2's statistics and section 5's
/// failures). Summed into a bot's record by [`crate::stats`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeatTally {
    pub turns: u64,
    /// Dice thrown, the first of each turn included.
    pub throws: u64,
    /// Turns that banked.
    pub successes: u64,
    pub timeouts: u64,
    pub errors: u64,
    pub malformed: u64,
    /// Turns whose ask was outstanding when the process died.
    pub crash_turns: u64,
    /// Turns lost without an ask because the process was already gone.
    pub lost_turns: u64,
}

/// Why [`Game::answer`] refused a decision: the caller's bookkeeping is out
/// of step with the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAsking;

impl std::fmt::Display for NotAsking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the game is not waiting for a decision")
    }
}

impl std::error::Error for NotAsking {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// The current seat's turn has not started: its first die is next.
    TurnStart,
    /// Waiting for the current seat's decision.
    Awaiting,
    /// A decision arrived and is applied by the next `advance`.
    Answered(Decision),
    Over,
}

/// One game in progress.
#[derive(Debug, Clone)]
pub struct Game {
    scores: Vec<u32>,
    /// All scores at the start of the current turn (what the bot is shown).
    snapshot: Vec<u32>,
    throws: Vec<u8>,
    decisions: Vec<Decision>,
    /// The last-round flag L: set once, by an initiator or the round limit.
    last_round_on: bool,
    /// The flag of the current turn, fixed when it starts.
    turn_flag: bool,
    /// Final turns go to seats below this; the seat count at the round limit.
    initiator: usize,
    pass: u32,
    rounds: u32,
    in_final: bool,
    round_limit: bool,
    seat: usize,
    stage: Stage,
    dice: Dice,
    tallies: Vec<SeatTally>,
    /// Decision time charged to the current turn so far.
    spent: Duration,
    result: Option<GameResult>,
}

impl Game {
    /// A game of `seats` seats, all at score 0. `None` for zero seats.
    pub fn new(seats: usize, dice: Dice) -> Option<Game> {
        if seats == 0 {
            return None;
        }
        Some(Game {
            scores: vec![0; seats],
            snapshot: vec![0; seats],
            throws: Vec::with_capacity(16),
            decisions: Vec::with_capacity(16),
            last_round_on: false,
            turn_flag: false,
            initiator: seats,
            pass: 1,
            rounds: 0,
            in_final: false,
            round_limit: false,
            seat: 0,
            stage: Stage::TurnStart,
            dice,
            tallies: vec![SeatTally::default(); seats],
            spent: Duration::ZERO,
            result: None,
        })
    }

    pub fn seats(&self) -> usize {
        self.scores.len()
    }

    /// Plays on until a seat must decide or the game is over. Calling it
    /// again without an answer returns the same ask.
    pub fn advance<O: Observer + ?Sized>(&mut self, obs: &mut O) -> Next {
        loop {
            match self.stage {
                Stage::Over => return Next::Over,
                Stage::Awaiting => return Next::Ask { seat: self.seat },
                Stage::TurnStart => {
                    self.snapshot.clone_from(&self.scores);
                    self.throws.clear();
                    self.decisions.clear();
                    self.spent = Duration::ZERO;
                    self.turn_flag = self.last_round_on;
                    if self.throw_die(obs) == 6 {
                        // A first-throw 6: the bot is not consulted at all.
                        self.finish_turn(None, obs);
                    } else {
                        self.stage = Stage::Awaiting;
                    }
                }
                Stage::Answered(decision) => {
                    // A lost turn asked nothing, so it records no decision.
                    if decision != Decision::Failed(Failure::Lost) {
                        self.decisions.push(decision);
                    }
                    match decision {
                        Decision::Throw => {
                            if self.throw_die(obs) == 6 {
                                self.finish_turn(None, obs);
                            } else {
                                self.stage = Stage::Awaiting;
                            }
                        }
                        Decision::Stop => self.finish_turn(Some(Outcome::Bank), obs),
                        Decision::Failed(f) => self.finish_turn(Some(Outcome::Failed(f)), obs),
                    }
                }
            }
        }
    }

    /// Hands the pending ask its decision; the next [`Game::advance`]
    /// applies it.
    pub fn answer(&mut self, decision: Decision) -> Result<(), NotAsking> {
        if self.stage != Stage::Awaiting {
            return Err(NotAsking);
        }
        self.stage = Stage::Answered(decision);
        Ok(())
    }

    /// The seat whose decision is awaited, if any.
    pub fn asking(&self) -> Option<usize> {
        match self.stage {
            Stage::Awaiting => Some(self.seat),
            _ => None,
        }
    }

    /// Appends the `ask` line of the pending decision (with its LF) to
    /// `out`; nothing when no decision is awaited.
    pub fn write_ask(&self, game_id: u64, out: &mut Vec<u8>) {
        if self.stage == Stage::Awaiting {
            wire::write_ask(out, game_id, self.turn_flag, &self.throws, &self.snapshot);
        }
    }

    /// True when the pending ask is the first of its turn (the host starts a
    /// new generator on it).
    pub fn first_decision(&self) -> bool {
        self.decisions.is_empty()
    }

    /// This turn's throws so far.
    pub fn current_throws(&self) -> &[u8] {
        &self.throws
    }

    /// The scores the current turn is shown (taken at its start).
    pub fn snapshot(&self) -> &[u32] {
        &self.snapshot
    }

    /// Current scores in seat order.
    pub fn scores(&self) -> &[u32] {
        &self.scores
    }

    /// The last-round flag of the current turn.
    pub fn last_round(&self) -> bool {
        self.turn_flag
    }

    /// The phase of the current (or last) turn.
    pub fn phase(&self) -> Phase {
        if self.in_final {
            Phase::Final
        } else {
            Phase::Pass(self.pass)
        }
    }

    /// Complete passes so far.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    pub fn is_over(&self) -> bool {
        self.stage == Stage::Over
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// Per-seat counts so far.
    pub fn tallies(&self) -> &[SeatTally] {
        &self.tallies
    }

    /// Charges decision time to the current turn's shared budget.
    pub fn spend(&mut self, time: Duration) {
        self.spent = self.spent.saturating_add(time);
    }

    /// What is left of the current turn's budget of `timeout` (section 5:
    /// a turn's decisions share it).
    pub fn budget_left(&self, timeout: Duration) -> Duration {
        timeout.saturating_sub(self.spent)
    }

    /// The game's dice (for `referee play`: how much of a `--dice` list was
    /// used).
    pub fn dice(&self) -> &Dice {
        &self.dice
    }

    fn throw_die<O: Observer + ?Sized>(&mut self, obs: &mut O) -> u8 {
        let die = self.dice.roll();
        if let Some(after) = self.dice.take_exhausted() {
            obs.event(&Event::DiceExhausted { after });
        }
        self.throws.push(die);
        die
    }

    /// Scores the turn (`None`: it ended on a 6), reports it, and moves to
    /// the next turn or ends the game.
    fn finish_turn<O: Observer + ?Sized>(&mut self, ended: Option<Outcome>, obs: &mut O) {
        let seat = self.seat;
        let before = self.scores[seat];
        let sum: u32 = self.throws.iter().map(|&d| u32::from(d)).sum();
        let outcome = match ended {
            Some(outcome) => outcome,
            // The last die is a 6: the current total without it decides.
            None if before.saturating_add(sum - 6) >= END_SCORE => Outcome::Bust,
            None => Outcome::Six,
        };
        let after = match outcome {
            Outcome::Bank => before.saturating_add(sum),
            Outcome::Bust => 0,
            Outcome::Six | Outcome::Failed(_) => before,
        };
        self.scores[seat] = after;

        let tally = &mut self.tallies[seat];
        tally.turns += 1;
        tally.throws += self.throws.len() as u64;
        match outcome {
            Outcome::Bank => tally.successes += 1,
            Outcome::Six | Outcome::Bust => {}
            Outcome::Failed(Failure::Timeout) => tally.timeouts += 1,
            Outcome::Failed(Failure::Error) => tally.errors += 1,
            Outcome::Failed(Failure::Malformed) => tally.malformed += 1,
            Outcome::Failed(Failure::Crash) => tally.crash_turns += 1,
            Outcome::Failed(Failure::Lost) => tally.lost_turns += 1,
        }

        obs.turn(&TurnRecord {
            phase: self.phase(),
            seat,
            last_round: self.turn_flag,
            dice: &self.throws,
            decisions: &self.decisions,
            outcome,
            score_before: before,
            score: after,
        });

        if self.in_final {
            self.seat += 1;
            if self.seat >= self.initiator {
                self.finish_game();
            } else {
                self.stage = Stage::TurnStart;
            }
            return;
        }

        if !self.last_round_on && after >= END_SCORE {
            self.last_round_on = true;
            self.initiator = seat;
            obs.event(&Event::LastRound {
                seat,
                score: after,
                round: self.pass,
            });
        }
        self.seat += 1;
        self.stage = Stage::TurnStart;
        if self.seat < self.seats() {
            return;
        }
        // A pass is complete.
        self.rounds += 1;
        self.seat = 0;
        if self.rounds == ROUND_LIMIT {
            // Everyone plays again, even an initiator of this very pass.
            self.last_round_on = true;
            self.initiator = self.seats();
            self.round_limit = true;
            obs.event(&Event::RoundLimit {
                rounds: self.rounds,
            });
        }
        if self.last_round_on {
            self.in_final = true;
            if self.initiator == 0 {
                self.finish_game();
            }
        } else {
            self.pass += 1;
        }
    }

    fn finish_game(&mut self) {
        let best = self.scores.iter().copied().max().unwrap_or(0);
        let winners: Vec<usize> = (0..self.seats())
            .filter(|&s| self.scores[s] == best)
            .collect();
        self.result = Some(GameResult {
            scores: self.scores.clone(),
            best,
            tied: winners.len() > 1,
            winners,
            rounds: self.rounds,
            round_limit: self.round_limit,
        });
        self.stage = Stage::Over;
    }
}
