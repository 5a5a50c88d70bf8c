//! The bot protocol of section 4: the lines the referee writes, and what a
//! bot's reply line means.
//!
//! Encoders append to a caller's buffer so that a batch of many lines for
//! one process is built without an allocation per line. Decoders take the
//! [`LineReply`] the persistent transport reported for one ask.
//!
//! A reply is `G D` or `G D MICROS`: the game id, the decision (`1`, `0`,
//! `e`) and, optionally, the time the bot's own code took for this ask in
//! whole microseconds. The referee charges a batch's measured time and uses
//! the reported times only to share it among the batch's asks (see
//! [`crate::pipeline`]).

use std::time::Duration;

use game_core::LineReply;

use crate::decision::{Decision, Failure};

/// Protocol version sent in the handshake.
pub const PROTOCOL_VERSION: u32 = 1;

/// A reply line longer than this (without its LF) puts the process out of
/// step.
pub const MAX_LINE_BYTES: usize = 4096;

/// Appends the decimal digits of `n`.
pub fn write_u64(out: &mut Vec<u8>, n: u64) {
    // Scores, seats and dice are one or two digits: push those directly
    // rather than copying a slice (a call into memcpy for two bytes).
    if n < 10 {
        out.push(b'0' + n as u8);
    } else if n < 100 {
        out.push(b'0' + (n / 10) as u8);
        out.push(b'0' + (n % 10) as u8);
    } else {
        write_long(out, n);
    }
}

fn write_long(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// `forty 1 SEED`: the first line a process receives.
pub fn write_hello(out: &mut Vec<u8>, seed: u64) {
    out.extend_from_slice(b"forty ");
    write_u64(out, u64::from(PROTOCOL_VERSION));
    out.push(b' ');
    write_u64(out, seed);
    out.push(b'\n');
}

/// `new G SEAT END`: create an instance for game `game` at `seat`.
pub fn write_new(out: &mut Vec<u8>, game: u64, seat: usize, end_score: u32) {
    out.extend_from_slice(b"new ");
    write_u64(out, game);
    out.push(b' ');
    write_u64(out, seat as u64);
    out.push(b' ');
    write_u64(out, u64::from(end_score));
    out.push(b'\n');
}

/// `ask G L THROWS SCORES`: one decision.
pub fn write_ask(out: &mut Vec<u8>, game: u64, last_round: bool, throws: &[u8], scores: &[u32]) {
    // One reservation for the whole line: game id, dice and scores at their
    // longest.
    out.reserve(32 + 2 * throws.len() + 11 * scores.len());
    out.extend_from_slice(b"ask ");
    write_u64(out, game);
    out.extend_from_slice(if last_round { b" 1 " } else { b" 0 " });
    if let Some((&first, rest)) = throws.split_first() {
        out.push(b'0' + first);
        for &die in rest {
            out.push(b',');
            out.push(b'0' + die);
        }
    }
    out.push(b' ');
    if let Some((&first, rest)) = scores.split_first() {
        write_u64(out, u64::from(first));
        for &score in rest {
            out.push(b',');
            write_u64(out, u64::from(score));
        }
    }
    out.push(b'\n');
}

/// `end G`: game `game` is over; the bot drops its instance.
pub fn write_end(out: &mut Vec<u8>, game: u64) {
    out.extend_from_slice(b"end ");
    write_u64(out, game);
    out.push(b'\n');
}

/// Why a process must be killed as out of step (a crash).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutOfStep {
    /// The reply's first field is not the id of the ask it pairs with.
    UnexpectedId,
    /// A line arrived while no ask was outstanding.
    NoAskOutstanding,
    /// A line longer than [`MAX_LINE_BYTES`].
    LineTooLong,
}

impl OutOfStep {
    pub fn describe(self) -> &'static str {
        match self {
            OutOfStep::UnexpectedId => "out of step: reply with an unexpected game id",
            OutOfStep::NoAskOutstanding => "out of step: a line with no ask outstanding",
            OutOfStep::LineTooLong => "out of step: a line over 4096 bytes",
        }
    }
}

/// What the reply means for the process that sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessFate {
    /// It goes on serving its games.
    Healthy,
    /// It must be killed (a crash): every other outstanding ask of it is
    /// then answered [`Failure::Crash`].
    Kill(OutOfStep),
    /// It is already gone (exited or closed stdout): a crash.
    Dead,
}

/// A reply judged: the decision to feed to the game, and what becomes of
/// the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub decision: Decision,
    pub fate: ProcessFate,
}

/// What the transport reported for the ask of game `game` means.
///
/// A [`LineReply::TimedOut`] ask stays paired: its late line must still be
/// read in order and checked with [`judge_late`], and the process is killed
/// if it comes more than `kill-ms` late.
pub fn judge(reply: &LineReply, game: u64) -> Verdict {
    let healthy = |decision| Verdict {
        decision,
        fate: ProcessFate::Healthy,
    };
    let crash = |fate| Verdict {
        decision: Decision::Failed(Failure::Crash),
        fate,
    };
    match reply {
        LineReply::Message(line) => match parse_reply(line, game) {
            Ok(decision) => healthy(decision),
            Err(out_of_step) => crash(ProcessFate::Kill(out_of_step)),
        },
        LineReply::TimedOut => healthy(Decision::Failed(Failure::Timeout)),
        LineReply::TooLong => crash(ProcessFate::Kill(OutOfStep::LineTooLong)),
        LineReply::Closed => crash(ProcessFate::Dead),
    }
}

/// The late line of an ask that already timed out: its content is
/// discarded, but it must still carry the ask's id.
pub fn judge_late(reply: &LineReply, game: u64) -> ProcessFate {
    match reply {
        LineReply::Message(line) => match parse_reply(line, game) {
            Ok(_) => ProcessFate::Healthy,
            Err(out_of_step) => ProcessFate::Kill(out_of_step),
        },
        // Still nothing: the caller's kill-ms rule applies.
        LineReply::TimedOut => ProcessFate::Healthy,
        LineReply::TooLong => ProcessFate::Kill(OutOfStep::LineTooLong),
        LineReply::Closed => ProcessFate::Dead,
    }
}

/// A reply line to an ask, read: the decision and the time the bot
/// reported for it, if it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub decision: Decision,
    /// The optional third field: the bot's own time for this ask.
    pub reported: Option<Duration>,
}

/// Parses one reply line (without its LF) to the ask of game `game`.
///
/// The id is compared by value; what follows must be ` 1`, ` 0` or ` e`,
/// optionally followed by one space and a decimal number of microseconds
/// (below 2^64). Anything else after a matching id is malformed (and
/// reports no time). A trailing CR is tolerated.
pub fn parse_answer(line: &[u8], game: u64) -> Result<Answer, OutOfStep> {
    if line.len() > MAX_LINE_BYTES {
        return Err(OutOfStep::LineTooLong);
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let id_len = line.iter().position(|&b| b == b' ').unwrap_or(line.len());
    let (id, rest) = line.split_at(id_len);
    if parse_id(id) != Some(game) {
        return Err(OutOfStep::UnexpectedId);
    }
    let malformed = Answer {
        decision: Decision::Failed(Failure::Malformed),
        reported: None,
    };
    let (decision, time) = match rest {
        [b' ', b'1', time @ ..] => (Decision::Throw, time),
        [b' ', b'0', time @ ..] => (Decision::Stop, time),
        [b' ', b'e', time @ ..] => (Decision::Failed(Failure::Error), time),
        _ => return Ok(malformed),
    };
    let reported = match time {
        [] => None,
        [b' ', micros @ ..] => match parse_id(micros) {
            Some(us) => Some(Duration::from_micros(us)),
            None => return Ok(malformed),
        },
        _ => return Ok(malformed),
    };
    Ok(Answer { decision, reported })
}

/// The decision of one reply line (see [`parse_answer`]).
pub fn parse_reply(line: &[u8], game: u64) -> Result<Decision, OutOfStep> {
    parse_answer(line, game).map(|a| a.decision)
}

/// A decimal number (ASCII digits only, below 2^64): a game id, or a
/// reported time.
fn parse_id(text: &[u8]) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    text.iter().try_fold(0u64, |acc, &b| {
        if b.is_ascii_digit() {
            acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        } else {
            None
        }
    })
}

/// Why a handshake failed (a crash at start-up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandshakeError {
    /// No `ok` line before `startup-ms`.
    TimedOut,
    /// The process exited or closed stdout first.
    Closed,
    /// A line over [`MAX_LINE_BYTES`].
    TooLong,
    /// A line other than `ok` or `ok NAME`.
    Unexpected(String),
}

impl std::fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HandshakeError::TimedOut => f.write_str("no handshake reply within startup-ms"),
            HandshakeError::Closed => f.write_str("the process ended before its handshake reply"),
            HandshakeError::TooLong => f.write_str("handshake reply over 4096 bytes"),
            HandshakeError::Unexpected(line) => {
                write!(f, "handshake reply is not `ok` or `ok NAME`: {line:?}")
            }
        }
    }
}

impl std::error::Error for HandshakeError {}

/// The handshake reply: `Ok(Some(name))` for `ok NAME`, `Ok(None)` for a
/// bare `ok`. NAME is one word of printable ASCII.
pub fn judge_handshake(reply: &LineReply) -> Result<Option<String>, HandshakeError> {
    let line = match reply {
        LineReply::Message(line) => line,
        LineReply::TimedOut => return Err(HandshakeError::TimedOut),
        LineReply::Closed => return Err(HandshakeError::Closed),
        LineReply::TooLong => return Err(HandshakeError::TooLong),
    };
    let unexpected = || HandshakeError::Unexpected(String::from_utf8_lossy(line).into_owned());
    if line.len() > MAX_LINE_BYTES {
        return Err(HandshakeError::TooLong);
    }
    let text = line.strip_suffix(b"\r").unwrap_or(line);
    if text == b"ok" {
        return Ok(None);
    }
    let name = text.strip_prefix(b"ok ").ok_or_else(unexpected)?;
    if name.is_empty() || !name.iter().all(|b| b.is_ascii_graphic()) {
        return Err(unexpected());
    }
    // All bytes are ASCII graphic characters, so this is valid UTF-8.
    Ok(Some(String::from_utf8_lossy(name).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        f(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn lines_match_the_spec_example() {
        assert_eq!(text(|o| write_hello(o, 8061924)), "forty 1 8061924\n");
        assert_eq!(text(|o| write_new(o, 5, 2, 40)), "new 5 2 40\n");
        assert_eq!(
            text(|o| write_ask(o, 0, false, &[4], &[0, 0, 0])),
            "ask 0 0 4 0,0,0\n"
        );
        assert_eq!(
            text(|o| write_ask(o, 5, false, &[1], &[12, 0, 7])),
            "ask 5 0 1 12,0,7\n"
        );
        assert_eq!(
            text(|o| write_ask(o, 0, true, &[4, 5, 3], &[0, 41, 3])),
            "ask 0 1 4,5,3 0,41,3\n"
        );
        assert_eq!(text(|o| write_end(o, 0)), "end 0\n");
    }

    #[test]
    fn ask_lines_match_plain_formatting() {
        let cases: [(u64, bool, &[u8], &[u32]); 4] = [
            (0, false, &[5], &[0]),
            (9, true, &[1, 2, 3, 4, 5], &[9, 10, 99, 100, 4_294_967_295]),
            (1_234_567, false, &[3, 3], &[40, 0, 126, 7, 7, 7, 7, 7]),
            ((1 << 63) - 1, true, &[2], &[1000, 39]),
        ];
        for (game, last, throws, scores) in cases {
            let join = |v: Vec<String>| v.join(",");
            let expected = format!(
                "ask {game} {} {} {}\n",
                u8::from(last),
                join(throws.iter().map(|d| d.to_string()).collect()),
                join(scores.iter().map(|s| s.to_string()).collect()),
            );
            assert_eq!(text(|o| write_ask(o, game, last, throws, scores)), expected);
        }
    }

    #[test]
    fn numbers_are_plain_decimal() {
        for n in [0u64, 7, 9, 10, 42, 99, 100, 1000, u64::MAX, (1 << 63) - 1] {
            assert_eq!(text(|o| write_u64(o, n)), n.to_string());
        }
    }

    #[test]
    fn replies_parse_to_decisions() {
        assert_eq!(parse_reply(b"0 1", 0), Ok(Decision::Throw));
        assert_eq!(parse_reply(b"5 0", 5), Ok(Decision::Stop));
        assert_eq!(
            parse_reply(b"12 e", 12),
            Ok(Decision::Failed(Failure::Error))
        );
        assert_eq!(
            parse_reply(b"12 e\r", 12),
            Ok(Decision::Failed(Failure::Error))
        );
        assert_eq!(parse_reply(b"007 1", 7), Ok(Decision::Throw));
    }

    #[test]
    fn a_reply_may_report_its_time_in_microseconds() {
        let answer = |line: &[u8]| parse_answer(line, 4);
        let us = |n| Some(Duration::from_micros(n));
        assert_eq!(
            answer(b"4 1 2150"),
            Ok(Answer {
                decision: Decision::Throw,
                reported: us(2150)
            })
        );
        assert_eq!(
            answer(b"4 0 0"),
            Ok(Answer {
                decision: Decision::Stop,
                reported: us(0)
            })
        );
        assert_eq!(
            answer(b"4 e 17\r"),
            Ok(Answer {
                decision: Decision::Failed(Failure::Error),
                reported: us(17)
            })
        );
        assert_eq!(answer(b"4 1 0007").map(|a| a.reported), Ok(us(7)));
        assert_eq!(
            answer(b"4 1 18446744073709551615").map(|a| a.reported),
            Ok(us(u64::MAX))
        );
        // Without the field: no report.
        assert_eq!(
            answer(b"4 1"),
            Ok(Answer {
                decision: Decision::Throw,
                reported: None
            })
        );
        // The id still comes first: a wrong id is out of step, whatever
        // follows.
        assert_eq!(answer(b"5 1 100"), Err(OutOfStep::UnexpectedId));
        // A malformed reply reports nothing.
        assert_eq!(
            answer(b"4 1 abc"),
            Ok(Answer {
                decision: Decision::Failed(Failure::Malformed),
                reported: None
            })
        );
        assert_eq!(parse_reply(b"4 1 2150", 4), Ok(Decision::Throw));
    }

    #[test]
    fn right_id_with_bad_content_is_malformed() {
        let malformed = Ok(Decision::Failed(Failure::Malformed));
        for line in [
            &b"0 maybe"[..],
            b"0",
            b"0 ",
            b"0 1 ",
            b"0 1  5",
            b"0 1 5 ",
            b"0 1 -5",
            b"0 1 +5",
            b"0 1 1.5",
            b"0 1 5 6",
            b"0 1 x",
            b"0 1 18446744073709551616",
            b"0 1\t5",
            b"0 15",
            b"0  1",
            b"0 True",
            b"0 E",
            b"0 \xff",
            b"0 1\r\r",
        ] {
            assert_eq!(parse_reply(line, 0), malformed, "{line:?}");
        }
    }

    #[test]
    fn wrong_or_missing_id_is_out_of_step() {
        let oos = Err(OutOfStep::UnexpectedId);
        for line in [
            &b"1 1"[..],
            b"",
            b" 0 1",
            b"x 1",
            b"0\t1",
            b"+0 1",
            b"\xff 1",
            b"99999999999999999999999 1",
        ] {
            assert_eq!(parse_reply(line, 0), oos, "{line:?}");
        }
        let long = vec![b'0'; MAX_LINE_BYTES + 1];
        assert_eq!(parse_reply(&long, 0), Err(OutOfStep::LineTooLong));
        let mut edge = b"0 ".to_vec();
        edge.resize(MAX_LINE_BYTES, b'x');
        assert_eq!(
            parse_reply(&edge, 0),
            Ok(Decision::Failed(Failure::Malformed))
        );
    }

    #[test]
    fn transport_outcomes_map_to_failures_and_fates() {
        let v = judge(&LineReply::Message(b"3 1".to_vec()), 3);
        assert_eq!(v.decision, Decision::Throw);
        assert_eq!(v.fate, ProcessFate::Healthy);
        let v = judge(&LineReply::Message(b"0 maybe".to_vec()), 0);
        assert_eq!(v.decision, Decision::Failed(Failure::Malformed));
        assert_eq!(v.fate, ProcessFate::Healthy);
        let v = judge(&LineReply::Message(b"4 1".to_vec()), 3);
        assert_eq!(v.decision, Decision::Failed(Failure::Crash));
        assert_eq!(v.fate, ProcessFate::Kill(OutOfStep::UnexpectedId));
        let v = judge(&LineReply::TimedOut, 3);
        assert_eq!(v.decision, Decision::Failed(Failure::Timeout));
        assert_eq!(v.fate, ProcessFate::Healthy);
        let v = judge(&LineReply::TooLong, 3);
        assert_eq!(v.decision, Decision::Failed(Failure::Crash));
        assert_eq!(v.fate, ProcessFate::Kill(OutOfStep::LineTooLong));
        let v = judge(&LineReply::Closed, 3);
        assert_eq!(v.decision, Decision::Failed(Failure::Crash));
        assert_eq!(v.fate, ProcessFate::Dead);
    }

    #[test]
    fn late_replies_only_check_the_id() {
        let late = |line: &[u8]| judge_late(&LineReply::Message(line.to_vec()), 9);
        assert_eq!(late(b"9 1"), ProcessFate::Healthy);
        assert_eq!(late(b"9 garbage"), ProcessFate::Healthy);
        assert_eq!(late(b"8 1"), ProcessFate::Kill(OutOfStep::UnexpectedId));
        assert_eq!(judge_late(&LineReply::Closed, 9), ProcessFate::Dead);
    }

    #[test]
    fn handshake_replies() {
        let hs = |line: &[u8]| judge_handshake(&LineReply::Message(line.to_vec()));
        assert_eq!(hs(b"ok"), Ok(None));
        assert_eq!(hs(b"ok\r"), Ok(None));
        assert_eq!(hs(b"ok GoToTenBot"), Ok(Some("GoToTenBot".to_string())));
        for bad in [
            &b"ok "[..],
            b"ok two words",
            b"OK",
            b"",
            b"ok\tx",
            b"hello",
            b"ok \xc3\xa9",
        ] {
            assert!(hs(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            judge_handshake(&LineReply::TimedOut),
            Err(HandshakeError::TimedOut)
        );
        assert_eq!(
            judge_handshake(&LineReply::Closed),
            Err(HandshakeError::Closed)
        );
    }
}
