//! The bots' statistics every call of a game receives (§4.1), and the
//! leaderboard order they are taken in.

/// Rank, mean, MAD and max of the bots' credits at the end of the previous game.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// By bot index: 1 + the number of bots with strictly more credits.
    pub rank: Vec<usize>,
    pub mean: f64,
    /// Mean absolute deviation about the exact mean.
    pub mad: f64,
    pub max: i64,
}

impl Stats {
    /// Statistics of `credits` (by bot index); the deviations are summed in
    /// `leaderboard` order so the float result is the one the spec fixes.
    pub fn of(credits: &[i64], leaderboard: &[usize]) -> Stats {
        let n = credits.len();
        if n == 0 {
            return Stats {
                rank: Vec::new(),
                mean: 0.0,
                mad: 0.0,
                max: 0,
            };
        }
        let mut descending = credits.to_vec();
        descending.sort_unstable_by(|a, b| b.cmp(a));
        let rank = credits
            .iter()
            .map(|&c| 1 + descending.partition_point(|&other| other > c))
            .collect();
        let sum: i128 = credits.iter().map(|&c| i128::from(c)).sum();
        let mean = sum as f64 / n as f64;
        let deviation: f64 = leaderboard
            .iter()
            .filter_map(|&i| credits.get(i))
            .map(|&c| (c as f64 - mean).abs())
            .sum();
        Stats {
            rank,
            mean,
            mad: deviation / n as f64,
            max: descending[0],
        }
    }
}

/// The leaderboard after a game: bots by credits, highest first, ties in the
/// previous order (a stable sort of the previous order).
pub fn reorder(previous: &[usize], credits: &[i64]) -> Vec<usize> {
    let mut order = previous.to_vec();
    order.sort_by(|&a, &b| credits[b].cmp(&credits[a]));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t1_statistics_for_game_1() {
        let stats = Stats::of(&[560, 430, 480], &[0, 2, 1]);
        assert_eq!(stats.rank, vec![1, 3, 2]);
        assert_eq!(stats.mean, 490.0);
        assert_eq!(stats.mad, 140.0 / 3.0);
        assert_eq!(stats.max, 560);
    }

    #[test]
    fn ties_share_a_rank() {
        let stats = Stats::of(&[5, 9, 9, 1], &[1, 2, 0, 3]);
        assert_eq!(stats.rank, vec![3, 1, 1, 4]);
    }

    #[test]
    fn reorder_is_stable() {
        assert_eq!(reorder(&[2, 0, 1], &[5, 5, 5]), vec![2, 0, 1]);
        assert_eq!(reorder(&[2, 0, 1], &[5, 7, 5]), vec![1, 2, 0]);
    }
}
