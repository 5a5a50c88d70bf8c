//! The outcome of one turn in which both moves were valid.

use crate::action::Action;

/// What the weapons did when both bots made a valid move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clash {
    /// Both survive; the duel goes on.
    BothSurvive,
    AWins,
    BWins,
}

/// Whether `shot` kills a bot that plays `target` in the same turn.
///
/// A bullet is stopped by a metal shield and by the other bullet, and beaten
/// by plasma; plasma is stopped by a thermal deflector and the other plasma.
/// Defining the table as one relation keeps it symmetric by construction.
fn kills(shot: Action, target: Action) -> bool {
    use Action::*;
    matches!(
        (shot, target),
        (Bullet, Load) | (Bullet, Thermal) | (Plasma, Load) | (Plasma, Bullet) | (Plasma, Metal)
    )
}

/// The outcome table of section 2 (rows A's action, columns B's).
pub fn clash(a: Action, b: Action) -> Clash {
    if kills(a, b) {
        Clash::AWins
    } else if kills(b, a) {
        Clash::BWins
    } else {
        Clash::BothSurvive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table exactly as printed in the spec, row by row, columns `0 1 2 - =`.
    const SPEC_TABLE: [&str; 5] = ["·BB··", "A·B·A", "AA·A·", "··B··", "·B···"];

    #[test]
    fn all_25_cells_match_the_spec_table() {
        for (row, a) in Action::ALL.into_iter().enumerate() {
            for (col, b) in Action::ALL.into_iter().enumerate() {
                let expected = match SPEC_TABLE[row].chars().nth(col) {
                    Some('A') => Clash::AWins,
                    Some('B') => Clash::BWins,
                    _ => Clash::BothSurvive,
                };
                assert_eq!(clash(a, b), expected, "A {a:?} vs B {b:?}");
            }
        }
    }
}
