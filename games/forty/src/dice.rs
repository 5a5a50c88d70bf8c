//! Where a game's dice come from: the referee's seeded generator, or a fixed
//! list (`referee play --dice`) that falls back to the generator once it runs
//! out.
//!
//! The sampling is written out here rather than taken from `rand`'s range
//! helpers so that the dice of a seed stay the same across `rand` releases:
//! the database records [`DICE_ALGORITHM`] and a resume must replay the same
//! dice.

use game_core::GameRng;
use rand::Rng;

/// Names the seat-draw and dice algorithm of this release; stored with a
/// tournament so that a resume under a different algorithm is refused.
pub const DICE_ALGORITHM: &str =
    "forty-1: ChaCha8Rng seeded by game_core::seed::game_seed(seed, \"forty/game/G\"); \
seats by partial Fisher-Yates; uniform draws by u32 rejection sampling";

/// Upper bound on the length of a `--dice` list once `v*n` items are
/// expanded, so that a typo such as `6*9999999999` is an error, not an
/// allocation failure.
pub const MAX_DICE_LIST: usize = 1_000_000;

/// A uniform draw from `0..n` by rejection sampling on 32-bit words: words in
/// the incomplete top bucket are redrawn so that every value is equally
/// likely. `n` must be at least 1.
pub fn uniform_below(rng: &mut GameRng, n: u32) -> u32 {
    let n = n.max(1);
    let span = 1u64 << 32;
    // The largest multiple of n that fits in 2^32: words at or above it
    // would favour the small residues.
    let limit = span - span % u64::from(n);
    loop {
        let word = rng.next_u32();
        if u64::from(word) < limit {
            return word % n;
        }
    }
}

/// One unbiased die, 1..=6.
pub fn roll_die(rng: &mut GameRng) -> u8 {
    // uniform_below(_, 6) is below 6, so the cast cannot truncate.
    uniform_below(rng, 6) as u8 + 1
}

/// The dice of one game.
#[derive(Debug, Clone)]
pub enum Dice {
    /// Every die from the game's generator (tournament games).
    Seeded(GameRng),
    /// The listed dice first, then the generator.
    Scripted(ScriptedDice),
}

/// A fixed list of dice followed by a generator.
#[derive(Debug, Clone)]
pub struct ScriptedDice {
    list: Vec<u8>,
    next: usize,
    rng: GameRng,
    /// Set when the first die past the list is drawn, taken by the game to
    /// report it once.
    exhausted_news: bool,
}

impl Dice {
    pub fn seeded(rng: GameRng) -> Self {
        Dice::Seeded(rng)
    }

    /// The dice of `list` (each 1..=6), then dice from `rng`.
    pub fn scripted(list: Vec<u8>, rng: GameRng) -> Self {
        Dice::Scripted(ScriptedDice {
            list,
            next: 0,
            rng,
            exhausted_news: false,
        })
    }

    /// The next die, 1..=6.
    pub fn roll(&mut self) -> u8 {
        match self {
            Dice::Seeded(rng) => roll_die(rng),
            Dice::Scripted(s) => match s.list.get(s.next) {
                Some(&die) => {
                    s.next += 1;
                    die
                }
                None => {
                    if s.next == s.list.len() {
                        // First die past the list: report it once.
                        s.next += 1;
                        s.exhausted_news = true;
                    }
                    roll_die(&mut s.rng)
                }
            },
        }
    }

    /// `Some(length of the list)` exactly once, right after the first die
    /// drawn past a scripted list.
    pub fn take_exhausted(&mut self) -> Option<usize> {
        match self {
            Dice::Scripted(s) if s.exhausted_news => {
                s.exhausted_news = false;
                Some(s.list.len())
            }
            _ => None,
        }
    }

    /// How many listed dice were used so far (0 for seeded dice).
    pub fn listed_used(&self) -> usize {
        match self {
            Dice::Seeded(_) => 0,
            Dice::Scripted(s) => s.next.min(s.list.len()),
        }
    }
}

/// Parses a `--dice` list: comma-separated dice, where `v*n` repeats `v`
/// `n` times. Spaces around items are ignored.
pub fn parse_dice_list(text: &str) -> Result<Vec<u8>, String> {
    let mut dice = Vec::new();
    if text.trim().is_empty() {
        return Err("the dice list is empty".to_string());
    }
    for item in text.split(',') {
        let item = item.trim();
        let (value, count) = match item.split_once('*') {
            Some((v, n)) => (v.trim(), n.trim()),
            None => (item, "1"),
        };
        let die = match value.parse::<u8>() {
            Ok(d @ 1..=6) => d,
            _ => return Err(format!("`{item}` in the dice list: a die must be 1 to 6")),
        };
        let count = match count.parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(format!(
                    "`{item}` in the dice list: a repeat count must be a whole number of at least 1"
                ))
            }
        };
        if count > MAX_DICE_LIST - dice.len() {
            return Err(format!("the dice list is longer than {MAX_DICE_LIST} dice"));
        }
        dice.resize(dice.len() + count, die);
    }
    Ok(dice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_core::rng;

    #[test]
    fn dice_list_expands_repeats() {
        assert_eq!(parse_dice_list("4,5,3").unwrap(), vec![4, 5, 3]);
        assert_eq!(
            parse_dice_list("1*3, 6 , 2*2").unwrap(),
            vec![1, 1, 1, 6, 2, 2]
        );
    }

    #[test]
    fn dice_list_rejects_bad_items() {
        for bad in [
            "",
            "0",
            "7",
            "1,,2",
            "x",
            "3*0",
            "3*",
            "*2",
            "6*-1",
            "2*1000001",
        ] {
            assert!(parse_dice_list(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn scripted_dice_fall_back_to_the_generator_and_say_so_once() {
        let mut dice = Dice::scripted(vec![2, 3], rng(9));
        assert_eq!(dice.roll(), 2);
        assert_eq!(dice.take_exhausted(), None);
        assert_eq!(dice.roll(), 3);
        assert_eq!(dice.take_exhausted(), None);
        let mut reference = rng(9);
        assert_eq!(dice.roll(), roll_die(&mut reference));
        assert_eq!(dice.take_exhausted(), Some(2));
        assert_eq!(dice.roll(), roll_die(&mut reference));
        assert_eq!(dice.take_exhausted(), None);
        assert_eq!(dice.listed_used(), 2);
    }

    #[test]
    fn dice_are_uniform_for_a_fixed_seed() {
        // Fixed seed, so the test is deterministic; the bound is about 6
        // standard deviations of a face count.
        let mut g = rng(12345);
        let mut counts = [0u32; 7];
        for _ in 0..60_000 {
            counts[usize::from(roll_die(&mut g))] += 1;
        }
        assert_eq!(counts[0], 0);
        for (face, &count) in counts.iter().enumerate().skip(1) {
            assert!((9_450..=10_550).contains(&count), "face {face}: {count}");
        }
    }

    #[test]
    fn uniform_below_stays_in_range() {
        let mut g = rng(3);
        for n in [1u32, 2, 3, 7, 49, 1 << 31, u32::MAX] {
            for _ in 0..200 {
                assert!(uniform_below(&mut g, n) < n);
            }
        }
    }
}
