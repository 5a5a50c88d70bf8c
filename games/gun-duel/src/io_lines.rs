//! Interface 2: one process per tournament on stdin/stdout (section 4).
//!
//! The referee writes LF-terminated lines: `I<opponent-id>` at the start of
//! every duel, `F` to ask for a move, `P<c>` after every turn. The move is the
//! next non-whitespace byte on stdout after an `F`; [`frame_move`] is that
//! framing for the transport and [`read_line_reply`] what the result means.

use game_core::{Fault, LineReply};

use crate::action::{move_char, Action};
use crate::answer::Answer;
use crate::settings::MAX_WHITESPACE;

/// `I<opponent-id>\n`, sent at the start of every duel.
pub fn intro_line(opponent_id: u32) -> Vec<u8> {
    format!("I{opponent_id}\n").into_bytes()
}

/// The request for a move.
pub const ASK_LINE: &[u8] = b"F\n";

/// `P<c>\n`: the opponent's move, `?` when it produced none.
pub fn perceive_line(opponent_move: Option<Action>) -> Vec<u8> {
    let mut line = b"P".to_vec();
    let mut buf = [0u8; 4];
    line.extend_from_slice(move_char(opponent_move).encode_utf8(&mut buf).as_bytes());
    line.push(b'\n');
    line
}

/// The whitespace the framing skips: space, tab, CR, LF, VT, FF.
pub fn is_move_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

/// Where the move is in the bytes a bot has written since the last move
/// (bytes written before the `F` count: nothing is ever discarded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// The move is `buf[consumed - 1]`; the transport drops the first
    /// `consumed` bytes and keeps the rest for later moves, and reports
    /// `LineReply::Message(vec![buf[consumed - 1]])`.
    Move { consumed: usize },
    /// Only whitespace so far, no more than the allowance: keep reading.
    Incomplete,
    /// More than [`MAX_WHITESPACE`] whitespace bytes before any move: the
    /// transport drops `consumed` bytes (all whitespace) and reports
    /// `LineReply::TooLong`. The bot keeps running.
    TooMuchWhitespace { consumed: usize },
}

/// The framing of interface 2 as a pure function of the unconsumed bytes.
pub fn frame_move(buf: &[u8]) -> Frame {
    match buf.iter().position(|&b| !is_move_whitespace(b)) {
        Some(i) if i <= MAX_WHITESPACE => Frame::Move { consumed: i + 1 },
        None if buf.len() <= MAX_WHITESPACE => Frame::Incomplete,
        _ => Frame::TooMuchWhitespace {
            consumed: MAX_WHITESPACE + 1,
        },
    }
}

/// What the transport's report for one `F` means.
///
/// A message's first non-whitespace byte decides (with [`frame_move`] it is
/// the only byte); an empty message is bad output. `TimedOut` and `Closed`
/// also end the process for the rest of the tournament: see [`kills_bot`].
pub fn read_line_reply(reply: &LineReply) -> Answer {
    match reply {
        LineReply::Message(bytes) => {
            match bytes.iter().copied().find(|&b| !is_move_whitespace(b)) {
                Some(b) => {
                    Action::from_byte(b).map_or(Answer::no_action(Fault::BadOutput), Answer::action)
                }
                None => Answer::no_action(Fault::BadOutput),
            }
        }
        LineReply::TooLong => Answer::no_action(Fault::BadOutput),
        LineReply::TimedOut => Answer::no_action(Fault::Timeout),
        LineReply::Closed => Answer::no_action(Fault::Crash),
    }
}

/// Whether this report makes the bot dead for the rest of the tournament:
/// no move in time (its process group is killed) or stdout closed. A dead
/// bot is never restarted; every later move asked of it is [`Answer::DEAD`].
pub fn kills_bot(reply: &LineReply) -> bool {
    matches!(reply, LineReply::TimedOut | LineReply::Closed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_exact() {
        assert_eq!(intro_line(5), b"I5\n");
        assert_eq!(intro_line(0), b"I0\n");
        assert_eq!(perceive_line(Some(Action::Metal)), b"P-\n");
        assert_eq!(perceive_line(Some(Action::Thermal)), b"P=\n");
        assert_eq!(perceive_line(None), b"P?\n");
        assert_eq!(ASK_LINE, b"F\n");
    }

    #[test]
    fn framing_skips_whitespace_and_keeps_later_bytes() {
        assert_eq!(frame_move(b"0"), Frame::Move { consumed: 1 });
        assert_eq!(
            frame_move(b" \t\r\n\x0b\x0c=\n1\n"),
            Frame::Move { consumed: 7 }
        );
        // Two moves written at once: the second stays for the next `F`.
        let buf = b"01\n";
        assert_eq!(frame_move(buf), Frame::Move { consumed: 1 });
        assert_eq!(frame_move(&buf[1..]), Frame::Move { consumed: 1 });
        assert_eq!(frame_move(b"\n"), Frame::Incomplete);
        assert_eq!(frame_move(b""), Frame::Incomplete);
        // A non-move byte is still a frame: it is read as bad output.
        assert_eq!(frame_move(b"\nx0"), Frame::Move { consumed: 2 });
    }

    #[test]
    fn whitespace_allowance_is_4096_bytes() {
        let mut buf = vec![b' '; MAX_WHITESPACE];
        assert_eq!(frame_move(&buf), Frame::Incomplete);
        buf.push(b'1');
        assert_eq!(
            frame_move(&buf),
            Frame::Move {
                consumed: MAX_WHITESPACE + 1
            }
        );
        buf.insert(0, b'\n');
        assert_eq!(
            frame_move(&buf),
            Frame::TooMuchWhitespace {
                consumed: MAX_WHITESPACE + 1
            }
        );
        assert_eq!(
            frame_move(&vec![b'\n'; MAX_WHITESPACE + 1]),
            Frame::TooMuchWhitespace {
                consumed: MAX_WHITESPACE + 1
            }
        );
    }

    #[test]
    fn replies_map_to_moves_and_faults() {
        let msg = |b: &[u8]| read_line_reply(&LineReply::Message(b.to_vec()));
        assert_eq!(msg(b"2"), Answer::action(Action::Plasma));
        assert_eq!(msg(b"\r\n -"), Answer::action(Action::Metal));
        assert_eq!(msg(b"x"), Answer::no_action(Fault::BadOutput));
        assert_eq!(msg(b"?"), Answer::no_action(Fault::BadOutput));
        assert_eq!(msg(b""), Answer::no_action(Fault::BadOutput));
        assert_eq!(
            read_line_reply(&LineReply::TooLong),
            Answer::no_action(Fault::BadOutput)
        );
        assert_eq!(
            read_line_reply(&LineReply::TimedOut),
            Answer::no_action(Fault::Timeout)
        );
        assert_eq!(
            read_line_reply(&LineReply::Closed),
            Answer::no_action(Fault::Crash)
        );
        assert!(kills_bot(&LineReply::TimedOut) && kills_bot(&LineReply::Closed));
        assert!(!kills_bot(&LineReply::TooLong) && !kills_bot(&LineReply::Message(vec![b'x'])));
    }
}
