//! `referee report` and the live page (`--serve`): a small tournament of
//! each challenge gives a page that names every bot, holds the standings,
//! pictures and replays, and loads nothing from anywhere; the live page
//! follows a `watch` as games commit and a bot is dropped in.

use crate::common::{bot, first_legal, python, q, referee, root, stderr, stdout, tournament};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `s` as the page escapes text.
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Runs `referee report` in `dir`; checks what every report holds and
/// returns the page.
fn report(dir: &Path, names: &[&str]) -> String {
    let out = referee(dir, &["report", "--instructions", "instructions.txt"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "report.html");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    // Nothing leaves the file: no URL but SVG's namespace, no src at all.
    let bare = html.replace("http://www.w3.org/2000/svg", "");
    assert!(
        !bare.contains("http://") && !bare.contains("https://"),
        "a URL in the page"
    );
    assert!(!html.contains(" src="), "something loaded from elsewhere");
    for name in names {
        assert!(html.contains(&escaped(name)), "{name} is not in the page");
    }
    // The standings as the referee prints them.
    let standings = referee(dir, &["standings"]);
    for line in stdout(&standings).lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            html.contains(&escaped(line)),
            "standings line `{line}` missing"
        );
    }
    assert!(html.contains("<h2>Bots and faults</h2>"));
    assert!(html.contains(&format!("referee {}", env!("CARGO_PKG_VERSION"))));
    rendered(dir, names, &html);
    html
}

/// The page as headless Chromium renders it offline (skipped without
/// Chromium): every bot named, every picture drawn, no script error and
/// no load refused by the page's policy.
fn rendered(dir: &Path, names: &[&str], html: &str) {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium");
        return;
    };
    let (dom, log) = dom_of(
        browser,
        &format!("file://{}", dir.join("report.html").display()),
    );
    for name in names {
        assert!(dom.contains(&escaped(name)), "{name} is not rendered");
    }
    // Every chart is there after rendering, with a size of its own.
    let pictures = html.matches("<svg").count();
    assert_eq!(dom.matches("<svg").count(), pictures, "{log}");
    let sized = dom
        .split("<svg")
        .skip(1)
        .filter(|svg| {
            let head = svg.split('>').next().unwrap_or_default();
            head.contains("width=\"") && !head.contains("width=\"0\"")
        })
        .count();
    assert_eq!(sized, pictures, "a picture without a size");
    for line in log.lines() {
        assert!(
            !line.contains("Uncaught") && !line.contains("Content Security Policy"),
            "{line}"
        );
    }
}

fn replays(html: &str) -> usize {
    html.matches("<details class=\"replay\"").count()
}

/// A bot folder whose `run.sh` plays firstLegal.
fn first_legal_folder(dir: &Path, name: &str) {
    let f = dir.join(name);
    std::fs::create_dir_all(&f).unwrap();
    std::fs::copy(first_legal(), f.join("firstLegal")).unwrap();
    std::fs::write(
        f.join("run.sh"),
        format!("#!/bin/sh\nexec {name}/firstLegal \"$@\"\n"),
    )
    .unwrap();
}

#[test]
fn a_meta_ttt_report_has_the_matrix_and_boards_to_step_through() {
    let dir = tournament("challenge: meta-ttt\nalpha sh alpha/run.sh\nbravo sh bravo/run.sh\n");
    first_legal_folder(dir.path(), "alpha");
    first_legal_folder(dir.path(), "bravo");
    let out = referee(dir.path(), &["--instructions", "instructions.txt", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = report(dir.path(), &["alpha", "bravo"]);
    assert_eq!(replays(&html), 2, "both games of a small tournament");
    assert!(html.contains("<h2>Pairwise results</h2>") && html.contains("class=\"heat\""));
    // A board per call plus the empty one, drawn by the page's script.
    let frames = html.matches("data-cells=\"").count();
    assert!(frames > 2 * 10, "{frames} positions");
    assert!(html.contains("onclick=\"step('replay0',1)\""));
    assert!(html.contains("referee play meta-ttt"));
    // The same program on both sides: each wins its game as X.
    assert!(
        html.contains("Tied first: <b>alpha, bravo</b>"),
        "the winners"
    );
}

#[test]
fn a_gun_duel_report_has_the_rounds_the_matrix_duels_and_the_dead() {
    let script = |s: &str| format!("{} {} {s} -", python(), q(&bot("gun-duel/io_script.py")));
    let dir = tournament(&format!(
        "challenge: gun-duel\nduels-per-pair: 2\nturns: 12\n\
         Loader {}\nShield {}\nQuitter {}\n",
        script("0-1"),
        script("0=01"),
        script("0q"),
    ));
    let out = referee(dir.path(), &["--instructions", "instructions.txt", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = report(dir.path(), &["Loader", "Shield", "Quitter"]);
    assert!(html.contains("<h2>Elimination rounds</h2>") && html.contains("<svg"));
    assert!(html.contains("<h2>Pairwise wins</h2>"));
    assert!(replays(&html) >= 6, "every duel of round 1 at least");
    assert!(html.contains("<th>ammo</th>"));
    // The bot whose process quit is dead: the text standings and the page
    // say so.
    let text = stdout(&out);
    assert!(
        text.contains("\nout: Quitter: dead from round 1: its process ended; no move after that\n"),
        "{text}"
    );
    assert!(html.contains("dead from round 1"), "the reason a bot died");
}

#[test]
fn a_bf_joust_report_has_the_heat_map_and_the_result_strings() {
    let dir = tournament("challenge: bf-joust\nmatches-per-pairing: 3\n\nRusher\nIdle\nSuicide\n");
    for (name, source) in [
        ("Rusher", "(>)*8([-]>)*22"),
        ("Idle", "nothing at all"),
        ("Suicide", "<"),
    ] {
        std::fs::create_dir_all(dir.path().join(name)).unwrap();
        std::fs::write(dir.path().join(name).join(format!("{name}.bf")), source).unwrap();
    }
    let out = referee(dir.path(), &["--instructions", "instructions.txt", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = report(dir.path(), &["Rusher", "Idle", "Suicide"]);
    assert!(html.contains("class=\"heat\""));
    // Rusher beats Idle on every length; Idle beats Suicide.
    assert!(
        html.contains("<code>&lt;&lt;&lt;</code>"),
        "the <<< strings"
    );
    assert_eq!(replays(&html), 9);
    assert!(html.contains("referee play bf-joust"));
    assert!(html.contains("left the tape"), "how Suicide lost");
    // The final tapes, played again from the program files.
    assert_eq!(html.matches("<pre class=\"tape\">[ ").count(), 9);
    // Rusher ends on Idle's flag, cleared, where Idle's pointer stayed.
    assert!(html.contains(" | &gt;0&lt; ]</pre>"), "Idle's cleared flag");
    // Suicide stepped off its end after one cycle, drawn wrapped onto cell
    // 0; Rusher has made one step.
    assert!(
        html.contains("<pre class=\"tape\">[ 128&lt; | &gt;0 | 0 |"),
        "Suicide's exit"
    );

    // From the database alone: a program changed since (or gone) is not
    // replayed, and the page says what it stored.
    std::fs::write(dir.path().join("Rusher/Rusher.bf"), ">").unwrap();
    std::fs::remove_file(dir.path().join("Idle/Idle.bf")).unwrap();
    let html = report(dir.path(), &["Rusher", "Idle", "Suicide"]);
    assert_eq!(replays(&html), 9);
    let tapes = html.matches("<pre class=\"tape\">").count();
    assert_eq!(tapes, 0, "every match has Rusher or Idle in it");
}

#[test]
fn a_heist_report_charts_credits_and_shows_log_blocks() {
    let fixed = q(&bot("heist_fixed.sh"));
    let dir = tournament(&format!(
        "challenge: heist\nseed: 5\ngames: 6\ntournaments: 1\nrabble: 20\n\
         crosser sh {fixed} 5 'double cross'\nsnitch sh {fixed} 3 finger\npassive sh {fixed} 0 guncheck\n"
    ));
    let out = referee(dir.path(), &["--instructions", "instructions.txt", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = report(dir.path(), &["crosser", "snitch", "passive"]);
    assert!(html.contains("Credits over the games, tournament 1") && html.contains("<svg"));
    assert_eq!(replays(&html), 6);
    assert!(html.contains("6 of 6 games"));
}

#[test]
fn a_forty_report_charts_win_rates_with_intervals_and_time_per_turn() {
    let example = |name: &str| {
        format!(
            "{} {} {}",
            python(),
            q(&root().join("protocols/forty/forty_host.py")),
            q(&root().join(format!("protocols/forty/examples/{name}.py")))
        )
    };
    let dir = tournament(&format!(
        "challenge: forty\nseed: 3\ngames: 1000\ntimeout-ms: 10000\n\
         GoToTenBot {}\nStopBot {}\nThrowTwiceBot {}\n",
        example("GoToTenBot"),
        example("StopBot"),
        example("ThrowTwiceBot"),
    ));
    let out = referee(dir.path(), &["--instructions", "instructions.txt", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = report(dir.path(), &["GoToTenBot", "StopBot", "ThrowTwiceBot"]);
    assert!(html.contains("Win % with 95 % confidence"));
    assert_eq!(html.matches("<svg").count(), 2, "win % and time per turn");
    assert!(html.contains("1000 of 1000 games"));
}

/// The page at `url` as headless Chromium leaves it after its scripts ran
/// (the DOM), and Chromium's log.
fn dom_of(browser: &str, url: &str) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(url)
        .output()
        .unwrap();
    (stdout(&out), stderr(&out))
}

/// Headless Chromium, if installed (`.ci/run` installs it).
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"].into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

#[test]
fn chromium_renders_the_report_offline_and_a_replay_steps() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium");
        return;
    };
    let dir = tournament(
        "challenge: meta-ttt
alpha sh alpha/run.sh
bravo sh bravo/run.sh
",
    );
    first_legal_folder(dir.path(), "alpha");
    first_legal_folder(dir.path(), "bravo");
    let out = referee(dir.path(), &["--instructions", "instructions.txt", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    report(dir.path(), &["alpha", "bravo"]);
    // `#replay1@3`: the second replay opened and stepped to its 4th position.
    let url = format!(
        "file://{}#replay1@3",
        dir.path().join("report.html").display()
    );
    let (dom, log) = dom_of(browser, &url);
    assert!(dom.contains("alpha") && dom.contains("bravo"), "{log}");
    assert!(
        dom.contains("<details class=\"replay\" id=\"dreplay1\" open=\"\">"),
        "opened"
    );
    assert!(dom.contains("id=\"replay1\" data-at=\"3\""), "stepped");
    assert!(
        dom.contains("<span class=\"at\">4 / "),
        "the position shown"
    );
    // The script drew the shown boards: the stepped one and each replay's last.
    assert!(
        dom.matches("<table class=\"ttt\">").count() >= 3,
        "boards drawn"
    );
    // No script error, and nothing refused by the page's policy (nothing
    // tried to load).
    for line in log.lines() {
        assert!(
            !line.contains("Uncaught") && !line.contains("Content Security Policy"),
            "{line}"
        );
    }
}

/// One GET; the status line and body.
fn get(addr: SocketAddr, path: &str) -> Option<(String, String)> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: test\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    Some((head.lines().next()?.to_string(), body.to_string()))
}

/// Polls `path` until `ok` holds of its body (bounded).
fn wait_for(addr: SocketAddr, path: &str, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let until = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some((_, body)) = get(addr, path) {
            if ok(&body) {
                return body;
            }
        }
        assert!(Instant::now() < until, "the live page never showed {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn the_live_page_follows_a_watch_and_shows_a_dropped_in_bot() {
    let dir = tournament("challenge: meta-ttt\nalpha sh alpha/run.sh\nbravo sh bravo/run.sh\n");
    first_legal_folder(dir.path(), "alpha");
    first_legal_folder(dir.path(), "bravo");
    let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args([
            "watch",
            "--instructions",
            "instructions.txt",
            "--quiet",
            "--serve",
            "127.0.0.1:0",
        ])
        .current_dir(dir.path())
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The address it bound, from its stderr.
    let mut err = child.stderr.take().unwrap();
    let mut seen = Vec::new();
    let addr: SocketAddr = loop {
        let mut buf = [0u8; 256];
        let n = err.read(&mut buf).unwrap();
        assert!(n > 0, "no address: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&seen);
        if let Some(rest) = text.split("live report at http://").nth(1) {
            if let Some((addr, _)) = rest.split_once('/') {
                break addr.parse().unwrap();
            }
        }
    };
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    assert!(addr.ip().is_loopback());

    // A client that connects and says nothing holds up no one.
    let _silent = TcpStream::connect(addr).unwrap();
    let page = wait_for(addr, "/", "both games", |b| b.contains("2 of 2 games"));
    assert!(page.contains("alpha") && page.contains("bravo"));
    assert!(
        page.contains("fetch('state'"),
        "the page follows the tournament"
    );
    let state = wait_for(addr, "/state", "the state", |b| b.contains("\"stored\":2"));
    assert!(state.contains("\"planned\":2"), "{state}");
    assert_eq!(get(addr, "/nothing").unwrap().0, "HTTP/1.1 404 Not Found");

    // A bot dropped in: its games are played and the page shows it.
    first_legal_folder(dir.path(), "late");
    std::fs::write(
        dir.path().join("late/bot.toml"),
        "name = \"late\"\nrun = \"sh late/run.sh\"\n",
    )
    .unwrap();
    let content = wait_for(addr, "/content", "the new bot", |b| {
        b.contains("late") && b.contains("6 of 6 games")
    });
    assert!(content.contains("<h2>Replays</h2>"));

    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    // Stopping the referee stopped the server.
    assert!(TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_err());
}

#[test]
fn a_report_of_a_hundred_bots_stays_small_and_keeps_each_bots_losses() {
    let mut instructions =
        String::from("challenge: bf-joust\nmatches-per-pairing: 1\ncycles: 2000\n\n");
    let dir = tempfile::tempdir().unwrap();
    for i in 1..=100 {
        let name = format!("B{i}");
        // Rushers that skip 1 to 9 cells, some first setting a decoy.
        let skip = i % 9 + 1;
        let source = if i % 3 == 0 {
            format!(">(+)*{}<(-)*{0}(>)*{}([+]>)*20", i % 7 + 2, skip + 1)
        } else {
            format!("(>)*{skip}([-]>)*{}", 29 - skip)
        };
        std::fs::create_dir_all(dir.path().join(&name)).unwrap();
        std::fs::write(dir.path().join(&name).join(format!("{name}.bf")), source).unwrap();
        instructions.push_str(&format!("{name}\n"));
    }
    std::fs::write(dir.path().join("instructions.txt"), instructions).unwrap();
    let out = referee(dir.path(), &["--instructions", "instructions.txt", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let names: Vec<String> = (1..=100).map(|i| format!("B{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let html = report(dir.path(), &names);
    assert!(html.len() < 20 << 20, "{} bytes", html.len());
    // 4950 matches: a sample and each bot's last losses, not all of them.
    let shown = replays(&html);
    assert!((30..=30 + 2 * 100).contains(&shown), "{shown} replays");
    assert!(html.contains(&format!("{shown} of 4950 matches shown")));
}

#[test]
fn report_writes_where_it_is_told_and_says_when_there_is_nothing() {
    let dir = tournament("challenge: meta-ttt\nalpha sh alpha/run.sh\nbravo sh bravo/run.sh\n");
    let out = referee(
        dir.path(),
        &["report", "--instructions", "instructions.txt"],
    );
    assert_eq!(out.status.code(), Some(2), "no database yet");
    assert!(
        stderr(&out).contains("results.db: no results database here"),
        "{}",
        stderr(&out)
    );
    first_legal_folder(dir.path(), "alpha");
    first_legal_folder(dir.path(), "bravo");
    let out = referee(dir.path(), &["--instructions", "instructions.txt", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = referee(
        dir.path(),
        &["report", "--db", "results.db", "--out", "elsewhere.html"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "elsewhere.html");
    let html = std::fs::read_to_string(dir.path().join("elsewhere.html")).unwrap();
    assert!(html.contains("alpha") && html.contains("bravo"));
    assert!(!dir.path().join("report.html").exists());
}
