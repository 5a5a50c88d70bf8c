//! Reading bot output (§6.4) and the log text it produces (§7).

use game_core::{Ending, Fault, Reply};
use game_heist::wire::{read_action, read_bet, STDOUT_CAP_BYTES};
use game_heist::Action;

fn bet(stdout: &[u8], credits: i64) -> (i64, Option<Fault>) {
    let reading = read_bet(&Reply::exited(stdout.to_vec(), 0), credits);
    (reading.bet, reading.fault)
}

#[test]
fn round1_integers() {
    assert_eq!(bet(b"100\n", 240), (100, None));
    assert_eq!(bet(b"  +42 \r\n", 240), (42, None));
    assert_eq!(bet(b"\t007\x0c", 240), (7, None));
    assert_eq!(bet(b"0", 240), (0, None));
    assert_eq!(bet(b"240", 240), (240, None));
}

#[test]
fn round1_clamps_without_fault() {
    assert_eq!(bet(b"241", 240), (240, None));
    assert_eq!(bet(b"-5", 240), (0, None));
    assert_eq!(bet(b"-0", 240), (0, None));
    assert_eq!(bet(b"5", 0), (0, None));
    assert_eq!(
        bet(b"99999999999999999999999999999999999999999", 240),
        (240, None)
    );
    assert_eq!(
        bet(b"-99999999999999999999999999999999999999999", 240),
        (0, None)
    );
    assert_eq!(
        bet(b"0000000000000000000000000000000000000012", 240),
        (12, None)
    );
    assert_eq!(bet(b"9223372036854775807", i64::MAX), (i64::MAX, None));
    assert_eq!(bet(b"9223372036854775808", i64::MAX), (i64::MAX, None));
    assert_eq!(bet(b"18446744073709551615", 1000), (1000, None));
}

#[test]
fn round1_garbage_is_a_zero_bet_and_bad_output() {
    for garbage in [
        &b""[..],
        b"   \n",
        b"12.5",
        b"1e3",
        b"1\n2",
        b"1 2",
        b"0x10",
        b"+",
        b"-",
        b"++1",
        b"+-1",
        b"ten",
        "\u{663}".as_bytes(),
        "\u{a0}5".as_bytes(),
        b"\x0b5",
        b"\xff12",
        b"12\xc3",
    ] {
        assert_eq!(
            bet(garbage, 240),
            (0, Some(Fault::BadOutput)),
            "{garbage:?}"
        );
    }
}

#[test]
fn round1_size_cap() {
    let mut exact = b"100".to_vec();
    exact.resize(STDOUT_CAP_BYTES, b' ');
    assert_eq!(bet(&exact, 240), (100, None));
    exact.push(b' ');
    assert_eq!(bet(&exact, 240), (0, Some(Fault::BadOutput)));
    let reply = Reply::ended(b"100".to_vec(), Ending::TooLong);
    assert_eq!(read_bet(&reply, 240).fault, Some(Fault::BadOutput));
    assert_eq!(read_bet(&reply, 240).bet, 0);
}

#[test]
fn round1_failed_processes_bet_nothing() {
    let cases = [
        (Ending::Exited(1), Fault::Crash),
        (Ending::Exited(-1), Fault::Crash),
        (Ending::Signalled(9), Fault::Crash),
        (Ending::TimedOut, Fault::Timeout),
        (Ending::SpawnFailed, Fault::SpawnFailed),
        (Ending::Sandbox, Fault::Sandbox),
    ];
    for (ending, fault) in cases {
        let reading = read_bet(&Reply::ended(b"100\n".to_vec(), ending), 240);
        assert_eq!((reading.bet, reading.fault), (0, Some(fault)), "{ending:?}");
    }
}

fn action(stdout: &[u8]) -> (Action, String, Option<Fault>) {
    let reading = read_action(&Reply::exited(stdout.to_vec(), 0));
    (reading.action, reading.shown, reading.fault)
}

#[test]
fn round2_the_nine_actions() {
    let words = [
        ("back out", Action::BackOut),
        ("all in", Action::AllIn),
        ("change jobs", Action::ChangeJobs),
        ("acquire intel", Action::AcquireIntel),
        ("buy guard", Action::BuyGuard),
        ("deposit", Action::Deposit),
        ("withdraw", Action::Withdraw),
        ("double cross", Action::DoubleCross),
        ("finger", Action::Finger),
    ];
    for (word, expected) in words {
        assert_eq!(
            action(format!("{word}\n").as_bytes()),
            (expected, word.to_string(), None)
        );
        assert_eq!(action(format!(" \t{word}\r\n\n").as_bytes()).0, expected);
        assert_eq!(expected.word(), Some(word));
    }
    assert_eq!(Action::GoAlong.word(), None);
}

#[test]
fn round2_anything_else_goes_along_without_fault() {
    for (text, shown) in [
        ("guncheck", "guncheck"),
        ("!guncheck", "!guncheck"),
        ("All in", "All in"),
        ("back  out", "back  out"),
        ("backout", "backout"),
        ("all in!", "all in!"),
        ("", ""),
        ("   ", ""),
        ("d\u{e9}cision", "d\u{e9}cision"),
    ] {
        assert_eq!(
            action(text.as_bytes()),
            (Action::GoAlong, shown.to_string(), None),
            "{text:?}"
        );
    }
}

#[test]
fn round2_unprintable_answers_show_as_bad_output() {
    for text in [
        "all\tin",
        "back out\nnow",
        "bell\x07",
        "del\x7f",
        "c1\u{85}x",
    ] {
        assert_eq!(
            action(text.as_bytes()),
            (Action::GoAlong, "(bad output)".to_string(), None),
            "{text:?}"
        );
    }
    let long = "x".repeat(201);
    assert_eq!(
        action(long.as_bytes()),
        (Action::GoAlong, "(bad output)".into(), None)
    );
    let limit = "x".repeat(200);
    assert_eq!(
        action(limit.as_bytes()),
        (Action::GoAlong, limit.clone(), None)
    );
}

#[test]
fn round2_failures_go_along_with_a_fault() {
    assert_eq!(
        action(b"\xffback out"),
        (
            Action::GoAlong,
            "(bad output)".into(),
            Some(Fault::BadOutput)
        )
    );
    let mut huge = b"back out".to_vec();
    huge.resize(STDOUT_CAP_BYTES + 1, b' ');
    assert_eq!(
        action(&huge),
        (
            Action::GoAlong,
            "(bad output)".into(),
            Some(Fault::BadOutput)
        )
    );
    let cases = [
        (Ending::Exited(3), "(crash)", Fault::Crash),
        (Ending::Signalled(11), "(crash)", Fault::Crash),
        (Ending::TimedOut, "(timeout)", Fault::Timeout),
        (Ending::TooLong, "(bad output)", Fault::BadOutput),
        (Ending::SpawnFailed, "(crash)", Fault::SpawnFailed),
        (Ending::Sandbox, "(crash)", Fault::Sandbox),
    ];
    for (ending, shown, fault) in cases {
        let reading = read_action(&Reply::ended(b"back out\n".to_vec(), ending));
        assert_eq!(
            (reading.action, reading.shown.as_str(), reading.fault),
            (Action::GoAlong, shown, Some(fault)),
            "{ending:?}"
        );
    }
}
