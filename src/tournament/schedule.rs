//! Which pending game starts next. Pure: no clock, no tasks.
//!
//! A free slot takes the first pending game, in plan order, whose resources
//! (its bots) are all idle, so a bot is never in two games at once and the
//! number of games in flight never exceeds the limit.

use std::collections::HashSet;

#[derive(Debug)]
pub struct Scheduler {
    /// Plan indices not started yet, in plan order.
    pending: Vec<usize>,
    /// Resources each plan index holds while it runs.
    resources: Vec<Vec<usize>>,
    busy: HashSet<usize>,
    running: usize,
    limit: usize,
}

impl Scheduler {
    /// `resources[i]` lists what game `i` holds; `pending` is the order to try.
    pub fn new(resources: Vec<Vec<usize>>, pending: Vec<usize>, limit: usize) -> Scheduler {
        Scheduler {
            pending,
            resources,
            busy: HashSet::new(),
            running: 0,
            limit: limit.max(1),
        }
    }

    /// The next game to start now, if a slot is free and some pending game's
    /// resources are all idle. Marks it running.
    pub fn start_next(&mut self) -> Option<usize> {
        if self.running >= self.limit {
            return None;
        }
        let pos = self.pending.iter().position(|&g| {
            self.resources
                .get(g)
                .is_none_or(|r| r.iter().all(|x| !self.busy.contains(x)))
        })?;
        let g = self.pending.remove(pos);
        if let Some(r) = self.resources.get(g) {
            self.busy.extend(r.iter().copied());
        }
        self.running += 1;
        Some(g)
    }

    /// Game `g` finished (or was abandoned): frees its slot and resources.
    pub fn finish(&mut self, g: usize) {
        if let Some(r) = self.resources.get(g) {
            for x in r {
                self.busy.remove(x);
            }
        }
        self.running = self.running.saturating_sub(1);
    }

    pub fn running(&self) -> usize {
        self.running
    }

    pub fn is_done(&self) -> bool {
        self.pending.is_empty() && self.running == 0
    }

    /// Stops starting anything new.
    pub fn drop_pending(&mut self) {
        self.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_bot_is_never_in_two_games() {
        // Four bots, all ordered pairs, two slots.
        let games: Vec<(usize, usize)> = game_meta_ttt::standings::schedule(4);
        let resources: Vec<Vec<usize>> = games.iter().map(|&(a, b)| vec![a, b]).collect();
        let mut s = Scheduler::new(resources, (0..games.len()).collect(), 2);
        assert_eq!(s.start_next(), Some(0)); // 0 vs 1
                                             // The first pending game that involves neither 0 nor 1 is 2 vs 3.
        assert_eq!(s.start_next(), Some(10));
        assert_eq!(games[10], (2, 3));
        assert_eq!(s.start_next(), None, "two slots");
        s.finish(0);
        assert_eq!(s.start_next(), Some(1));
    }

    proptest! {
        #[test]
        fn never_over_the_limit_and_every_game_runs_once(
            n in 2usize..7, limit in 1usize..4, picks in prop::collection::vec(any::<usize>(), 0..200)
        ) {
            let games = game_meta_ttt::standings::schedule(n);
            let resources: Vec<Vec<usize>> = games.iter().map(|&(a, b)| vec![a, b]).collect();
            let mut s = Scheduler::new(resources.clone(), (0..games.len()).collect(), limit);
            let mut running: Vec<usize> = Vec::new();
            let mut started = Vec::new();
            let mut picks = picks.into_iter();
            while !s.is_done() {
                while let Some(g) = s.start_next() { running.push(g); started.push(g); }
                prop_assert!(running.len() <= limit);
                let mut held: Vec<usize> = running.iter().flat_map(|&g| resources[g].clone()).collect();
                let before = held.len();
                held.sort();
                held.dedup();
                prop_assert_eq!(before, held.len(), "a bot in two games");
                prop_assert!(!running.is_empty());
                let k = picks.next().unwrap_or(0) % running.len();
                s.finish(running.remove(k));
            }
            started.sort();
            prop_assert_eq!(started, (0..games.len()).collect::<Vec<_>>());
        }
    }
}
