//! Seeded tournament ids, the seeded order of each pass, and the dispatch
//! rule that lets disjoint duels run at once (sections 5.1 and 5.2).

use std::collections::BTreeSet;

use game_core::{game_seed, rng};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

/// The identity of a duel: `(round, pass, A, B)`, both counted from 1, with
/// A and B the bots' 0-based positions in instructions order (A listed first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DuelId {
    pub round: u32,
    pub pass: u32,
    pub a: usize,
    pub b: usize,
}

/// The tournament ids: entry `i` is the id of the `i`-th bot in
/// instructions order, a permutation of `0..bots` drawn from the seed alone,
/// so a resume sees the same ids.
pub fn assign_ids(bots: usize, tournament_seed: u64) -> Vec<u32> {
    // More than u32::MAX bots cannot be listed in practice; saturate anyway.
    let mut ids: Vec<u32> = (0..bots)
        .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
        .collect();
    ids.shuffle(&mut rng(game_seed(tournament_seed, "gun-duel/ids")));
    ids
}

/// Every pair `(i, j)`, `i < j`, of live bots, sorted by `i` then `j`.
pub fn pairs(live: &[usize]) -> Vec<(usize, usize)> {
    let mut sorted = live.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut list = Vec::new();
    for (k, &i) in sorted.iter().enumerate() {
        for &j in &sorted[k + 1..] {
            list.push((i, j));
        }
    }
    list
}

/// The order of one pass: the sorted pair list shuffled by a generator
/// seeded from (tournament seed, round, pass).
pub fn pass_order(
    tournament_seed: u64,
    round: u32,
    pass: u32,
    live: &[usize],
) -> Vec<(usize, usize)> {
    let mut list = pairs(live);
    let identity = format!("gun-duel/round/{round}/pass/{pass}");
    list.shuffle(&mut rng(game_seed(tournament_seed, &identity)));
    list
}

/// All duels of a round in schedule order: pass 1's shuffle, then pass 2's...
pub fn round_schedule(
    tournament_seed: u64,
    round: u32,
    duels_per_pair: u32,
    live: &[usize],
) -> Vec<DuelId> {
    (1..=duels_per_pair)
        .flat_map(|pass| {
            pass_order(tournament_seed, round, pass, live)
                .into_iter()
                .map(move |(a, b)| DuelId { round, pass, a, b })
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlotState {
    Waiting,
    Running,
    Done,
}

/// Hands out duels so that each bot plays its duels in schedule order: a
/// duel becomes ready only when every earlier duel involving either of its
/// bots has finished. Duels with disjoint bots may then run at once, and no
/// bot's sequence of duels depends on how many run in parallel.
#[derive(Debug, Clone)]
pub struct Dispatcher {
    bots_of: Vec<(usize, usize)>,
    state: Vec<SlotState>,
    /// For each bot, its duels in schedule order and the first not done.
    queues: Vec<Vec<usize>>,
    heads: Vec<usize>,
    ready: BTreeSet<usize>,
    running: usize,
    done: usize,
}

impl Dispatcher {
    /// `duels[k]` holds the two bots of the `k`-th duel in schedule order.
    pub fn new(duels: &[(usize, usize)]) -> Dispatcher {
        let bots = duels.iter().map(|&(a, b)| a.max(b) + 1).max().unwrap_or(0);
        let mut queues = vec![Vec::new(); bots];
        for (k, &(a, b)) in duels.iter().enumerate() {
            queues[a].push(k);
            queues[b].push(k);
        }
        let mut dispatcher = Dispatcher {
            bots_of: duels.to_vec(),
            state: vec![SlotState::Waiting; duels.len()],
            heads: vec![0; bots],
            queues,
            ready: BTreeSet::new(),
            running: 0,
            done: 0,
        };
        for bot in 0..bots {
            dispatcher.refresh(bot);
        }
        dispatcher
    }

    /// The earliest ready duel, now marked running; `None` when every duel
    /// still to play waits for a running one (or all are done).
    pub fn next_ready(&mut self) -> Option<usize> {
        let k = self.ready.pop_first()?;
        self.state[k] = SlotState::Running;
        self.running += 1;
        Some(k)
    }

    /// Marks duel `k` finished (running, or recorded by an earlier run when
    /// resuming). Returns false if `k` is unknown or already finished.
    pub fn finish(&mut self, k: usize) -> bool {
        match self.state.get(k) {
            Some(SlotState::Running) => self.running -= 1,
            Some(SlotState::Waiting) => {
                self.ready.remove(&k);
            }
            Some(SlotState::Done) | None => return false,
        }
        self.state[k] = SlotState::Done;
        self.done += 1;
        let (a, b) = self.bots_of[k];
        self.refresh(a);
        self.refresh(b);
        true
    }

    pub fn running(&self) -> usize {
        self.running
    }

    pub fn is_complete(&self) -> bool {
        self.done == self.state.len()
    }

    fn head(&self, bot: usize) -> Option<usize> {
        self.queues[bot].get(self.heads[bot]).copied()
    }

    /// Moves `bot`'s head past finished duels and readies the new head if it
    /// also heads its other bot's queue.
    fn refresh(&mut self, bot: usize) {
        while let Some(k) = self.head(bot) {
            if self.state[k] != SlotState::Done {
                break;
            }
            self.heads[bot] += 1;
        }
        if let Some(k) = self.head(bot) {
            let (a, b) = self.bots_of[k];
            if self.state[k] == SlotState::Waiting
                && self.head(a) == Some(k)
                && self.head(b) == Some(k)
            {
                self.ready.insert(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_a_seeded_permutation() {
        let ids = assign_ids(17, 42);
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..17).collect::<Vec<u32>>());
        assert_eq!(ids, assign_ids(17, 42));
        assert_ne!(ids, assign_ids(17, 43));
        assert!(assign_ids(0, 1).is_empty());
    }

    #[test]
    fn pairs_are_sorted_with_the_earlier_bot_as_a() {
        assert_eq!(pairs(&[4, 0, 2]), vec![(0, 2), (0, 4), (2, 4)]);
        assert!(pairs(&[3]).is_empty());
    }

    #[test]
    fn each_pass_plays_every_pair_once_in_a_seeded_order() {
        let live = [0, 1, 2, 3, 4, 5, 6, 7];
        let schedule = round_schedule(9, 1, 3, &live);
        assert_eq!(schedule.len(), 3 * 28);
        for pass in 1..=3 {
            let mut played: Vec<(usize, usize)> = schedule
                .iter()
                .filter(|d| d.pass == pass)
                .map(|d| (d.a, d.b))
                .collect();
            played.sort_unstable();
            assert_eq!(played, pairs(&live));
        }
        assert_eq!(schedule, round_schedule(9, 1, 3, &live));
        assert_ne!(pass_order(9, 1, 1, &live), pass_order(9, 1, 2, &live));
        assert_ne!(pass_order(9, 1, 1, &live), pass_order(9, 2, 1, &live));
        assert_ne!(pass_order(9, 1, 1, &live), pass_order(10, 1, 1, &live));
    }

    #[test]
    fn a_duel_waits_for_earlier_duels_of_either_bot() {
        // 0:(0,1) 1:(2,3) 2:(1,2) 3:(0,3)
        let mut d = Dispatcher::new(&[(0, 1), (2, 3), (1, 2), (0, 3)]);
        assert_eq!(d.next_ready(), Some(0));
        assert_eq!(d.next_ready(), Some(1));
        assert_eq!(d.next_ready(), None);
        assert!(d.finish(1));
        // (1,2) still waits for duel 0 (bot 1); (0,3) for duel 0 (bot 0).
        assert_eq!(d.next_ready(), None);
        assert!(d.finish(0));
        assert_eq!(d.next_ready(), Some(2));
        assert_eq!(d.next_ready(), Some(3));
        assert!(!d.finish(0));
        assert!(d.finish(2) && d.finish(3));
        assert!(d.is_complete());
        assert_eq!(d.running(), 0);
    }

    #[test]
    fn duels_recorded_before_a_resume_are_skipped() {
        let mut d = Dispatcher::new(&[(0, 1), (0, 1), (1, 2)]);
        assert!(d.finish(0));
        assert_eq!(d.next_ready(), Some(1));
        assert_eq!(d.next_ready(), None);
        assert!(d.finish(1));
        assert_eq!(d.next_ready(), Some(2));
    }
}
