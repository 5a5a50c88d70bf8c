//! The per-game log block of §7, in the shape of the post's example.

/// Everything one game's log block shows, already in display order. Bots
/// are named by their index in the tournament's bot list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GameLog {
    /// Game number from 0.
    pub game: u32,
    /// Players in the game, rabble included.
    pub players: usize,
    /// Round 1: each bot in round-1 order with its clamped bet.
    pub round1: Vec<(usize, i64)>,
    /// Round 2: each bot heister in round-2 order with the text it is shown deciding.
    pub round2: Vec<(usize, String)>,
    /// Each bot that stayed, in round-1 order: `Some(W)` if its heist succeeded.
    pub results: Vec<(usize, Option<i64>)>,
    /// Each bot in leaderboard order with its credits after the game.
    pub standings: Vec<(usize, i64)>,
}

impl GameLog {
    /// The block, with the bots' `names`: no blank lines inside, one empty
    /// line after.
    pub fn block(&self, names: &[String]) -> String {
        // Plain pushes instead of `write!`: a tournament renders a block per
        // game, and the formatting machinery would cost more than the game.
        let name = |bot: usize| names.get(bot).map_or("?", String::as_str);
        let mut out = String::with_capacity(40 * (self.round1.len() * 4 + 6));
        out.push_str("#####GAME ");
        push_int(&mut out, i64::from(self.game));
        out.push_str(": ");
        push_int(&mut out, i64::try_from(self.players).unwrap_or(i64::MAX));
        out.push_str(" players######\nRound 1:\n");
        for &(bot, bet) in &self.round1 {
            out.push_str(name(bot));
            out.push_str(" bet ");
            push_int(&mut out, bet);
            out.push_str(".\n");
        }
        out.push_str("Round 2\n");
        for (bot, shown) in &self.round2 {
            out.push_str(name(*bot));
            out.push_str(" decided to ");
            out.push_str(shown);
            out.push_str(".\n");
        }
        out.push_str("Results\n");
        for &(bot, outcome) in &self.results {
            out.push_str(name(bot));
            match outcome {
                Some(winnings) => {
                    out.push_str(" was successful, and may gain \u{a5}");
                    push_int(&mut out, winnings);
                    out.push('\n');
                }
                None => out.push_str(" failed. :(\n"),
            }
        }
        out.push_str("Results:\n");
        for (place, &(bot, credits)) in self.standings.iter().enumerate() {
            push_int(&mut out, i64::try_from(place).unwrap_or(i64::MAX));
            out.push_str(". ");
            out.push_str(name(bot));
            out.push_str(": ");
            push_int(&mut out, credits);
            out.push('\n');
        }
        out.push('\n');
        out
    }
}

/// Appends the decimal digits of `value`.
fn push_int(out: &mut String, value: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = value.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if value < 0 {
        out.push('-');
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// Where a tournament's log goes, relative to the results database's folder.
/// Tournaments are numbered from 1.
pub fn log_path(tournament: u32) -> String {
    format!("heist-logs/tournament-{tournament}.log")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_sections_keep_their_headings() {
        let log = GameLog {
            game: 7,
            players: 2,
            round1: vec![(0, 0), (1, 0)],
            round2: vec![],
            results: vec![],
            standings: vec![(0, 480), (1, 480)],
        };
        assert_eq!(
            log.block(&["a".into(), "b".into()]),
            "#####GAME 7: 2 players######\nRound 1:\na bet 0.\nb bet 0.\nRound 2\nResults\nResults:\n0. a: 480\n1. b: 480\n\n"
        );
    }

    #[test]
    fn yen_sign_is_utf8() {
        let log = GameLog {
            results: vec![(0, Some(1))],
            ..GameLog::default()
        };
        let names = ["x".to_string()];
        assert!(log
            .block(&names)
            .as_bytes()
            .windows(2)
            .any(|w| w == [0xC2, 0xA5]));
        assert!(log
            .block(&names)
            .contains("x was successful, and may gain \u{a5}1\n"));
    }

    #[test]
    fn integers() {
        for value in [0, 7, -7, 10, 480, 1_000_000, i64::MAX, i64::MIN] {
            let mut out = String::new();
            push_int(&mut out, value);
            assert_eq!(out, value.to_string());
        }
    }

    #[test]
    fn path() {
        assert_eq!(log_path(1), "heist-logs/tournament-1.log");
    }
}
