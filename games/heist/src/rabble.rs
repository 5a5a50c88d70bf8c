//! The rabble's fixed strategy (§5). Rabble never change their probabilities,
//! odds, job or accounts, so their whole state is their credits.

use crate::bank::BASE_PROB;

/// The only amounts a rabble player bets.
pub const RABBLE_AMOUNTS: [i64; 4] = [69, 420, 6969, 80085];

/// The largest rabble amount ≤ `credits`, or 0 below 69.
pub fn amount(credits: i64) -> i64 {
    RABBLE_AMOUNTS
        .iter()
        .rev()
        .copied()
        .find(|&a| a <= credits)
        .unwrap_or(0)
}

/// Round 1: bet iff the draw is below the chance at `running_bank`, the bank
/// the running totals select (`bank(heisters so far, invested so far)`).
pub fn bet(draw: f64, running_bank: usize, credits: i64) -> i64 {
    if draw < BASE_PROB[running_bank.min(BASE_PROB.len() - 1)] {
        amount(credits)
    } else {
        0
    }
}

/// Round 2: back out iff the draw is below 5 % + 50 % of the fraction of the
/// heisters already asked who backed out.
pub fn backs_out(draw: f64, asked: usize, backed_out: usize) -> bool {
    let fraction = if asked == 0 {
        0.0
    } else {
        backed_out as f64 / asked as f64
    };
    draw < 0.05 + 0.5 * fraction
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(amount(0), 0);
        assert_eq!(amount(68), 0);
        assert_eq!(amount(69), 69);
        assert_eq!(amount(500), 420);
        assert_eq!(amount(6969), 6969);
        assert_eq!(amount(80084), 6969);
        assert_eq!(amount(80085), 80085);
        assert_eq!(amount(i64::MAX), 80085);
    }

    #[test]
    fn bet_uses_the_running_bank() {
        // City: 0.488; Municipal: 0.54.
        assert_eq!(bet(0.5, 1, 500), 0);
        assert_eq!(bet(0.48, 1, 500), 420);
        assert_eq!(bet(0.5, 0, 500), 420);
        assert_eq!(bet(0.5, 0, 60), 0);
    }

    #[test]
    fn back_out_chance() {
        assert!(backs_out(0.049, 0, 0));
        assert!(!backs_out(0.05, 0, 0));
        assert!(backs_out(0.29, 2, 1));
        assert!(!backs_out(0.30, 2, 1));
    }
}
