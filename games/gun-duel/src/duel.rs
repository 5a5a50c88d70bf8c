//! One duel as a deterministic state machine: ammo, validity, explosions,
//! the outcome table and the turn limit (section 2 of the spec).

use serde::{Deserialize, Serialize};

use crate::action::{history_string, Action};
use crate::outcome_table::{clash, Clash};

/// Side A is the bot listed earlier; the rules are symmetric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Side {
    A,
    B,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::A, Side::B];

    /// Index into the `[T; 2]` arrays used throughout the crate.
    pub fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }

    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }

    pub fn letter(self) -> char {
        match self {
            Side::A => 'A',
            Side::B => 'B',
        }
    }
}

/// How a duel ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    AWins,
    BWins,
    Draw,
}

impl Outcome {
    pub fn winner(self) -> Option<Side> {
        match self {
            Outcome::AWins => Some(Side::A),
            Outcome::BWins => Some(Side::B),
            Outcome::Draw => None,
        }
    }

    pub fn won_by(side: Side) -> Outcome {
        match side {
            Side::A => Outcome::AWins,
            Side::B => Outcome::BWins,
        }
    }

    /// The same duel seen with the sides swapped.
    pub fn mirrored(self) -> Outcome {
        match self {
            Outcome::AWins => Outcome::BWins,
            Outcome::BWins => Outcome::AWins,
            Outcome::Draw => Outcome::Draw,
        }
    }

    /// The `status` field of interface 1's final call: 0 draw, 1 won, 2 lost.
    pub fn status_for(self, side: Side) -> u8 {
        match self.winner() {
            None => 0,
            Some(w) if w == side => 1,
            Some(_) => 2,
        }
    }
}

/// What one turn did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// 0-based index of the turn.
    pub index: u32,
    pub moves: [Option<Action>; 2],
    /// Both counts after the turn (negative for a gun that exploded).
    pub ammo: [i32; 2],
    /// Whether each side's move was invalid: no action or not enough ammo.
    pub exploded: [bool; 2],
    /// Set when this turn ended the duel, the turn limit included.
    pub outcome: Option<Outcome>,
}

/// The state of one duel. Feed it both moves of each turn with [`Duel::play`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duel {
    turn_limit: u32,
    ammo: [i32; 2],
    history: [Vec<Option<Action>>; 2],
    outcome: Option<Outcome>,
}

impl Duel {
    /// A fresh duel: both guns empty. A limit of 0 turns is a draw at once.
    pub fn new(turn_limit: u32) -> Duel {
        Duel {
            turn_limit,
            ammo: [0, 0],
            history: [Vec::new(), Vec::new()],
            outcome: (turn_limit == 0).then_some(Outcome::Draw),
        }
    }

    pub fn turn_limit(&self) -> u32 {
        self.turn_limit
    }

    /// Turns already played, which is also the 0-based index of the next turn.
    pub fn turns_played(&self) -> u32 {
        // A duel never has more turns than its u32 limit.
        u32::try_from(self.history[0].len()).unwrap_or(u32::MAX)
    }

    pub fn ammo(&self) -> [i32; 2] {
        self.ammo
    }

    pub fn history(&self, side: Side) -> &[Option<Action>] {
        &self.history[side.index()]
    }

    pub fn history_string(&self, side: Side) -> String {
        history_string(self.history(side))
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// Plays one turn from both simultaneous moves; `None` is no action.
    /// Returns `None`, changing nothing, once the duel is over.
    pub fn play(&mut self, moves: [Option<Action>; 2]) -> Option<Turn> {
        if self.is_over() {
            return None;
        }
        let index = self.turns_played();
        // The change applies even when the bot lacks the ammo; that negative
        // count is what makes the move invalid below.
        for side in Side::BOTH {
            let i = side.index();
            if let Some(action) = moves[i] {
                self.ammo[i] += action.ammo_change();
            }
            self.history[i].push(moves[i]);
        }
        let valid = |i: usize| moves[i].is_some() && self.ammo[i] >= 0;
        let exploded = [!valid(0), !valid(1)];
        let decided = match (moves[0], moves[1], exploded) {
            (Some(a), Some(b), [false, false]) => match clash(a, b) {
                Clash::AWins => Some(Outcome::AWins),
                Clash::BWins => Some(Outcome::BWins),
                Clash::BothSurvive => None,
            },
            // Exactly one invalid move: the other bot wins whatever it played.
            (_, _, [true, false]) => Some(Outcome::BWins),
            (_, _, [false, true]) => Some(Outcome::AWins),
            _ => Some(Outcome::Draw),
        };
        let outcome = decided.or_else(|| (index + 1 >= self.turn_limit).then_some(Outcome::Draw));
        self.outcome = outcome;
        Some(Turn {
            index,
            moves,
            ammo: self.ammo,
            exploded,
            outcome,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ammo_goes_negative_on_an_explosion_and_the_duel_stops() {
        let mut duel = Duel::new(100);
        let turn = duel
            .play([Some(Action::Plasma), Some(Action::Load)])
            .expect("first turn is played");
        assert_eq!(turn.ammo, [-2, 1]);
        assert_eq!(turn.exploded, [true, false]);
        assert_eq!(turn.outcome, Some(Outcome::BWins));
        assert_eq!(duel.play([Some(Action::Load), Some(Action::Load)]), None);
        assert_eq!(duel.turns_played(), 1);
    }

    #[test]
    fn final_status_is_0_draw_1_won_2_lost() {
        assert_eq!(Outcome::AWins.status_for(Side::A), 1);
        assert_eq!(Outcome::AWins.status_for(Side::B), 2);
        assert_eq!(Outcome::Draw.status_for(Side::B), 0);
    }
}
