//! The benchmark's generated field, played in full on a few lengths by both
//! the engine and the reference interpreter: realistic programs, every
//! result equal.

#[path = "support/field.rs"]
mod field;
#[path = "support/reference.rs"]
mod reference;

use game_bf_joust::{run_match, Outcome, Program};

#[test]
fn the_generated_field_is_valid_and_reproducible() {
    let a = field::generate(40, 7);
    let b = field::generate(40, 7);
    assert_eq!(a.len(), 40);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((&x.name, &x.source), (&y.name, &y.source));
        assert!(
            Program::parse(x.source.as_bytes()).is_ok(),
            "{}: {}",
            x.name,
            x.source
        );
    }
    let names: std::collections::BTreeSet<&str> = a.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names.len(), 40, "names are unique");
}

#[test]
fn engine_and_reference_agree_on_every_pairing_of_the_field() {
    let bots = field::generate(24, 7);
    let fast: Vec<Program> = bots
        .iter()
        .map(|b| Program::parse(b.source.as_bytes()).expect("valid"))
        .collect();
    let slow: Vec<reference::RefProgram> = bots
        .iter()
        .map(|b| reference::RefProgram::new(b.source.as_bytes()))
        .collect();
    let mut decisive = 0;
    for i in 0..bots.len() {
        for j in i + 1..bots.len() {
            for len in [10, 17, 30] {
                let mine = run_match(&fast[i], &fast[j], len, 10_000);
                let theirs = reference::result(&slow[i], &slow[j], len, 10_000);
                let c = match mine.outcome {
                    Outcome::LeftWins => 'L',
                    Outcome::RightWins => 'R',
                    Outcome::Draw => 'D',
                };
                assert_eq!(
                    (c, mine.cycles),
                    theirs,
                    "{} vs {} on {len}",
                    bots[i].name,
                    bots[j].name
                );
                if c != 'D' {
                    decisive += 1;
                }
            }
        }
    }
    // The field is a real contest, not a wall of draws.
    assert!(
        decisive > 24 * 23 / 2 * 3 / 2,
        "only {decisive} decisive matches"
    );
}

/// The engine has a variant per op-array size class and a slice path for
/// programs beyond the largest; padding a bot with unreachable code moves
/// it between them and must change nothing.
#[test]
fn every_program_size_plays_the_same() {
    // Ops in a zero-count group are kept (a jump could land there), so
    // this tail grows the op array without being reachable.
    let pad = |ops: usize| format!("({})*0", "+".repeat(ops));
    let bots = field::generate(16, 11);
    for (i, a) in bots.iter().enumerate() {
        let b = &bots[(i * 7 + 3) % bots.len()];
        let expected = reference::result(
            &reference::RefProgram::new(a.source.as_bytes()),
            &reference::RefProgram::new(b.source.as_bytes()),
            10 + i,
            10_000,
        );
        for (left_pad, right_pad) in [
            (0, 0),
            (1_000, 0),
            (0, 20_000),
            (70_000, 300),
            (300, 70_000),
        ] {
            let left =
                Program::parse(format!("{}{}", a.source, pad(left_pad)).as_bytes()).expect("valid");
            let right = Program::parse(format!("{}{}", b.source, pad(right_pad)).as_bytes())
                .expect("valid");
            let r = run_match(&left, &right, 10 + i, 10_000);
            let c = match r.outcome {
                Outcome::LeftWins => 'L',
                Outcome::RightWins => 'R',
                Outcome::Draw => 'D',
            };
            assert_eq!(
                (c, r.cycles),
                expected,
                "{} vs {} padded {left_pad}/{right_pad}",
                a.name,
                b.name
            );
        }
    }
}
