//! Hostile bots in Python, shell and C against the sandbox, through the
//! referee binary: every attack fails or is stopped, the tournament
//! completes, faults are recorded, nothing outside a bot's folder changes
//! and no process is left behind. Run as root and, when possible, again as
//! an unprivileged user.

use crate::common::{bot, c_bot, first_legal, processes_of_bot, q, stderr, stdout};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A command running the referee (`bin`), as root or as the user and group
/// with this numeric id (via setpriv).
fn referee_as(bin: &Path, user: Option<&str>, dir: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = match user {
        None => Command::new(bin),
        Some(u) => {
            let mut c = Command::new("setpriv");
            c.args(["--reuid", u, "--regid", u, "--clear-groups", "--"])
                .arg(bin);
            c
        }
    };
    cmd.args(args)
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .output()
        .expect("referee runs")
}

fn lines_of(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Copies what the tournament needs (the referee, the bots) into `work`, so
/// an unprivileged user can reach all of it wherever the repository lives.
fn stage(work: &Path) -> (PathBuf, PathBuf) {
    let bin = work.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_referee"), bin.join("referee")).unwrap();
    for name in ["first_legal.py", "snoop.py", "vandal.sh"] {
        std::fs::copy(bot(name), bin.join(name)).unwrap();
    }
    std::fs::copy(c_bot(&bot("hog.c"), "hog"), bin.join("hog")).unwrap();
    std::fs::copy(first_legal(), bin.join("firstLegal")).unwrap();
    (bin.join("referee"), bin)
}

fn hostile_tournament(user: Option<&str>, python: &str, work: &Path) {
    let (referee, bots) = stage(work);
    let dir = work.join("t");
    std::fs::create_dir_all(dir.join("victim")).unwrap();
    std::fs::write(dir.join("victim/data.txt"), "secret").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let udp = std::net::UdpSocket::bind(("127.0.0.1", port)).unwrap();
    udp.set_nonblocking(true).unwrap();
    let instructions = format!(
        "challenge: meta-ttt\ntimeout-ms: 3000\nmax-rounds: 20\n\
         victim {python} {}\nsnoop {python} {} {port}\nvandal sh {}\nhog {}\nplain {}\n",
        q(&bots.join("first_legal.py")),
        q(&bots.join("snoop.py")),
        q(&bots.join("vandal.sh")),
        q(&bots.join("hog")),
        q(&bots.join("firstLegal")),
    );
    std::fs::write(dir.join("instructions.txt"), &instructions).unwrap();
    if user.is_some() {
        // The unprivileged referee must be able to write its tournament folder.
        Command::new("chmod")
            .args(["-R", "a+rwX"])
            .arg(work)
            .status()
            .unwrap();
    }

    let out = referee_as(
        &referee,
        user,
        &dir,
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("Bot ")).count(),
        5,
        "{text}"
    );

    // Files outside each bot's folder are untouched.
    assert_eq!(lines_of(&dir.join("victim/data.txt")), "secret");
    assert_eq!(lines_of(&dir.join("instructions.txt")), instructions);
    assert!(!dir.join("escape.txt").exists());
    let attacks = lines_of(&dir.join("snoop/attacks.txt"));
    assert!(
        !attacks.is_empty() && !attacks.contains("succeeded"),
        "{attacks}"
    );
    for kind in [
        "read neighbour",
        "write neighbour",
        "write tournament root",
        "write /tmp",
        "tcp connect",
        "udp send",
    ] {
        assert!(
            attacks.contains(&format!("{kind}: denied")),
            "{kind}: {attacks}"
        );
    }
    // A bot of its own PID and mount namespaces (as root, and in the
    // unprivileged referee's own user namespace) sees neither the
    // referee's process nor what the tournament folder holds.
    if !stderr(&out).contains("no PID namespace per bot") {
        for kind in ["see referee", "stat neighbour"] {
            assert!(
                attacks.contains(&format!("{kind}: denied")),
                "{kind}: {attacks}"
            );
        }
    } else {
        assert!(user.is_some(), "{}", stderr(&out));
    }
    let vandal = lines_of(&dir.join("vandal/attacks.txt"));
    assert!(
        vandal.contains("results.db: denied") && !vandal.contains("truncated"),
        "{vandal}"
    );
    assert!(vandal.contains("instructions: denied"), "{vandal}");
    // The network saw nothing.
    assert!(
        listener.accept().is_err(),
        "a bot connected to the test's TCP listener"
    );
    assert!(
        udp.recv(&mut [0u8; 16]).is_err(),
        "a bot's UDP datagram arrived"
    );

    // The results survived and the faults are recorded.
    let json = stdout(&referee_as(
        &referee,
        user,
        &dir,
        &["standings", "--format", "json"],
    ));
    let rows: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let row = |n: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == n)
            .unwrap()
            .clone()
    };
    assert!(
        row("hog")["faults"]["crash"].as_u64().unwrap_or(0) > 0,
        "{json}"
    );
    assert_eq!(row("plain")["faults"], serde_json::json!({}), "{json}");

    // No process the hog started is alive: not its 200 children, not the
    // setsid'd double-forked sleeper.
    let recorded = lines_of(&dir.join("hog/pids.txt")).lines().count();
    assert!(recorded > 200, "the hog recorded {recorded} pids");
    let until = Instant::now() + Duration::from_secs(3);
    while !processes_of_bot(&dir.join("hog")).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survivors = processes_of_bot(&dir.join("hog"));
    assert!(survivors.is_empty(), "survivors: {survivors:?}");
    // Nothing escaped into /tmp either.
    let escaped: Vec<PathBuf> = std::fs::read_dir("/tmp")
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("referee-escape-"))
        })
        .collect();
    assert!(escaped.is_empty(), "{escaped:?}");
    let _ = listener.incoming().next();
    let mut sink = Vec::new();
    let _ = std::io::stdin().take(0).read_to_end(&mut sink);
}

#[test]
fn hostile_bots_are_contained() {
    let work = tempfile::tempdir().unwrap();
    hostile_tournament(None, crate::common::python(), work.path());
}

#[test]
fn hostile_bots_are_contained_when_the_referee_is_not_root() {
    // SAFETY-free check of our own uid through /proc.
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let root = status
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    if !root {
        // Already unprivileged: the test above covers it.
        return;
    }
    if Command::new("setpriv").arg("--version").output().is_err() {
        panic!("setpriv (util-linux) is needed to run the sandbox tests unprivileged");
    }
    // An unprivileged user cannot reach root's pyenv: use the system interpreter.
    let python = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("a system python3 for the unprivileged run");
    // /tmp is open to every user (a checkout under /root is not).
    let work = tempfile::tempdir_in("/tmp").unwrap();
    hostile_tournament(Some("65534"), python, work.path());
}

#[test]
fn no_bot_inherits_a_descriptor_the_referee_inherited() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let (_r, w) = std::io::pipe().unwrap();
    let w_fd = std::os::fd::AsRawFd::as_raw_fd(&w);
    let lister = format!(
        "{} -c \"import os; open('fds.txt', 'w').write(' '.join(sorted(os.listdir('/proc/self/fd')))); print('00')\"",
        crate::common::python()
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_referee"));
    cmd.args([
        "play",
        "meta-ttt",
        &lister,
        &q(&first_legal()),
        "--max-rounds",
        "1",
    ])
    .current_dir(dir.path());
    // The referee's parent leaves a pipe's write end open as fd 47, not
    // close-on-exec (as a shell or a CI runner may).
    // SAFETY: dup2 between fork and exec, on descriptors this test owns.
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(w_fd, 47) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let fds = std::fs::read_to_string(dir.path().join("fds.txt")).unwrap();
    let fds: Vec<&str> = fds.split(' ').collect();
    assert!(fds.contains(&"0") && fds.contains(&"2"), "{fds:?}");
    assert!(!fds.contains(&"47"), "the bot inherited fd 47: {fds:?}");
    drop(w);
}

#[test]
fn a_helper_a_bot_left_dies_when_the_referee_is_killed() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path();
    std::fs::write(
        t.join("instructions.txt"),
        format!(
            "challenge: meta-ttt\ntimeout-ms: 120000\nescaper sh {}\nplain {}\n",
            q(&bot("escaper.sh")),
            q(&first_legal())
        ),
    )
    .unwrap();
    // The referee in a process group of its own, as a shell would start it.
    let mut referee = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["--quiet", "--instructions", "instructions.txt"])
        .current_dir(t)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let pid_file = t.join("escaper/helper.pid");
    let start = Instant::now();
    while !pid_file.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the bot never started its helper"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let escaper = t.join("escaper");
    // The bot and its helper (the pid the helper wrote is its pid in the
    // bot's own namespace: it is found from outside instead).
    let before = processes_of_bot(&escaper);
    assert!(before.len() >= 2, "{before:?}");
    referee.kill().unwrap(); // SIGKILL: no destructor runs
    let _ = referee.wait();
    let start = Instant::now();
    while !processes_of_bot(&escaper).is_empty() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = processes_of_bot(&escaper);
    let survived = !left.is_empty();
    for pid in left {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    // Nor does anything the referee made for its bots (the init of a bot's
    // namespace runs where the referee ran: in the tournament folder).
    let stayed = |t: &Path| -> Vec<u32> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|p| std::fs::read_link(format!("/proc/{p}/cwd")).is_ok_and(|c| c == t))
            .collect()
    };
    let start = Instant::now();
    while !stayed(t).is_empty() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let stragglers = stayed(t);
    for pid in &stragglers {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    assert!(
        stragglers.is_empty(),
        "processes of the referee outlived it: {stragglers:?}"
    );
    let support = referee_sandbox::Support::probe();
    if support.cgroups.pids.is_some() {
        assert!(!survived, "the helper outlived the referee");
    }
}
