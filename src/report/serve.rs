//! The live page (`--serve ADDR` on a run or `watch`): the report served
//! over HTTP while games are played, read-only.
//!
//! Two threads of its own keep it away from the tournament: one rebuilds
//! a snapshot of the page from the database (a read-only connection; WAL
//! readers never block the writer) when a game committed, the other
//! answers HTTP on a current-thread runtime from the latest snapshot. A
//! request gets a few seconds to arrive and its answer a few to leave; at
//! most [`MAX_CLIENTS`] are served at once and the rest are closed, so no
//! client, slow or hostile, can hold up anything but itself. The page
//! polls `state` and fetches `content` when the version changed. Bots
//! cannot reach it: their seccomp filter refuses every socket.

use crate::error::{Error, Result};
use crate::results::Store;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// Clients served at once; more are closed at once.
pub const MAX_CLIENTS: usize = 32;
/// How long a request may take to arrive, and an answer to be written.
const CLIENT_TIME: Duration = Duration::from_secs(5);
/// How often the database is looked at for new games.
const LOOK_EVERY: Duration = Duration::from_millis(1000);

/// What the server answers from.
#[derive(Debug, Clone, Default)]
struct Snapshot {
    page: String,
    content: String,
    state: String,
}

/// `--serve ADDR`: `HOST:PORT`, or a port alone for `127.0.0.1:PORT`.
pub fn parse_addr(s: &str) -> std::result::Result<SocketAddr, String> {
    if let Ok(port) = s.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    s.parse::<SocketAddr>().map_err(|_| {
        format!("`{s}` is not an address: give HOST:PORT (e.g. 127.0.0.1:8080) or a port")
    })
}

/// A running live page. Dropping it (or cancelling `cancel`) stops it.
pub struct LivePage {
    pub addr: SocketAddr,
    stop: CancellationToken,
}

impl Drop for LivePage {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Binds `addr` and serves the report of the latest tournament in `db`
/// (which may not exist yet) until `cancel` or the returned handle's drop.
pub fn start(addr: SocketAddr, db: PathBuf, cancel: &CancellationToken) -> Result<LivePage> {
    let listener = std::net::TcpListener::bind(addr)
        .map_err(|e| Error::input(format!("--serve {addr}: cannot listen there: {e}")))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::machine(format!("--serve {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::machine(format!("--serve {addr}: {e}")))?;
    let stop = cancel.child_token();
    let snapshot = Arc::new(RwLock::new(Arc::new(waiting(&db))));

    let (snap, token) = (Arc::clone(&snapshot), stop.clone());
    std::thread::Builder::new()
        .name("live-snapshots".into())
        .spawn(move || keep_snapshot(&db, &snap, &token))
        .map_err(|e| Error::machine(format!("cannot start the live page: {e}")))?;

    let token = stop.clone();
    std::thread::Builder::new()
        .name("live-http".into())
        .spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(accept(listener, snapshot, token));
        })
        .map_err(|e| Error::machine(format!("cannot start the live page: {e}")))?;
    Ok(LivePage { addr: bound, stop })
}

/// The page before the database holds a tournament.
fn waiting(db: &Path) -> Snapshot {
    let content = format!(
        "<header><h1>referee</h1><div class=\"sub\">live</div></header><main><section><p>Waiting for the first game to be recorded in {}.</p></section></main>",
        super::html::escape(&db.display().to_string())
    );
    Snapshot {
        page: format!(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>referee</title></head><body data-version=\"waiting\"><div id=\"report\">{content}</div><script>{}</script></body></html>",
            "setTimeout(function(){location.reload()},2000);"
        ),
        content,
        state: "{\"version\":\"waiting\"}".into(),
    }
}

/// Rebuilds the snapshot whenever the latest tournament's stored games or
/// play time changed, until `stop`. A rebuild that took long waits four
/// times as long before the next, so the page never takes more than a
/// fifth of a core from the tournament.
fn keep_snapshot(db: &Path, snapshot: &RwLock<Arc<Snapshot>>, stop: &CancellationToken) {
    let mut seen = String::new();
    while !stop.is_cancelled() {
        let started = std::time::Instant::now();
        let mut pause = LOOK_EVERY;
        if let Some((key, built)) = build(db, &seen) {
            seen = key;
            if let Some(s) = built {
                if let Ok(mut slot) = snapshot.write() {
                    *slot = Arc::new(s);
                }
                pause = pause.max(4 * started.elapsed());
            }
        }
        let until = std::time::Instant::now() + pause;
        while !stop.is_cancelled() && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The database's current key, and a new snapshot if it differs from
/// `seen`; `None` when nothing can be read yet.
fn build(db: &Path, seen: &str) -> Option<(String, Option<Snapshot>)> {
    if !db.exists() {
        return None;
    }
    let store = Store::open_read_only(db).ok()?;
    let row = store.find_tournament(None).ok()??;
    let times = store.tournament_times(row.id).ok()?;
    let key = format!(
        "{}/{}/{}/{}/{}",
        row.id,
        times.games,
        times.updated_at,
        times.last_game.unwrap_or_default(),
        row.play_seconds
    );
    if key == seen {
        return Some((key, None));
    }
    match super::content(&store, &row) {
        Ok(c) => {
            let version = format!("{}-{key}", super::html::version(&c));
            let state = serde_json::json!({
                "version": version,
                "stored": c.data.stored,
                "planned": c.data.planned,
                "play_seconds": c.row.play_seconds,
            })
            .to_string();
            let mut page = super::html::page(&c, true);
            // The page's own version is the snapshot's.
            page = page.replacen(
                &format!(
                    "data-version=\"{}\"",
                    super::html::escape(&super::html::version(&c))
                ),
                &format!("data-version=\"{}\"", super::html::escape(&version)),
                1,
            );
            Some((
                key,
                Some(Snapshot {
                    content: super::html::body(&c, true),
                    page,
                    state,
                }),
            ))
        }
        Err(e) => {
            tracing::warn!("live page: {e}");
            None
        }
    }
}

async fn accept(
    listener: std::net::TcpListener,
    snapshot: Arc<RwLock<Arc<Snapshot>>>,
    stop: CancellationToken,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let clients = Arc::new(tokio::sync::Semaphore::new(MAX_CLIENTS));
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => return,
            a = listener.accept() => a,
        };
        let Ok((stream, _)) = accepted else {
            // Out of descriptors, say: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let Ok(permit) = Arc::clone(&clients).try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let current = snapshot.read().map(|s| Arc::clone(&s)).unwrap_or_default();
        tokio::spawn(async move {
            let _permit = permit;
            let _ = tokio::time::timeout(2 * CLIENT_TIME, answer(stream, &current)).await;
        });
    }
}

/// Reads one request (its head, at most 8 KiB) and answers it.
async fn answer(mut stream: tokio::net::TcpStream, snapshot: &Snapshot) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 1024];
    let read = tokio::time::timeout(CLIENT_TIME, async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 8192 {
            let n = stream.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buf[..n]);
        }
        Ok::<(), std::io::Error>(())
    })
    .await;
    if !matches!(read, Ok(Ok(()))) {
        return Ok(());
    }
    let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split(' ');
    let method = parts.next().unwrap_or_default();
    let path = parts.next().unwrap_or_default();
    let path = path.split('?').next().unwrap_or_default();
    let (status, kind, body) = if method != "GET" && method != "HEAD" {
        ("405 Method Not Allowed", "text/plain", "read-only\n")
    } else {
        match path {
            "/" | "/report.html" => ("200 OK", "text/html; charset=utf-8", snapshot.page.as_str()),
            "/content" => (
                "200 OK",
                "text/html; charset=utf-8",
                snapshot.content.as_str(),
            ),
            "/state" => ("200 OK", "application/json", snapshot.state.as_str()),
            _ => ("404 Not Found", "text/plain", "not found\n"),
        }
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
         Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    tokio::time::timeout(CLIENT_TIME, async {
        stream.write_all(response.as_bytes()).await?;
        if method != "HEAD" {
            stream.write_all(body.as_bytes()).await?;
        }
        stream.shutdown().await
    })
    .await
    .unwrap_or(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_or_a_port_alone_on_the_loopback() {
        assert_eq!(
            parse_addr("8080").unwrap(),
            "127.0.0.1:8080".parse().unwrap()
        );
        assert_eq!(
            parse_addr("0.0.0.0:80").unwrap(),
            "0.0.0.0:80".parse().unwrap()
        );
        assert!(parse_addr("localhost").is_err());
    }
}
