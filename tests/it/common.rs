//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A test bot's path.
pub fn bot(name: &str) -> PathBuf {
    root().join("tests/bots").join(name)
}

/// The real Python interpreter (the `python3` on PATH may be a slow shim).
pub fn python() -> &'static str {
    static PY: OnceLock<String> = OnceLock::new();
    PY.get_or_init(|| {
        Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "python3".to_string())
    })
}

/// Compiles a C test bot once per test run; returns the binary's path.
pub fn c_bot(source: &Path, name: &str) -> PathBuf {
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-bots");
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = out_dir.join(name);
    // Compile to a unique temporary name and rename, so parallel tests never
    // see a half-written binary.
    // Unique per call too: two tests of this process may compile one bot at once.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = out_dir.join(format!("{name}.{}.{call}.tmp", std::process::id()));
    let status = Command::new("cc")
        .arg("-O2")
        .arg("-o")
        .arg(&tmp)
        .arg(source)
        .status()
        .expect("cc runs");
    assert!(status.success(), "compiling {}", source.display());
    std::fs::rename(&tmp, &out).unwrap();
    out
}

/// The C `firstLegal` example bot, compiled.
pub fn first_legal() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        c_bot(
            &root().join("examples/bots/meta-ttt/firstLegal/firstLegal.c"),
            "firstLegal",
        )
    })
    .clone()
}

/// Runs the referee binary with `args` in `cwd`.
pub fn referee(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(args)
        .current_dir(cwd)
        .env_remove("RUST_LOG")
        .output()
        .expect("referee runs")
}

/// [`referee`], but a run still going after `limit` is killed and fails
/// the test (an input that hangs the referee must not hang the tests).
pub fn referee_within(cwd: &Path, args: &[&str], limit: std::time::Duration) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(args)
        .current_dir(cwd)
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("referee runs");
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.expect("referee ends"),
        Err(_) => {
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            panic!("the referee was still running after {limit:?}");
        }
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh tournament folder with this instructions.txt.
pub fn tournament(instructions: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("instructions.txt"), instructions).unwrap();
    dir
}

/// A shell-quoted path, for commands in instructions.txt.
pub fn q(p: &Path) -> String {
    shell_words::quote(&p.to_string_lossy()).into_owned()
}

/// True while a process with this pid exists and is not a zombie.
/// The live processes whose `HOME` is `folder`: the processes of the bot
/// of that folder (the referee sets a bot's `HOME` to its folder). Found
/// from outside, as the pids a bot records are those of its own PID
/// namespace.
pub fn processes_of_bot(folder: &std::path::Path) -> Vec<i32> {
    let mut home = b"HOME=".to_vec();
    home.extend_from_slice(folder.as_os_str().as_encoded_bytes());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| {
            alive(pid)
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == home.as_slice()))
        })
        .collect()
}

pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| !rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
        Err(_) => false,
    }
}

/// Runs the referee with `args` in `dir` and kills it with SIGKILL as soon as
/// it has reported `reports` finished games (`[n/total]` lines: reported
/// means committed). Returns how many were reported before the kill.
pub fn kill_after_reports(dir: &Path, args: &[&str], reports: usize) -> usize {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("referee runs");
    let mut reported = 0;
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if line.starts_with('[') {
                reported += 1;
                if reported == reports {
                    break;
                }
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    reported
}

/// The number N of a `resuming: N of M games ...` line on stderr.
pub fn resumed_games(stderr: &str) -> usize {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("resuming: "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no resume line in {stderr}"))
}
