//! A tournament: the persistent state of every player across its games, the
//! seeds of its randomness, and the number of games it lasts (§1, §8).

use game_core::{game_seed, rng, GameRng, Reply};
use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::dice::Dice;
use crate::game::{Game, GameReport, Request};
use crate::player::{Player, Seat, START_CREDITS};
use crate::settings::Settings;

/// Default number of games is drawn from this range, both ends included.
pub const DEFAULT_GAMES: std::ops::RangeInclusive<u32> = 1000..=1100;

/// The number of games of tournament `t` (from 1): the `games` setting, or a
/// uniform draw from 1000..=1100 seeded by (master seed, t) alone.
pub fn games_in_tournament(settings: &Settings, master_seed: u64, t: u32) -> u32 {
    match settings.games {
        Some(games) => games,
        None => rng(game_seed(
            master_seed,
            &format!("heist/tournament-{t}/games"),
        ))
        .random_range(DEFAULT_GAMES),
    }
}

/// The randomness of game `g` (from 0) of tournament `t` (from 1), seeded by
/// (master seed, t, g) alone so that resumes and parallelism change nothing.
pub fn game_dice(master_seed: u64, t: u32, g: u32) -> GameRng {
    rng(game_stream_seed(master_seed, t, g))
}

/// The seed of [`game_dice`]`(master_seed, t, g)`, for records.
pub fn game_stream_seed(master_seed: u64, t: u32, g: u32) -> u64 {
    game_seed(master_seed, &format!("heist/tournament-{t}/game-{g}"))
}

/// The state of one tournament between games: everything a resume needs
/// (with the byte length of its log, which the runner keeps).
///
/// Serialisable as is; deserialising checks that the parts fit together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Snapshot")]
pub struct Tournament {
    names: Vec<String>,
    players: Vec<Player>,
    /// The rabble's credits by pool index: nothing else about a rabble player
    /// ever changes (§5), so this is its whole state.
    rabble: Vec<i64>,
    leaderboard: Vec<usize>,
    next_game: u32,
    games: u32,
}

/// The serialised form, checked before it becomes a [`Tournament`].
#[derive(Deserialize)]
struct Snapshot {
    names: Vec<String>,
    players: Vec<Player>,
    rabble: Vec<i64>,
    leaderboard: Vec<usize>,
    next_game: u32,
    games: u32,
}

impl TryFrom<Snapshot> for Tournament {
    type Error = String;

    fn try_from(s: Snapshot) -> Result<Self, String> {
        check_names(&s.names)?;
        if s.players.len() != s.names.len() {
            return Err(format!(
                "{} players for {} names",
                s.players.len(),
                s.names.len()
            ));
        }
        let mut sorted = s.leaderboard.clone();
        sorted.sort_unstable();
        if sorted != (0..s.names.len()).collect::<Vec<_>>() {
            return Err("the leaderboard is not an order of the bots".to_string());
        }
        Ok(Tournament {
            names: s.names,
            players: s.players,
            rabble: s.rabble,
            leaderboard: s.leaderboard,
            next_game: s.next_game,
            games: s.games,
        })
    }
}

/// Bot names must be present, distinct and free of whitespace (the post
/// forbids spaces; a line break would also break the log).
fn check_names(names: &[String]) -> Result<(), String> {
    if names.is_empty() {
        return Err("a heist tournament needs at least one bot".to_string());
    }
    for (i, name) in names.iter().enumerate() {
        if name.is_empty() {
            return Err("a bot name is empty".to_string());
        }
        if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!(
                "bot name {name:?} contains a space or control character"
            ));
        }
        if names[..i].contains(name) {
            return Err(format!("bot name {name:?} appears twice"));
        }
    }
    Ok(())
}

impl Tournament {
    /// A fresh tournament of `games` games: every bot and every one of the
    /// `rabble` pool players in the initial state of §2.
    pub fn new(names: Vec<String>, rabble: usize, games: u32) -> Result<Tournament, String> {
        check_names(&names)?;
        Ok(Tournament {
            players: vec![Player::new(); names.len()],
            leaderboard: (0..names.len()).collect(),
            names,
            rabble: vec![START_CREDITS; rabble],
            next_game: 0,
            games,
        })
    }

    /// A fresh tournament for tournament `t` of a run with these settings.
    pub fn for_run(
        names: Vec<String>,
        settings: &Settings,
        master_seed: u64,
        t: u32,
    ) -> Result<Tournament, String> {
        Tournament::new(
            names,
            settings.rabble,
            games_in_tournament(settings, master_seed, t),
        )
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The bots' states, by bot index.
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// Direct access to a bot's state, for setting up scenarios.
    pub fn player_mut(&mut self, bot: usize) -> Option<&mut Player> {
        self.players.get_mut(bot)
    }

    /// The rabble's credits, by pool index.
    pub fn rabble(&self) -> &[i64] {
        &self.rabble
    }

    /// Direct access to a rabble player's credits, for setting up scenarios.
    pub fn rabble_mut(&mut self, index: usize) -> Option<&mut i64> {
        self.rabble.get_mut(index)
    }

    /// Bot indexes by credits, highest first, ties in the previous order.
    pub fn leaderboard(&self) -> &[usize] {
        &self.leaderboard
    }

    /// The number of the next game to play (= games played so far).
    pub fn next_game(&self) -> u32 {
        self.next_game
    }

    /// Games this tournament lasts.
    pub fn games(&self) -> u32 {
        self.games
    }

    pub fn is_finished(&self) -> bool {
        self.next_game >= self.games
    }

    /// Each bot's credits (its score in this tournament), by bot index.
    pub fn credits(&self) -> Vec<i64> {
        self.players.iter().map(|p| p.credits).collect()
    }

    /// Starts the next game. The game draws from `dice` (for a run,
    /// [`game_dice`] of this game) and holds the tournament until it is
    /// finished or dropped; a dropped game changes nothing.
    pub fn start_game<D: Dice>(&mut self, dice: D) -> Game<'_, D> {
        Game::new(self, dice)
    }

    /// Plays the next game with a synchronous bot: `decide` answers every
    /// request. Useful for tests, benchmarks and in-process stubs.
    /// A `Cancelled` reply cannot be scored and counts as a timeout here.
    pub fn play_game<D: Dice>(
        &mut self,
        dice: D,
        mut decide: impl FnMut(&Request) -> Reply,
    ) -> GameReport {
        let mut game = self.start_game(dice);
        while let Some(request) = game.request() {
            let mut reply = decide(request);
            if reply.ending == game_core::Ending::Cancelled {
                reply.ending = game_core::Ending::TimedOut;
            }
            // The only refusals are "nothing pending" and "cancelled", both excluded here.
            if game.answer(&reply).is_err() {
                break;
            }
        }
        match game.finish() {
            Ok(report) => report,
            // Unreachable: the loop above ends only when nothing is pending.
            Err(_) => unreachable!("a game without pending requests is ready to finish"),
        }
    }

    /// The first decision that tournament `t` of a run with these
    /// settings asks of `bot`, every decision before it answered with a
    /// bet of 0 (which any bot may make): a state the run could really
    /// send it, for a check before the first game. `None` if the
    /// tournament never asks it anything.
    pub fn first_request(
        names: Vec<String>,
        settings: &Settings,
        master_seed: u64,
        t: u32,
        bot: usize,
    ) -> Result<Option<Request>, String> {
        let mut tournament = Tournament::for_run(names, settings, master_seed, t)?;
        while !tournament.is_finished() {
            let g = tournament.next_game();
            let mut game = tournament.start_game(game_dice(master_seed, t, g));
            while let Some(request) = game.request() {
                if request.bot == bot {
                    return Ok(Some(request.clone()));
                }
                if game.answer(&Reply::exited("0\n", 0)).is_err() {
                    return Ok(None);
                }
            }
            if game.finish().is_err() {
                return Ok(None);
            }
        }
        Ok(None)
    }

    pub(crate) fn credits_of(&self, seat: Seat) -> i64 {
        match seat {
            Seat::Bot(b) => self.players[b].credits,
            Seat::Rabble(r) => self.rabble[r],
        }
    }

    pub(crate) fn set_rabble_credits(&mut self, index: usize, credits: i64) {
        if let Some(slot) = self.rabble.get_mut(index) {
            *slot = credits;
        }
    }

    pub(crate) fn players_mut(&mut self) -> &mut [Player] {
        &mut self.players
    }

    pub(crate) fn finish_game(&mut self, leaderboard: Vec<usize>) {
        self.leaderboard = leaderboard;
        self.next_game += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_game_count_is_drawn_per_tournament() {
        let settings = Settings::default();
        let counts: Vec<u32> = (1..=40)
            .map(|t| games_in_tournament(&settings, 7, t))
            .collect();
        assert!(counts.iter().all(|c| DEFAULT_GAMES.contains(c)));
        // Fixed by (seed, t) alone, and not the same for every tournament.
        assert_eq!(counts[3], games_in_tournament(&settings, 7, 4));
        assert!(counts.iter().any(|&c| c != counts[0]));
        let fixed = Settings {
            games: Some(3),
            ..Settings::default()
        };
        assert_eq!(games_in_tournament(&fixed, 7, 1), 3);
    }

    #[test]
    fn game_streams_depend_on_seed_tournament_and_game() {
        use rand::RngExt;
        let draw = |seed, t, g| game_dice(seed, t, g).random::<u64>();
        assert_eq!(draw(1, 1, 0), draw(1, 1, 0));
        assert_ne!(draw(1, 1, 0), draw(1, 1, 1));
        assert_ne!(draw(1, 1, 0), draw(1, 2, 0));
        assert_ne!(draw(1, 1, 0), draw(2, 1, 0));
    }

    #[test]
    fn for_run_uses_the_settings() {
        let settings = Settings {
            games: Some(9),
            rabble: 12,
            ..Settings::default()
        };
        let t = Tournament::for_run(vec!["a".into()], &settings, 1, 1).expect("valid");
        assert_eq!((t.games(), t.rabble().len(), t.next_game()), (9, 12, 0));
        assert!(t.rabble().iter().all(|&c| c == START_CREDITS));
    }

    #[test]
    fn a_damaged_snapshot_is_refused() {
        let t = Tournament::new(vec!["a".into(), "b".into()], 3, 5).expect("valid");
        let mut json: serde_json::Value = serde_json::to_value(&t).expect("serialisable");
        json["leaderboard"] = serde_json::json!([0, 0]);
        assert!(serde_json::from_value::<Tournament>(json.clone()).is_err());
        json["leaderboard"] = serde_json::json!([1, 0]);
        let back: Tournament = serde_json::from_value(json).expect("valid again");
        assert_eq!(back.leaderboard(), &[1, 0]);
    }
}
