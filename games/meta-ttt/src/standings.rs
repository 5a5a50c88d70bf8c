//! Tournament schedule and totals, from stored game records.

use crate::rules::{GameRecord, Mark};
use game_core::FaultCounts;

/// Every ordered pair plays once, in the post's order: for each pair i < j,
/// first (i as X, j as O), then (j as X, i as O). Returns (X, O) indices.
pub fn schedule(bots: usize) -> Vec<(usize, usize)> {
    let mut games = Vec::with_capacity(bots * bots.saturating_sub(1));
    for i in 0..bots {
        for j in i + 1..bots {
            games.push((i, j));
            games.push((j, i));
        }
    }
    games
}

/// One bot's totals over the tournament.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    pub illegal: u64,
    pub points: i64,
    pub games: u64,
    pub faults: FaultCounts,
}

/// Adds a finished game to the totals of its two bots (indices of X and O).
pub fn add_game(totals: &mut [Totals], x: usize, o: usize, record: &GameRecord) {
    for (mark, idx) in [(Mark::X, x), (Mark::O, o)] {
        let Some(t) = totals.get_mut(idx) else {
            continue;
        };
        let i = mark.index();
        t.games += 1;
        t.illegal += u64::from(record.illegal[i]);
        t.points += record.points[i];
        t.faults.merge(&record.faults[i]);
        match record.winner {
            Some(w) if w == mark => t.wins += 1,
            Some(_) => t.losses += 1,
            None => t.draws += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_is_every_ordered_pair_in_post_order() {
        assert_eq!(
            schedule(3),
            vec![(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)]
        );
        assert_eq!(schedule(4).len(), 12);
        assert!(schedule(1).is_empty());
    }
}
