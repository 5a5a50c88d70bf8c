//! Section 8's output formats, checked against the spec's own example rows.

use game_forty::report::{
    bot_table, failures_table, leaderboard, percentile_score, percentile_table, preamble,
    progress_bar, progress_percent, report, standing_rows, summary, time_table, wilson_text,
    Preamble, ReportInput,
};
use game_forty::{Aggregate, BotRecord, FailureCounts, Totals};

/// A record whose averages print as given: sums are picked so that
/// sum / denominator rounds to the spec's two-decimal value.
fn record(
    wins: u64,
    played: u64,
    max: u32,
    avg: f64,
    avg_win: f64,
    throws: f64,
    success: f64,
) -> BotRecord {
    let turns = 10_000u64;
    BotRecord {
        played,
        wins,
        score_sum: (avg * played as f64).round() as u64,
        win_score_sum: (avg_win * wins as f64).round() as u64,
        max_score: max,
        turns,
        throws: (throws * turns as f64).round() as u64,
        successes: (success / 100.0 * turns as f64).round() as u64,
        ..BotRecord::default()
    }
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The spec's three example rows, plus a bot whose 23-letter name gives
/// the Bot column the example's width.
fn spec_field() -> (Vec<String>, Aggregate) {
    let names = names(&["SlowStart", "Rebel", "GoToSeventeenRollTenBot", "OptFor2X"]);
    let mut agg = Aggregate::new(4);
    agg.bots[0] = record(0, 48_973_613, 35, 5.22, 0.0, 3.16, 47.39);
    agg.bots[1] = record(10_151_261, 48_977_862, 104, 21.36, 44.25, 3.90, 35.05);
    agg.bots[2] = record(6_900_832, 48_976_440, 104, 10.26, 49.25, 5.68, 5.42);
    agg.bots[3] = record(10_583_693, 48_967_616, 99, 20.49, 44.37, 4.02, 33.09);
    (names, agg)
}

#[test]
fn bot_table_rows_match_the_spec_example() {
    let (names, agg) = spec_field();
    let input = ReportInput {
        names: &names,
        aggregate: &agg,
        wall_seconds: 1.0,
    };
    let table = bot_table(&input);
    let lines: Vec<&str> = table.lines().collect();
    let rule = "\t+-----------------------+----+--------+--------+------+------+-------+------+--------+-------------+";
    assert_eq!(lines[0], rule);
    assert_eq!(
        lines[1],
        "\t|Bot                    |Win%|    Wins|  Played|   Max|   Avg|Avg win|Throws|Success%|  Win% 95% CI|"
    );
    assert_eq!(lines[2], rule);
    assert_eq!(
        lines[3],
        "\t|OptFor2X               |21.6|10583693|48967616|    99| 20.49|  44.37|  4.02|   33.09|  21.60-21.63|"
    );
    assert_eq!(
        lines[4],
        "\t|Rebel                  |20.7|10151261|48977862|   104| 21.36|  44.25|  3.90|   35.05|  20.71-20.74|"
    );
    assert!(lines[5].starts_with("\t|GoToSeventeenRollTenBot|14.1| 6900832|48976440|"));
    assert_eq!(
        lines[6],
        "\t|SlowStart              | 0.0|       0|48973613|    35|  5.22|   0.00|  3.16|   47.39|    0.00-0.00|"
    );
    assert_eq!(lines[7], rule);
    assert_eq!(lines.len(), 8);
}

#[test]
fn wilson_interval_cells() {
    assert_eq!(wilson_text(10_583_693, 48_967_616), "21.60-21.63");
    assert_eq!(wilson_text(0, 48_973_613), "0.00-0.00");
    assert_eq!(wilson_text(0, 0), "-");
    // All wins: the upper end is clamped to 100 %.
    assert_eq!(wilson_text(5, 5), "56.55-100.00");
    // Half of a small sample: centred on 50 %.
    assert_eq!(wilson_text(5, 10), "23.66-76.34");
}

#[test]
fn zero_denominators_print_zero_and_disqualified_bots_come_last() {
    let names = names(&["Idle", "Strong", "Weak"]);
    let mut agg = Aggregate::new(3);
    agg.bots[1] = BotRecord {
        played: 10,
        wins: 9,
        turns: 10,
        throws: 10,
        disqualified: true,
        failures: FailureCounts {
            crashes: 3,
            ..FailureCounts::default()
        },
        ..BotRecord::default()
    };
    agg.bots[2] = BotRecord {
        played: 10,
        wins: 1,
        turns: 10,
        throws: 20,
        ..BotRecord::default()
    };
    let input = ReportInput {
        names: &names,
        aggregate: &agg,
        wall_seconds: 0.0,
    };
    assert_eq!(leaderboard(&input), vec![2, 0, 1]);
    let table = bot_table(&input);
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("\t|") && !l.starts_with("\t|Bot"))
        .collect();
    assert_eq!(
        rows[1],
        "\t|Idle       | 0.0|       0|       0|     0|  0.00|   0.00|  0.00|    0.00|            -|"
    );
    assert!(rows[2].starts_with("\t|Strong (DQ)|90.0|"), "{}", rows[2]);
    let failures = failures_table(&input).expect("a bot failed");
    assert!(
        failures.contains("\t|Strong     |       0|       0|        0|       3|       0|    DQ|\n")
    );
    assert!(!failures.contains("Weak"));
}

#[test]
fn summary_and_preamble_match_the_spec_example() {
    let totals = Totals {
        games: 300_000_000,
        rounds: 1_119_000_000,
        tied: 29_127_662,
        round_limit: 0,
        highest_round: 22,
        winning_scores: vec![],
    };
    assert_eq!(
        summary(&totals, 49, 35_628.7),
        "\tSimulation or 300000000 games between 49 bots completed in 35628.7 seconds\n\
         \tEach game lasted for an average of 3.73 rounds\n\
         \t29127662 games were tied between two or more bots\n\
         \t0 games ran until the round limit, highest round was 22\n"
    );
    assert_eq!(
        preamble(&Preamble {
            bots: 49,
            games: 300_000_000,
            bots_per_game: 8,
            processes: 49
        }),
        "\tStarting simulation with 49 bots\n\
         \tSimulating 300000000 games with 8 bots per game\n\
         \tRunning simulation with 49 isolated bot processes\n"
    );
    // No games: averages print 0.
    assert!(summary(&Totals::default(), 2, 0.0).contains("an average of 0.00 rounds"));
}

fn histogram(pairs: &[(usize, u64)]) -> Totals {
    let mut totals = Totals::default();
    for &(score, count) in pairs {
        for _ in 0..count {
            totals.add_game(3, false, false, score as u32);
        }
    }
    totals
}

#[test]
fn percentiles_take_the_smallest_score_covering_k_plus_one() {
    // 10000 games: 5000 won with 40, one with 44, 4999 with 50. The 50 %
    // row needs 5001 games at or below w, so it shows 44, not 40.
    let totals = histogram(&[(40, 5000), (44, 1), (50, 4999)]);
    assert_eq!(percentile_score(&totals, 4999), 40);
    assert_eq!(percentile_score(&totals, 5000), 44);
    assert_eq!(percentile_score(&totals, 5001), 50);
    // 99.99 % is the highest winning score.
    assert_eq!(percentile_score(&totals, 9999), 50);
    let table = percentile_table(&totals);
    assert_eq!(
        table,
        "\t+----------+-----+\n\
         \t|Percentile|Score|\n\
         \t+----------+-----+\n\
         \t|     50.00|   44|\n\
         \t|     75.00|   50|\n\
         \t|     90.00|   50|\n\
         \t|     95.00|   50|\n\
         \t|     99.00|   50|\n\
         \t|     99.90|   50|\n\
         \t|     99.99|   50|\n\
         \t+----------+-----+\n"
    );
    // One outlier among 10000 games shows only at 99.99 %.
    let totals = histogram(&[(44, 9999), (126, 1)]);
    assert_eq!(percentile_score(&totals, 9990), 44);
    assert_eq!(percentile_score(&totals, 9999), 126);
}

#[test]
fn time_table_shares_and_order() {
    let names = names(&["BrainBot", "Others", "TleilaxuBot"]);
    let mut agg = Aggregate::new(3);
    agg.bots[0].charged_ns = 17_860_000_000;
    agg.bots[1].charged_ns = 174_690_000_000;
    agg.bots[2].charged_ns = 86_510_000_000;
    let input = ReportInput {
        names: &names,
        aggregate: &agg,
        wall_seconds: 0.0,
    };
    let table = time_table(&input);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines[0], "\t+-----------+-------+-----+");
    assert_eq!(lines[1], "\t|Bot        |   Time|Time%|");
    assert_eq!(lines[3], "\t|Others     | 174.69| 62.6|");
    assert_eq!(lines[4], "\t|TleilaxuBot|  86.51| 31.0|");
    assert_eq!(lines[5], "\t|BrainBot   |  17.86|  6.4|");
}

#[test]
fn the_time_column_is_the_bots_own_time() {
    let names = names(&["Host", "Liar", "Native"]);
    let mut agg = Aggregate::new(3);
    // Charged 3 s in all (its batches shared out), 1 s of it its own.
    agg.bots[0].charged_ns = 3_000_000_000;
    agg.bots[0].reported_charged_ns = 3_000_000_000;
    agg.bots[0].reported_ns = 1_000_000_000;
    // Reports nothing spent: its own time shows 0, its charged time is kept.
    agg.bots[1].charged_ns = 2_000_000_000;
    agg.bots[1].reported_charged_ns = 2_000_000_000;
    // No reports: its charged time.
    agg.bots[2].charged_ns = 500_000_000;
    let input = ReportInput {
        names: &names,
        aggregate: &agg,
        wall_seconds: 0.0,
    };
    let table = time_table(&input);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines[3], "\t|Host  |   1.00| 66.7|");
    assert_eq!(lines[4], "\t|Native|   0.50| 33.3|");
    assert_eq!(lines[5], "\t|Liar  |   0.00|  0.0|");
    let rows = standing_rows(&input);
    let liar = rows.iter().find(|r| r.name == "Liar").unwrap();
    assert_eq!((liar.time, liar.charged_time), (0.0, 2.0));
}

#[test]
fn failures_table_matches_the_spec_example() {
    let names = names(&["BrainBot", "TleilaxuBot", "WhereFourArtThouChicken"]);
    let mut agg = Aggregate::new(3);
    agg.bots[1].failures.errors = 583_461;
    let input = ReportInput {
        names: &names,
        aggregate: &agg,
        wall_seconds: 0.0,
    };
    assert_eq!(
        failures_table(&input).unwrap(),
        "\t+-----------------------+--------+--------+---------+--------+--------+------+\n\
         \t|Bot                    |Timeouts|  Errors|Malformed| Crashes|    Lost|Status|\n\
         \t+-----------------------+--------+--------+---------+--------+--------+------+\n\
         \t|TleilaxuBot            |       0|  583461|        0|       0|       0|    ok|\n\
         \t+-----------------------+--------+--------+---------+--------+--------+------+\n"
    );
    agg.bots[1].failures.errors = 0;
    let input = ReportInput {
        names: &names,
        aggregate: &agg,
        wall_seconds: 0.0,
    };
    assert_eq!(failures_table(&input), None);
}

#[test]
fn the_report_is_tab_led_sections_separated_by_blank_lines() {
    let (names, mut agg) = spec_field();
    agg.totals = histogram(&[(44, 3), (48, 1)]);
    let input = ReportInput {
        names: &names,
        aggregate: &agg,
        wall_seconds: 2.0,
    };
    let p = Preamble {
        bots: 4,
        games: 4,
        bots_per_game: 4,
        processes: 4,
    };
    let text = report(&input, Some(&p));
    let sections: Vec<&str> = text.split("\n\n").collect();
    // Preamble, summary, bots, percentiles, time; no failures.
    assert_eq!(sections.len(), 5, "{text}");
    assert!(sections[0].starts_with("\tStarting simulation"));
    assert!(sections[1].starts_with("\tSimulation or 4 games"));
    assert!(sections[3].contains("|Percentile|Score|"));
    assert!(sections[4].contains("|   Time|Time%|"));
    assert!(text.ends_with("+\n"));
    for line in text.lines().filter(|l| !l.is_empty()) {
        assert!(line.starts_with('\t'), "{line:?}");
    }
    // Standings have no preamble.
    assert!(report(&input, None).starts_with("\tSimulation or"));
    // A failure adds the failures table last.
    agg.bots[0].failures.timeouts = 2;
    let input = ReportInput {
        names: &names,
        aggregate: &agg,
        wall_seconds: 2.0,
    };
    let with_failures = report(&input, None);
    let last = with_failures.split("\n\n").last().unwrap();
    assert!(last.contains("|Timeouts|"), "{with_failures}");
}

#[test]
fn progress_bar_format() {
    assert_eq!(progress_bar(0), format!("\r\t[{}]   0%", " ".repeat(50)));
    assert_eq!(
        progress_bar(37),
        format!("\r\t[{}{}]  37%", "=".repeat(18), " ".repeat(32))
    );
    assert_eq!(progress_bar(100), format!("\r\t[{}] 100%", "=".repeat(50)));
    assert_eq!(progress_percent(0, 1000), 0);
    assert_eq!(progress_percent(999, 1000), 99);
    assert_eq!(progress_percent(1000, 1000), 100);
}

#[test]
fn standing_rows_rank_ties_together() {
    let names = names(&["A", "B", "C", "D"]);
    let mut agg = Aggregate::new(4);
    agg.bots[0] = BotRecord {
        played: 10,
        wins: 5,
        ..BotRecord::default()
    };
    agg.bots[1] = BotRecord {
        played: 20,
        wins: 10,
        ..BotRecord::default()
    };
    agg.bots[2] = BotRecord {
        played: 10,
        wins: 1,
        ..BotRecord::default()
    };
    agg.bots[3] = BotRecord {
        played: 10,
        wins: 9,
        disqualified: true,
        ..BotRecord::default()
    };
    agg.bots[3].failures.crashes = 3;
    let input = ReportInput {
        names: &names,
        aggregate: &agg,
        wall_seconds: 0.0,
    };
    let rows = standing_rows(&input);
    let ranked: Vec<(usize, &str)> = rows.iter().map(|r| (r.rank, r.name.as_str())).collect();
    assert_eq!(ranked, vec![(1, "A"), (1, "B"), (3, "C"), (4, "D")]);
    assert_eq!(rows[0].score, 50.0);
    let json = serde_json::to_value(&rows).unwrap();
    assert_eq!(json[3]["faults"]["crash"], 3);
    assert_eq!(json[3]["disqualified"], true);
    assert_eq!(json[0]["name"], "A");
    assert!(json[0]["ci_low"].as_f64().unwrap() < 50.0);
}

#[test]
fn aggregates_merge_like_one_run() {
    use game_forty::{play_game, Decision, Next};
    // Two games recorded into separate blocks, merged, equal both recorded
    // into one.
    let play = |dice: Vec<u8>| {
        let mut game = play_game(0, 2, Some(dice)).unwrap();
        while let Next::Ask { .. } = game.advance(&mut ()) {
            game.answer(Decision::Throw).unwrap();
        }
        game
    };
    let a = play(vec![5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6]);
    let b = play(vec![6, 6, 6]);
    let mut one = Aggregate::new(3);
    one.record_game(&[0, 2], &a).unwrap();
    one.record_game(&[2, 1], &b).unwrap();
    let mut first = Aggregate::new(3);
    first.record_game(&[0, 2], &a).unwrap();
    let mut second = Aggregate::new(3);
    second.record_game(&[2, 1], &b).unwrap();
    first.merge(&second);
    assert_eq!(first, one);
    assert_eq!(one.totals.games, 2);
    assert_eq!(one.bots[2].played, 2);
    let json = serde_json::to_string(&one).unwrap();
    let back: Aggregate = serde_json::from_str(&json).unwrap();
    assert_eq!(back, one);
}
