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
        if let Some(flag) = jvm_memory_flag(program, self.confinement.memory_limit()) {
            cmd.arg(flag);
        }
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

/// The flag that sizes a JVM (a program named `java`) by the bot's memory
/// limit, put before the command's own arguments (so a `-Xmx` there still
/// wins). A JVM sizes its heap from the machine's memory unless a memory
/// cgroup says otherwise, and commits 1/64 of it at start: with 28 GiB or
/// more and no memory cgroup for this user (an unprivileged organiser),
/// that is over the per-process limit (`RLIMIT_DATA`) and every call of a
/// Java bot died at start-up. With the flag it sizes itself exactly as in
/// a memory cgroup of the bot's limit, whichever protections apply.
pub fn jvm_memory_flag(program: &str, memory: Option<u64>) -> Option<String> {
    let is_java = std::path::Path::new(program)
        .file_name()
        .is_some_and(|n| n == "java");
    memory
        .filter(|_| is_java)
        .map(|bytes| format!("-XX:MaxRAM={bytes}"))
}

/// [`jvm_memory_flag`] for every JVM a shell command line starts (a
/// `build` running `javac`, or a script that runs `java`), through the
/// variable every JVM reads. The JVM prints one `Picked up
/// JAVA_TOOL_OPTIONS` line on stderr, so it is used only where a command
/// runs once (a build), not for every call of a bot.
pub fn jvm_memory_env(memory: Option<u64>) -> Option<(String, String)> {
    memory.map(|bytes| {
        (
            "JAVA_TOOL_OPTIONS".to_string(),
            format!("-XX:MaxRAM={bytes}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_program_named_java_gets_the_memory_flag() {
        let mb512 = Some(512 << 20);
        assert_eq!(
            jvm_memory_flag("java", mb512).as_deref(),
            Some("-XX:MaxRAM=536870912")
        );
        assert_eq!(
            jvm_memory_flag("/usr/lib/jvm/x/bin/java", mb512).as_deref(),
            Some("-XX:MaxRAM=536870912")
        );
        assert_eq!(jvm_memory_flag("javac", mb512), None);
        assert_eq!(jvm_memory_flag("./javaBot/run", mb512), None);
        assert_eq!(jvm_memory_flag("java", None), None);
    }
}
