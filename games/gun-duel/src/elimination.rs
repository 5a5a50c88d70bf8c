//! Elimination at the end of a round, as the original code did it (5.4).

use crate::tournament::Standing;

/// Eliminates among the live bots of `bots`, whose `round_points` and
/// `total` (this round included) are final for the round.
///
/// The bots on the lowest round score with the lowest total among them
/// leave, several at once when they tie on both. If that would remove every
/// live bot, nobody leaves and they are the joint winners. Every live bot,
/// leavers included, appends its round points to its history; survivors
/// count one more round survived.
///
/// Returns the leavers and whether the live bots are joint winners.
pub fn eliminate(bots: &mut [Standing]) -> (Vec<usize>, bool) {
    let live: Vec<usize> = (0..bots.len()).filter(|&i| bots[i].alive).collect();
    let lowest_round = live.iter().map(|&i| bots[i].round_points).min();
    let lowest_total = live
        .iter()
        .filter(|&&i| Some(bots[i].round_points) == lowest_round)
        .map(|&i| bots[i].total)
        .min();
    let mut leavers: Vec<usize> = live
        .iter()
        .copied()
        .filter(|&i| {
            Some(bots[i].round_points) == lowest_round && Some(bots[i].total) == lowest_total
        })
        .collect();
    let joint_winners = !live.is_empty() && leavers.len() == live.len();
    if joint_winners {
        leavers.clear();
    }
    for &i in &live {
        let bot = &mut bots[i];
        bot.history.push(bot.round_points);
        if leavers.contains(&i) {
            bot.alive = false;
        } else {
            bot.rounds_survived += 1;
        }
    }
    (leavers, joint_winners)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(round_and_total: &[(u64, u64)]) -> Vec<Standing> {
        round_and_total
            .iter()
            .map(|&(round_points, total)| Standing {
                alive: true,
                round_points,
                total,
                history: Vec::new(),
                rounds_survived: 0,
            })
            .collect()
    }

    #[test]
    fn lowest_round_score_then_lowest_total_leaves() {
        // Spec example: A 10/30, B 5/20, C 5/22, D 7/25: B leaves.
        let mut bots = field(&[(10, 30), (5, 20), (5, 22), (7, 25)]);
        assert_eq!(eliminate(&mut bots), (vec![1], false));
        assert_eq!(
            bots.iter().map(|b| b.alive).collect::<Vec<_>>(),
            [true, false, true, true]
        );
        assert_eq!(
            bots.iter().map(|b| b.rounds_survived).collect::<Vec<_>>(),
            [1, 0, 1, 1]
        );
        assert!(bots.iter().all(|b| b.history == [b.round_points]));
    }

    #[test]
    fn ties_on_both_numbers_leave_together() {
        // Same with C's total at 20: B and C leave.
        let mut bots = field(&[(10, 30), (5, 20), (5, 20), (7, 25)]);
        assert_eq!(eliminate(&mut bots), (vec![1, 2], false));
    }

    #[test]
    fn everyone_tied_means_joint_winners() {
        // Two bots left, both 50/120: joint winners, both survive the round.
        let mut bots = field(&[(50, 120), (50, 120)]);
        assert_eq!(eliminate(&mut bots), (vec![], true));
        assert!(bots
            .iter()
            .all(|b| b.alive && b.rounds_survived == 1 && b.history == [50]));
    }

    #[test]
    fn bots_that_left_earlier_are_ignored() {
        let mut bots = field(&[(0, 1), (3, 9), (4, 9)]);
        bots[0].alive = false;
        assert_eq!(eliminate(&mut bots), (vec![1], false));
        assert!(bots[0].history.is_empty());
        assert_eq!(bots[2].rounds_survived, 1);
    }
}
