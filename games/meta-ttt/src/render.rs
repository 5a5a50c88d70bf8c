//! Human-facing text: the board picture, transcript lines and the post's
//! leaderboard lines.

use crate::rules::{End, Game, Illegal, Mark, Move};
use crate::wire::trimmed;

/// The 17-line picture of the position in the post's style, trailing spaces removed.
pub fn picture(game: &Game) -> String {
    let mut lines = Vec::with_capacity(17);
    for board_row in 0..3u8 {
        if board_row > 0 {
            lines.push("=".repeat(23));
        }
        for tile_row in 0..3u8 {
            if tile_row > 0 {
                lines.push("----- || ----- || -----".to_string());
            }
            let parts: Vec<String> = (0..3u8)
                .map(|bc| {
                    let b = board_row * 3 + bc;
                    (0..3u8)
                        .map(|tc| game.cell(b, tile_row * 3 + tc).map_or(' ', Mark::letter))
                        .map(String::from)
                        .collect::<Vec<_>>()
                        .join("|")
                })
                .collect();
            lines.push(parts.join(" || ").trim_end().to_string());
        }
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// `Round N: X plays 38`
pub fn legal_line(round: u32, mark: Mark, mv: Move) -> String {
    format!("Round {round}: {} plays {mv}", mark.letter())
}

/// `Round N: X illegal (REASON), output "…"`: the trimmed stdout, at most
/// 20 bytes of it, escaped.
pub fn illegal_line(round: u32, mark: Mark, reason: Illegal, stdout: &[u8]) -> String {
    let shown = trimmed(stdout);
    let shown = &shown[..shown.len().min(20)];
    format!(
        "Round {round}: {} illegal ({reason}), output \"{}\"",
        mark.letter(),
        shown.escape_ascii()
    )
}

/// The result line at the end of `referee play`.
pub fn result_line(game: &Game) -> String {
    match game.end() {
        Some(End::Win(m)) => format!(
            "Result: {} wins with {} open spots.",
            m.letter(),
            game.open_spots()
        ),
        Some(End::Draw) => "Result: draw, no legal move left.".to_string(),
        Some(End::RoundLimit) | None => {
            format!("Result: no winner after {} rounds.", game.calls())
        }
    }
}

/// One leaderboard line in the post's words, for a bot label (`Bot 1` or `X`).
pub fn bot_line(label: &str, name: &str, wins: u64, illegal: u64, points: i64) -> String {
    format!(
        "{label}, {name}, has {wins} wins and made {illegal} illegal moves, for a total of {points} points."
    )
}

/// The closing time line.
pub fn time_line(bots: usize, seconds: f64) -> String {
    format!("With {bots} bots, This program took {seconds:.3} seconds to finish.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Call;

    #[test]
    fn picture_after_38_84_matches_the_spec() {
        let mut g = Game::new(250);
        g.apply(Call::Move(Move { board: 3, tile: 8 })).unwrap();
        g.apply(Call::Move(Move { board: 8, tile: 4 })).unwrap();
        let expected = " | |  ||  | |  ||  | |
----- || ----- || -----
 | |  ||  | |  ||  | |
----- || ----- || -----
 | |  ||  | |  ||  | |
=======================
 | |  ||  | |  ||  | |
----- || ----- || -----
 | |  ||  | |  ||  | |
----- || ----- || -----
 | |X ||  | |  ||  | |
=======================
 | |  ||  | |  ||  | |
----- || ----- || -----
 | |  ||  | |  ||  |O|
----- || ----- || -----
 | |  ||  | |  ||  | |
";
        assert_eq!(picture(&g), expected);
    }

    #[test]
    fn illegal_line_escapes_and_caps_output() {
        let line = illegal_line(3, Mark::X, Illegal::MustPlay(4), b"  30\n");
        assert_eq!(
            line,
            "Round 3: X illegal (must play board 4), output \"30\""
        );
        let line = illegal_line(
            1,
            Mark::O,
            Illegal::Garbage,
            b"\xff\"abcdefghijklmnopqrstuvwxyz",
        );
        assert_eq!(
            line,
            "Round 1: O illegal (garbage output), output \"\\xff\\\"abcdefghijklmnopqr\""
        );
    }

    #[test]
    fn leaderboard_lines_use_the_posts_words() {
        assert_eq!(
            bot_line("Bot 1", "goodRandBot", 1, 0, 133),
            "Bot 1, goodRandBot, has 1 wins and made 0 illegal moves, for a total of 133 points."
        );
        assert_eq!(
            time_line(4, 477.4712),
            "With 4 bots, This program took 477.471 seconds to finish."
        );
    }
}
