//! The persistent transport with real processes: lockstep answers, bursts,
//! silence, death, floods and the end-of-life kill.

use crate::common::{alive, bot, python, root};
use game_core::LineReply;
use referee::bot::persistent::lines;
use referee::bot::{BotLog, BotProgram, Incoming, LineProcess};
use referee_sandbox::Confinement;
use std::time::{Duration, Instant};

fn start(argv: &[&str], home: &std::path::Path, log: BotLog) -> LineProcess {
    let program = BotProgram {
        name: "p".into(),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        cwd: root(),
        folder: home.to_path_buf(),
        confinement: Confinement::minimal(),
        env: Vec::new(),
        quota: None,
    };
    LineProcess::spawn(&program, &[], lines(4096), log).unwrap()
}

const T: Duration = Duration::from_secs(5);

#[tokio::test(flavor = "multi_thread")]
async fn a_python_bot_answers_in_lockstep_and_logs_stderr() {
    let home = tempfile::tempdir().unwrap();
    let log_path = home.path().join("p.log");
    let mut p = start(
        &[python(), bot("echo_lines.py").to_str().unwrap()],
        home.path(),
        BotLog::new(&log_path),
    );
    for i in 0..50 {
        assert_eq!(
            p.ask(format!("n{i}\n"), T).await,
            LineReply::Message(format!("got n{i}").into_bytes())
        );
    }
    let reaped = p.shutdown(Duration::from_secs(2)).await.unwrap();
    assert_eq!(
        reaped.exit,
        referee_sandbox::sys::ExitKind::Code(0),
        "exits by itself at EOF"
    );
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(log.contains("echoed n49"), "{log}");
}

#[tokio::test(flavor = "multi_thread")]
async fn several_messages_in_one_write_are_delivered_one_by_one() {
    let home = tempfile::tempdir().unwrap();
    let mut p = start(
        &["node", bot("burst.js").to_str().unwrap()],
        home.path(),
        BotLog::discard(),
    );
    assert_eq!(p.ask("go\n", T).await, LineReply::Message(b"a".to_vec()));
    let deadline = Instant::now() + T;
    assert!(matches!(p.next_before(deadline).await, Some(Incoming::Message(m, _)) if m == b"b"));
    assert!(matches!(p.next_before(deadline).await, Some(Incoming::Message(m, _)) if m == b"c"));
    // Then silence: the deadline passes.
    assert_eq!(
        p.ask("again\n", Duration::from_millis(200)).await,
        LineReply::TimedOut
    );
    p.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bot_that_dies_is_closed_for_good() {
    let home = tempfile::tempdir().unwrap();
    let mut p = start(
        &["sh", bot("die_after_two.sh").to_str().unwrap()],
        home.path(),
        BotLog::discard(),
    );
    assert_eq!(p.ask("x\n", T).await, LineReply::Message(b"one x".to_vec()));
    assert_eq!(p.ask("y\n", T).await, LineReply::Message(b"two y".to_vec()));
    let start = Instant::now();
    assert_eq!(p.ask("z\n", T).await, LineReply::Closed);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "closed is seen without waiting for the deadline"
    );
    assert_eq!(p.ask("again\n", T).await, LineReply::Closed);
    // Writing to a dead bot is harmless.
    p.send("more\n");
    p.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_overlong_line_is_too_long_and_the_stream_resyncs() {
    let home = tempfile::tempdir().unwrap();
    let mut p = start(
        &[
            "sh",
            "-c",
            "read x; head -c 10000 /dev/zero | tr '\\0' 'a'; echo; echo fine; sleep 5",
        ],
        home.path(),
        BotLog::discard(),
    );
    assert_eq!(p.ask("go\n", T).await, LineReply::TooLong);
    let next = p.next_before(Instant::now() + T).await;
    assert!(
        matches!(next, Some(Incoming::Message(ref m, _)) if m == b"fine"),
        "{next:?}"
    );
    p.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flooding_bot_is_held_back_not_buffered_without_end() {
    let home = tempfile::tempdir().unwrap();
    let mut p = start(
        &["sh", "-c", "exec yes '0 1'"],
        home.path(),
        BotLog::discard(),
    );
    // It answers at once and forever; the referee reads what it wants and
    // then kills it, promptly, whatever is still queued.
    for _ in 0..100 {
        assert_eq!(p.ask("", T).await, LineReply::Message(b"0 1".to_vec()));
    }
    let start = Instant::now();
    p.kill().await;
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_kills_a_bot_that_ignores_eof_and_its_children() {
    let home = tempfile::tempdir().unwrap();
    let mut p = start(
        &["sh", bot("stubborn.sh").to_str().unwrap()],
        home.path(),
        BotLog::discard(),
    );
    assert!(
        matches!(p.next_before(Instant::now() + T).await, Some(Incoming::Message(m, _)) if m == b"ready")
    );
    let child: i32 = std::fs::read_to_string(home.path().join("child.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let start = Instant::now();
    let reaped = p.shutdown(Duration::from_millis(300)).await.unwrap();
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(3),
        "{took:?}"
    );
    assert_eq!(
        reaped.exit,
        referee_sandbox::sys::ExitKind::Signal(libc::SIGKILL)
    );
    let until = Instant::now() + Duration::from_secs(2);
    while alive(child) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!alive(child), "the bot's child survived the shutdown");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bot_that_stops_reading_its_stdin_leaves_writes_blocked() {
    let home = tempfile::tempdir().unwrap();
    // Reads nothing, keeps stdin open: the pipe fills and the write blocks.
    let mut deaf = start(&["sleep", "30"], home.path(), BotLog::discard());
    deaf.send(vec![b'F'; 1 << 20]);
    let began = Instant::now();
    assert!(
        !deaf
            .flushed_before(Instant::now() + Duration::from_millis(300))
            .await
    );
    assert!(began.elapsed() >= Duration::from_millis(300));
    // Once the bot is killed the rest is dropped: nothing is left to wait for.
    deaf.kill().await;
    assert!(deaf.flushed_before(Instant::now() + T).await);

    // A bot that reads everything is flushed as soon as it has read it.
    let mut reader = start(
        &["sh", "-c", "cat >/dev/null"],
        home.path(),
        BotLog::discard(),
    );
    reader.send(vec![b'F'; 1 << 20]);
    reader.send("more\n");
    assert!(reader.flushed_before(Instant::now() + T).await);
    assert!(
        reader.flushed_before(Instant::now()).await,
        "nothing new was sent"
    );
    reader.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn processes_on_a_shared_sink_deliver_tagged_batches_in_order() {
    use referee::bot::Batch;
    let home = tempfile::tempdir().unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Batch>(16);
    let program = |argv: &[&str]| BotProgram {
        name: "p".into(),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        cwd: root(),
        folder: home.path().to_path_buf(),
        confinement: Confinement::minimal(),
        env: vec![("FORTY_TEST_WORD".into(), "hello".into())],
        quota: None,
    };
    // One write of three lines (one of them over the cap), then exit.
    let a = LineProcess::spawn_shared(
        &program(&[
            "sh",
            "-c",
            "printf 'one\\r\\ntwo\\n%s\\nthree\\n' $(head -c 5000 /dev/zero | tr '\\0' x)",
        ]),
        &[],
        lines(4096),
        BotLog::discard(),
        7,
        tx.clone(),
    )
    .unwrap();
    // The extra environment reaches the process.
    let b = LineProcess::spawn_shared(
        &program(&["sh", "-c", "echo \"$FORTY_TEST_WORD\""]),
        &[],
        lines(4096),
        BotLog::discard(),
        9,
        tx,
    )
    .unwrap();
    let mut seen: std::collections::HashMap<u64, Vec<Incoming>> = Default::default();
    let deadline = tokio::time::Instant::now() + T;
    while seen
        .values()
        .filter(|m| m.last() == Some(&Incoming::Closed))
        .count()
        < 2
    {
        let batch = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("both processes finish")
            .expect("the sink stays open");
        assert!(!batch.pieces.is_empty(), "no empty batches");
        seen.entry(batch.tag).or_default().extend(batch.incoming());
    }
    let text = |m: &Incoming| match m {
        Incoming::Message(bytes, _) => String::from_utf8_lossy(bytes).into_owned(),
        Incoming::TooLong(_) => "<too long>".into(),
        Incoming::Closed => "<closed>".into(),
    };
    let a_seen: Vec<String> = seen[&7].iter().map(text).collect();
    assert_eq!(a_seen, ["one", "two", "<too long>", "three", "<closed>"]);
    let b_seen: Vec<String> = seen[&9].iter().map(text).collect();
    assert_eq!(b_seen, ["hello", "<closed>"]);
    // A shared process has no receiver of its own.
    let mut a = a;
    assert_eq!(
        a.next_before(Instant::now() + Duration::from_millis(10))
            .await,
        Some(Incoming::Closed)
    );
    a.kill().await;
    let mut b = b;
    b.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bytes_sent_while_the_pipe_is_full_arrive_in_order_then_eof() {
    let home = tempfile::tempdir().unwrap();
    // Reads nothing for a while, so the pipe fills and later sends queue up.
    let mut p = start(
        &["sh", "-c", "sleep 0.3; exec cat"],
        home.path(),
        BotLog::discard(),
    );
    let n = 20_000;
    for i in 0..n {
        p.send(format!("n{i}\n"));
    }
    p.close_stdin();
    let deadline = Instant::now() + Duration::from_secs(30);
    for i in 0..n {
        match p.next_before(deadline).await {
            Some(Incoming::Message(m, _)) => assert_eq!(m, format!("n{i}").into_bytes()),
            other => panic!("message {i}: {other:?}"),
        }
    }
    // Stdin was closed after the queue: cat saw EOF and exited.
    assert_eq!(p.next_before(deadline).await, Some(Incoming::Closed));
    p.kill().await;
}
