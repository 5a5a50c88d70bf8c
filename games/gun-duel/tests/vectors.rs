//! Every test vector of section 9, played by the rules alone and through
//! both wire codecs with scripted replies.

mod common;

use common::play_scripted;
use game_gun_duel::{parse_history, Duel, Interface, Outcome};

/// A vector: A's moves, B's moves, result, turns played, final ammo A/B, turn limit.
struct Vector {
    name: &'static str,
    a: String,
    b: String,
    outcome: Outcome,
    turns: u32,
    ammo: [i32; 2],
    limit: u32,
}

fn v(name: &'static str, a: &str, b: &str, outcome: Outcome, turns: u32, ammo: [i32; 2]) -> Vector {
    Vector {
        name,
        a: a.to_string(),
        b: b.to_string(),
        outcome,
        turns,
        ammo,
        limit: 100,
    }
}

use Outcome::{AWins as A, BWins as B, Draw};

/// Section 9.1, hand-made.
fn hand_made() -> Vec<Vector> {
    let x = "0020101--=0=02=-0-=1".repeat(5);
    let y = "00201--01==00=2-0=-1".repeat(5);
    let mut short_limit = v(
        "H17 turns: 3",
        &"0-".repeat(50),
        &"-0".repeat(50),
        Draw,
        3,
        [2, 1],
    );
    short_limit.limit = 3;
    vec![
        v("H1", "00", "01", B, 2, [2, 0]),
        v("H2", "000", "002", B, 3, [3, 0]),
        v("H3", "0-1", "010", A, 3, [0, 1]),
        v("H4", "01", "0=", A, 2, [0, 1]),
        v("H5", "001", "002", B, 3, [1, 0]),
        v("H6", "002", "000", A, 3, [0, 3]),
        v("H7", "002", "001", A, 3, [0, 1]),
        v("H8", "002", "00-", A, 3, [0, 2]),
        v("H9", "00-", "002", B, 3, [2, 0]),
        v("H10", "0=", "01", B, 2, [1, 0]),
        v("H11", "011", "01-", B, 3, [-1, 0]),
        v("H12", "02", "00", B, 2, [-1, 2]),
        v("H13", "1", "0", B, 1, [-1, 1]),
        v("H14", "1", "2", Draw, 1, [-1, -2]),
        v("H15", "0?", "0-", B, 2, [1, 1]),
        v("H16", "?", "1", Draw, 1, [0, -1]),
        v(
            "H17",
            &"0-".repeat(50),
            &"-0".repeat(50),
            Draw,
            100,
            [50, 50],
        ),
        short_limit,
        v("H18", &x, &y, Draw, 100, [0, 0]),
        v(
            "P",
            "001-000-1201101001----2",
            "00-10-=1-==--0100-1---1",
            B,
            23,
            [-1, 1],
        ),
    ]
}

/// Section 9.2, the originals' traces (A named first).
fn originals() -> Vec<Vector> {
    vec![
        v("GunClub-Opportunist", "010", "0-1", B, 3, [1, 0]),
        v("GunClub-BotRobot", "01", "00", A, 2, [0, 2]),
        v("GunClub-Plasma", "01", "00", A, 2, [0, 2]),
        v("GunClub-SadisticShooter", "0101", "0-02", B, 4, [0, 0]),
        v("GunClub-Camto", "01010", "010-1", B, 5, [1, 0]),
        v(
            "Opportunist-BotRobot",
            &("0-1".repeat(33) + "0"),
            &("00-".to_string() + &"01-".repeat(32) + "0"),
            Draw,
            100,
            [1, 3],
        ),
        v("Opportunist-Plasma", "0-1", "002", B, 3, [0, 0]),
        v(
            "Opportunist-SadisticShooter",
            "0-10-10-",
            "0--01-02",
            B,
            8,
            [1, 0],
        ),
        v(
            "Opportunist-Camto",
            "0-10-10-10-10-10-",
            "01-01-0-10--01-02",
            B,
            17,
            [1, 0],
        ),
        v("BotRobot-Plasma", "00=01", "002==", A, 5, [2, 0]),
        v("BotRobot-SadisticShooter", "00--01", "0-=1==", A, 6, [2, 0]),
        v("BotRobot-Camto", "00", "01", B, 2, [2, 0]),
        v("Plasma-SadisticShooter", "0020=", "0-=01", B, 5, [1, 1]),
        v("Plasma-Camto", "00", "01", B, 2, [2, 0]),
        v("SadisticShooter-Camto", "0-02", "01-0", A, 4, [0, 1]),
    ]
}

fn all_vectors() -> Vec<Vector> {
    let mut all = hand_made();
    all.extend(originals());
    all
}

/// Plays a vector with the rules alone and checks that the duel is decided
/// exactly on the last scripted turn.
fn check_rules(vector: &Vector) {
    let a = parse_history(&vector.a).expect("valid A");
    let b = parse_history(&vector.b).expect("valid B");
    let mut duel = Duel::new(vector.limit);
    for (k, (&ma, &mb)) in a.iter().zip(&b).enumerate() {
        let turn = duel.play([ma, mb]).unwrap_or_else(|| {
            panic!("{}: duel ended before turn {k}", vector.name);
        });
        let last = k + 1 == vector.turns as usize;
        assert_eq!(turn.outcome.is_some(), last, "{}: turn {k}", vector.name);
        if last {
            break;
        }
    }
    assert_eq!(duel.outcome(), Some(vector.outcome), "{}", vector.name);
    assert_eq!(duel.turns_played(), vector.turns, "{}", vector.name);
    assert_eq!(duel.ammo(), vector.ammo, "{}", vector.name);
}

#[test]
fn hand_made_vectors_follow_the_rules() {
    for vector in hand_made() {
        check_rules(&vector);
    }
}

#[test]
fn original_traces_follow_the_rules() {
    for vector in originals() {
        check_rules(&vector);
    }
}

#[test]
fn every_vector_plays_the_same_over_every_mix_of_interfaces() {
    let mixes = [
        [Interface::ExitCode, Interface::ExitCode],
        [Interface::Io, Interface::Io],
        [Interface::ExitCode, Interface::Io],
        [Interface::Io, Interface::ExitCode],
    ];
    for vector in all_vectors() {
        for interfaces in mixes {
            let (result, asked) = play_scripted(vector.limit, interfaces, &vector.a, &vector.b);
            let ctx = format!("{} over {interfaces:?}", vector.name);
            assert_eq!(result.outcome, vector.outcome, "{ctx}");
            assert_eq!(result.turns, vector.turns, "{ctx}");
            assert_eq!(asked, vector.turns as usize, "{ctx}");
            assert_eq!(result.ammo, vector.ammo, "{ctx}");
            let played = vector.turns as usize;
            assert_eq!(result.histories[0], vector.a[..played], "{ctx}");
            assert_eq!(result.histories[1], vector.b[..played], "{ctx}");
            // Each `?` is exactly one fault of the side that produced it.
            for side in 0..2 {
                let missing = result.histories[side].matches('?').count() as u64;
                assert_eq!(result.faults[side].total(), missing, "{ctx} side {side}");
            }
        }
    }
}

#[test]
fn swapping_the_sides_of_a_vector_mirrors_its_result() {
    for vector in all_vectors() {
        let swapped = Vector {
            name: vector.name,
            a: vector.b.clone(),
            b: vector.a.clone(),
            outcome: vector.outcome.mirrored(),
            turns: vector.turns,
            ammo: [vector.ammo[1], vector.ammo[0]],
            limit: vector.limit,
        };
        check_rules(&swapped);
    }
}
