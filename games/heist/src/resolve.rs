//! Resolution, steps A to H of §4.4, over the players of one game.
//!
//! It works on copies (the participants' credits and the bots' states), so
//! the caller writes the tournament back only once the whole game is
//! settled. Rabble are only their credits: they never act, so their
//! probabilities, odds, job, paycheck and accounts never change (§5).

use crate::bank::{BANKS, BASE_ODDS, BASE_PROB};
use crate::dice::Dice;
use crate::money::{add, floor_product, saturate};
use crate::player::{Player, Seat, START_PAYCHECK};
use crate::sharing::{share, Member};
use crate::wire::Action;

/// The loan an all-in player takes against its next paycheck, whatever it is paid.
const ALL_IN_LOAN: i64 = 240;
/// Draws a fingerer makes.
const FINGER_DRAWS: usize = 8;
/// Chance that an unemployed player is hired at the end of a game.
const REHIRE_CHANCE: f64 = 0.05;
/// Odds gained per credit spent on intel.
const INTEL_PER_CREDIT: f64 = 0.00001;
/// Probability lost by an identified double-crosser.
const IDENTIFIED_PENALTY: f64 = 0.05;
/// Odds lost by a fingerer who found nobody.
const MISSED_FINGER_PENALTY: f64 = 0.05;

/// What one participant did in rounds 1 and 2.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stake {
    pub seat: Seat,
    pub bet: i64,
    /// The round-2 answer; `GoAlong` for players who did not bet.
    pub action: Action,
}

impl Stake {
    fn heister(&self) -> bool {
        self.bet > 0
    }
    fn stayed(&self) -> bool {
        self.heister() && self.action != Action::BackOut
    }
    fn all_in(&self) -> bool {
        self.stayed() && self.action == Action::AllIn
    }
    fn double_crossed(&self) -> bool {
        self.stayed() && self.action == Action::DoubleCross
    }
    fn went_along(&self) -> bool {
        self.stayed() && !matches!(self.action, Action::AllIn | Action::DoubleCross)
    }
    /// Back-outs and all-in players do not get this game's paycheck.
    fn forgoes_pay(&self) -> bool {
        self.heister() && matches!(self.action, Action::BackOut | Action::AllIn)
    }
}

/// How the heist went for one participant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// `None` if it did not stay in the heist.
    pub success: Option<bool>,
    /// W as it stands after step D (what the log shows).
    pub winnings: i64,
}

/// The participants of one game during resolution.
struct Table<'a> {
    stakes: &'a [Stake],
    /// Credits of each participant, in round-1 order.
    credits: &'a mut [i64],
    /// Every bot's state, by bot index (their `credits` field is not used here).
    bots: &'a mut [Player],
    bank: usize,
}

impl Table<'_> {
    fn bot(&mut self, i: usize) -> Option<&mut Player> {
        match self.stakes[i].seat {
            Seat::Bot(b) => self.bots.get_mut(b),
            Seat::Rabble(_) => None,
        }
    }
    fn prob(&self, i: usize) -> f64 {
        match self.stakes[i].seat {
            Seat::Bot(b) => self.bots[b].prob[self.bank],
            Seat::Rabble(_) => BASE_PROB[self.bank],
        }
    }
    fn odds(&self, i: usize) -> f64 {
        match self.stakes[i].seat {
            Seat::Bot(b) => self.bots[b].odds[self.bank],
            Seat::Rabble(_) => BASE_ODDS[self.bank],
        }
    }
    fn gain(&mut self, i: usize, amount: i64) {
        self.credits[i] = self.credits[i].saturating_add(amount);
    }
    fn gain_wide(&mut self, i: usize, amount: i128) {
        self.credits[i] = add(self.credits[i], amount);
    }
}

/// Settles a game at bank `bank`. `credits[i]` belongs to `stakes[i]`; the
/// bots' states are changed in place (except their credits, which the caller
/// takes from `credits`).
pub(crate) fn resolve<D: Dice>(
    stakes: &[Stake],
    credits: &mut [i64],
    bots: &mut [Player],
    bank: usize,
    dice: &mut D,
) -> Vec<Outcome> {
    let mut table = Table {
        stakes,
        credits,
        bots,
        bank: bank.min(BANKS - 1),
    };
    let b = table.bank;
    let heisters = stakes.iter().filter(|s| s.heister()).count();
    let stayed = stakes.iter().filter(|s| s.stayed()).count();
    let mut real_stayed: Vec<usize> = Vec::with_capacity(table.bots.len());
    let mut outcomes = vec![Outcome::default(); stakes.len()];
    let fraction = if heisters == 0 {
        0.0
    } else {
        stayed as f64 / heisters as f64
    };

    // Steps A to D touch each member of S on its own, so they run in one
    // pass, member by member in round-1 order (which fixes the draw order).
    for (i, stake) in stakes.iter().enumerate() {
        if !stake.stayed() {
            continue;
        }
        if stake.seat.is_bot() {
            real_stayed.push(i);
        }
        // A. Stakes are paid by everyone who stayed, except the all-in players.
        if !stake.all_in() {
            table.gain(i, -stake.bet);
        }
        // B. Each draws on its own, with the probability it had at the start
        // (step D below changes it only after the draw).
        let chance = if stake.all_in() {
            table.prob(i)
        } else {
            table.prob(i) * fraction
        };
        let succeeded = dice.heist(stake.seat) < chance;
        outcomes[i].success = Some(succeeded);
        if stake.all_in() {
            // C. All in: the stake is the holdings plus the loan; W stays 0.
            let loan_stake = i128::from(table.credits[i]) + i128::from(ALL_IN_LOAN);
            table.credits[i] = if succeeded {
                saturate((loan_stake + floor_product(table.odds(i), loan_stake)).max(0))
            } else {
                0
            };
            continue;
        }
        // D. Winnings and the personal actions of G and D.
        let mut winnings: i64 = if succeeded {
            let bet = i128::from(stake.bet);
            saturate((bet + floor_product(table.odds(i), bet)).max(0))
        } else {
            0
        };
        if let Some(player) = table.bot(i) {
            match stake.action {
                Action::AcquireIntel if succeeded => {
                    player.odds[b] += INTEL_PER_CREDIT * winnings as f64;
                    winnings = 0;
                }
                Action::Deposit if succeeded => {
                    player.accounts[b] = add(player.accounts[b], i128::from(winnings));
                    winnings = 0;
                }
                Action::Withdraw if succeeded => {
                    winnings = add(winnings, i128::from(player.accounts[b]));
                    player.accounts[b] = 0;
                }
                Action::BuyGuard => player.buy_guard(b),
                Action::ChangeJobs => player.employed = false,
                _ => {}
            }
        }
        outcomes[i].winnings = winnings;
    }

    // E. The double cross succeeds when there are few enough double-crossers.
    let crossers = stakes.iter().filter(|s| s.double_crossed()).count();
    let double_cross_succeeds = crossers >= 1 && crossers <= (real_stayed.len() / 10).max(1);

    // F. Successful fingerers, in round-1 order, hunt among the real members of S.
    let candidates: Vec<Seat> = real_stayed.iter().map(|&i| stakes[i].seat).collect();
    let mut identified = vec![false; stakes.len()];
    let mut missed = vec![false; stakes.len()];
    for (i, stake) in stakes.iter().enumerate() {
        let fingers = stake.went_along() && stake.action == Action::Finger;
        if !fingers || outcomes[i].success != Some(true) {
            continue;
        }
        let mut hit = false;
        for _ in 0..FINGER_DRAWS {
            let drawn = dice.finger(stake.seat, &candidates);
            let Some(&target) = real_stayed.get(drawn) else {
                continue;
            };
            if stakes[target].double_crossed() && !identified[target] {
                identified[target] = true;
                hit = true;
                let fee = table.credits[target].max(0) / 4;
                table.gain(target, -fee);
                table.gain(i, fee);
                if let Some(caught) = table.bot(target) {
                    caught.fire();
                    caught.prob[b] -= IDENTIFIED_PENALTY;
                }
            }
        }
        if !hit {
            missed[i] = true;
            if let Some(player) = table.bot(i) {
                player.cut();
                player.odds[b] -= MISSED_FINGER_PENALTY;
            }
        }
    }

    // G. Sharing among G and D.
    let mut members: Vec<usize> = Vec::with_capacity(stayed);
    members.extend((0..stakes.len()).filter(|&i| stakes[i].stayed() && !stakes[i].all_in()));
    let roles: Vec<Member> = members
        .iter()
        .map(|&i| {
            let winnings = outcomes[i].winnings;
            if stakes[i].double_crossed() {
                Member::DoubleCrosser {
                    winnings,
                    identified: identified[i],
                }
            } else {
                Member::Along {
                    winnings,
                    missed_finger: missed[i],
                }
            }
        })
        .collect();
    for (&i, gain) in members.iter().zip(share(&roles, double_cross_succeeds)) {
        table.gain_wide(i, gain);
        let foiled_crosser = !double_cross_succeeds && stakes[i].double_crossed();
        if foiled_crosser && !identified[i] {
            if let Some(player) = table.bot(i) {
                player.fire();
            }
        }
    }

    // H. Jobs, pay, bribes and interest for everyone in the game.
    for (i, stake) in stakes.iter().enumerate() {
        let Seat::Bot(bot) = stake.seat else {
            // Rabble are always employed at the starting paycheck.
            if !stake.forgoes_pay() {
                table.gain(i, START_PAYCHECK);
            }
            continue;
        };
        let player = &mut table.bots[bot];
        if !player.employed && dice.rehire(stake.seat) < REHIRE_CHANCE {
            player.employed = true;
            player.raise();
        }
        let mut credits = table.credits[i];
        if player.employed && !stake.forgoes_pay() {
            credits = add(credits, i128::from(player.paycheck));
        }
        table.credits[i] = pay_bribes(player, credits, stake.seat, dice);
        player.pay_interest();
    }

    outcomes
}

/// Step H.3: one credit per guard; guards that cannot be paid are lost at
/// random. Returns the credits after the bribes.
fn pay_bribes<D: Dice>(player: &mut Player, credits: i64, seat: Seat, dice: &mut D) -> i64 {
    let guards = player.guards.len();
    if guards == 0 {
        return credits;
    }
    let credits = add(credits, -(guards as i128));
    if credits >= 0 {
        return credits;
    }
    let lost = guards.min(usize::try_from(credits.unsigned_abs()).unwrap_or(usize::MAX));
    let mut picked = dice.lost_guards(seat, guards, lost);
    picked.retain(|&g| g < guards);
    picked.sort_unstable();
    picked.dedup();
    // Remove from the back so the earlier indexes stay valid.
    for &index in picked.iter().rev() {
        player.lose_guard(index);
    }
    0
}
