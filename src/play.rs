//! The shared kit of `referee play`: one game with a transcript, the bots
//! given on the command line. Each challenge's options and game loop are
//! in its folder's `play.rs`; what they share is here.
//!
//! In this mode there are no bot folders, builds or sandbox: every bot runs
//! unconfined in one directory (`--cwd`, or the current one), as a bot
//! author runs their own bot while writing it.

use crate::bot::BotProgram;
use crate::error::{Error, Result};
use referee_sandbox::Confinement;
use std::path::{Path, PathBuf};

/// The bots' directory: `--cwd`, or the current one.
pub fn directory(cwd: Option<&Path>) -> Result<PathBuf> {
    match cwd {
        Some(d) => Ok(d.to_path_buf()),
        None => std::env::current_dir()
            .map_err(|e| Error::machine(format!("no current directory: {e}"))),
    }
}

/// The bot `label` from its command line (split as in instructions.txt,
/// no shell, `{protocols}` expanded), run unconfined in `dir`, which is
/// also its folder.
pub fn program(label: &str, command: &str, dir: &Path) -> Result<BotProgram> {
    let argv = crate::instructions::split_command(command)
        .map_err(|m| Error::input(format!("{label}: {m}")))?;
    let argv = crate::protocols::expand_all(&argv)?;
    Ok(BotProgram {
        name: label.to_string(),
        argv,
        cwd: dir.to_path_buf(),
        folder: dir.to_path_buf(),
        confinement: Confinement::minimal(),
        env: Vec::new(),
        // Both bots share the folder: neither owns it.
        quota: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_command_is_an_input_error_naming_the_bot() {
        let dir = Path::new("/");
        let p = program("X", "python3 'my bot.py' --fast", dir).unwrap();
        assert_eq!(p.argv, ["python3", "my bot.py", "--fast"]);
        assert_eq!((p.cwd.as_path(), p.folder.as_path()), (dir, dir));
        let e = program("O", "python3 'unclosed", dir).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().starts_with("O: "), "{e}");
    }
}
