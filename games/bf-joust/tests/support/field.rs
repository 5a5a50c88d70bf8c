//! A deterministic field of non-trivial bots for the benchmark and for the
//! engine-versus-reference tests. Ten strategy families, each drawn with
//! its own parameters from a seeded generator, so the field exercises rushes,
//! decoys, tripwires, nested and crossing groups, and long waits.

#![allow(dead_code)]

use rand::RngExt;

/// One generated bot: a name and its source text.
pub struct FieldBot {
    pub name: String,
    pub source: String,
}

/// `count` bots, the same for the same seed. Families take turns.
pub fn generate(count: usize, seed: u64) -> Vec<FieldBot> {
    let mut rng = game_core::rng(seed);
    (0..count)
        .map(|i| {
            let family = i % FAMILIES.len();
            let (label, make) = FAMILIES[family];
            FieldBot {
                name: format!("{label}{}", i / FAMILIES.len()),
                source: make(&mut rng),
            }
        })
        .collect()
}

type Rng = game_core::GameRng;
type Family = (&'static str, fn(&mut Rng) -> String);

const FAMILIES: [Family; 10] = [
    ("Rush", rush),
    ("Decoy", decoy_then_rush),
    ("Trip", tripwire),
    ("Shake", flag_shaker),
    ("Late", late_starter),
    ("Layer", layered_decoys),
    ("Ladder", crossing_ladder),
    ("Probe", probe_and_clear),
    ("Wall", wall),
    ("Keeper", keeper),
];

fn polarity(rng: &mut Rng) -> char {
    if rng.random_bool(0.5) {
        '+'
    } else {
        '-'
    }
}

fn opposite(c: char) -> char {
    if c == '+' {
        '-'
    } else {
        '+'
    }
}

/// A clear loop for one cell: an optional offset first (to get past a small
/// decoy of the other polarity), then step until zero.
fn clear(rng: &mut Rng) -> String {
    let dir = polarity(rng);
    match rng.random_range(0..3) {
        0 => format!("[{dir}]"),
        1 => format!("[({})*{}[{dir}]]", opposite(dir), rng.random_range(2..9)),
        _ => format!("[({dir})*{}[{}]]", rng.random_range(8..40), opposite(dir)),
    }
}

/// Runs straight to the enemy side and clears every cell from there on.
fn rush(rng: &mut Rng) -> String {
    let skip = rng.random_range(6..10);
    let c = clear(rng);
    format!("(>)*{skip}({c}>)*21")
}

/// Two big decoys in front of its flag, then a rush with a clear that
/// waits a cycle after each cell in case it was the flag.
fn decoy_then_rush(rng: &mut Rng) -> String {
    let a = rng.random_range(5..40);
    let b = rng.random_range(5..40);
    let c = clear(rng);
    format!(">(+)*{a}>(-)*{b}(>)*{}({c}.>)*21", rng.random_range(4..8))
}

/// Leaves a small mark on a nearby cell and waits while it stays non-zero;
/// once an attacker clears it, runs to the other side and clears.
fn tripwire(rng: &mut Rng) -> String {
    let at = rng.random_range(2..5);
    let mark = polarity(rng);
    let c = clear(rng);
    format!(
        ">(-)*{}(>)*{}{mark}[.](>)*{}({c}>)*21",
        rng.random_range(10..30),
        at - 1,
        rng.random_range(3..7)
    )
}

/// Rattles its own flag for a while (the flag dips to 127 and back), then
/// attacks.
fn flag_shaker(rng: &mut Rng) -> String {
    let n = rng.random_range(300..2500);
    let c = clear(rng);
    format!("(-+)*{n}(>)*{}({c}>)*21", rng.random_range(7..10))
}

/// Idles, builds one decoy, then attacks with a two-polarity sweep.
fn late_starter(rng: &mut Rng) -> String {
    let wait = rng.random_range(200..2500);
    let d = polarity(rng);
    format!(
        "(.)*{wait}>({d})*{}(>)*{}([-[++[---]]]>)*21",
        rng.random_range(10..60),
        rng.random_range(5..8)
    )
}

/// Alternating-polarity decoys on several cells, back home, then a rush
/// over its own decoys.
fn layered_decoys(rng: &mut Rng) -> String {
    let m = rng.random_range(2..5);
    let a = rng.random_range(3..20);
    let c = clear(rng);
    format!(
        "(>(+)*{a}>(-)*{a})*{m}(<)*{}(>)*{}({c}>)*21",
        2 * m - 1,
        rng.random_range(8..11)
    )
}

/// Uses the repetition idiom whose brackets cross group boundaries
/// (`([-)*k … (])*k`), which the original rules tolerated.
fn crossing_ladder(rng: &mut Rng) -> String {
    let k = rng.random_range(2..7);
    let d = polarity(rng);
    format!(
        "(>)*{}(([{d})*{k}[{}](])*{k}>)*21",
        rng.random_range(7..10),
        opposite(d)
    )
}

/// Walks forward testing each cell; on a non-zero cell, nudges it and
/// clears it, and every few cells steps back to re-check one.
fn probe_and_clear(rng: &mut Rng) -> String {
    let c = clear(rng);
    let nudge = rng.random_range(1..4);
    format!(
        ">(+)*{}(>)*{}((>[(+)*{nudge}{c}])*3<[{c}]>)*8",
        rng.random_range(5..30),
        rng.random_range(5..8)
    )
}

/// Four decoys, then a tripwire further out than most rushers skip, and a
/// long wait on it before a counterattack.
fn wall(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..4 {
        let d = polarity(rng);
        s.push_str(&format!(">({d})*{}", rng.random_range(20..70)));
    }
    let c = clear(rng);
    format!(
        "{s}>>>-[.(.)*{}](>)*{}({c}>)*21",
        rng.random_range(1..4),
        rng.random_range(2..5)
    )
}

/// Guards its flag: a decoy in front, then it rattles the flag in both
/// directions for most of the match, and attacks late.
fn keeper(rng: &mut Rng) -> String {
    let a = rng.random_range(10..60);
    let n = rng.random_range(200..700);
    let k = rng.random_range(3..6);
    let c = clear(rng);
    format!(
        ">(+)*{a}<((-+)*{n}(+-)*{n})*{k}(>)*{}({c}>)*21",
        rng.random_range(8..10)
    )
}
