//! The wire codec: a position becomes the 12 arguments of a call, and what
//! the bot's process produced becomes a move or the reason the call failed.

use crate::rules::{Call, Game, Illegal, Mark, Move};
use game_core::{Ending, Fault, Reply};

/// More stdout than this is garbage.
pub const STDOUT_CAP: usize = 4096;

fn cell_char(c: Option<Mark>) -> char {
    c.map_or('-', Mark::letter)
}

/// The 12 arguments for the side to move: its letter, boards 0-8, the master
/// board and the last move (`xx` when there is none).
pub fn argv(game: &Game) -> Vec<String> {
    let mut args = Vec::with_capacity(12);
    args.push(game.to_move().letter().to_string());
    for b in 0..9u8 {
        args.push((0..9u8).map(|t| cell_char(game.cell(b, t))).collect());
    }
    args.push((0..9u8).map(|b| cell_char(game.board_owner(b))).collect());
    args.push(
        game.last_move()
            .map_or_else(|| "xx".to_string(), |m| m.to_string()),
    );
    args
}

/// ASCII whitespace as the spec lists it: space, tab, LF, CR, VT, FF.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// stdout with the spec's whitespace trimmed from both ends.
pub fn trimmed(stdout: &[u8]) -> &[u8] {
    let start = stdout
        .iter()
        .position(|&b| !is_space(b))
        .unwrap_or(stdout.len());
    let end = stdout
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(start, |i| i + 1);
    &stdout[start..end]
}

/// Reads a move from stdout bytes: the first two bytes after trimming must be
/// digits 0-8; anything after them is ignored.
pub fn parse_move(stdout: &[u8]) -> Option<Move> {
    if stdout.len() > STDOUT_CAP {
        return None;
    }
    match trimmed(stdout) {
        [b, t, ..] if (b'0'..=b'8').contains(b) && (b'0'..=b'8').contains(t) => {
            Move::new(b - b'0', t - b'0')
        }
        _ => None,
    }
}

/// Judges what a call's process produced. The exit status is ignored when
/// the output holds a move (a bot that prints `38` and exits 1 plays `38`);
/// without one, a non-zero status or a signal makes the call a crash rather
/// than garbage. A bot still running at the deadline has timed out even if
/// it printed a move.
pub fn read_reply(reply: &Reply) -> Call {
    match reply.ending {
        Ending::TimedOut | Ending::Cancelled => Call::Failed(Illegal::Timeout, Fault::Timeout),
        Ending::TooLong => Call::Failed(Illegal::Garbage, Fault::TooLong),
        Ending::SpawnFailed => Call::Failed(Illegal::Garbage, Fault::SpawnFailed),
        // Whatever it printed: the sandbox refused the call (spec §4: an
        // illegal call, like a crash).
        Ending::Sandbox => Call::Failed(Illegal::Sandbox, Fault::Sandbox),
        Ending::Exited(_) | Ending::Signalled(_) => match parse_move(&reply.stdout) {
            Some(mv) => Call::Move(mv),
            None if reply.stdout.len() > STDOUT_CAP => {
                Call::Failed(Illegal::Garbage, Fault::TooLong)
            }
            // A crash without a valid move (spec §4): killed by a signal,
            // or a non-zero exit status, which tells a crash (an exception,
            // a missing module) from a bot that printed nonsense and
            // exited normally.
            None => match reply.ending {
                Ending::Signalled(s) => Call::Failed(
                    Illegal::Crash {
                        code: None,
                        signal: Some(s),
                    },
                    Fault::Crash,
                ),
                Ending::Exited(c) if c != 0 => Call::Failed(
                    Illegal::Crash {
                        code: Some(c),
                        signal: None,
                    },
                    Fault::Crash,
                ),
                _ => Call::Failed(Illegal::Garbage, Fault::BadOutput),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_call(stdout: &[u8]) -> Call {
        read_reply(&Reply::exited(stdout.to_vec(), 0))
    }

    #[test]
    fn v2_legal_outputs_play_38() {
        let mut big = b"38".to_vec();
        big.extend(std::iter::repeat_n(b' ', 10));
        for out in [
            &b"38"[..],
            b"38\n",
            b" 38 \r\n",
            b"\t38",
            b"38 please",
            b"384",
            b"38\xff",
            &big,
        ] {
            assert_eq!(
                first_call(out),
                Call::Move(Move { board: 3, tile: 8 }),
                "{out:?}"
            );
        }
        assert_eq!(first_call(b"88"), Call::Move(Move { board: 8, tile: 8 }));
    }

    #[test]
    fn v2_illegal_outputs_are_garbage() {
        for out in [
            &b"3 8"[..],
            b"9",
            b"",
            b"\n\n",
            b"0",
            b"99",
            b"-1",
            b"x8",
            b"\xff38",
        ] {
            assert_eq!(
                first_call(out),
                Call::Failed(Illegal::Garbage, Fault::BadOutput),
                "{out:?}"
            );
        }
    }

    #[test]
    fn v2_oversize_timeout_and_signal_are_illegal() {
        let mut flood = b"38".to_vec();
        flood.extend(std::iter::repeat_n(b' ', 5000));
        assert_eq!(
            first_call(&flood),
            Call::Failed(Illegal::Garbage, Fault::TooLong)
        );
        assert_eq!(
            read_reply(&Reply::ended(b"38".to_vec(), Ending::TooLong)),
            Call::Failed(Illegal::Garbage, Fault::TooLong)
        );
        assert_eq!(
            read_reply(&Reply::ended(b"38".to_vec(), Ending::TimedOut)),
            Call::Failed(Illegal::Timeout, Fault::Timeout)
        );
        let killed = Call::Failed(
            Illegal::Crash {
                code: None,
                signal: Some(9),
            },
            Fault::Crash,
        );
        assert_eq!(
            read_reply(&Reply::ended(Vec::new(), Ending::Signalled(9))),
            killed
        );
        assert_eq!(killed_reason(&killed), "crash: killed by signal 9");
        // A sandbox denial is illegal even after a valid move: the folder
        // over its limits is found once the bot has answered.
        assert_eq!(
            read_reply(&Reply::ended(b"38".to_vec(), Ending::Sandbox)),
            Call::Failed(Illegal::Sandbox, Fault::Sandbox)
        );
        assert_eq!(Illegal::Sandbox.to_string(), "sandbox denial");
        // A crash after a valid move still plays the move: only output counts.
        assert_eq!(
            read_reply(&Reply::ended(b"38".to_vec(), Ending::Signalled(11))),
            Call::Move(Move { board: 3, tile: 8 })
        );
        assert_eq!(
            read_reply(&Reply::exited(b"38".to_vec(), 1)),
            Call::Move(Move { board: 3, tile: 8 })
        );
    }

    fn killed_reason(call: &Call) -> String {
        match call {
            Call::Failed(reason, _) => reason.to_string(),
            Call::Move(mv) => format!("move {mv}"),
        }
    }

    #[test]
    fn a_non_zero_exit_without_a_move_is_a_crash_with_its_status() {
        // A JVM or Python that dies of an exception prints nothing on stdout
        // and exits 1: a crash, not garbage output.
        for out in [&b""[..], b"\n", b"Traceback"] {
            let call = read_reply(&Reply::exited(out.to_vec(), 1));
            assert_eq!(
                call,
                Call::Failed(
                    Illegal::Crash {
                        code: Some(1),
                        signal: None
                    },
                    Fault::Crash
                ),
                "{out:?}"
            );
            assert_eq!(killed_reason(&call), "crash: exit status 1");
        }
        // Exit status 0 with nothing valid is still garbage output.
        assert_eq!(
            read_reply(&Reply::exited(Vec::new(), 0)),
            Call::Failed(Illegal::Garbage, Fault::BadOutput)
        );
        // Oversized output stays too_long whatever the status.
        let flood = vec![b'x'; STDOUT_CAP + 1];
        assert_eq!(
            read_reply(&Reply::exited(flood, 3)),
            Call::Failed(Illegal::Garbage, Fault::TooLong)
        );
    }
}
