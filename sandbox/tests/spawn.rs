//! Starting processes with `spawn::Command`: what a bot finds when it
//! starts (arguments, environment, directory, stdio, signals, process
//! group), and how a start that cannot happen is reported.

use referee_sandbox::spawn::{Command, Stdin};
use referee_sandbox::sys::ExitKind;
use std::io::Write;

fn sh(script: &str) -> Command {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", script]);
    if let Some(path) = std::env::var_os("PATH") {
        cmd.env("PATH", path);
    }
    cmd
}

fn output(cmd: &Command) -> (ExitKind, String, String) {
    let (reaped, out, err) = cmd.spawn().unwrap().wait_with_output().unwrap();
    (
        reaped.exit,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

#[test]
fn arguments_environment_and_directory_are_exactly_the_given_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = sh(r#"printf '%s|' "$0" "$1" "$2"; env | sort | tr '\n' ' '; pwd"#);
    cmd.args(["a b", "", "c"])
        .env("HOME", "/nowhere")
        .current_dir(dir.path());
    let (exit, out, _) = output(&cmd);
    assert_eq!(exit, ExitKind::Code(0));
    let (args, rest) = out.split_at(out.find("HOME").unwrap());
    assert_eq!(args, "a b||c|");
    // sh adds PWD (and may add SHLVL, _, OLDPWD); nothing of the referee's
    // own environment other than what was given may appear.
    for var in rest.split_whitespace().filter(|v| v.contains('=')) {
        let key = var.split('=').next().unwrap_or("");
        assert!(
            ["HOME", "PATH", "PWD", "SHLVL", "_", "OLDPWD"].contains(&key),
            "unexpected variable {var}"
        );
    }
    assert!(rest.contains("HOME=/nowhere"));
    let cwd = std::fs::canonicalize(dir.path()).unwrap();
    assert!(out.trim_end().ends_with(cwd.to_str().unwrap()), "{out}");
}

#[test]
fn stdin_is_null_or_a_pipe_and_stdout_and_stderr_are_separate_pipes() {
    let (_, out, err) = output(&sh("cat; echo out; echo err >&2"));
    assert_eq!((out.as_str(), err.as_str()), ("out\n", "err\n"));

    let mut cmd = sh("read line; echo \"got $line\"");
    cmd.stdin(Stdin::Piped);
    let mut child = cmd.spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    std::fs::File::from(stdin).write_all(b"hello\n").unwrap();
    let (reaped, out, _) = child.wait_with_output().unwrap();
    assert_eq!(reaped.exit, ExitKind::Code(0));
    assert_eq!(String::from_utf8_lossy(&out), "got hello\n");
}

#[test]
fn the_child_leads_its_own_process_group() {
    let child = sh("ps -o pgid= -p $$").spawn().unwrap();
    let pid = child.pid;
    let (_, out, _) = child.wait_with_output().unwrap();
    let pgid: u32 = String::from_utf8_lossy(&out).trim().parse().unwrap_or(0);
    assert_eq!(pgid, pid);
}

#[test]
fn the_child_starts_with_no_blocked_signals_and_sigpipe_the_default_again() {
    // grep reads its own status: the mask and dispositions it was exec'd with.
    let mut cmd = Command::new("grep");
    cmd.args(["-E", "^Sig(Ign|Blk)", "/proc/self/status"]);
    if let Some(path) = std::env::var_os("PATH") {
        cmd.env("PATH", path);
    }
    let (_, out, _) = output(&cmd);
    let field = |name: &str| {
        let line = out.lines().find(|l| l.starts_with(name)).unwrap_or("");
        u64::from_str_radix(line.split_whitespace().nth(1).unwrap_or("x"), 16).unwrap()
    };
    // The test harness ignores SIGPIPE; the child must not.
    assert_eq!(field("SigIgn") & (1 << (libc::SIGPIPE - 1)), 0, "{out}");
    assert_eq!(field("SigBlk"), 0, "{out}");
}

#[test]
fn files_and_pipes_the_referee_opened_are_not_inherited() {
    use std::os::fd::AsRawFd;
    // Numbered high, away from the fd `ls` opens the directory with.
    // SAFETY: duplicating an open fd with close-on-exec, as the referee opens every file.
    let file = unsafe {
        libc::fcntl(
            tempfile::tempfile().unwrap().as_raw_fd(),
            libc::F_DUPFD_CLOEXEC,
            100,
        )
    };
    assert!(file >= 100);
    // Another child's pipes, open while this one starts.
    let other = sh("sleep 5").spawn().unwrap();
    let ours = [
        file,
        other.stdout.as_raw_fd(),
        other.stderr.as_raw_fd(),
        other.pidfd.as_raw_fd(),
    ];
    // The shell tests each fd with stat alone (opening /proc/self/fd to
    // list it would itself take a low fd number).
    let mut cmd = sh("for n in 0 1 2 \"$@\"; do [ -e /proc/$$/fd/$n ] && echo $n; done; true");
    cmd.arg("sh").args(ours.iter().map(|fd| fd.to_string()));
    let (_, out, _) = output(&cmd);
    let open: Vec<i32> = out
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    assert_eq!(open, [0, 1, 2], "inherited fds among 0, 1, 2 and {ours:?}");
    // SAFETY: killing the test's own child group.
    unsafe { libc::killpg(other.pid as i32, libc::SIGKILL) };
    other.wait().unwrap();
}

#[test]
fn a_missing_or_non_executable_program_is_an_error_not_a_child() {
    let e = Command::new("no-such-program-here").spawn().unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bot");
    std::fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
    let e = Command::new(&script).spawn().unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
    let e = Command::new("sh")
        .current_dir(dir.path().join("missing"))
        .spawn()
        .unwrap_err();
    assert!(e.to_string().contains("working directory"), "{e}");
    let e = Command::new("sh").arg("a\0b").spawn().unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
}

#[test]
fn many_threads_can_start_children_at_once() {
    let threads: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                for j in 0..20 {
                    let (exit, out, _) = output(sh("echo $0").arg(format!("{i}-{j}")));
                    assert_eq!(exit, ExitKind::Code(0));
                    assert_eq!(out, format!("{i}-{j}\n"));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn a_child_killed_by_a_signal_reports_it() {
    let (exit, ..) = output(&sh("kill -TERM $$; sleep 5"));
    assert_eq!(exit, ExitKind::Signal(libc::SIGTERM));
}

#[test]
fn only_stdin_stdout_and_stderr_reach_the_child() {
    // A descriptor some other part of the process opened without
    // close-on-exec.
    // SAFETY: opening /dev/null; the fd is closed below.
    let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY) };
    assert!(fd > 2);
    let mut cmd = referee_sandbox::spawn::Command::new("/bin/ls");
    cmd.arg("/proc/self/fd");
    let (_, out, _) = cmd.spawn().unwrap().wait_with_output().unwrap();
    // SAFETY: closing the descriptor opened above.
    unsafe { libc::close(fd) };
    let mut fds: Vec<i32> = String::from_utf8_lossy(&out)
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    fds.sort();
    // ls itself holds one more: the directory it lists.
    assert!(fds.len() <= 4, "{fds:?} (leaked {fd})");
    assert_eq!(&fds[..3], &[0, 1, 2], "{fds:?}");
}
