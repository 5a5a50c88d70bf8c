//! A bot's command line and the environment every one of its processes gets.

use super::folder_quota::FolderQuota;
use referee_sandbox::spawn::{Command, Stdin};
use referee_sandbox::Confinement;
use std::path::PathBuf;

/// Everything needed to start one of a bot's processes.
#[derive(Debug, Clone)]
pub struct BotProgram {
    /// The bot's name, as in instructions.txt.
    pub name: String,
    /// The command split into words (no shell); per-call arguments are appended.
    pub argv: Vec<String>,
    /// Working directory: the tournament directory.
    pub cwd: PathBuf,
    /// The bot's own folder: its HOME and TMPDIR.
    pub folder: PathBuf,
    /// Applied in the child just before exec.
    pub confinement: Confinement,
    /// Variables added to the clean environment (a challenge's own, such as
    /// forty's single-threaded numeric libraries), after PATH, HOME and
    /// TMPDIR, so they may override those.
    pub env: Vec<(String, String)>,
    /// What its folder may hold, measured after each call (per-move bots)
    /// or game (persistent ones); `None` where the folder is not writable
    /// or not the bot's alone (`referee play`).
    pub quota: Option<FolderQuota>,
}

impl BotProgram {
    /// A `Command` for one process of this bot with `extra` arguments
    /// appended: its own process group (always, see `spawn`), a clean
    /// environment (the referee's PATH, HOME and TMPDIR set to the bot's
    /// folder, then [`BotProgram::env`]), `stdin`, stdout and stderr piped,
    /// and the bot's confinement.
    pub fn command(&self, extra: &[String], stdin: Stdin) -> Command {
        let (program, args) = match self.argv.split_first() {
            Some((p, a)) => (p.as_str(), a),
            // Unreachable for parsed instructions (a command has a word);
            // spawning "" fails cleanly and becomes a SpawnFailed reply.
            None => ("", &[][..]),
        };
        let mut cmd = Command::new(program);
        cmd.args(args)
            .args(extra)
            .current_dir(&self.cwd)
            .env("HOME", &self.folder)
            .env("TMPDIR", &self.folder)
            .stdin(stdin)
            .confinement(&self.confinement);
        if let Some(path) = std::env::var_os("PATH") {
            cmd.env("PATH", path);
        }
        for (key, value) in &self.env {
            cmd.env(key, value);
        }
        cmd
    }
}
