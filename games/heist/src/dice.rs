//! Every random draw of a game, behind one trait.
//!
//! The engine asks for each draw by its meaning and names the player it is
//! for, so a test can script the exact draws of a §9 vector, while a real
//! tournament uses the seeded [`GameRng`]. The engine makes the draws in a
//! fixed order, so a seeded generator gives the same game every time.

use game_core::GameRng;
use rand::seq::SliceRandom;
use rand::RngExt;

use crate::player::Seat;

/// A source of the random draws of §4–§5. Uniform draws are in [0, 1).
pub trait Dice {
    /// The players of a game in round-1 order (§4.1–§4.2): every bot
    /// `0..bots` once, and k rabble from the pool `0..pool`, where k is
    /// uniform in 0..=pool and the subset uniform among those of size k; the
    /// whole list in uniformly random order.
    fn seating(&mut self, bots: usize, pool: usize) -> Vec<Seat>;
    /// A uniformly random round-2 order of the heisters (given in round-1
    /// order), as a permutation of the indexes `0..heisters.len()`.
    fn decision_order(&mut self, heisters: &[Seat]) -> Vec<usize>;
    /// The rabble's round-1 draw.
    fn rabble_bet(&mut self, seat: Seat) -> f64;
    /// The rabble's round-2 draw.
    fn rabble_back_out(&mut self, seat: Seat) -> f64;
    /// The step-B draw u of a player who stayed in the heist.
    fn heist(&mut self, seat: Seat) -> f64;
    /// One of a fingerer's eight draws: an index into `candidates`.
    fn finger(&mut self, fingerer: Seat, candidates: &[Seat]) -> usize;
    /// The step-H rehire draw of an unemployed player.
    fn rehire(&mut self, seat: Seat) -> f64;
    /// `lost` distinct indexes into a list of `guards` guards.
    fn lost_guards(&mut self, seat: Seat, guards: usize, lost: usize) -> Vec<usize>;
}

impl Dice for GameRng {
    fn seating(&mut self, bots: usize, pool: usize) -> Vec<Seat> {
        let count = self.random_range(0..=pool);
        // `sample` returns the subset fully shuffled, so inserting each bot
        // at a uniform position of the list so far keeps the whole order
        // uniform, with one draw per bot instead of one per player.
        let subset = rand::seq::index::sample(self, pool, count);
        let mut seats = Vec::with_capacity(count + bots);
        seats.extend(subset.iter().map(Seat::Rabble));
        for bot in 0..bots {
            let at = self.random_range(0..=seats.len());
            seats.insert(at, Seat::Bot(bot));
        }
        seats
    }

    fn decision_order(&mut self, heisters: &[Seat]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..heisters.len()).collect();
        order.shuffle(self);
        order
    }

    fn rabble_bet(&mut self, _seat: Seat) -> f64 {
        self.random()
    }

    fn rabble_back_out(&mut self, _seat: Seat) -> f64 {
        self.random()
    }

    fn heist(&mut self, _seat: Seat) -> f64 {
        self.random()
    }

    fn finger(&mut self, _fingerer: Seat, candidates: &[Seat]) -> usize {
        if candidates.is_empty() {
            0
        } else {
            self.random_range(0..candidates.len())
        }
    }

    fn rehire(&mut self, _seat: Seat) -> f64 {
        self.random()
    }

    fn lost_guards(&mut self, _seat: Seat, guards: usize, lost: usize) -> Vec<usize> {
        rand::seq::index::sample(self, guards, lost.min(guards)).into_vec()
    }
}

/// Lets a caller keep its dice (e.g. a scripted source it inspects afterwards).
impl<D: Dice + ?Sized> Dice for &mut D {
    fn seating(&mut self, bots: usize, pool: usize) -> Vec<Seat> {
        (**self).seating(bots, pool)
    }
    fn decision_order(&mut self, heisters: &[Seat]) -> Vec<usize> {
        (**self).decision_order(heisters)
    }
    fn rabble_bet(&mut self, seat: Seat) -> f64 {
        (**self).rabble_bet(seat)
    }
    fn rabble_back_out(&mut self, seat: Seat) -> f64 {
        (**self).rabble_back_out(seat)
    }
    fn heist(&mut self, seat: Seat) -> f64 {
        (**self).heist(seat)
    }
    fn finger(&mut self, fingerer: Seat, candidates: &[Seat]) -> usize {
        (**self).finger(fingerer, candidates)
    }
    fn rehire(&mut self, seat: Seat) -> f64 {
        (**self).rehire(seat)
    }
    fn lost_guards(&mut self, seat: Seat, guards: usize, lost: usize) -> Vec<usize> {
        (**self).lost_guards(seat, guards, lost)
    }
}
