//! The tournament's output (section 8) as pure formatting: preamble,
//! summary, the bot, percentile, time and failures tables, the progress bar,
//! and leaderboard rows for `referee standings --format json|csv`.
//!
//! Formats follow the original controller's `%`-formats; Rust's float
//! formatting rounds the way Python's `%.Nf` does (to nearest, ties to even
//! on the exact binary value), so the same numbers print the same.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::stats::{Aggregate, BotRecord, Totals};

/// z of the two-sided 95 % Wilson interval.
pub const WILSON_Z: f64 = 1.959964;

/// Winning-score percentiles shown: (label in percent, k in ten-thousandths).
pub const PERCENTILES: [(f64, u64); 7] = [
    (50.0, 5000),
    (75.0, 7500),
    (90.0, 9000),
    (95.0, 9500),
    (99.0, 9900),
    (99.9, 9990),
    (99.99, 9999),
];

/// Cells of the progress bar.
pub const PROGRESS_CELLS: u32 = 50;

/// The preamble's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preamble {
    /// Bots in the tournament.
    pub bots: usize,
    pub games: u64,
    /// Seats per game at the start.
    pub bots_per_game: usize,
    /// Bot processes started.
    pub processes: usize,
}

/// Everything the report is made of. `names[i]` is bot `i` of
/// `aggregate.bots` (a missing record counts as empty).
#[derive(Debug, Clone, Copy)]
pub struct ReportInput<'a> {
    pub names: &'a [String],
    pub aggregate: &'a Aggregate,
    /// Wall seconds summed over resumed runs.
    pub wall_seconds: f64,
}

/// `n / d`, or 0 when `d` is 0 (section 8: a zero denominator prints 0).
fn ratio(n: f64, d: f64) -> f64 {
    if d == 0.0 {
        0.0
    } else {
        n / d
    }
}

/// The Wilson interval of `wins` out of `played`, clamped to [0, 1];
/// `None` when nothing was played.
pub fn wilson_interval(wins: u64, played: u64) -> Option<(f64, f64)> {
    if played == 0 {
        return None;
    }
    let n = played as f64;
    let p = wins as f64 / n;
    let z2 = WILSON_Z * WILSON_Z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = WILSON_Z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some((
        (centre - half).clamp(0.0, 1.0),
        (centre + half).clamp(0.0, 1.0),
    ))
}

/// The CI cell's text: `lo-hi` in percent with 2 decimals, or `-`.
pub fn wilson_text(wins: u64, played: u64) -> String {
    match wilson_interval(wins, played) {
        Some((lo, hi)) => format!("{:.2}-{:.2}", lo * 100.0, hi * 100.0),
        None => "-".to_string(),
    }
}

/// Compares win rates exactly (no float rounding), higher first; a bot
/// that played nothing has rate 0.
fn by_win_rate(a: &BotRecord, b: &BotRecord) -> Ordering {
    let lhs = u128::from(b.wins) * u128::from(a.played.max(1));
    let rhs = u128::from(a.wins) * u128::from(b.played.max(1));
    // Played 0 means wins 0, so max(1) only avoids a 0/0 comparing equal to
    // everything.
    lhs.cmp(&rhs)
}

struct Rows<'a> {
    names: &'a [String],
    records: Vec<BotRecord>,
}

impl<'a> Rows<'a> {
    fn new(input: &ReportInput<'a>) -> Self {
        let records = (0..input.names.len())
            .map(|i| input.aggregate.bots.get(i).cloned().unwrap_or_default())
            .collect();
        Rows {
            names: input.names,
            records,
        }
    }

    fn display_name(&self, i: usize) -> String {
        if self.records[i].disqualified {
            format!("{} (DQ)", self.names[i])
        } else {
            self.names[i].clone()
        }
    }

    /// The Bot column's width: the longest shown name, at least "Bot".
    fn width(&self) -> usize {
        (0..self.names.len())
            .map(|i| self.display_name(i).chars().count())
            .max()
            .unwrap_or(0)
            .max(3)
    }

    /// Leaderboard order: qualified bots by win rate, then disqualified
    /// ones the same way; ties by name.
    fn leaderboard(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| {
            let (ra, rb) = (&self.records[a], &self.records[b]);
            ra.disqualified
                .cmp(&rb.disqualified)
                .then_with(|| by_win_rate(ra, rb))
                .then_with(|| self.names[a].cmp(&self.names[b]))
        });
        order
    }
}

/// Bot indices in leaderboard order.
pub fn leaderboard(input: &ReportInput<'_>) -> Vec<usize> {
    Rows::new(input).leaderboard()
}

/// The three preamble lines.
pub fn preamble(p: &Preamble) -> String {
    format!(
        "\tStarting simulation with {} bots\n\
         \tSimulating {} games with {} bots per game\n\
         \tRunning simulation with {} isolated bot processes\n",
        p.bots, p.games, p.bots_per_game, p.processes
    )
}

/// The four summary lines ("or" is the original's typo, kept).
pub fn summary(totals: &Totals, bots: usize, wall_seconds: f64) -> String {
    format!(
        "\tSimulation or {} games between {} bots completed in {:.1} seconds\n\
         \tEach game lasted for an average of {:.2} rounds\n\
         \t{} games were tied between two or more bots\n\
         \t{} games ran until the round limit, highest round was {}\n",
        totals.games,
        bots,
        wall_seconds,
        ratio(totals.rounds as f64, totals.games as f64),
        totals.tied,
        totals.round_limit,
        totals.highest_round
    )
}

/// The bot table, with the Win% 95% CI column.
pub fn bot_table(input: &ReportInput<'_>) -> String {
    let rows = Rows::new(input);
    let w = rows.width();
    let rule = format!(
        "\t+{}+----+--------+--------+------+------+-------+------+--------+-------------+\n",
        "-".repeat(w)
    );
    let mut out = rule.clone();
    let _ = writeln!(
        out,
        "\t|{:<w$}|Win%|    Wins|  Played|   Max|   Avg|Avg win|Throws|Success%|  Win% 95% CI|",
        "Bot"
    );
    out.push_str(&rule);
    for i in rows.leaderboard() {
        let r = &rows.records[i];
        let (played, wins, turns) = (r.played as f64, r.wins as f64, r.turns as f64);
        let _ = writeln!(
            out,
            "\t|{:<w$}|{:4.1}|{:8}|{:8}|{:6}|{:6.2}|{:7.2}|{:6.2}|{:8.2}|{:>13}|",
            rows.display_name(i),
            100.0 * ratio(wins, played),
            r.wins,
            r.played,
            r.max_score,
            ratio(r.score_sum as f64, played),
            r.win_score_sum as f64 / wins.max(1.0),
            ratio(r.throws as f64, turns),
            100.0 * ratio(r.successes as f64, turns),
            wilson_text(r.wins, r.played),
        );
    }
    out.push_str(&rule);
    out
}

/// The winning score of percentile `k` (in ten-thousandths): the smallest
/// `w` with (games whose winning score is ≤ w)·10000 ≥ games·(k+1).
pub fn percentile_score(totals: &Totals, k: u64) -> u32 {
    let need = u128::from(totals.games) * u128::from(k + 1);
    let mut seen: u128 = 0;
    for (score, &count) in totals.winning_scores.iter().enumerate() {
        seen += u128::from(count);
        if seen * 10_000 >= need {
            return u32::try_from(score).unwrap_or(u32::MAX);
        }
    }
    // Only reached when the histogram holds fewer games than `games` says.
    u32::try_from(totals.winning_scores.len().saturating_sub(1)).unwrap_or(u32::MAX)
}

/// The winning-score percentile table.
pub fn percentile_table(totals: &Totals) -> String {
    let rule = "\t+----------+-----+\n";
    let mut out = String::from(rule);
    out.push_str("\t|Percentile|Score|\n");
    out.push_str(rule);
    for (label, k) in PERCENTILES {
        let _ = writeln!(out, "\t|{:10.2}|{:5}|", label, percentile_score(totals, k));
    }
    out.push_str(rule);
    out
}

/// The time table: each bot's own decision time, most first (what it
/// reported, charged time where it reported nothing: see
/// [`BotRecord::own_ns`](crate::BotRecord::own_ns)).
pub fn time_table(input: &ReportInput<'_>) -> String {
    let rows = Rows::new(input);
    let w = rows.width();
    let total: u128 = rows.records.iter().map(|r| u128::from(r.own_ns())).sum();
    let mut order: Vec<usize> = (0..rows.names.len()).collect();
    order.sort_by(|&a, &b| {
        rows.records[b]
            .own_ns()
            .cmp(&rows.records[a].own_ns())
            .then_with(|| rows.names[a].cmp(&rows.names[b]))
    });
    let rule = format!("\t+{}+-------+-----+\n", "-".repeat(w));
    let mut out = rule.clone();
    let _ = writeln!(out, "\t|{:<w$}|   Time|Time%|", "Bot");
    out.push_str(&rule);
    for i in order {
        let ns = rows.records[i].own_ns();
        let _ = writeln!(
            out,
            "\t|{:<w$}|{:7.2}|{:5.1}|",
            rows.names[i],
            ns as f64 / 1e9,
            100.0 * ratio(ns as f64, total as f64),
        );
    }
    out.push_str(&rule);
    out
}

/// The failures table, listing bots with any failure by name; `None` when
/// no bot failed.
pub fn failures_table(input: &ReportInput<'_>) -> Option<String> {
    let rows = Rows::new(input);
    let w = rows.width();
    let mut failed: Vec<usize> = (0..rows.names.len())
        .filter(|&i| rows.records[i].failures.total() > 0)
        .collect();
    if failed.is_empty() {
        return None;
    }
    failed.sort_by(|&a, &b| rows.names[a].cmp(&rows.names[b]));
    let rule = format!(
        "\t+{}+--------+--------+---------+--------+--------+------+\n",
        "-".repeat(w)
    );
    let mut out = rule.clone();
    let _ = writeln!(
        out,
        "\t|{:<w$}|Timeouts|  Errors|Malformed| Crashes|    Lost|Status|",
        "Bot"
    );
    out.push_str(&rule);
    for i in failed {
        let r = &rows.records[i];
        let f = &r.failures;
        let _ = writeln!(
            out,
            "\t|{:<w$}|{:8}|{:8}|{:9}|{:8}|{:8}|{:>6}|",
            rows.names[i],
            f.timeouts,
            f.errors,
            f.malformed,
            f.crashes,
            f.lost,
            if r.disqualified { "DQ" } else { "ok" },
        );
    }
    out.push_str(&rule);
    Some(out)
}

/// The whole stdout report: the preamble when given (a tournament run;
/// `referee standings` has none), the summary, and the tables, separated by
/// blank lines.
pub fn report(input: &ReportInput<'_>, preamble_numbers: Option<&Preamble>) -> String {
    let mut sections = Vec::new();
    if let Some(p) = preamble_numbers {
        sections.push(preamble(p));
    }
    sections.push(summary(
        &input.aggregate.totals,
        input.names.len(),
        input.wall_seconds,
    ));
    sections.push(bot_table(input));
    sections.push(percentile_table(&input.aggregate.totals));
    sections.push(time_table(input));
    if let Some(failures) = failures_table(input) {
        sections.push(failures);
    }
    sections.join("\n")
}

/// The whole percent reached, for deciding when to redraw the bar.
pub fn progress_percent(done: u64, total: u64) -> u32 {
    if total == 0 {
        return 100;
    }
    let pct = u128::from(done.min(total)) * 100 / u128::from(total);
    // pct is at most 100.
    pct as u32
}

/// The progress bar for stderr, redrawn in place: `\r`, a tab, 50 cells and
/// the percent.
pub fn progress_bar(percent: u32) -> String {
    let percent = percent.min(100);
    let filled = (percent * PROGRESS_CELLS / 100) as usize;
    format!(
        "\r\t[{}{}] {:3}%",
        "=".repeat(filled),
        " ".repeat(PROGRESS_CELLS as usize - filled),
        percent
    )
}

/// One leaderboard row for `referee standings --format json|csv`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StandingRow {
    pub rank: usize,
    pub name: String,
    /// Win%, the headline number.
    pub score: f64,
    pub wins: u64,
    pub played: u64,
    /// Turns the bot decided (its time per turn is `time / turns`).
    pub turns: u64,
    pub max: u32,
    pub avg: f64,
    pub avg_win: f64,
    pub throws: f64,
    pub success: f64,
    /// The Wilson interval in percent; absent when nothing was played.
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// The bot's own decision time in seconds (the Time column).
    pub time: f64,
    /// Decision time charged against its limits, in seconds.
    pub charged_time: f64,
    pub cpu_time: f64,
    pub faults: BTreeMap<&'static str, u64>,
    pub disqualified: bool,
}

/// The leaderboard as rows. Bots with equal win rates and status share a
/// rank (1, 2, 2, 4, ...).
pub fn standing_rows(input: &ReportInput<'_>) -> Vec<StandingRow> {
    let rows = Rows::new(input);
    let order = rows.leaderboard();
    let mut out: Vec<StandingRow> = Vec::with_capacity(order.len());
    for (position, &i) in order.iter().enumerate() {
        let r = &rows.records[i];
        let rank = match position.checked_sub(1).map(|p| &rows.records[order[p]]) {
            Some(prev)
                if prev.disqualified == r.disqualified
                    && by_win_rate(prev, r) == Ordering::Equal =>
            {
                out[position - 1].rank
            }
            _ => position + 1,
        };
        let (played, wins, turns) = (r.played as f64, r.wins as f64, r.turns as f64);
        let ci = wilson_interval(r.wins, r.played);
        out.push(StandingRow {
            rank,
            name: rows.names[i].clone(),
            score: 100.0 * ratio(wins, played),
            wins: r.wins,
            played: r.played,
            turns: r.turns,
            max: r.max_score,
            avg: ratio(r.score_sum as f64, played),
            avg_win: r.win_score_sum as f64 / wins.max(1.0),
            throws: ratio(r.throws as f64, turns),
            success: 100.0 * ratio(r.successes as f64, turns),
            ci_low: ci.map(|(lo, _)| lo * 100.0),
            ci_high: ci.map(|(_, hi)| hi * 100.0),
            time: r.own_ns() as f64 / 1e9,
            charged_time: r.charged_ns as f64 / 1e9,
            cpu_time: r.cpu_ns as f64 / 1e9,
            faults: r.failures.named().into_iter().collect(),
            disqualified: r.disqualified,
        });
    }
    out
}
