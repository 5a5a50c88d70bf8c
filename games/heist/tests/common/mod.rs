//! Scripted randomness and scripted bots for the scenario tests: every draw
//! a §9 vector names is given per player, so a test states the scenario
//! exactly as the spec does.
#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};

use game_core::Reply;
use game_heist::{Dice, GameReport, Request, Seat, Tournament};

/// Draws given per player. A draw the script lacks fails the test, except
/// rehire draws, which fail (as the §9 preamble says) unless given.
#[derive(Debug, Default)]
pub struct Script {
    /// The rabble that play, in pool indexes.
    pub rabble: Vec<usize>,
    /// Round-1 order; empty keeps bots then rabble in the order given.
    pub round1: Vec<Seat>,
    /// Round-2 order; empty keeps round-1 order.
    pub round2: Vec<Seat>,
    pub rabble_bet: HashMap<Seat, f64>,
    pub rabble_back_out: HashMap<Seat, f64>,
    pub heist: HashMap<Seat, f64>,
    pub fingers: HashMap<Seat, VecDeque<Seat>>,
    pub rehire: HashMap<Seat, f64>,
    pub lost_guards: HashMap<Seat, Vec<usize>>,
    /// Every heist draw actually made, in order.
    pub heist_calls: Vec<Seat>,
}

impl Dice for Script {
    fn seating(&mut self, bots: usize, pool: usize) -> Vec<Seat> {
        assert!(
            self.rabble.iter().all(|&r| r < pool),
            "scripted rabble outside the pool"
        );
        let mut default: Vec<Seat> = (0..bots).map(Seat::Bot).collect();
        default.extend(self.rabble.iter().map(|&r| Seat::Rabble(r)));
        if self.round1.is_empty() {
            return default;
        }
        let (mut have, mut want) = (default, self.round1.clone());
        have.sort();
        want.sort();
        assert_eq!(
            have, want,
            "scripted round-1 order is not the players of the game"
        );
        self.round1.clone()
    }
    fn decision_order(&mut self, heisters: &[Seat]) -> Vec<usize> {
        if self.round2.is_empty() {
            return (0..heisters.len()).collect();
        }
        assert_eq!(
            self.round2.len(),
            heisters.len(),
            "scripted round-2 order is not the heisters"
        );
        self.round2
            .iter()
            .map(|seat| {
                heisters
                    .iter()
                    .position(|h| h == seat)
                    .unwrap_or_else(|| panic!("{seat:?} is not a heister"))
            })
            .collect()
    }
    fn rabble_bet(&mut self, seat: Seat) -> f64 {
        *self
            .rabble_bet
            .get(&seat)
            .unwrap_or_else(|| panic!("no round-1 draw for {seat:?}"))
    }
    fn rabble_back_out(&mut self, seat: Seat) -> f64 {
        *self
            .rabble_back_out
            .get(&seat)
            .unwrap_or_else(|| panic!("no round-2 draw for {seat:?}"))
    }
    fn heist(&mut self, seat: Seat) -> f64 {
        self.heist_calls.push(seat);
        *self
            .heist
            .get(&seat)
            .unwrap_or_else(|| panic!("no heist draw for {seat:?}"))
    }
    fn finger(&mut self, fingerer: Seat, candidates: &[Seat]) -> usize {
        let drawn = self
            .fingers
            .get_mut(&fingerer)
            .and_then(VecDeque::pop_front)
            .unwrap_or_else(|| panic!("no finger draw left for {fingerer:?}"));
        candidates
            .iter()
            .position(|&c| c == drawn)
            .unwrap_or_else(|| panic!("{drawn:?} is not a candidate"))
    }
    fn rehire(&mut self, seat: Seat) -> f64 {
        self.rehire.get(&seat).copied().unwrap_or(0.99)
    }
    fn lost_guards(&mut self, seat: Seat, _guards: usize, lost: usize) -> Vec<usize> {
        let picked = self
            .lost_guards
            .get(&seat)
            .cloned()
            .unwrap_or_else(|| panic!("no guard pick for {seat:?}"));
        assert_eq!(picked.len(), lost);
        picked
    }
}

/// A bot's scripted replies: its round-1 output and round-2 output.
#[derive(Debug, Clone, Default)]
pub struct Bots {
    replies: HashMap<(String, u8), Reply>,
    /// The tournament's bot names, by index (set by [`play`]).
    pub names: Vec<String>,
    pub requests: Vec<Request>,
}

impl Bots {
    pub fn new() -> Bots {
        Bots::default()
    }

    /// Bets `bet` and, if asked in round 2, answers `answer`.
    pub fn plays(mut self, name: &str, bet: i64, answer: &str) -> Bots {
        self.replies
            .insert((name.to_string(), 1), Reply::exited(format!("{bet}\n"), 0));
        self.replies.insert(
            (name.to_string(), 2),
            Reply::exited(format!("{answer}\n"), 0),
        );
        self
    }

    pub fn reply(mut self, name: &str, round: u8, reply: Reply) -> Bots {
        self.replies.insert((name.to_string(), round), reply);
        self
    }

    pub fn name(&self, request: &Request) -> &str {
        &self.names[request.bot]
    }

    pub fn answer(&mut self, request: &Request) -> Reply {
        self.requests.push(request.clone());
        let name = self.name(request).to_string();
        self.replies
            .get(&(name.clone(), request.round.number()))
            .cloned()
            .unwrap_or_else(|| panic!("no reply for {name} in round {:?}", request.round))
    }

    /// The requests this bot received.
    pub fn of(&self, name: &str) -> Vec<&Request> {
        self.requests
            .iter()
            .filter(|r| self.names[r.bot] == name)
            .collect()
    }
}

pub fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A tournament of these bots without rabble.
pub fn tournament(list: &[&str]) -> Tournament {
    Tournament::new(names(list), 0, 1000).expect("valid names")
}

pub fn bot(t: &Tournament, name: &str) -> Seat {
    Seat::Bot(t.names().iter().position(|n| n == name).expect("known bot"))
}

/// Plays one game with scripted draws and bots.
pub fn play(t: &mut Tournament, script: &mut Script, bots: &mut Bots) -> GameReport {
    bots.names = t.names().to_vec();
    t.play_game(script, |request| bots.answer(request))
}

pub fn credits(t: &Tournament, name: &str) -> i64 {
    let Seat::Bot(b) = bot(t, name) else {
        unreachable!()
    };
    t.players()[b].credits
}
