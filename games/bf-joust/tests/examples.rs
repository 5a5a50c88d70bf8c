//! The example bots in `examples/bots/bf-joust/`: valid, commented without
//! stray tokens, and each a real contender in the example tournament.

use game_bf_joust::{
    format_scoreboard, parse::filter_tokens, plan_matches, run_match, standings, Entry, Outcome,
    Program, Settings,
};

const BOTS: [(&str, &str); 4] = [
    (
        "QuickSweep",
        include_str!("../../../examples/bots/bf-joust/QuickSweep/QuickSweep.bf"),
    ),
    (
        "Picket",
        include_str!("../../../examples/bots/bf-joust/Picket/Picket.bf"),
    ),
    (
        "Sentinel",
        include_str!("../../../examples/bots/bf-joust/Sentinel/Sentinel.bf"),
    ),
    (
        "Pendulum",
        include_str!("../../../examples/bots/bf-joust/Pendulum/Pendulum.bf"),
    ),
];

#[test]
fn example_bots_are_valid_and_their_comments_hold_no_tokens() {
    for (name, source) in BOTS {
        assert!(Program::parse(source.as_bytes()).is_ok(), "{name}");
        let header: Vec<&str> = source.lines().take_while(|l| l.starts_with('#')).collect();
        assert!(header.len() >= 3, "{name} has a comment header");
        for line in header {
            assert_eq!(filter_tokens(line.as_bytes()), b"", "{name}: {line}");
        }
    }
}

#[test]
fn the_example_tournament_is_a_contest() {
    let programs: Vec<Program> = BOTS
        .iter()
        .map(|(_, s)| Program::parse(s.as_bytes()).expect("valid"))
        .collect();
    let entries: Vec<Entry> = BOTS
        .iter()
        .map(|(n, _)| Entry {
            name: n.to_string(),
            owner: "examples".into(),
            invalid: None,
        })
        .collect();
    let settings = Settings::from_pairs(&[("tape-lengths", "all")]).expect("valid settings");
    let plan = plan_matches(&settings, &entries, 2014);
    let results: Vec<(usize, usize, Outcome)> = plan
        .iter()
        .map(|m| {
            (
                m.left,
                m.right,
                run_match(
                    &programs[m.left],
                    &programs[m.right],
                    m.tape_len,
                    settings.cycles,
                )
                .outcome,
            )
        })
        .collect();
    let rows = standings(&entries, results.iter().copied());
    println!("{}", format_scoreboard(&rows));
    for row in &rows {
        assert!(row.wins > 0, "{} never wins", row.name);
        assert!(row.losses > 0, "{} never loses", row.name);
    }
}
