//! `referee check heist 'CMD'`: the bot's decisions in five situations,
//! each a fresh process with the 31 argv entries of the contract, its
//! folder read-only as in a tournament.
//!
//! Round 1 accepts one integer (cut to the bot's credits); round 2 knows
//! nine exact strings, and anything else goes along without a fault.

use crate::bot::{run_once_checked, OnOverflow};
use crate::challenge::ChallengeId;
use crate::check::{quoted, Report, Subject};
use crate::error::{Error, Result};
use crate::status::Status;
use game_core::{Ending, Fault};
use game_heist::bank::{bank, BANKS, BASE_ODDS, BASE_PROB};
use game_heist::wire::{self, Action, Args, Round};
use game_heist::Settings;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Round 1 of the first game, three players, nobody has bet yet: the
/// first position here, and the preflight's call before a tournament.
pub(crate) fn opening() -> Args {
    Args {
        game: 0,
        round: Round::Stakes,
        players: 3,
        moved: 0,
        heisters: 0,
        invested: 0,
        confirmed: 0,
        bank: 0,
        credits: 240,
        bet: 0,
        paycheck: 240,
        employed: true,
        rank: 1,
        mean: 240.0,
        mad: 0.0,
        max: 240,
        accounts: [0; BANKS],
        prob: BASE_PROB,
        odds: BASE_ODDS,
    }
}

/// The scripted decisions: a title and the arguments.
fn positions() -> Vec<(&'static str, Args)> {
    let first = opening();
    vec![
        (
            "round 1 of the first game: 3 players, nobody has bet yet (any integer; more than 240 is cut to 240)",
            first.clone(),
        ),
        (
            "round 1 of game 12 with rabble: 30 players decided, 21 heisters so far (City bank); only 5 credits, unemployed (a bigger bet is cut to 5)",
            Args {
                game: 12,
                players: 57,
                moved: 30,
                heisters: 21,
                invested: 6400,
                bank: bank(21, 6400),
                credits: 5,
                paycheck: 252,
                employed: false,
                rank: 3,
                mean: 1432.5,
                mad: 987.25,
                max: 3604,
                ..first.clone()
            },
        ),
        (
            "round 1 with no credits left (every bet is 0), after being caught double-crossing",
            Args {
                game: 40,
                players: 12,
                moved: 11,
                heisters: 4,
                invested: 1589,
                bank: bank(4, 1589),
                credits: 0,
                paycheck: 120,
                employed: false,
                rank: 4,
                mean: 46.666666666666664,
                mad: 41.55555555555556,
                max: 140,
                prob: [0.49, 0.488, 0.425, 0.387, 0.324],
                ..first.clone()
            },
        ),
        (
            "round 2 after betting 100 of 240: the second of 4 heisters asked, the first backed out (one of the nine actions, or anything else to go along)",
            Args {
                round: Round::Decisions,
                players: 4,
                moved: 1,
                heisters: 4,
                invested: 400,
                bet: 100,
                ..first
            },
        ),
        (
            "round 2 at the Federal Reserve in game 700: a bet of 1000, savings there to withdraw, odds raised by intel, a tiny deviation in exponent form",
            Args {
                game: 700,
                round: Round::Decisions,
                players: 300,
                moved: 50,
                heisters: 120,
                invested: 2_000_000,
                confirmed: 41,
                bank: bank(120, 2_000_000),
                credits: 3604,
                bet: 1000,
                paycheck: 267,
                employed: true,
                rank: 1,
                mean: 3604.0,
                mad: 2.7755575615628914e-17,
                max: 3604,
                accounts: [1804, 0, 0, 0, 2500],
                prob: [0.5446, 0.488, 0.425, 0.387, 0.33076],
                odds: [0.818, 1.1, 1.3, 1.65, 1.97],
            },
        ),
    ]
}

/// Plain words for a failed call.
fn failure(fault: Fault, ending: Ending) -> String {
    match (fault, ending) {
        (Fault::Timeout, _) => "no answer in time (timeout)".into(),
        (Fault::Crash, Ending::Exited(c)) => format!("exit status {c} (crash)"),
        (Fault::Crash, Ending::Signalled(s)) => {
            format!("killed by {} (crash)", crate::check::signal_name(s))
        }
        (Fault::SpawnFailed, _) => "the command could not be started".into(),
        (Fault::Sandbox, _) => "refused by the sandbox (sandbox)".into(),
        (Fault::BadOutput, Ending::TooLong) => "more than 4096 bytes of output (bad output)".into(),
        (Fault::BadOutput, _) => "not one integer (bad output)".into(),
        (other, _) => other.name().to_string(),
    }
}

/// `referee check heist BOT`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The bot: a quoted command.
    pub bot: String,
    /// Per-call time limit in milliseconds (default: the challenge's).
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// The bot's folder. The command runs from its parent, as a
    /// tournament there runs it, so BOT names its files from there
    /// (`python3 DIR/bot.py`). Default: the folder BOT names files in,
    /// relative to the current directory, else the current directory.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
}

/// `referee check heist 'CMD'`.
pub async fn check(args: CheckArgs, cancel: CancellationToken) -> Result<Status> {
    let mut settings = Settings::default();
    if let Some(t) = args.timeout_ms {
        settings
            .set("timeout-ms", &t.to_string())
            .map_err(Error::input)?;
    }
    let limits = crate::challenges::heist::limits(&settings);
    let limit = Duration::from_millis(settings.timeout_ms);
    let argv = crate::instructions::split_command(&args.bot).map_err(Error::input)?;
    let folder = crate::check::folder_of(args.cwd.as_deref(), &argv)?;
    let mut subject = Subject::prepare(ChallengeId::Heist, folder, argv, Vec::new())?;
    let mut report = Report::new();
    for (i, (title, position)) in positions().into_iter().enumerate() {
        let n = i + 1;
        let argv = position.to_argv();
        let (outcome, leftovers) =
            run_once_checked(&subject.program, &argv, &limits, OnOverflow::Kill, &cancel).await?;
        let ending = outcome.reply.ending;
        if ending == Ending::Cancelled {
            return Ok(Status::Interrupted);
        }
        report.line(format!("position {n}: {title}"));
        report.line(format!("  arguments ({}): {}", argv.len(), argv.join(" ")));
        let output = outcome.reply.stdout.trim_ascii();
        let verdict = match position.round {
            Round::Stakes => {
                let read = wire::read_bet(&outcome.reply, position.credits);
                match read.fault {
                    Some(fault) => {
                        let why = failure(fault, ending);
                        report.problem_of(&why, format!("position {n}: {why}: it bets 0"));
                        format!("FAILED: {why}; it bets 0")
                    }
                    None if output == read.bet.to_string().as_bytes() => {
                        format!("bets {} of {} credits", read.bet, position.credits)
                    }
                    None => format!(
                        "read as a bet of {} (of {} credits)",
                        read.bet, position.credits
                    ),
                }
            }
            Round::Decisions => {
                let read = wire::read_action(&outcome.reply);
                match (read.fault, read.action.word()) {
                    (Some(fault), _) => {
                        let why = failure(fault, ending);
                        report.problem_of(
                            &format!("{why} (round 2)"),
                            format!("position {n}: {why}: it goes along, its bet still at stake"),
                        );
                        format!("FAILED: {why}; it goes along, its bet still at stake")
                    }
                    (None, Some(word)) => format!("action `{word}`"),
                    (None, None) => {
                        debug_assert_eq!(read.action, Action::GoAlong);
                        format!(
                            "`{}` is not one of the nine actions: it goes along as normal (allowed, not a fault)",
                            read.shown
                        )
                    }
                }
            }
        };
        report.line(format!("  output: {} -> {verdict}", quoted(output)));
        report.call_time(&outcome, limit, ending == Ending::TimedOut);
        report.stderr(&outcome.stderr);
        subject.after_call(&outcome.stderr, leftovers);
    }
    subject.finish(&mut report, "");
    report.print(
        ChallengeId::Heist,
        "the bot follows the heist contract on every position.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_have_31_arguments_and_the_banks_their_titles_say() {
        let all = positions();
        for (title, p) in &all {
            assert_eq!(p.to_argv().len(), wire::ARG_COUNT, "{title}");
        }
        assert_eq!(all[1].1.bank, 1);
        assert_eq!(all[4].1.bank, 4);
        assert_eq!(
            all[3].1.to_line(),
            "0 2 4 1 4 400 0 0 240 100 240 1 1 240.0 0.0 240 0 0 0 0 0 \
             0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95"
        );
        assert!(all[4].1.to_line().contains(" 2.77555756156e-17 "));
    }
}
