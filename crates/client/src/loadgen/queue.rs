//! The quick-play scenario (protocol.md section 26): people arrive at a steady
//! rate, each joins the queue over its WebSocket (`/api/queue/ws`) for a table of
//! four allowing bots, waits for the seat to be pushed, connects to it and stays
//! until the game starts. Figures: the wait from joining to the seat, the share of
//! tables completed by bots, and the rating spread among the people of a table.
//!
//! Two steps, because ratings come only from rated games: [`prepare`] makes the
//! guests and writes, beside their tokens, the SQL that gives each a rating drawn
//! from a wide distribution (the bench script applies it to the database); then
//! [`run`] brings them in.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use catan_protocol::{QueueServerMessage, RoomStatus};
use futures_util::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

use crate::ClientError;
use crate::lobby::Lobby;
use crate::target::Target;

/// Mean and spread of the drawn ratings (on the shown scale, where a new player
/// is 1000), and the range they are kept in.
const RATING_MEAN: f64 = 1000.0;
const RATING_SD: f64 = 300.0;
const RATING_RANGE: (f64, f64) = (100.0, 1900.0);

/// One prepared person.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Person {
    /// Their name (unique in the run).
    pub name: String,
    /// Their session token.
    pub token: String,
    /// The rating given to them (matched by the queue).
    pub rating: f64,
}

/// A draw from the normal distribution (Box-Muller).
fn normal(rng: &mut impl Rng, mean: f64, sd: f64) -> f64 {
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random();
    mean + sd * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// The loopback address person `i` connects from: one per person, as households.
fn source(target: &Target, i: usize) -> Target {
    if target.host.parse::<std::net::Ipv4Addr>().is_err() {
        return target.clone();
    }
    let [_, _, hi, lo] = u32::try_from(i + 1).unwrap_or(u32::MAX).to_be_bytes();
    target.from_source(std::net::Ipv4Addr::new(127, 3, hi, lo).into())
}

/// Makes `count` guests (at `targets` in turn), draws their ratings with `seed`,
/// and writes `dir/people.jsonl` and `dir/ratings.sql` (portable SQL that sets
/// each guest's skill estimate so that the queue matches them at the drawn
/// rating: `mu = 25 + (rating - 1000) / 40`).
///
/// # Errors
/// A guest could not be made, or a file written.
pub async fn prepare(
    targets: &[Target],
    count: usize,
    seed: u64,
    dir: &Path,
) -> Result<(), ClientError> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let ratings: Vec<f64> = (0..count)
        .map(|_| normal(&mut rng, RATING_MEAN, RATING_SD).clamp(RATING_RANGE.0, RATING_RANGE.1))
        .collect();
    let gate = Arc::new(Semaphore::new(32));
    let mut tasks = Vec::new();
    for (i, rating) in ratings.into_iter().enumerate() {
        let lobby = Lobby::new(&source(&targets[i % targets.len()], i));
        let gate = gate.clone();
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire().await;
            let name = format!("q{i}");
            let signed = lobby.guest(&name).await?;
            Ok::<_, ClientError>((
                signed.player.id,
                Person {
                    name,
                    token: signed.token,
                    rating: rating.round(),
                },
            ))
        }));
    }
    let mut people = String::new();
    let mut sql = String::from("BEGIN;\n");
    for t in tasks {
        let (id, person) = t
            .await
            .map_err(|e| ClientError::Http(format!("a guest's task: {e}")))??;
        let mu = 25.0 + (person.rating - 1000.0) / 40.0;
        sql.push_str(&format!(
            "UPDATE players SET rating_mu = {mu} WHERE id = '{id}';\n"
        ));
        people.push_str(&serde_json::to_string(&person).expect("a person serializes"));
        people.push('\n');
    }
    sql.push_str("COMMIT;\n");
    let write = |file: &str, text: &str| {
        std::fs::write(dir.join(file), text)
            .map_err(|e| ClientError::Http(format!("writing {file}: {e}")))
    };
    write("people.jsonl", &people)?;
    write("ratings.sql", &sql)
}

/// Reads `dir/people.jsonl`.
///
/// # Errors
/// The file is missing or not what [`prepare`] writes.
pub fn read_people(dir: &Path) -> Result<Vec<Person>, ClientError> {
    let text = std::fs::read_to_string(dir.join("people.jsonl"))
        .map_err(|e| ClientError::Http(format!("people.jsonl: {e}")))?;
    text.lines()
        .map(|l| {
            serde_json::from_str(l).map_err(|e| ClientError::Http(format!("people.jsonl: {e}")))
        })
        .collect()
}

/// How people arrive.
#[derive(Debug, Clone)]
pub struct QueueLoad {
    /// The instances; person `i` goes to instance `i % len`.
    pub targets: Vec<Target>,
    /// People arriving per second.
    pub per_sec: f64,
    /// How long after the last arrival a person may still wait before the run
    /// ends (the queue's bots come after a minute).
    pub grace: Duration,
}

/// The figures of a run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct QueueReport {
    /// Always `queue`.
    pub mode: String,
    /// Instances.
    pub instances: usize,
    /// People who arrived.
    pub people: usize,
    /// Arrivals per second.
    pub per_sec: f64,
    /// People seated (their game started).
    pub seated: usize,
    /// People still waiting when the run ended.
    pub unseated: usize,
    /// Errors (a socket or call that failed).
    pub errors: usize,
    /// Examples of the errors.
    pub error_samples: Vec<String>,
    /// Wait from joining to the seat pushed, seconds: median.
    pub wait_p50_s: f64,
    /// The same, 90th percentile.
    pub wait_p90_s: f64,
    /// The same, 99th percentile.
    pub wait_p99_s: f64,
    /// The same, longest.
    pub wait_max_s: f64,
    /// From the seat to the game started (everyone at the table connected),
    /// seconds: median.
    pub start_p50_s: f64,
    /// The same, 99th percentile.
    pub start_p99_s: f64,
    /// Tables whose game started.
    pub tables: usize,
    /// Share of those tables completed by bots.
    pub tables_with_bots: f64,
    /// Share of those tables' seats held by bots.
    pub bot_seats: f64,
    /// Spread (highest minus lowest) of the people's ratings at a table of two or
    /// more people: median.
    pub spread_p50: f64,
    /// The same, 90th percentile.
    pub spread_p90: f64,
    /// The same, largest.
    pub spread_max: f64,
    /// The standard deviation of the drawn ratings, for scale.
    pub rating_sd: f64,
}

/// What one person saw.
#[derive(Debug)]
struct Seen {
    wait: Duration,
    start: Duration,
    room: Uuid,
}

type Socket = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

/// The queue's socket as `person`, from `target`.
async fn queue_socket(target: &Target, token: &str) -> Result<Socket, ClientError> {
    let fail = |e: &dyn std::fmt::Display| ClientError::WebSocket(format!("queue socket: {e}"));
    let mut req = format!("{}/api/queue/ws", target.ws)
        .into_client_request()
        .map_err(|e| fail(&e))?;
    req.headers_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().map_err(|e| fail(&e))?,
    );
    let stream = target.tcp().await.map_err(|e| fail(&e))?;
    let (ws, _) = tokio_tungstenite::client_async(req, MaybeTlsStream::Plain(stream))
        .await
        .map_err(|e| fail(&e))?;
    Ok(ws)
}

/// The next queue message.
async fn next(ws: &mut Socket) -> Result<QueueServerMessage, ClientError> {
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(t))) => {
                return serde_json::from_str(t.as_str())
                    .map_err(|e| ClientError::WebSocket(format!("queue message: {e}")));
            }
            Some(Ok(_)) => {}
            other => {
                return Err(ClientError::WebSocket(format!(
                    "queue socket ended: {other:?}"
                )));
            }
        }
    }
}

/// One person: joins, waits for the seat, connects, waits for the start, says
/// what it saw on `told`, and holds the seat's socket until `hold` is notified
/// (people at a table stay, as they would play).
async fn person(
    target: Target,
    token: String,
    told: tokio::sync::mpsc::UnboundedSender<Result<Seen, ClientError>>,
    hold: Arc<tokio::sync::Notify>,
) {
    let held = hold.notified();
    tokio::pin!(held);
    held.as_mut().enable();
    match seat_and_start(&target, &token).await {
        Ok((seen, socket)) => {
            let _ = told.send(Ok(seen));
            held.await;
            drop(socket);
        }
        Err(e) => {
            let _ = told.send(Err(e));
        }
    }
}

async fn seat_and_start(
    target: &Target,
    token: &str,
) -> Result<(Seen, crate::seat::Ws), ClientError> {
    let mut ws = queue_socket(target, token).await?;
    let first = next(&mut ws).await?;
    if first != QueueServerMessage::NotQueued {
        return Err(ClientError::WebSocket(format!("first message {first:?}")));
    }
    let join = serde_json::json!({ "type": "join", "seats": 4, "rated": false, "bots": true });
    let joined = Instant::now();
    ws.send(Message::Text(join.to_string().into()))
        .await
        .map_err(|e| ClientError::WebSocket(format!("join: {e}")))?;
    let at = loop {
        match next(&mut ws).await? {
            QueueServerMessage::Status(s) => {
                if let Some(at) = s.seated {
                    break at;
                }
            }
            other => return Err(ClientError::WebSocket(format!("while waiting: {other:?}"))),
        }
    };
    let wait = joined.elapsed();
    let _ = ws.close(None).await;
    let seated = Instant::now();
    let socket = crate::seat::connect(target, at.room_id, &at.token).await?;
    let lobby = Lobby::new(target);
    while lobby.room(at.room_id).await?.status != RoomStatus::Playing {
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let seen = Seen {
        wait,
        start: seated.elapsed(),
        room: at.room_id,
    };
    Ok((seen, socket))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Brings `people` in at `load.per_sec`, and reports.
pub async fn run(load: &QueueLoad, people: &[Person]) -> QueueReport {
    let hold = Arc::new(tokio::sync::Notify::new());
    let (told, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let begin = Instant::now();
    let mut tasks = Vec::new();
    for (i, p) in people.iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let at = begin + Duration::from_secs_f64(i as f64 / load.per_sec);
        tokio::time::sleep_until(at.into()).await;
        let target = source(&load.targets[i % load.targets.len()], i);
        tasks.push(tokio::spawn(person(
            target,
            p.token.clone(),
            told.clone(),
            hold.clone(),
        )));
    }
    drop(told);
    // Everyone has arrived: the rest have `grace` to be seated and started.
    let deadline = tokio::time::Instant::now() + load.grace;
    let mut report = QueueReport {
        mode: "queue".into(),
        instances: load.targets.len(),
        people: people.len(),
        per_sec: load.per_sec,
        ..QueueReport::default()
    };
    let mut seen = Vec::new();
    let mut heard_from = 0;
    while heard_from < people.len() {
        match tokio::time::timeout_at(deadline, heard.recv()).await {
            Ok(Some(r)) => {
                heard_from += 1;
                collect(r, &mut seen, &mut report);
            }
            Ok(None) | Err(_) => break,
        }
    }
    report.unseated = people.len() - heard_from;
    report.seated = seen.len();
    figures(&mut report, &seen, people, &load.targets).await;
    hold.notify_waiters();
    for t in tasks {
        t.abort();
    }
    report
}

fn collect(done: Result<Seen, ClientError>, seen: &mut Vec<Seen>, report: &mut QueueReport) {
    match done {
        Ok(s) => seen.push(s),
        Err(e) => {
            report.errors += 1;
            if report.error_samples.len() < 5 {
                report.error_samples.push(e.to_string());
            }
        }
    }
}

/// The wait, start, bots and spread figures of `seen`.
async fn figures(report: &mut QueueReport, seen: &[Seen], people: &[Person], targets: &[Target]) {
    let mut waits: Vec<f64> = seen.iter().map(|s| s.wait.as_secs_f64()).collect();
    waits.sort_by(f64::total_cmp);
    let mut starts: Vec<f64> = seen.iter().map(|s| s.start.as_secs_f64()).collect();
    starts.sort_by(f64::total_cmp);
    report.wait_p50_s = percentile(&waits, 0.5);
    report.wait_p90_s = percentile(&waits, 0.9);
    report.wait_p99_s = percentile(&waits, 0.99);
    report.wait_max_s = waits.last().copied().unwrap_or(0.0);
    report.start_p50_s = percentile(&starts, 0.5);
    report.start_p99_s = percentile(&starts, 0.99);
    let rating: HashMap<&str, f64> = people.iter().map(|p| (p.name.as_str(), p.rating)).collect();
    #[allow(clippy::cast_precision_loss)]
    let n = people.len().max(1) as f64;
    let mean = people.iter().map(|p| p.rating).sum::<f64>() / n;
    report.rating_sd = (people
        .iter()
        .map(|p| (p.rating - mean).powi(2))
        .sum::<f64>()
        / n)
        .sqrt();
    let rooms: BTreeMap<Uuid, usize> = seen.iter().enumerate().map(|(i, s)| (s.room, i)).collect();
    let (mut with_bots, mut bot_seats, mut seats) = (0usize, 0usize, 0usize);
    let mut spreads = Vec::new();
    for (room, i) in &rooms {
        let lobby = Lobby::new(&targets[i % targets.len()]);
        let Ok(info) = lobby.room(*room).await else {
            report.errors += 1;
            continue;
        };
        let mut ratings = Vec::new();
        let mut bots = 0;
        for o in info.seats.iter().filter_map(|s| s.occupant.as_ref()) {
            if o.bot.is_some() {
                bots += 1;
            } else if let Some(r) = rating.get(o.name.as_str()) {
                ratings.push(*r);
            }
        }
        seats += info.seats.len();
        bot_seats += bots;
        with_bots += usize::from(bots > 0);
        if ratings.len() >= 2 {
            let hi = ratings.iter().copied().fold(f64::MIN, f64::max);
            let lo = ratings.iter().copied().fold(f64::MAX, f64::min);
            spreads.push(hi - lo);
        }
    }
    spreads.sort_by(f64::total_cmp);
    report.tables = rooms.len();
    #[allow(clippy::cast_precision_loss)]
    {
        report.tables_with_bots = with_bots as f64 / rooms.len().max(1) as f64;
        report.bot_seats = bot_seats as f64 / seats.max(1) as f64;
    }
    report.spread_p50 = percentile(&spreads, 0.5);
    report.spread_p90 = percentile(&spreads, 0.9);
    report.spread_max = spreads.last().copied().unwrap_or(0.0);
}
