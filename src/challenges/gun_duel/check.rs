//! `referee check gun-duel 'CMD'`: the bot over its interface.
//!
//! - Interface 1 (`exit-code`): one process per position with the fields
//!   of the contract (the first turn, a turn with no ammo left, a turn with
//!   one bullet's worth, fields starting with `-`), and the extra calls
//!   after a won and a lost duel, whose exit status is ignored.
//! - Interface 2 (`io`): one process for several scripted duels against
//!   opponents that play a fixed script (every `F` is a position; the first
//!   turn of a duel has no ammo), an opponent that explodes (`P1`) and one
//!   that gives no action (`P?`); then its stdin is closed.
//!
//! Firing without the ammo is a legal move that explodes the gun (spec §7:
//! no fault), so the check lists it as a warning, not a problem: the bot
//! follows the contract, but its author most likely did not mean it.

use super::bot::{Bot, Process};
use super::play::InterfaceArg;
use crate::bot::{run_once_checked, Incoming, Limits, LineProcess, OnOverflow};
use crate::bot_toml::BotToml;
use crate::challenge::ChallengeId;
use crate::check::{quoted, signal_name, Report, Subject};
use crate::error::{Error, Result};
use crate::status::Status;
use game_core::{Ending, Fault, LineReply};
use game_gun_duel::{
    final_args, kills_bot, parse_history, read_exit_reply, read_line_reply, result_line, turn_args,
    Action, Answer, Duel, DuelDriver, Epilogue, Interface, Request, Seat, Settings, Side,
    END_GRACE_MS, STARTUP_GRACE_MS,
};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Interface 1: stdout and stderr kept per call (stdout is never the answer).
const OUTPUT_CAP: usize = 16 * 1024;

/// An interface-1 position: the bot is A, facing `opponent`, after A and B
/// played these histories. `last` is the extra call after a decided duel.
struct ExitPosition {
    title: &'static str,
    opponent: u32,
    mine: &'static str,
    theirs: &'static str,
    last: bool,
}

const EXIT_POSITIONS: [ExitPosition; 6] = [
    ExitPosition {
        title: "the first turn of a duel (ammo 0: firing would explode the gun)",
        opponent: 5,
        mine: "",
        theirs: "",
        last: false,
    },
    ExitPosition {
        title: "after two loads each (ammo 2: every move is legal)",
        opponent: 5,
        mine: "00",
        theirs: "00",
        last: false,
    },
    ExitPosition {
        title: "ammo 1, histories starting with '-' (plasma would explode the gun)",
        opponent: 0,
        mine: "-0",
        theirs: "-0",
        last: false,
    },
    ExitPosition {
        title: "its bullet was stopped by a shield: ammo 0 again (firing would explode the gun)",
        opponent: 3,
        mine: "01",
        theirs: "0-",
        last: false,
    },
    ExitPosition {
        title: "the call after a duel it won (status 1; the exit status is ignored)",
        opponent: 5,
        mine: "0",
        theirs: "?",
        last: true,
    },
    ExitPosition {
        title: "the call after a duel it lost by firing without ammo (status 2, ammo -1)",
        opponent: 5,
        mine: "1",
        theirs: "0",
        last: true,
    },
];

/// An interface-2 duel: the opponent's id and its fixed moves (`?` is no
/// action); the duel is a draw after as many turns as the script has.
struct ScriptedDuel {
    title: &'static str,
    opponent: u32,
    moves: &'static str,
}

const IO_DUELS: [ScriptedDuel; 4] = [
    ScriptedDuel {
        title: "an opponent that loads and shields, never firing",
        opponent: 5,
        moves: "0-0=0-",
    },
    ScriptedDuel {
        title: "an opponent that fires without ammo: its gun explodes at once (the bot is told P1)",
        opponent: 2,
        moves: "1",
    },
    ScriptedDuel {
        title: "an opponent that gives no action (the bot is told P?)",
        opponent: 5,
        moves: "?",
    },
    ScriptedDuel {
        title: "an opponent that only loads",
        opponent: 7,
        moves: "0000",
    },
];

/// A duel after both histories (the bot is A). `None` if the histories do
/// not parse or have different lengths.
fn scripted_duel(mine: &str, theirs: &str) -> Option<Duel> {
    let a = parse_history(mine)?;
    let b = parse_history(theirs)?;
    if a.len() != b.len() {
        return None;
    }
    let mut duel = Duel::new(Settings::default().turns);
    for (x, y) in a.into_iter().zip(b) {
        duel.play([x, y])?;
    }
    Some(duel)
}

/// Plain words for an action.
fn words(action: Action) -> &'static str {
    match action {
        Action::Load => "load",
        Action::Bullet => "bullet",
        Action::Plasma => "plasma",
        Action::Metal => "metal shield",
        Action::Thermal => "thermal deflector",
    }
}

/// The interface to check, and where that choice came from.
fn interface(args: &CheckArgs, folder: &std::path::Path) -> Result<(Interface, String)> {
    if let Some(k) = args.interface {
        let i = match k {
            InterfaceArg::Io => Interface::Io,
            InterfaceArg::ExitCode => Interface::ExitCode,
        };
        return Ok((i, "from --interface".into()));
    }
    if let Some(toml) = BotToml::load(folder)? {
        if let Some(value) = &toml.interface {
            let i = Interface::parse(value.get_ref())
                .map_err(|m| Error::input_at(&toml.path, toml.line_at(value.span().start), m))?;
            return Ok((i, format!("from {}", toml.path.display())));
        }
    }
    Ok((
        Settings::default().interface,
        "the default; set `interface` in bot.toml or pass --interface exit-code".into(),
    ))
}

/// `referee check gun-duel BOT`.
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
    /// The bot's interface (default: bot.toml `interface` in its folder,
    /// else `io`).
    #[arg(long, value_enum, value_name = "K")]
    pub interface: Option<super::play::InterfaceArg>,
}

/// `referee check gun-duel 'CMD' [--interface K]`.
pub async fn check(args: CheckArgs, cancel: CancellationToken) -> Result<Status> {
    let timeout = Duration::from_millis(args.timeout_ms.unwrap_or(Settings::default().timeout_ms));
    let argv = crate::instructions::split_command(&args.bot).map_err(Error::input)?;
    let folder = crate::check::folder_of(args.cwd.as_deref(), &argv)?;
    let (interface, source) = interface(&args, &folder)?;
    let mut subject = Subject::prepare(ChallengeId::GunDuel, folder, argv, Vec::new())?;
    let mut report = Report::new();
    report.line(format!("interface: {} ({source})", interface.name()));
    report.gap();
    let finished = match interface {
        Interface::ExitCode => exit_code(&mut subject, &mut report, timeout, &cancel).await?,
        Interface::Io => io(&mut subject, &mut report, timeout, &cancel).await?,
    };
    if !finished {
        return Ok(Status::Interrupted);
    }
    subject.finish(&mut report, "a bot may keep state files in its folder");
    report.print(
        ChallengeId::GunDuel,
        "the bot follows the gun-duel contract on every position.",
    )
}

/// Interface 1. False if interrupted.
async fn exit_code(
    subject: &mut Subject,
    report: &mut Report,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<bool> {
    let limits = Limits {
        deadline: timeout,
        stdout_cap: OUTPUT_CAP,
        stderr_cap: OUTPUT_CAP,
    };
    for (i, p) in EXIT_POSITIONS.iter().enumerate() {
        let n = i + 1;
        let Some(duel) = scripted_duel(p.mine, p.theirs) else {
            report.line(format!("position {n}: (not a valid script; skipped)"));
            continue;
        };
        let args = if p.last {
            final_args(p.opponent, &duel, Side::A)
        } else {
            Some(turn_args(p.opponent, &duel, Side::A))
        };
        let Some(args) = args else {
            report.line(format!("position {n}: (not a valid script; skipped)"));
            continue;
        };
        let (outcome, leftovers) = run_once_checked(
            &subject.program,
            &args,
            &limits,
            OnOverflow::Discard,
            cancel,
        )
        .await?;
        let Some(answer) = read_exit_reply(&outcome.reply) else {
            return Ok(false);
        };
        report.line(format!("position {n}: {}", p.title));
        report.line(format!("  arguments: {}", args.join(" ")));
        let ending = outcome.reply.ending;
        let how = match ending {
            Ending::Exited(c) => format!("exit status {c}"),
            Ending::Signalled(s) => format!("killed by {}", signal_name(s)),
            Ending::TimedOut => "still running at the limit: killed".to_string(),
            Ending::SpawnFailed => "could not be started".to_string(),
            Ending::Sandbox => "refused by the sandbox (see below)".to_string(),
            Ending::TooLong | Ending::Cancelled => format!("{ending:?}"),
        };
        if p.last {
            let note = if ending == Ending::TimedOut {
                "ignored, but it was killed at the limit (costs nothing; make the last call quick)"
            } else {
                "ignored, as it should be"
            };
            report.line(format!("  answer: {how} -> {note}"));
        } else {
            let ammo = duel.ammo()[0];
            let verdict = judge(n, answer, ammo, report);
            report.line(format!("  answer: {how} -> {verdict}"));
        }
        report.call_time(&outcome, timeout, ending == Ending::TimedOut);
        report.stderr(&outcome.stderr);
        if let Some(first) = crate::check::first_line(&outcome.reply.stdout) {
            report.line(format!("  stdout (only logged): {first}"));
        }
        subject.after_call(&outcome.stderr, leftovers);
    }
    Ok(true)
}

/// Whether a move is legal with `ammo` before the turn; notes a problem if
/// not (firing without ammo is legal, an explosion: a warning). Returns the
/// words for the report.
fn judge(n: usize, answer: Answer, ammo: i32, report: &mut Report) -> String {
    match (answer.action, answer.fault) {
        (Some(action), _) if ammo + action.ammo_change() < 0 => {
            let shot = if action == Action::Bullet {
                "a bullet"
            } else {
                "plasma"
            };
            let why =
                format!("fires {shot} with {ammo} ammo: its gun explodes and it loses the duel");
            report.warning(format!("position {n}: {why}"));
            format!("legal move {}, but it {why}", action.char())
        }
        (Some(action), _) => format!("legal move {} ({})", action.char(), words(action)),
        (None, fault) => {
            let why = match fault {
                Some(Fault::BadOutput) => "not one of the five moves (bad output)",
                Some(Fault::Timeout) => "no move in time (timeout)",
                Some(Fault::Crash) => "no move: it crashed or could not start (crash)",
                _ => "no move",
            };
            report.problem_of(
                why,
                format!("position {n}: {why}: no action, so its gun explodes"),
            );
            format!("ILLEGAL: {why}")
        }
    }
}

/// Interface 2. False if interrupted.
async fn io(
    subject: &mut Subject,
    report: &mut Report,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<bool> {
    let mut bot = Bot::new(subject.program.clone(), subject.log(), Interface::Io);
    bot.start()?;
    if let Process::Unstartable | Process::Denied = bot.process {
        report.line("the program could not be started");
        report.excerpt("  ", &subject.log_text(true));
        report.problem("the program cannot be started");
        return Ok(true);
    }
    let mut n = 0;
    let mut first_ask = true;
    let mut dead = false;
    'duels: for (d, duel) in IO_DUELS.iter().enumerate() {
        let Some(script) = parse_history(duel.moves) else {
            continue;
        };
        report.line(format!(
            "duel {}: against id {}, {}",
            d + 1,
            duel.opponent,
            duel.title
        ));
        let seats = [
            Seat {
                interface: Interface::Io,
                opponent_id: duel.opponent,
            },
            Seat {
                interface: Interface::Io,
                opponent_id: 0,
            },
        ];
        let turns = u32::try_from(script.len()).unwrap_or(u32::MAX);
        let mut driver = DuelDriver::new(turns, seats);
        while let Some(Request::Ask { bytes }) = driver.request(Side::A) {
            n += 1;
            let turn = driver.duel().turns_played();
            let theirs = script.get(turn as usize).copied().flatten();
            let ammo = driver.duel().ammo()[0];
            let mut sent = bot.pending.clone();
            sent.extend_from_slice(&bytes);
            let limit = if first_ask {
                timeout + Duration::from_millis(STARTUP_GRACE_MS)
            } else {
                timeout
            };
            first_ask = false;
            let started = Instant::now();
            let Some(reply) = bot.ask_line(bytes, timeout, cancel).await? else {
                return Ok(false);
            };
            let wall = started.elapsed();
            let reply = reply.unwrap_or(LineReply::Closed);
            let answer = read_line_reply(&reply);
            report.line(format!(
                "  position {n}: turn {turn}, ammo {ammo}; sent {}",
                String::from_utf8_lossy(&sent).trim_end().replace('\n', " ")
            ));
            let shown = match &reply {
                LineReply::Message(m) => quoted(m),
                LineReply::TooLong => "only whitespace, over 4096 bytes".into(),
                LineReply::TimedOut => "nothing in time".into(),
                LineReply::Closed => "nothing: its stdout closed (it exited or crashed)".into(),
            };
            let verdict = judge(n, answer, ammo, report);
            report.line(format!("    answer: {shown} -> {verdict}"));
            report.time_at("    ", wall, None, limit, reply == LineReply::TimedOut);
            if kills_bot(&reply) {
                report.line(
                    "    the bot is dead for the rest of a tournament (never restarted): it loses every later duel",
                );
                dead = true;
                break 'duels;
            }
            if driver
                .submit([
                    answer,
                    Answer {
                        action: theirs,
                        fault: None,
                    },
                ])
                .is_none()
            {
                break;
            }
        }
        if let Some(result) = driver.result() {
            report.line(format!("  result (the bot is A): {}", result_line(&result)));
        }
        if let Some(Epilogue::Tell { bytes }) = driver.epilogue_for(Side::A) {
            bot.pending.extend_from_slice(&bytes);
        }
        bot.check_folder().await;
        if let Process::Denied = bot.process {
            report.line(
                "  its folder holds more than the sandbox policy allows (its log says what): in a tournament its next move is a sandbox fault and it is dead",
            );
            report.problem("the folder holds more than the sandbox policy allows");
            dead = true;
            break;
        }
    }
    report.gap();
    if dead {
        report.excerpt("stderr: ", &subject.logged());
        return Ok(true);
    }
    let Process::Running { mut process, .. } = std::mem::replace(&mut bot.process, Process::Dead)
    else {
        return Ok(true);
    };
    let pending = std::mem::take(&mut bot.pending);
    process.send(pending);
    extra_moves(&mut process, report).await;
    subject
        .end_of_input(report, process, Duration::from_millis(END_GRACE_MS), false)
        .await;
    let logged = subject.logged();
    subject.scan_stderr(&logged);
    report.excerpt("stderr (its log in a tournament): ", &logged);
    Ok(true)
}

/// Moves written that nobody asked for: they would be read as answers to
/// later `F`s.
async fn extra_moves(process: &mut LineProcess, report: &mut Report) {
    let mut extra = Vec::new();
    let until = Instant::now() + Duration::from_millis(100);
    // Bounded even for a bot that writes moves without end.
    while Instant::now() < until && extra.len() < 64 {
        match process.next_before(until).await {
            Some(Incoming::Message(m, _)) => extra.extend_from_slice(&m),
            _ => break,
        }
    }
    if !extra.is_empty() {
        report.line(format!(
            "extra output: {} after its last move: more than one move per F",
            quoted(&extra)
        ));
        report.problem(format!(
            "writes more than one move per F (left over: {}); extra bytes are read as its next moves",
            quoted(&extra)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scripted_position_is_a_duel_in_the_state_its_title_says() {
        for p in &EXIT_POSITIONS {
            let duel = scripted_duel(p.mine, p.theirs).expect(p.title);
            assert_eq!(duel.is_over(), p.last, "{}", p.title);
        }
        let ammo = |p: &ExitPosition| scripted_duel(p.mine, p.theirs).unwrap().ammo()[0];
        assert_eq!(ammo(&EXIT_POSITIONS[0]), 0);
        assert_eq!(ammo(&EXIT_POSITIONS[1]), 2);
        assert_eq!(ammo(&EXIT_POSITIONS[2]), 1);
        assert_eq!(ammo(&EXIT_POSITIONS[3]), 0);
        let args = final_args(5, &scripted_duel("1", "0").unwrap(), Side::A).unwrap();
        assert_eq!(args, ["5", "1", "2", "-1", "1", "1", "0"]);
        let args = turn_args(0, &scripted_duel("-0", "-0").unwrap(), Side::A);
        assert_eq!(args, ["0", "2", "3", "1", "1", "-0", "-0"]);
        for duel in &IO_DUELS {
            assert!(parse_history(duel.moves).is_some(), "{}", duel.title);
        }
    }

    #[test]
    fn firing_without_ammo_is_legal_and_only_a_warning() {
        let mut report = Report::new();
        let v = judge(1, Answer::action(Action::Bullet), 0, &mut report);
        assert!(
            v.starts_with("legal move 1, but it fires a bullet with 0 ammo"),
            "{v}"
        );
        assert!(!report.has_problems());
        assert_eq!(report.warning_count(), 1);
        let mut report = Report::new();
        let v = judge(1, Answer::action(Action::Plasma), 2, &mut report);
        assert_eq!(v, "legal move 2 (plasma)");
        assert!(!report.has_problems());
    }
}
