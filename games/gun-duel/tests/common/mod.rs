//! Scripted replies for driving duels and whole tournaments without processes.

#![allow(dead_code)]

use game_core::{seed::mix, Ending, LineReply, Reply};
use game_gun_duel::{
    parse_history, read_exit_reply, read_line_reply, Action, Answer, DuelDriver, DuelId,
    DuelResult, Epilogue, Interface, Request, Seat, Side, Tournament,
};

/// A failure reply of interface 1, picked by `n`, so every kind gets exercised.
pub fn failed_exit_reply(n: usize) -> Reply {
    let endings = [
        Ending::Exited(0),
        Ending::TimedOut,
        Ending::Signalled(11),
        Ending::SpawnFailed,
        Ending::Exited(47),
    ];
    Reply::ended(Vec::new(), endings[n % endings.len()])
}

/// A reply of interface 2 that is no action without killing the bot.
pub fn bad_line_reply(n: usize) -> LineReply {
    let replies = [
        LineReply::Message(b"x".to_vec()),
        LineReply::TooLong,
        LineReply::Message(b"?".to_vec()),
    ];
    replies[n % replies.len()].clone()
}

/// What a transport would report for a scripted move on an interface.
pub fn scripted_answer(interface: Interface, m: Option<Action>, n: usize) -> Answer {
    match (interface, m) {
        (Interface::ExitCode, Some(a)) => {
            read_exit_reply(&Reply::exited(Vec::new(), a.exit_status()))
        }
        (Interface::ExitCode, None) => read_exit_reply(&failed_exit_reply(n)),
        (Interface::Io, Some(a)) => {
            Some(read_line_reply(&LineReply::Message(vec![a.char() as u8])))
        }
        (Interface::Io, None) => Some(read_line_reply(&bad_line_reply(n))),
    }
    .expect("a scripted reply is never a cancellation")
}

/// Plays two move scripts through a [`DuelDriver`], answering each request
/// from the script with replies a transport could produce. Panics if the
/// driver asks for more moves than the scripts hold.
pub fn play_scripted(
    turns: u32,
    interfaces: [Interface; 2],
    a: &str,
    b: &str,
) -> (DuelResult, usize) {
    let scripts = [
        parse_history(a).expect("valid script A"),
        parse_history(b).expect("valid script B"),
    ];
    let seats = [
        Seat {
            interface: interfaces[0],
            opponent_id: 1,
        },
        Seat {
            interface: interfaces[1],
            opponent_id: 0,
        },
    ];
    let mut driver = DuelDriver::new(turns, seats);
    let mut asked = 0;
    while let Some(requests) = driver.requests() {
        for (side, request) in Side::BOTH.into_iter().zip(&requests) {
            let expected = interfaces[side.index()];
            let matches = matches!(
                (request, expected),
                (Request::Run { .. }, Interface::ExitCode) | (Request::Ask { .. }, Interface::Io)
            );
            assert!(matches, "request {request:?} does not fit {expected:?}");
        }
        let answers = [0, 1].map(|i| {
            let m = *scripts[i]
                .get(asked)
                .expect("driver asked beyond the script");
            scripted_answer(interfaces[i], m, asked + i)
        });
        assert!(driver.submit(answers).is_some());
        asked += 1;
    }
    assert!(driver.epilogue().is_some());
    (driver.result().expect("duel decided"), asked)
}

/// A stand-in for a bot with memory: its moves depend on everything it was
/// ever told, so playing its duels in another order changes its play.
#[derive(Debug, Clone)]
pub struct FakeBot {
    pub index: usize,
    pub interface: Interface,
    state: u64,
    pub duels_seen: Vec<DuelId>,
    /// Set once the bot "died" (interface 2 only): it answers nothing more.
    pub dead: bool,
}

impl FakeBot {
    pub fn new(index: usize, interface: Interface) -> FakeBot {
        FakeBot {
            index,
            interface,
            state: mix(index as u64 + 1),
            duels_seen: Vec::new(),
            dead: false,
        }
    }

    fn absorb(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.state = mix(self.state ^ u64::from(b));
        }
    }

    /// Picks a move; loads more often, so duels last a few turns.
    fn choose(&mut self) -> u8 {
        self.state = mix(self.state.wrapping_add(0x9e37));
        b"00001112-=-=2"[(self.state % 13) as usize]
    }

    /// Interface 1: one run with these fields; returns the exit status.
    pub fn run(&mut self, args: &[String]) -> Reply {
        for arg in args {
            self.absorb(arg.as_bytes());
            self.absorb(b" ");
        }
        match self.state % 61 {
            0 => Reply::ended(Vec::new(), Ending::TimedOut),
            1 => Reply::exited(Vec::new(), 7),
            _ => Reply::exited(b"ignored".to_vec(), i32::from(self.choose())),
        }
    }

    /// Interface 2: receives bytes; answers one move per `F`.
    pub fn io(&mut self, bytes: &[u8]) -> LineReply {
        if self.dead {
            return LineReply::Closed;
        }
        self.absorb(bytes);
        match self.state % 97 {
            0 => LineReply::Message(b"z".to_vec()),
            // A rare bot dies mid-tournament and stays dead.
            1 if self.index == 2 => {
                self.dead = true;
                LineReply::TimedOut
            }
            _ => LineReply::Message(vec![self.choose()]),
        }
    }
}

/// Plays one scheduled duel between fake bots through the wire codecs.
pub fn play_fake_duel(id: &DuelId, ids: &[u32], bots: &mut [FakeBot], turns: u32) -> DuelResult {
    let seat = |me: usize, opponent: usize| Seat {
        interface: bots[me].interface,
        opponent_id: ids[opponent],
    };
    let mut driver = DuelDriver::new(turns, [seat(id.a, id.b), seat(id.b, id.a)]);
    bots[id.a].duels_seen.push(*id);
    bots[id.b].duels_seen.push(*id);
    let bot_of = |side: Side| if side == Side::A { id.a } else { id.b };
    while let Some(requests) = driver.requests() {
        let mut answers = [Answer::DEAD; 2];
        for (side, request) in Side::BOTH.into_iter().zip(requests) {
            let bot = &mut bots[bot_of(side)];
            answers[side.index()] = match request {
                Request::Run { args } => read_exit_reply(&bot.run(&args)).expect("not cancelled"),
                Request::Ask { .. } if bot.dead => Answer::DEAD,
                Request::Ask { bytes } => read_line_reply(&bot.io(&bytes)),
            };
        }
        driver.submit(answers).expect("duel still running");
    }
    for (side, epilogue) in Side::BOTH
        .into_iter()
        .zip(driver.epilogue().expect("decided"))
    {
        let bot = &mut bots[bot_of(side)];
        match epilogue {
            Epilogue::Run { args } => {
                // The final call's exit status is ignored.
                let _ = bot.run(&args);
            }
            Epilogue::Tell { bytes } => {
                if !bot.dead {
                    bot.absorb(&bytes);
                }
            }
        }
    }
    driver.result().expect("decided")
}

/// Everything a tournament produced, to compare runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub ids: Vec<u32>,
    pub results: Vec<(DuelId, DuelResult)>,
    pub standings: Vec<game_gun_duel::Standing>,
    pub winners: Vec<usize>,
    pub bot_sequences: Vec<Vec<DuelId>>,
}

/// Runs a whole tournament of fake bots. `jobs` duels may be running at
/// once, and `pick` chooses which running duel finishes next, so the same
/// tournament can be replayed with any interleaving.
pub fn run_tournament(
    bots: usize,
    duels_per_pair: u32,
    turns: u32,
    seed: u64,
    jobs: usize,
    mut pick: impl FnMut(usize) -> usize,
) -> Run {
    let mut fakes: Vec<FakeBot> = (0..bots)
        .map(|i| {
            let interface = if i % 2 == 0 {
                Interface::Io
            } else {
                Interface::ExitCode
            };
            FakeBot::new(i, interface)
        })
        .collect();
    let mut t = Tournament::new(bots, duels_per_pair, seed);
    let ids = t.ids().to_vec();
    let mut results = Vec::new();
    let mut rounds = 0;
    while let Some(mut round) = t.start_round() {
        rounds += 1;
        assert!(
            rounds <= bots,
            "a tournament of {bots} bots cannot need {rounds} rounds"
        );
        let mut running: Vec<usize> = Vec::new();
        loop {
            while running.len() < jobs {
                match round.next_ready() {
                    Some(k) => running.push(k),
                    None => break,
                }
            }
            if running.is_empty() {
                assert!(round.is_complete(), "dispatch stalled with nothing running");
                break;
            }
            // Bots of running duels are disjoint.
            let mut busy: Vec<usize> = running
                .iter()
                .flat_map(|&k| [round.duels()[k].a, round.duels()[k].b])
                .collect();
            busy.sort_unstable();
            let before = busy.len();
            busy.dedup();
            assert_eq!(before, busy.len(), "a bot is in two running duels");
            let k = running.swap_remove(pick(running.len()) % running.len());
            let id = round.duels()[k];
            let result = play_fake_duel(&id, &ids, &mut fakes, turns);
            round
                .record(k, result.outcome)
                .expect("first record of this duel");
            results.push((id, result));
        }
        t.finish_round(round).expect("complete round");
    }
    results.sort_by_key(|(id, _)| *id);
    Run {
        ids,
        results,
        standings: t.standings().to_vec(),
        winners: t.winners().to_vec(),
        bot_sequences: fakes.into_iter().map(|f| f.duels_seen).collect(),
    }
}
