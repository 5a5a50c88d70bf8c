//! The worked examples of sections 3 and 4: exact argv, exit statuses and
//! lines for the duel where A (id 2) plays `0-1` and B (id 5) plays `010`.

use game_core::{Ending, Fault, LineReply, Reply};
use game_gun_duel::{
    read_exit_reply, read_line_reply, result_line, turn_line, Action, Answer, DuelDriver, Epilogue,
    Interface, Outcome, Request, Seat,
};

fn seats(interface: Interface) -> [Seat; 2] {
    [
        Seat {
            interface,
            opponent_id: 5,
        },
        Seat {
            interface,
            opponent_id: 2,
        },
    ]
}

fn argv(s: &str) -> Vec<String> {
    s.split(' ').map(str::to_string).collect()
}

#[test]
fn interface_1_example_argv_and_exit_statuses() {
    // (A's fields, A's exit, B's fields, B's exit) per turn, from section 3.
    let turns = [
        ("5 0 3 0 0", 48, "2 0 3 0 0", 48),
        ("5 1 3 1 1 0 0", 45, "2 1 3 1 1 0 0", 49),
        ("5 2 3 1 0 0- 01", 49, "2 2 3 0 1 01 0-", 48),
    ];
    let mut driver = DuelDriver::new(100, seats(Interface::ExitCode));
    for (a_args, a_exit, b_args, b_exit) in turns {
        let requests = driver.requests().expect("duel goes on");
        assert_eq!(
            requests,
            [
                Request::Run { args: argv(a_args) },
                Request::Run { args: argv(b_args) }
            ]
        );
        let answers = [a_exit, b_exit]
            .map(|code| read_exit_reply(&Reply::exited(Vec::new(), code)).expect("not cancelled"));
        driver.submit(answers).expect("turn played");
    }
    assert_eq!(driver.requests(), None);
    assert_eq!(
        driver.epilogue(),
        Some([
            Epilogue::Run {
                args: argv("5 3 1 0 1 0-1 010")
            },
            Epilogue::Run {
                args: argv("2 3 2 1 0 010 0-1")
            },
        ])
    );
    let result = driver.result().expect("decided");
    assert_eq!(result.outcome, Outcome::AWins);
    assert_eq!(result_line(&result), "A wins after 3 turns: A=0-1 B=010");
}

#[test]
fn interface_1_final_call_has_negative_ammo_and_question_marks() {
    // H15 then an explosion: A `0?`, B `0-`. B wins; A never fired.
    let mut driver = DuelDriver::new(100, seats(Interface::ExitCode));
    let load = Reply::exited(Vec::new(), 48);
    let answers = [&load, &load].map(|r| read_exit_reply(r).expect("not cancelled"));
    driver.submit(answers);
    let timeout = Reply::ended(Vec::new(), Ending::TimedOut);
    let metal = Reply::exited(Vec::new(), 45);
    let answers = [&timeout, &metal].map(|r| read_exit_reply(r).expect("not cancelled"));
    let report = driver.submit(answers).expect("turn played");
    assert_eq!(report.faults, [Some(Fault::Timeout), None]);
    assert_eq!(
        turn_line(&report),
        "turn 1: A=? (ammo 1) [timeout] explodes, B=- (ammo 1) -> B wins"
    );
    assert_eq!(
        driver.epilogue(),
        Some([
            Epilogue::Run {
                args: argv("5 2 2 1 1 0? 0-")
            },
            Epilogue::Run {
                args: argv("2 2 1 1 1 0- 0?")
            },
        ])
    );

    // Fields can start with `-`: a bot that exploded with a bullet on turn 0.
    let mut driver = DuelDriver::new(100, seats(Interface::ExitCode));
    let bullet = Reply::exited(Vec::new(), 49);
    let thermal = Reply::exited(Vec::new(), 61);
    driver.submit([&bullet, &thermal].map(|r| read_exit_reply(r).expect("not cancelled")));
    assert_eq!(
        driver.epilogue(),
        Some([
            Epilogue::Run {
                args: argv("5 1 2 -1 0 1 =")
            },
            Epilogue::Run {
                args: argv("2 1 1 0 -1 = 1")
            },
        ])
    );
}

#[test]
fn interface_2_example_lines() {
    let mut driver = DuelDriver::new(100, seats(Interface::Io));
    let mut sent = [Vec::new(), Vec::new()];
    let moves = [[b'0', b'0'], [b'-', b'1'], [b'1', b'0']];
    for [a, b] in moves {
        let requests = driver.requests().expect("duel goes on");
        for (i, request) in requests.into_iter().enumerate() {
            match request {
                Request::Ask { bytes } => sent[i].extend(bytes),
                other => panic!("expected an Ask, got {other:?}"),
            }
        }
        let answers = [a, b].map(|m| read_line_reply(&LineReply::Message(vec![m])));
        driver.submit(answers).expect("turn played");
    }
    for (i, epilogue) in driver.epilogue().expect("decided").into_iter().enumerate() {
        match epilogue {
            Epilogue::Tell { bytes } => sent[i].extend(bytes),
            other => panic!("expected a Tell, got {other:?}"),
        }
    }
    assert_eq!(
        String::from_utf8_lossy(&sent[0]),
        "I5\nF\nP0\nF\nP1\nF\nP0\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&sent[1]),
        "I2\nF\nP0\nF\nP-\nF\nP1\n"
    );
    assert_eq!(driver.result().expect("decided").outcome, Outcome::AWins);
}

#[test]
fn interface_2_opponent_of_a_silent_bot_is_told_question_mark() {
    // A dead bot (its transport reported Closed earlier) answers DEAD: no
    // action, no new fault. It loses on turn 0; its opponent sees `P?`.
    let mut driver = DuelDriver::new(100, seats(Interface::Io));
    let report = driver
        .submit([
            Answer::DEAD,
            read_line_reply(&LineReply::Message(b"-".to_vec())),
        ])
        .expect("turn played");
    assert_eq!(report.turn.outcome, Some(Outcome::BWins));
    assert_eq!(
        driver.epilogue(),
        Some([
            Epilogue::Tell {
                bytes: b"P-\n".to_vec()
            },
            Epilogue::Tell {
                bytes: b"P?\n".to_vec()
            },
        ])
    );
    let result = driver.result().expect("decided");
    assert_eq!(result.faults[0].total(), 0);
    assert_eq!(result.histories, ["?".to_string(), "-".to_string()]);
}

#[test]
fn mixed_interfaces_each_get_their_own_form() {
    let seats = [
        Seat {
            interface: Interface::ExitCode,
            opponent_id: 7,
        },
        Seat {
            interface: Interface::Io,
            opponent_id: 3,
        },
    ];
    let mut driver = DuelDriver::new(100, seats);
    assert_eq!(
        driver.requests(),
        Some([
            Request::Run {
                args: argv("7 0 3 0 0")
            },
            Request::Ask {
                bytes: b"I3\nF\n".to_vec()
            },
        ])
    );
    driver.submit([Answer::action(Action::Load), Answer::action(Action::Metal)]);
    assert_eq!(
        driver.requests(),
        Some([
            Request::Run {
                args: argv("7 1 3 1 0 0 -")
            },
            Request::Ask {
                bytes: b"P0\nF\n".to_vec()
            },
        ])
    );
}

#[test]
fn submitting_after_the_end_changes_nothing() {
    let mut driver = DuelDriver::new(1, seats(Interface::Io));
    driver.submit([Answer::action(Action::Load), Answer::action(Action::Load)]);
    assert_eq!(driver.requests(), None);
    assert_eq!(driver.submit([Answer::DEAD, Answer::DEAD]), None);
    let result = driver.result().expect("draw at the limit");
    assert_eq!((result.outcome, result.turns), (Outcome::Draw, 1));
}
