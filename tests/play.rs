//! Playing a game from the outside with the built-in bots' own driver
//! ([`catan_bots::SeatDriver`]): one client playing random legal actions to the end,
//! or a [`Table`] of clients steered together into a situation a test needs.

use std::time::Duration;

use catan_bots::{RandomBot, SeatDriver};
use catan_protocol::ServerMessage;
use futures_util::StreamExt;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio_tungstenite::tungstenite::Message;

use crate::Client;

/// Plays as a random-legal client until the game ends, with the same driver as the
/// built-in bots ([`catan_bots::SeatDriver`]). Returns the client with everything it
/// received and the number of rejections it got.
pub async fn play_randomly(client: Client, seed: u64) -> (Client, usize) {
    play_randomly_paced(client, seed, Duration::ZERO).await
}

/// [`play_randomly`] with a pause of `pause` before each action (a person's pace).
pub async fn play_randomly_paced(
    mut client: Client,
    seed: u64,
    pause: Duration,
) -> (Client, usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut driver = SeatDriver::new();
    let mut rejections = 0;
    // Pick up where an earlier reader of this client stopped.
    for (_, msg) in &client.received {
        driver.observe(msg);
    }
    loop {
        if driver.over() {
            break;
        }
        if let Some(m) = driver.decide(&mut RandomBot::new(), &mut rng) {
            if !pause.is_zero() {
                tokio::time::sleep(pause).await;
            }
            client
                .send_text(&serde_json::to_string(&m).expect("json"))
                .await;
        }
        let Some(msg) = client.recv().await else {
            break;
        };
        if matches!(msg, ServerMessage::Rejected { .. }) {
            rejections += 1;
        }
        driver.observe(&msg);
    }
    (client, rejections)
}

/// Several clients of one room driven from one task, for tests that need to steer
/// the game into a particular situation.
#[derive(Debug)]
pub struct Table {
    /// The clients, by seat.
    pub clients: Vec<Client>,
    /// One driver per client.
    pub drivers: Vec<SeatDriver>,
    /// Random choices.
    rng: StdRng,
}

impl Table {
    /// A table of connected clients.
    #[must_use]
    pub fn new(clients: Vec<Client>, seed: u64) -> Table {
        // Each driver starts from what its client already received.
        let drivers = clients
            .iter()
            .map(|c| {
                let mut d = SeatDriver::new();
                for (_, msg) in &c.received {
                    d.observe(msg);
                }
                d
            })
            .collect();
        Table {
            clients,
            drivers,
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// Reads whatever each client has waiting (briefly), feeding the drivers.
    pub async fn pump(&mut self) {
        for (c, d) in self.clients.iter_mut().zip(self.drivers.iter_mut()) {
            while let Ok(Some(Ok(Message::Text(t)))) =
                tokio::time::timeout(Duration::from_millis(15), c.ws.next()).await
            {
                let msg: ServerMessage = serde_json::from_str(&t).expect("server message");
                d.observe(&msg);
                c.received.push((t.to_string(), msg));
            }
        }
    }

    /// Plays random legal actions until `done` holds (checked between actions).
    ///
    /// # Panics
    /// If `done` does not hold within `max_actions` actions.
    pub async fn play_until(&mut self, max_actions: usize, mut done: impl FnMut(&Table) -> bool) {
        let mut acted = 0;
        loop {
            self.pump().await;
            if done(self) {
                return;
            }
            assert!(
                acted < max_actions,
                "condition not reached within {max_actions} actions"
            );
            if let Some((i, m)) = (0..self.drivers.len()).find_map(|i| {
                self.drivers[i]
                    .decide(&mut RandomBot::new(), &mut self.rng)
                    .map(|m| (i, m))
            }) {
                self.clients[i]
                    .send_text(&serde_json::to_string(&m).expect("json"))
                    .await;
                acted += 1;
            }
        }
    }
}
