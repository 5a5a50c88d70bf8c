//! One game as a state machine: round 1, round 2, resolution (§4).
//!
//! The game plays the rabble itself and stops at every bot decision with a
//! [`Request`]; the runner obtains the bot's [`Reply`] and feeds it back with
//! [`Game::answer`]. Calls are strictly sequential: each one depends on the
//! answers before it. Nothing in the tournament changes until
//! [`Game::finish`], so an abandoned game leaves the tournament as it was.

use game_core::{Ending, FaultCounts, Reply};

use crate::bank::bank;
use crate::dice::Dice;
use crate::log::GameLog;
use crate::player::Seat;
use crate::rabble;
use crate::resolve::{resolve, Stake};
use crate::stats::{reorder, Stats};
use crate::tournament::Tournament;
use crate::wire::{read_action, read_bet, Action, Args, Round};

/// A decision the runner must obtain from a bot.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Index of the bot in the tournament's bot list.
    pub bot: usize,
    pub round: Round,
    /// The 31 arguments; [`Args::to_argv`] gives the argv entries.
    pub args: Args,
}

impl Request {
    /// The argv entries to append to the bot's command.
    pub fn argv(&self) -> Vec<String> {
        self.args.to_argv()
    }
}

/// Why [`Game::answer`] refused a reply; the game did not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerError {
    /// No decision was pending.
    NotWaiting,
    /// The reply was `Ending::Cancelled`: the run is stopping, so the game
    /// must be abandoned (dropped) and replayed on resume, not scored.
    Cancelled,
}

impl std::fmt::Display for AnswerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnswerError::NotWaiting => f.write_str("no bot decision is pending"),
            AnswerError::Cancelled => f.write_str("the decision was cancelled; abandon the game"),
        }
    }
}

impl std::error::Error for AnswerError {}

/// [`Game::finish`] was called while a decision was still pending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unfinished;

impl std::fmt::Display for Unfinished {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the game still waits for a bot decision")
    }
}

impl std::error::Error for Unfinished {}

/// What one bot did and got in a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotResult {
    /// The clamped round-1 bet.
    pub bet: i64,
    /// Its round-2 action, if it was a heister.
    pub action: Option<Action>,
    /// What the log shows it deciding, if it was a heister.
    pub shown: Option<String>,
    /// `Some(succeeded)` if it stayed in the heist.
    pub success: Option<bool>,
    /// W after step D, as the log's "may gain" shows it (0 unless it succeeded).
    pub winnings: i64,
    /// Credits after the game.
    pub credits: i64,
    /// Faults of this game's calls.
    pub faults: FaultCounts,
}

/// Everything a finished game produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameReport {
    pub game: u32,
    /// N: bots plus this game's rabble.
    pub players: usize,
    /// Heisters of round 1, rabble included (including later back-outs).
    pub heisters: usize,
    /// Credits bet in round 1, rabble included.
    pub invested: i128,
    /// The bank b of the game.
    pub bank: usize,
    /// The rabble pool indexes that played.
    pub rabble: Vec<usize>,
    /// By bot index.
    pub bots: Vec<BotResult>,
    /// Bot indexes by credits after the game, highest first.
    pub leaderboard: Vec<usize>,
    pub log: GameLog,
}

impl GameReport {
    /// The game's log block (§7), given the tournament's bot names.
    pub fn log_block(&self, names: &[String]) -> String {
        self.log.block(names)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Round 1, at this position of the round-1 order.
    Stakes(usize),
    /// Round 2, at this position of the round-2 order.
    Decisions(usize),
    /// Both rounds done; ready to resolve.
    Ready,
}

/// Per-bot notes kept during the rounds.
#[derive(Debug, Clone, Default)]
struct Notes {
    faults: FaultCounts,
    shown: Option<String>,
}

/// One game in progress. Created by [`Tournament::start_game`].
pub struct Game<'t, D: Dice> {
    tournament: &'t mut Tournament,
    dice: D,
    number: u32,
    stats: Stats,
    rabble_in_game: Vec<usize>,
    /// Participants in round-1 order.
    stakes: Vec<Stake>,
    /// Credits of each participant at the start of the game.
    credits: Vec<i64>,
    phase: Phase,
    moved: usize,
    heisters: usize,
    invested: i128,
    /// bank(heisters, invested) of the running totals, kept for the rabble.
    running_bank: usize,
    bank: usize,
    /// Positions (in round-1 order) of the heisters, in round-2 order.
    order: Vec<usize>,
    asked: usize,
    confirmed: usize,
    backed_out: usize,
    pending: Option<Request>,
    notes: Vec<Notes>,
    round2_log: Vec<usize>,
}

impl<'t, D: Dice> Game<'t, D> {
    pub(crate) fn new(tournament: &'t mut Tournament, mut dice: D) -> Self {
        let number = tournament.next_game();
        let credits: Vec<i64> = tournament.players().iter().map(|p| p.credits).collect();
        let stats = Stats::of(&credits, tournament.leaderboard());

        let bots = credits.len();
        let pool = tournament.rabble().len();
        let seats = checked_seating(dice.seating(bots, pool), bots, pool);
        let mut rabble_in_game: Vec<usize> = Vec::with_capacity(seats.len().saturating_sub(bots));
        rabble_in_game.extend(seats.iter().filter_map(|&s| match s {
            Seat::Rabble(r) => Some(r),
            Seat::Bot(_) => None,
        }));

        let stakes: Vec<Stake> = seats
            .iter()
            .map(|&seat| Stake {
                seat,
                bet: 0,
                action: Action::GoAlong,
            })
            .collect();
        let start_credits = seats.iter().map(|&s| tournament.credits_of(s)).collect();
        let mut game = Game {
            tournament,
            dice,
            number,
            stats,
            rabble_in_game,
            stakes,
            credits: start_credits,
            phase: Phase::Stakes(0),
            moved: 0,
            heisters: 0,
            invested: 0,
            running_bank: 0,
            bank: 0,
            order: Vec::new(),
            asked: 0,
            confirmed: 0,
            backed_out: 0,
            pending: None,
            notes: vec![Notes::default(); bots],
            round2_log: Vec::new(),
        };
        game.advance();
        game
    }

    /// The game number (from 0).
    pub fn number(&self) -> u32 {
        self.number
    }

    /// N: players in this game, rabble included.
    pub fn players(&self) -> usize {
        self.stakes.len()
    }

    /// The decision the game waits for, or `None` when it is ready to finish.
    pub fn request(&self) -> Option<&Request> {
        self.pending.as_ref()
    }

    /// Feeds back what the pending bot call produced, and plays on until the
    /// next bot decision (or the end of round 2).
    pub fn answer(&mut self, reply: &Reply) -> Result<(), AnswerError> {
        let Some(request) = self.pending.take() else {
            return Err(AnswerError::NotWaiting);
        };
        if reply.ending == Ending::Cancelled {
            self.pending = Some(request);
            return Err(AnswerError::Cancelled);
        }
        let bot = request.bot;
        match self.phase {
            Phase::Stakes(at) => {
                let reading = read_bet(reply, self.credits[at]);
                if let Some(fault) = reading.fault {
                    self.notes[bot].faults.add(fault);
                }
                self.record_bet(at, reading.bet);
                self.phase = Phase::Stakes(at + 1);
            }
            Phase::Decisions(k) => {
                let reading = read_action(reply);
                if let Some(fault) = reading.fault {
                    self.notes[bot].faults.add(fault);
                }
                self.notes[bot].shown = Some(reading.shown);
                self.round2_log.push(bot);
                self.record_action(self.order[k], reading.action);
                self.phase = Phase::Decisions(k + 1);
            }
            Phase::Ready => return Err(AnswerError::NotWaiting),
        }
        self.advance();
        Ok(())
    }

    /// Resolves the game, updates the tournament and reports the result.
    pub fn finish(self) -> Result<GameReport, Unfinished> {
        if self.phase != Phase::Ready || self.pending.is_some() {
            return Err(Unfinished);
        }
        let Game {
            tournament,
            mut dice,
            number,
            rabble_in_game,
            stakes,
            credits: start_credits,
            heisters,
            invested,
            bank,
            notes,
            round2_log,
            ..
        } = self;

        // The commit point: from here the game cannot fail, so the bots'
        // states are settled in place.
        let mut credits_now = start_credits;
        let outcomes = resolve(
            &stakes,
            &mut credits_now,
            tournament.players_mut(),
            bank,
            &mut dice,
        );
        for (stake, &credits) in stakes.iter().zip(&credits_now) {
            match stake.seat {
                Seat::Bot(b) => {
                    if let Some(player) = tournament.player_mut(b) {
                        player.credits = credits;
                    }
                }
                Seat::Rabble(r) => tournament.set_rabble_credits(r, credits),
            }
        }
        let previous = tournament.leaderboard().to_vec();
        let credits: Vec<i64> = tournament.players().iter().map(|p| p.credits).collect();
        let leaderboard = reorder(&previous, &credits);
        tournament.finish_game(leaderboard.clone());

        let mut bots: Vec<BotResult> = notes
            .into_iter()
            .zip(&credits)
            .map(|(note, &credits)| BotResult {
                bet: 0,
                action: None,
                shown: note.shown,
                success: None,
                winnings: 0,
                credits,
                faults: note.faults,
            })
            .collect();
        let bot_count = bots.len();
        let mut log = GameLog {
            game: number,
            players: stakes.len(),
            round1: Vec::with_capacity(bot_count),
            round2: Vec::new(),
            results: Vec::with_capacity(bot_count),
            standings: Vec::new(),
        };
        for (stake, outcome) in stakes.iter().zip(&outcomes) {
            let Seat::Bot(b) = stake.seat else { continue };
            let result = &mut bots[b];
            result.bet = stake.bet;
            if stake.bet > 0 {
                result.action = Some(stake.action);
            }
            result.success = outcome.success;
            if outcome.success == Some(true) {
                result.winnings = outcome.winnings;
            }
            log.round1.push((b, stake.bet));
            if let Some(success) = outcome.success {
                log.results.push((b, success.then_some(result.winnings)));
            }
        }
        log.round2 = round2_log
            .iter()
            .map(|&b| (b, bots[b].shown.clone().unwrap_or_default()))
            .collect();
        log.standings = leaderboard.iter().map(|&b| (b, credits[b])).collect();

        Ok(GameReport {
            game: number,
            players: stakes.len(),
            heisters,
            invested,
            bank,
            rabble: rabble_in_game,
            bots,
            leaderboard,
            log,
        })
    }

    /// Plays rabble until a bot must decide or both rounds are over.
    fn advance(&mut self) {
        loop {
            match self.phase {
                Phase::Stakes(at) if at < self.stakes.len() => {
                    let seat = self.stakes[at].seat;
                    match seat {
                        Seat::Bot(bot) => {
                            self.pending = Some(self.build_request(bot, Round::Stakes, at));
                            return;
                        }
                        Seat::Rabble(_) => {
                            let draw = self.dice.rabble_bet(seat);
                            let bet = rabble::bet(draw, self.running_bank, self.credits[at]);
                            self.record_bet(at, bet);
                            self.phase = Phase::Stakes(at + 1);
                        }
                    }
                }
                Phase::Stakes(_) => self.begin_decisions(),
                Phase::Decisions(k) if k < self.order.len() => {
                    let at = self.order[k];
                    let seat = self.stakes[at].seat;
                    match seat {
                        Seat::Bot(bot) => {
                            self.pending = Some(self.build_request(bot, Round::Decisions, at));
                            return;
                        }
                        Seat::Rabble(_) => {
                            let draw = self.dice.rabble_back_out(seat);
                            let action = if rabble::backs_out(draw, self.asked, self.backed_out) {
                                Action::BackOut
                            } else {
                                Action::GoAlong
                            };
                            self.record_action(at, action);
                            self.phase = Phase::Decisions(k + 1);
                        }
                    }
                }
                Phase::Decisions(_) => self.phase = Phase::Ready,
                Phase::Ready => return,
            }
        }
    }

    /// Round 1 is over: fix the bank and order the heisters for round 2.
    fn begin_decisions(&mut self) {
        self.bank = self.running_bank;
        let mut positions: Vec<usize> = Vec::with_capacity(self.heisters);
        positions.extend((0..self.stakes.len()).filter(|&at| self.stakes[at].bet > 0));
        let seats: Vec<Seat> = positions.iter().map(|&at| self.stakes[at].seat).collect();
        let order = checked_permutation(self.dice.decision_order(&seats), seats.len());
        self.order = order.into_iter().map(|i| positions[i]).collect();
        self.phase = Phase::Decisions(0);
    }

    fn record_bet(&mut self, at: usize, bet: i64) {
        self.stakes[at].bet = bet;
        self.moved += 1;
        if bet > 0 {
            self.heisters += 1;
            self.invested += i128::from(bet);
            self.running_bank = bank(self.heisters, self.invested);
        }
    }

    fn record_action(&mut self, at: usize, action: Action) {
        self.stakes[at].action = action;
        self.asked += 1;
        if action == Action::BackOut {
            self.backed_out += 1;
        } else {
            self.confirmed += 1;
        }
    }

    fn build_request(&self, bot: usize, round: Round, at: usize) -> Request {
        let player = &self.tournament.players()[bot];
        let (moved, confirmed, bank, bet) = match round {
            Round::Stakes => (self.moved, 0, self.running_bank, 0),
            Round::Decisions => (self.asked, self.confirmed, self.bank, self.stakes[at].bet),
        };
        Request {
            bot,
            round,
            args: Args {
                game: self.number,
                round,
                players: self.stakes.len(),
                moved,
                heisters: self.heisters,
                invested: self.invested,
                confirmed,
                bank,
                credits: player.credits,
                bet,
                paycheck: player.paycheck,
                employed: player.employed,
                rank: self.stats.rank[bot],
                mean: self.stats.mean,
                mad: self.stats.mad,
                max: self.stats.max,
                accounts: player.accounts,
                prob: player.prob,
                odds: player.odds,
            },
        }
    }
}

/// The round-1 order a randomness source gave, if it seats every bot once
/// and distinct rabble of the pool. Otherwise the valid part is kept and any
/// missing bot appended, so a faulty source cannot skip or double a player.
fn checked_seating(seats: Vec<Seat>, bots: usize, pool: usize) -> Vec<Seat> {
    let mut bot_seen = vec![false; bots];
    let mut rabble_seen = vec![false; pool];
    let mut valid = true;
    for &seat in &seats {
        let slot = match seat {
            Seat::Bot(b) => bot_seen.get_mut(b),
            Seat::Rabble(r) => rabble_seen.get_mut(r),
        };
        match slot {
            Some(seen) if !*seen => *seen = true,
            _ => valid = false,
        }
    }
    if valid && bot_seen.iter().all(|&seen| seen) {
        return seats;
    }
    bot_seen.fill(false);
    rabble_seen.fill(false);
    let mut repaired: Vec<Seat> = seats
        .into_iter()
        .filter(|&seat| {
            let slot = match seat {
                Seat::Bot(b) => bot_seen.get_mut(b),
                Seat::Rabble(r) => rabble_seen.get_mut(r),
            };
            match slot {
                Some(seen) if !*seen => {
                    *seen = true;
                    true
                }
                _ => false,
            }
        })
        .collect();
    repaired.extend((0..bots).filter(|&b| !bot_seen[b]).map(Seat::Bot));
    repaired
}

/// `order` if it is a permutation of `0..len`, else the identity.
fn checked_permutation(order: Vec<usize>, len: usize) -> Vec<usize> {
    let mut seen = vec![false; len];
    let valid = order.len() == len
        && order.iter().all(|&i| match seen.get_mut(i) {
            Some(s) if !*s => {
                *s = true;
                true
            }
            _ => false,
        });
    if valid {
        order
    } else {
        (0..len).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faulty_seating_is_repaired() {
        let seats = vec![
            Seat::Rabble(3),
            Seat::Bot(1),
            Seat::Rabble(3),
            Seat::Rabble(9),
        ];
        assert_eq!(
            checked_seating(seats, 2, 5),
            vec![Seat::Rabble(3), Seat::Bot(1), Seat::Bot(0)]
        );
        let good = vec![Seat::Bot(1), Seat::Rabble(0), Seat::Bot(0)];
        assert_eq!(checked_seating(good.clone(), 2, 1), good);
    }

    #[test]
    fn faulty_permutation_is_replaced() {
        assert_eq!(checked_permutation(vec![2, 0, 1], 3), vec![2, 0, 1]);
        assert_eq!(checked_permutation(vec![0, 0, 1], 3), vec![0, 1, 2]);
        assert_eq!(checked_permutation(vec![0, 1], 3), vec![0, 1, 2]);
        assert_eq!(checked_permutation(vec![0, 1, 7], 3), vec![0, 1, 2]);
    }
}
