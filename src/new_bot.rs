//! `referee new CHALLENGE NAME [--lang L]`: a starter bot folder that
//! follows its challenge's contract as written, so a bot author starts
//! from something `referee check` passes and a tournament accepts.
//!
//! The templates are the files under `templates/<challenge>/<lang>/`,
//! compiled into the binary (an installed referee has no repository
//! beside it). Each holds the source and a `bot.toml` (with `build` where
//! the language needs one, and `name` and `run` so that the folder joins a
//! tournament by itself). `{{name}}` in a file or a file name becomes the
//! bot's name, `{{class}}` a class name made from it.

use crate::challenge::ChallengeId;
use crate::error::{Error, Result};
use crate::status::Status;
use include_dir::{include_dir, Dir};
use std::path::{Path, PathBuf};

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/templates");

/// `referee new CHALLENGE NAME`.
#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// The challenge.
    pub challenge: ChallengeId,
    /// The bot's name, which is also its folder's: letters, digits, `_`
    /// and `-`.
    pub name: String,
    /// The language (default: python; bf for bf-joust).
    #[arg(long, value_enum)]
    pub lang: Option<Lang>,
    /// Where to create the bot's folder (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// A template's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    Python,
    C,
    Cpp,
    Js,
    Java,
    Sh,
    /// A bf-joust program.
    Bf,
}

impl Lang {
    /// The template folder's name.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Js => "js",
            Lang::Java => "java",
            Lang::Sh => "sh",
            Lang::Bf => "bf",
        }
    }
}

/// The languages `challenge` has templates for; the first is the default.
pub fn languages(challenge: ChallengeId) -> Vec<Lang> {
    let prefix = format!("{}/", challenge.name());
    let mut langs: Vec<Lang> = <Lang as clap::ValueEnum>::value_variants()
        .iter()
        .copied()
        .filter(|l| TEMPLATES.get_dir(format!("{prefix}{}", l.name())).is_some())
        .collect();
    // Python first: the default where there is one.
    langs.sort_by_key(|l| *l != Lang::Python);
    langs
}

/// A bot name that is a folder name, a word in a command line and a TOML
/// string as it stands.
fn validate(name: &str) -> Result<()> {
    crate::instructions::validate_name(name).map_err(Error::input)?;
    let fits = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if fits {
        Ok(())
    } else {
        Err(Error::input(format!(
            "`{name}`: a new bot's name is letters, digits, `_` and `-`, starting with a letter or digit"
        )))
    }
}

/// A class name from a bot name: `-` becomes `_`, and a leading digit
/// gets `Bot` in front.
fn class_name(name: &str) -> String {
    let class = name.replace('-', "_");
    if class.starts_with(|c: char| c.is_ascii_digit()) {
        format!("Bot{class}")
    } else {
        class
    }
}

/// A template's text with its placeholders filled in.
fn fill(text: &str, name: &str) -> String {
    text.replace("{{name}}", name)
        .replace("{{class}}", &class_name(name))
}

/// `referee new CHALLENGE NAME [--lang L] [--dir DIR]`: writes the folder
/// and says how to build, check, play and enter the bot.
pub fn new(args: NewArgs) -> Result<Status> {
    let NewArgs {
        challenge,
        name,
        lang,
        dir,
    } = args;
    validate(&name)?;
    let langs = languages(challenge);
    let lang = match lang {
        Some(l) if langs.contains(&l) => l,
        Some(l) => {
            return Err(Error::input(format!(
                "{challenge} has no {} template (--lang {})",
                l.name(),
                names(&langs)
            )))
        }
        None => *langs
            .first()
            .ok_or_else(|| Error::machine(format!("no templates for {challenge}")))?,
    };
    let template = TEMPLATES
        .get_dir(format!("{}/{}", challenge.name(), lang.name()))
        .ok_or_else(|| Error::machine(format!("no {} template for {challenge}", lang.name())))?;
    let parent = dir.clone().unwrap_or_default();
    let folder = parent.join(&name);
    if folder.symlink_metadata().is_ok() {
        return Err(Error::input(format!(
            "{}: already exists (choose another name, or remove it first)",
            folder.display()
        )));
    }
    std::fs::create_dir(&folder)
        .map_err(|e| Error::input(format!("{}: cannot create it: {e}", folder.display())))?;
    let mut written = Vec::new();
    for file in template.files() {
        let Some(base) = file.path().file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let base = fill(base, &name);
        let text = std::str::from_utf8(file.contents())
            .map_err(|_| Error::machine(format!("template {} is not text", base)))?;
        let path = folder.join(&base);
        std::fs::write(&path, fill(text, &name))
            .map_err(|e| Error::machine(format!("{}: {e}", path.display())))?;
        written.push(base);
    }
    written.sort();
    let toml = crate::bot_toml::BotToml::load(&folder)?.unwrap_or_default();
    crate::output::print_stdout(&next_steps(
        challenge,
        lang,
        &name,
        &folder,
        dir.as_deref(),
        &written,
        &toml,
    ))?;
    Ok(Status::Done)
}

/// `python, c, ...`
fn names(langs: &[Lang]) -> String {
    langs
        .iter()
        .map(|l| l.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What `new` prints: the files, then how to build, check, play and enter
/// the bot, as commands to copy.
fn next_steps(
    challenge: ChallengeId,
    lang: Lang,
    name: &str,
    folder: &Path,
    dir: Option<&Path>,
    written: &[String],
    toml: &crate::bot_toml::BotToml,
) -> String {
    let q = |s: &str| shell_words::quote(s).into_owned();
    let shown = folder.display().to_string();
    let mut out = format!(
        "created {shown}/ for {challenge} in {}: {}\n\n",
        lang.name(),
        written.join(", ")
    );
    if let Some(build) = &toml.build {
        out.push_str(&format!("build it:  cd {} && {build}\n", q(&shown)));
    }
    // From the folder above the bot's: the tournament's command, or the
    // file itself where `play` takes a file.
    let from_above = match (challenge, lang) {
        (ChallengeId::Forty, Lang::Python) => format!("{name}/bot.py"),
        (_, Lang::Bf) => format!("{name}/{name}.bf"),
        _ => toml.run.clone().unwrap_or_default(),
    };
    // `check` runs the bot as a tournament held in its folder's parent
    // does: the same command, from there (a .bf file is only read).
    let checked = match lang {
        Lang::Bf => format!("{name}.bf"),
        _ => from_above.clone(),
    };
    out.push_str(&format!(
        "check it:  referee check {challenge} {} --cwd {}\n",
        q(&checked),
        q(&shown)
    ));
    let cwd = dir.map_or(String::new(), |d| {
        format!(" --cwd {}", q(&d.display().to_string()))
    });
    out.push_str(&format!(
        "play it:   referee play {challenge} {} {}{cwd}    (against itself)\n",
        q(&from_above),
        q(&from_above)
    ));
    out.push_str(&format!(
        "enter it:  put {name}/ beside the tournament's instructions.txt: it joins by itself{}; or list it there as\n             {name} {}\n",
        if toml.build.is_some() { " and is built first" } else { "" },
        match lang {
            Lang::Bf => format!("{name}/{name}.bf"),
            _ => toml.run.clone().unwrap_or_default(),
        }
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_process_challenge_has_six_languages_and_bf_joust_one() {
        for &c in ChallengeId::all() {
            let langs = languages(c);
            if c == ChallengeId::BfJoust {
                assert_eq!(langs, [Lang::Bf]);
            } else {
                assert_eq!(langs.len(), 6, "{c}: {langs:?}");
                assert_eq!(langs[0], Lang::Python, "{c}");
                assert!(!langs.contains(&Lang::Bf), "{c}");
            }
        }
    }

    #[test]
    fn every_template_has_a_bot_toml_that_parses_once_filled() {
        for &c in ChallengeId::all() {
            for l in languages(c) {
                let dir = TEMPLATES
                    .get_dir(format!("{}/{}", c.name(), l.name()))
                    .unwrap();
                let toml = dir
                    .files()
                    .find(|f| f.path().ends_with("bot.toml"))
                    .unwrap_or_else(|| panic!("{c}/{}: no bot.toml", l.name()));
                let text = fill(toml.contents_utf8().unwrap(), "my-bot");
                let parsed = crate::bot_toml::BotToml::parse(Path::new("bot.toml"), &text)
                    .unwrap_or_else(|e| panic!("{c}/{}: {e}", l.name()));
                // A drop-in, unless it must run through forty's host.
                if (c, l) != (ChallengeId::Forty, Lang::Python) {
                    assert_eq!(parsed.name.as_deref(), Some("my-bot"), "{c}/{}", l.name());
                    assert!(parsed.run.is_some(), "{c}/{}", l.name());
                }
                let compiled = matches!(l, Lang::C | Lang::Cpp | Lang::Java);
                assert_eq!(parsed.build.is_some(), compiled, "{c}/{}", l.name());
            }
        }
    }

    #[test]
    fn names_must_fit_a_folder_a_command_and_a_class() {
        assert!(validate("my-bot_2").is_ok());
        for bad in ["", "-x", "a b", "a/b", "it's", "logs", "a.b"] {
            assert!(validate(bad).is_err(), "{bad}");
        }
        assert_eq!(class_name("my-bot"), "my_bot");
        assert_eq!(class_name("2fast"), "Bot2fast");
        assert_eq!(fill("{{name}}/{{class}}", "9-a"), "9-a/Bot9_a");
    }
}
