//! The bot contract of §6: the 31 arguments of a decision, the limits the
//! transport must enforce, and how a [`Reply`] becomes a bet or an action.

use game_core::{Ending, Fault, Reply};

use crate::bank::BANKS;
use crate::decimal::format_decimal;

/// stdout beyond this many bytes is a failed call (§6.1).
pub const STDOUT_CAP_BYTES: usize = 4096;
/// Memory limit per bot process (§6.1).
pub const MEMORY_LIMIT_BYTES: u64 = 512 * 1024 * 1024;
/// The bot's own folder is read-only to it: the post forbids files (§6.1).
pub const BOT_FOLDER_READ_ONLY: bool = true;
/// Number of arguments appended to the bot's command (§6.2).
pub const ARG_COUNT: usize = 31;
/// A round-2 answer longer than this is logged as `(bad output)` (§7).
const SHOWN_ANSWER_MAX_BYTES: usize = 200;

/// The two rounds of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Round {
    /// Round 1: every player bets.
    Stakes,
    /// Round 2: every heister decides what to do with its bet.
    Decisions,
}

impl Round {
    /// The round number a bot receives as argument 2.
    pub fn number(self) -> u8 {
        match self {
            Round::Stakes => 1,
            Round::Decisions => 2,
        }
    }
}

/// A round-2 answer. Only the nine exact strings of §4.3 are actions;
/// everything else, failures included, goes along.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Action {
    BackOut,
    AllIn,
    ChangeJobs,
    AcquireIntel,
    BuyGuard,
    Deposit,
    Withdraw,
    DoubleCross,
    Finger,
    #[default]
    GoAlong,
}

impl Action {
    /// The exact answer strings, case-sensitive.
    const WORDS: [(&'static str, Action); 9] = [
        ("back out", Action::BackOut),
        ("all in", Action::AllIn),
        ("change jobs", Action::ChangeJobs),
        ("acquire intel", Action::AcquireIntel),
        ("buy guard", Action::BuyGuard),
        ("deposit", Action::Deposit),
        ("withdraw", Action::Withdraw),
        ("double cross", Action::DoubleCross),
        ("finger", Action::Finger),
    ];

    /// The action an (already trimmed) answer names.
    pub fn from_answer(answer: &str) -> Action {
        Action::WORDS
            .iter()
            .find(|(word, _)| *word == answer)
            .map_or(Action::GoAlong, |&(_, action)| action)
    }

    /// The answer string of an action; `None` for going along.
    pub fn word(self) -> Option<&'static str> {
        Action::WORDS
            .iter()
            .find(|(_, action)| *action == self)
            .map(|&(word, _)| word)
    }
}

/// The 31 arguments of one decision (§6.2), as values.
#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    /// 1: game number from 0.
    pub game: u32,
    /// 2: round.
    pub round: Round,
    /// 3: players in this game, rabble included.
    pub players: usize,
    /// 4: players (round 1) or heisters (round 2) who already decided this round.
    pub moved: usize,
    /// 5: heisters so far (round 1) or all heisters of round 1 (round 2).
    pub heisters: usize,
    /// 6: credits invested so far (round 1) or in all of round 1 (round 2).
    pub invested: i128,
    /// 7: heisters asked this round who did not back out (0 in round 1).
    pub confirmed: usize,
    /// 8: the bank if nobody else bets (round 1) or the game's bank (round 2).
    pub bank: usize,
    /// 9: my credits, the bet not deducted.
    pub credits: i64,
    /// 10: my bet (0 in round 1).
    pub bet: i64,
    /// 11: my paycheck amount.
    pub paycheck: i64,
    /// 12: employed.
    pub employed: bool,
    /// 13: my rank among the bots at the end of the previous game.
    pub rank: usize,
    /// 14: mean credits of the bots.
    pub mean: f64,
    /// 15: mean absolute deviation of the bots' credits.
    pub mad: f64,
    /// 16: the richest bot's credits.
    pub max: i64,
    /// 17–21.
    pub accounts: [i64; BANKS],
    /// 22–26.
    pub prob: [f64; BANKS],
    /// 27–31.
    pub odds: [f64; BANKS],
}

impl Args {
    /// The argv entries appended to the bot's command, in order.
    pub fn to_argv(&self) -> Vec<String> {
        let mut argv = Vec::with_capacity(ARG_COUNT);
        argv.push(self.game.to_string());
        argv.push(self.round.number().to_string());
        argv.push(self.players.to_string());
        argv.push(self.moved.to_string());
        argv.push(self.heisters.to_string());
        argv.push(self.invested.to_string());
        argv.push(self.confirmed.to_string());
        argv.push(self.bank.to_string());
        argv.push(self.credits.to_string());
        argv.push(self.bet.to_string());
        argv.push(self.paycheck.to_string());
        argv.push(u8::from(self.employed).to_string());
        argv.push(self.rank.to_string());
        argv.push(format_decimal(self.mean));
        argv.push(format_decimal(self.mad));
        argv.push(self.max.to_string());
        argv.extend(self.accounts.iter().map(i64::to_string));
        argv.extend(self.prob.iter().map(|&p| format_decimal(p)));
        argv.extend(self.odds.iter().map(|&o| format_decimal(o)));
        argv
    }

    /// The arguments joined by single spaces, as the spec's examples show them.
    pub fn to_line(&self) -> String {
        self.to_argv().join(" ")
    }
}

/// What a round-1 reply amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BetReading {
    /// The bet, clamped to 0..=credits; 0 for anything unreadable.
    pub bet: i64,
    pub fault: Option<Fault>,
}

/// What a round-2 reply amounts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionReading {
    pub action: Action,
    /// The text the log shows after "decided to".
    pub shown: String,
    pub fault: Option<Fault>,
}

/// The fault a process ending implies, before looking at the output.
///
/// `Cancelled` never reaches the rules (the game refuses it, see
/// `Game::answer`); read on its own it counts as a timeout, since the process
/// was stopped before it answered. A program that could not be started is
/// reported as such; the log shows it as a crash.
pub fn ending_fault(ending: Ending) -> Option<Fault> {
    match ending {
        Ending::Exited(0) => None,
        Ending::Exited(_) | Ending::Signalled(_) => Some(Fault::Crash),
        Ending::TimedOut | Ending::Cancelled => Some(Fault::Timeout),
        // §6.4 counts oversized output as bad output.
        Ending::TooLong => Some(Fault::BadOutput),
        Ending::SpawnFailed => Some(Fault::SpawnFailed),
        // A visible denial (spec §6.4); the call failed like a crash.
        Ending::Sandbox => Some(Fault::Sandbox),
    }
}

/// The fault of a reply as a whole: the ending, then the byte cap.
fn reply_fault(reply: &Reply) -> Option<Fault> {
    let oversized = (reply.stdout.len() > STDOUT_CAP_BYTES).then_some(Fault::BadOutput);
    ending_fault(reply.ending).or(oversized)
}

/// Round 1 (§6.4): an optional sign and ASCII digits after trimming ASCII
/// whitespace, clamped to 0..=credits; anything else and every failure is 0.
pub fn read_bet(reply: &Reply, credits: i64) -> BetReading {
    let credits = credits.max(0);
    if let Some(fault) = reply_fault(reply) {
        return BetReading {
            bet: 0,
            fault: Some(fault),
        };
    }
    match parse_integer(reply.stdout.trim_ascii()) {
        Some(Integer::Negative) => BetReading {
            bet: 0,
            fault: None,
        },
        Some(Integer::NonNegative(digits)) => BetReading {
            bet: clamp_digits(digits, credits),
            fault: None,
        },
        None => BetReading {
            bet: 0,
            fault: Some(Fault::BadOutput),
        },
    }
}

/// A well-formed integer: its sign, and the digits of a non-negative one.
enum Integer<'a> {
    Negative,
    NonNegative(&'a [u8]),
}

fn parse_integer(text: &[u8]) -> Option<Integer<'_>> {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let significant = trim_leading_zeros(digits);
    if negative && !significant.is_empty() {
        Some(Integer::Negative)
    } else {
        Some(Integer::NonNegative(significant))
    }
}

fn trim_leading_zeros(digits: &[u8]) -> &[u8] {
    let zeros = digits.iter().take_while(|&&d| d == b'0').count();
    &digits[zeros..]
}

/// min(value of `digits`, credits) without overflowing on any length:
/// i64::MAX has 19 digits, so anything longer exceeds every credit balance.
fn clamp_digits(digits: &[u8], credits: i64) -> i64 {
    if digits.len() > 19 {
        return credits;
    }
    let value = digits
        .iter()
        .fold(0u64, |acc, &d| acc * 10 + u64::from(d - b'0'));
    if value >= credits as u64 {
        credits
    } else {
        value as i64
    }
}

/// Round 2 (§6.4, §7): the trimmed answer names an action or goes along.
/// Failures go along too; invalid UTF-8 and oversized output are faults, an
/// unrecognised string is not.
pub fn read_action(reply: &Reply) -> ActionReading {
    let failed = |fault: Fault| ActionReading {
        action: Action::GoAlong,
        shown: shown_failure(fault).to_string(),
        fault: Some(fault),
    };
    if let Some(fault) = reply_fault(reply) {
        return failed(fault);
    }
    let Ok(text) = std::str::from_utf8(&reply.stdout) else {
        return failed(Fault::BadOutput);
    };
    let answer = text.trim_ascii();
    let shown = if answer.len() > SHOWN_ANSWER_MAX_BYTES || answer.chars().any(char::is_control) {
        shown_failure(Fault::BadOutput).to_string()
    } else {
        answer.to_string()
    };
    ActionReading {
        action: Action::from_answer(answer),
        shown,
        fault: None,
    }
}

/// How the log shows a failed round-2 call (§7).
pub fn shown_failure(fault: Fault) -> &'static str {
    match fault {
        Fault::Timeout => "(timeout)",
        // The log keeps the post's three words; the fault's kind is in the standings.
        Fault::Crash | Fault::SpawnFailed | Fault::Closed | Fault::Sandbox => "(crash)",
        Fault::BadOutput | Fault::TooLong | Fault::NotUtf8 | Fault::IllegalMove => "(bad output)",
    }
}
