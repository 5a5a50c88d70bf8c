//! What happens between the resolved instructions and the first game:
//! bot builds (cached by folder content), the seed when none was given,
//! bot folders, each bot's confinement, program and log.

use crate::bot::{BotLog, BotProgram};
use crate::bot_build::run_build;
use crate::challenge::{ChallengeInfo, SeedDefault};
use crate::config::Resolved;
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::results::Store;
use crate::tournament::spec::fingerprint_with_content;
use crate::tournament::{BotSpec, TournamentSpec};
use referee_sandbox::{Confinement, Policy, Setup, Support};
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

/// The confinement's inputs shared by every bot of a run.
pub struct Sandbox<'a> {
    pub support: &'a Support,
    /// Trees no bot may touch (but its own folder): the tournament folder
    /// and the results database.
    pub denied: Vec<PathBuf>,
}

/// The per-bot log file of a tournament.
pub fn log_path(dir: &Path, name: &str) -> PathBuf {
    dir.join("logs").join(format!("{name}.log"))
}

/// Runs each bot's bot.toml `build` unless its folder is unchanged since
/// the last success, and sets every bot's fingerprint from its folder's
/// content. A failed build leaves its bot out; the rest go on. Returns
/// `false` when cancelled.
pub async fn builds(
    spec: &mut TournamentSpec,
    resolved: &Resolved,
    store: &mut Store,
    sandbox: &Sandbox<'_>,
    progress: &Progress,
    cancel: &CancellationToken,
) -> Result<bool> {
    let mut keep = Vec::with_capacity(spec.bots.len());
    let mut failed = Vec::new();
    for ((bot, build), ignore) in spec
        .bots
        .iter_mut()
        .zip(&resolved.builds)
        .zip(&resolved.ignores)
    {
        let folder_key = bot.folder.to_string_lossy().into_owned();
        let mut content = crate::bot_folder::content_hash(&bot.folder, ignore);
        let ok = match build {
            None => true,
            Some(build)
                if store.built(&folder_key, &build.command)?.as_deref()
                    == Some(content.as_str()) =>
            {
                progress.say(&format!("{}: build is up to date", bot.name));
                true
            }
            Some(build) => {
                progress.say(&format!("building {}: {}", bot.name, build.command));
                let log = BotLog::new(log_path(&spec.dir, &bot.name));
                let words = shell_words::split(&build.command).unwrap_or_default();
                let named = named_paths(&words, &bot.folder, &sandbox.denied);
                let confinement = confine(sandbox, "build", &bot.folder, None, &named)?;
                match run_build(&bot.name, &bot.folder, build, confinement, &log, cancel).await? {
                    Ok(()) => {
                        content = crate::bot_folder::content_hash(&bot.folder, ignore);
                        store.set_built(&folder_key, &build.command, &content)?;
                        true
                    }
                    Err(reason) => {
                        eprintln!("referee: {reason}");
                        failed.push(bot.name.clone());
                        false
                    }
                }
            }
        };
        bot.fingerprint = fingerprint_with_content(&bot.name, &bot.command, &content);
        keep.push(ok);
    }
    if cancel.is_cancelled() {
        return Ok(false);
    }
    let mut keep_iter = keep.iter();
    spec.bots.retain(|_| *keep_iter.next().unwrap_or(&true));
    // Listed under the standings, so that none vanishes silently.
    spec.absent
        .extend(failed.into_iter().map(|name| crate::tournament::Absent {
            reason: format!(
                "its build failed (its output is in {})",
                log_path(&spec.dir, &name).display()
            ),
            name,
        }));
    if spec.bots.len() < 2 {
        return Err(Error::machine(format!(
            "only {} bot(s) left after failed builds; a tournament needs 2",
            spec.bots.len()
        )));
    }
    Ok(true)
}

/// Chooses the seed of a run that was given none, for a challenge that
/// draws one ([`SeedDefault::DrawAndRecord`]): the seed of the earlier run
/// of this tournament, else a new random one.
pub fn choose_seed(
    info: &ChallengeInfo,
    seed_given: bool,
    spec: &mut TournamentSpec,
    store: &Store,
    db: &Path,
    progress: &Progress,
) -> Result<()> {
    if seed_given || info.seed != SeedDefault::DrawAndRecord {
        return Ok(());
    }
    spec.seed = match earlier_seed(store, spec)? {
        Some(seed) => {
            progress.say(&format!(
                "seed {seed}, from the earlier run of this tournament in {} (pass --seed to choose)",
                db.display()
            ));
            seed
        }
        None => {
            let seed = rand::random();
            progress.say(&format!(
                "seed {seed}, drawn at random and recorded in {}",
                db.display()
            ));
            seed
        }
    };
    Ok(())
}

/// The seed of the latest stored tournament that is `spec` but for its seed.
fn earlier_seed(store: &Store, spec: &TournamentSpec) -> Result<Option<u64>> {
    let rows = store.tournaments()?;
    for row in rows.iter().rev() {
        if row.challenge != spec.challenge {
            continue;
        }
        let Ok(stored) = serde_json::from_str::<TournamentSpec>(&row.description) else {
            continue;
        };
        let mut candidate = spec.clone();
        candidate.seed = stored.seed;
        if candidate.identity() == row.identity {
            return Ok(Some(stored.seed));
        }
    }
    Ok(None)
}

/// Every bot's folder, then its program (confined under the challenge's
/// policy) and log, in `spec.bots` order.
pub fn processes(
    info: &ChallengeInfo,
    spec: &TournamentSpec,
    sandbox: &Sandbox<'_>,
) -> Result<(Vec<BotProgram>, Vec<BotLog>)> {
    // Each bot's folder exists before its confinement is prepared, so the
    // sandbox can grant it.
    for bot in &spec.bots {
        std::fs::create_dir_all(&bot.folder).map_err(|e| {
            Error::machine(format!(
                "{}: cannot create the bot folder: {e}",
                bot.folder.display()
            ))
        })?;
    }
    let memory_mb = spec
        .settings
        .get("memory-mb")
        .and_then(|v| v.trim().parse::<u64>().ok());
    let programs = spec
        .bots
        .iter()
        .map(|b| {
            let named = named_paths(&b.argv, &spec.dir, &sandbox.denied);
            Ok(program_for(
                spec,
                b,
                confine(sandbox, info.name, &b.folder, memory_mb, &named)?,
            ))
        })
        .collect::<Result<Vec<BotProgram>>>()?;
    let logs = spec
        .bots
        .iter()
        .map(|b| BotLog::new(log_path(&spec.dir, &b.name)))
        .collect();
    Ok((programs, logs))
}

/// A bot's process settings from its spec.
fn program_for(spec: &TournamentSpec, bot: &BotSpec, confinement: Confinement) -> BotProgram {
    BotProgram {
        name: bot.name.clone(),
        argv: bot.argv.clone(),
        cwd: spec.dir.clone(),
        folder: bot.folder.clone(),
        confinement,
        env: Vec::new(),
        quota: crate::bot::FolderQuota::for_policy(&spec.challenge)
            .map(|q| q.beyond_what_is_in(&bot.folder)),
    }
}

/// The confinement of one bot under the named policy (a challenge id, or `build`).
fn confine(
    sandbox: &Sandbox<'_>,
    policy: &str,
    folder: &Path,
    memory_mb: Option<u64>,
    readable: &[PathBuf],
) -> Result<Confinement> {
    let mut policy = Policy::named(policy).map_err(Error::machine)?;
    // A challenge's own memory setting (forty's `memory-mb`) beats the policy's default.
    if let Some(mb) = memory_mb {
        policy.memory_mb = mb;
    }
    let setup = Setup {
        policy: &policy,
        own_folder: folder,
        denied: &sandbox.denied,
        readable,
    };
    Confinement::prepare(&setup, sandbox.support).map_err(|e| {
        Error::machine(format!(
            "{}: cannot prepare the sandbox: {e}",
            folder.display()
        ))
    })
}

/// The files and folders a bot's command line (or build command) names
/// outside the denied trees: readable to the bot, as the organiser named
/// them (forty's host, a shared script, gun-duel's C++ adapter). A named
/// file is granted alone, a named folder whole; words that are not
/// existing paths are skipped. Options glued to a path (`-I../x`,
/// `--opt=../x`) count as the path.
pub fn named_paths(words: &[String], cwd: &Path, denied: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for word in words {
        let path = word
            .split_once('=')
            .filter(|_| word.starts_with('-'))
            .map(|(_, p)| p)
            .or_else(|| {
                ["-I", "-L", "-include"]
                    .iter()
                    .find_map(|opt| word.strip_prefix(opt))
                    .filter(|p| !p.is_empty())
            })
            .unwrap_or(word);
        if !path.contains('/') {
            continue;
        }
        let Ok(real) = cwd.join(path).canonicalize() else {
            continue;
        };
        if denied.iter().any(|d| real.starts_with(d)) {
            continue;
        }
        out.push(real);
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::named_paths;

    #[test]
    fn named_paths_are_existing_paths_outside_the_denied_trees() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let t = root.join("t");
        let shared = root.join("shared");
        std::fs::create_dir_all(t.join("bot")).unwrap();
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(shared.join("host.py"), "").unwrap();
        std::fs::write(t.join("bot/bot.py"), "").unwrap();
        let words: Vec<String> = [
            "python3",
            "../shared/host.py",
            "bot/bot.py",
            "-I../shared",
            "--x=../missing",
            "plain",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let got = named_paths(&words, &t, std::slice::from_ref(&t));
        assert_eq!(got, vec![shared.clone(), shared.join("host.py")]);
    }
}
