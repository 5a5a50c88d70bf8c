//! The tournament's structure (section 3): how many seats a game has, which
//! bots sit where, the generator of each game, the blocks results are
//! committed in, and the seeds the bots' own randomness gets.
//!
//! Everything derives from (tournament seed, game index, eligible list), so
//! parallelism and resumes change nothing.

use std::ops::Range;

use game_core::{seed, GameRng};

use crate::dice::{uniform_below, Dice};
use crate::game::Game;

/// Games per committed block (section 3.3).
pub const BLOCK_GAMES: u64 = 1_000;

/// Seats when fewer bots than `bots-per-game` are eligible but at least this
/// many are (the post's rule).
pub const FALLBACK_SEATS: usize = 4;

/// Fewer than two eligible bots: no game can be played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooFewBots {
    pub eligible: usize,
}

impl std::fmt::Display for TooFewBots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "at least 2 eligible bots are needed, {} left",
            self.eligible
        )
    }
}

impl std::error::Error for TooFewBots {}

/// Seats per game for `eligible` bots (section 3.1).
pub fn seats_for(eligible: usize, bots_per_game: usize) -> Result<usize, TooFewBots> {
    if eligible < 2 {
        Err(TooFewBots { eligible })
    } else if eligible >= bots_per_game {
        Ok(bots_per_game)
    } else if eligible >= FALLBACK_SEATS {
        Ok(FALLBACK_SEATS)
    } else {
        Ok(eligible)
    }
}

/// The seed of game `game` of a tournament.
pub fn game_seed(tournament_seed: u64, game: u64) -> u64 {
    seed::game_seed(tournament_seed, &format!("forty/game/{game}"))
}

/// The generator of game `game`: it draws the seating, then every die.
pub fn game_rng(tournament_seed: u64, game: u64) -> GameRng {
    seed::rng(game_seed(tournament_seed, game))
}

/// Draws `seats` distinct entries of `eligible` in random seat order by a
/// partial Fisher–Yates shuffle. `seats` is clamped to the list's length.
pub fn draw_seating(rng: &mut GameRng, eligible: &[usize], seats: usize) -> Vec<usize> {
    let mut pool = eligible.to_vec();
    let seats = seats.min(pool.len());
    for i in 0..seats {
        // The pool never exceeds u32 range in practice; saturate rather than
        // truncate if it somehow did.
        let remaining = u32::try_from(pool.len() - i).unwrap_or(u32::MAX);
        let j = i + uniform_below(rng, remaining) as usize;
        pool.swap(i, j);
    }
    pool.truncate(seats);
    pool
}

/// A tournament game ready to play.
#[derive(Debug, Clone)]
pub struct PlannedGame {
    pub index: u64,
    /// The bot (an index into the tournament's bot list) at each seat.
    pub seating: Vec<usize>,
    pub game: Game,
}

/// Game `index` of a tournament: its seating drawn from `eligible` (bot
/// indices in instructions order), and the game with the rest of its
/// generator as dice.
pub fn plan_game(
    tournament_seed: u64,
    index: u64,
    eligible: &[usize],
    bots_per_game: usize,
) -> Result<PlannedGame, TooFewBots> {
    let seats = seats_for(eligible.len(), bots_per_game)?;
    let mut rng = game_rng(tournament_seed, index);
    let seating = draw_seating(&mut rng, eligible, seats);
    let game = Game::new(seating.len(), Dice::seeded(rng)).ok_or(TooFewBots {
        eligible: eligible.len(),
    })?;
    Ok(PlannedGame {
        index,
        seating,
        game,
    })
}

/// The game of `referee play`: game 0, seats as given, dice from `dice`
/// (when given) and then from game 0's generator of `tournament_seed`.
/// `None` for zero seats.
pub fn play_game(tournament_seed: u64, seats: usize, dice: Option<Vec<u8>>) -> Option<Game> {
    let rng = game_rng(tournament_seed, 0);
    let dice = match dice {
        Some(list) => Dice::scripted(list, rng),
        None => Dice::seeded(rng),
    };
    Game::new(seats, dice)
}

/// The block a game belongs to.
pub fn block_of(game: u64) -> u64 {
    game / BLOCK_GAMES
}

/// Number of blocks of a tournament of `games` games.
pub fn block_count(games: u64) -> u64 {
    games.div_ceil(BLOCK_GAMES)
}

/// The game indices of block `block` (the last block may be short).
pub fn block_games(block: u64, games: u64) -> Range<u64> {
    let start = block.saturating_mul(BLOCK_GAMES).min(games);
    let end = start.saturating_add(BLOCK_GAMES).min(games);
    start..end
}

/// The seed sent in a process's handshake, from (tournament seed, bot name,
/// restart count). Kept below 2^32 so every language's seeding function
/// (C's `srand`, numpy's `seed`) takes it as it is.
pub fn bot_seed(tournament_seed: u64, bot_name: &str, restarts: u32) -> u64 {
    seed::game_seed(tournament_seed, &format!("forty/bot/{bot_name}/{restarts}")) & 0xffff_ffff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_counts_follow_section_3_1() {
        assert_eq!(seats_for(49, 8), Ok(8));
        assert_eq!(seats_for(8, 8), Ok(8));
        assert_eq!(seats_for(7, 8), Ok(4));
        assert_eq!(seats_for(4, 8), Ok(4));
        assert_eq!(seats_for(3, 8), Ok(3));
        assert_eq!(seats_for(2, 8), Ok(2));
        assert_eq!(seats_for(1, 8), Err(TooFewBots { eligible: 1 }));
        assert_eq!(seats_for(0, 8), Err(TooFewBots { eligible: 0 }));
        assert_eq!(seats_for(5, 3), Ok(3));
        assert_eq!(seats_for(2, 3), Ok(2));
    }

    #[test]
    fn seating_is_distinct_and_drawn_from_the_eligible_list() {
        let eligible: Vec<usize> = vec![0, 2, 3, 5, 8, 9, 11, 12, 13, 20];
        for g in 0..200 {
            let planned = plan_game(7, g, &eligible, 8).unwrap();
            let mut seats = planned.seating.clone();
            assert_eq!(seats.len(), 8);
            seats.sort_unstable();
            seats.dedup();
            assert_eq!(seats.len(), 8, "game {g}: {:?}", planned.seating);
            assert!(seats.iter().all(|b| eligible.contains(b)));
        }
    }

    #[test]
    fn seating_depends_only_on_seed_game_and_list() {
        let eligible: Vec<usize> = (0..12).collect();
        let a = plan_game(99, 1234, &eligible, 8).unwrap();
        let b = plan_game(99, 1234, &eligible, 8).unwrap();
        assert_eq!(a.seating, b.seating);
        let seatings: std::collections::HashSet<Vec<usize>> = (0..50)
            .map(|g| plan_game(99, g, &eligible, 8).unwrap().seating)
            .collect();
        assert!(seatings.len() > 45, "seatings barely vary across games");
        assert_ne!(
            plan_game(98, 1234, &eligible, 8).unwrap().seating,
            a.seating
        );
    }

    #[test]
    fn every_bot_can_take_every_seat() {
        // Partial Fisher–Yates gives each bot each seat with equal chance; a
        // fixed seed makes this deterministic, and 3000 games leave every
        // (bot, seat) cell far from empty.
        let eligible: Vec<usize> = (0..5).collect();
        let mut cells = [[0u32; 4]; 5];
        for g in 0..3000 {
            let planned = plan_game(1, g, &eligible, 8).unwrap();
            for (seat, &bot) in planned.seating.iter().enumerate() {
                cells[bot][seat] += 1;
            }
        }
        for row in cells {
            for count in row {
                // Expected 600 per cell.
                assert!((450..=750).contains(&count), "{cells:?}");
            }
        }
    }

    #[test]
    fn blocks_cover_every_game_once() {
        assert_eq!(block_count(0), 0);
        assert_eq!(block_count(1), 1);
        assert_eq!(block_count(1000), 1);
        assert_eq!(block_count(2500), 3);
        assert_eq!(block_games(0, 2500), 0..1000);
        assert_eq!(block_games(2, 2500), 2000..2500);
        assert_eq!(block_games(3, 2500), 2500..2500);
        assert_eq!(block_of(999), 0);
        assert_eq!(block_of(1000), 1);
    }

    #[test]
    fn bot_seeds_vary_with_restart_and_fit_32_bits() {
        let a = bot_seed(5, "GoToTenBot", 0);
        assert_eq!(a, bot_seed(5, "GoToTenBot", 0));
        assert_ne!(a, bot_seed(5, "GoToTenBot", 1));
        assert_ne!(a, bot_seed(5, "StopBot", 0));
        assert_ne!(a, bot_seed(6, "GoToTenBot", 0));
        assert!(a < 1 << 32);
    }
}
