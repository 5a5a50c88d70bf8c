//! Per-player state (§2) and the few state changes that several rules share.

use serde::{Deserialize, Serialize};

use crate::bank::{BANKS, BASE_ODDS, BASE_PROB};
use crate::money;

/// Credits every player holds at the start of a tournament.
pub const START_CREDITS: i64 = 240;
/// Paycheck every player earns at the start of a tournament.
pub const START_PAYCHECK: i64 = 240;

/// Who a seat in a game belongs to: a bot (index in the bot list) or a rabble
/// player (index in the rabble pool). Randomness sources receive seats so a
/// scripted source can answer per player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Seat {
    Bot(usize),
    Rabble(usize),
}

impl Seat {
    pub fn is_bot(self) -> bool {
        matches!(self, Seat::Bot(_))
    }
}

/// The state of one player. It lasts a whole tournament.
///
/// Probabilities and odds are serialised as their IEEE-754 bit patterns:
/// a resumed tournament must continue with exactly the same values, and
/// decimal text does not guarantee that with every JSON reader.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Player {
    pub credits: i64,
    pub paycheck: i64,
    pub employed: bool,
    pub accounts: [i64; BANKS],
    #[serde(with = "f64_bits")]
    pub prob: [f64; BANKS],
    #[serde(with = "f64_bits")]
    pub odds: [f64; BANKS],
    /// One bank index per guard held, in the order they were bought.
    pub guards: Vec<u8>,
}

impl Default for Player {
    fn default() -> Self {
        Player::new()
    }
}

impl Player {
    /// A player in the initial state of §2.
    pub fn new() -> Self {
        Player {
            credits: START_CREDITS,
            paycheck: START_PAYCHECK,
            employed: true,
            accounts: [0; BANKS],
            prob: BASE_PROB,
            odds: BASE_ODDS,
            guards: Vec::new(),
        }
    }

    /// A player in the initial state except for its credits.
    pub fn with_credits(credits: i64) -> Self {
        Player {
            credits,
            ..Player::new()
        }
    }

    /// `buy guard`: one more guard at `bank`, and a chance 1 % closer to certainty there.
    pub fn buy_guard(&mut self, bank: usize) {
        self.guards.push(bank as u8);
        self.prob[bank] += 0.01 * (1.0 - self.prob[bank]);
    }

    /// Undoes one guard bonus at the bank of the guard at `index` in the list.
    /// (p − 0.01) / 0.99 is the original's inverse, kept on purpose (§11).
    pub(crate) fn lose_guard(&mut self, index: usize) {
        if index < self.guards.len() {
            let bank = usize::from(self.guards.remove(index)).min(BANKS - 1);
            self.prob[bank] = (self.prob[bank] - 0.01) / 0.99;
        }
    }

    /// Being caught double-crossing costs the job and half the paycheck.
    pub(crate) fn fire(&mut self) {
        self.employed = false;
        self.paycheck /= 2;
    }

    /// Interest on every account: 0.14 % rounded down, in exact integers.
    pub(crate) fn pay_interest(&mut self) {
        for balance in &mut self.accounts {
            // Most accounts are empty; the 64-bit path covers the rest but
            // the most extreme balances, which take the exact 128-bit one.
            if *balance == 0 {
                continue;
            }
            *balance = match balance.checked_mul(14) {
                Some(scaled) => balance.saturating_add(scaled / 10_000),
                None => money::saturate(i128::from(*balance) + i128::from(*balance) * 14 / 10_000),
            };
        }
    }

    /// A raise of 5 % rounded down (rehiring).
    pub(crate) fn raise(&mut self) {
        self.paycheck =
            money::saturate(i128::from(self.paycheck) + i128::from(self.paycheck) * 5 / 100);
    }

    /// A cut of 5 % rounded down (a missed finger).
    pub(crate) fn cut(&mut self) {
        self.paycheck -= self.paycheck * 5 / 100;
    }
}

/// Serialises `[f64; N]` as the bit patterns, so a round trip is exact.
mod f64_bits {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::bank::BANKS;

    pub fn serialize<S: Serializer>(values: &[f64; BANKS], s: S) -> Result<S::Ok, S::Error> {
        let bits: [u64; BANKS] = values.map(f64::to_bits);
        bits.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[f64; BANKS], D::Error> {
        let bits = <[u64; BANKS]>::deserialize(d)?;
        Ok(bits.map(f64::from_bits))
    }
}
