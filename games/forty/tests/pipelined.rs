//! Many games in flight over one simulated process per bot, driven the way
//! the crate's docs tell a runner to: batches of asks, replies paired by a
//! `Pipeline`, crashes answered for every outstanding ask. No processes:
//! each "process" answers the lines of a batch with a fixed strategy.
//!
//! Section 3.2: results must not depend on how games interleave.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use game_core::{LineRef, LineReply};
use game_forty::wire;
use game_forty::{
    plan_game, Aggregate, BotRecord, Decision, Failure, Next, Pipeline, PipelineEvent, PlannedGame,
};

const SEED: u64 = 2019;
const BOTS: usize = 5;
const PER_GAME: usize = 4;

/// Stateless strategies, so a restarted process plays the same way.
fn strategy(bot: usize, throws: &[u32], scores: &[u32], seat: usize, last_round: bool) -> bool {
    let sum: u32 = throws.iter().sum();
    match bot {
        0 => sum < 10,          // GoToTen
        1 => throws.len() == 1, // ThrowTwice
        2 => false,             // Stop
        3 => sum < 20,          // greedy
        _ => last_round && scores[seat] + sum <= scores.iter().copied().max().unwrap_or(0),
    }
}

/// One simulated bot process: remembers each game's seat from `new`.
struct FakeProcess {
    bot: usize,
    seats: std::collections::HashMap<u64, usize>,
    /// Answer this many asks, then die (for the crash test).
    dies_after: Option<usize>,
    answered: usize,
}

impl FakeProcess {
    fn new(bot: usize) -> Self {
        FakeProcess {
            bot,
            seats: Default::default(),
            dies_after: None,
            answered: 0,
        }
    }

    /// Reads a batch; returns its reply lines, and whether it died.
    fn serve(&mut self, batch: &[u8]) -> (Vec<Vec<u8>>, bool) {
        let mut replies = Vec::new();
        for line in batch.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let text = std::str::from_utf8(line).unwrap();
            let f: Vec<&str> = text.split(' ').collect();
            match f[0] {
                "new" => {
                    self.seats
                        .insert(f[1].parse().unwrap(), f[2].parse().unwrap());
                }
                "end" => {
                    assert!(self.seats.remove(&f[1].parse().unwrap()).is_some());
                }
                "ask" => {
                    if self.dies_after == Some(self.answered) {
                        return (replies, true);
                    }
                    self.answered += 1;
                    let game: u64 = f[1].parse().unwrap();
                    let seat = *self.seats.get(&game).expect("`new` precedes `ask`");
                    let list = |s: &str| -> Vec<u32> {
                        s.split(',').map(|x| x.parse().unwrap()).collect()
                    };
                    let throw = strategy(self.bot, &list(f[3]), &list(f[4]), seat, f[2] == "1");
                    replies.push(format!("{game} {}", if throw { 1 } else { 0 }).into_bytes());
                }
                other => panic!("unexpected line {other}"),
            }
        }
        (replies, false)
    }
}

struct Slot {
    planned: PlannedGame,
    /// The incarnation of each seat's process that heard `new`.
    incarnation: Vec<u32>,
}

struct Runner {
    processes: Vec<FakeProcess>,
    pipelines: Vec<Pipeline<usize>>,
    outbox: Vec<Vec<u8>>,
    /// Asks written in the outbox, to push when the batch goes out.
    queued: Vec<Vec<(usize, u64, Duration)>>,
    incarnation: Vec<u32>,
    slots: Vec<Option<Slot>>,
    aggregate: Aggregate,
    now: Instant,
}

impl Runner {
    fn new(concurrency: usize) -> Self {
        Runner {
            processes: (0..BOTS).map(FakeProcess::new).collect(),
            pipelines: (0..BOTS)
                .map(|_| Pipeline::new(Duration::from_millis(1000)))
                .collect(),
            outbox: vec![Vec::new(); BOTS],
            queued: vec![Vec::new(); BOTS],
            incarnation: vec![0; BOTS],
            slots: (0..concurrency).map(|_| None).collect(),
            aggregate: Aggregate::new(BOTS),
            now: Instant::now(),
        }
    }

    fn start(&mut self, slot: usize, g: u64) {
        let eligible: Vec<usize> = (0..BOTS).collect();
        let planned = plan_game(SEED, g, &eligible, PER_GAME).unwrap();
        for (seat, &bot) in planned.seating.iter().enumerate() {
            wire::write_new(&mut self.outbox[bot], g, seat, 40);
        }
        let incarnation = planned
            .seating
            .iter()
            .map(|&b| self.incarnation[b])
            .collect();
        self.slots[slot] = Some(Slot {
            planned,
            incarnation,
        });
        self.step(slot);
    }

    /// Advances a game until it needs a process or is over.
    fn step(&mut self, slot: usize) {
        loop {
            let Some(s) = self.slots[slot].as_mut() else {
                return;
            };
            let g = s.planned.index;
            match s.planned.game.advance(&mut ()) {
                Next::Ask { seat } => {
                    let bot = s.planned.seating[seat];
                    if s.incarnation[seat] != self.incarnation[bot] {
                        s.planned
                            .game
                            .answer(Decision::Failed(Failure::Lost))
                            .unwrap();
                        continue;
                    }
                    s.planned.game.write_ask(g, &mut self.outbox[bot]);
                    let budget = s.planned.game.budget_left(Duration::from_millis(100));
                    self.queued[bot].push((slot, g, budget));
                    return;
                }
                Next::Over => {
                    for (seat, &bot) in s.planned.seating.iter().enumerate() {
                        if s.incarnation[seat] == self.incarnation[bot] {
                            wire::write_end(&mut self.outbox[bot], g);
                        }
                    }
                    self.aggregate
                        .record_game(&s.planned.seating, &s.planned.game)
                        .unwrap();
                    self.slots[slot] = None;
                    return;
                }
            }
        }
    }

    /// One batch per process: write, let it answer, feed the replies back.
    fn exchange(&mut self) {
        for bot in 0..BOTS {
            if self.outbox[bot].is_empty() {
                continue;
            }
            let batch = std::mem::take(&mut self.outbox[bot]);
            self.now += Duration::from_micros(50);
            for (slot, g, budget) in self.queued[bot].drain(..) {
                self.pipelines[bot].push(slot, g, self.now, budget);
            }
            let (replies, died) = self.processes[bot].serve(&batch);
            self.now += Duration::from_micros(20);
            let mut ready = VecDeque::new();
            let mut events = Vec::new();
            let lines: Vec<LineReply> = replies.into_iter().map(LineReply::Message).collect();
            let start = self.pipelines[bot].service_start().unwrap_or(self.now);
            self.pipelines[bot].on_group(
                lines.iter().map(LineReply::as_line_ref),
                self.now,
                self.now - start,
                &mut events,
            );
            for (_, event) in events {
                match event {
                    PipelineEvent::Decided {
                        token,
                        decision,
                        charged,
                        ..
                    } => ready.push_back((token, decision, charged)),
                    other => panic!("unexpected {other:?}"),
                }
            }
            if died {
                let mut events = Vec::new();
                self.pipelines[bot].on_group(
                    [LineRef::Closed],
                    self.now,
                    Duration::ZERO,
                    &mut events,
                );
                assert_eq!(
                    events,
                    vec![(
                        0,
                        PipelineEvent::Kill(game_forty::pipeline::KillReason::Closed)
                    )]
                );
                self.aggregate.bot_mut(bot).add_failure(Failure::Crash);
                let failed = self.pipelines[bot].fail(Duration::ZERO);
                for (token, _) in failed.crashed {
                    ready.push_back((token, Decision::Failed(Failure::Crash), Duration::ZERO));
                }
                // Restart: a fresh process that knows no game.
                self.incarnation[bot] += 1;
                self.processes[bot] = FakeProcess::new(bot);
            }
            for (slot, decision, charged) in ready {
                let s = self.slots[slot].as_mut().unwrap();
                s.planned.game.spend(charged);
                s.planned.game.answer(decision).unwrap();
                self.step(slot);
            }
        }
    }

    fn run(mut self, games: u64, crash: Option<(usize, usize)>) -> Aggregate {
        if let Some((bot, after)) = crash {
            self.processes[bot].dies_after = Some(after);
        }
        let mut next = 0u64;
        loop {
            for slot in 0..self.slots.len() {
                if self.slots[slot].is_none() && next < games {
                    self.start(slot, next);
                    next += 1;
                }
            }
            if self.slots.iter().all(Option::is_none) {
                break;
            }
            self.exchange();
        }
        // Flush the last `end` lines.
        for bot in 0..BOTS {
            let batch = std::mem::take(&mut self.outbox[bot]);
            let (replies, _) = self.processes[bot].serve(&batch);
            assert!(replies.is_empty());
            assert!(self.processes[bot].seats.is_empty(), "every game was ended");
        }
        self.aggregate
    }
}

/// Each game alone, answered directly by the strategies.
fn sequential(games: u64) -> Aggregate {
    let eligible: Vec<usize> = (0..BOTS).collect();
    let mut aggregate = Aggregate::new(BOTS);
    for g in 0..games {
        let mut planned = plan_game(SEED, g, &eligible, PER_GAME).unwrap();
        while let Next::Ask { seat } = planned.game.advance(&mut ()) {
            let game = &planned.game;
            let throws: Vec<u32> = game
                .current_throws()
                .iter()
                .map(|&d| u32::from(d))
                .collect();
            let throw = strategy(
                planned.seating[seat],
                &throws,
                game.snapshot(),
                seat,
                game.last_round(),
            );
            let decision = if throw {
                Decision::Throw
            } else {
                Decision::Stop
            };
            planned.game.answer(decision).unwrap();
        }
        aggregate
            .record_game(&planned.seating, &planned.game)
            .unwrap();
    }
    aggregate
}

fn without_time(mut a: Aggregate) -> Aggregate {
    for bot in &mut a.bots {
        bot.charged_ns = 0;
    }
    a
}

#[test]
fn results_do_not_depend_on_concurrency() {
    let games = 400;
    let reference = sequential(games);
    for concurrency in [1, 7, 64, 500] {
        let got = Runner::new(concurrency).run(games, None);
        assert_eq!(without_time(got), reference, "concurrency {concurrency}");
    }
    assert_eq!(reference.totals.games, games);
    let played: u64 = reference.bots.iter().map(|b| b.played).sum();
    assert_eq!(played, games * PER_GAME as u64);
}

#[test]
fn a_crash_costs_outstanding_and_later_turns_then_the_process_restarts() {
    let games = 200;
    let got = Runner::new(50).run(games, Some((3, 40)));
    let reference = sequential(games);
    assert_eq!(got.totals.games, games);
    let crashed: &BotRecord = &got.bots[3];
    assert_eq!(crashed.failures.crashes, 1);
    // The asks outstanding at the crash, and the bot's later turns in the
    // games it had joined, are lost.
    assert!(crashed.failures.lost > 1, "{:?}", crashed.failures);
    assert_eq!(crashed.played, reference.bots[3].played);
    for (bot, record) in got.bots.iter().enumerate() {
        if bot != 3 {
            assert_eq!(record.failures.total(), 0, "bot {bot}");
        }
    }
    assert_ne!(without_time(got), reference);
}
