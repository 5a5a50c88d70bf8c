//! Starting one of a bot's processes, and whose fault it is when that
//! fails. This is the one place that decides:
//!
//! - the referee's own resources ran out (`EMFILE`, `ENFILE`, `ENOMEM`, or
//!   `EAGAIN` while the bot has no process of its own that could have
//!   filled its pids limit): not the bot's fault, so nothing may be
//!   recorded as if it were. The run stops with exit status 1 and one
//!   line; the game in progress is not stored and a rerun plays it.
//!   `EAGAIN` is retried for a while first (another bot's processes being
//!   killed free the slots);
//! - the sandbox refused to run the program: `exec` failed with `EACCES`
//!   or `EPERM` for a confined bot although the referee itself may run the
//!   file, so the confinement denied it (the program, or the interpreter of
//!   its `#!` line, lies where a bot may not run programs). The call ends
//!   as [`Ending::Sandbox`], with a line in the bot's log naming the path;
//! - anything else (no such program, not executable, the bot's own pids
//!   limit full) is the bot's: [`Ending::SpawnFailed`].

use super::program::BotProgram;
use crate::error::Error;
use game_core::Ending;
use referee_sandbox::spawn::{Child, Command, StepFailed};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a bot's process did not start.
#[derive(Debug)]
pub enum StartFailure {
    /// The bot's: its call ends with `ending` (`SpawnFailed` or `Sandbox`),
    /// and `note` goes to its log.
    Bot { ending: Ending, note: String },
    /// The referee's own: the run must stop.
    Machine(Error),
}

impl std::fmt::Display for StartFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartFailure::Bot { note, .. } => f.write_str(note),
            StartFailure::Machine(e) => write!(f, "{e}"),
        }
    }
}

/// How long `EAGAIN` (no process slot for the referee) is retried before
/// the run stops.
const EAGAIN_PATIENCE: Duration = Duration::from_secs(2);

/// Starts `command`, a process of `program`, registered with the reaper.
/// `EAGAIN` that is not the bot's is retried (the calling thread sleeps: it
/// only happens when the machine is out of processes).
pub(crate) fn start(program: &BotProgram, command: &Command) -> Result<Child, StartFailure> {
    let mut pause = Duration::from_millis(5);
    let mut waited = Duration::ZERO;
    loop {
        let e = match super::reaper::spawn(command) {
            Ok(child) => return Ok(child),
            Err(e) => e,
        };
        let retry = errno(&e) == Some(libc::EAGAIN) && !bot_has_processes(program);
        if retry && waited < EAGAIN_PATIENCE {
            std::thread::sleep(pause);
            waited += pause;
            pause = (pause * 2).min(Duration::from_millis(250));
            continue;
        }
        return Err(judge(program, &e));
    }
}

/// Whose fault a failure to start (or to set up) a process of `program` is.
pub(crate) fn judge(program: &BotProgram, e: &io::Error) -> StartFailure {
    let cmd = program.argv.first().map_or("", String::as_str);
    let errno = errno(e);
    let short_of = match errno {
        Some(libc::EMFILE) => Some("file descriptors (raise `ulimit -n`)"),
        Some(libc::ENFILE) => Some("file descriptors (the system's limit, fs.file-max)"),
        Some(libc::ENOMEM) => Some("memory"),
        Some(libc::EAGAIN) if !bot_has_processes(program) => {
            Some("processes (`ulimit -u`, or the machine's limit)")
        }
        _ => None,
    };
    if let Some(what) = short_of {
        return StartFailure::Machine(Error::machine(format!(
            "cannot start a process of bot `{}` (`{cmd}`): {e}; the referee is out of {what}, \
             which is not the bot's fault: nothing is recorded for the game in progress",
            program.name
        )));
    }
    let exec_denied =
        e.raw_os_error().is_some() && matches!(errno, Some(libc::EACCES | libc::EPERM));
    if exec_denied && program.confinement.is_confined() {
        if let Some(path) = resolve(program).filter(|p| referee_may_run(p)) {
            return StartFailure::Bot {
                ending: Ending::Sandbox,
                note: sandbox_note(program, &path),
            };
        }
    }
    // In its own mount namespace the bot does not even see the tournament
    // folder but for its own folder: a program there is missing to it.
    if e.raw_os_error().is_some() && errno == Some(libc::ENOENT) && program.confinement.namespaced()
    {
        // The program itself, or, for a script in its own folder, the
        // interpreter on its `#!` line.
        let hidden = |p: &PathBuf| {
            let run = match interpreter(p) {
                Some(interp) if !hidden_from(program, p) => interp,
                _ => p.clone(),
            };
            hidden_from(program, &run) && referee_may_run(&run)
        };
        if let Some(path) = resolve(program).filter(hidden) {
            return StartFailure::Bot {
                ending: Ending::Sandbox,
                note: sandbox_note(program, &path),
            };
        }
    }
    StartFailure::Bot {
        ending: Ending::SpawnFailed,
        note: format!("referee: cannot start `{cmd}`: {e}"),
    }
}

/// The errno of a spawn error, whichever step of the start it came from.
fn errno(e: &io::Error) -> Option<i32> {
    e.raw_os_error().or_else(|| {
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<StepFailed>())
            .map(|step| step.errno)
    })
}

/// Whether the bot has processes now (its pids cgroup is not empty): then
/// `EAGAIN` may be its own pids limit, full of its own processes.
fn bot_has_processes(program: &BotProgram) -> bool {
    program.confinement.bot_processes().is_some_and(|n| n > 0)
}

/// The file exec tried: the command's first word relative to the working
/// directory, or found on the bot's `PATH`.
pub(crate) fn resolve(program: &BotProgram) -> Option<PathBuf> {
    let first = program.argv.first()?;
    if first.contains('/') {
        return Some(program.cwd.join(first));
    }
    let path = program
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| std::ffi::OsString::from(v))
        .or_else(|| std::env::var_os("PATH"))?;
    std::env::split_paths(&path)
        .map(|dir| program.cwd.join(dir).join(first))
        .find(|p| p.is_file())
}

/// Whether `path` lies in what a bot's mount namespace hides: the
/// tournament folder (its working directory) but for its own folder.
fn hidden_from(program: &BotProgram, path: &Path) -> bool {
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let path = real(path);
    path.starts_with(real(&program.cwd)) && !path.starts_with(real(&program.folder))
}

/// Whether the referee, unconfined, may execute `path`: if so, and the
/// confined bot may not, its sandbox is what refused.
fn referee_may_run(path: &Path) -> bool {
    nix::unistd::access(path, nix::unistd::AccessFlags::X_OK).is_ok()
}

/// The line for the bot's log: which path the sandbox refused, and where a
/// bot may run programs from.
fn sandbox_note(program: &BotProgram, path: &Path) -> String {
    let folder = program
        .folder
        .canonicalize()
        .unwrap_or_else(|_| program.folder.clone());
    let file = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    // A program in the bot's own folder is allowed: then it is the
    // interpreter on its `#!` line that is not.
    let refused = if file.starts_with(&folder) {
        match interpreter(&file) {
            Some(interp) => format!(
                "`{}` (the interpreter on the #! line of `{}`)",
                interp.display(),
                file.display()
            ),
            None => format!("`{}`", file.display()),
        }
    } else {
        format!("`{}`", file.display())
    };
    format!(
        "{SANDBOX_REFUSED} {refused}: a bot may only run programs inside its own folder (`{}`) or in system locations",
        folder.display()
    )
}

/// How the log note of a start the sandbox refused begins: such a call
/// never ran (a call whose folder was over its limits afterwards is a
/// `Sandbox` ending too, with a note of its own).
pub const SANDBOX_REFUSED: &str = "referee: the sandbox refused to run";

/// The interpreter named by a script's `#!` line.
pub(crate) fn interpreter(file: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    // Opened without blocking: the bot's folder may hold a FIFO by that name.
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(file)
        .ok()?;
    let n = f.read(&mut head).ok()?;
    let line = head.get(..n)?.strip_prefix(b"#!")?;
    let line = line.split(|&b| b == b'\n').next()?;
    let text = std::str::from_utf8(line).ok()?;
    text.split_whitespace().next().map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use referee_sandbox::Confinement;

    fn program(argv: &[&str], dir: &Path) -> BotProgram {
        BotProgram {
            name: "b".into(),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            cwd: dir.to_path_buf(),
            folder: dir.join("b"),
            confinement: Confinement::minimal(),
            env: Vec::new(),
            quota: None,
        }
    }

    #[test]
    fn the_referees_own_resources_are_a_machine_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = program(&["./x"], dir.path());
        for errno in [libc::EMFILE, libc::ENFILE, libc::ENOMEM, libc::EAGAIN] {
            let e = io::Error::from_raw_os_error(errno);
            assert!(matches!(judge(&p, &e), StartFailure::Machine(_)), "{errno}");
            // Also from a step of the child before exec.
            let step = io::Error::new(
                e.kind(),
                StepFailed {
                    step: "confinement",
                    errno,
                },
            );
            match judge(&p, &step) {
                StartFailure::Machine(e) => {
                    let text = e.to_string();
                    assert!(text.contains("not the bot's fault"), "{text}");
                    assert!(text
                        .starts_with("cannot start a process of bot `b` (`./x`): confinement: "));
                }
                other => panic!("{errno}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_missing_or_unconfined_refused_program_is_the_bots() {
        let dir = tempfile::tempdir().unwrap();
        let p = program(&["./x"], dir.path());
        for errno in [libc::ENOENT, libc::EACCES, libc::ENOEXEC] {
            let e = io::Error::from_raw_os_error(errno);
            match judge(&p, &e) {
                StartFailure::Bot { ending, note } => {
                    assert_eq!(ending, Ending::SpawnFailed);
                    assert!(note.starts_with("referee: cannot start `./x`: "), "{note}");
                }
                other => panic!("{errno}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_interpreter_of_a_script_is_read_from_its_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("s");
        std::fs::write(&script, "#!/opt/py/bin/python3 -u\nprint(1)\n").unwrap();
        assert_eq!(
            interpreter(&script),
            Some(PathBuf::from("/opt/py/bin/python3"))
        );
        std::fs::write(&script, "\x7fELF").unwrap();
        assert_eq!(interpreter(&script), None);
        nix::unistd::mkfifo(&dir.path().join("f"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert_eq!(interpreter(&dir.path().join("f")), None);
    }
}
