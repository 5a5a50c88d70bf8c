//! `referee check forty BOT`: the line protocol with one bot process.
//!
//! The bot gets the handshake, then three scripted games at once (each
//! with its own seat and dice; the other seats are house players decided
//! by the referee): the asks of all three go out together in one write,
//! the replies are paired in order and timed against the turn's budget as
//! in a tournament. One game makes the bot play the last round. After a
//! few decisions per game the games are ended and the bot's stdin is
//! closed: it must exit with status 0.
//!
//! BOT is a command speaking the protocol, or a Python class file (one
//! word ending in `.py`), which runs through the shipped host exactly as
//! an instructions line `NAME python3 {protocols}/forty/forty_host.py FILE`.

use super::clock::HostClock;
use super::{BOT_ENV, EXIT_GRACE, HOST};
use crate::bot::persistent::lines;
use crate::bot::{Incoming, LineProcess, StartFailure};
use crate::challenge::ChallengeId;
use crate::check::{quoted, shorten, Report, Subject};
use crate::error::{Error, Result};
use crate::status::Status;
use game_core::LineReply;
use game_forty::pipeline::KillReason;
use game_forty::tournament::game_rng;
use game_forty::{
    bot_seed, wire, Decision, Dice, Failure, Game, Next, Pipeline, PipelineEvent, Settings,
    END_SCORE,
};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Decisions asked of the bot per game before the check ends that game.
const DECISIONS_PER_GAME: usize = 6;

/// What a house seat does.
#[derive(Debug, Clone, Copy)]
enum House {
    /// Stops at once: banks its first die.
    Stop,
    /// Throws until its turn's sum reaches the end score.
    Rush,
}

impl House {
    fn decide(self, game: &Game) -> Decision {
        let sum: u32 = game.current_throws().iter().map(|&d| u32::from(d)).sum();
        match self {
            House::Stop => Decision::Stop,
            House::Rush if sum < END_SCORE => Decision::Throw,
            House::Rush => Decision::Stop,
        }
    }
}

/// A scripted game: its id, seats, the bot's seat, the house players and
/// the first dice (the game's generator continues after them).
struct Scripted {
    id: u64,
    title: &'static str,
    seats: usize,
    bot_seat: usize,
    house: House,
    dice: &'static [u8],
}

const GAMES: [Scripted; 3] = [
    Scripted {
        id: 0,
        title: "3 seats, the bot first; its first throw is 4 (the spec's example)",
        seats: 3,
        bot_seat: 0,
        house: House::Stop,
        dice: &[4, 5, 3],
    },
    Scripted {
        id: 5,
        title: "3 seats, the bot last: seat 0 banked 5, seat 1 threw a 6",
        seats: 3,
        bot_seat: 2,
        house: House::Stop,
        dice: &[5, 6, 1, 2],
    },
    Scripted {
        id: 9,
        title: "2 seats: seat 0 banks 40 at once, so the bot plays the last round",
        seats: 2,
        bot_seat: 1,
        house: House::Rush,
        dice: &[5, 5, 5, 5, 5, 5, 5, 5, 3, 4, 2],
    },
];

/// A scripted game in progress.
struct Live {
    script: &'static Scripted,
    game: Game,
    decisions: usize,
    ended: bool,
}

/// An ask in flight.
struct Asked {
    game: usize,
    line: String,
    about: &'static str,
}

/// The command to run (BOT itself, or the host with BOT as its class
/// file, named relative to the folder a tournament runs it from), whether
/// it is a class file, and the bot's folder.
fn command(args: &CheckArgs) -> Result<(Vec<String>, bool, std::path::PathBuf)> {
    let argv = crate::instructions::split_command(&args.bot).map_err(Error::input)?;
    let folder = crate::check::folder_of(args.cwd.as_deref(), &argv)?;
    let class_file = match argv.as_slice() {
        [one] if one.ends_with(".py") => {
            let from = folder.parent().unwrap_or(&folder);
            if !from.join(one).is_file() {
                return Err(Error::input(format!(
                    "{one}: no such Python file (relative to {}, the folder a tournament runs it from)",
                    from.display()
                )));
            }
            true
        }
        _ => false,
    };
    Ok((argv, class_file, folder))
}

/// `referee check forty BOT`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The bot: a quoted command, or a Python class file run through the host.
    pub bot: String,
    /// Time limit of one turn in milliseconds (default: the challenge's).
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// The bot's folder. The command runs from its parent, as a
    /// tournament there runs it, so BOT names its files from there
    /// (`python3 DIR/bot.py`). Default: the folder BOT names files in,
    /// relative to the current directory, else the current directory.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
}

/// `referee check forty BOT`.
pub async fn check(args: CheckArgs, cancel: CancellationToken) -> Result<Status> {
    let mut s = Settings::default();
    if let Some(t) = args.timeout_ms {
        s.set("timeout-ms", &t.to_string()).map_err(Error::input)?;
    }
    let timeout = Duration::from_millis(s.timeout_ms);
    let (argv, class_file, folder) = command(&args)?;
    let env = BOT_ENV
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut subject = Subject::prepare(ChallengeId::Forty, folder, argv.clone(), env)?;
    let mut report = Report::new();
    if class_file {
        let host = subject.shared().join("forty_host.py");
        std::fs::write(&host, HOST)
            .map_err(|e| Error::machine(format!("{}: {e}", host.display())))?;
        let mut run = vec!["python3".to_string(), host.to_string_lossy().into_owned()];
        run.extend(argv.iter().cloned());
        subject.program.argv = run;
        report.line(format!(
            "{} is a Python class file: it runs through the forty host, as `python3 {{protocols}}/forty/forty_host.py {}` in instructions.txt",
            argv.join(" "),
            argv.join(" ")
        ));
        report.gap();
    }
    let process = match LineProcess::spawn(
        &subject.program,
        &[],
        lines(wire::MAX_LINE_BYTES),
        subject.log(),
    ) {
        Ok(p) => p,
        Err(StartFailure::Machine(e)) => return Err(e),
        Err(StartFailure::Bot { note, .. }) => {
            let e = note.strip_prefix("referee: ").unwrap_or(&note);
            report.line(format!("start: the program cannot be started: {e}"));
            report.problem(format!("the program cannot be started: {e}"));
            subject.finish(&mut report, "");
            return report.print(ChallengeId::Forty, "");
        }
    };
    let Some(process) = session(process, &s, timeout, &mut subject, &mut report, &cancel).await
    else {
        return Ok(Status::Interrupted);
    };
    if let Some(process) = process {
        report.gap();
        subject
            .end_of_input(&mut report, process, EXIT_GRACE, true)
            .await;
    }
    let logged = subject.logged();
    subject.scan_stderr(&logged);
    report.excerpt("stderr (its log in a tournament): ", &logged);
    subject.finish(&mut report, "a bot may keep files in its folder, its HOME");
    report.print(
        ChallengeId::Forty,
        "the bot follows the forty protocol on every position.",
    )
}

/// The handshake and the scripted games. `None` if interrupted; otherwise
/// the process if it is still alive (killed ones are reported).
async fn session(
    mut process: LineProcess,
    s: &Settings,
    timeout: Duration,
    subject: &mut Subject,
    report: &mut Report,
    cancel: &CancellationToken,
) -> Option<Option<LineProcess>> {
    let seed = bot_seed(0, "bot", 0);
    let mut hello = Vec::new();
    wire::write_hello(&mut hello, seed);
    let started = Instant::now();
    process.send(hello.clone());
    let startup = Duration::from_millis(s.startup_ms);
    let reply = tokio::select! {
        biased;
        () = cancel.cancelled() => return None,
        got = process.next_before(started + startup) => got,
    };
    let reply = incoming_reply(reply);
    report.line(format!(
        "handshake: sent {}",
        String::from_utf8_lossy(&hello).trim_end()
    ));
    match wire::judge_handshake(&reply) {
        Ok(name) => report.line(format!(
            "  answer: {} -> {} ({} ms of {} ms)",
            shown_reply(&reply),
            name.map_or("ok, no name".to_string(), |n| format!("ok, name {n}")),
            started.elapsed().as_millis(),
            startup.as_millis()
        )),
        Err(e) => {
            report.line(format!("  answer: {} -> FAILED: {e}", shown_reply(&reply)));
            report.problem(format!("handshake: {e}"));
            subject.kill(&mut process).await;
            return Some(None);
        }
    }
    report.gap();
    for g in &GAMES {
        report.line(format!("game {}: {}", g.id, g.title));
    }
    report.line(format!(
        "each turn has {} ms for all its decisions; a reply {} ms past its deadline gets the process killed",
        timeout.as_millis(),
        s.kill_ms
    ));
    let mut live: Vec<Live> = GAMES
        .iter()
        .filter_map(|script| {
            let dice = Dice::scripted(script.dice.to_vec(), game_rng(0, script.id));
            Game::new(script.seats, dice).map(|game| Live {
                script,
                game,
                decisions: 0,
                ended: false,
            })
        })
        .collect();
    let kill_after = Duration::from_millis(s.kill_ms);
    let mut pipeline: Pipeline<usize> = Pipeline::new(kill_after);
    let mut clock = HostClock::open(process.pid());
    // A line of the next read, taken while collecting the previous one.
    let mut held: Option<Incoming> = None;
    let mut batch = 0;
    loop {
        batch += 1;
        let mut out = Vec::new();
        let mut shown = Vec::new();
        let mut asked: Vec<Asked> = Vec::new();
        if batch == 1 {
            for l in &live {
                wire::write_new(&mut out, l.script.id, l.script.bot_seat, END_SCORE);
                shown.push(format!(
                    "new {} {} {END_SCORE}",
                    l.script.id, l.script.bot_seat
                ));
            }
        }
        for (i, l) in live.iter_mut().enumerate() {
            if l.ended {
                continue;
            }
            let over = loop {
                match l.game.advance(&mut ()) {
                    Next::Ask { seat } if seat == l.script.bot_seat => break false,
                    Next::Ask { .. } => {
                        let d = l.script.house.decide(&l.game);
                        if l.game.answer(d).is_err() {
                            break true;
                        }
                    }
                    Next::Over => break true,
                }
            };
            if over || l.decisions >= DECISIONS_PER_GAME {
                wire::write_end(&mut out, l.script.id);
                shown.push(format!("end {}", l.script.id));
                l.ended = true;
                continue;
            }
            let mut line = Vec::new();
            l.game.write_ask(l.script.id, &mut line);
            let about = match (l.game.last_round(), l.game.first_decision()) {
                (true, true) => "last round, first decision of its turn",
                (true, false) => "last round, it threw again",
                (false, true) => "first decision of its turn",
                (false, false) => "it threw again",
            };
            out.extend_from_slice(&line);
            let line = String::from_utf8_lossy(&line).trim_end().to_string();
            shown.push(line.clone());
            asked.push(Asked {
                game: i,
                line,
                about,
            });
        }
        if out.is_empty() {
            return Some(Some(process));
        }
        report.line(format!(
            "batch {batch}, one write of {} line{}: {}",
            shown.len(),
            if shown.len() == 1 { "" } else { "s" },
            shown.join(" | ")
        ));
        let written = Instant::now();
        clock.mark();
        process.send(out);
        for a in &asked {
            let l = &live[a.game];
            pipeline.push(a.game, l.script.id, written, l.game.budget_left(timeout));
        }
        let mut answered = 0;
        while !pipeline.is_idle() {
            let Some(deadline) = pipeline.deadline() else {
                break;
            };
            let incoming = match held.take() {
                Some(incoming) => Some(incoming),
                None => tokio::select! {
                    biased;
                    () = cancel.cancelled() => return None,
                    got = process.next_before(clock.wake_at(deadline.nominal())) => got,
                },
            };
            let now = Instant::now();
            let mut events = Vec::new();
            // The lines of one read: the first, and those of the same read
            // already delivered.
            let mut group: Vec<LineReply> = Vec::new();
            let at = match incoming {
                None => {
                    let times = clock.since_mark();
                    let Some(charged) = clock.due(deadline.start, deadline.limit, now, times)
                    else {
                        continue;
                    };
                    events.extend(pipeline.on_timer(charged).map(|e| (0, e)));
                    None
                }
                Some(Incoming::Message(m, at)) => {
                    group.push(LineReply::Message(m));
                    loop {
                        match process.next_before(Instant::now()).await {
                            Some(Incoming::Message(m, same)) if same == at => {
                                group.push(LineReply::Message(m));
                            }
                            Some(Incoming::TooLong(same)) if same == at => {
                                group.push(LineReply::TooLong);
                            }
                            other => {
                                held = other;
                                break;
                            }
                        }
                    }
                    Some(at)
                }
                Some(Incoming::TooLong(at)) => {
                    group.push(LineReply::TooLong);
                    Some(at)
                }
                Some(Incoming::Closed) => {
                    group.push(LineReply::Closed);
                    Some(now)
                }
            };
            if let Some(at) = at {
                let measured = pipeline
                    .service_start()
                    .map_or(Duration::ZERO, |start| clock.measure(start, at));
                pipeline.on_group(
                    group.iter().map(LineReply::as_line_ref),
                    at,
                    measured,
                    &mut events,
                );
            }
            for (index, event) in events {
                let raw = match group.get(index) {
                    Some(LineReply::Message(m)) => Some(m.as_slice()),
                    _ => None,
                };
                match event {
                    PipelineEvent::Decided {
                        token,
                        decision,
                        charged,
                        reported,
                        budget,
                        ..
                    } => {
                        let Some(a) = asked.get(answered) else {
                            continue;
                        };
                        answered += 1;
                        let l = &mut live[token];
                        l.game.spend(charged);
                        l.decisions += 1;
                        let _ = l.game.answer(decision);
                        let reply = raw.map_or("nothing".to_string(), quoted);
                        let verdict = match decision {
                            Decision::Throw => "throw".to_string(),
                            Decision::Stop => "stop".to_string(),
                            Decision::Failed(f) => {
                                let why = failure(f);
                                report.problem_of(
                                    f.name(),
                                    format!(
                                        "game {}, `{}` answered {reply}: {why}",
                                        l.script.id, a.line
                                    ),
                                );
                                format!("FAILED: {why}")
                            }
                        };
                        let timed_out = decision == Decision::Failed(Failure::Timeout);
                        let own = reported.map_or(String::new(), |r| {
                            format!("; it reported {}", crate::check::ms(r))
                        });
                        report.line(format!(
                            "  {} ({}) -> {reply}: {verdict}; time {}{own}",
                            a.line,
                            a.about,
                            crate::check::timing(charged, None, budget, timed_out)
                        ));
                    }
                    PipelineEvent::LateReply { charged, .. } => {
                        report.line(format!(
                            "  a late reply {} came {} ms after the deadline: discarded",
                            raw.map_or(String::new(), quoted),
                            charged.as_millis()
                        ));
                    }
                    PipelineEvent::Kill(reason) => {
                        let why = killed(reason, raw);
                        report.line(format!("  the process is killed: {why}"));
                        report.problem(format!("crash: {why}"));
                        let charged = pipeline
                            .service_start()
                            .map_or(Duration::ZERO, |start| clock.charged(start, Instant::now()));
                        let failed = pipeline.fail(charged);
                        for a in asked.iter().skip(answered).take(failed.crashed.len()) {
                            report.line(format!(
                                "  {} ({}) -> lost with the process (crash)",
                                a.line, a.about
                            ));
                        }
                        report.line(
                            "  in a tournament it restarts with a new seed for later games, and is disqualified after max-crashes (3)",
                        );
                        subject.kill(&mut process).await;
                        return Some(None);
                    }
                }
            }
        }
    }
}

/// What the transport delivered, as one reply line.
fn incoming_reply(incoming: Option<Incoming>) -> LineReply {
    match incoming {
        None => LineReply::TimedOut,
        Some(Incoming::Message(m, _)) => LineReply::Message(m),
        Some(Incoming::TooLong(_)) => LineReply::TooLong,
        Some(Incoming::Closed) => LineReply::Closed,
    }
}

fn shown_reply(reply: &LineReply) -> String {
    match reply {
        LineReply::Message(m) => quoted(m),
        LineReply::TooLong => "a line over 4096 bytes".into(),
        LineReply::TimedOut => "nothing in time".into(),
        LineReply::Closed => "nothing: its stdout closed (it exited or crashed)".into(),
    }
}

/// Plain words for a failed decision.
fn failure(f: Failure) -> &'static str {
    match f {
        Failure::Timeout => "no reply within the turn's budget (timeout): the turn is lost",
        Failure::Error => {
            "the bot reported an error (`G e`, an exception in its code): the turn is lost"
        }
        Failure::Malformed => {
            "the right game id but not `1`, `0` or `e` (malformed): the turn is lost"
        }
        Failure::Crash => "its process died with the ask outstanding (crash)",
        Failure::Lost => "not asked: its process was gone (lost)",
    }
}

/// Why the process is killed, with the offending line if there is one.
fn killed(reason: KillReason, line: Option<&[u8]>) -> String {
    let what = match reason {
        KillReason::Closed => "its stdout closed: it exited or crashed".to_string(),
        other => other.describe().to_string(),
    };
    match line {
        Some(l) => format!("{what} ({})", shorten(&quoted(l), 80)),
        None => what,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays a scripted game with a bot that always stops, until the bot's
    /// first ask; returns that ask's line.
    fn first_ask(script: &'static Scripted) -> String {
        let dice = Dice::scripted(script.dice.to_vec(), game_rng(0, script.id));
        let mut game = Game::new(script.seats, dice).unwrap();
        loop {
            match game.advance(&mut ()) {
                Next::Ask { seat } if seat == script.bot_seat => break,
                Next::Ask { .. } => game.answer(script.house.decide(&game)).unwrap(),
                Next::Over => panic!("{} ended before the bot's turn", script.title),
            }
        }
        let mut line = Vec::new();
        game.write_ask(script.id, &mut line);
        String::from_utf8(line).unwrap()
    }

    #[test]
    fn the_scripted_games_reach_the_positions_their_titles_say() {
        assert_eq!(first_ask(&GAMES[0]), "ask 0 0 4 0,0,0\n");
        assert_eq!(first_ask(&GAMES[1]), "ask 5 0 1 5,0,0\n");
        assert_eq!(first_ask(&GAMES[2]), "ask 9 1 3 40,0\n");
    }

    #[test]
    fn the_host_is_shipped() {
        assert!(HOST.contains("forty"));
    }
}
