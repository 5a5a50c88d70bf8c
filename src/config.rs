//! From instructions.txt, bot.toml files and command-line flags to a
//! resolved tournament. Flags beat header keys, which beat defaults.

use crate::bot_toml::BotToml;
use crate::challenge::{BotKind, ChallengeId};
use crate::error::{Error, Result};
use crate::instructions::{split_command, validate_name, Instructions, Listed};
use crate::tournament::spec::fingerprint;
use crate::tournament::{BotSpec, TournamentSpec};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the command line says about a tournament run.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub challenge: Option<ChallengeId>,
    pub seed: Option<u64>,
    /// Challenge settings given as their own flags (`--cycles 500` is
    /// `("cycles", "500")`), applied after `--set`, so they win.
    pub flags: Vec<(String, String)>,
    /// `--set KEY=VALUE`, in order.
    pub settings: Vec<(String, String)>,
}

/// A bot's build step from its bot.toml.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    pub command: String,
    pub timeout_s: u64,
}

/// A resolved tournament plus what must happen before it runs.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub challenge: ChallengeId,
    pub spec: TournamentSpec,
    /// Per bot (same order as `spec.bots`).
    pub builds: Vec<Option<Build>>,
    /// Per bot: files that do not count as a change of the bot.
    pub ignores: Vec<Vec<String>>,
    pub instructions: Instructions,
    /// Whether a `seed:` header or `--seed` chose the seed (else it is 0).
    pub seed_given: bool,
    /// Bots whose folder's bot.toml is unusable: not in `spec`, each to be
    /// reported in one line.
    pub left_out: Vec<LeftOut>,
}

/// A bot left out of this run because its bot.toml cannot be used
/// (unreadable, not a small regular file, invalid, or a drop-in without
/// `name` and `run`). Bots write their own folders, so this is the bot's
/// problem, not the run's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    pub name: String,
    /// Why, naming the file (and the line where there is one).
    pub reason: String,
}

impl Resolved {
    /// `self` if it has the two bots a tournament needs.
    pub fn enough_bots(self) -> Result<Resolved> {
        let found = self.spec.bots.len();
        if found >= 2 {
            return Ok(self);
        }
        let also = match self.left_out.len() {
            0 => String::new(),
            n => format!(" ({n} left out)"),
        };
        Err(Error::input_file(
            &self.instructions.path,
            format!("a tournament needs at least 2 bots, found {found}{also}"),
        ))
    }
}

impl LeftOut {
    fn new(name: &str, reason: &Error) -> LeftOut {
        LeftOut {
            name: name.to_string(),
            reason: reason.to_string(),
        }
    }

    /// The warning line, without the `referee: ` prefix.
    pub fn warning(&self) -> String {
        format!("leaving out `{}`: {}", self.name, self.reason)
    }
}

/// Default seconds a bot.toml build may take.
pub const BUILD_TIMEOUT_S: u64 = 300;

/// [`resolve_all`], then at least two bots or an input error.
pub fn resolve(path: &Path, over: &Overrides) -> Result<Resolved> {
    resolve_all(path, over)?.enough_bots()
}

/// The tournament of the instructions at `path`, whatever the number of
/// bots: those left out are in `left_out`, to be reported before
/// [`Resolved::enough_bots`] may stop the run.
pub fn resolve_all(path: &Path, over: &Overrides) -> Result<Resolved> {
    let instructions = Instructions::load(path)?;
    let file = &instructions.path;

    let challenge = match (instructions.header("challenge"), over.challenge) {
        (Some(h), flag) => {
            let named = ChallengeId::parse(&h.value).ok_or_else(|| {
                let known: Vec<_> = ChallengeId::all().iter().map(|c| c.name()).collect();
                Error::input_at(
                    file,
                    h.line,
                    format!(
                        "unknown challenge `{}` (known: {})",
                        h.value,
                        known.join(", ")
                    ),
                )
            })?;
            if let Some(flag) = flag.filter(|f| *f != named) {
                return Err(Error::input_at(
                    file,
                    h.line,
                    format!("the file says `challenge: {named}` but --challenge says {flag}"),
                ));
            }
            named
        }
        (None, Some(flag)) => flag,
        (None, None) => {
            return Err(Error::input_file(
                file,
                "no `challenge:` header; add one or pass --challenge ID",
            ))
        }
    };

    let mut seed = 0u64;
    let mut settings = BTreeMap::new();
    for h in &instructions.headers {
        match h.key.as_str() {
            "challenge" => {}
            "seed" => {
                seed = h.value.parse().map_err(|_| {
                    Error::input_at(
                        file,
                        h.line,
                        format!(
                            "seed must be a whole number from 0 to 2^64-1, not `{}`",
                            h.value
                        ),
                    )
                })?
            }
            key => {
                challenge
                    .get()
                    .check_setting(key, &h.value)
                    .map_err(|m| Error::input_at(file, h.line, m))?;
                settings.insert(key.to_string(), h.value.clone());
            }
        }
    }
    let mut seed_given = instructions.header("seed").is_some();
    if let Some(s) = over.seed {
        seed = s;
        seed_given = true;
    }
    for (key, value) in &over.settings {
        challenge
            .get()
            .check_setting(key, value)
            .map_err(|m| Error::input(format!("--set {key}={value}: {m}")))?;
        settings.insert(key.clone(), value.clone());
    }
    // A setting's own flag is `--set KEY=VALUE` said plainly: given both,
    // the flag wins, as `--help` says.
    for (key, value) in &over.flags {
        challenge
            .get()
            .check_setting(key, value)
            .map_err(|m| Error::input(format!("--{key} {value}: {m}")))?;
        settings.insert(key.clone(), value.clone());
    }

    let dir = instructions.dir.clone();
    let mut bots = Vec::new();
    let mut builds = Vec::new();
    let mut ignores = Vec::new();
    let mut left_out = Vec::new();
    for listed in &instructions.bots {
        // What the instructions say is the organiser's: a mistake there
        // stops the run.
        let (command, argv) = match challenge.info().bot_kind {
            BotKind::Process => {
                if listed.argv.is_empty() {
                    return Err(Error::input_at(
                        file,
                        listed.line,
                        format!("bot `{}` has no command", listed.name),
                    ));
                }
                (listed.command.clone(), listed.argv.clone())
            }
            BotKind::ProgramFile { extension } => {
                let path = listed_program_file(file, &dir, listed, extension)?;
                (path.clone(), vec![path])
            }
        };
        // The bot's folder is the bot's, which may have rewritten its own
        // bot.toml: a broken one leaves this bot out, not the run.
        let folder = dir.join(&listed.name);
        let toml = if folder.is_dir() {
            BotToml::load(&folder)
        } else {
            Ok(None)
        };
        let bot = toml.and_then(|toml| {
            let (bot, build) = bot_spec(
                &listed.name,
                &command,
                argv,
                folder,
                toml.as_ref(),
                challenge,
            )?;
            Ok((bot, build, toml.map(|t| t.ignore).unwrap_or_default()))
        });
        match bot {
            Ok((bot, build, ignore)) => {
                bots.push(bot);
                builds.push(build);
                ignores.push(ignore);
            }
            Err(e) => left_out.push(LeftOut::new(&listed.name, &e)),
        }
    }
    for (name, drop_in) in drop_ins(&dir, &instructions)? {
        let bot = drop_in.and_then(|(folder, toml)| {
            let (bot, build) = drop_in_spec(&dir, &name, folder, &toml, challenge)?;
            Ok((bot, build, toml.ignore))
        });
        match bot {
            Ok((bot, build, ignore)) => {
                bots.push(bot);
                builds.push(build);
                ignores.push(ignore);
            }
            Err(e) => left_out.push(LeftOut::new(&name, &e)),
        }
    }
    Ok(Resolved {
        challenge,
        spec: TournamentSpec {
            challenge: challenge.name().to_string(),
            seed,
            settings,
            bots,
            dir,
            // Listed under the standings, so that none vanishes silently.
            absent: left_out
                .iter()
                .map(|l| crate::tournament::Absent {
                    name: l.name.clone(),
                    reason: l.reason.clone(),
                })
                .collect(),
        },
        builds,
        ignores,
        instructions,
        seed_given,
        left_out,
    })
}

/// A drop-in bot's spec from its bot.toml (which holds `name` and `run`).
fn drop_in_spec(
    dir: &Path,
    name: &str,
    folder: PathBuf,
    toml: &BotToml,
    challenge: ChallengeId,
) -> Result<(BotSpec, Option<Build>)> {
    let run = toml.run.clone().unwrap_or_default();
    let at_run = |m: String| Error::input_at(&toml.path, toml.line_of_key("run").unwrap_or(1), m);
    let (command, argv) = match challenge.info().bot_kind {
        BotKind::Process => {
            let argv = split_command(&run).map_err(at_run)?;
            (run, argv)
        }
        BotKind::ProgramFile { .. } => {
            // `run` names the program file relative to the bot's own folder.
            let path = if Path::new(&run).is_absolute() {
                run.clone()
            } else {
                format!("{name}/{run}")
            };
            check_program_file(dir, &path).map_err(|m| at_run(format!("bot `{name}`: {m}")))?;
            (path.clone(), vec![path])
        }
    };
    bot_spec(name, &command, argv, folder, Some(toml), challenge)
}

fn bot_spec(
    name: &str,
    command: &str,
    argv: Vec<String>,
    folder: PathBuf,
    toml: Option<&BotToml>,
    challenge: ChallengeId,
) -> Result<(BotSpec, Option<Build>)> {
    let interface = match toml.and_then(|t| t.interface.as_ref().map(|i| (t, i))) {
        Some((t, iface)) => {
            let line = t.line_at(iface.span().start);
            challenge
                .get()
                .check_interface(iface.get_ref())
                .map_err(|m| Error::input_at(&t.path, line, m))?;
            Some(iface.get_ref().trim().to_string())
        }
        None => None,
    };
    // A challenge without processes has nothing to build: `build` is ignored.
    let build = toml
        .filter(|_| challenge.info().runs_processes())
        .and_then(|t| {
            t.build.as_ref().map(|b| Build {
                command: b.clone(),
                timeout_s: t.build_timeout_s.unwrap_or(BUILD_TIMEOUT_S),
            })
        });
    Ok((
        BotSpec {
            name: name.to_string(),
            command: command.to_string(),
            argv,
            fingerprint: fingerprint(name, command),
            folder,
            language: toml.and_then(|t| t.language.clone()),
            owner: toml.and_then(|t| t.owner.clone()),
            interface,
            invalid: None,
        },
        build,
    ))
}

/// The program file of a listed bot whose program the referee reads itself
/// (bf-joust): the one word after the name, or in the count layout the
/// command line, relative to the tournament folder; `NAME/NAME.EXT` when
/// the line holds only the name. Returned as given.
fn listed_program_file(
    file: &Path,
    dir: &Path,
    listed: &Listed,
    extension: &str,
) -> Result<String> {
    let name = &listed.name;
    let path = match listed.argv.as_slice() {
        [] => format!("{name}/{name}.{extension}"),
        [path] => path.clone(),
        [path, rest @ ..] => {
            return Err(Error::input_at(
                file,
                listed.command_line,
                format!(
                    "bot `{name}`: extra words after the program file `{path}`: `{}` (an entry is NAME [FILE]; quote a path with spaces)",
                    rest.join(" ")
                ),
            ))
        }
    };
    check_program_file(dir, &path)
        .map_err(|m| Error::input_at(file, listed.command_line, format!("bot `{name}`: {m}")))?;
    Ok(path)
}

/// A program file must exist, be a regular file and be readable.
fn check_program_file(dir: &Path, path: &str) -> std::result::Result<(), String> {
    let full = dir.join(path);
    match std::fs::metadata(&full) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(format!("program file `{path}` not found"))
        }
        Err(e) => Err(format!("cannot read the program file `{path}`: {e}")),
        Ok(m) if !m.is_file() => Err(format!("program file `{path}` is not a file")),
        Ok(_) => std::fs::File::open(&full)
            .map(drop)
            .map_err(|e| format!("cannot read the program file `{path}`: {e}")),
    }
}

/// A drop-in bot's folder and bot.toml, or why it cannot join.
type DropIn = Result<(PathBuf, BotToml)>;

/// Folders of the tournament directory that hold a bot.toml and are not
/// listed in the instructions, in name order: each a drop-in bot (its
/// folder and bot.toml, which has `name` and `run`), or why it cannot join.
fn drop_ins(dir: &Path, instructions: &Instructions) -> Result<Vec<(String, DropIn)>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::input_file(dir, format!("cannot list the folder: {e}")))?;
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let folder = entry.path();
        if !folder.is_dir() {
            continue;
        }
        let Some(folder_name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if instructions.bots.iter().any(|b| b.name == folder_name) {
            continue;
        }
        let toml = match BotToml::load(&folder) {
            Ok(None) => continue,
            Ok(Some(toml)) => drop_in_toml(&folder_name, toml),
            Err(e) => Err(e),
        };
        found.push((folder_name, toml.map(|t| (folder, t))));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// A drop-in's bot.toml, if it names its folder and says how to run it.
fn drop_in_toml(folder_name: &str, toml: BotToml) -> Result<BotToml> {
    let missing = match (&toml.name, &toml.run) {
        (Some(name), Some(_)) => {
            let at_name =
                |m: String| Error::input_at(&toml.path, toml.line_of_key("name").unwrap_or(1), m);
            if name != folder_name {
                return Err(at_name(format!(
                    "name `{name}` must match the folder name `{folder_name}` for a drop-in bot"
                )));
            }
            validate_name(name).map_err(at_name)?;
            return Ok(toml);
        }
        (None, Some(_)) => "`name`",
        (Some(_), None) => "`run`",
        (None, None) => "`name` and `run`",
    };
    Err(Error::input_file(
        &toml.path,
        format!(
            "no {missing}: a bot the instructions do not list joins with `name` and `run` in its bot.toml"
        ),
    ))
}

/// Parses `KEY=VALUE` for `--set`.
pub fn parse_set(s: &str) -> std::result::Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("expected KEY=VALUE, got `{s}`"))?;
    Ok((k.trim().to_string(), v.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve_with(flags: &[(&str, &str)], sets: &[(&str, &str)]) -> Result<Resolved> {
        let dir = tempfile::tempdir().map_err(|e| Error::machine(e.to_string()))?;
        let path = dir.path().join("instructions.txt");
        std::fs::write(
            &path,
            "challenge: meta-ttt\ntimeout-ms: 50\na true\nb true\n",
        )
        .map_err(|e| Error::machine(e.to_string()))?;
        let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        resolve(
            &path,
            &Overrides {
                flags: pairs(flags),
                settings: pairs(sets),
                ..Overrides::default()
            },
        )
    }

    #[test]
    fn a_settings_own_flag_beats_set_which_beats_the_header() {
        let timeout = |r: Result<Resolved>| r.unwrap().spec.settings["timeout-ms"].clone();
        assert_eq!(timeout(resolve_with(&[], &[])), "50");
        assert_eq!(timeout(resolve_with(&[], &[("timeout-ms", "70")])), "70");
        assert_eq!(
            timeout(resolve_with(
                &[("timeout-ms", "90")],
                &[("timeout-ms", "70")]
            )),
            "90"
        );
    }

    #[test]
    fn a_bad_flag_value_is_an_input_error_naming_the_flag() {
        let e = resolve_with(&[("timeout-ms", "soon")], &[]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().starts_with("--timeout-ms soon: "), "{e}");
    }

    #[test]
    fn a_bot_with_an_unusable_bot_toml_is_left_out_and_the_rest_resolve() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("instructions.txt");
        std::fs::write(&path, "challenge: meta-ttt\na true\nb true\nc true\n").unwrap();
        let toml = |folder: &str, text: &str| {
            let f = dir.path().join(folder);
            std::fs::create_dir_all(&f).unwrap();
            std::fs::write(f.join("bot.toml"), text).unwrap();
            f.canonicalize().unwrap().join("bot.toml")
        };
        let b = toml("b", "language = \"C\"\n\nrnu = \"x\"\n");
        let late = toml("late", "name = \"late\"\nrun = \"sh late/run.sh\"\n");
        let half = toml("half", "name = \"half\"\n");
        let other = toml("other", "run = \"true\"\nname = \"another\"\n");
        let empty = toml("empty", "name = \"empty\"\nrun = \"\"\n");
        // A folder without bot.toml is not a bot at all.
        std::fs::create_dir(dir.path().join("notes")).unwrap();
        let r = resolve(&path, &Overrides::default()).unwrap();
        let names: Vec<_> = r.spec.bots.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["a", "c", "late"]);
        assert_eq!((r.builds.len(), r.ignores.len()), (3, 3));
        let warnings: Vec<String> = r.left_out.iter().map(LeftOut::warning).collect();
        let d = |p: &PathBuf| p.display().to_string();
        assert_eq!(
            warnings,
            [
                format!(
                    "leaving out `b`: {}:3: unknown field `rnu`, expected one of {}",
                    d(&b),
                    "`name`, `run`, `build`, `build-timeout-s`, `language`, `owner`, `ignore`, `interface`"
                ),
                format!("leaving out `empty`: {}:2: empty command", d(&empty)),
                format!(
                    "leaving out `half`: {}: no `run`: a bot the instructions do not list joins with `name` and `run` in its bot.toml",
                    d(&half)
                ),
                format!(
                    "leaving out `other`: {}:2: name `another` must match the folder name `other` for a drop-in bot",
                    d(&other)
                ),
            ]
        );
        assert!(late.exists());

        // Left out until two bots are not left: then the run cannot start.
        std::fs::write(&path, "challenge: meta-ttt\nb true\n").unwrap();
        std::fs::remove_dir_all(dir.path().join("late")).unwrap();
        let e = resolve(&path, &Overrides::default()).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string()
                .ends_with("a tournament needs at least 2 bots, found 0 (4 left out)"),
            "{e}"
        );
    }
}
