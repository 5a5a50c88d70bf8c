//! What the database keeps (section 3.3): per-bot counters, global totals and
//! the winning-score histogram. All are sums, so blocks aggregate
//! independently and merge in any order.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::decision::Failure;
use crate::game::{Game, Phase, SeatTally};

/// A bot's failures by kind: the columns of the failures table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureCounts {
    /// Asks that passed their deadline.
    pub timeouts: u64,
    /// `G e` replies.
    pub errors: u64,
    /// Replies with the right id and bad content.
    pub malformed: u64,
    /// Process crashes (exits, kills, missed handshakes): what
    /// `max-crashes` counts. Charged by the runner, once per process death.
    pub crashes: u64,
    /// Turns lost because the process was gone: those whose ask was
    /// outstanding when it died (transcript `crash`) and later ones in
    /// games it had joined or after its disqualification (transcript `lost`).
    pub lost: u64,
    /// Crashes the sandbox caused (a program the bot may not run, its
    /// folder over the policy's limits): counted in `crashes` too, since
    /// they end the process like any crash (records stored before this
    /// kind existed have none).
    #[serde(default)]
    pub sandbox: u64,
}

impl FailureCounts {
    /// Every failure once (`sandbox` is a part of `crashes`).
    pub fn total(&self) -> u64 {
        self.timeouts + self.errors + self.malformed + self.crashes + self.lost
    }

    pub fn merge(&mut self, other: &FailureCounts) {
        self.timeouts += other.timeouts;
        self.errors += other.errors;
        self.malformed += other.malformed;
        self.crashes += other.crashes;
        self.lost += other.lost;
        self.sandbox += other.sandbox;
    }

    /// `(name, count)` pairs for JSON and CSV, by the names of section 5,
    /// and `sandbox` (the README's fault kinds), a part of `crash`.
    pub fn named(&self) -> [(&'static str, u64); 6] {
        [
            ("timeout", self.timeouts),
            ("error", self.errors),
            ("malformed", self.malformed),
            ("crash", self.crashes),
            ("lost", self.lost),
            ("sandbox", self.sandbox),
        ]
    }
}

/// One bot's counters over any number of games.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotRecord {
    pub played: u64,
    pub wins: u64,
    /// Sum of final scores.
    pub score_sum: u64,
    /// Sum of final scores of the games it won.
    pub win_score_sum: u64,
    pub max_score: u32,
    pub turns: u64,
    pub throws: u64,
    pub successes: u64,
    pub failures: FailureCounts,
    /// Decision time charged to the bot (section 5), in nanoseconds: what
    /// the time limits count.
    pub charged_ns: u64,
    /// The decision times the bot reported (`G D MICROS`), in nanoseconds.
    #[serde(default)]
    pub reported_ns: u64,
    /// What was charged for the replies that reported a time (so that
    /// [`BotRecord::own_ns`] can put the reports in its place). Records
    /// stored before replies carried times have neither field.
    #[serde(default)]
    pub reported_charged_ns: u64,
    /// CPU time of its processes, in nanoseconds.
    pub cpu_ns: u64,
    pub disqualified: bool,
}

/// `d` in nanoseconds, saturating (a u64 holds 584 years).
pub fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Decision time of one bot in one seat (or anywhere): charged, and what it
/// reported where it did, in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeTally {
    pub charged_ns: u64,
    pub reported_ns: u64,
    pub reported_charged_ns: u64,
}

impl TimeTally {
    /// One decision charged `charged`, with the time the bot reported for
    /// it, if any.
    pub fn add(&mut self, charged: Duration, reported: Option<Duration>) {
        self.charged_ns = self.charged_ns.saturating_add(nanos(charged));
        if let Some(reported) = reported {
            self.reported_ns = self.reported_ns.saturating_add(nanos(reported));
            self.reported_charged_ns = self.reported_charged_ns.saturating_add(nanos(charged));
        }
    }
}

impl BotRecord {
    /// Adds one seat of one finished game.
    pub fn add_seat(&mut self, final_score: u32, won: bool, tally: &SeatTally) {
        self.played += 1;
        self.score_sum += u64::from(final_score);
        self.max_score = self.max_score.max(final_score);
        if won {
            self.wins += 1;
            self.win_score_sum += u64::from(final_score);
        }
        self.turns += tally.turns;
        self.throws += tally.throws;
        self.successes += tally.successes;
        self.failures.timeouts += tally.timeouts;
        self.failures.errors += tally.errors;
        self.failures.malformed += tally.malformed;
        self.failures.lost += tally.crash_turns + tally.lost_turns;
    }

    /// Counts one failure that is not tied to a finished game's turn: a
    /// process crash ([`Failure::Crash`]), or anything the runner tallies
    /// itself.
    pub fn add_failure(&mut self, failure: Failure) {
        match failure {
            Failure::Timeout => self.failures.timeouts += 1,
            Failure::Error => self.failures.errors += 1,
            Failure::Malformed => self.failures.malformed += 1,
            Failure::Crash => self.failures.crashes += 1,
            Failure::Lost => self.failures.lost += 1,
        }
    }

    /// Adds decision time.
    pub fn add_time(&mut self, time: &TimeTally) {
        self.charged_ns = self.charged_ns.saturating_add(time.charged_ns);
        self.reported_ns = self.reported_ns.saturating_add(time.reported_ns);
        self.reported_charged_ns = self
            .reported_charged_ns
            .saturating_add(time.reported_charged_ns);
    }

    /// The bot's own decision time (the Time column): what it reported
    /// where its replies carried a time, what it was charged elsewhere.
    /// Meaningful on a whole tournament's record (a late reply's report may
    /// land in another block than the timeout it settles).
    pub fn own_ns(&self) -> u64 {
        self.charged_ns
            .saturating_sub(self.reported_charged_ns)
            .saturating_add(self.reported_ns)
    }

    pub fn merge(&mut self, other: &BotRecord) {
        self.played += other.played;
        self.wins += other.wins;
        self.score_sum += other.score_sum;
        self.win_score_sum += other.win_score_sum;
        self.max_score = self.max_score.max(other.max_score);
        self.turns += other.turns;
        self.throws += other.throws;
        self.successes += other.successes;
        self.failures.merge(&other.failures);
        self.charged_ns += other.charged_ns;
        self.reported_ns += other.reported_ns;
        self.reported_charged_ns += other.reported_charged_ns;
        self.cpu_ns += other.cpu_ns;
        self.disqualified |= other.disqualified;
    }
}

/// Game-level totals over any number of games.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    pub games: u64,
    /// Sum of each game's rounds.
    pub rounds: u64,
    pub tied: u64,
    /// Games that ran until the round limit.
    pub round_limit: u64,
    pub highest_round: u32,
    /// `winning_scores[s]`: games whose highest final score was `s`.
    pub winning_scores: Vec<u64>,
}

impl Totals {
    pub fn add_game(&mut self, rounds: u32, tied: bool, round_limit: bool, best: u32) {
        self.games += 1;
        self.rounds += u64::from(rounds);
        self.tied += u64::from(tied);
        self.round_limit += u64::from(round_limit);
        self.highest_round = self.highest_round.max(rounds);
        let slot = best as usize;
        if self.winning_scores.len() <= slot {
            self.winning_scores.resize(slot + 1, 0);
        }
        self.winning_scores[slot] += 1;
    }

    pub fn merge(&mut self, other: &Totals) {
        self.games += other.games;
        self.rounds += other.rounds;
        self.tied += other.tied;
        self.round_limit += other.round_limit;
        self.highest_round = self.highest_round.max(other.highest_round);
        if self.winning_scores.len() < other.winning_scores.len() {
            self.winning_scores.resize(other.winning_scores.len(), 0);
        }
        for (mine, theirs) in self.winning_scores.iter_mut().zip(&other.winning_scores) {
            *mine += theirs;
        }
    }
}

/// The game is not over yet, so it has nothing to record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameNotOver;

impl std::fmt::Display for GameNotOver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the game is not over")
    }
}

impl std::error::Error for GameNotOver {}

/// Per-bot records (indexed like the tournament's bot list) and totals: a
/// block's aggregate, or a whole tournament's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Aggregate {
    pub bots: Vec<BotRecord>,
    pub totals: Totals,
}

impl Aggregate {
    pub fn new(bot_count: usize) -> Self {
        Aggregate {
            bots: vec![BotRecord::default(); bot_count],
            totals: Totals::default(),
        }
    }

    /// The record of bot `bot`, grown into existence if needed.
    pub fn bot_mut(&mut self, bot: usize) -> &mut BotRecord {
        if self.bots.len() <= bot {
            self.bots.resize(bot + 1, BotRecord::default());
        }
        &mut self.bots[bot]
    }

    /// Adds a finished game whose seat `i` was bot `seating[i]`.
    pub fn record_game(&mut self, seating: &[usize], game: &Game) -> Result<(), GameNotOver> {
        let result = game.result().ok_or(GameNotOver)?;
        for (seat, (&bot, tally)) in seating.iter().zip(game.tallies()).enumerate() {
            let score = result.scores[seat];
            self.bot_mut(bot)
                .add_seat(score, score == result.best, tally);
        }
        self.totals
            .add_game(result.rounds, result.tied, result.round_limit, result.best);
        Ok(())
    }

    pub fn merge(&mut self, other: &Aggregate) {
        for (bot, record) in other.bots.iter().enumerate() {
            self.bot_mut(bot).merge(record);
        }
        self.totals.merge(&other.totals);
    }
}

/// One of the first failure events kept per bot (section 3.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureEvent {
    pub game: u64,
    /// The pass number; for a final turn, the number of the last pass.
    pub round: u32,
    /// The turn was one of the final turns after the last pass.
    pub final_turn: bool,
    pub seat: usize,
    pub kind: Failure,
    pub detail: String,
}

impl FailureEvent {
    /// An event for the current turn of `game` (game index `index`).
    pub fn at(
        index: u64,
        game: &Game,
        seat: usize,
        kind: Failure,
        detail: impl Into<String>,
    ) -> Self {
        let (round, final_turn) = match game.phase() {
            Phase::Pass(n) => (n, false),
            Phase::Final => (game.rounds(), true),
        };
        FailureEvent {
            game: index,
            round,
            final_turn,
            seat,
            kind,
            detail: detail.into(),
        }
    }
}

/// Failure events kept per bot in the database.
pub const FAILURE_EVENTS_KEPT: usize = 100;

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn own_time_is_the_reports_where_there_are_some_and_charged_time_elsewhere() {
        let mut tally = TimeTally::default();
        tally.add(75 * MS, Some(2 * MS));
        tally.add(75 * MS, Some(3 * MS));
        tally.add(10 * MS, None);
        let mut record = BotRecord::default();
        record.add_time(&tally);
        assert_eq!(record.charged_ns, nanos(160 * MS));
        assert_eq!(record.own_ns(), nanos(15 * MS));
    }

    #[test]
    fn a_record_stored_before_replies_reported_times_shows_its_charged_time() {
        let mut record = BotRecord {
            charged_ns: 5,
            ..BotRecord::default()
        };
        let mut json = serde_json::to_value(&record).unwrap();
        let fields = json.as_object_mut().unwrap();
        fields.remove("reported_ns");
        fields.remove("reported_charged_ns");
        let old: BotRecord = serde_json::from_value(json).unwrap();
        assert_eq!(old, record);
        assert_eq!(old.own_ns(), 5);
        record.merge(&old);
        assert_eq!(record.own_ns(), 10);
    }
}
