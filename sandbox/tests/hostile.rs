//! Attacks on what lies outside a bot, from confined processes: other
//! processes (signals, limits, scheduling), local daemons (Unix sockets),
//! state shared between bots (keyrings, System V IPC), root's powers,
//! files outside the allow-list, and memory and disk beyond the bot's
//! share. Each attack prints `NAME: denied` or `NAME: succeeded`.

use referee_sandbox::spawn::Command;
use referee_sandbox::sys::ExitKind;
use referee_sandbox::{Confinement, Policy, Setup, Support};
use std::path::{Path, PathBuf};

struct World {
    dir: tempfile::TempDir,
    tournament: PathBuf,
    own: PathBuf,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let tournament = dir.path().join("t");
    let own = tournament.join("me");
    std::fs::create_dir_all(&own).unwrap();
    World {
        dir,
        tournament,
        own,
    }
}

fn support() -> Option<Support> {
    let support = Support::probe();
    if support.landlock_abi.is_none() {
        assert!(
            std::env::var_os("REFEREE_ALLOW_NO_LANDLOCK").is_some(),
            "this kernel has no Landlock; set REFEREE_ALLOW_NO_LANDLOCK=1 to skip the sandbox tests"
        );
        return None;
    }
    Some(support)
}

fn confine(w: &World, own: &Path, readable: &[PathBuf]) -> Option<Confinement> {
    let support = support()?;
    let policy = Policy::named("meta-ttt").unwrap();
    let denied = vec![w.tournament.clone()];
    let setup = Setup {
        policy: &policy,
        own_folder: own,
        denied: &denied,
        readable,
    };
    Some(Confinement::prepare(&setup, &support).unwrap())
}

/// Runs `argv` confined in the bot's folder; exit and stdout + stderr.
fn run(c: &Confinement, cwd: &Path, argv: &[&str]) -> (ExitKind, String) {
    let mut cmd = Command::new(argv[0]);
    cmd.args(&argv[1..]).current_dir(cwd).confinement(c);
    for key in ["PATH", "HOME"] {
        if let Some(v) = std::env::var_os(key) {
            cmd.env(key, v);
        }
    }
    let (status, stdout, stderr) = cmd.spawn().unwrap().wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&stdout).into_owned() + &String::from_utf8_lossy(&stderr);
    (status.exit, text)
}

fn python(c: &Confinement, cwd: &Path, script: &str) -> String {
    let (exit, out) = run(c, cwd, &["python3", "-c", script]);
    assert_eq!(exit, ExitKind::Code(0), "{out}");
    out
}

/// Python that tries each `(name, callable)` of `attacks` and prints the outcome.
const TRY: &str = r#"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, f):
    try:
        r = f()
        if r is not None and isinstance(r, int) and r < 0:
            print(name + ": denied", ctypes.get_errno())
        else:
            print(name + ": succeeded")
    except OSError as e:
        print(name + ": denied", e.errno)
    sys.stdout.flush()
"#;

fn assert_all_denied(out: &str, names: &[&str]) {
    for name in names {
        assert!(out.contains(&format!("{name}: denied")), "{name}: {out}");
    }
    assert!(!out.contains("succeeded"), "{out}");
}

fn state(pid: u32) -> (char, i64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    (
        fields[0].chars().next().unwrap(),
        fields[16].parse().unwrap(),
    )
}

#[test]
fn no_bot_signals_limits_or_reschedules_a_process_outside_it() {
    let w = world();
    let Some(c) = confine(&w, &w.own, &[]) else {
        return;
    };
    // Another bot's process, and the referee (this test process).
    let other_folder = w.tournament.join("other");
    std::fs::create_dir_all(&other_folder).unwrap();
    let other = confine(&w, &other_folder, &[]).unwrap();
    // It reports any SIGWINCH it gets (a signal that harms nothing if the
    // sandbox fails, unlike SIGSTOP to every process).
    let mut cmd = Command::new("python3");
    cmd.args([
        "-c",
        "import signal, time\nsignal.signal(signal.SIGWINCH, lambda *a: print('got a signal', flush=True))\nprint('ready', flush=True)\ntime.sleep(60)",
    ])
    .confinement(&other);
    if let Some(v) = std::env::var_os("PATH") {
        cmd.env("PATH", v);
    }
    let rival = cmd.spawn().unwrap();
    let mut rival_out = std::fs::File::from(rival.stdout.try_clone().unwrap());
    let mut ready = [0u8; 6];
    std::io::Read::read_exact(&mut rival_out, &mut ready).unwrap();
    let before = state(rival.pid);
    let referee = std::process::id();
    // The threads that start bots' processes (its own bot's among them)
    // carry the confinement its children inherit: no bot may signal or
    // trace them either.
    let starters: Vec<String> = std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == "bot-starter")
        })
        .map(|t| t.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(starters.len() >= 2, "{starters:?}");
    let script = format!(
        "{TRY}
import resource, signal
for tid in [{starters}]:
    attempt('starter signal', lambda: libc.syscall(234, {referee}, tid, 0))
    attempt('starter tkill', lambda: libc.syscall(200, tid, 0))
    attempt('starter pidfd', lambda: libc.syscall(424, libc.syscall(434, tid, 0o200), 0, None, 0))
    attempt('starter trace', lambda: libc.ptrace(0x4206, tid, 0, 0))
    attempt('starter memory', lambda: open('/proc/{referee}/task/%d/mem' % tid, 'rb').read(1))
    attempt('starter descriptor', lambda: os.readlink('/proc/{referee}/task/%d/fd/0' % tid))
for who, pid in (('referee', {referee}), ('rival', {rival})):
    attempt(who + ' SIGSTOP', lambda: os.kill(pid, signal.SIGSTOP))
    attempt(who + ' renice', lambda: os.setpriority(os.PRIO_PROCESS, pid, 19))
    attempt(who + ' affinity', lambda: os.sched_setaffinity(pid, {{0}}))
    attempt(who + ' prlimit', lambda: resource.prlimit(pid, resource.RLIMIT_NOFILE, (8, 8)))
    attempt(who + ' ioprio', lambda: libc.syscall(251, 1, pid, (3 << 13) | 7))
    attempt(who + ' fifo', lambda: os.sched_setscheduler(pid, os.SCHED_FIFO, os.sched_param(1)))
attempt('user renice', lambda: os.setpriority(os.PRIO_USER, 0, 19))
attempt('rival SIGWINCH', lambda: os.kill({rival}, signal.SIGWINCH))
# In the bot's own PID namespace there is nobody else to hit: ESRCH.
try:
    os.kill(-1, signal.SIGWINCH)
except ProcessLookupError:
    pass
# Its own process stays its own to tune.
os.setpriority(os.PRIO_PROCESS, 0, 5)
resource.prlimit(0, resource.RLIMIT_NOFILE, (64, 64))
os.sched_setaffinity(0, os.sched_getaffinity(0))
print('self: ok')
",
        rival = rival.pid,
        starters = starters.join(", "),
    );
    let out = python(&c, &w.own, &script);
    let mut names = Vec::new();
    for who in ["referee", "rival"] {
        for what in ["SIGSTOP", "renice", "affinity", "prlimit", "ioprio", "fifo"] {
            names.push(format!("{who} {what}"));
        }
    }
    names.push("user renice".into());
    names.push("rival SIGWINCH".into());
    for what in ["signal", "tkill", "pidfd", "trace", "memory", "descriptor"] {
        names.push(format!("starter {what}"));
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    assert_all_denied(&out, &names);
    assert!(out.contains("self: ok"), "{out}");
    // The rival runs on, neither stopped nor reniced.
    let after = state(rival.pid);
    assert!(
        after.0 != 'T' && after.1 == before.1,
        "{before:?} {after:?}"
    );
    // SAFETY: killing the test's own child.
    unsafe { libc::kill(rival.pid as i32, libc::SIGKILL) };
    let _ = rival.wait();
    let mut heard = String::new();
    std::io::Read::read_to_string(&mut rival_out, &mut heard).unwrap();
    assert!(!heard.contains("got a signal"), "{heard}");
}

#[test]
fn unix_sockets_keyrings_and_system_v_ipc_are_refused() {
    let w = world();
    let Some(c) = confine(&w, &w.own, &[]) else {
        return;
    };
    // A local daemon's sockets: a pathname one where the bot can reach the
    // path, and an abstract one.
    let path = w.dir.path().join("daemon.sock");
    let named = std::os::unix::net::UnixListener::bind(&path).unwrap();
    named.set_nonblocking(true).unwrap();
    let abstract_name = format!("referee-test-daemon-{}", std::process::id());
    let script = format!(
        r#"{TRY}
import socket
def connect(addr):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(addr)
attempt('pathname socket', lambda: connect({path:?}))
attempt('abstract socket', lambda: connect('\0{abstract_name}'))
attempt('listen', lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).bind('\0x'))
attempt('session keyring', lambda: libc.syscall(250, 0, -3, 1))
attempt('add key', lambda: libc.syscall(248, b'user', b'k', b'v', 1, -3))
attempt('shared memory', lambda: libc.shmget(0, 1 << 20, 0o1600))
attempt('message queue', lambda: libc.msgget(0, 0o1600))
attempt('semaphore', lambda: libc.semget(0, 1, 0o1600))
attempt('posix queue', lambda: libc.syscall(240, b'/q', 0o100 | 2, 0o600, None))
attempt('unshare', lambda: libc.unshare(0x10000000))
a, b = socket.socketpair()
a.send(b'ok'); print('pair', b.recv(2).decode())
"#,
        path = path.to_string_lossy()
    );
    let out = python(&c, &w.own, &script);
    assert_all_denied(
        &out,
        &[
            "pathname socket",
            "abstract socket",
            "listen",
            "session keyring",
            "add key",
            "shared memory",
            "message queue",
            "semaphore",
            "posix queue",
            "unshare",
        ],
    );
    assert!(out.contains("pair ok"), "{out}");
    assert!(named.accept().is_err(), "a bot reached the daemon's socket");
}

#[test]
fn a_bot_of_a_root_referee_has_no_capabilities_and_no_terminal() {
    let w = world();
    let Some(c) = confine(&w, &w.own, &[]) else {
        return;
    };
    let script = format!(
        r#"{TRY}
import stat
caps = {{l.split(':')[0]: int(l.split()[1], 16) for l in open('/proc/self/status') if l.startswith('Cap')}}
print('caps', sorted(k for k, v in caps.items() if v))
attempt('device node', lambda: os.mknod('null2', stat.S_IFCHR | 0o666, os.makedev(1, 3)))
attempt('setuid', lambda: os.setuid(4242))
attempt('terminal', lambda: os.open('/dev/tty', os.O_RDWR))
attempt('set clock', lambda: libc.clock_settime(0, ctypes.byref((ctypes.c_long * 2)(0, 0))))
attempt('chown', lambda: os.chown('/etc/hostname', 4242, 4242))
print('session leader', os.getsid(0) == os.getpid())
"#
    );
    let out = python(&c, &w.own, &script);
    // A process holding no capability keeps the full bounding set, which
    // no_new_privs makes useless; a referee holding some (root, or in its
    // own user namespace) empties it for its bots.
    let expect = if referee_sandbox::probe::holds_capabilities() {
        "caps []"
    } else {
        "caps ['CapBnd']"
    };
    assert!(out.contains(expect), "{out}");
    assert_all_denied(
        &out,
        &["device node", "setuid", "terminal", "set clock", "chown"],
    );
    assert!(out.contains("session leader True"), "{out}");
}

#[test]
fn a_bot_reads_system_locations_and_named_files_but_nothing_else() {
    let w = world();
    // A home beside the tournament with a key in it, and a file the
    // organiser names on the bot's command line.
    let home = w.dir.path().join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "KEY").unwrap();
    std::fs::write(home.join("host.py"), "HOST").unwrap();
    let Some(c) = confine(&w, &w.own, &[home.join("host.py")]) else {
        return;
    };
    let script = format!(
        r#"{TRY}
attempt('home key', lambda: open({key:?}).read())
attempt('home listing', lambda: os.listdir({home:?}))
attempt('shadow', lambda: open('/etc/shadow').read())
attempt('run', lambda: os.listdir('/run'))
attempt('tmp', lambda: os.listdir('/tmp'))
print('host', open({host:?}).read())
print('passwd', len(open('/etc/passwd').read()) > 0)
print('proc', len(open('/proc/self/status').read()) > 0)
"#,
        key = home.join(".ssh/id_rsa").to_string_lossy(),
        home = home.to_string_lossy(),
        host = home.join("host.py").to_string_lossy(),
    );
    let out = python(&c, &w.own, &script);
    assert_all_denied(&out, &["home key", "home listing", "shadow", "run", "tmp"]);
    assert!(out.contains("host HOST"), "{out}");
    assert!(
        out.contains("passwd True") && out.contains("proc True"),
        "{out}"
    );
}

#[test]
fn memory_is_counted_for_the_whole_bot() {
    let w = world();
    let Some(c) = confine(&w, &w.own, &[]) else {
        return;
    };
    if Support::probe().cgroups.memory.is_none() {
        // Per-process RLIMIT_DATA only; the start-up line says so.
        return;
    }
    // Three processes of 250 MiB each, and 300 MiB of memfd, against the
    // bot's 512 MiB: each alone fits one process's limit, together not.
    let script = r#"
import os, subprocess, sys, time
kids = [subprocess.Popen([sys.executable, '-c', 'import time; b = bytearray(250 << 20); time.sleep(5)']) for _ in range(3)]
try:
    fd = os.memfd_create('x')
    chunk = b'\1' * (1 << 20)
    for _ in range(300):
        os.write(fd, chunk)
except OSError as e:
    print('memfd', e.errno)
codes = [k.wait() for k in kids]
print('codes', codes)
"#;
    let (exit, out) = run(&c, &w.own, &["python3", "-c", script]);
    let killed = matches!(exit, ExitKind::Signal(9)) || out.contains("-9");
    assert!(killed, "nothing was killed over 512 MiB: {exit:?} {out}");
    assert!(c.oom_kills().unwrap_or(0) > 0, "{out}");
}

#[test]
fn no_file_grows_past_the_disk_limit_and_the_stack_and_descriptors_are_capped() {
    let w = world();
    let Some(c) = confine(&w, &w.own, &[]) else {
        return;
    };
    let disk = Policy::named("meta-ttt").unwrap().disk_mb;
    let (exit, out) = run(
        &c,
        &w.own,
        &[
            "sh",
            "-c",
            &format!("exec head -c {}M /dev/zero > big", disk + 16),
        ],
    );
    assert_eq!(exit, ExitKind::Signal(libc::SIGXFSZ), "{out}");
    let size = std::fs::metadata(w.own.join("big")).unwrap().len();
    assert!(size <= disk << 20, "{size}");
    let (_, out) = run(&c, &w.own, &["sh", "-c", "ulimit -H -s"]);
    let memory = Policy::named("meta-ttt").unwrap().memory_mb;
    assert_eq!(out.trim(), (memory * 1024).to_string());
    // Descriptors too: a bot cannot raise its limit to the referee's, and
    // so cannot help exhaust the file table the host shares.
    let open = Policy::named("meta-ttt").unwrap().open_files;
    let (_, out) = run(
        &c,
        &w.own,
        &[
            "sh",
            "-c",
            "ulimit -H -n; ulimit -n 100000 2>/dev/null && echo raised",
        ],
    );
    assert_eq!(out.trim(), open.to_string(), "{out}");
}

#[test]
fn a_bot_sees_no_other_process_in_proc() {
    let w = world();
    let Some(c) = confine(&w, &w.own, &[]) else {
        return;
    };
    if !c.namespaced() {
        no_namespaces_here();
        return;
    }
    // A rival outside any sandbox, and another bot's process, each with a
    // secret on its command line (as heist passes a player's state).
    let mut rival = std::process::Command::new("sh")
        .args(["-c", "sleep 30; : rival-secret-1"])
        .spawn()
        .unwrap();
    let other_own = w.tournament.join("other");
    std::fs::create_dir_all(&other_own).unwrap();
    let other = confine(&w, &other_own, &[]).unwrap();
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "sleep 30; : rival-secret-2"])
        .current_dir(&other_own)
        .confinement(&other);
    let mut other_bot = cmd.spawn().unwrap();
    let script = format!(
        r#"{TRY}
seen = []
for p in os.listdir('/proc'):
    if p.isdigit():
        try:
            seen.append((int(p), open('/proc/%s/cmdline' % p, 'rb').read()))
        except OSError:
            pass
print('pids', sorted(p for p, _ in seen))
print('me', os.getpid())
print('secrets', [c for _, c in seen if b'rival-' + b'secret' in c])
attempt('referee environ', lambda: open('/proc/1/environ').read())
"#
    );
    let out = python(&c, &w.own, &script);
    let _ = rival.kill();
    let _ = rival.wait();
    drop(other_bot.stdin.take());
    let _ = nix_kill(other_bot.pid);
    let _ = other_bot.wait_with_output();
    assert!(out.contains("secrets []"), "{out}");
    // The namespace's init and the bot itself.
    let pids = out
        .lines()
        .find_map(|l| l.strip_prefix("pids "))
        .unwrap_or_default();
    assert!(pids.split(',').count() <= 3, "{out}");
    assert_all_denied(&out, &["referee environ"]);
}

#[test]
fn a_bot_cannot_even_stat_what_the_tournament_folder_holds() {
    let w = world();
    let t = &w.tournament;
    std::fs::create_dir_all(t.join("other")).unwrap();
    std::fs::write(t.join("other/secret.txt"), "SECRET").unwrap();
    std::fs::write(t.join("results.db"), "DB").unwrap();
    std::fs::write(t.join("named.txt"), "NAMED").unwrap();
    let Some(c) = confine(&w, &w.own, &[t.join("named.txt")]) else {
        return;
    };
    if !c.namespaced() {
        no_namespaces_here();
        return;
    }
    let script = format!(
        r#"{TRY}
for name in ('other', 'other/secret.txt', 'results.db'):
    print(name, 'exists' if os.path.lexists({t:?} + '/' + name) else 'absent')
print('named', open({t:?} + '/named.txt').read())
open({own:?} + '/mine.txt', 'w').write('MINE')
print('own', open({own:?} + '/mine.txt').read())
attempt('write tournament', lambda: open({t:?} + '/dropped.txt', 'w'))
"#,
        t = t.to_string_lossy(),
        own = w.own.to_string_lossy(),
    );
    // Run from the tournament folder, as a tournament runs its bots.
    let out = python(&c, t, &script);
    for name in ["other", "other/secret.txt", "results.db"] {
        assert!(out.contains(&format!("{name} absent")), "{out}");
    }
    assert!(
        out.contains("named NAMED") && out.contains("own MINE"),
        "{out}"
    );
    assert_all_denied(&out, &["write tournament"]);
    // Its writes reached its real folder; the tournament is untouched.
    assert_eq!(
        std::fs::read_to_string(w.own.join("mine.txt")).unwrap(),
        "MINE"
    );
    assert!(!t.join("dropped.txt").exists());
    assert_eq!(
        std::fs::read_to_string(t.join("other/secret.txt")).unwrap(),
        "SECRET"
    );
}

fn nix_kill(pid: u32) -> i32 {
    // SAFETY: signalling a child of this test.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }
}

/// Where a bot gets no namespaces of its own: fails where it should
/// (as root, or in the unprivileged rerun below, which runs as the
/// referee does: in a user namespace of its own), unless the kernel is
/// known to refuse (`REFEREE_ALLOW_NO_NAMESPACES=1`).
fn no_namespaces_here() {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let expected = root || std::env::var_os("REFEREE_HOSTILE_INNER").is_some();
    assert!(
        !expected || std::env::var_os("REFEREE_ALLOW_NO_NAMESPACES").is_some(),
        "each bot gets PID and mount namespaces of its own, as root and in the referee's own user namespace; set REFEREE_ALLOW_NO_NAMESPACES=1 where the kernel refuses"
    );
    eprintln!("skipped: no namespaces per bot here");
}

/// Every test above again, as an unprivileged user (uid 65534) when this
/// runs as root: the sandbox must hold on an organiser's laptop too.
#[test]
fn the_attacks_fail_for_an_unprivileged_user_too() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || std::env::var_os("REFEREE_HOSTILE_INNER").is_some() {
        return;
    }
    assert!(
        std::process::Command::new("setpriv")
            .arg("--version")
            .output()
            .is_ok(),
        "setpriv (util-linux) is needed to run the sandbox tests unprivileged"
    );
    // The test binary where that user can run it; /tmp is open to all.
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    let exe = dir.path().join("hostile");
    std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    for p in [dir.path(), exe.as_path()] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = std::process::Command::new("setpriv")
        .args([
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            "--",
            // As the referee runs unprivileged: in a user namespace of its
            // own, its ids mapped to themselves, holding that namespace's
            // capabilities (`namespace::enter_own_user_namespace`).
            "unshare",
            "--user",
            "--map-current-user",
            "--keep-caps",
            "--",
        ])
        .arg(&exe)
        .args(["--test-threads", "1"])
        .env("REFEREE_HOSTILE_INNER", "1")
        // An unprivileged user cannot reach root's pyenv: the system interpreter.
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", "/tmp")
        .env("TMPDIR", "/tmp")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("test result: ok. 9 passed"), "{text}");
}
