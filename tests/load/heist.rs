//! heist under load: the four example bots (Python, C, JavaScript, shell),
//! with the limit lowered to 1000 ms so that a busy machine would show.

use crate::common::{referee, root};

#[test]
fn a_heist_tournament_under_load_gives_the_idle_results() {
    let _one = crate::one_at_a_time();
    let base = tempfile::tempdir().unwrap();
    let (idle, loaded) = crate::idle_then_loaded(
        base.path(),
        |dir| {
            crate::copy_tree(&root().join("examples/bots/heist"), dir);
            let text = std::fs::read_to_string(dir.join("instructions.txt")).unwrap();
            let text = text
                .replace("games: 50", "games: 12\ntimeout-ms: 1000")
                .replace("tournaments: 2", "tournaments: 1");
            std::fs::write(dir.join("instructions.txt"), text).unwrap();
        },
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert_eq!(crate::games(&idle).len(), 12, "every game stored");
    crate::assert_same_games(&idle, &loaded);
    let faults = |dir: &std::path::Path| referee(dir, &["standings"]).stdout;
    assert_eq!(faults(&idle), faults(&loaded));
    let waited = crate::uncharged_wait(&loaded);
    assert!(waited > 0.5, "uncharged waits under load: {waited} s");
}
