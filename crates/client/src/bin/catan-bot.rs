//! `catan-bot`: plays one seat of a room on any catan-server to the end with one of
//! the built-in strategies (the same driver and strategies as the server's own
//! bots), and prints the result. The reference client in action.

use std::process::ExitCode;

use catan_client::lobby::Lobby;
use catan_client::seat::SeatClient;
use catan_client::{ClientError, target};
use catan_protocol::BotKind;
use clap::Parser;
use uuid::Uuid;

/// Plays a seat of a Catan room to the end.
#[derive(Debug, Parser)]
#[command(name = "catan-bot", version)]
struct Args {
    /// Server URL, e.g. `ws://127.0.0.1:8080`.
    #[arg(long, default_value = "ws://127.0.0.1:8080")]
    url: String,
    /// The room to play in (with `--token`).
    #[arg(long, requires = "token", conflicts_with = "create")]
    room: Option<Uuid>,
    /// The seat token from `POST /api/rooms/{id}/seats`.
    #[arg(long)]
    token: Option<String>,
    /// Create a room of N seats (3 or 4), fill N-1 with built-in bots, start it and
    /// play the remaining seat.
    #[arg(long, value_parser = clap::value_parser!(u8).range(3..=4))]
    create: Option<u8>,
    /// Strategy: a level, `easy`, `medium` or `hard` (the search, 200 ms a
    /// decision), or `random` (uniform among the legal actions, no player trades).
    #[arg(long, default_value = "random")]
    strategy: BotKind,
    /// Seed of the strategy's randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Display name when creating a room.
    #[arg(long, default_value = "catan-bot")]
    name: String,
}

async fn run(args: Args) -> Result<(), ClientError> {
    let target = target::parse(&args.url)?;
    let (room, token, start) = match (args.room, args.token, args.create) {
        (Some(room), Some(token), _) => (room, token, None),
        (_, _, Some(n)) => {
            let lobby = Lobby::new(&target);
            let created = lobby.create_room(n, 10, None).await?;
            let seat = lobby.take_seat(created.room_id, &args.name).await?;
            for _ in 1..n {
                lobby.add_bot(created.room_id, &created.host_token).await?;
            }
            println!("created room {}", created.room_id);
            (
                created.room_id,
                seat.token,
                Some((lobby, created.host_token)),
            )
        }
        _ => {
            return Err(ClientError::Http(
                "give --room and --token, or --create N".into(),
            ));
        }
    };
    let mut client = SeatClient::connect(&target, room, &token).await?;
    if let Some((lobby, host)) = start {
        lobby.start(room, &host).await?;
    }
    let mut strategy = catan_bots::strategy(args.strategy);
    let outcome = client.play_to_end(strategy.as_mut(), args.seed).await?;
    let seat = outcome.seat.map_or("-".to_owned(), |s| s.0.to_string());
    let winner = outcome.winner.map_or_else(
        || "no winner (turn limit reached)".to_owned(),
        |w| format!("winner seat {}", w.0),
    );
    println!(
        "game over: {winner} | me seat {seat} with {} points | {} actions, {} rejected",
        outcome.own_points().unwrap_or(0),
        outcome.actions,
        outcome.rejected
    );
    for s in &outcome.scores {
        println!(
            "  seat {}: {} points ({} VP cards)",
            s.seat.0, s.points, s.vp_cards
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("catan-bot: {e}");
            ExitCode::FAILURE
        }
    }
}
