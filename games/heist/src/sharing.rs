//! Step G of §4.4: who takes home which winnings once the double cross is
//! decided. A pure function of the members' winnings and roles, so the
//! rounding losses can be checked on their own.

use crate::money::mul_div;

/// A member of G (went along) or D (double-crossed), with its winnings W
/// after step D.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    Along { winnings: i64, missed_finger: bool },
    DoubleCrosser { winnings: i64, identified: bool },
}

impl Member {
    fn winnings(self) -> i128 {
        match self {
            Member::Along { winnings, .. } | Member::DoubleCrosser { winnings, .. } => {
                i128::from(winnings.max(0))
            }
        }
    }
}

/// The credits each member receives from the heist, in the members' order.
pub fn share(members: &[Member], double_cross_succeeds: bool) -> Vec<i128> {
    if double_cross_succeeds {
        stolen(members)
    } else {
        foiled(members)
    }
}

/// The double cross succeeded: the double-crossers split what G won; an
/// identified one keeps only its own W and its share returns to G in
/// proportion to what each member lost.
fn stolen(members: &[Member]) -> Vec<i128> {
    let pot: i128 = members
        .iter()
        .filter(|m| matches!(m, Member::Along { .. }))
        .map(|m| m.winnings())
        .sum();
    let crossers = members
        .iter()
        .filter(|m| matches!(m, Member::DoubleCrosser { .. }))
        .count() as i128;
    let identified = members
        .iter()
        .filter(|m| {
            matches!(
                m,
                Member::DoubleCrosser {
                    identified: true,
                    ..
                }
            )
        })
        .count() as i128;
    let each = if crossers == 0 { 0 } else { pot / crossers };
    let returned = identified * each;
    members
        .iter()
        .map(|&m| match m {
            Member::DoubleCrosser {
                identified: false, ..
            } => m.winnings() + each,
            Member::DoubleCrosser {
                identified: true, ..
            } => m.winnings(),
            Member::Along { .. } if pot > 0 => mul_div(returned, m.winnings(), pot),
            Member::Along { .. } => 0,
        })
        .collect()
}

/// No double cross, or too many: the double-crossers' winnings and half of
/// each missed fingerer's go into a pool shared equally over G.
fn foiled(members: &[Member]) -> Vec<i128> {
    let mut pool: i128 = 0;
    let mut along: i128 = 0;
    for &m in members {
        match m {
            Member::DoubleCrosser { .. } => pool += m.winnings(),
            Member::Along { missed_finger, .. } => {
                along += 1;
                if missed_finger {
                    pool += m.winnings() / 2;
                }
            }
        }
    }
    let each = if along == 0 { 0 } else { pool / along };
    members
        .iter()
        .map(|&m| match m {
            Member::DoubleCrosser { .. } => 0,
            Member::Along { missed_finger, .. } => {
                let own = m.winnings();
                let kept = if missed_finger { own - own / 2 } else { own };
                kept + each
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn along(winnings: i64) -> Member {
        Member::Along {
            winnings,
            missed_finger: false,
        }
    }

    #[test]
    fn t4_one_crosser_takes_everything() {
        let members = [
            along(180),
            along(90),
            Member::DoubleCrosser {
                winnings: 0,
                identified: false,
            },
        ];
        assert_eq!(share(&members, true), vec![0, 0, 270]);
    }

    #[test]
    fn t5_too_many_crossers_lose_to_the_pool() {
        let crosser = Member::DoubleCrosser {
            winnings: 180,
            identified: false,
        };
        let members = [crosser, crosser, along(180), along(0)];
        assert_eq!(share(&members, false), vec![0, 0, 360, 180]);
    }

    #[test]
    fn t7_missed_finger_pays_half_into_the_pool() {
        let members = [
            Member::Along {
                winnings: 180,
                missed_finger: true,
            },
            along(180),
            along(0),
        ];
        assert_eq!(share(&members, false), vec![120, 210, 30]);
    }

    #[test]
    fn identified_share_returns_in_proportion() {
        let members = [
            along(180),
            along(108),
            Member::DoubleCrosser {
                winnings: 72,
                identified: true,
            },
        ];
        assert_eq!(share(&members, true), vec![180, 108, 72]);
    }

    #[test]
    fn empty_pot_returns_nothing() {
        let members = [
            along(0),
            Member::DoubleCrosser {
                winnings: 50,
                identified: true,
            },
        ];
        assert_eq!(share(&members, true), vec![0, 50]);
    }

    #[test]
    fn pool_without_takers_is_lost() {
        let members = [Member::DoubleCrosser {
            winnings: 99,
            identified: false,
        }];
        assert_eq!(share(&members, false), vec![0]);
    }
}
