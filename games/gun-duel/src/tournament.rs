//! The "last player standing" tournament: rounds, points and elimination
//! (sections 5.2 to 5.4). Bots are their 0-based positions in instructions
//! order (listed bots, then drop-ins, minus failed builds).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::duel::Outcome;
use crate::elimination::eliminate;
use crate::schedule::{assign_ids, round_schedule, Dispatcher, DuelId};

/// One bot's standing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub alive: bool,
    /// Points of the current (or last finished) round; 0 for bots that left
    /// in an earlier round.
    pub round_points: u64,
    pub total: u64,
    /// Round points of every round the bot played, leaving round included.
    pub history: Vec<u64>,
    pub rounds_survived: u32,
}

/// What the end of a round decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elimination {
    pub round: u32,
    /// Bots that left this round (several when they tie on both numbers).
    pub leavers: Vec<usize>,
    /// Every live bot would have left: nobody did, and they all win.
    pub joint_winners: bool,
    /// The tournament ended with this round.
    pub over: bool,
}

#[derive(Debug, Clone)]
pub struct Tournament {
    seed: u64,
    duels_per_pair: u32,
    ids: Vec<u32>,
    bots: Vec<Standing>,
    rounds_played: u32,
    round_open: bool,
    winners: Option<Vec<usize>>,
}

impl Tournament {
    /// A tournament of `bots` bots. With one bot it is over at once and that
    /// bot wins with no round played; with none, nobody wins.
    pub fn new(bots: usize, duels_per_pair: u32, seed: u64) -> Tournament {
        let standings = vec![
            Standing {
                alive: true,
                ..Standing::default()
            };
            bots
        ];
        Tournament {
            seed,
            duels_per_pair,
            ids: assign_ids(bots, seed),
            bots: standings,
            rounds_played: 0,
            round_open: false,
            winners: (bots <= 1).then(|| (0..bots).collect()),
        }
    }

    /// Entry `i` is the tournament id of bot `i`.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    pub fn standings(&self) -> &[Standing] {
        &self.bots
    }

    pub fn live(&self) -> Vec<usize> {
        (0..self.bots.len())
            .filter(|&i| self.bots[i].alive)
            .collect()
    }

    pub fn rounds_played(&self) -> u32 {
        self.rounds_played
    }

    pub fn is_over(&self) -> bool {
        self.winners.is_some()
    }

    /// The winner, or the joint winners; empty while the tournament runs.
    pub fn winners(&self) -> &[usize] {
        self.winners.as_deref().unwrap_or(&[])
    }

    /// Starts the next round: every bot's round points go back to 0 and the
    /// round's schedule is drawn for the live bots. `None` once the
    /// tournament is over or while a round is open.
    pub fn start_round(&mut self) -> Option<Round> {
        if self.is_over() || self.round_open {
            return None;
        }
        self.round_open = true;
        for bot in &mut self.bots {
            bot.round_points = 0;
        }
        let number = self.rounds_played + 1;
        Some(Round::new(
            round_schedule(self.seed, number, self.duels_per_pair, &self.live()),
            number,
        ))
    }

    /// Scores a complete round and eliminates (section 5.4).
    pub fn finish_round(&mut self, round: Round) -> Result<Elimination, String> {
        if !self.round_open || round.number != self.rounds_played + 1 {
            return Err(format!("round {} is not the open round", round.number));
        }
        if !round.is_complete() {
            return Err(format!("round {} has duels still to play", round.number));
        }
        for (id, outcome) in round.duels.iter().zip(&round.outcomes) {
            let winner = match outcome.and_then(Outcome::winner) {
                Some(crate::Side::A) => id.a,
                Some(crate::Side::B) => id.b,
                None => continue,
            };
            self.bots[winner].round_points += 1;
            self.bots[winner].total += 1;
        }
        self.round_open = false;
        self.rounds_played = round.number;
        Ok(self.eliminate(round.number))
    }

    fn eliminate(&mut self, round: u32) -> Elimination {
        let (leavers, joint_winners) = eliminate(&mut self.bots);
        let survivors = self.live();
        let over = joint_winners || survivors.len() <= 1;
        if over {
            self.winners = Some(survivors);
        }
        Elimination {
            round,
            leavers,
            joint_winners,
            over,
        }
    }
}

/// The duels of one round and their results so far.
#[derive(Debug, Clone)]
pub struct Round {
    number: u32,
    duels: Vec<DuelId>,
    positions: HashMap<DuelId, usize>,
    dispatcher: Dispatcher,
    outcomes: Vec<Option<Outcome>>,
}

impl Round {
    fn new(duels: Vec<DuelId>, number: u32) -> Round {
        let pairs: Vec<(usize, usize)> = duels.iter().map(|d| (d.a, d.b)).collect();
        Round {
            number,
            positions: duels.iter().enumerate().map(|(k, &d)| (d, k)).collect(),
            dispatcher: Dispatcher::new(&pairs),
            outcomes: vec![None; duels.len()],
            duels,
        }
    }

    /// 1-based.
    pub fn number(&self) -> u32 {
        self.number
    }

    /// Every duel of the round in schedule order.
    pub fn duels(&self) -> &[DuelId] {
        &self.duels
    }

    /// Where a duel is in the schedule (to replay recorded results).
    pub fn position(&self, id: &DuelId) -> Option<usize> {
        self.positions.get(id).copied()
    }

    /// The next duel to start, in schedule order among those whose bots have
    /// finished all their earlier duels. `None` when every remaining duel
    /// waits for a running one: record a result and ask again.
    pub fn next_ready(&mut self) -> Option<usize> {
        self.dispatcher.next_ready()
    }

    /// Records the outcome of the duel at `position`, either just played or
    /// read back from the results of an earlier run.
    pub fn record(&mut self, position: usize, outcome: Outcome) -> Result<(), String> {
        if !self.dispatcher.finish(position) {
            return Err(format!(
                "duel {position} of round {} is unknown or already recorded",
                self.number
            ));
        }
        self.outcomes[position] = Some(outcome);
        Ok(())
    }

    pub fn outcome(&self, position: usize) -> Option<Outcome> {
        self.outcomes.get(position).copied().flatten()
    }

    /// Duels handed out by [`Round::next_ready`] and not yet recorded.
    pub fn running(&self) -> usize {
        self.dispatcher.running()
    }

    pub fn is_complete(&self) -> bool {
        self.dispatcher.is_complete()
    }
}
