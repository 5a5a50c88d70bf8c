//! meta-ttt under load: a 1000 ms limit, Python bots started through
//! `python3` on PATH (a version manager's launcher on many machines), one
//! that thinks for a fixed amount of work, and a C bot.

use crate::common::{first_legal, q, root};

#[test]
fn a_meta_ttt_tournament_under_load_gives_the_idle_results() {
    let _one = crate::one_at_a_time();
    let bots = root().join("tests/bots");
    let instructions = format!(
        "challenge: meta-ttt\ntimeout-ms: 1000\nmax-rounds: 30\n3\nfirstLegal\n{}\nthinker\npython3 {}\npyfirst\npython3 {}\n",
        q(&first_legal()),
        q(&bots.join("thinker.py")),
        q(&bots.join("first_legal.py")),
    );
    let base = tempfile::tempdir().unwrap();
    let (idle, loaded) = crate::idle_then_loaded(
        base.path(),
        |dir| std::fs::write(dir.join("instructions.txt"), &instructions).unwrap(),
        &[
            "--instructions",
            "instructions.txt",
            "--quiet",
            "--jobs",
            "2",
        ],
    );
    assert_eq!(crate::games(&idle).len(), 6, "every game stored");
    crate::assert_same_games(&idle, &loaded);
    // The load was real, and its waits were not charged to the bots.
    let waited = crate::uncharged_wait(&loaded);
    assert!(waited > 1.0, "uncharged waits under load: {waited} s");
}
