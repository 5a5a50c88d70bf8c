//! `referee check CHALLENGE BOT`: plays one bot against scripted positions
//! of its challenge and says in plain words whether it follows the
//! contract: what was sent, what it answered, whether that is legal and
//! why not, the time used against the limit; then the files it wrote in
//! its folder, the processes it left behind, how it exited, and a one-line
//! verdict. Exit status 0 when it follows the contract, 1 when it does not.
//!
//! Each challenge's positions and codec live in its folder's `check.rs`
//! (`src/challenges/<id>/check.rs`); what they share is here: the report
//! ([`Report`]), the bot under check run exactly as a tournament held in
//! its folder's parent would run it ([`folder_of`], [`Subject`]: that
//! parent as working directory, the command's paths relative to it, the
//! challenge's sandbox with the folder the bot's own and its siblings out
//! of reach), the folder snapshot before and after, and the end of a
//! persistent bot's life ([`Subject::end_of_input`]). So a bot that names
//! its files relative to its own folder (`data.txt` for `NAME/data.txt`)
//! fails here as it would fail every call of a tournament.
//!
//! Nothing a bot does is an `Err` here: a bot fault is a line of the
//! report. `Err` is for the command line (exit 2) and the machine (exit 1).

pub use crate::excerpt::{first_line, quoted, shorten, signal_name, stderr_excerpt};

use crate::bot::{BotLog, BotProgram, Leftovers, LineProcess};
use crate::challenge::ChallengeId;
use crate::error::{Error, Result};
use crate::status::Status;
use referee_sandbox::sys::{ExitKind, Reaped};
use referee_sandbox::{Confinement, FolderAccess, Policy, Setup, Support};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The report being written, and the problems found so far.
#[derive(Debug, Default)]
pub struct Report {
    out: String,
    problems: Vec<Problem>,
    /// Legal but probably unintended behaviour: listed, not a failure.
    warnings: Vec<String>,
}

/// A problem for the verdict's list; problems of one kind are listed once.
#[derive(Debug)]
struct Problem {
    kind: Option<String>,
    text: String,
    count: usize,
}

impl Report {
    pub fn new() -> Report {
        Report::default()
    }

    /// Appends one line (a newline is added).
    pub fn line(&mut self, text: impl AsRef<str>) {
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    /// An empty line between sections.
    pub fn gap(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }

    /// A way the bot breaks the contract; listed again under the verdict.
    pub fn problem(&mut self, text: impl Into<String>) {
        self.problems.push(Problem {
            kind: None,
            text: text.into(),
            count: 1,
        });
    }

    /// A problem of a `kind` that may recur: the verdict lists the first
    /// and how many more there were.
    pub fn problem_of(&mut self, kind: &str, text: impl Into<String>) {
        match self
            .problems
            .iter_mut()
            .find(|p| p.kind.as_deref() == Some(kind))
        {
            Some(p) => p.count += 1,
            None => self.problems.push(Problem {
                kind: Some(kind.to_string()),
                text: text.into(),
                count: 1,
            }),
        }
    }

    /// Legal by the contract but most likely a mistake (a gun-duel bot that
    /// fires without ammo): listed under the verdict, exit status unchanged.
    pub fn warning(&mut self, text: impl Into<String>) {
        self.warnings.push(text.into());
    }

    pub fn warning_count(&self) -> usize {
        self.warnings.len()
    }

    pub fn has_problems(&self) -> bool {
        !self.problems.is_empty()
    }

    /// `time: W ms of L ms (CPU C ms)` indented by `indent`, with a warning
    /// near the limit.
    pub fn time_at(
        &mut self,
        indent: &str,
        wall: Duration,
        cpu: Option<Duration>,
        limit: Duration,
        over: bool,
    ) {
        self.line(format!("{indent}time: {}", timing(wall, cpu, limit, over)));
    }

    /// `  time:` of a one-shot call: the time charged against the limit,
    /// and the wall time too when the call waited for a CPU.
    pub fn call_time(&mut self, outcome: &crate::bot::Outcome, limit: Duration, over: bool) {
        let mut text = timing(outcome.charged, Some(outcome.cpu), limit, over);
        let waited = outcome.wall.saturating_sub(outcome.charged);
        if waited >= Duration::from_millis(10) {
            text.push_str(&format!(
                "; wall {}, of which {} waiting for a CPU (not charged)",
                ms(outcome.wall),
                ms(waited)
            ));
        }
        self.line(format!("  time: {text}"));
    }

    /// What a call wrote on stderr, if anything: see [`Report::excerpt`].
    pub fn stderr(&mut self, bytes: &[u8]) {
        self.excerpt("  stderr (kept in the bot's log in a tournament): ", bytes);
    }

    /// `head` and the first line of `bytes`, then, indented under it, the
    /// last line that says what went wrong ([`stderr_excerpt`]); nothing
    /// when `bytes` holds no text.
    pub fn excerpt(&mut self, head: &str, bytes: &[u8]) {
        let lines = stderr_excerpt(bytes);
        let Some((first, rest)) = lines.split_first() else {
            return;
        };
        self.line(format!("{head}{first}"));
        let indent = head.len() - head.trim_start().len() + 2;
        for line in rest {
            self.line(format!("{:indent$}{line}", ""));
        }
    }

    /// Appends the one-line verdict (and the problems under it), prints the
    /// report on stdout and returns the exit status: 0 when the bot follows
    /// the contract, 1 otherwise.
    pub fn print(mut self, challenge: ChallengeId, ok: &str) -> Result<Status> {
        self.gap();
        let follows = self.problems.is_empty();
        if follows {
            self.line(format!("verdict: {ok}"));
        } else {
            let n = self.problems.len();
            self.line(format!(
                "verdict: {n} problem{}: the bot does not follow the {challenge} contract yet.",
                if n == 1 { "" } else { "s" }
            ));
            let problems = std::mem::take(&mut self.problems);
            for p in &problems {
                match p.count {
                    1 => self.line(format!("  - {}", p.text)),
                    n => self.line(format!("  - {} (and {} more like it)", p.text, n - 1)),
                }
            }
        }
        if !self.warnings.is_empty() {
            self.line("legal, but worth a look:");
            for w in std::mem::take(&mut self.warnings) {
                self.line(format!("  - {w}"));
            }
        }
        crate::output::print_stdout(&self.out)?;
        Ok(if follows {
            Status::Done
        } else {
            Status::ContractBroken
        })
    }
}

/// `W ms of L ms (CPU C ms)`, or how it went over the limit, with a
/// warning when it used more than half of it.
pub fn timing(wall: Duration, cpu: Option<Duration>, limit: Duration, over: bool) -> String {
    let cpu = cpu.map_or(String::new(), |c| format!(" (CPU {})", ms(c)));
    if over {
        format!(
            "over the limit of {}: stopped after {}{cpu}",
            ms(limit),
            ms(wall)
        )
    } else if wall * 2 > limit {
        format!(
            "{} of {}{cpu}  <- over half the limit: little margin",
            ms(wall),
            ms(limit)
        )
    } else {
        format!("{} of {}{cpu}", ms(wall), ms(limit))
    }
}

/// A duration for a report: `0.4 ms` below 10 ms, whole milliseconds above.
pub fn ms(d: Duration) -> String {
    if d < Duration::from_millis(10) {
        format!("{:.1} ms", d.as_secs_f64() * 1000.0)
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// The bot's folder, as a tournament in its parent folder would have it:
/// `--cwd DIR`; else the folder the command names its files in, relative
/// to the current directory (`python3 mybot/bot.py` run from the
/// tournament folder: `mybot`); else the current directory. The command
/// runs from the folder's parent, as a tournament runs it from the folder
/// of instructions.txt.
pub fn folder_of(cwd: Option<&Path>, argv: &[String]) -> Result<PathBuf> {
    let folder = match cwd {
        Some(d) if d.is_dir() => d.to_path_buf(),
        Some(d) => return Err(Error::input(format!("--cwd {}: not a folder", d.display()))),
        None => {
            let here = std::env::current_dir()
                .map_err(|e| Error::machine(format!("no current directory: {e}")))?;
            named_folder(argv, &here).unwrap_or(here)
        }
    };
    let folder = folder.canonicalize().map_err(|e| {
        Error::machine(format!(
            "{}: cannot resolve the folder: {e}",
            folder.display()
        ))
    })?;
    match folder.parent() {
        Some(_) => Ok(folder),
        None => Err(Error::input(
            "the bot's folder cannot be `/`: a bot's folder lies in its tournament's folder",
        )),
    }
}

/// The folder of `here` whose files the command names (`mybot` for
/// `python3 mybot/bot.py`), if any: the first word that is a relative path
/// of two components or more starting with a folder of `here`.
fn named_folder(argv: &[String], here: &Path) -> Option<PathBuf> {
    argv.iter().find_map(|word| {
        let path = Path::new(word.split_once('=').map_or(word.as_str(), |(_, p)| p));
        let mut parts = path.components();
        let first = match parts.next()? {
            std::path::Component::CurDir => parts.next()?,
            other => other,
        };
        let std::path::Component::Normal(name) = first else {
            return None;
        };
        parts.next()?;
        let folder = here.join(name);
        folder.is_dir().then_some(folder)
    })
}

/// Every file below a folder with its size and modification time.
type Snapshot = BTreeMap<String, (u64, Option<SystemTime>)>;

/// Files looked at in a snapshot at most (a check run from a huge folder
/// stays quick; the report says when it stopped counting).
const SNAPSHOT_FILES: usize = 50_000;

fn snapshot(dir: &Path) -> Snapshot {
    let mut state = Snapshot::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            if state.len() >= SNAPSHOT_FILES {
                return state;
            }
            let p = e.path();
            // symlink_metadata: a link to elsewhere is not followed.
            match e.path().symlink_metadata() {
                Ok(m) if m.is_dir() => stack.push(p),
                Ok(m) => {
                    let rel = p
                        .strip_prefix(dir)
                        .unwrap_or(&p)
                        .to_string_lossy()
                        .into_owned();
                    state.insert(rel, (m.len(), m.modified().ok()));
                }
                Err(_) => {}
            }
        }
    }
    state
}

/// Words in a bot's stderr that say an access was refused.
const DENIAL_WORDS: [&str; 5] = [
    "Permission denied",
    "Read-only file system",
    "Operation not permitted",
    "EACCES",
    "PermissionError",
];

/// The bot under check: its program as a tournament in its folder's
/// parent would run it (from that parent, its folder its HOME and TMPDIR,
/// sandboxed under its challenge's policy), and what it did.
pub struct Subject {
    pub program: BotProgram,
    pub folder: PathBuf,
    support: Support,
    read_only: bool,
    before: Snapshot,
    left_behind: usize,
    escaped: usize,
    /// A line of its stderr that suggests a denied file access.
    denial: Option<String>,
    /// Scratch space outside the bot's folder (logs, the forty host).
    scratch: Scratch,
}

impl Subject {
    /// Prepares `argv` to run as a bot whose folder is `folder` (from
    /// [`folder_of`]) runs in a tournament held in the folder's parent:
    /// from that parent, under the sandbox policy of `challenge` (its
    /// folder its own, the rest of the parent out of reach), with `env`
    /// added to its environment and `{protocols}` expanded (the folder
    /// readable then, as in a tournament).
    pub fn prepare(
        challenge: ChallengeId,
        folder: PathBuf,
        argv: Vec<String>,
        env: Vec<(String, String)>,
    ) -> Result<Subject> {
        let policy = Policy::named(challenge.name()).map_err(Error::machine)?;
        let support = Support::probe();
        let scratch = Scratch::new()?;
        let shared = scratch.0.join("shared");
        std::fs::create_dir(&shared)
            .map_err(|e| Error::machine(format!("{}: {e}", shared.display())))?;
        let uses_protocols = argv.iter().any(|w| crate::protocols::uses(w));
        let argv = crate::protocols::expand_all(&argv)?;
        let tournament = folder.parent().unwrap_or(&folder).to_path_buf();
        let denied = denied_around(&folder, &tournament);
        let mut readable = crate::prepare::named_paths(&argv, &tournament, &denied);
        readable.push(shared);
        if uses_protocols {
            readable.push(crate::protocols::dir()?.to_path_buf());
        }
        let setup = Setup {
            policy: &policy,
            own_folder: &folder,
            denied: &denied,
            readable: &readable,
        };
        let confinement = Confinement::prepare(&setup, &support).map_err(|e| {
            Error::machine(format!(
                "{}: cannot prepare the sandbox: {e}",
                folder.display()
            ))
        })?;
        let read_only = policy.own_folder == FolderAccess::ReadOnly;
        let name = folder
            .file_name()
            .map_or_else(|| "bot".to_string(), |n| n.to_string_lossy().into_owned());
        let program = BotProgram {
            name,
            argv,
            cwd: tournament,
            folder: folder.clone(),
            confinement,
            env,
            // As in a tournament: what the folder holds after each call,
            // beyond what it held when the check started.
            quota: crate::bot::FolderQuota::of(&policy).map(|q| q.beyond_what_is_in(&folder)),
        };
        Ok(Subject {
            program,
            before: snapshot(&folder),
            folder,
            support,
            read_only,
            left_behind: 0,
            escaped: 0,
            denial: None,
            scratch,
        })
    }

    /// A scratch folder outside the bot's folder, removed at the end.
    pub fn scratch(&self) -> &Path {
        &self.scratch.0
    }

    /// The part of the scratch folder the bot may read (as it may read
    /// the files an instructions line names): forty's host.
    pub fn shared(&self) -> PathBuf {
        self.scratch.0.join("shared")
    }

    /// A log for a persistent process's stderr, in the scratch folder.
    pub fn log(&self) -> BotLog {
        BotLog::new(self.scratch.0.join("bot.log"))
    }

    /// The bot's stderr as the log of [`Subject::log`] holds it: section
    /// headers and the referee's own notes left out.
    pub fn logged(&self) -> Vec<u8> {
        self.log_text(false)
    }

    /// The log of [`Subject::log`] without section headers; with the
    /// referee's own notes when `notes` (why a program did not start).
    pub fn log_text(&self, notes: bool) -> Vec<u8> {
        let text = std::fs::read(self.scratch.0.join("bot.log")).unwrap_or_default();
        let mut referee = false;
        let mut out = Vec::new();
        for line in text.split(|&b| b == b'\n') {
            if let Some(label) = line.strip_prefix(b"--- ") {
                referee = label == b"referee";
                continue;
            }
            if notes || !referee {
                out.extend_from_slice(line);
                out.push(b'\n');
            }
        }
        out
    }

    /// Notes what a call left running and what its stderr says about
    /// denied accesses.
    pub fn after_call(&mut self, stderr: &[u8], leftovers: Leftovers) {
        self.left_behind += leftovers.in_group;
        self.escaped += leftovers.escaped;
        self.scan_stderr(stderr);
    }

    /// Looks for a denied access in some of the bot's stderr.
    pub fn scan_stderr(&mut self, stderr: &[u8]) {
        if self.denial.is_some() {
            return;
        }
        let text = String::from_utf8_lossy(stderr);
        if let Some(line) = text
            .lines()
            .find(|l| DENIAL_WORDS.iter().any(|w| l.contains(w)))
        {
            self.denial = Some(shorten(line.trim(), 160));
        }
    }

    /// The end of a persistent bot's life: its stdin is closed and it has
    /// `grace` to exit by itself, then its group is killed (as in a
    /// tournament). Reports how it ended; `must_exit` makes anything but
    /// a prompt exit with status 0 a problem.
    pub async fn end_of_input(
        &mut self,
        report: &mut Report,
        mut process: LineProcess,
        grace: Duration,
        must_exit: bool,
    ) {
        process.close_stdin();
        let exited = process.exited_within(grace).await;
        if exited {
            // The leader is a zombie now: whatever runs in its group was
            // left behind.
            self.left_behind += crate::bot::reaper::group_members(process.pid()).len();
        }
        let reaped = self.kill(&mut process).await;
        let cpu = reaped.map_or(String::new(), |r| {
            format!(" (CPU {} over its life)", ms(r.cpu))
        });
        let grace_ms = grace.as_millis();
        match (exited, reaped.map(|r| r.exit)) {
            (true, Some(ExitKind::Code(0))) => report.line(format!(
                "end: its stdin was closed and it exited with status 0 within {grace_ms} ms{cpu}"
            )),
            (true, Some(ExitKind::Code(c))) => {
                report.line(format!(
                    "end: its stdin was closed and it exited with status {c}{cpu}"
                ));
                if must_exit {
                    report.problem(format!(
                        "exits with status {c} at the end of its input (it must exit with 0)"
                    ));
                }
            }
            (true, Some(ExitKind::Signal(s))) => {
                report.line(format!(
                    "end: its stdin was closed and it was killed by {}{cpu}",
                    signal_name(s)
                ));
                if must_exit {
                    report.problem(format!(
                        "dies of {} at the end of its input",
                        signal_name(s)
                    ));
                }
            }
            _ => {
                report.line(format!(
                    "end: still running {grace_ms} ms after its stdin was closed: its group was killed{cpu}"
                ));
                if must_exit {
                    report.problem(format!(
                        "does not exit within {grace_ms} ms when its stdin is closed"
                    ));
                }
            }
        }
    }

    /// Kills a persistent process's group and reaps it, counting the
    /// processes that had escaped the group (members of the group orphaned
    /// by the kill come back to the referee too; they are not escapees).
    pub async fn kill(&mut self, process: &mut LineProcess) -> Option<Reaped> {
        let members = crate::bot::reaper::group_members(process.pid());
        let reaped = process.kill().await;
        self.escaped += process
            .swept()
            .iter()
            .filter(|p| !members.contains(p))
            .count();
        reaped
    }

    /// The files section (what changed in its folder, what the sandbox
    /// denies) and the processes section. `allowed` says what the folder
    /// is for (e.g. "data.txt persists across games").
    pub fn finish(&mut self, report: &mut Report, allowed: &str) {
        report.gap();
        let after = snapshot(&self.folder);
        let created: Vec<&str> = after
            .keys()
            .filter(|p| !self.before.contains_key(*p))
            .map(String::as_str)
            .collect();
        let changed: Vec<&str> = after
            .iter()
            .filter(|(p, s)| self.before.get(*p).is_some_and(|b| b != *s))
            .map(|(p, _)| p.as_str())
            .collect();
        let deleted: Vec<&str> = self
            .before
            .keys()
            .filter(|p| !after.contains_key(*p))
            .map(String::as_str)
            .collect();
        let mut what = Vec::new();
        for (verb, names) in [
            ("created", &created),
            ("changed", &changed),
            ("deleted", &deleted),
        ] {
            if !names.is_empty() {
                what.push(format!("{verb} {}", list(names)));
            }
        }
        if what.is_empty() {
            report.line(format!(
                "files: wrote nothing in its folder {}",
                self.folder.display()
            ));
        } else if self.read_only {
            report.line(format!(
                "files: {} in its folder, which is read-only in a tournament",
                what.join("; ")
            ));
            report.problem(format!(
                "writes files in its folder ({}), which a tournament makes read-only",
                what.join("; ")
            ));
        } else {
            report.line(format!(
                "files: {} in its folder (allowed: {allowed})",
                what.join("; ")
            ));
        }
        if self.support.landlock_abi.is_some() {
            report.line(if self.read_only {
                "files: its folder is read-only and everything else of the tournament is out of reach: the sandbox denies it, as in a tournament"
            } else {
                "files: anything outside its own folder is denied by the sandbox, as in a tournament"
            });
        } else {
            report.line(
                "files: this machine cannot apply the file sandbox (Landlock), so writes outside its folder were not blocked here; a tournament on a machine with Landlock denies them",
            );
        }
        let denied = self.denial.is_some();
        if let Some(line) = self.denial.take() {
            report.line(format!(
                "files: it tried to touch something it may not (its stderr says: {line})"
            ));
        }
        if report.has_problems() {
            let p = &self.program;
            match crate::first_call::path_hint(&p.argv, &p.cwd, &p.folder) {
                Some(hint) => report.line(format!("paths: {hint}")),
                None if denied => report.line(format!(
                    "paths: {}",
                    crate::first_call::own_files_hint(&p.folder)
                )),
                None => {}
            }
        }
        match (self.left_behind, self.escaped) {
            (0, 0) => report.line("processes: none left behind"),
            (n, e) => {
                let mut parts = Vec::new();
                if n > 0 {
                    parts.push(format!(
                        "{n} process(es) still running in its group after it exited"
                    ));
                }
                if e > 0 {
                    parts.push(format!("{e} process(es) that escaped its process group"));
                }
                let text = parts.join(" and ");
                report.line(format!(
                    "processes: left {text}; the referee killed them, as a tournament does"
                ));
                report.problem(format!(
                    "leaves processes behind ({text}): work they do is lost"
                ));
            }
        }
    }
}

/// What a tournament held in `parent` keeps from a bot whose folder is
/// `folder`: the parent, as a run denies its tournament folder. But a bot
/// folder checked right in a home folder has the tools on PATH in its
/// parent too (`~/.pyenv`, `~/.cargo`), which a tournament held elsewhere
/// would not hide: then every entry of the parent is denied but the
/// folder and the trees holding those tools.
fn denied_around(folder: &Path, parent: &Path) -> Vec<PathBuf> {
    let tools: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|d| d.canonicalize().ok())
        .filter(|d| d.starts_with(parent))
        .collect();
    if tools.is_empty() {
        return vec![parent.to_path_buf()];
    }
    let Ok(entries) = std::fs::read_dir(parent) else {
        return vec![parent.to_path_buf()];
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != folder && !tools.iter().any(|t| t.starts_with(p)))
        .collect()
}

/// Names for a report: the first few, and how many more.
fn list(names: &[&str]) -> String {
    const SHOWN: usize = 8;
    let mut text = names
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    text
}

/// A temporary folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch> {
        let base = std::env::temp_dir();
        for attempt in 0..100u32 {
            let stamp = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let dir = base.join(format!(
                "referee-check-{}-{stamp}-{attempt}",
                std::process::id()
            ));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(Scratch(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(Error::machine(format!(
                        "{}: cannot create a scratch folder: {e}",
                        dir.display()
                    )))
                }
            }
        }
        Err(Error::machine("cannot create a scratch folder"))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_output_is_escaped_and_cut() {
        assert_eq!(quoted(b"0\n"), "\"0\\n\"");
        assert_eq!(quoted(&[b'x'; 70]).len(), 60 + 2 + 3);
    }

    #[test]
    fn first_line_skips_blank_lines() {
        assert_eq!(first_line(b"\n\n  oops\nmore"), Some("  oops".into()));
        assert_eq!(first_line(b"\n \n"), None);
    }

    #[test]
    fn a_traceback_shows_its_first_line_and_its_exception() {
        let python = b"forty_host: loading BrainBot/bot.py failed:\n\
Traceback (most recent call last):\n\
  File \"/x/forty_host.py\", line 470, in main\n\
    exec(code, module.__dict__)\n\
  File \"BrainBot/bot.py\", line 1, in <module>\n\
    import numpy\n\
ModuleNotFoundError: No module named 'numpy'\n";
        assert_eq!(
            stderr_excerpt(python),
            [
                "forty_host: loading BrainBot/bot.py failed:",
                "... ModuleNotFoundError: No module named 'numpy'"
            ]
        );
        let node = b"/b/bot.js:2\nfoo();\n^\n\nReferenceError: foo is not defined\n    at Object.<anonymous> (/b/bot.js:2:1)\n\nNode.js v18.19.0\n";
        assert_eq!(
            stderr_excerpt(node),
            ["/b/bot.js:2", "... ReferenceError: foo is not defined"]
        );
        let java = b"Exception in thread \"main\" java.lang.IllegalStateException: no\n\tat Bot.main(Bot.java:3)\n";
        assert_eq!(
            stderr_excerpt(java),
            ["Exception in thread \"main\" java.lang.IllegalStateException: no"]
        );
        assert_eq!(stderr_excerpt(b"one\ntwo\n"), ["one", "two"]);
        assert_eq!(stderr_excerpt(b"only\n"), ["only"]);
        assert!(stderr_excerpt(b"\n \n").is_empty());
        let mut r = Report::new();
        r.excerpt("  stderr: ", python);
        assert_eq!(
            r.out,
            "  stderr: forty_host: loading BrainBot/bot.py failed:\n    ... ModuleNotFoundError: No module named 'numpy'\n"
        );
    }

    #[test]
    fn a_verdict_with_problems_is_exit_status_1() {
        let mut r = Report::new();
        r.line("position 1: x");
        r.problem("position 1: no move");
        assert!(r.has_problems());
        r.problem_of("timeout", "position 2: timeout");
        r.problem_of("timeout", "position 3: timeout");
        assert_eq!(r.problems.len(), 2);
        assert_eq!(r.problems[1].count, 2);
    }
}
