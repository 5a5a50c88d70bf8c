//! What happens between the resolved instructions and the first game:
//! bot builds (cached by folder content, in parallel), the seed when none was given,
//! bot folders, each bot's confinement, program and log.

use crate::bot::{BotLog, BotProgram};
use crate::bot_build::run_build;
use crate::build_record::{BuildRecords, REFEREE_FOLDER};
use crate::challenge::{ChallengeInfo, SeedDefault};
use crate::config::{Build, Resolved};
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::results::Store;
use crate::tournament::spec::fingerprint_with_content;
use crate::tournament::{BotSpec, TournamentSpec};
use futures_util::{stream, StreamExt};
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

/// Runs each bot's bot.toml `build` unless it is up to date (its folder
/// unchanged since the last success, as recorded with the tournament:
/// [`BuildRecords`]), up to `jobs` builds at once, and sets every bot's
/// fingerprint from its folder's content. Builds are independent: each
/// writes its own folder only. A failed build leaves its bot out; the rest
/// go on. Returns `false` when cancelled.
pub async fn builds(
    spec: &mut TournamentSpec,
    resolved: &Resolved,
    sandbox: &Sandbox<'_>,
    jobs: usize,
    progress: &Progress,
    cancel: &CancellationToken,
) -> Result<bool> {
    let records = BuildRecords::of(&spec.dir);
    // Held until every build is recorded.
    let _lock = if resolved.builds.iter().any(Option::is_some) {
        match records.hold(progress, cancel).await? {
            Some(lock) => Some(lock),
            None => return Ok(false),
        }
    } else {
        None
    };
    let mut contents = Vec::with_capacity(spec.bots.len());
    let mut due = Vec::new();
    for (i, ((bot, build), ignore)) in spec
        .bots
        .iter()
        .zip(&resolved.builds)
        .zip(&resolved.ignores)
        .enumerate()
    {
        let content = crate::bot_folder::content_hash(&bot.folder, ignore);
        match build {
            Some(build) if records.up_to_date(&bot.folder, &build_key(build), &content) => {
                progress.say(&format!("{}: build is up to date", bot.name));
            }
            Some(build) => due.push((i, bot, build, ignore)),
            None => {}
        }
        contents.push(content);
    }
    let builder = Builder {
        dir: &spec.dir,
        records: &records,
        sandbox,
        progress,
        cancel,
    };
    let outcomes: Vec<(usize, Result<Option<String>>)> = stream::iter(due)
        .map(|(i, bot, build, ignore)| {
            let builder = &builder;
            async move { (i, builder.build(bot, build, ignore).await) }
        })
        .buffer_unordered(jobs.max(1))
        .collect()
        .await;
    let mut keep = vec![true; spec.bots.len()];
    for (i, outcome) in outcomes {
        match outcome? {
            Some(content) => contents[i] = content,
            None => keep[i] = false,
        }
    }
    if cancel.is_cancelled() {
        return Ok(false);
    }
    for (bot, content) in spec.bots.iter_mut().zip(&contents) {
        bot.fingerprint = fingerprint_with_content(&bot.name, &bot.command, content);
    }
    let failed: Vec<String> = spec
        .bots
        .iter()
        .zip(&keep)
        .filter(|(_, kept)| !**kept)
        .map(|(bot, _)| bot.name.clone())
        .collect();
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

/// What a build is recorded under: its command, with the version of the
/// protocol files it names rather than their place.
fn build_key(build: &Build) -> String {
    crate::protocols::versioned(&build.command).into_owned()
}

/// What every build of a run shares.
struct Builder<'a> {
    dir: &'a Path,
    records: &'a BuildRecords,
    sandbox: &'a Sandbox<'a>,
    progress: &'a Progress,
    cancel: &'a CancellationToken,
}

impl Builder<'_> {
    /// Builds one bot and records the success: the folder's content hash
    /// after the build, or `None` when the build failed (said, with the
    /// end of its output, each line naming the bot).
    async fn build(
        &self,
        bot: &BotSpec,
        build: &Build,
        ignore: &[String],
    ) -> Result<Option<String>> {
        self.progress
            .say(&format!("building {}: {}", bot.name, build.command));
        let started = std::time::Instant::now();
        let log = BotLog::new(log_path(self.dir, &bot.name));
        let key = build_key(build);
        let (build, granted) = expand_build(build)?;
        let words = shell_words::split(&build.command).unwrap_or_default();
        let mut named = named_paths(&words, &bot.folder, &self.sandbox.denied);
        named.extend(granted);
        let confinement = confine(self.sandbox, "build", &bot.folder, None, &named)?;
        match run_build(
            &bot.name,
            &bot.folder,
            &build,
            confinement,
            &log,
            self.cancel,
        )
        .await?
        {
            Ok(()) => {
                let content = crate::bot_folder::content_hash(&bot.folder, ignore);
                if let Err(e) = self.records.record(&bot.folder, &key, &content) {
                    eprintln!(
                        "referee: {}: cannot record the build in {}: {e}; it will run again next time",
                        bot.name,
                        self.dir.join(REFEREE_FOLDER).display()
                    );
                }
                self.progress.say(&format!(
                    "{}: built in {:.1} s",
                    bot.name,
                    started.elapsed().as_secs_f64()
                ));
                Ok(Some(content))
            }
            Err(reason) => {
                // One write: lines of two failed builds never interleave.
                eprintln!("referee: {reason}");
                Ok(None)
            }
        }
    }
}

/// The seed of a run, and where it came from (for the progress line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chosen {
    pub seed: u64,
    from: SeedFrom,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SeedFrom {
    /// Given (`seed:` or `--seed`), or the challenge's fixed default.
    Spec,
    /// The earlier run of this tournament in the database.
    Earlier,
    /// Drawn at random for this run.
    Drawn,
}

impl Chosen {
    /// `self`, unless it is a fresh draw and `other` is not (a seed drawn
    /// once for a run is kept when its field changes).
    pub fn or(self, other: Chosen) -> Chosen {
        match (self.from, other.from) {
            (SeedFrom::Drawn, _) => other,
            _ => self,
        }
    }

    /// The progress line of a seed the run chose itself.
    pub fn say(&self, db: &Path, progress: &Progress) {
        match self.from {
            SeedFrom::Spec => {}
            SeedFrom::Earlier => progress.say(&format!(
                "seed {}, from the earlier run of this tournament in {} (pass --seed to choose)",
                self.seed,
                db.display()
            )),
            SeedFrom::Drawn => progress.say(&format!(
                "seed {}, drawn at random and recorded in {}",
                self.seed,
                db.display()
            )),
        }
    }
}

/// Chooses the seed of a run that was given none, for a challenge that
/// draws one ([`SeedDefault::DrawAndRecord`]): the seed of the earlier run
/// of this tournament, else a new random one. Otherwise `spec`'s.
pub fn choose_seed(
    info: &ChallengeInfo,
    seed_given: bool,
    spec: &TournamentSpec,
    store: &Store,
) -> Result<Chosen> {
    if seed_given || info.seed != SeedDefault::DrawAndRecord {
        return Ok(Chosen {
            seed: spec.seed,
            from: SeedFrom::Spec,
        });
    }
    Ok(match earlier_seed(store, spec)? {
        Some(seed) => Chosen {
            seed,
            from: SeedFrom::Earlier,
        },
        None => Chosen {
            seed: rand::random(),
            from: SeedFrom::Drawn,
        },
    })
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
    let programs = spec
        .bots
        .iter()
        .map(|b| program(info, spec, sandbox, b))
        .collect::<Result<Vec<BotProgram>>>()?;
    let logs = spec
        .bots
        .iter()
        .map(|b| BotLog::new(log_path(&spec.dir, &b.name)))
        .collect();
    Ok((programs, logs))
}

/// One bot's program, confined under the challenge's policy with a
/// confinement of its own (the preflight's calls get theirs, which ends
/// with them).
pub fn program(
    info: &ChallengeInfo,
    spec: &TournamentSpec,
    sandbox: &Sandbox<'_>,
    bot: &BotSpec,
) -> Result<BotProgram> {
    let memory_mb = spec
        .settings
        .get("memory-mb")
        .and_then(|v| v.trim().parse::<u64>().ok());
    let argv = crate::protocols::expand_all(&bot.argv)?;
    let mut named = named_paths(&argv, &spec.dir, &sandbox.denied);
    named.extend(protocols_grant(
        bot.argv.iter().any(|w| crate::protocols::uses(w)),
    )?);
    let confinement = confine(sandbox, info.name, &bot.folder, memory_mb, &named)?;
    Ok(program_for(spec, bot, argv, confinement))
}

/// A build with `{protocols}` expanded, and what it must be able to read
/// for that.
fn expand_build(build: &Build) -> Result<(Build, Vec<PathBuf>)> {
    let uses = crate::protocols::uses(&build.command);
    let command = match uses {
        true => crate::protocols::expand(&build.command, crate::protocols::dir()?),
        false => build.command.clone(),
    };
    let build = Build {
        command,
        timeout_s: build.timeout_s,
    };
    Ok((build, protocols_grant(uses)?))
}

/// The referee's protocols folder, readable whole to a bot or build that
/// names it with `{protocols}`: its files are the referee's, never a
/// tournament's, so this holds even where the folder lies in a denied tree.
fn protocols_grant(used: bool) -> Result<Vec<PathBuf>> {
    Ok(match used {
        true => vec![crate::protocols::dir()?.to_path_buf()],
        false => Vec::new(),
    })
}

/// A bot's process settings from its spec, with its command line as it
/// runs (`{protocols}` expanded).
fn program_for(
    spec: &TournamentSpec,
    bot: &BotSpec,
    argv: Vec<String>,
    confinement: Confinement,
) -> BotProgram {
    BotProgram {
        name: bot.name.clone(),
        argv,
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
    use super::{expand_build, named_paths, Build};

    #[test]
    fn a_build_naming_protocols_runs_expanded_and_may_read_the_folder() {
        let build = Build {
            command: "g++ -I {protocols}/gun-duel {protocols}/gun-duel/driver.cpp".into(),
            timeout_s: 1,
        };
        let (expanded, granted) = expand_build(&build).unwrap();
        let dir = crate::protocols::dir().unwrap();
        let d = dir.display();
        assert_eq!(
            expanded.command,
            format!("g++ -I {d}/gun-duel {d}/gun-duel/driver.cpp")
        );
        assert_eq!(granted, vec![dir.to_path_buf()]);
        assert!(dir.join("gun-duel/driver.cpp").is_file());
        let plain = Build {
            command: "make".into(),
            timeout_s: 1,
        };
        assert_eq!(expand_build(&plain).unwrap(), (plain.clone(), Vec::new()));
    }

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
