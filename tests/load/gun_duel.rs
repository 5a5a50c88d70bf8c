//! gun-duel under load: three interface-2 bots that each spend 150 ms of
//! their own CPU on every move, with a 250 ms limit, played on an idle
//! machine and then under [`Background`](crate::background::Background).
//! On a busy machine a move's 150 ms of CPU take two to four times that in
//! wall-clock time; the limit counts only what is charged (waits for a CPU
//! are not), so no move may time out and every duel must end alike.
//!
//! The field decides itself in one round: Shooter (load, shoot, ...) kills
//! Loader on turn 1 and draws with Shield; Loader and Shield draw, then
//! tie on points and total and leave together.

use crate::common::{bot, c_bot, q, referee, stdout};

#[test]
fn a_gun_duel_tournament_under_load_gives_the_idle_results() {
    let _one = crate::one_at_a_time();
    let thinker = c_bot(&bot("gun-duel/io_thinker.c"), "io_thinker");
    let base = tempfile::tempdir().unwrap();
    let (idle, loaded) = crate::idle_then_loaded(
        base.path(),
        |dir| {
            let t = q(&thinker);
            std::fs::write(
                dir.join("instructions.txt"),
                format!(
                    "challenge: gun-duel\nduels-per-pair: 2\nturns: 4\ntimeout-ms: 250\n\
                     Shooter {t} 150 01\nLoader {t} 150 0\nShield {t} 150 -\n"
                ),
            )
            .unwrap();
        },
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert_eq!(crate::games(&idle).len(), 6, "every duel stored");
    crate::assert_same_games(&idle, &loaded);
    let standings = |dir: &std::path::Path| {
        stdout(&referee(
            dir,
            &[
                "standings",
                "--instructions",
                "instructions.txt",
                "--format",
                "json",
            ],
        ))
    };
    let (a, b) = (standings(&idle), standings(&loaded));
    let without_cpu = |text: &str| {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        crate::without_times(&mut v);
        v
    };
    assert_eq!(without_cpu(&a), without_cpu(&b));
    // The expected tournament, not merely the same one twice.
    let rows = without_cpu(&a);
    let rows = rows.as_array().expect("a json array");
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {a}"))
    };
    assert_eq!(row("Shooter")["rank"], 1, "{a}");
    assert_eq!(row("Shooter")["wins"], 2, "{a}");
    for name in ["Shooter", "Loader", "Shield"] {
        assert_eq!(row(name)["faults"], serde_json::json!({}), "{name}: {a}");
    }
}
