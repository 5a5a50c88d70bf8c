//! The five actions, their wire characters, exit statuses and ammo costs.

use serde::{Deserialize, Serialize};

/// One of the five legal actions. A turn with no action (bad output,
/// timeout, crash) is `None` in an `Option<Action>`, written `?`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    Load,
    Bullet,
    Plasma,
    Metal,
    Thermal,
}

/// The character written for a turn with no action.
pub const NO_ACTION: char = '?';

impl Action {
    pub const ALL: [Action; 5] = [
        Action::Load,
        Action::Bullet,
        Action::Plasma,
        Action::Metal,
        Action::Thermal,
    ];

    /// The character used in histories and on the wire.
    pub fn char(self) -> char {
        match self {
            Action::Load => '0',
            Action::Bullet => '1',
            Action::Plasma => '2',
            Action::Metal => '-',
            Action::Thermal => '=',
        }
    }

    pub fn from_char(c: char) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.char() == c)
    }

    pub fn from_byte(b: u8) -> Option<Action> {
        Action::from_char(char::from(b))
    }

    /// Interface 1 answers with the ASCII code of the character as exit status.
    pub fn exit_status(self) -> i32 {
        self.char() as i32
    }

    pub fn from_exit_status(status: i32) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.exit_status() == status)
    }

    /// Change of the bot's own ammo, applied even when the bot lacks it.
    pub fn ammo_change(self) -> i32 {
        match self {
            Action::Load => 1,
            Action::Bullet => -1,
            Action::Plasma => -2,
            Action::Metal | Action::Thermal => 0,
        }
    }
}

/// The character of a turn that may have had no action.
pub fn move_char(m: Option<Action>) -> char {
    m.map_or(NO_ACTION, Action::char)
}

/// A history string: one character per turn, `?` for no action.
pub fn history_string(moves: &[Option<Action>]) -> String {
    moves.iter().map(|&m| move_char(m)).collect()
}

/// Parses a history string as written in histories and test vectors.
/// Returns `None` when a character is neither an action nor `?`.
pub fn parse_history(s: &str) -> Option<Vec<Option<Action>>> {
    s.chars()
        .map(|c| {
            if c == NO_ACTION {
                Some(None)
            } else {
                Action::from_char(c).map(Some)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_and_exit_statuses_follow_the_spec_table() {
        let expected = [
            (Action::Load, '0', 48, 1),
            (Action::Bullet, '1', 49, -1),
            (Action::Plasma, '2', 50, -2),
            (Action::Metal, '-', 45, 0),
            (Action::Thermal, '=', 61, 0),
        ];
        for (a, c, status, ammo) in expected {
            assert_eq!(a.char(), c);
            assert_eq!(a.exit_status(), status);
            assert_eq!(a.ammo_change(), ammo);
            assert_eq!(Action::from_char(c), Some(a));
            assert_eq!(Action::from_exit_status(status), Some(a));
        }
        assert_eq!(Action::from_char('?'), None);
        assert_eq!(Action::from_exit_status(0), None);
        assert_eq!(Action::from_exit_status(48 + 256), None);
    }

    #[test]
    fn histories_round_trip_with_no_action() {
        let h = parse_history("0?-=12").expect("valid history");
        assert_eq!(h[1], None);
        assert_eq!(history_string(&h), "0?-=12");
        assert_eq!(parse_history("0x"), None);
    }
}
