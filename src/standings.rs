//! Leaderboards in the formats every challenge shares (`md`, `json`,
//! `csv`); the `text` format is each challenge's own.

use crate::tournament::Absent;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// One leaderboard row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub rank: usize,
    pub name: String,
    /// The challenge's headline number (points, win percentage, credits).
    pub score: Value,
    /// Fault counts by kind.
    pub faults: BTreeMap<String, u64>,
    /// The challenge's own columns, named in [`Leaderboard::columns`].
    pub extra: Vec<Value>,
}

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
                    "faults": {},
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

fn faults_text(f: &BTreeMap<String, u64>) -> String {
    f.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Leaderboard {
    /// `json`: an array in leaderboard order of objects with `rank`, `name`,
    /// `score`, `faults` and the challenge's columns.
    pub fn to_json(&self) -> String {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut o = Map::new();
                o.insert("rank".into(), json!(r.rank));
                o.insert("name".into(), json!(r.name));
                o.insert("score".into(), r.score.clone());
                o.insert("faults".into(), json!(r.faults));
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
        let mut header = vec!["rank".to_string(), "name".into(), "score".into()];
        header.extend(self.columns.iter().cloned());
        header.push("faults".into());
        out.push_str(
            &header
                .iter()
                .map(|h| csv_field(h))
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push('\n');
        for r in &self.rows {
            let mut fields = vec![r.rank.to_string(), r.name.clone(), cell(&r.score)];
            fields.extend(r.extra.iter().map(cell));
            fields.push(faults_text(&r.faults));
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

    /// `md`: a Markdown table.
    pub fn to_markdown(&self) -> String {
        let mut header = vec!["Rank".to_string(), "Bot".into(), "Score".into()];
        header.extend(self.columns.iter().cloned());
        header.push("Faults".into());
        let mut out = format!("| {} |\n", header.join(" | "));
        out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
        for r in &self.rows {
            let mut fields = vec![r.rank.to_string(), md_escape(&r.name), cell(&r.score)];
            fields.extend(r.extra.iter().map(|v| md_escape(&cell(v))));
            fields.push(faults_text(&r.faults));
            out.push_str(&format!("| {} |\n", fields.join(" | ")));
        }
        out
    }
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
            columns: vec!["wins".into()],
            rows: vec![
                Row {
                    rank: 1,
                    name: "a,b".into(),
                    score: json!(10),
                    faults: BTreeMap::from([("timeout".to_string(), 2)]),
                    extra: vec![json!(3)],
                },
                Row {
                    rank: 1,
                    name: "c|d".into(),
                    score: json!(10),
                    faults: BTreeMap::new(),
                    extra: vec![json!(1)],
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
        assert_eq!(v[1]["wins"], 1);
    }

    #[test]
    fn csv_and_markdown_quote_what_they_must() {
        assert_eq!(
            board().to_csv(),
            "rank,name,score,wins,faults\n1,\"a,b\",10,3,timeout=2\n1,c|d,10,1,\n"
        );
        assert!(board().to_markdown().contains("| 1 | c\\|d | 10 | 1 |  |"));
    }
}
