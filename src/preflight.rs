//! The preflight: before the first game, every bot is started once in its
//! tournament context (the same working directory, sandbox, environment
//! and limits, through its challenge's own codec and transport:
//! `Challenge::first_call`), so that a mistyped command, a missing
//! interpreter or a bot that cannot read its own files shows up in one
//! line per bot before hours are spent, not as zeros the next morning.
//!
//! - A bot that cannot start ([`Verdict::NotStarted`]) is left out of the
//!   run (`--preflight skip`, the default) and listed under the standings,
//!   or stops the run before anything is played (`stop`, exit status 2).
//!   `off` makes no call: such a bot plays and collects the contract's
//!   faults.
//! - A bot whose first answer is a fault is reported and plays.
//! - The calls are not games: nothing of them is stored but the bot's log,
//!   and they run in parallel up to `--jobs`.
//! - A bot that started once is not called again while its fingerprint
//!   (name, command, folder content), interface and the settings are the
//!   same (the results database remembers), so rerunning a finished or
//!   interrupted tournament costs no call; a bot that could not start is
//!   called at every run, as the organiser may have fixed its machine.
//!
//! `referee check --instructions FILE` calls every bot, remembered or not,
//! and prints one line per bot ([`report`]).

use crate::bot::{BotLog, BotProgram};
use crate::bot_toml::BotToml;
use crate::challenge::{Challenge, FirstCall};
use crate::config::Resolved;
use crate::error::{Error, Result};
use crate::first_call::{own_files_hint, path_hint, Verdict};
use crate::kept_folder::{self, Kept};
use crate::progress::Progress;
use crate::results::Store;
use crate::tournament::{Absent, TournamentSpec};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// What a run does about a bot that cannot start (`--preflight`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Mode {
    /// Leave it out (listed under the standings); the others play.
    #[default]
    Skip,
    /// Stop before the first game (exit status 2); nothing is played.
    Stop,
    /// No preflight call: every bot plays, and one that cannot start
    /// collects the contract's faults.
    Off,
}

/// One bot's preflight: its index in `spec.bots`, the verdict and the
/// wall-clock time the call took.
#[derive(Debug, Clone)]
pub struct Called {
    pub bot: usize,
    pub verdict: Verdict,
    pub wall: Duration,
}

/// Calls each bot of `programs` (its index in `spec.bots` and a program
/// of its own, whose confinement ends with the call) once through
/// `challenge`, `jobs` at a time, each with its folder kept as it was and
/// put back after the call ([`crate::kept_folder`]): the call leaves no
/// trace in it, and nothing its processes did survives it. In index
/// order; `None` when cancelled. A challenge that makes no call
/// (bf-joust) gives an empty list.
pub async fn call(
    challenge: &'static dyn Challenge,
    spec: &TournamentSpec,
    programs: Vec<(usize, BotProgram)>,
    logs: &[BotLog],
    jobs: usize,
    cancel: &CancellationToken,
) -> Result<Option<Vec<Called>>> {
    let spec = Arc::new(spec.clone());
    let gate = Arc::new(Semaphore::new(jobs.max(1)));
    let mut set = JoinSet::new();
    for (bot, program) in programs {
        let Some(log) = logs.get(bot) else {
            continue;
        };
        let (spec, gate, cancel) = (Arc::clone(&spec), Arc::clone(&gate), cancel.clone());
        let log = log.clone();
        set.spawn(async move {
            // The gate is never closed, so a permit always comes.
            let _slot = gate.acquire_owned().await;
            call_one(challenge, &spec, bot, program, &log, &cancel).await
        });
    }
    let mut called = Vec::new();
    while let Some(joined) = set.join_next().await {
        let one = joined.map_err(|e| Error::machine(format!("a preflight call failed: {e}")))?;
        if let Some(c) = one? {
            called.push(c);
        }
    }
    if cancel.is_cancelled() {
        return Ok(None);
    }
    called.sort_by_key(|c| c.bot);
    Ok(Some(called))
}

/// One bot's preflight call between keeping its folder and putting it
/// back. The program is dropped before the folder is put back: its
/// confinement's end takes every process of the call with it.
async fn call_one(
    challenge: &'static dyn Challenge,
    spec: &TournamentSpec,
    bot: usize,
    program: BotProgram,
    log: &BotLog,
    cancel: &CancellationToken,
) -> Result<Option<Called>> {
    let store = kept_folder::store_of(&spec.dir);
    let folder = program.folder.clone();
    let taken = {
        let (folder, store) = (folder.clone(), store.clone());
        tokio::task::spawn_blocking(move || Kept::take(&folder, &store)).await
    };
    let kept = match taken {
        Ok(Ok(kept)) => kept,
        Ok(Err(e)) => {
            return Ok(Some(Called {
                bot,
                verdict: Verdict::NotCalled(format!(
                    "its folder could not be kept as it is ({e}), so the preflight did not call it"
                )),
                wall: Duration::ZERO,
            }))
        }
        Err(e) => return Err(Error::machine(format!("a preflight copy failed: {e}"))),
    };
    let started = Instant::now();
    let verdict = challenge
        .first_call(FirstCall {
            spec,
            bot,
            program: &program,
            log,
            cancel,
        })
        .await;
    let wall = started.elapsed();
    let verdict = verdict.map(|v| {
        v.map(|v| match v {
            Verdict::NotStarted(why) => Verdict::NotStarted(with_hint(&why, &program)),
            v => v,
        })
    });
    drop(program);
    let put = tokio::task::spawn_blocking(move || kept.put_back()).await;
    match put {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            return Err(Error::machine(format!(
                "{}: cannot put the folder back as it was before its preflight call: {e}; \
                 its copy stays in {}, and the next run puts it back",
                folder.display(),
                store.display()
            )))
        }
        Err(e) => return Err(Error::machine(format!("a preflight copy failed: {e}"))),
    }
    Ok(verdict?.map(|verdict| Called { bot, verdict, wall }))
}

/// Puts back the folders an interrupted preflight left changed (the
/// copies in `DIR/.referee/preflight`), before anything reads them.
pub fn recover(spec: &TournamentSpec, progress: &Progress) -> Result<()> {
    let store = kept_folder::store_of(&spec.dir);
    let put_back = kept_folder::recover(&store).map_err(|e| {
        Error::machine(format!(
            "{}: cannot put back a bot folder kept by an interrupted preflight: {e}",
            store.display()
        ))
    })?;
    for folder in put_back {
        progress.say(&format!(
            "preflight: {} put back as it was before the interrupted run's preflight call",
            folder.display()
        ));
    }
    Ok(())
}

/// What a tournament run needs for its preflight.
pub struct Before<'a> {
    pub challenge: &'static dyn Challenge,
    pub resolved: &'a Resolved,
    /// What the preflight's own programs are confined with.
    pub sandbox: &'a crate::prepare::Sandbox<'a>,
    pub mode: Mode,
    pub jobs: usize,
    pub progress: &'a Progress,
    pub cancel: &'a CancellationToken,
}

/// The preflight of a run about to play: calls every bot not remembered in
/// `store` as started, reports on stderr, and leaves out of `spec`,
/// `programs` and `logs` the bots that cannot start (added to
/// `spec.absent`), or stops the run (`--preflight stop`: an input error,
/// exit status 2). Fewer than two bots left is an input error too.
/// `false` when cancelled.
pub async fn before_first_game(
    before: &Before<'_>,
    spec: &mut TournamentSpec,
    programs: &mut Vec<BotProgram>,
    logs: &mut Vec<BotLog>,
    store: &mut Store,
) -> Result<bool> {
    if before.mode == Mode::Off || programs.is_empty() {
        return Ok(true);
    }
    let mut which = Vec::new();
    for i in 0..spec.bots.len() {
        if !store.started(&spec.challenge, &bot_key(spec, i))? {
            which.push(i);
        }
    }
    if which.is_empty() {
        return Ok(true);
    }
    before.progress.say(&format!(
        "preflight: starting {} bot(s) once before the first game",
        which.len()
    ));
    let info = before.challenge.info();
    let own = which
        .iter()
        .filter_map(|&i| spec.bots.get(i).map(|b| (i, b)))
        .map(|(i, b)| Ok((i, crate::prepare::program(info, spec, before.sandbox, b)?)))
        .collect::<Result<Vec<_>>>()?;
    let Some(called) = call(
        before.challenge,
        spec,
        own,
        logs,
        before.jobs,
        before.cancel,
    )
    .await?
    else {
        return Ok(false);
    };
    let mut absent = Vec::new();
    for c in &called {
        let Some(bot) = spec.bots.get(c.bot) else {
            continue;
        };
        let origin = origin(before.resolved, &bot.name);
        match &c.verdict {
            Verdict::NotCalled(why) => eprintln!("referee: bot `{}` ({origin}): {why}", bot.name),
            Verdict::NotStarted(why) => {
                let reason = format!("cannot start ({origin}): {why}");
                // Shown even with --quiet: the organiser must know.
                eprintln!(
                    "referee: bot `{}` {reason}{}",
                    bot.name,
                    match before.mode {
                        Mode::Skip => "; left out of this run",
                        _ => "",
                    }
                );
                absent.push(Absent {
                    name: bot.name.clone(),
                    reason,
                });
            }
            Verdict::Faulted(what) => {
                eprintln!(
                    "referee: bot `{}` ({origin}) started, but its first answer was a fault: \
                     {what} (its log: {})",
                    bot.name,
                    crate::prepare::log_path(&spec.dir, &bot.name).display()
                );
                store.set_started(&spec.challenge, &bot_key(spec, c.bot))?;
            }
            Verdict::Answered => store.set_started(&spec.challenge, &bot_key(spec, c.bot))?,
        }
    }
    if absent.is_empty() {
        return Ok(true);
    }
    let file = &before.resolved.instructions.path;
    if before.mode == Mode::Stop {
        return Err(Error::input_file(
            file,
            format!(
                "{} bot(s) cannot start (--preflight stop): nothing was played; fix them, or \
                 run with --preflight skip to leave them out",
                absent.len()
            ),
        ));
    }
    let keep: Vec<bool> = spec
        .bots
        .iter()
        .map(|b| !absent.iter().any(|a| a.name == b.name))
        .collect();
    retain(&mut spec.bots, &keep);
    retain(programs, &keep);
    retain(logs, &keep);
    spec.absent.extend(absent);
    if spec.bots.len() < 2 {
        return Err(Error::input_file(
            file,
            format!(
                "a tournament needs at least 2 bots, found {} that can start",
                spec.bots.len()
            ),
        ));
    }
    Ok(true)
}

/// Keeps the items whose entry in `keep` is true.
fn retain<T>(items: &mut Vec<T>, keep: &[bool]) {
    let mut flags = keep.iter();
    items.retain(|_| *flags.next().unwrap_or(&true));
}

/// `why`, with where the bot's files should be: when its command names
/// them where it cannot reach them, or when it was denied a file (most
/// often one named relative to its own folder, `data.txt` for
/// `NAME/data.txt`).
fn with_hint(why: &str, p: &BotProgram) -> String {
    if let Some(hint) = path_hint(&p.argv, &p.cwd, &p.folder) {
        return format!("{why}; {hint}");
    }
    let denied = ["ermission denied", "Read-only file system", "EACCES"]
        .iter()
        .any(|w| why.contains(w));
    if denied {
        format!("{why}; {}", own_files_hint(&p.folder))
    } else {
        why.to_string()
    }
}

/// What the preflight remembers a started bot by: its fingerprint (name,
/// command, folder content), its interface and the settings.
fn bot_key(spec: &TournamentSpec, bot: usize) -> String {
    let mut h = blake3::Hasher::new();
    let mut field = |s: &str| {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    if let Some(b) = spec.bots.get(bot) {
        field(&b.fingerprint);
        field(b.interface.as_deref().unwrap_or(""));
    }
    for (k, v) in &spec.settings {
        field(k);
        field(v);
    }
    h.finalize().to_hex()[..32].to_string()
}

/// Where a bot's command is written: the instructions' line, or a
/// drop-in's bot.toml and its `run` line.
pub fn origin(resolved: &Resolved, name: &str) -> String {
    let file = &resolved.instructions.path;
    if let Some(listed) = resolved.instructions.bots.iter().find(|b| b.name == name) {
        return format!("{}:{}", file.display(), listed.command_line);
    }
    let toml = resolved.spec.dir.join(name).join("bot.toml");
    match BotToml::load(&resolved.spec.dir.join(name))
        .ok()
        .flatten()
        .and_then(|t| t.line_of_key("run"))
    {
        Some(line) => format!("{}:{line}", toml.display()),
        None => toml.display().to_string(),
    }
}

/// `referee check --instructions`: one line per bot (started, started
/// with a fault, cannot start, or left out before the call), then a
/// verdict. The second value is whether every bot can play.
pub fn report(resolved: &Resolved, spec: &TournamentSpec, called: &[Called]) -> (String, bool) {
    let mut out = format!(
        "preflight of {} ({}): each bot started once as the tournament starts it\n",
        resolved.instructions.path.display(),
        spec.challenge
    );
    let mut failed = 0;
    for (i, bot) in spec.bots.iter().enumerate() {
        let origin = origin(resolved, &bot.name);
        let line = match called.iter().find(|c| c.bot == i) {
            Some(c) => match &c.verdict {
                Verdict::Answered => {
                    format!("ok: answered its first call in {} ms", c.wall.as_millis())
                }
                Verdict::Faulted(what) => {
                    format!("started, but its first answer was a fault: {what}")
                }
                Verdict::NotStarted(why) => {
                    failed += 1;
                    format!("CANNOT START ({origin}): {why}")
                }
                Verdict::NotCalled(why) => format!("not called: {why}"),
            },
            None => match &bot.invalid {
                Some(why) => {
                    failed += 1;
                    format!("INVALID: {why}")
                }
                None => "ok".to_string(),
            },
        };
        out.push_str(&format!("  {}: {line}\n", bot.name));
    }
    for a in &spec.absent {
        failed += 1;
        out.push_str(&format!("  {}: LEFT OUT: {}\n", a.name, a.reason));
    }
    let total = spec.bots.len() + spec.absent.len();
    if failed == 0 {
        out.push_str(&format!("verdict: all {total} bots can play.\n"));
    } else {
        out.push_str(&format!(
            "verdict: {failed} of {total} bots cannot play as they are; a run would leave them \
             out (--preflight skip) or stop (--preflight stop).\n"
        ));
    }
    (out, failed == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retain_keeps_the_flagged_items_in_order() {
        let mut v = vec!["a", "b", "c"];
        retain(&mut v, &[true, false, true]);
        assert_eq!(v, ["a", "c"]);
    }
}
