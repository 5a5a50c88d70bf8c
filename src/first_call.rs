//! What a bot's first call says about whether it can play at all: the
//! preflight's [`Verdict`] (each challenge makes the call through its own
//! codec and transport, `Challenge::first_call`, and judges it here), the
//! first meaningful line of what it wrote on stderr, plain words for a
//! program that would not start, and where its files should be.
//!
//! "Cannot start" is narrow on purpose: the program could not be started
//! (missing, not executable, its interpreter missing, refused by the
//! sandbox), or it exited with an error status before giving an answer
//! (an interpreter that cannot open its script, an import that fails, a
//! missing library, a file it may not read). A bot that runs and answers
//! badly (a timeout, garbage, a signal in its own code) only plays badly:
//! its first answer is reported, and the contract decides what it costs.

use crate::bot::start::SANDBOX_REFUSED;
use crate::bot::BotLog;
use crate::bot::BotProgram;
use game_core::{Ending, Fault, Reply};
use referee_sandbox::sys::{ExitKind, Reaped};
use std::path::{Path, PathBuf};

/// What a bot's first call showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It answered as its contract asks.
    Answered,
    /// It runs, but its first answer was a fault (what kind): it plays, and
    /// loses what the fault costs. Its stderr stays in its log.
    Faulted(String),
    /// It cannot start (why, in one line, with the line of its stderr that
    /// says so): it would fail every call.
    NotStarted(String),
    /// It was not called, and why (its folder could not be kept as it is,
    /// so the call could not leave it untouched): it plays.
    NotCalled(String),
}

/// The verdict on a one-shot call: its reply, what the challenge's codec
/// made of it (`fault`, `None` for a valid answer) and its stderr (the
/// transport's note when it did not start).
pub fn judge_call(
    program: &BotProgram,
    reply: &Reply,
    fault: Option<Fault>,
    stderr: &[u8],
) -> Verdict {
    let ending = reply.ending;
    match ending {
        Ending::SpawnFailed => return Verdict::NotStarted(not_startable(program, stderr)),
        Ending::Sandbox if stderr.starts_with(SANDBOX_REFUSED.as_bytes()) => {
            return Verdict::NotStarted(note_of(stderr))
        }
        _ => {}
    }
    let Some(fault) = fault else {
        return Verdict::Answered;
    };
    match ending {
        Ending::Exited(code) if code != 0 => {
            let before = if reply.stdout.trim_ascii().is_empty() {
                " before answering"
            } else {
                ""
            };
            Verdict::NotStarted(format!("exit status {code}{before}{}", said(stderr)))
        }
        Ending::TimedOut => Verdict::Faulted("no answer within its time limit (timeout)".into()),
        Ending::Signalled(s) => Verdict::Faulted(format!(
            "killed by {} before answering (crash)",
            crate::check::signal_name(s)
        )),
        Ending::Sandbox => Verdict::Faulted(format!("sandbox: {}", note_of(stderr))),
        _ => Verdict::Faulted(fault.name().to_string()),
    }
}

/// The verdict on a persistent process whose output closed before its
/// first answer: how it ended (`None` if it could not be reaped) and its
/// stderr. An error status is "cannot start"; anything else a fault.
pub fn judge_closed(reaped: Option<Reaped>, stderr: &[u8]) -> Verdict {
    match reaped.map(|r| r.exit) {
        Some(ExitKind::Code(code)) if code != 0 => Verdict::NotStarted(format!(
            "exit status {code} before answering{}",
            said(stderr)
        )),
        Some(ExitKind::Code(_)) => {
            Verdict::Faulted("exited with status 0 before answering (closed)".into())
        }
        Some(ExitKind::Signal(s)) => Verdict::Faulted(format!(
            "killed by {} before answering (crash)",
            crate::check::signal_name(s)
        )),
        None => Verdict::Faulted("closed its output before answering".into()),
    }
}

/// The verdict on a process that could not be started at all: the
/// transport's `note`, with `ending` `SpawnFailed` or `Sandbox`.
pub fn judge_start(program: &BotProgram, ending: Ending, note: &str) -> Verdict {
    match ending {
        Ending::Sandbox => Verdict::NotStarted(note_of(note.as_bytes())),
        _ => Verdict::NotStarted(not_startable(program, note.as_bytes())),
    }
}

/// What a persistent process wrote on stderr, as its log holds it: the
/// section the transport labels `NAME (pid PID) stderr` (empty if the log
/// keeps nothing or was full).
pub fn logged_stderr(log: &BotLog, name: &str, pid: u32) -> Vec<u8> {
    let Ok(text) = std::fs::read(log.path()) else {
        return Vec::new();
    };
    let header = format!("--- {name} (pid {pid}) stderr");
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.split(|&b| b == b'\n') {
        if line.starts_with(b"--- ") {
            inside = line == header.as_bytes();
            continue;
        }
        if inside {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
    }
    out
}

/// `: LINE` with the first meaningful line of `stderr`, or that there was none.
fn said(stderr: &[u8]) -> String {
    match meaningful_line(stderr) {
        Some(line) => format!(": {line}"),
        None => " (nothing on stderr)".to_string(),
    }
}

/// A transport's note without its `referee: ` prefix.
fn note_of(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let line = text.trim().lines().next().unwrap_or_default();
    escaped(line.strip_prefix("referee: ").unwrap_or(line))
}

/// Why the program would not start, in plain words: the command is not on
/// the PATH, the file does not exist or is not executable, or the
/// interpreter on its `#!` line does not exist; else the transport's note.
fn not_startable(program: &BotProgram, note: &[u8]) -> String {
    let Some(first) = program.argv.first() else {
        return note_of(note);
    };
    if !first.contains('/') {
        if crate::bot::start::resolve(program).is_none() {
            return format!("command `{first}` not found on the PATH");
        }
        return note_of(note);
    }
    let file = program.cwd.join(first);
    if std::fs::symlink_metadata(&file).is_err() {
        return format!(
            "`{first}` does not exist (commands run from the tournament folder, {})",
            program.cwd.display()
        );
    }
    if nix::unistd::access(&file, nix::unistd::AccessFlags::X_OK).is_err() {
        return format!(
            "`{first}` is not executable: `chmod +x` it, or name its interpreter (`sh {first}`)"
        );
    }
    if let Some(interp) = crate::bot::start::interpreter(&file) {
        if !interp.exists() {
            return format!(
                "the interpreter `{}` on the #! line of `{first}` does not exist",
                interp.display()
            );
        }
    }
    note_of(note)
}

/// Words that mark a line of stderr as the one saying what went wrong.
const TROUBLE: [&str; 14] = [
    "error",
    "exception",
    "not found",
    "no such",
    "cannot",
    "can't",
    "denied",
    "not permitted",
    "unable",
    "fatal",
    "failed",
    "missing",
    "invalid",
    "errno",
];

/// The line of a program's stderr that says what went wrong, escaped and
/// at most 200 characters: the last line of a Python traceback (the
/// exception), else the first line naming trouble (`Error: Cannot find
/// module` under node's stack lines), else the first non-blank line.
pub fn meaningful_line(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let traceback = lines
        .iter()
        .position(|l| l.starts_with("Traceback (most recent call last)"));
    let chosen = match traceback {
        Some(at) => lines[at + 1..]
            .iter()
            .find(|l| !l.starts_with(char::is_whitespace))
            .or(lines.get(at)),
        None => lines
            .iter()
            .find(|l| {
                let lower = l.to_lowercase();
                TROUBLE.iter().any(|w| lower.contains(w))
            })
            .or(lines.first()),
    }?;
    Some(crate::check::shorten(&escaped(chosen.trim()), 200))
}

/// Control characters shown as escapes, so a line stays one line.
pub fn escaped(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let shown: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            shown
        })
        .collect()
}

/// Where a bot's files should be, when its command names them where the
/// bot cannot reach them: a file in the tournament folder `cwd` outside
/// the bot's own `folder` (which no bot may read or run), or a file of its
/// folder named as if commands ran from there (they run from `cwd`).
pub fn path_hint(argv: &[String], cwd: &Path, folder: &Path) -> Option<String> {
    let name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let root = cwd.canonicalize().ok()?;
    let own = folder.canonicalize().unwrap_or_else(|_| root.join(&name));
    for (i, word) in argv.iter().enumerate() {
        let path = word
            .split_once('=')
            .filter(|_| word.starts_with('-'))
            .map_or(word.as_str(), |(_, p)| p);
        // The program itself is looked up on the PATH unless it has a `/`.
        if path.is_empty() || path.starts_with('-') || (i == 0 && !path.contains('/')) {
            continue;
        }
        let at_root = cwd.join(path);
        match at_root.canonicalize() {
            Ok(real) if real.starts_with(&root) && !real.starts_with(&own) => {
                return Some(format!(
                    "`{path}` is in the tournament folder, outside the bot's own folder `{name}/`: \
                     a bot may read and run only the files of its own folder (and system \
                     locations); move it into `{name}/` and name it `{}` in the command",
                    in_folder(&name, path)
                ));
            }
            Ok(_) => {}
            Err(_) if Path::new(path).is_relative() && folder.join(path).exists() => {
                return Some(format!(
                    "`{path}` is in the bot's folder, but commands run from the tournament \
                     folder: name it `{}`",
                    in_folder(&name, path)
                ));
            }
            Err(_) => {}
        }
    }
    None
}

/// Where a bot's own files are, for a bot that was denied a file: most
/// often one named relative to its folder (`data.txt`), which from the
/// tournament folder, its working directory, is `NAME/data.txt`.
pub fn own_files_hint(folder: &Path) -> String {
    let name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(
        "a bot runs in the tournament folder and may use only its own folder: its files are \
         `{name}/FILE` from there (or under $HOME, which is `{name}/`)"
    )
}

/// `NAME/FILE` for a file named by a path relative to some folder.
fn in_folder(name: &str, path: &str) -> String {
    let file = Path::new(path)
        .file_name()
        .map_or_else(|| PathBuf::from(path), PathBuf::from);
    format!("{name}/{}", file.display())
}

/// How a line bot's first exchange ([`exchange`]) went.
pub enum Exchange {
    /// The run was cancelled: nothing to judge.
    Cancelled,
    /// Judged already: it could not even start, or it ended before
    /// replying ([`judge_closed`], from its exit and its stderr).
    Judged(Verdict),
    /// Its replies, one per ask, up to the first that was no message (how
    /// it gave none in time), which is the last.
    Replied(Vec<game_core::LineReply>),
}

/// One message of a first exchange: what is written, and how long the
/// reply may take (`None`: no reply expected, as for forty's `end`).
pub struct Ask {
    pub lines: Vec<u8>,
    pub wait: Option<std::time::Duration>,
}

/// Starts `call`'s program as a line process (forty's host, a gun-duel
/// `io` bot), sends it each of `asks` in turn, waiting for its reply
/// within the ask's time, then closes its input and gives it `grace` to
/// end. What the process did is logged under `label`. `Err` only when the
/// referee could not start it.
pub async fn exchange(
    call: &crate::challenge::FirstCall<'_>,
    program: &BotProgram,
    framing: crate::bot::Framing,
    label: &str,
    asks: Vec<Ask>,
    grace: std::time::Duration,
) -> crate::error::Result<Exchange> {
    use crate::bot::{Incoming, LineProcess, StartFailure};
    use game_core::LineReply;
    let mut process = match LineProcess::spawn(program, &[], framing, call.log.clone()) {
        Ok(process) => process,
        Err(StartFailure::Bot { ending, note }) => {
            call.log.section(label, format!("{note}\n").as_bytes());
            return Ok(Exchange::Judged(judge_start(program, ending, &note)));
        }
        Err(StartFailure::Machine(e)) => return Err(e),
    };
    let pid = process.pid();
    let mut replies = Vec::new();
    for ask in asks {
        process.send(ask.lines);
        let Some(wait) = ask.wait else {
            continue;
        };
        let deadline = std::time::Instant::now() + wait;
        let got = tokio::select! {
            biased;
            () = call.cancel.cancelled() => None,
            got = process.next_before(deadline) => Some(got),
        };
        let Some(got) = got else {
            process.kill().await;
            return Ok(Exchange::Cancelled);
        };
        let reply = match got {
            None => LineReply::TimedOut,
            Some(Incoming::Message(m, _)) => LineReply::Message(m),
            Some(Incoming::TooLong(_)) => LineReply::TooLong,
            Some(Incoming::Closed) => LineReply::Closed,
        };
        let last = !matches!(reply, LineReply::Message(_));
        replies.push(reply);
        if last {
            break;
        }
    }
    let reaped = process.shutdown(grace).await;
    // Closed before its first reply: it never started. Closed later, it
    // started and then failed, which the challenge judges as a fault.
    if matches!(replies.as_slice(), [LineReply::Closed]) {
        let stderr = logged_stderr(call.log, &program.name, pid);
        return Ok(Exchange::Judged(judge_closed(reaped, &stderr)));
    }
    Ok(Exchange::Replied(replies))
}

#[cfg(test)]
mod tests {
    use super::*;
    use referee_sandbox::Confinement;

    fn program(argv: &[&str], cwd: &Path) -> BotProgram {
        BotProgram {
            name: "b".into(),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            cwd: cwd.to_path_buf(),
            folder: cwd.join("b"),
            confinement: Confinement::minimal(),
            env: Vec::new(),
            quota: None,
        }
    }

    #[test]
    fn the_meaningful_line_is_the_exception_or_the_first_trouble() {
        let python = b"Traceback (most recent call last):\n  File \"/t/error/bot.py\", line 1, in <module>\n    import numpy\nModuleNotFoundError: No module named 'numpy'\n";
        assert_eq!(
            meaningful_line(python).as_deref(),
            Some("ModuleNotFoundError: No module named 'numpy'")
        );
        let node = b"node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/t/x.js'\n";
        assert_eq!(
            meaningful_line(node).as_deref(),
            Some("Error: Cannot find module '/t/x.js'")
        );
        assert_eq!(
            meaningful_line(b"\n  thinking\x1b[1m hard\n").as_deref(),
            Some("thinking\\u{1b}[1m hard")
        );
        assert_eq!(meaningful_line(b" \n\n"), None);
    }

    #[test]
    fn only_an_error_status_before_an_answer_or_no_start_is_not_starting() {
        let dir = tempfile::tempdir().unwrap();
        let p = program(&["python3", "b/bot.py"], dir.path());
        let not_started = |v: Verdict| matches!(v, Verdict::NotStarted(_));
        let stderr = b"python3: can't open file 'b/bot.py': [Errno 2] No such file or directory\n";
        let reply = |ending| Reply::ended(Vec::new(), ending);
        let v = judge_call(
            &p,
            &reply(Ending::Exited(2)),
            Some(Fault::BadOutput),
            stderr,
        );
        assert_eq!(
            v,
            Verdict::NotStarted(format!(
                "exit status 2 before answering: {}",
                String::from_utf8_lossy(stderr).trim()
            ))
        );
        // An answer counts whatever the status; a bad answer with status 0,
        // a timeout or a signal is playing badly, not failing to start.
        assert_eq!(
            judge_call(&p, &reply(Ending::Exited(1)), None, b""),
            Verdict::Answered
        );
        for (ending, fault) in [
            (Ending::Exited(0), Fault::BadOutput),
            (Ending::TimedOut, Fault::Timeout),
            (Ending::Signalled(11), Fault::Crash),
        ] {
            let v = judge_call(&p, &reply(ending), Some(fault), b"");
            assert!(!not_started(v), "{ending:?}");
        }
        // The sandbox: refusing the start is not starting; a folder over
        // its limits after the call is a fault.
        let refused = b"referee: the sandbox refused to run `/t/x.sh`: ...";
        let sandbox = reply(Ending::Sandbox);
        assert!(not_started(judge_call(
            &p,
            &sandbox,
            Some(Fault::Sandbox),
            refused
        )));
        let over = b"\nreferee: folder holds more than files (1000 entries)\n";
        assert!(!not_started(judge_call(
            &p,
            &sandbox,
            Some(Fault::Sandbox),
            over
        )));
        let closed = |exit| {
            judge_closed(
                Some(Reaped {
                    exit,
                    cpu: std::time::Duration::ZERO,
                }),
                b"",
            )
        };
        assert!(not_started(closed(ExitKind::Code(1))));
        assert!(!not_started(closed(ExitKind::Code(0))));
        assert!(!not_started(closed(ExitKind::Signal(9))));
    }

    #[test]
    fn a_program_that_does_not_start_is_explained() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path();
        std::fs::create_dir(t.join("b")).unwrap();
        let note = b"referee: cannot start `x`: No such file or directory (os error 2)";
        let why = |argv: &[&str]| match judge_call(
            &program(argv, t),
            &Reply::ended(Vec::new(), Ending::SpawnFailed),
            Some(Fault::SpawnFailed),
            note,
        ) {
            Verdict::NotStarted(why) => why,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            why(&["pyhton3-surely-not-installed", "b/bot.py"]),
            "command `pyhton3-surely-not-installed` not found on the PATH"
        );
        assert!(why(&["./b/missing"]).starts_with("`./b/missing` does not exist"));
        std::fs::write(t.join("b/plain"), "echo 1\n").unwrap();
        assert!(why(&["./b/plain"]).starts_with("`./b/plain` is not executable"));
        std::fs::write(t.join("b/old"), "#!/usr/bin/python1.5\nprint 1\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(t.join("b/old"), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            why(&["./b/old"]),
            "the interpreter `/usr/bin/python1.5` on the #! line of `./b/old` does not exist"
        );
    }

    #[test]
    fn hints_name_files_outside_the_bots_folder_or_named_from_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path();
        std::fs::create_dir(t.join("b")).unwrap();
        std::fs::write(t.join("bot.py"), "").unwrap();
        std::fs::write(t.join("b/own.py"), "").unwrap();
        let argv = |words: &[&str]| words.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let hint = path_hint(&argv(&["python3", "bot.py"]), t, &t.join("b")).unwrap();
        assert!(
            hint.starts_with(
                "`bot.py` is in the tournament folder, outside the bot's own folder `b/`"
            ),
            "{hint}"
        );
        assert!(
            hint.ends_with("name it `b/bot.py` in the command"),
            "{hint}"
        );
        let hint = path_hint(&argv(&["python3", "own.py"]), t, &t.join("b")).unwrap();
        assert_eq!(
            hint,
            "`own.py` is in the bot's folder, but commands run from the tournament folder: name it `b/own.py`"
        );
        assert_eq!(
            path_hint(&argv(&["python3", "b/own.py"]), t, &t.join("b")),
            None
        );
        assert_eq!(
            path_hint(&argv(&["python3", "-u", "/usr"]), t, &t.join("b")),
            None
        );
    }
}
