//! A tournament, purely (spec §5): which matches exist, what they score and
//! how the original's scoreboard prints them. Running the matches and
//! storing results belong to the caller (see [`crate::parallel`]).

use rand::RngExt;
use serde::Serialize;

use crate::arena::{Outcome, MAX_TAPE_LEN, MIN_TAPE_LEN};
use crate::settings::{Rules, Settings, TapeLengths};

/// The owner shown when a bot's `bot.toml` names none.
pub const DEFAULT_OWNER: &str = "-";

/// A bot as the tournament sees it: listing order matters (earlier = left).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    /// From `owner` in the bot's `bot.toml`; `-` by default.
    pub owner: String,
    /// The §1 message (with the file name) when the program is invalid.
    pub invalid: Option<String>,
}

/// One match to play: indices into the entry list, with `left < right`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedMatch {
    pub left: usize,
    pub right: usize,
    /// The match's index within its pairing (0, 1, …).
    pub k: u32,
    pub tape_len: usize,
}

/// One pairing to play: indices into the entry list (`left < right`) and
/// the tape length of each of its matches, by k. Every match is played in
/// each polarity the settings ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedPairing {
    pub left: usize,
    pub right: usize,
    pub lengths: Vec<u8>,
}

/// Every pairing of the tournament, in [`plan_matches`]' order, each with
/// its matches' tape lengths.
pub fn plan_pairings(settings: &Settings, bots: &[Entry], seed: u64) -> Vec<PlannedPairing> {
    let valid: Vec<usize> = (0..bots.len())
        .filter(|&i| bots[i].invalid.is_none())
        .collect();
    let mut plan = Vec::new();
    for (a, &left) in valid.iter().enumerate() {
        for &right in &valid[a + 1..] {
            let lengths = (0..settings.matches_per_pairing())
                .map(|k| {
                    let len =
                        match_tape_len(settings, seed, &bots[left].name, &bots[right].name, k);
                    // 10..=30 always fits.
                    len as u8
                })
                .collect();
            plan.push(PlannedPairing {
                left,
                right,
                lengths,
            });
        }
    }
    plan
}

/// The identity a match's seed derives from: challenge, left, right, k.
pub fn match_identity(left: &str, right: &str, k: u32) -> String {
    format!("bf-joust/{left}/{right}/{k}")
}

/// The tape length of match `k` of the pairing `left` vs `right`: uniform
/// over 10..=30 from the match's own seed (`random`), or 10 + k (`all`).
pub fn match_tape_len(settings: &Settings, seed: u64, left: &str, right: &str, k: u32) -> usize {
    match settings.tape_lengths {
        TapeLengths::All => MIN_TAPE_LEN + k as usize,
        TapeLengths::Random => {
            let match_seed = game_core::game_seed(seed, &match_identity(left, right, k));
            game_core::rng(match_seed).random_range(MIN_TAPE_LEN..=MAX_TAPE_LEN)
        }
    }
}

/// Every match of the tournament: each unordered pair of valid entries, the
/// earlier-listed on the left, pairings in listing order, k ascending.
pub fn plan_matches(settings: &Settings, bots: &[Entry], seed: u64) -> Vec<PlannedMatch> {
    let valid: Vec<usize> = (0..bots.len())
        .filter(|&i| bots[i].invalid.is_none())
        .collect();
    let mut plan = Vec::new();
    for (a, &left) in valid.iter().enumerate() {
        for &right in &valid[a + 1..] {
            for k in 0..settings.matches_per_pairing() {
                let tape_len =
                    match_tape_len(settings, seed, &bots[left].name, &bots[right].name, k);
                plan.push(PlannedMatch {
                    left,
                    right,
                    k,
                    tape_len,
                });
            }
        }
    }
    plan
}

/// The progress line printed when a pairing has finished, in the original's wording.
pub fn pairing_line(left: &str, right: &str, left_wins: u64, right_wins: u64) -> String {
    format!("===== {left} vs. {right} finished with {left_wins}:{right_wins} =====")
}

/// One leaderboard row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Standing {
    /// 1-based; equal scores share a rank (1, 2, 2, 4).
    pub rank: usize,
    pub name: String,
    pub owner: String,
    /// 2014 rules: matches won, one point each. Hill rules: the sum of the
    /// pairings' points (matches won minus matches lost).
    pub score: i64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub matches: u64,
    pub invalid: bool,
    /// The invalid program's message.
    pub error: Option<String>,
}

impl Standing {
    /// Fault counts by kind for JSON and CSV: `{"invalid": 1}` for an
    /// invalid bot, empty otherwise (no bot process, so no other faults).
    pub fn faults(&self) -> std::collections::BTreeMap<&'static str, u64> {
        let mut faults = std::collections::BTreeMap::new();
        if self.invalid {
            faults.insert("invalid", 1);
        }
        faults
    }
}

/// The leaderboard from match results `(left, right, outcome)` (indices
/// into `bots`): sorted by score descending, then name descending by code point.
pub fn standings(
    bots: &[Entry],
    results: impl IntoIterator<Item = (usize, usize, Outcome)>,
) -> Vec<Standing> {
    standings_under(Rules::Y2014, bots, results)
}

/// [`standings`] under `rules`: the hill scores each match won +1 and each
/// match lost −1 (the sum of gearlance's pairing points).
pub fn standings_under(
    rules: Rules,
    bots: &[Entry],
    results: impl IntoIterator<Item = (usize, usize, Outcome)>,
) -> Vec<Standing> {
    let mut rows: Vec<Standing> = bots
        .iter()
        .map(|b| Standing {
            rank: 0,
            name: b.name.clone(),
            owner: b.owner.clone(),
            score: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            matches: 0,
            invalid: b.invalid.is_some(),
            error: b.invalid.clone(),
        })
        .collect();
    for (left, right, outcome) in results {
        let (winner, loser) = match outcome {
            Outcome::LeftWins => (left, right),
            Outcome::RightWins => (right, left),
            Outcome::Draw => {
                rows[left].draws += 1;
                rows[right].draws += 1;
                rows[left].matches += 1;
                rows[right].matches += 1;
                continue;
            }
        };
        rows[winner].wins += 1;
        rows[winner].score += 1;
        rows[winner].matches += 1;
        rows[loser].losses += 1;
        rows[loser].matches += 1;
        if rules == Rules::Hill {
            rows[loser].score -= 1;
        }
    }
    // Rust's `str` ordering is byte order, which for UTF-8 is code point order.
    rows.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| b.name.cmp(&a.name)));
    for i in 0..rows.len() {
        rows[i].rank = if i > 0 && rows[i].score == rows[i - 1].score {
            rows[i - 1].rank
        } else {
            i + 1
        };
    }
    rows
}

/// The original SCOREBOARD.md table (indented by 4 spaces), then, if any
/// bot is invalid, a blank line and one `invalid: NAME: MESSAGE` line per
/// invalid bot in leaderboard order. Every line ends in `\n`.
pub fn format_scoreboard(rows: &[Standing]) -> String {
    let width = |s: &str| s.chars().count();
    let wo = rows.iter().map(|r| width(&r.owner)).fold(5, usize::max);
    let wb = rows.iter().map(|r| width(&r.name)).fold(3, usize::max);
    // Scores of more than 3 characters widen the whole column, so the
    // table stays aligned (the original widened only their rows).
    let ws = rows
        .iter()
        .map(|r| r.score.to_string().len())
        .fold(3, usize::max);
    let extra = ws - 3;
    let mut out = format!(
        "    | {} | {}   Score{} |\n",
        centred("Owner", wo),
        centred("Bot", wb),
        " ".repeat(extra)
    );
    out.push_str(&format!(
        "    |-{}-|-{}---------{}|\n",
        "-".repeat(wo),
        "-".repeat(wb),
        "-".repeat(extra)
    ));
    for r in rows {
        out.push_str(&format!(
            "    | {:<wo$} | {:<wb$} -  {:<ws$}  |\n",
            r.owner, r.name, r.score
        ));
    }
    let invalid: Vec<&Standing> = rows.iter().filter(|r| r.invalid).collect();
    if !invalid.is_empty() {
        out.push('\n');
        for r in invalid {
            let message = r.error.as_deref().unwrap_or("invalid program");
            out.push_str(&format!("    invalid: {}: {}\n", r.name, message));
        }
    }
    out
}

/// One pairing's line under the hill rules, as the community reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairingSummary {
    pub left: String,
    pub right: String,
    /// One string per polarity (normal, then inverted), one `<`, `>` or
    /// `X` per tape length.
    pub strings: Vec<String>,
    /// Matches the left program won minus those it lost.
    pub points: i64,
}

/// The pairings block printed under the hill leaderboard: a blank line, a
/// heading, then `LEFT vs RIGHT: NORMAL INVERTED POINTS` per pairing (the
/// strings and points as gearlance prints them). Every line ends in `\n`.
pub fn format_pairings(pairings: &[PairingSummary]) -> String {
    let mut out = String::from(
        "\n    pairings (left vs right: normal and inverted polarity, tape lengths 10..30; < left wins, > right wins, X tie; left's points):\n",
    );
    for p in pairings {
        out.push_str(&format!(
            "    {} vs {}: {} {}\n",
            p.left,
            p.right,
            p.strings.join(" "),
            p.points
        ));
    }
    out
}

/// `text` centred in `width` columns, the odd space going to the right.
fn centred(text: &str, width: usize) -> String {
    let pad = width.saturating_sub(text.chars().count());
    let left = pad / 2;
    format!("{}{}{}", " ".repeat(left), text, " ".repeat(pad - left))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, owner: &str) -> Entry {
        Entry {
            name: name.into(),
            owner: owner.into(),
            invalid: None,
        }
    }

    #[test]
    fn the_spec_scoreboard_example_is_reproduced() {
        let bots = vec![
            entry("Beta2", "-"),
            entry("Alpha", "alice"),
            entry("Gamma", "bobby"),
            entry("Zed", "carol"),
        ];
        let mut results = Vec::new();
        results.extend(std::iter::repeat_n((1, 3, Outcome::LeftWins), 12));
        results.extend(std::iter::repeat_n((2, 3, Outcome::LeftWins), 7));
        results.extend(std::iter::repeat_n((0, 3, Outcome::LeftWins), 7));
        results.push((0, 1, Outcome::Draw));
        let rows = standings(&bots, results);
        let expected = "    | Owner |  Bot    Score |
    |-------|---------------|
    | alice | Alpha -  12   |
    | bobby | Gamma -  7    |
    | -     | Beta2 -  7    |
    | carol | Zed   -  0    |
";
        assert_eq!(format_scoreboard(&rows), expected);
        let ranks: Vec<usize> = rows.iter().map(|r| r.rank).collect();
        assert_eq!(ranks, vec![1, 2, 2, 4]);
        assert_eq!(
            (rows[2].wins, rows[2].draws, rows[2].losses, rows[2].matches),
            (7, 1, 0, 8)
        );
        assert_eq!((rows[3].losses, rows[3].matches), (26, 26));
    }

    #[test]
    fn ties_sort_by_name_descending_by_code_point() {
        let bots = vec![
            entry("Bigger", "IstvanChung"),
            entry("NestDarwin", "LymiaAluysia"),
        ];
        let rows = standings(&bots, []);
        assert_eq!(rows[0].name, "NestDarwin");
        assert_eq!(rows[1].name, "Bigger");
        let bots = vec![entry("a", "-"), entry("B", "-"), entry("é", "-")];
        let names: Vec<String> = standings(&bots, []).into_iter().map(|r| r.name).collect();
        assert_eq!(names, vec!["é", "a", "B"]);
    }

    #[test]
    fn wide_columns_and_long_scores_stay_aligned() {
        let bots = vec![
            entry("NyurokiMagicalFantasy", "LymiaAluysia"),
            entry("X", "ab"),
        ];
        let results = std::iter::repeat_n((0, 1, Outcome::LeftWins), 1234);
        let out = format_scoreboard(&standings(&bots, results));
        let expected = "    |    Owner     |          Bot            Score  |
    |--------------|--------------------------------|
    | LymiaAluysia | NyurokiMagicalFantasy -  1234  |
    | ab           | X                     -  0     |
";
        assert_eq!(out, expected);
    }

    #[test]
    fn invalid_bots_score_zero_and_are_listed_after_the_table() {
        let mut bad = entry("Broken", "-");
        bad.invalid = Some("Broken/Broken.bf:3:7: unmatched ']'".into());
        let bots = vec![entry("Ok", "-"), bad];
        let rows = standings(&bots, []);
        let out = format_scoreboard(&rows);
        assert!(out.ends_with(
            "    | -     | Broken -  0    |\n\n    invalid: Broken: Broken/Broken.bf:3:7: unmatched ']'\n"
        ));
        assert!(rows[1].invalid);
        assert_eq!(rows[1].faults().get("invalid"), Some(&1));
        assert!(rows[0].faults().is_empty());
        // No pairing involves an invalid bot.
        let plan = plan_matches(&Settings::default(), &bots, 1);
        assert!(plan.is_empty());
    }

    #[test]
    fn plans_cover_every_pair_once_with_the_earlier_bot_on_the_left() {
        let bots: Vec<Entry> = ["a", "b", "c", "d"].iter().map(|n| entry(n, "-")).collect();
        let settings = Settings::from_pairs(&[("matches-per-pairing", "3")]).unwrap();
        let plan = plan_matches(&settings, &bots, 42);
        assert_eq!(plan.len(), 6 * 3);
        for m in &plan {
            assert!(m.left < m.right);
            assert!((10..=30).contains(&m.tape_len));
        }
        let pairs: Vec<(usize, usize, u32)> = plan.iter().map(|m| (m.left, m.right, m.k)).collect();
        assert_eq!(pairs[..4], [(0, 1, 0), (0, 1, 1), (0, 1, 2), (0, 2, 0)]);
        // Same seed, same plan; a different seed changes some length.
        assert_eq!(plan, plan_matches(&settings, &bots, 42));
        assert_ne!(plan, plan_matches(&settings, &bots, 43));
    }

    #[test]
    fn a_match_length_depends_on_its_identity_not_on_the_rest_of_the_field() {
        let settings = Settings::default();
        let small: Vec<Entry> = ["a", "c"].iter().map(|n| entry(n, "-")).collect();
        let big: Vec<Entry> = ["a", "b", "c"].iter().map(|n| entry(n, "-")).collect();
        let from_small: Vec<usize> = plan_matches(&settings, &small, 9)
            .iter()
            .map(|m| m.tape_len)
            .collect();
        let from_big: Vec<usize> = plan_matches(&settings, &big, 9)
            .iter()
            .filter(|m| (m.left, m.right) == (0, 2))
            .map(|m| m.tape_len)
            .collect();
        assert_eq!(from_small, from_big);
    }

    #[test]
    fn random_lengths_are_uniform_draws_with_replacement() {
        let settings = Settings::default();
        let mut seen = [0u32; 31];
        for k in 0..21_000 {
            seen[match_tape_len(&settings, 5, "x", "y", k)] += 1;
        }
        // 1000 expected per length; 5 standard deviations is about ±150.
        for (len, &n) in seen.iter().enumerate().skip(10) {
            assert!((850..=1150).contains(&n), "length {len} drawn {n} times");
        }
    }

    #[test]
    fn all_lengths_play_each_length_once() {
        let settings =
            Settings::from_pairs(&[("tape-lengths", "all"), ("matches-per-pairing", "2")]).unwrap();
        let bots: Vec<Entry> = ["a", "b"].iter().map(|n| entry(n, "-")).collect();
        let lengths: Vec<usize> = plan_matches(&settings, &bots, 0)
            .iter()
            .map(|m| m.tape_len)
            .collect();
        assert_eq!(lengths, (10..=30).collect::<Vec<_>>());
    }

    #[test]
    fn the_progress_line_uses_the_original_wording() {
        assert_eq!(
            pairing_line("MickeyV4", "Wut", 7, 2),
            "===== MickeyV4 vs. Wut finished with 7:2 ====="
        );
    }

    #[test]
    fn hill_scores_are_wins_minus_losses_and_may_be_negative() {
        let bots = vec![entry("A", "-"), entry("B", "-"), entry("C", "-")];
        let results = [
            (0, 1, Outcome::LeftWins),
            (0, 1, Outcome::LeftWins),
            (0, 1, Outcome::RightWins),
            (0, 2, Outcome::Draw),
            (1, 2, Outcome::RightWins),
        ];
        let rows = standings_under(Rules::Hill, &bots, results);
        let scores: Vec<(&str, i64)> = rows.iter().map(|r| (r.name.as_str(), r.score)).collect();
        assert_eq!(scores, vec![("C", 1), ("A", 1), ("B", -2)]);
        let out = format_scoreboard(&rows);
        assert!(out.contains("| -     | B   -  -2   |"), "{out}");
    }

    #[test]
    fn pairing_plans_hold_each_pairings_lengths() {
        let bots: Vec<Entry> = ["a", "b", "c"].iter().map(|n| entry(n, "-")).collect();
        let settings = Settings::from_pairs(&[("matches-per-pairing", "4")]).unwrap();
        let pairings = plan_pairings(&settings, &bots, 7);
        let matches = plan_matches(&settings, &bots, 7);
        assert_eq!(pairings.len(), 3);
        let flat: Vec<(usize, usize, usize)> = pairings
            .iter()
            .flat_map(|p| {
                p.lengths
                    .iter()
                    .map(move |&l| (p.left, p.right, l as usize))
            })
            .collect();
        let expected: Vec<(usize, usize, usize)> = matches
            .iter()
            .map(|m| (m.left, m.right, m.tape_len))
            .collect();
        assert_eq!(flat, expected);
    }
}
