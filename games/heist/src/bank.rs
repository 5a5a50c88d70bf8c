//! The five banks (§3) and the rule that picks one.

/// Number of banks; every per-bank array has this length.
pub const BANKS: usize = 5;

/// Bank names, by index, as the post's table prints them.
pub const BANK_NAMES: [&str; BANKS] = ["Municipal", "City", "State", "National", "Federal Reserve"];

/// The selector value at which each bank becomes the target.
pub const THRESHOLDS: [i128; BANKS] = [0, 20, 40, 60, 80];

/// Every player's success probability at each bank before intel, guards or fingering.
pub const BASE_PROB: [f64; BANKS] = [0.540, 0.488, 0.425, 0.387, 0.324];

/// Every player's payout odds at each bank before intel or missed fingers.
pub const BASE_ODDS: [f64; BANKS] = [0.80, 1.10, 1.30, 1.65, 1.95];

/// Credits that count as one extra heister in the selector.
const CREDITS_PER_HEISTER: u64 = 100_000;
/// Thresholds are evenly spaced, so the bank index is selector / 20.
const HEISTERS_PER_BANK: u64 = 20;

/// bank(h, t) = min(4, floor((h + floor(t / 100000)) / 20)).
///
/// `invested` is i128 because it sums many players' bets, each up to i64::MAX.
/// A negative total cannot occur (bets are clamped to ≥ 0); it is treated as 0.
pub fn bank(heisters: usize, invested: i128) -> usize {
    // Every rabble player asks this once per game, so it stays in 64-bit
    // arithmetic: a total beyond u64 selects the top bank anyway.
    let extra = match u64::try_from(invested) {
        Ok(total) => total / CREDITS_PER_HEISTER,
        Err(_) if invested < 0 => 0,
        Err(_) => u64::MAX,
    };
    let selector = (heisters as u64).saturating_add(extra);
    (selector / HEISTERS_PER_BANK).min((BANKS - 1) as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        assert_eq!(bank(19, 99_999), 0);
        assert_eq!(bank(19, 100_000), 1);
        assert_eq!(bank(0, 2_000_000), 1);
        assert_eq!(bank(79, 100_000), 4);
        assert_eq!(bank(300, 0), 4);
    }

    #[test]
    fn huge_totals_stay_in_range() {
        assert_eq!(bank(usize::MAX, i128::MAX), 4);
        assert_eq!(bank(0, 0), 0);
        assert_eq!(bank(0, -5), 0);
        assert_eq!(bank(0, i128::from(u64::MAX) + 1), 4);
    }
}
