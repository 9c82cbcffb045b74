//! A person trading with medium bots over real sockets: a person's
//! offer that clearly helps a bot is accepted by it and completes when the person
//! confirms, one that is clearly bad for it is rejected, and the bots' own offers
//! reach the person.
//!
//! Which offer is good or bad for a bot is decided from the bot's actual hand, read
//! on the admin API (the room's unredacted game): the test applies the candidate
//! offer to a copy of the game and asks the medium strategy what that seat would
//! answer from its own view (what `?view=` shows) and legal list, exactly what the
//! server hands the bot, so the answer on the wire is known before the offer is
//! sent. The person's other decisions are random (the seat driver with the random
//! strategy, which makes no offers and answers the bots' at random).

use catan_bots::{HeuristicBot, RandomBot, SeatDriver, Strategy, actionable};
use catan_e2e::{Client, TestServer};
use catan_engine::{Action, Event, Game, OfferClosed, OfferId, Phase, Resource, Resources, Seat};
use catan_protocol::{AdminRoomDetail, ClientMessage, ServerMessage};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::json;
use uuid::Uuid;

/// The person's seat: a client, the driver that plays its other decisions at
/// random, and what it saw of the bots' offers.
struct Person {
    client: Client,
    driver: SeatDriver,
    rng: StdRng,
    me: Seat,
    /// Offers from a bot's seat that the person may answer, with whether the
    /// person's legal list in the same message let it answer them.
    bot_offers: Vec<(OfferId, Seat, bool)>,
    requests: u32,
}

impl Person {
    /// The next message, observed by the driver; offers of others to the person
    /// are noted.
    async fn next(&mut self) -> ServerMessage {
        let m = self
            .client
            .recv()
            .await
            .expect("the socket stays open during the game");
        self.driver.observe(&m);
        if let ServerMessage::Events { events, legal, .. } = &m {
            for e in events {
                if let Event::OfferMade { offer } = e
                    && offer.from != self.me
                    && offer.is_recipient(self.me)
                {
                    let answerable = legal.contains(&Action::RejectOffer { offer: offer.id });
                    self.bot_offers.push((offer.id, offer.from, answerable));
                }
            }
        }
        m
    }

    /// Sends `action` as the person's own (not the driver's) request; returns its id.
    async fn act(&mut self, action: Action) -> String {
        self.requests += 1;
        let request_id = format!("person-{}", self.requests);
        let msg = ClientMessage::Action {
            request_id: request_id.clone(),
            action,
            expect_seq: None,
            offer_expires_secs: None,
        };
        self.client
            .send_text(&serde_json::to_string(&msg).expect("json"))
            .await;
        request_id
    }

    /// Receives until an `events` message holds an event `pick` returns something
    /// for; panics on a rejection of the person's own request.
    async fn until_event<T>(&mut self, mut pick: impl FnMut(&Event) -> Option<T>) -> T {
        loop {
            match self.next().await {
                ServerMessage::Events { events, .. } => {
                    if let Some(t) = events.iter().find_map(&mut pick) {
                        return t;
                    }
                }
                ServerMessage::Rejected {
                    request_id,
                    code,
                    message,
                    ..
                } if request_id.starts_with("person-") => {
                    panic!("the person's {request_id} was refused: {code} {message}")
                }
                ServerMessage::GameOver(_) => panic!("the game ended while waiting"),
                _ => {}
            }
        }
    }

    /// Why offer `id` closed: from a message already received, else the next
    /// ones.
    async fn closed(&mut self, id: OfferId) -> OfferClosed {
        let pick = |e: &Event| match *e {
            Event::OfferClosed { offer, reason } if offer == id => Some(reason),
            _ => None,
        };
        let seen = self.client.received.iter().find_map(|(_, m)| match m {
            ServerMessage::Events { events, .. } => events.iter().find_map(pick),
            _ => None,
        });
        match seen {
            Some(reason) => reason,
            None => self.until_event(pick).await,
        }
    }

    /// Whether the person has a decision of its own trade-and-build phase to make.
    fn in_own_main_phase(&self) -> bool {
        self.driver.ready()
            && self
                .driver
                .view()
                .is_some_and(|v| v.phase == Phase::Main && v.current == self.me)
    }
}

/// The engine's state of the room, unredacted, from the admin API.
async fn admin_game(server: &TestServer, room: Uuid) -> Game {
    let r = server
        .admin_get(&format!("/admin/rooms/{room}?events=0"))
        .await;
    assert_eq!(r.status(), 200);
    let detail: AdminRoomDetail = r.json().await.expect("admin detail");
    *detail.game.expect("the game has started")
}

/// A bot's answer to an offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Accept,
    Reject,
    Counter,
}

/// What the medium bot of `bot` answers to `me` offering it `give` for `get` in
/// `game`: the offer applied to a copy, then the medium strategy on the bot's own
/// view and legal list (as its driver passes them). `None` if the offer is not legal.
fn medium_answer(
    game: &Game,
    me: Seat,
    bot: Seat,
    give: Resources,
    get: Resources,
) -> Option<Answer> {
    let mut after = game.clone();
    let offer = Action::OfferTrade {
        to: Some(bot),
        give,
        get,
    };
    after.apply(me, offer).ok()?;
    let view = after.view(Some(bot));
    let legal = actionable(&view, &after.legal_actions(bot));
    if legal.is_empty() {
        return None;
    }
    match HeuristicBot::new().choose(&view, &legal, &mut StdRng::seed_from_u64(0)) {
        Action::AcceptOffer { .. } => Some(Answer::Accept),
        Action::RejectOffer { .. } => Some(Answer::Reject),
        Action::CounterOffer { .. } => Some(Answer::Counter),
        other => panic!("a bot answers an offer with {other:?}"),
    }
}

/// One card of a kind the person holds for one of another kind the bot holds,
/// that the bot accepts by its own evaluation (it clearly helps the bot toward its
/// next build).
fn good_offer(game: &Game, me: Seat, bots: &[Seat]) -> Option<(Seat, Resources, Resources)> {
    let mine = game.player(me).hand;
    for &bot in bots {
        let theirs = game.player(bot).hand;
        for give in mine.kinds() {
            for get in theirs.kinds().filter(|&r| r != give) {
                let (give, get) = (Resources::single(give, 1), Resources::single(get, 1));
                if medium_answer(game, me, bot, give, get) == Some(Answer::Accept) {
                    return Some((bot, give, get));
                }
            }
        }
    }
    None
}

/// One card the person holds for three (else two) of one kind the bot holds (so
/// that the bot could accept it), that the bot rejects outright, without a
/// counter, by its own evaluation.
fn bad_offer(game: &Game, me: Seat, bots: &[Seat]) -> Option<(Seat, Resources, Resources)> {
    let mine = game.player(me).hand;
    for n in [3, 2] {
        for &bot in bots {
            let theirs = game.player(bot).hand;
            for give in mine.kinds() {
                for get in Resource::ALL.into_iter().filter(|&r| theirs.get(r) >= n) {
                    let (give, get) = (Resources::single(give, 1), Resources::single(get, n));
                    if medium_answer(game, me, bot, give, get) == Some(Answer::Reject) {
                        return Some((bot, give, get));
                    }
                }
            }
        }
    }
    None
}

/// The person offers `bot` `give` for `get`; returns the offer made and the first
/// answer to it the person sees: the bot's acceptance or rejection, its counter, or
/// the offer's closing.
async fn offer(
    p: &mut Person,
    bot: Seat,
    give: Resources,
    get: Resources,
) -> (catan_engine::TradeOffer, Event) {
    let me = p.me;
    p.act(Action::OfferTrade {
        to: Some(bot),
        give,
        get,
    })
    .await;
    let made = p
        .until_event(|e| match e {
            Event::OfferMade { offer } if offer.from == me => Some(*offer),
            _ => None,
        })
        .await;
    assert_eq!((made.to, made.give, made.get), (Some(bot), give, get));
    let answer = p
        .until_event(|e| match *e {
            Event::OfferAccepted { offer, .. }
            | Event::OfferRejected { offer, .. }
            | Event::OfferClosed { offer, .. }
                if offer == made.id =>
            {
                Some(*e)
            }
            Event::OfferMade { offer } if offer.counter_to == Some(made.id) => Some(*e),
            _ => None,
        })
        .await;
    (made, answer)
}

/// `hand` with `minus` taken out and `plus` put in.
fn moved(mut hand: Resources, minus: &Resources, plus: &Resources) -> Resources {
    hand.sub(minus);
    hand.add(plus);
    hand
}

const ADMIN: &str = "admin-token-for-the-bot-trade-test";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_trades_with_medium_bots_good_offers_accepted_bad_ones_rejected_theirs_reach_the_person()
 {
    let server = TestServer::start_with(|c| c.admin_token = Some(ADMIN.into())).await;
    // Offers expire after 5 s: a bot that never answers shows as `expired`.
    let created = server
        .create_room(json!({
            "players": 3, "map": "beginner", "turn_timer_secs": 0,
            "trade_timeout_secs": 5, "stand_in_secs": 0
        }))
        .await;
    let room = created.room_id;
    let seat = server.take_seat(room, "ann").await;
    for _ in 0..2 {
        server
            .add_bot_of_kind(room, &created.host_token, Some("medium"))
            .await;
    }
    let client = server.connect(room, Some(&seat.token), None).await;
    let info = server.start_game(room, &created.host_token).await;
    let bots: Vec<Seat> = info
        .seats
        .iter()
        .filter(|s| {
            s.occupant.as_ref().and_then(|o| o.bot) == Some(catan_protocol::BotKind::Medium)
        })
        .map(|s| s.seat)
        .collect();
    assert_eq!(bots.len(), 2);
    let me = seat.seat;
    let mut p = Person {
        client,
        driver: SeatDriver::new(),
        rng: StdRng::seed_from_u64(11),
        me,
        bot_offers: Vec::new(),
        requests: 0,
    };
    let (mut good_done, mut bad_done) = (false, false);
    let mut inspected = None;
    let mut turns_to_good = None;
    while !(good_done && bad_done && !p.bot_offers.is_empty()) {
        assert!(
            !p.driver.over(),
            "the game ended first (good offer done: {good_done}, bad offer done: \
             {bad_done}, bot offers seen: {})",
            p.bot_offers.len()
        );
        let turn = p.driver.view().map(|v| v.turn);
        if p.in_own_main_phase() && !(good_done && bad_done) && inspected != turn {
            inspected = turn;
            let game = admin_game(&server, room).await;
            if !good_done && let Some((bot, give, get)) = good_offer(&game, me, &bots) {
                // the bot accepts an offer that helps it; the trade completes
                // when the person confirms, and the cards move as the event says.
                let (made, answer) = offer(&mut p, bot, give, get).await;
                assert_eq!(
                    answer,
                    Event::OfferAccepted {
                        offer: made.id,
                        seat: bot
                    },
                    "the bot accepts {give:?} for its {get:?}"
                );
                p.act(Action::ConfirmTrade {
                    offer: made.id,
                    with: bot,
                })
                .await;
                let done = p
                    .until_event(|e| matches!(e, Event::TradeCompleted { .. }).then_some(*e))
                    .await;
                assert_eq!(
                    done,
                    Event::TradeCompleted {
                        offer: made.id,
                        from: me,
                        to: bot,
                        gave: give,
                        got: get
                    }
                );
                let after = admin_game(&server, room).await;
                let mine = moved(game.player(me).hand, &give, &get);
                let theirs = moved(game.player(bot).hand, &get, &give);
                assert_eq!(after.player(me).hand, mine);
                assert_eq!(after.player(bot).hand, theirs);
                let view = p.driver.view().expect("view");
                assert_eq!(view.me.map(|m| m.hand), Some(mine), "the person's own view");
                assert_eq!(
                    view.players[bot.index()].resource_cards,
                    theirs.total(),
                    "the bot's card count as the person sees it"
                );
                good_done = true;
                turns_to_good = turn;
                // Look again for a bad offer, this turn still.
                inspected = None;
                continue;
            }
            if !bad_done && let Some((bot, give, get)) = bad_offer(&game, me, &bots) {
                // several of the bot's cards for one of the person's, which
                // does not help the bot: rejected, and nothing moves.
                let (made, answer) = offer(&mut p, bot, give, get).await;
                assert_eq!(
                    answer,
                    Event::OfferRejected {
                        offer: made.id,
                        seat: bot
                    },
                    "the bot rejects {give:?} for its {get:?}"
                );
                let closed = p.closed(made.id).await;
                assert_eq!(closed, OfferClosed::Rejected, "its only recipient said no");
                let after = admin_game(&server, room).await;
                assert_eq!(after.player(bot).hand, game.player(bot).hand);
                assert_eq!(after.player(me).hand, game.player(me).hand);
                bad_done = true;
                inspected = None;
                continue;
            }
        }
        if let Some(m) = p.driver.decide(&mut RandomBot::new(), &mut p.rng) {
            p.client
                .send_text(&serde_json::to_string(&m).expect("json"))
                .await;
        }
        p.next().await;
    }
    // A bot's own offer reached the person, who could answer it.
    let (offer, from, answerable) = p.bot_offers[0];
    assert!(bots.contains(&from), "offer {offer:?} from {from:?}");
    assert!(
        answerable,
        "the person may answer the bot's offer {offer:?}"
    );
    eprintln!(
        "good offer in turn {turns_to_good:?}; {} bot offers to the person by turn {:?}",
        p.bot_offers.len(),
        p.driver.view().map(|v| v.turn)
    );
    server.stop().await;
}
