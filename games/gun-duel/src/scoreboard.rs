//! The per-round board and the original final table (section 6), as pure
//! formatting of [`BotRecord`]s in instructions order.

use std::cmp::Reverse;

use serde::{Deserialize, Serialize};

use crate::tournament::Tournament;

/// Everything the boards show of one bot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotRecord {
    pub name: String,
    /// From bot.toml, `-` if absent.
    pub language: String,
    pub alive: bool,
    /// Points of the last round played; 0 for bots that left before it.
    pub round_points: u64,
    pub total: u64,
    pub rounds_survived: u32,
    /// Round points per round played, the leaving round included.
    pub history: Vec<u64>,
}

impl Tournament {
    /// The records of every bot, in instructions order. `names` and
    /// `languages` are indexed like the bots.
    pub fn records(&self, names: &[&str], languages: &[&str]) -> Vec<BotRecord> {
        self.standings()
            .iter()
            .enumerate()
            .map(|(i, s)| BotRecord {
                name: names.get(i).copied().unwrap_or("?").to_string(),
                language: languages.get(i).copied().unwrap_or("-").to_string(),
                alive: s.alive,
                round_points: s.round_points,
                total: s.total,
                rounds_survived: s.rounds_survived,
                history: s.history.clone(),
            })
            .collect()
    }
}

/// The board printed after each round:
///
/// ```text
///  :: ScoreBoard
///      0 ALIVE     58/   178 2 Alpha
/// ```
pub fn round_board(records: &[BotRecord]) -> String {
    let mut out = String::from(" :: ScoreBoard\n");
    for (i, r) in records.iter().enumerate() {
        out.push_str(&format!(
            "    {i:>2} {} {:>6}/{:>6} {} {}\n",
            if r.alive { "ALIVE" } else { "-----" },
            r.round_points,
            r.total,
            r.rounds_survived,
            r.name
        ));
    }
    out
}

/// Leaderboard order: rounds survived, then total, both descending, then
/// instructions order. Returns `(rank, index)` pairs; bots equal on both
/// keys share a rank, and the next rank skips as many places.
pub fn ranking(records: &[BotRecord]) -> Vec<(usize, usize)> {
    let key = |r: &BotRecord| (Reverse(r.rounds_survived), Reverse(r.total));
    let mut order: Vec<usize> = (0..records.len()).collect();
    // A stable sort keeps instructions order among equals.
    order.sort_by_key(|&i| key(&records[i]));
    let mut ranked = Vec::with_capacity(order.len());
    for (place, &i) in order.iter().enumerate() {
        let rank = match ranked.last() {
            Some(&(rank, prev)) if key(&records[prev]) == key(&records[i]) => rank,
            _ => place + 1,
        };
        ranked.push((rank, i));
    }
    ranked
}

/// Rounds shown by the final table: the highest rounds survived.
pub fn round_columns(records: &[BotRecord]) -> u32 {
    records.iter().map(|r| r.rounds_survived).max().unwrap_or(0)
}

/// The original final scoreboard, sorted as [`ranking`]. Widths are
/// minimums and rows are ragged: each row has one cell per round played.
pub fn final_table(records: &[BotRecord]) -> String {
    let rounds = round_columns(records);
    let mut out = format!("| Player{}| Language   | Points |", " ".repeat(35));
    for r in 1..=rounds {
        out.push_str(&format!("{r:>6} |"));
    }
    out.push('\n');
    out.push_str("|:---------------------------------------- |:---------- | ------:|");
    for _ in 0..rounds {
        out.push_str(" -----:|");
    }
    out.push('\n');
    for (_, i) in ranking(records) {
        let r = &records[i];
        out.push_str(&format!(
            "| {:<40} | {:<10} | {:>6}",
            r.name, r.language, r.total
        ));
        for points in &r.history {
            out.push_str(&format!(" | {points:>5}"));
        }
        out.push_str(" |\n");
    }
    out
}

/// `rank,name,language,points,rounds_survived,round_1,...`, one row per bot
/// in leaderboard order, round cells empty after the bot left.
pub fn standings_csv(records: &[BotRecord]) -> String {
    let rounds = records.iter().map(|r| r.history.len()).max().unwrap_or(0);
    let mut out = String::from("rank,name,language,points,rounds_survived");
    for r in 1..=rounds {
        out.push_str(&format!(",round_{r}"));
    }
    out.push('\n');
    for (rank, i) in ranking(records) {
        let r = &records[i];
        out.push_str(&format!(
            "{rank},{},{},{},{}",
            csv_field(&r.name),
            csv_field(&r.language),
            r.total,
            r.rounds_survived
        ));
        for k in 0..rounds {
            out.push(',');
            if let Some(points) = r.history.get(k) {
                out.push_str(&points.to_string());
            }
        }
        out.push('\n');
    }
    out
}

/// Quotes a CSV field when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(
        name: &str,
        language: &str,
        alive: bool,
        history: &[u64],
        survived: u32,
    ) -> BotRecord {
        BotRecord {
            name: name.to_string(),
            language: language.to_string(),
            alive,
            round_points: 0,
            total: history.iter().sum(),
            rounds_survived: survived,
            history: history.to_vec(),
        }
    }

    /// The three bots of the spec's examples, after their round 2.
    fn example() -> Vec<BotRecord> {
        let mut alpha = record("Alpha", "Python", true, &[120, 58], 2);
        alpha.round_points = 58;
        let mut beta = record("Beta", "C++", false, &[95, 42], 1);
        beta.round_points = 42;
        let gamma = record("Gamma", "-", false, &[60], 0);
        vec![alpha, beta, gamma]
    }

    #[test]
    fn round_board_matches_the_spec_example() {
        let expected = " :: ScoreBoard\n     0 ALIVE     58/   178 2 Alpha\n     1 -----     42/   137 1 Beta\n     2 -----      0/    60 0 Gamma\n";
        assert_eq!(round_board(&example()), expected);
    }

    #[test]
    fn final_table_matches_the_spec_example() {
        let expected = "\
| Player                                   | Language   | Points |     1 |     2 |
|:---------------------------------------- |:---------- | ------:| -----:| -----:|
| Alpha                                    | Python     |    178 |   120 |    58 |
| Beta                                     | C++        |    137 |    95 |    42 |
| Gamma                                    | -          |     60 |    60 |
";
        // Listed in another order, the table still sorts by rounds survived.
        let mut shuffled = example();
        shuffled.rotate_left(1);
        assert_eq!(final_table(&shuffled), expected);
        assert_eq!(final_table(&example()), expected);
    }

    #[test]
    fn widths_are_minimums() {
        let long = record(&"N".repeat(45), "LongLanguage", true, &[123_456], 1);
        let table = final_table(&[long]);
        let row = table.lines().nth(2).expect("one row");
        assert_eq!(
            row,
            format!("| {} | LongLanguage | 123456 | 123456 |", "N".repeat(45))
        );
    }

    #[test]
    fn equal_bots_share_a_rank_and_keep_instructions_order() {
        let bots = vec![
            record("a", "-", false, &[5], 0),
            record("b", "-", true, &[7, 3], 2),
            record("c", "-", true, &[5, 5], 2),
            record("d", "-", false, &[5], 0),
        ];
        assert_eq!(ranking(&bots), vec![(1, 1), (1, 2), (3, 0), (3, 3)]);
    }

    #[test]
    fn csv_has_empty_cells_after_leaving() {
        let csv = standings_csv(&example());
        assert_eq!(
            csv,
            "rank,name,language,points,rounds_survived,round_1,round_2\n\
             1,Alpha,Python,178,2,120,58\n\
             2,Beta,C++,137,1,95,42\n\
             3,Gamma,-,60,0,60,\n"
        );
        assert_eq!(csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
    }
}
