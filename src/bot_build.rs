//! Running a bot's `build` command (from bot.toml) once before a tournament,
//! in the bot's folder, with a time limit. A failed build excludes the bot;
//! its output is kept in the bot's log and shown.

use crate::bot::{run_once, BotLog, BotProgram, Limits};
use crate::config::Build;
use game_core::Ending;
use referee_sandbox::Confinement;
use std::path::Path;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Output kept of a build (stdout and stderr each).
const BUILD_OUTPUT_CAP: usize = 1 << 20;

/// Runs `build` for the bot in `folder`. The inner `Err` (the build
/// failed: the bot is left out) holds a one-line reason and the tail of the
/// build's output; the outer one is the referee's own failure to start it
/// (out of descriptors, memory or processes), which stops the run.
pub async fn run_build(
    name: &str,
    folder: &Path,
    build: &Build,
    confinement: Confinement,
    log: &BotLog,
    cancel: &CancellationToken,
) -> crate::error::Result<Result<(), String>> {
    // Builds are written as shell command lines (`make && strip bot`), so
    // unlike bot commands they go through `sh -c`.
    // A JVM the build starts (javac) sizes itself by the build's limit.
    let env = crate::bot::program::jvm_memory_env(confinement.memory_limit())
        .into_iter()
        .collect();
    let program = BotProgram {
        name: name.to_string(),
        argv: vec!["sh".into(), "-c".into(), build.command.clone()],
        cwd: folder.to_path_buf(),
        folder: folder.to_path_buf(),
        confinement,
        env,
        // sandbox/policy/build.toml: what the folder may hold after a build.
        quota: crate::bot::FolderQuota::for_policy("build"),
    };
    let limits = Limits {
        deadline: Duration::from_secs(build.timeout_s),
        stdout_cap: BUILD_OUTPUT_CAP,
        stderr_cap: BUILD_OUTPUT_CAP,
    };
    let out = run_once(&program, &[], &limits, cancel).await?;
    let mut output = out.reply.stdout.clone();
    output.extend_from_slice(&out.stderr);
    log.section(&format!("build: {}", build.command), &output);
    let failure = match out.reply.ending {
        Ending::Exited(0) => return Ok(Ok(())),
        Ending::Exited(c) => format!("exited with status {c}"),
        Ending::Signalled(s) => format!("killed by signal {s}"),
        Ending::TimedOut => format!("took longer than {} s", build.timeout_s),
        Ending::TooLong => "printed more than 1 MiB".to_string(),
        Ending::SpawnFailed => "could not start `sh`".to_string(),
        Ending::Sandbox => {
            "was refused by the sandbox (its folder over the build policy's disk-mb or files)"
                .to_string()
        }
        Ending::Cancelled => "was interrupted".to_string(),
    };
    let text = String::from_utf8_lossy(&output);
    // Builds run side by side: each line of output names its bot.
    let tail: Vec<&str> = text.lines().rev().take(10).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    Ok(Err(format!(
        "build of `{name}` ({}) {failure}; the bot is left out. Log: {}\n{}",
        build.command,
        log.path().display(),
        tail.iter()
            .map(|l| format!("    {name} | {}", printable(l)))
            .collect::<Vec<_>>()
            .join("\n")
    )))
}

/// A line of build output made safe for a terminal: control characters
/// (escape sequences that set a title, the clipboard, or move the cursor
/// over an earlier line) are shown escaped, tabs kept.
fn printable(line: &str) -> String {
    line.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod printable_tests {
    use super::printable;

    #[test]
    fn escapes_and_carriage_returns_are_shown_not_obeyed() {
        assert_eq!(printable("ok\tline"), "ok\tline");
        assert_eq!(
            printable("\x1b]0;title\x07\rreferee: fake"),
            "\\u{1b}]0;title\\u{7}\\rreferee: fake"
        );
        assert_eq!(printable("é ✓"), "é ✓");
    }
}
