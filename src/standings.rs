//! Leaderboards in the formats every challenge shares (`md`, `json`,
//! `csv`); the `text` format is each challenge's own.

use crate::tournament::Absent;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// One leaderboard row: the columns every challenge shares, then its own.
/// A shared count a challenge does not keep is `None` (`null` in json, an
/// empty csv cell).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Row {
    pub rank: usize,
    pub name: String,
    /// The challenge's headline number (points, win percentage, credits).
    pub score: Value,
    /// Games (duels, matches) the bot played.
    pub played: Option<u64>,
    pub wins: Option<u64>,
    pub draws: Option<u64>,
    pub losses: Option<u64>,
    /// Fault counts by kind.
    pub faults: BTreeMap<String, u64>,
    /// Why the bot stopped playing before the end (disqualified, dead,
    /// invalid); `None` for a bot that played on.
    pub out: Option<String>,
    /// CPU seconds its processes used, where the challenge stores them.
    pub cpu_seconds: Option<f64>,
    /// The challenge's own columns, named in [`Leaderboard::columns`].
    pub extra: Vec<Value>,
}

/// The shared columns of `json` and `csv`, in order; the challenge's own
/// follow.
pub const SHARED_COLUMNS: [&str; 10] = [
    "rank",
    "name",
    "score",
    "played",
    "wins",
    "draws",
    "losses",
    "faults",
    "out",
    "cpu_seconds",
];

/// A leaderboard in rank order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Leaderboard {
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

/// Output formats of `referee standings`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Md,
    Json,
    Csv,
}

/// A rendered leaderboard with the bots that were to play but did not
/// (left out, or unable to start), so that none vanishes silently: under a
/// `text` or `md` table a `not playing:` line each, with why; in `json` an
/// object each after the ranked ones (`rank` and `score` null, the reason
/// under `not_playing`); in `csv` a row each with only the name.
pub fn with_absent(rendered: String, format: Format, absent: &[Absent]) -> String {
    if absent.is_empty() {
        return rendered;
    }
    match format {
        Format::Text | Format::Md => {
            let mut out = rendered;
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str("not playing:\n");
            for a in absent {
                out.push_str(&format!("  {}: {}\n", a.name, a.reason));
            }
            out
        }
        Format::Json => {
            let Ok(Value::Array(mut rows)) = serde_json::from_str::<Value>(&rendered) else {
                return rendered;
            };
            for a in absent {
                rows.push(json!({
                    "rank": null,
                    "name": a.name,
                    "score": null,
                    "played": 0,
                    "wins": null,
                    "draws": null,
                    "losses": null,
                    "faults": {},
                    "out": a.reason,
                    "cpu_seconds": null,
                    "not_playing": a.reason,
                }));
            }
            let mut s = serde_json::to_string_pretty(&rows).unwrap_or(rendered);
            s.push('\n');
            s
        }
        Format::Csv => {
            let columns = rendered.lines().next().map_or(0, |h| h.split(',').count());
            let mut out = rendered;
            for a in absent {
                let mut fields = vec![String::new(); columns.max(2)];
                fields[1] = csv_field(&a.name);
                out.push_str(&fields.join(","));
                out.push('\n');
            }
            out
        }
    }
}

/// Ranks for scores already sorted best first: equal scores share a rank
/// (1, 2, 2, 4).
pub fn competition_ranks<T: PartialEq>(sorted_scores: &[T]) -> Vec<usize> {
    let mut ranks = Vec::with_capacity(sorted_scores.len());
    for (i, s) in sorted_scores.iter().enumerate() {
        let rank = if i > 0 && sorted_scores[i - 1] == *s {
            ranks[i - 1]
        } else {
            i + 1
        };
        ranks.push(rank);
    }
    ranks
}

fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `kind=N kind=N`, the kinds that happened (forty keeps zero counts).
fn faults_text(f: &BTreeMap<String, u64>) -> String {
    f.iter()
        .filter(|(_, v)| **v > 0)
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Leaderboard {
    /// `json`: an array in leaderboard order of objects with the
    /// [`SHARED_COLUMNS`] and the challenge's columns.
    pub fn to_json(&self) -> String {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut o = Map::new();
                o.insert("rank".into(), json!(r.rank));
                o.insert("name".into(), json!(r.name));
                o.insert("score".into(), r.score.clone());
                o.insert("played".into(), json!(r.played));
                o.insert("wins".into(), json!(r.wins));
                o.insert("draws".into(), json!(r.draws));
                o.insert("losses".into(), json!(r.losses));
                o.insert("faults".into(), json!(r.faults));
                o.insert("out".into(), json!(r.out));
                o.insert("cpu_seconds".into(), json!(r.cpu_seconds.map(round3)));
                for (c, v) in self.columns.iter().zip(&r.extra) {
                    o.insert(c.clone(), v.clone());
                }
                Value::Object(o)
            })
            .collect();
        let mut s = serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".into());
        s.push('\n');
        s
    }

    /// `csv`: a header line, then one line per row (RFC 4180 quoting).
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let mut header: Vec<String> = SHARED_COLUMNS.map(String::from).to_vec();
        header.extend(self.columns.iter().cloned());
        out.push_str(
            &header
                .iter()
                .map(|h| csv_field(h))
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push('\n');
        for r in &self.rows {
            let count = |c: Option<u64>| c.map(|c| c.to_string()).unwrap_or_default();
            let mut fields = vec![
                r.rank.to_string(),
                r.name.clone(),
                cell(&r.score),
                count(r.played),
                count(r.wins),
                count(r.draws),
                count(r.losses),
                faults_text(&r.faults),
                r.out.clone().unwrap_or_default(),
                r.cpu_seconds
                    .map(|c| round3(c).to_string())
                    .unwrap_or_default(),
            ];
            fields.extend(r.extra.iter().map(cell));
            out.push_str(
                &fields
                    .iter()
                    .map(|f| csv_field(f))
                    .collect::<Vec<_>>()
                    .join(","),
            );
            out.push('\n');
        }
        out
    }

    /// The bots ranked first (several on a tie), when anything was played.
    pub fn winners(&self) -> Vec<&str> {
        if self.rows.is_empty() || self.rows.iter().all(|r| r.played == Some(0)) {
            return Vec::new();
        }
        self.rows
            .iter()
            .filter(|r| r.rank == 1 && r.out.is_none())
            .map(|r| r.name.as_str())
            .collect()
    }

    /// What the `text` and `md` tables say under them: the winner, and each
    /// bot that stopped playing with why (`out:` lines). Empty when there
    /// is neither.
    pub fn notes(&self) -> String {
        let mut out = self.winner_note();
        for r in self.rows.iter().filter(|r| r.out.is_some()) {
            out.push_str(&format!(
                "out: {}: {}\n",
                r.name,
                r.out.as_deref().unwrap_or_default()
            ));
        }
        out
    }

    /// `Winner: NAME` (or `Winners (tied): A, B`), or nothing.
    pub fn winner_note(&self) -> String {
        match self.winners().as_slice() {
            [] => String::new(),
            [one] => format!("Winner: {one}\n"),
            many => format!("Winners (tied): {}\n", many.join(", ")),
        }
    }

    /// `rendered` (a challenge's own text or md table) followed by [`Leaderboard::notes`].
    pub fn with_notes(&self, rendered: String) -> String {
        let notes = self.notes();
        if notes.is_empty() {
            return rendered;
        }
        let mut out = rendered;
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&notes);
        out
    }

    /// `md`: a Markdown table: rank, bot, score, the shared counts the
    /// challenge keeps, its own columns, faults.
    pub fn to_markdown(&self) -> String {
        type Count = fn(&Row) -> Option<u64>;
        let counts: [(&str, Count); 4] = [
            ("Played", |r| r.played),
            ("Wins", |r| r.wins),
            ("Draws", |r| r.draws),
            ("Losses", |r| r.losses),
        ];
        let kept: Vec<&(&str, Count)> = counts
            .iter()
            .filter(|(_, get)| self.rows.iter().any(|r| get(r).is_some()))
            .collect();
        let mut header = vec!["Rank".to_string(), "Bot".into(), "Score".into()];
        header.extend(kept.iter().map(|(h, _)| (*h).to_string()));
        header.extend(self.columns.iter().cloned());
        header.push("Faults".into());
        let mut out = format!("| {} |\n", header.join(" | "));
        out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
        for r in &self.rows {
            let mut fields = vec![r.rank.to_string(), md_escape(&r.name), cell(&r.score)];
            fields.extend(
                kept.iter()
                    .map(|(_, get)| get(r).map(|c| c.to_string()).unwrap_or_default()),
            );
            fields.extend(r.extra.iter().map(|v| md_escape(&cell(v))));
            fields.push(faults_text(&r.faults));
            out.push_str(&format!("| {} |\n", fields.join(" | ")));
        }
        out
    }
}

/// `x` rounded to 3 decimals (CPU seconds).
fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// `x` rounded to `decimals` places, as a challenge's own table shows it.
pub fn rounded(x: f64, decimals: i32) -> Value {
    let scale = 10f64.powi(decimals);
    json!((x * scale).round() / scale)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board() -> Leaderboard {
        Leaderboard {
            columns: vec!["rounds".into()],
            rows: vec![
                Row {
                    rank: 1,
                    name: "a,b".into(),
                    score: json!(10),
                    played: Some(4),
                    faults: BTreeMap::from([("timeout".to_string(), 2), ("crash".to_string(), 0)]),
                    cpu_seconds: Some(0.12345),
                    extra: vec![json!(3)],
                    ..Row::default()
                },
                Row {
                    rank: 1,
                    name: "c|d".into(),
                    score: json!(10),
                    played: Some(4),
                    out: Some("disqualified: 3 crashes".into()),
                    extra: vec![json!(1)],
                    ..Row::default()
                },
            ],
        }
    }

    #[test]
    fn ranks_are_shared_on_ties() {
        assert_eq!(competition_ranks(&[9, 7, 7, 3]), [1, 2, 2, 4]);
    }

    #[test]
    fn json_has_the_shared_fields() {
        let v: Value = serde_json::from_str(&board().to_json()).unwrap();
        assert_eq!(v[0]["rank"], 1);
        assert_eq!(v[0]["name"], "a,b");
        assert_eq!(v[0]["score"], 10);
        assert_eq!(v[0]["faults"]["timeout"], 2);
        assert_eq!(v[1]["rounds"], 1, "the challenge's own column");
        assert_eq!(v[0]["played"], 4);
        assert_eq!(
            v[0]["draws"],
            Value::Null,
            "a count the challenge does not keep"
        );
        assert_eq!(v[0]["cpu_seconds"], 0.123);
        assert_eq!(v[1]["out"], "disqualified: 3 crashes");
    }

    #[test]
    fn notes_name_the_winners_and_who_is_out() {
        let mut b = board();
        assert_eq!(
            b.notes(),
            "Winner: a,b\nout: c|d: disqualified: 3 crashes\n",
            "a bot that is out does not win"
        );
        b.rows[1].out = None;
        assert!(b.notes().starts_with("Winners (tied): a,b, c|d\n"));
        assert_eq!(
            b.with_notes("table".into()),
            format!("table\n{}", b.notes())
        );
        for r in &mut b.rows {
            r.played = Some(0);
        }
        assert_eq!(b.notes(), "", "nothing played, no winner");
        assert_eq!(rounded(21.812674631467385, 1), json!(21.8));
    }

    #[test]
    fn csv_and_markdown_quote_what_they_must() {
        assert_eq!(
            board().to_csv(),
            "rank,name,score,played,wins,draws,losses,faults,out,cpu_seconds,rounds\n\
             1,\"a,b\",10,4,,,,timeout=2,,0.123,3\n\
             1,c|d,10,4,,,,,disqualified: 3 crashes,,1\n"
        );
        assert!(board()
            .to_markdown()
            .contains("| 1 | c\\|d | 10 | 4 | 1 |  |"));
        assert!(board()
            .to_markdown()
            .starts_with("| Rank | Bot | Score | Played | rounds | Faults |"));
    }
}
