//! The confinement applied to real processes: files outside the bot's
//! folder, the network and memory.

use referee_sandbox::spawn::Command;
use referee_sandbox::{Confinement, Policy, Setup, Support};
use std::path::{Path, PathBuf};

struct World {
    _dir: tempfile::TempDir,
    tournament: PathBuf,
    own: PathBuf,
    neighbour: PathBuf,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let tournament = dir.path().join("t");
    let own = tournament.join("me");
    let neighbour = tournament.join("other");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::create_dir_all(&neighbour).unwrap();
    std::fs::write(neighbour.join("data.txt"), "secret").unwrap();
    std::fs::write(tournament.join("instructions.txt"), "2\n").unwrap();
    World {
        _dir: dir,
        tournament,
        own,
        neighbour,
    }
}

fn confined(w: &World, policy: &str) -> Option<Confinement> {
    let support = Support::probe();
    if support.landlock_abi.is_none() {
        // Only an explicit opt-out may skip: a silently skipped sandbox test
        // would pass on a machine where nothing is confined.
        assert!(
            std::env::var_os("REFEREE_ALLOW_NO_LANDLOCK").is_some(),
            "this kernel has no Landlock; set REFEREE_ALLOW_NO_LANDLOCK=1 to skip the sandbox tests"
        );
        return None;
    }
    let policy = Policy::named(policy).unwrap();
    let denied = vec![w.tournament.clone()];
    let setup = Setup {
        policy: &policy,
        own_folder: &w.own,
        denied: &denied,
        readable: &[],
    };
    Some(Confinement::prepare(&setup, &support).unwrap())
}

fn sh(c: &Confinement, cwd: &Path, script: &str) -> (i32, String) {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", script]).current_dir(cwd).confinement(c);
    if let Some(path) = std::env::var_os("PATH") {
        cmd.env("PATH", path);
    }
    let (status, stdout, stderr) = cmd.spawn().unwrap().wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&stdout).into_owned() + &String::from_utf8_lossy(&stderr);
    let code = match status.exit {
        referee_sandbox::sys::ExitKind::Code(c) => c,
        referee_sandbox::sys::ExitKind::Signal(_) => -1,
    };
    (code, text)
}

#[test]
fn a_bot_reads_and_writes_its_folder_and_nothing_else_of_the_tournament() {
    let w = world();
    let Some(c) = confined(&w, "meta-ttt") else {
        return;
    };
    let (code, out) = sh(
        &c,
        &w.tournament,
        "echo hi > me/data.txt && cat me/data.txt",
    );
    assert_eq!((code, out.trim()), (0, "hi"));
    let (code, _) = sh(&c, &w.tournament, "cat other/data.txt");
    assert_ne!(code, 0, "read a neighbour's data");
    let (code, _) = sh(&c, &w.tournament, "echo x > other/data.txt");
    assert_ne!(code, 0);
    let (code, _) = sh(&c, &w.tournament, "cat instructions.txt");
    assert_ne!(code, 0);
    let (code, _) = sh(&c, &w.tournament, "echo x > new.txt");
    assert_ne!(code, 0);
    assert_eq!(
        std::fs::read_to_string(w.neighbour.join("data.txt")).unwrap(),
        "secret"
    );
    assert!(!w.tournament.join("new.txt").exists());
    // System locations stay usable: the shell, coreutils and /dev/null.
    let (code, _) = sh(
        &c,
        &w.tournament,
        "ls /usr/bin > /dev/null && date > /dev/null",
    );
    assert_eq!(code, 0);
}

#[test]
fn a_read_only_policy_forbids_writing_the_own_folder() {
    let w = world();
    std::fs::write(w.own.join("prog.txt"), "code").unwrap();
    let Some(c) = confined(&w, "heist") else {
        return;
    };
    let (code, out) = sh(&c, &w.tournament, "cat me/prog.txt");
    assert_eq!((code, out.as_str()), (0, "code"));
    let (code, _) = sh(&c, &w.tournament, "echo x > me/prog.txt");
    assert_ne!(code, 0);
}

#[test]
fn python_node_and_java_still_start() {
    let w = world();
    let Some(c) = confined(&w, "meta-ttt") else {
        return;
    };
    for script in ["python3 -c 'print(6*7)'", "node -e 'console.log(6*7)'"] {
        let (code, out) = sh(&c, &w.tournament, script);
        assert_eq!((code, out.trim()), (0, "42"), "{script}");
    }
    if std::process::Command::new("java")
        .arg("-version")
        .output()
        .is_ok()
    {
        let (code, out) = sh(&c, &w.tournament, "java -version 2>&1");
        assert_eq!(code, 0, "{out}");
    }
}

#[test]
fn sockets_fail_and_socket_pairs_work() {
    let w = world();
    let Some(c) = confined(&w, "meta-ttt") else {
        return;
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "python3 -c \"
import socket
for fam, kind in ((socket.AF_INET, socket.SOCK_STREAM), (socket.AF_INET, socket.SOCK_DGRAM), (socket.AF_INET6, socket.SOCK_STREAM), (socket.AF_UNIX, socket.SOCK_STREAM)):
    try:
        s = socket.socket(fam, kind)
        s.connect(('127.0.0.1', {port}) if fam != socket.AF_UNIX else '/run/x')
        print('connected')
    except OSError as e:
        print('denied', e.errno)
a, b = socket.socketpair()
a.send(b'ok'); print(b.recv(2).decode())
\""
    );
    let (code, out) = sh(&c, &w.tournament, &script);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.matches("denied 1\n").count(), 4, "{out}");
    assert!(!out.contains("connected"));
    assert!(out.trim_end().ends_with("ok"));
}

#[test]
fn committed_memory_is_limited_without_limiting_address_space() {
    let w = world();
    let Some(c) = confined(&w, "meta-ttt") else {
        return;
    };
    let (code, out) = sh(
        &c,
        &w.tournament,
        "python3 -c 'x = bytearray(1024 * 1024 * 1024)' 2>&1",
    );
    assert_ne!(code, 0);
    assert!(out.contains("MemoryError"), "{out}");
    let (code, _) = sh(
        &c,
        &w.tournament,
        "python3 -c 'x = bytearray(100 * 1024 * 1024)'",
    );
    assert_eq!(code, 0);
}

#[test]
fn a_fork_bomb_meets_the_process_limit() {
    let w = world();
    let Some(c) = confined(&w, "meta-ttt") else {
        return;
    };
    let support = Support::probe();
    if support.cgroups.pids.is_none() && support.root {
        // Root without cgroups has no process limit; the referee says so at start-up.
        return;
    }
    // 300 sleepers against a limit of 256 processes: some forks must fail.
    let mut cmd = Command::new("sh");
    cmd.args([
        "-c",
        "for i in $(seq 300); do sleep 30 </dev/null >/dev/null 2>&1 || exit 0 & done; echo started 300",
    ])
    .current_dir(&w.tournament)
    .confinement(&c);
    if let Some(path) = std::env::var_os("PATH") {
        cmd.env("PATH", path);
    }
    let child = cmd.spawn().unwrap();
    let status = child.wait().unwrap();
    // The sleepers' subshells still hold stdout: kill them before reading.
    // SAFETY: killing the test's own process group of sleepers.
    unsafe { libc::killpg(child.pid as i32, libc::SIGKILL) };
    let (_, stdout, stderr) = {
        use std::io::Read;
        let (mut out, mut err) = (Vec::new(), Vec::new());
        std::fs::File::from(child.stdout)
            .read_to_end(&mut out)
            .unwrap();
        std::fs::File::from(child.stderr)
            .read_to_end(&mut err)
            .unwrap();
        ((), out, err)
    };
    let text = String::from_utf8_lossy(&stderr).into_owned() + &String::from_utf8_lossy(&stdout);
    let hit_limit = status.exit != referee_sandbox::sys::ExitKind::Code(0)
        || !text.contains("started 300")
        || text.to_lowercase().contains("fork");
    assert!(hit_limit, "300 forks all succeeded: {text}");
}

#[test]
fn every_process_of_a_bot_is_born_in_its_pids_cgroup() {
    let w = world();
    let Some(c) = confined(&w, "meta-ttt") else {
        return;
    };
    if Support::probe().cgroups.pids.is_none() {
        // No cgroups for this user: RLIMIT_NPROC stands in (tested above).
        return;
    }
    // Two processes, one after the other: both in the same bot group.
    let mut groups = Vec::new();
    for _ in 0..2 {
        let (code, out) = sh(
            &c,
            &w.tournament,
            "grep pids /proc/self/cgroup || cat /proc/self/cgroup",
        );
        assert_eq!(code, 0, "{out}");
        let group = out
            .lines()
            .find(|l| l.contains("referee-"))
            .unwrap_or_else(|| panic!("not in a bot's group: {out}"))
            .to_string();
        groups.push(group);
    }
    assert_eq!(groups[0], groups[1]);
}

#[test]
fn dropping_a_bot_confinement_never_kills_the_referee() {
    let w = world();
    if confined(&w, "meta-ttt").is_none() {
        return;
    }
    // Each drop ends the bot's starter thread (a thread of this process,
    // which cgroup v1 lists in the group's cgroup.procs for a moment after
    // it is joined) and empties the bot's groups: this process must never
    // be among what is killed.
    for _ in 0..100 {
        let c = confined(&w, "meta-ttt").unwrap();
        let (code, _) = sh(&c, &w.tournament, "true");
        assert_eq!(code, 0);
        drop(c);
    }
}
