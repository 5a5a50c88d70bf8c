//! Interface 1: one process per turn, the exit status is the move (section 3).
//!
//! The transport runs the bot's command with the fields below appended as
//! separate argv entries, empty stdin, in its own process group, and reports
//! a [`Reply`]. stdout is only logged; the exit status alone is the answer.

use game_core::{Ending, Fault, Reply};

use crate::action::{history_string, Action};
use crate::answer::Answer;
use crate::duel::{Duel, Side};

/// The `status` field while the duel is in progress.
pub const STATUS_IN_PROGRESS: u8 = 3;

/// The argv fields for asking `side` its move for the duel's next turn:
/// `<opponent-id> <turn> 3 <ammo> <ammo-opponent> [<history> <history-opponent>]`,
/// the histories omitted on turn 0.
pub fn turn_args(opponent_id: u32, duel: &Duel, side: Side) -> Vec<String> {
    fields(
        opponent_id,
        duel,
        side,
        STATUS_IN_PROGRESS,
        duel.turns_played() > 0,
    )
}

/// The argv fields of the extra call after the duel: status 0 draw, 1 won,
/// 2 lost, the final counts (negative for a gun that exploded) and both
/// histories always. `None` while the duel is still going on.
pub fn final_args(opponent_id: u32, duel: &Duel, side: Side) -> Option<Vec<String>> {
    let outcome = duel.outcome()?;
    Some(fields(
        opponent_id,
        duel,
        side,
        outcome.status_for(side),
        true,
    ))
}

fn fields(opponent_id: u32, duel: &Duel, side: Side, status: u8, histories: bool) -> Vec<String> {
    let ammo = duel.ammo();
    let mut args = vec![
        opponent_id.to_string(),
        duel.turns_played().to_string(),
        status.to_string(),
        ammo[side.index()].to_string(),
        ammo[side.other().index()].to_string(),
    ];
    if histories {
        args.push(history_string(duel.history(side)));
        args.push(history_string(duel.history(side.other())));
    }
    args
}

/// Reads the move from how the turn's process ended. Returns `None` when the
/// referee itself cancelled the run: that turn never happened, and a duel
/// containing it must not be recorded.
///
/// A stdout flood (`TooLong`) should not occur, since interface 1 never
/// interprets stdout and a transport only caps what it logs; if a transport
/// kills the process for it anyway, it counts as bad output.
pub fn read_exit_reply(reply: &Reply) -> Option<Answer> {
    let answer = match reply.ending {
        Ending::Exited(status) => match Action::from_exit_status(status) {
            Some(action) => Answer::action(action),
            None => Answer::no_action(Fault::BadOutput),
        },
        Ending::Signalled(_) | Ending::SpawnFailed => Answer::no_action(Fault::Crash),
        Ending::TimedOut => Answer::no_action(Fault::Timeout),
        Ending::TooLong => Answer::no_action(Fault::BadOutput),
        // No action (the gun explodes), like a program that cannot start.
        Ending::Sandbox => Answer::no_action(Fault::Sandbox),
        Ending::Cancelled => return None,
    };
    Some(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_failure_is_no_action_with_its_fault() {
        let cases = [
            (Ending::Exited(48), Some(Action::Load), None),
            (Ending::Exited(61), Some(Action::Thermal), None),
            (Ending::Exited(0), None, Some(Fault::BadOutput)),
            (Ending::Exited(1), None, Some(Fault::BadOutput)),
            (Ending::Exited(51), None, Some(Fault::BadOutput)),
            (Ending::Signalled(9), None, Some(Fault::Crash)),
            (Ending::SpawnFailed, None, Some(Fault::Crash)),
            (Ending::TimedOut, None, Some(Fault::Timeout)),
            (Ending::TooLong, None, Some(Fault::BadOutput)),
            (Ending::Sandbox, None, Some(Fault::Sandbox)),
        ];
        for (ending, action, fault) in cases {
            // stdout is never interpreted, even when it spells a move.
            let answer = read_exit_reply(&Reply::ended(b"1\n".to_vec(), ending));
            assert_eq!(answer, Some(Answer { action, fault }), "{ending:?}");
        }
        assert_eq!(
            read_exit_reply(&Reply::ended(Vec::new(), Ending::Cancelled)),
            None
        );
    }
}
