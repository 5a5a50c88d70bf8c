//! The report's HTML: game-agnostic assembly of a [`Content`], with its
//! stylesheet and the small script that steps replays (and, live, follows
//! the tournament). Nothing is loaded from anywhere: no URL in the page.

use super::{Content, Replay};
use serde_json::Value;
use std::fmt::Write;

/// `s` safe inside HTML text and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#24324a;color:#fff;padding:18px 28px}
header h1{margin:0 0 4px;font-size:1.6em}
header .sub{opacity:.85}
main{max-width:1100px;margin:0 auto;padding:8px 24px 40px}
section{background:#fff;border:1px solid #dde1e8;border-radius:8px;margin:18px 0;padding:14px 20px}
h2{font-size:1.2em;margin:4px 0 12px}
table.facts td{padding:2px 14px 2px 0;vertical-align:top}
table.facts td:first-child{color:#5a6475}
table.grid{border-collapse:collapse;font-size:.92em}
table.grid th,table.grid td{border:1px solid #dde1e8;padding:4px 8px;text-align:left}
table.grid td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.out td{color:#8a2b2b}
pre{background:#f0f2f5;padding:10px;overflow:auto;max-height:40em;font-size:.86em;line-height:1.25}
.winner{font-size:1.15em;margin:6px 0 12px}
.note{color:#5a6475;font-size:.9em}
.progress{height:10px;background:#e3e7ee;border-radius:5px;overflow:hidden;margin:6px 0}
.progress div{height:100%;background:#3c8d5a}
.chart svg{max-width:100%;height:auto}
.matrix{overflow-x:auto}
table.heat{border-collapse:collapse;font-size:.8em}
table.heat th,table.heat td{border:1px solid #fff;padding:3px 5px;text-align:center;min-width:2.2em}
table.heat th.name{text-align:right;white-space:nowrap}
table.heat td.none{background:#eceff3}
details.replay{border-top:1px solid #e3e7ee;padding:6px 0}
details.replay summary{cursor:pointer}
.stepper button{margin-right:6px}
.frame{display:none}
.frame.shown{display:block}
table.ttt{border-collapse:collapse;margin:6px 0}
table.ttt td{width:24px;height:24px;text-align:center;font-weight:bold;border:1px solid #c9ced8;font-family:monospace}
table.ttt td.bl{border-left:3px solid #24324a}
table.ttt td.bt{border-top:3px solid #24324a}
table.ttt td.X{color:#c0392b}
table.ttt td.O{color:#2463b0}
table.ttt td.last{background:#ffe58a}
table.ttt td.wonX{background:#f6d5d1}
table.ttt td.wonO{background:#d3e2f6}
.tape{font-family:monospace;font-size:.8em;white-space:pre}
"#;

/// Steps the frames of every replay (`#replayN@K` in the address opens
/// replay N at position K); draws grid boards.
const SCRIPT: &str = r#"
function grid(e){if(!e.dataset.cells||e.querySelector('table'))return;
var n=+e.dataset.side,b=+e.dataset.block,c=e.dataset.cells,w=e.dataset.blocks,l=+e.dataset.last;
var t=document.createElement('table');t.className='ttt';
for(var r=0;r<n;r++){var tr=t.insertRow();for(var q=0;q<n;q++){var td=tr.insertCell();var i=r*n+q;
var m=c.charAt(i);var k=[];if(q%b==0&&q>0)k.push('bl');if(r%b==0&&r>0)k.push('bt');
if(m!='.'){k.push(m);td.textContent=m;}
var o=w.charAt(Math.floor(r/b)*(n/b)+Math.floor(q/b));
if(i===l)k.push('last');else if(o!='.'&&o!='')k.push('won'+o);td.className=k.join(' ');}}
e.appendChild(t);}
function step(id,d){var r=document.getElementById(id);var f=r.querySelectorAll('.frame');
var i=+r.dataset.at+d;if(i<0)i=0;if(i>=f.length)i=f.length-1;r.dataset.at=i;
f.forEach(function(e,k){e.classList.toggle('shown',k===i);if(k===i)grid(e)});
r.querySelector('.at').textContent=(i+1)+' / '+f.length;r.querySelector('input').value=i;}
function jump(id,v){var r=document.getElementById(id);step(id,+v-(+r.dataset.at));}
function grids(){document.querySelectorAll('.frame.shown').forEach(grid);
var h=/^#(replay\d+)(?:@(\d+))?$/.exec(location.hash);if(!h)return;
var d=document.getElementById('d'+h[1]);if(!d)return;d.open=true;
if(h[2]!==undefined&&document.getElementById(h[1]))jump(h[1],+h[2]);d.scrollIntoView();}
document.addEventListener('DOMContentLoaded',grids);
"#;

/// Live: polls `state` and swaps the page's content in when a game
/// committed, keeping open replays open.
const LIVE: &str = r#"
var version=document.body.dataset.version;
function poll(){fetch('state',{cache:'no-store'}).then(function(r){return r.json()}).then(function(s){
 if(s.version!==version){return fetch('content',{cache:'no-store'}).then(function(r){return r.text()}).then(function(t){
  var open={};document.querySelectorAll('details[id]').forEach(function(d){open[d.id]=d.open});
  document.getElementById('report').innerHTML=t;version=s.version;
  document.querySelectorAll('details[id]').forEach(function(d){if(open[d.id])d.open=true});
  document.querySelectorAll('.frame.shown').forEach(grid);});}
}).catch(function(){}).then(function(){setTimeout(poll,2000)});}
setTimeout(poll,2000);
"#;

/// The whole page; `live` adds the polling script.
pub fn page(c: &Content, live: bool) -> String {
    let title = format!("{} tournament", c.spec.challenge);
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; connect-src 'self'\">\
         <title>{}</title><style>{STYLE}</style><script>{SCRIPT}</script></head>\
         <body data-version=\"{}\"><div id=\"report\">",
        escape(&title),
        escape(&version(c))
    );
    out.push_str(&body(c, live));
    out.push_str("</div>");
    if live {
        let _ = write!(out, "<script>{LIVE}</script>");
    }
    out.push_str("</body></html>\n");
    out
}

/// What changes when a game commits: the live page reloads its content
/// when this does.
pub fn version(c: &Content) -> String {
    format!("{}-{}-{}", c.row.id, c.data.stored, c.times.games)
}

/// The page's content (what the live page swaps in).
pub fn body(c: &Content, live: bool) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<header><h1>{} tournament</h1><div class=\"sub\">{} bots · seed {} · referee {}{}</div></header><main>",
        escape(&c.spec.challenge),
        c.spec.bots.len(),
        c.spec.seed,
        env!("CARGO_PKG_VERSION"),
        if live { " · live" } else { "" }
    );
    out.push_str(&overview(c, live));
    out.push_str(&standings(c));
    out.push_str(&faults(c));
    for s in &c.data.sections {
        let _ = write!(
            out,
            "<section><h2>{}</h2>{}</section>",
            escape(&s.title),
            s.html
        );
    }
    out.push_str(&replays(&c.data.replays, c.data.replay_note.as_deref()));
    out.push_str("</main>");
    out
}

fn overview(c: &Content, live: bool) -> String {
    let mut out = String::from("<section><h2>Tournament</h2>");
    let winners: Vec<&str> = c
        .rows
        .iter()
        .filter(|r| r["rank"] == 1 && r["out"].is_null())
        .filter_map(|r| r["name"].as_str())
        .collect();
    let anything = c.data.stored > 0 || c.times.games > 0;
    if anything && !winners.is_empty() {
        let _ = write!(
            out,
            "<p class=\"winner\">{} <b>{}</b></p>",
            if winners.len() == 1 {
                "Winner:"
            } else {
                "Tied first:"
            },
            escape(&winners.join(", "))
        );
    }
    out.push_str("<table class=\"facts\">");
    let mut fact = |k: &str, v: String| {
        let _ = write!(out, "<tr><td>{}</td><td>{}</td></tr>", escape(k), v);
    };
    fact("challenge", escape(&c.spec.challenge));
    fact("seed", c.spec.seed.to_string());
    fact("tournament id", c.row.id.to_string());
    fact("first recorded", escape(&c.times.created_at));
    if let (Some(first), Some(last)) = (&c.times.first_game, &c.times.last_game) {
        fact(
            "games played",
            format!("{} to {}", escape(first), escape(last)),
        );
    }
    fact("play time", escape(&duration(c.row.play_seconds)));
    fact("referee version", env!("CARGO_PKG_VERSION").to_string());
    let settings: Vec<String> = c
        .spec
        .settings
        .iter()
        .map(|(k, v)| format!("<code>{}: {}</code>", escape(k), escape(v)))
        .collect();
    fact(
        "settings",
        if settings.is_empty() {
            "defaults".into()
        } else {
            settings.join(" ")
        },
    );
    let unit = if c.data.unit.is_empty() {
        "games"
    } else {
        c.data.unit
    };
    let progress = match c.data.planned {
        Some(total) if total > 0 => {
            let done = c.data.stored.min(total);
            let pct = 100.0 * done as f64 / total as f64;
            let eta = if done > 0 && done < total && c.row.play_seconds > 0.0 {
                let left = c.row.play_seconds / done as f64 * (total - done) as f64;
                format!(", about {} left", duration(left))
            } else {
                String::new()
            };
            format!(
                "{done} of {total} {unit} ({pct:.0} %){eta}<div class=\"progress\"><div style=\"width:{pct:.1}%\"></div></div>"
            )
        }
        _ => format!("{} {unit} stored", c.data.stored),
    };
    fact("progress", progress);
    out.push_str("</table>");
    if live {
        out.push_str("<p class=\"note\">This page follows the tournament: it updates as games are recorded.</p>");
    }
    out.push_str("</section>");
    out
}

/// `3 h 02 min`, `4 min 05 s`, `12.3 s`.
fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0);
    if s < 60.0 {
        format!("{s:.1} s")
    } else if s < 3600.0 {
        format!("{} min {:02} s", (s / 60.0) as u64, (s % 60.0) as u64)
    } else {
        format!(
            "{} h {:02} min",
            (s / 3600.0) as u64,
            ((s % 3600.0) / 60.0) as u64
        )
    }
}

fn standings(c: &Content) -> String {
    format!(
        "<section><h2>Standings</h2><p class=\"note\">As the referee prints them (the challenge's own format).</p><pre>{}</pre></section>",
        escape(&c.standings_text)
    )
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => escape(s),
        Value::Number(n) => n.to_string(),
        other => escape(&other.to_string()),
    }
}

/// Every bot's row: rank, score, counts, faults by kind, and why it is out.
fn faults(c: &Content) -> String {
    // Only the kinds some bot made, and the counts the challenge keeps.
    let mut kinds: Vec<String> = c
        .rows
        .iter()
        .filter_map(|r| r["faults"].as_object())
        .flat_map(|f| f.iter().filter(|(_, n)| n.as_u64() != Some(0)))
        .map(|(k, _)| k.clone())
        .collect();
    kinds.sort();
    kinds.dedup();
    let counts: Vec<(&str, &str)> = [
        ("played", "Played"),
        ("wins", "W"),
        ("draws", "D"),
        ("losses", "L"),
    ]
    .into_iter()
    .filter(|(key, _)| c.rows.iter().any(|r| !r[*key].is_null()))
    .collect();
    let mut out = String::from(
        "<section><h2>Bots and faults</h2><table class=\"grid\"><tr><th>Rank</th><th>Bot</th><th>Score</th>",
    );
    for (_, head) in &counts {
        let _ = write!(out, "<th>{head}</th>");
    }
    for k in &kinds {
        let _ = write!(out, "<th>{}</th>", escape(k));
    }
    let cpu = c.rows.iter().any(|r| !r["cpu_seconds"].is_null());
    if cpu {
        out.push_str("<th>CPU s</th>");
    }
    out.push_str("<th>Out / not playing</th></tr>");
    for r in &c.rows {
        let out_reason = &r["out"];
        let _ = write!(
            out,
            "<tr{}><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>",
            if out_reason.is_null() {
                ""
            } else {
                " class=\"out\""
            },
            cell(&r["rank"]),
            cell(&r["name"]),
            cell(&r["score"]),
        );
        for (key, _) in &counts {
            let _ = write!(out, "<td class=\"num\">{}</td>", cell(&r[*key]));
        }
        for k in &kinds {
            let n = r["faults"][k.as_str()].as_u64().unwrap_or(0);
            let _ = write!(
                out,
                "<td class=\"num\">{}</td>",
                if n == 0 { String::new() } else { n.to_string() }
            );
        }
        if cpu {
            let _ = write!(out, "<td class=\"num\">{}</td>", cell(&r["cpu_seconds"]));
        }
        let _ = write!(out, "<td>{}</td></tr>", cell(out_reason));
    }
    out.push_str("</table>");
    if kinds.is_empty() {
        out.push_str("<p class=\"note\">No bot made a fault.</p>");
    }
    out.push_str("</section>");
    out
}

fn replays(replays: &[Replay], note: Option<&str>) -> String {
    let mut out = String::from("<section><h2>Replays</h2>");
    if replays.is_empty() {
        out.push_str("<p class=\"note\">No stored game to show yet.</p>");
    }
    for (i, r) in replays.iter().enumerate() {
        let id = format!("replay{i}");
        let _ = write!(
            out,
            "<details class=\"replay\" id=\"d{id}\"><summary>{}</summary>{}",
            escape(&r.title),
            r.html
        );
        if !r.frames.is_empty() {
            let last = r.frames.len() - 1;
            let _ = write!(
                out,
                "<div class=\"stepper\" id=\"{id}\" data-at=\"{last}\">\
                 <button type=\"button\" onclick=\"step('{id}',-1e9)\">« first</button>\
                 <button type=\"button\" onclick=\"step('{id}',-1)\">◀ back</button>\
                 <button type=\"button\" onclick=\"step('{id}',1)\">next ▶</button>\
                 <button type=\"button\" onclick=\"step('{id}',1e9)\">last »</button>\
                 <input type=\"range\" min=\"0\" max=\"{last}\" value=\"{last}\" oninput=\"jump('{id}',this.value)\"> \
                 <span class=\"at\">{} / {}</span>",
                r.frames.len(),
                r.frames.len()
            );
            for (k, f) in r.frames.iter().enumerate() {
                let grid = f.grid.as_ref().map_or(String::new(), |g| {
                    format!(
                        " data-side=\"{}\" data-block=\"{}\" data-cells=\"{}\" data-blocks=\"{}\" data-last=\"{}\"",
                        g.side,
                        g.block,
                        escape(&g.cells),
                        escape(&g.blocks),
                        g.last.map_or(-1, |l| l as i64)
                    )
                });
                let _ = write!(
                    out,
                    "<div class=\"frame{}\"{grid}><p>{}</p>{}</div>",
                    if k == last { " shown" } else { "" },
                    escape(&f.caption),
                    f.html
                );
            }
            out.push_str("</div>");
        }
        if let Some(cmd) = &r.command {
            let _ = write!(
                out,
                "<p class=\"note\">Play it again with a transcript, in the tournament folder: <code>{}</code></p>",
                escape(cmd)
            );
        }
        out.push_str("</details>");
    }
    if let Some(n) = note {
        let _ = write!(out, "<p class=\"note\">{}</p>", escape(n));
    }
    out.push_str("</section>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }

    #[test]
    fn durations_read_as_a_person_says_them() {
        assert_eq!(duration(12.34), "12.3 s");
        assert_eq!(duration(245.0), "4 min 05 s");
        assert_eq!(duration(3.0 * 3600.0 + 120.0), "3 h 02 min");
    }
}
