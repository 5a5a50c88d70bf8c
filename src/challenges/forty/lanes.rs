//! Which bot process is written to next: the `--jobs` slots and the
//! streaks. Pure: no processes, no clock, no tasks; the engine says what
//! happened and asks what to do, all by process index.
//!
//! A slot is a [`CpuLanes`] lane, a CPU that the process holding it is
//! pinned to while it has asks outstanding, so at most `--jobs` processes
//! think at once. A free slot goes to the ready process whose oldest
//! pending ask is the oldest of all: asks are served about in the order
//! the games made them, and one waiting for a slot is passed over at most
//! once by each other process (plus that process's streaks). A process
//! whose replies leave it [`STREAK_MIN_ASKS`] new asks or more keeps its
//! slot and gets them at once, for at most [`STREAK_MAX_BATCHES`] batches
//! after the one that took the slot; then the slot goes to the oldest
//! pending ask again.
//!
//! The engine's loop, for process `bot`:
//! - an ask is queued for it: [`Lanes::asked`];
//! - while [`Lanes::free`], write the queue of [`Lanes::next`] (given which
//!   processes are ready and idle), then [`Lanes::sent`]: pin the process
//!   to the CPU ([`Lanes::cpu`]) of the lane it returns, before the write
//!   wakes it;
//! - a batch of replies leaves it idle: [`Lanes::keeps`] says whether it
//!   keeps its slot while its games are played on. If not,
//!   [`Lanes::release`] it and fill the slot before playing them (the bots
//!   are the slow side: a slot waiting for the referee is a core doing
//!   nothing);
//! - once they are played, if it kept its slot: [`Lanes::go_on`] with its
//!   new asks says whether to write them at once ([`Lanes::sent`]) or to
//!   [`Lanes::release`] the slot;
//! - its process is killed: [`Lanes::crashed`].
//!
//! Speed only: results never depend on the order in which asks are served.

use crate::bot::cpu_lanes::CpuLanes;

/// A process whose replies leave it at least this many new asks (turns
/// going on) gets them at once on the lane it holds...
pub const STREAK_MIN_ASKS: usize = 16;
/// ...for at most this many batches in a row; then the lane goes to the
/// oldest pending ask. Each ask after a turn's first touches a game the
/// process has just touched, so the follow-up batch finds its objects in
/// the CPU's caches: a Python host then spends about half as long per
/// decision as it does on games last seen a whole round of processes ago.
/// 30 000 games of 20 Python bots: CPU time -15 to -25 %, wall -15 %
/// (BENCHMARKS.md). Speed only: results never depend on the order.
pub const STREAK_MAX_BATCHES: u32 = 16;

/// Where one process stands with the slots.
#[derive(Debug, Clone, Copy, Default)]
struct Holder {
    /// Sequence number of its oldest ask not yet written.
    oldest: Option<u64>,
    /// The lane it holds while it has asks outstanding.
    lane: Option<usize>,
    /// Batches written in a row on its current lane after the first.
    streak: u32,
}

/// The slots and who holds them (see the module docs).
#[derive(Debug, Clone)]
pub struct Lanes {
    cpus: CpuLanes,
    procs: Vec<Holder>,
    /// Sequence number of the next ask, over all processes.
    seq: u64,
}

impl Lanes {
    /// `processes` processes sharing the lanes of `cpus`.
    pub fn new(cpus: CpuLanes, processes: usize) -> Lanes {
        Lanes {
            cpus,
            procs: vec![Holder::default(); processes],
            seq: 0,
        }
    }

    /// An ask was queued for `bot`.
    #[inline]
    pub fn asked(&mut self, bot: usize) {
        let h = &mut self.procs[bot];
        if h.oldest.is_none() {
            h.oldest = Some(self.seq);
        }
        self.seq += 1;
    }

    /// Whether a slot is free.
    #[inline]
    pub fn free(&self) -> bool {
        self.cpus.taken() < self.cpus.len()
    }

    /// The process a free slot goes to: of those holding none, with asks
    /// pending and `ready` (handshaken, nothing outstanding), the one with
    /// the oldest pending ask.
    #[inline]
    pub fn next(&self, ready: impl Fn(usize) -> bool) -> Option<usize> {
        self.procs
            .iter()
            .enumerate()
            .filter(|(_, h)| h.lane.is_none())
            .filter_map(|(bot, h)| h.oldest.map(|seq| (seq, bot)))
            .filter(|&(_, bot)| ready(bot))
            .min()
            .map(|(_, bot)| bot)
    }

    /// `bot`'s whole queue was written; `outstanding` if it now has asks
    /// outstanding. Returns the lane it has just taken (none when it
    /// already held one, or has no asks to serve): pin it there.
    #[inline]
    pub fn sent(&mut self, bot: usize, outstanding: bool) -> Option<usize> {
        let h = &mut self.procs[bot];
        h.oldest = None;
        if !outstanding || h.lane.is_some() {
            return None;
        }
        h.lane = self.cpus.acquire();
        h.streak = 0;
        h.lane
    }

    /// The CPU of `lane`, or None when lanes are not pinned.
    #[inline]
    pub fn cpu(&self, lane: usize) -> Option<usize> {
        self.cpus.cpu(lane)
    }

    /// Whether `bot` holds a lane.
    #[inline]
    pub fn holds(&self, bot: usize) -> bool {
        self.procs[bot].lane.is_some()
    }

    /// Whether `bot`, just idle, keeps its lane while its replies are
    /// played on: it holds one and its streak is below the cap. (The cap
    /// is checked here, before [`Lanes::go_on`] adds to the streak.)
    #[inline]
    pub fn keeps(&self, bot: usize) -> bool {
        let h = &self.procs[bot];
        h.lane.is_some() && h.streak < STREAK_MAX_BATCHES
    }

    /// `bot` kept its lane and its replies left it `asks` new asks: true if
    /// they go out at once on the same lane, while its games are still in
    /// its CPU's caches (one more batch in the streak); false if the lane
    /// should be released.
    #[inline]
    pub fn go_on(&mut self, bot: usize, asks: usize) -> bool {
        if asks < STREAK_MIN_ASKS {
            return false;
        }
        self.procs[bot].streak += 1;
        true
    }

    /// `bot` gives its lane back, if it holds one.
    #[inline]
    pub fn release(&mut self, bot: usize) {
        if let Some(lane) = self.procs[bot].lane.take() {
            self.cpus.release(lane);
        }
    }

    /// `bot`'s process is gone: its lane is free and its queued asks are
    /// lost.
    pub fn crashed(&mut self, bot: usize) {
        self.release(bot);
        self.procs[bot].oldest = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lanes(jobs: usize, processes: usize) -> Lanes {
        Lanes::new(CpuLanes::over(jobs, &[]), processes)
    }

    /// Fills the free slots as the engine does, every process ready;
    /// returns who was written to, in order.
    fn fill(l: &mut Lanes) -> Vec<usize> {
        let mut written = Vec::new();
        while l.free() {
            let Some(bot) = l.next(|_| true) else { break };
            assert!(l.sent(bot, true).is_some(), "a free slot was not taken");
            written.push(bot);
        }
        written
    }

    #[test]
    fn a_free_slot_goes_to_the_oldest_pending_ask() {
        let mut l = lanes(1, 3);
        l.asked(1);
        l.asked(2);
        l.asked(0);
        l.asked(1);
        assert_eq!(l.next(|_| true), Some(1));
        // Not ready (still starting, or asks outstanding): passed over.
        assert_eq!(l.next(|b| b != 1), Some(2));
        assert_eq!(fill(&mut l), [1]);
        // The holder is not a candidate; the order among the rest holds.
        l.release(1);
        assert_eq!(fill(&mut l), [2]);
        l.release(2);
        assert_eq!(fill(&mut l), [0]);
        l.release(0);
        assert_eq!(l.next(|_| true), None, "nothing pending");
    }

    #[test]
    fn no_more_processes_than_jobs_hold_a_slot() {
        let mut l = lanes(2, 4);
        for bot in [3, 1, 0, 2] {
            l.asked(bot);
        }
        assert_eq!(fill(&mut l), [3, 1]);
        assert!(!l.free());
        assert_eq!(l.procs.iter().filter(|h| h.lane.is_some()).count(), 2);
        // A batch with no asks (only `new` and `end` lines) takes no slot.
        assert_eq!(l.sent(0, false), None);
        l.release(1);
        assert_eq!(fill(&mut l), [2], "0's asks were written already");
    }

    #[test]
    fn a_streak_keeps_the_slot_up_to_its_cap() {
        let mut l = lanes(1, 2);
        l.asked(0);
        l.asked(1);
        assert_eq!(fill(&mut l), [0]);
        let mut follow_ups = 0;
        while l.keeps(0) {
            assert!(l.go_on(0, STREAK_MIN_ASKS));
            assert_eq!(l.sent(0, true), None, "the held lane is kept");
            follow_ups += 1;
            assert!(follow_ups <= STREAK_MAX_BATCHES, "past the cap");
        }
        assert_eq!(follow_ups, STREAK_MAX_BATCHES);
        l.release(0);
        assert_eq!(fill(&mut l), [1], "the waiting process is next");
        // A new lane starts a new streak.
        assert!(l.keeps(1));
    }

    #[test]
    fn a_streak_needs_enough_new_asks() {
        let mut l = lanes(1, 2);
        l.asked(0);
        assert_eq!(fill(&mut l), [0]);
        assert!(l.keeps(0));
        assert!(!l.go_on(0, STREAK_MIN_ASKS - 1));
        assert_eq!(l.procs[0].streak, 0);
    }

    #[test]
    fn a_crash_frees_the_slot_and_forgets_the_queued_asks() {
        let mut l = lanes(1, 2);
        l.asked(0);
        l.asked(1);
        assert_eq!(fill(&mut l), [0]);
        l.asked(0);
        l.crashed(0);
        assert!(l.free());
        assert!(!l.holds(0));
        assert_eq!(fill(&mut l), [1]);
        l.release(1);
        assert_eq!(l.next(|_| true), None);
    }

    /// The engine's use of [`Lanes`] in miniature, with a reference model
    /// of each property beside it.
    struct World {
        l: Lanes,
        jobs: usize,
        /// Asks queued per process, not yet written.
        queued: Vec<usize>,
        /// The model's own record of each process's oldest queued ask.
        oldest: Vec<Option<u64>>,
        seq: u64,
        /// A batch was written and its replies are not in yet.
        busy: Vec<bool>,
        /// Follow-up batches in a row on the current lane.
        streak: Vec<u32>,
        /// Batches written to others while this one waited with asks
        /// and no slot.
        waited: Vec<usize>,
    }

    impl World {
        fn new(jobs: usize, n: usize) -> World {
            World {
                l: lanes(jobs, n),
                jobs,
                queued: vec![0; n],
                oldest: vec![None; n],
                seq: 0,
                busy: vec![false; n],
                streak: vec![0; n],
                waited: vec![0; n],
            }
        }

        fn ask(&mut self, bot: usize) {
            self.queued[bot] += 1;
            self.oldest[bot].get_or_insert(self.seq);
            self.seq += 1;
            self.l.asked(bot);
        }

        fn write(&mut self, bot: usize, follow_up: bool) -> Result<(), TestCaseError> {
            let took = self.l.sent(bot, true);
            if follow_up {
                prop_assert!(took.is_none());
                self.streak[bot] += 1;
                prop_assert!(
                    self.streak[bot] <= STREAK_MAX_BATCHES,
                    "streak of {} batches",
                    self.streak[bot]
                );
            } else {
                self.streak[bot] = 0;
            }
            self.queued[bot] = 0;
            self.oldest[bot] = None;
            self.busy[bot] = true;
            // Every process with asks outstanding holds its own lane.
            let mut held: Vec<usize> = (0..self.busy.len())
                .filter(|&b| self.busy[b])
                .map(|b| self.l.procs[b].lane.ok_or(b))
                .collect::<Result<_, usize>>()
                .map_err(|b| TestCaseError::fail(format!("{b} serves asks with no slot")))?;
            prop_assert!(held.len() <= self.jobs, "{} slots held", held.len());
            held.sort_unstable();
            held.dedup();
            prop_assert_eq!(held.len(), self.busy.iter().filter(|&&b| b).count());
            for other in 0..self.waited.len() {
                if other != bot && self.queued[other] > 0 && !self.l.holds(other) {
                    self.waited[other] += 1;
                }
            }
            self.waited[bot] = 0;
            Ok(())
        }

        fn dispatch(&mut self) -> Result<(), TestCaseError> {
            while self.l.free() {
                let busy = &self.busy;
                let Some(bot) = self.l.next(|b| !busy[b]) else {
                    break;
                };
                let oldest = (0..self.busy.len())
                    .filter(|&b| !self.busy[b] && !self.l.holds(b))
                    .filter_map(|b| self.oldest[b].map(|seq| (seq, b)))
                    .min()
                    .map(|(_, b)| b);
                prop_assert_eq!(Some(bot), oldest, "not the oldest pending ask");
                self.write(bot, false)?;
            }
            Ok(())
        }

        /// `bot`'s replies are all in; playing its games on leaves it
        /// `own` new asks and one to each of `others`.
        fn reply(&mut self, bot: usize, own: usize, others: &[usize]) -> Result<(), TestCaseError> {
            self.busy[bot] = false;
            let keep = self.l.keeps(bot);
            if !keep {
                self.l.release(bot);
                self.dispatch()?;
            }
            for _ in 0..own {
                self.ask(bot);
            }
            for &other in others {
                self.ask(other % self.busy.len());
            }
            if keep {
                if self.l.go_on(bot, self.queued[bot]) {
                    self.write(bot, true)?;
                } else {
                    self.l.release(bot);
                    self.dispatch()?;
                }
            }
            Ok(())
        }
    }

    #[test]
    fn a_waiting_process_is_served_between_streaks() {
        // One slot; process 0's replies always leave it a full streak's
        // worth of asks, process 1 waits with one ask.
        let mut w = World::new(1, 2);
        w.ask(0);
        w.ask(1);
        w.dispatch().unwrap();
        let mut rounds = 0;
        while w.queued[1] > 0 {
            assert!(w.busy[0]);
            w.reply(0, STREAK_MIN_ASKS, &[]).unwrap();
            rounds += 1;
            assert!(rounds <= 2 * STREAK_MAX_BATCHES as usize, "1 starves");
        }
        assert_eq!(rounds, 1 + STREAK_MAX_BATCHES as usize);
        assert!(w.busy[1]);
    }

    proptest! {
        #[test]
        fn slots_are_bounded_oldest_first_streaks_capped_and_none_starves(
            n in 1usize..7,
            jobs in 1usize..4,
            greedy in prop::collection::vec(any::<bool>(), 7),
            first in prop::collection::vec(0usize..7, 1..20),
            steps in prop::collection::vec(
                (any::<usize>(), 0usize..24, prop::collection::vec(0usize..7, 0..4)),
                0..300,
            ),
        ) {
            let mut w = World::new(jobs, n);
            for bot in first {
                w.ask(bot % n);
            }
            // A process is passed over at most once by each other process
            // on the way to the oldest ask, each time plus a whole streak,
            // and once more by a streak under way when it began to wait.
            let bound = (n - 1) * (2 * STREAK_MAX_BATCHES as usize + 1);
            let mut steps = steps.into_iter();
            loop {
                w.dispatch()?;
                let busy: Vec<usize> = (0..n).filter(|&b| w.busy[b]).collect();
                if busy.is_empty() {
                    break;
                }
                // One reply: which busy process (an index among them), how
                // many asks it gets, and the processes its games ask next.
                let (bot, own, others) = match steps.next() {
                    Some((pick, asks, others)) => {
                        let bot = busy[pick % busy.len()];
                        // A greedy process's turns always go on.
                        let own = if greedy[bot] { STREAK_MIN_ASKS + asks } else { asks };
                        (bot, own, others)
                    }
                    // Then the games wind down.
                    None => (busy[0], 0, Vec::new()),
                };
                w.reply(bot, own, &others)?;
                let most = w.waited.iter().copied().max().unwrap_or(0);
                prop_assert!(most <= bound, "a process waited {most} batches (bound {bound})");
            }
            // Every ask was written in the end.
            prop_assert_eq!(w.queued, vec![0; n]);
        }
    }
}
