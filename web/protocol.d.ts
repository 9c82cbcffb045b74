// TypeScript declarations of the catan-server protocol, generated from
// crates/protocol/schema/catan-protocol.schema.json. Do not edit: `CATAN_BLESS=1 cargo test -p catan-protocol` regenerates it.
// Client-sent forms that differ from the server-written ones end in `Input`.

/** Every WebSocket message (ClientMessage, ServerMessage) and every JSON body of the HTTP API of catan-server, protocol version 1: what clients send as the server reads it, what the server writes exactly as it writes it (see protocol.md). The root accepts any one of them; validate against `#/$defs/{name}` for one type. */
export type AnyMessageOrBody = ClientMessage | CreateRoomRequest | TakeSeatRequest | AddBotRequest | CloseRoomRequest | KickRequest | GuestRequest | ClaimRequest | SignInRequest | RenameRequest | ModerationRequest | PasskeyRegistrationRequest | PasskeySignInRequest | QueueRequest | QueueClientMessage | NotifyChannelRequest | ServerMessage | CreateRoomResponse | RoomList | RoomInfo | TakeSeatResponse | AddBotResponse | ErrorBody | GameList | GameSummary | Replay | AdminRoomList | AdminRoomDetail | CloseRoomResponse | ServerStats | BoardGeometry | RematchResponse | PlayerInfo | SignedIn | SessionList | PlayerProfile | Leaderboard | AdminPlayerList | AdminPlayerDetail | AdminPlayer | PasskeyChallenge | PasskeyList | QueueStatus | PartyInfo | QueueServerMessage | MyGames | NotifyChannelList | NotifyChannelInfo | VapidKey | AdminNoticeList;

/**
 * A request to change the game. `Game::apply` accepts it or says why not.
 *
 * On the wire an action is an object tagged by `type`, e.g.
 * `{"type": "build_road", "edge": 12}`.
 */
export type Action =
  /** Place a settlement: free during setup, paid afterwards. */
  | {
    type: "build_settlement";
    /** Where. */
    vertex: VertexId;
  }
  /** Place a road: free during setup and Road Building, paid otherwise. */
  | {
    type: "build_road";
    /** Where. */
    edge: EdgeId;
  }
  /** Replace an own settlement with a city. */
  | {
    type: "build_city";
    /** Where. */
    vertex: VertexId;
  }
  /** Roll the dice. */
  | {
    type: "roll_dice";
  }
  /** Return half of a hand over 7 cards after a 7. */
  | {
    type: "discard";
    /** Exactly the cards to return. */
    cards: Resources;
  }
  /** Move the robber and, if anyone is eligible, name the victim. */
  | {
    type: "move_robber";
    /** The new tile; must differ from the current one. */
    tile: TileId;
    /** Whom to rob: required when an eligible opponent exists, else absent. */
    victim: Seat | null;
  }
  /** Buy the top development card. */
  | {
    type: "buy_dev_card";
  }
  /** Play a Knight. */
  | {
    type: "play_knight";
  }
  /** Play Road Building; the roads follow as `build_road` actions. */
  | {
    type: "play_road_building";
  }
  /**
   * Play Year of Plenty: `take` holds two cards, or fewer only when the
   * bank has fewer than two in total.
   */
  | {
    type: "play_year_of_plenty";
    /** The cards to take from the bank. */
    take: Resources;
  }
  /** Play Monopoly on a resource. */
  | {
    type: "play_monopoly";
    /** The resource every opponent hands over. */
    resource: Resource;
  }
  /** Trade with the bank at the best ratio the player has: 4:1, 3:1 or 2:1. */
  | {
    type: "maritime_trade";
    /** The resource given (4, 3 or 2 of it). */
    give: Resource;
    /** The one card received. */
    get: Resource;
  }
  /** Offer a trade to one opponent or, with `to` absent, to all of them. */
  | {
    type: "offer_trade";
    /** The recipient, or `None` for all opponents. */
    to: Seat | null;
    /** What the offering player gives. */
    give: Resources;
    /** What the offering player wants in return. */
    get: Resources;
  }
  /**
   * Accept an offer made to this seat. For a counter-offer, the current player's
   * acceptance completes the trade at once.
   */
  | {
    type: "accept_offer";
    /** The offer. */
    offer: OfferId;
  }
  /** Decline an offer made to this seat. */
  | {
    type: "reject_offer";
    /** The offer. */
    offer: OfferId;
  }
  /** Answer an offer with a new one from this seat back to the current player. */
  | {
    type: "counter_offer";
    /** The offer being answered. */
    offer: OfferId;
    /** What the countering player gives. */
    give: Resources;
    /** What the countering player wants. */
    get: Resources;
  }
  /** Take back an own offer. */
  | {
    type: "withdraw_offer";
    /** The offer. */
    offer: OfferId;
  }
  /** Complete an own offer with one opponent who accepted it. */
  | {
    type: "confirm_trade";
    /** The offer. */
    offer: OfferId;
    /** The accepting opponent to trade with. */
    with: Seat;
  }
  /** End the turn. */
  | {
    type: "end_turn";
  }
  /** System only: an offer reached the room's trade timeout. */
  | {
    type: "expire_offer";
    /** The offer. */
    offer: OfferId;
  }
  /**
   * System only: the phase's timer ran out. The engine resolves whatever is
   * pending with a default chosen from the game's RNG: a random legal setup
   * placement, the roll, random discards, a random robber move and victim, or
   * the end of the turn.
   */
  | {
    type: "time_out";
  };

/**
 * A request to change the game. `Game::apply` accepts it or says why not.
 *
 * On the wire an action is an object tagged by `type`, e.g.
 * `{"type": "build_road", "edge": 12}`.
 */
export type ActionInput =
  /** Place a settlement: free during setup, paid afterwards. */
  | {
    type: "build_settlement";
    /** Where. */
    vertex: VertexId;
  }
  /** Place a road: free during setup and Road Building, paid otherwise. */
  | {
    type: "build_road";
    /** Where. */
    edge: EdgeId;
  }
  /** Replace an own settlement with a city. */
  | {
    type: "build_city";
    /** Where. */
    vertex: VertexId;
  }
  /** Roll the dice. */
  | {
    type: "roll_dice";
  }
  /** Return half of a hand over 7 cards after a 7. */
  | {
    type: "discard";
    /** Exactly the cards to return. */
    cards: Resources;
  }
  /** Move the robber and, if anyone is eligible, name the victim. */
  | {
    type: "move_robber";
    /** The new tile; must differ from the current one. */
    tile: TileId;
    /** Whom to rob: required when an eligible opponent exists, else absent. */
    victim?: Seat | null;
  }
  /** Buy the top development card. */
  | {
    type: "buy_dev_card";
  }
  /** Play a Knight. */
  | {
    type: "play_knight";
  }
  /** Play Road Building; the roads follow as `build_road` actions. */
  | {
    type: "play_road_building";
  }
  /**
   * Play Year of Plenty: `take` holds two cards, or fewer only when the
   * bank has fewer than two in total.
   */
  | {
    type: "play_year_of_plenty";
    /** The cards to take from the bank. */
    take: Resources;
  }
  /** Play Monopoly on a resource. */
  | {
    type: "play_monopoly";
    /** The resource every opponent hands over. */
    resource: Resource;
  }
  /** Trade with the bank at the best ratio the player has: 4:1, 3:1 or 2:1. */
  | {
    type: "maritime_trade";
    /** The resource given (4, 3 or 2 of it). */
    give: Resource;
    /** The one card received. */
    get: Resource;
  }
  /** Offer a trade to one opponent or, with `to` absent, to all of them. */
  | {
    type: "offer_trade";
    /** What the offering player gives. */
    give: Resources;
    /** What the offering player wants in return. */
    get: Resources;
    /** The recipient, or `None` for all opponents. */
    to?: Seat | null;
  }
  /**
   * Accept an offer made to this seat. For a counter-offer, the current player's
   * acceptance completes the trade at once.
   */
  | {
    type: "accept_offer";
    /** The offer. */
    offer: OfferId;
  }
  /** Decline an offer made to this seat. */
  | {
    type: "reject_offer";
    /** The offer. */
    offer: OfferId;
  }
  /** Answer an offer with a new one from this seat back to the current player. */
  | {
    type: "counter_offer";
    /** The offer being answered. */
    offer: OfferId;
    /** What the countering player gives. */
    give: Resources;
    /** What the countering player wants. */
    get: Resources;
  }
  /** Take back an own offer. */
  | {
    type: "withdraw_offer";
    /** The offer. */
    offer: OfferId;
  }
  /** Complete an own offer with one opponent who accepted it. */
  | {
    type: "confirm_trade";
    /** The offer. */
    offer: OfferId;
    /** The accepting opponent to trade with. */
    with: Seat;
  }
  /** End the turn. */
  | {
    type: "end_turn";
  }
  /** System only: an offer reached the room's trade timeout. */
  | {
    type: "expire_offer";
    /** The offer. */
    offer: OfferId;
  }
  /**
   * System only: the phase's timer ran out. The engine resolves whatever is
   * pending with a default chosen from the game's RNG: a random legal setup
   * placement, the roll, random discards, a random robber move and victim, or
   * the end of the turn.
   */
  | {
    type: "time_out";
  };

/** `POST /api/rooms/{id}/bots` body. */
export interface AddBotRequest {
  /** The bot kind (default `medium`). */
  kind?: BotKind;
  /** A particular seat; default: the first free one. */
  seat?: Seat | null;
}

/** `POST /api/rooms/{id}/bots` answer. */
export interface AddBotResponse {
  /** The seat the bot took. */
  seat: Seat;
}

/**
 * One delivery of one notice on one channel, as administrators see it: no
 * secret, no full URL, no full address.
 */
export interface AdminNotice {
  /** The delivery's id. */
  id: string;
  /** Whose notice. */
  player_id: string;
  /** The notice's kind. */
  kind: NoticeKind;
  /** The room it is about. */
  room_id: string;
  /** The channel's kind: `web_push`, `email` or `webhook`. */
  channel: string;
  /** Where it went, masked (`a***@example.com`, `https://host/…`). */
  target: string;
  /** `pending`, `sent`, `failed` or `dropped`. */
  status: string;
  /** Attempts made. */
  attempts: number;
  /** When it was queued, Unix ms. */
  created_at: number;
  /** When the next attempt is due (pending), Unix ms. */
  next_at: number;
  /** The code of the last failure (`network`, `webhook_status`, ...). */
  last_error?: string | null;
  /** When it was delivered, Unix ms. */
  sent_at?: number | null;
}

/** `GET /admin/notifications`: the latest deliveries, newest first. */
export interface AdminNoticeList {
  /** The deliveries. */
  notices: AdminNotice[];
}

/**
 * A player as an administrator sees them (never a password, its hash or a
 * session token).
 */
export interface AdminPlayer {
  /** The player's id. */
  id: string;
  /** Display name ("deleted player" once deleted). */
  name: string;
  /** Whether the player claimed an account (a guest otherwise). */
  account: boolean;
  /** Whether the player deleted itself. */
  deleted: boolean;
  /** When the player was created (Unix ms). */
  created_at: number;
  /** The ban in force, if any. */
  banned: Sanction | null;
  /** The mute in force, if any. */
  muted: Sanction | null;
}

/**
 * `GET /admin/players/{id}` answer: the player, their sessions (ids and labels,
 * never tokens), their profile (rating, record, recent games) and their
 * moderation record.
 */
export interface AdminPlayerDetail {
  /** The player. */
  player: AdminPlayer;
  /** The profile anyone may see, with the newest 20 games. */
  profile: PlayerProfile;
  /** Unexpired sessions, newest first (`current` is always false here). */
  sessions: SessionInfo[];
  /** Every moderation action taken on the player, newest first. */
  moderation: ModerationEntry[];
}

/** `GET /admin/players` answer: a page of players, newest first. */
export interface AdminPlayerList {
  /** The page. */
  players: AdminPlayer[];
  /** Players skipped before the page. */
  offset: number;
  /** All the players the query matches. */
  total: number;
}

/** `GET /admin/rooms/{id}` answer: the room with its unredacted engine state. */
export interface AdminRoomDetail {
  /** The room as listed. */
  room: AdminRoomSummary;
  /** The published seed commitment, once started. */
  seed_commitment: string | null;
  /** The engine's complete `Game`, as the engine serializes it, once started. */
  game: Game | null;
  /** Open trade offers. */
  offers: TradeOffer[];
  /** Deadline of the current phase (Unix ms), when a timer runs. */
  deadline: number | null;
  /** Expiry of each open trade offer (Unix ms). */
  offer_deadlines: OfferDeadline[];
  /** The result, once the game is over. */
  game_over: GameOverInfo | null;
  /**
   * The last broadcasts (at most `?events=`, default 50), oldest first, with
   * game events unredacted.
   */
  events: ServerMessage[];
  /**
   * With `?view=N`: the engine's view of the game for seat `N`
   * (`Game::view`), what that seat's client should show; left out otherwise.
   */
  view?: GameView | null;
}

/** `GET /admin/rooms` answer. */
export interface AdminRoomList {
  /** Every room the server holds, listed or not, newest first. */
  rooms: AdminRoomSummary[];
}

/** One room as an administrator sees it in the list. */
export interface AdminRoomSummary {
  /** The room's id. */
  id: string;
  /** `lobby`, `playing` or `finished`. */
  status: RoomStatus;
  /** The game's current step, once started. */
  phase: Phase | null;
  /** The room's options (whether it is listed among them). */
  options: RoomOptions;
  /**
   * Each seat: who sits there (name; `bot` for a built-in bot) and whether a
   * client is connected.
   */
  seats: SeatInfo[];
  /** Spectator connections. */
  spectators: number;
  /** Creation time, Unix ms. */
  created_at: number;
  /**
   * When the room last served a request other than a read (a seat taken, a
   * connection, an action, a chat line...), Unix ms.
   */
  last_activity: number;
  /** The room's last broadcast sequence number. */
  seq: number;
  /** Actions in the game's log. */
  actions: number;
}

/**
 * `GET /api/board` answer: every tile, intersection and path in id order, and the
 * coast. It never changes.
 */
export interface BoardGeometry {
  /** The 19 tiles, in id order. */
  tiles: TileGeometry[];
  /** The 54 intersections, in id order. */
  vertices: VertexGeometry[];
  /** The 72 paths, in id order. */
  edges: EdgeGeometry[];
  /** The 30 coastal paths, clockwise from intersection 0. */
  coast: EdgeId[];
  /**
   * The 9 harbor paths, in coast order (which harbor is where is per game:
   * `view.map.harbors`).
   */
  harbor_edges: EdgeId[];
}

/** Kinds of built-in bot, by the names the lobby API and command lines use. */
export type BotKind =
  /**
   * The easy level: plays the medium bot's plans without bank trades or
   * development cards, and makes no player offers.
   */
  | "easy"
  /**
   * The medium level (the lobby's default): plays to win from its own view and
   * trades with players by its own evaluation (`catan_bots::HeuristicBot`).
   * Rooms and games stored under the earlier name `heuristic` read as this.
   */
  | "medium"
  /**
   * The hard level: searches over the hidden information its view leaves open
   * (`catan_bots::SearchBot`).
   */
  | "hard"
  /** Uniform among its legal actions, for tests and load: not a level for players. */
  | "random";

/** A building on the board. */
export interface BuildingView {
  /** Where. */
  vertex: VertexId;
  /** Owner. */
  seat: Seat;
  /** A city (else a settlement). */
  city: boolean;
}

/**
 * `POST /api/me/claim` body: the name the account takes (unique among accounts,
 * case and look-alike forms aside) and its password.
 */
export interface ClaimRequest {
  /** The account's display name (the rules of `text::clean_account_name`). */
  name: string;
  /** 8 to 128 characters. */
  password: string;
}

/** A message from a client. */
export type ClientMessage =
  /** Apply a game action from the client's seat. */
  | {
    type: "action";
    /** Chosen by the client; echoed in the acknowledgement or rejection. */
    request_id: string;
    /** The engine action. */
    action: ActionInput;
    /**
     * The `seq` of the last message the client saw when it chose the action.
     * If the game has moved on since and the action no longer applies, it is
     * refused as `stale_action` (with the current `seq`) instead of with the
     * engine's code; an action that still applies is taken. Optional.
     */
    expect_seq?: number | null;
    /**
     * For `offer_trade`: seconds after which the offer expires, when sooner than
     * the room's own expiry (`trade_timeout_secs`; in a game over days, the
     * end of the turn, protocol 27.2). At least 1 (0 counts as 1); ignored for
     * any other action. Optional.
     */
    offer_expires_secs?: number | null;
  }
  /** Say something to everyone in the room. */
  | {
    type: "chat";
    /** At most `MAX_CHAT_CHARS` characters. */
    text: string;
  }
  /** Liveness check; answered with `pong`. */
  | {
    type: "ping";
    /** Echoed back. */
    request_id?: string | null;
  }
  /**
   * Ask for a fresh `snapshot` (to this connection only), e.g. to decide from the
   * whole current view instead of rebuilding it from events.
   */
  | {
    type: "sync";
  }
  /**
   * Ask for what this connection's seat may see of the room's history (to this
   * connection only): the events of every action from the game's start, redacted
   * for the seat, and the chat the room keeps; answered with `history`.
   */
  | {
    type: "history";
  };

/** `POST /admin/rooms/{id}/close` body (optional). */
export interface CloseRoomRequest {
  /**
   * Sent to every client in the `closing` message; a default says an
   * administrator closed the room.
   */
  message?: string | null;
}

/** `POST /admin/rooms/{id}/close` answer. */
export interface CloseRoomResponse {
  /** The room closed. */
  room_id: string;
  /** Its status when it was closed. */
  status: RoomStatus;
  /** Connections (clients, spectators and bots) that were closed. */
  connections_closed: number;
  /**
   * Whether an unfinished game was marked abandoned in the store, so that it is
   * not restored after a restart (false for rooms without a game in progress,
   * and if the store could not be reached).
   */
  game_abandoned: boolean;
}

/**
 * `POST /api/rooms`: the new room's options; every field may be left out (or be
 * `null`), and then takes the server's default.
 */
export interface CreateRoomRequest {
  /**
   * A game over days (protocol 27): hours per move and any field to differ
   * from that move's preset. Absent: a live game.
   */
  days?: DaysRequest | null;
  /** Seconds to discard after a 7; 0 turns it off. Default: the server's. */
  discard_timeout_secs?: number | null;
  /** Shown in the public room list (default true). */
  listed?: boolean | null;
  /** `random` (default) or `beginner`. */
  map?: MapKind | null;
  /** 3 or 4 (default 4). */
  players?: number | null;
  /** A rated game (default false; protocol 25.8). */
  rated?: boolean | null;
  /** Spectators may watch (default true). */
  spectators?: boolean | null;
  /** The kind of bot that stands in (default `medium`). */
  stand_in_level?: BotKind | null;
  /**
   * Seconds a person may be away while a decision is theirs before a bot stands
   * in for them; 0 = never. Default 60.
   */
  stand_in_secs?: number | null;
  /** Seconds before a trade offer expires (at least 1). Default: the server's. */
  trade_timeout_secs?: number | null;
  /**
   * Turns after which the game ends with no winner, 100..=5000
   * (default 1000).
   */
  turn_limit?: number | null;
  /** Seconds per phase; 0 turns the turn timer off. Default: the server's. */
  turn_timer_secs?: number | null;
  /** 3..=20 (default 10). */
  vp_target?: number | null;
}

/** `POST /api/rooms` answer. */
export interface CreateRoomResponse {
  /** The room's id. */
  room_id: string;
  /** Secret for host-only calls (add bot, start); send as `Authorization: Bearer`. */
  host_token: string;
  /** The room. */
  room: RoomInfo;
}

/**
 * The clock of a game over days. A *move* is a decision a seat owes: its turn
 * (from the moment it becomes the seat's turn, set-up placements included, until
 * the turn passes) or its discard after a 7. Answers to trade offers are
 * no move: an offer stays open until its turn ends or its author closes it.
 */
export interface DaysOptions {
  /** Hours for each turn before the time bank is drawn on. */
  move_hours: number;
  /** Hours to discard after a 7 (no time bank). */
  discard_hours: number;
  /** Hours of time bank each seat starts with. */
  bank_hours: number;
  /** Minutes added to a seat's bank after each of its turns. */
  bank_add_mins: number;
  /** The most a bank may hold, in hours. */
  bank_cap_hours: number;
  /** Whole days each seat may draw, once its bank is empty, before it times out. */
  vacation_days: number;
}

/**
 * `days` in `POST /api/rooms`: the hours per move, and any field to differ from
 * that move's preset (`DaysOptions::preset`).
 */
export interface DaysRequest {
  /** Hours per move; the presets are 1, 12, 24 and 72. */
  move_hours: number;
  /** Default: a quarter of a move, in minutes. */
  bank_add_mins?: number | null;
  /** Default: three moves. */
  bank_cap_hours?: number | null;
  /** Default: two moves. */
  bank_hours?: number | null;
  /** Default: the move's, at most 12. */
  discard_hours?: number | null;
  /** Default: 7. */
  vacation_days?: number | null;
}

/** A non-negative integer as a decimal string: it may exceed 2^53, which not every JSON reader keeps exact. */
export type Decimal = string;

/** A development card kind. */
export type DevCard =
  /** Move the robber and steal; counts toward Largest Army once played. */
  | "knight"
  /** Place two free roads. */
  | "road_building"
  /** Take two resources from the bank. */
  | "year_of_plenty"
  /** Take all cards of one resource from every opponent. */
  | "monopoly"
  /** One hidden victory point; never played. */
  | "victory_point";

/**
 * Development cards by kind: one field per kind, a count of 0 left out; an unknown
 * kind is refused.
 */
export interface DevCards {
  /** Knights. */
  knight?: number;
  /** Monopoly cards. */
  monopoly?: number;
  /** Road Building cards. */
  road_building?: number;
  /** Victory Point cards. */
  victory_point?: number;
  /** Year of Plenty cards. */
  year_of_plenty?: number;
}

/** One path. */
export interface EdgeGeometry {
  /** The path's id. */
  id: EdgeId;
  /** One end (the lower id). */
  a: VertexId;
  /** The other end. */
  b: VertexId;
}

/** A path between two intersections, `0..72`, ordered by its end points. */
export type EdgeId = number;

/** Every HTTP error body: `{"error": {"code": ..., "message": ...}}`. */
export interface ErrorBody {
  /** The error. */
  error: ErrorDetail;
}

/** A machine code and a human message. */
export interface ErrorDetail {
  /** Stable machine-readable code. */
  code: string;
  /** Human-readable explanation. */
  message: string;
}

/**
 * Something that happened. Fields holding hidden information are `Option`s that
 * `Event::redact_for` blanks for seats that must not see them.
 */
export type Event =
  /** A new turn began. */
  | {
    type: "turn_started";
    /** Whose turn. */
    seat: Seat;
    /** Turn number, from 1 for the first normal turn. */
    turn: number;
  }
  /** The phase changed; clients follow the game from these. */
  | {
    type: "phase_changed";
    /** The new phase. */
    phase: Phase;
  }
  /** A settlement was placed. */
  | {
    type: "settlement_built";
    /** Owner. */
    seat: Seat;
    /** Where. */
    vertex: VertexId;
  }
  /** A road was placed. */
  | {
    type: "road_built";
    /** Owner. */
    seat: Seat;
    /** Where. */
    edge: EdgeId;
  }
  /** A settlement became a city. */
  | {
    type: "city_built";
    /** Owner. */
    seat: Seat;
    /** Where. */
    vertex: VertexId;
  }
  /** Cards paid to the bank for a build or purchase. */
  | {
    type: "paid";
    /** Who paid. */
    seat: Seat;
    /** What. */
    cards: Resources;
  }
  /** Resources from the second setup settlement. */
  | {
    type: "starting_resources";
    /** Who. */
    seat: Seat;
    /** What. */
    cards: Resources;
  }
  /** The dice were rolled. */
  | {
    type: "dice_rolled";
    /** Who rolled. */
    seat: Seat;
    /** The two dice. */
    dice: [number, number];
  }
  /** A seat collected from a roll. */
  | {
    type: "produced";
    /** Who. */
    seat: Seat;
    /** What. */
    cards: Resources;
  }
  /** Nobody collected this resource: the bank was short and several were owed. */
  | {
    type: "shortage";
    /** The resource withheld. */
    resource: Resource;
  }
  /** A seat returned cards after a 7; discards are public. */
  | {
    type: "discarded";
    /** Who. */
    seat: Seat;
    /** What. */
    cards: Resources;
  }
  /** The robber moved. */
  | {
    type: "robber_moved";
    /** Who moved it. */
    seat: Seat;
    /** Where to. */
    tile: TileId;
  }
  /** A card was stolen. The card is visible to thief and victim only. */
  | {
    type: "stolen";
    /** Who stole. */
    thief: Seat;
    /** From whom. */
    victim: Seat;
    /** The card; `None` for everyone else. */
    resource: Resource | null;
  }
  /** A development card was bought. The card is visible to the buyer only. */
  | {
    type: "dev_card_bought";
    /** Who. */
    seat: Seat;
    /** Which card; `None` for everyone else. */
    card: DevCard | null;
  }
  /** A development card was played. */
  | {
    type: "dev_card_played";
    /** Who. */
    seat: Seat;
    /** Which. */
    card: DevCard;
  }
  /** Year of Plenty paid out. */
  | {
    type: "year_of_plenty";
    /** Who. */
    seat: Seat;
    /** What was taken from the bank. */
    cards: Resources;
  }
  /** Monopoly collected. */
  | {
    type: "monopoly";
    /** Who played it. */
    seat: Seat;
    /** The named resource. */
    resource: Resource;
    /** How many each seat handed over. */
    taken: [number, number, number, number];
  }
  /** A trade with the bank. */
  | {
    type: "maritime_traded";
    /** Who. */
    seat: Seat;
    /** Cards given to the bank. */
    gave: Resources;
    /** Cards received. */
    got: Resources;
  }
  /** A player trade offer was made. Offers are public. */
  | {
    type: "offer_made";
    /** The offer. */
    offer: TradeOffer;
  }
  /** A recipient accepted an offer. */
  | {
    type: "offer_accepted";
    /** The offer. */
    offer: OfferId;
    /** Who accepted. */
    seat: Seat;
  }
  /** A recipient rejected an offer. */
  | {
    type: "offer_rejected";
    /** The offer. */
    offer: OfferId;
    /** Who rejected. */
    seat: Seat;
  }
  /** An offer closed. */
  | {
    type: "offer_closed";
    /** The offer. */
    offer: OfferId;
    /** Why. */
    reason: OfferClosed;
  }
  /** A player trade was completed. */
  | {
    type: "trade_completed";
    /** The offer. */
    offer: OfferId;
    /** The offer's sender. */
    from: Seat;
    /** The other party. */
    to: Seat;
    /** Cards `from` gave to `to`. */
    gave: Resources;
    /** Cards `from` received from `to`. */
    got: Resources;
  }
  /** The Longest Road card changed hands. */
  | {
    type: "longest_road";
    /** The new holder, if any. */
    holder: Seat | null;
    /** The holder's route length (0 when nobody holds it). */
    length: number;
  }
  /** The Largest Army card changed hands. */
  | {
    type: "largest_army";
    /** The new holder, if any. */
    holder: Seat | null;
    /** The holder's played knights (0 when nobody holds it). */
    knights: number;
  }
  /** The system resolved a step whose timer ran out; the resulting events follow. */
  | {
    type: "timed_out";
    /** Whose step it was. */
    seat: Seat;
  }
  /** The game is over. */
  | {
    type: "game_won";
    /** The winner. */
    seat: Seat;
    /** The winner's total, hidden VP cards included. */
    points: number;
  }
  /**
   * The last allowed turn ended without a winner: the game is over with no winner
   * . The phase becomes `over` with no winner next; no turn follows.
   */
  | {
    type: "turn_limit_reached";
    /** The turn that was the last (the game's turn limit). */
    turn: number;
  };

/** A seat's final result, with VP cards revealed (end of game). */
export interface FinalScore {
  /** The seat. */
  seat: Seat;
  /** Total victory points, VP cards included. */
  points: number;
  /** Victory Point cards held, now revealed. */
  vp_cards: number;
}

/** Resource cards a seat received, by source (card counts over the whole game). */
export interface Gained {
  /** From the second setup settlement. */
  setup: number;
  /** From rolls. */
  production: number;
  /** From other players in trades. */
  trades: number;
  /** From the bank in maritime trades. */
  maritime: number;
  /** Stolen with the robber. */
  stolen: number;
  /** Taken with Year of Plenty. */
  year_of_plenty: number;
  /** Collected with Monopoly. */
  monopoly: number;
}

/** A game, written as its position. */
export type Game = Position;

/** `GET /api/games` answer. */
export interface GameList {
  /** Finished games, newest first. */
  games: GameSummary[];
  /** The page returned (from 1). */
  page: number;
  /** Games per page. */
  per_page: number;
}

/**
 * Options that change the rules of one game. Unvalidated: a `Game` can only be
 * created from options that pass `GameOptions::validate`.
 */
export interface GameOptions {
  /** Number of seats, 3 or 4 (default 4). */
  players: number;
  /** Victory points needed to win, 3..=20 (R-1.1; default 10). */
  vp_target: number;
  /** Random or beginner map (R-2.4; default random). */
  map: MapKind;
  /**
   * Turns after which the game ends with no winner if nobody has won, each
   * player's turn counting one (R-10.5; `TURN_LIMIT_MIN`..=`TURN_LIMIT_MAX`,
   * default `DEFAULT_TURN_LIMIT`). Options written before the limit existed
   * read with the default.
   */
  turn_limit: number;
}

/** The end of a game. */
export interface GameOverInfo {
  /** Room-wide sequence number. */
  seq: number;
  /**
   * The winner; `None` (`null`) when the last allowed turn ended without one
   * (R-10.5).
   */
  winner: Seat | null;
  /** Every seat's total, VP cards revealed. */
  scores: FinalScore[];
  /** The game's seed, revealed only now, as a decimal string (it exceeds 2^53). */
  seed: string;
  /** The salt of the seed commitment, revealed with the seed. */
  seed_salt: string;
  /** Points by source, dice rolled, resources gained and lost, per seat. */
  stats: GameStats;
}

/** The statistics of a finished game. */
export interface GameStats {
  /** Per seat, in seat order: points by source. */
  points: PointsBySource[];
  /**
   * How often each total was rolled: index 0 is a total of 2, index 10 a 12
   * 11 numbers.
   */
  dice: number[];
  /** Per seat, in seat order: resource cards gained and lost. */
  resources: ResourceFlow[];
}

/** Where a stored game stands. */
export type GameStatus =
  /** Being played (or waiting to be restored after a restart). */
  | "playing"
  /** Over, with a result. */
  | "finished"
  /** Closed by an administrator before it ended; its log is kept. */
  | "abandoned";

/** A stored game as listed (`GET /api/games`, `GET /api/games/{id}`). */
export interface GameSummary {
  /** The game's (and its room's) id. */
  id: string;
  /** `playing`, `finished` or `abandoned` (closed by an administrator mid-game). */
  status: GameStatus;
  /** The room's options. */
  options: RoomOptions;
  /** Start time, Unix ms. */
  started_at: number;
  /** End time, Unix ms. */
  finished_at: number | null;
  /**
   * The winner; `None` while playing, and for a game the turn limit ended with no
   * winner.
   */
  winner: Seat | null;
  /** Seats with names and results. */
  players: PlayerResult[];
  /** The commitment published at the start. */
  seed_commitment: string;
  /** The seed, only once finished (decimal string). */
  seed: string | null;
  /** The commitment's salt, only once finished. */
  seed_salt: string | null;
}

/** A game as one seat, or a spectator, sees it. */
export interface GameView {
  /** Whose view this is; `None` for a spectator. */
  viewer: Seat | null;
  /** The game's options. */
  options: GameOptions;
  /** Terrain, numbers, harbors. */
  map: Map;
  /** The robber's tile. */
  robber: TileId;
  /** Current phase. */
  phase: Phase;
  /** Whose turn it is. */
  current: Seat;
  /** Normal turns started (0 in setup). */
  turn: number;
  /** The last dice. */
  last_roll: [number, number] | null;
  /** The bank's resource cards. */
  bank: Resources;
  /** Cards left in the development deck (the order is secret). */
  dev_deck: number;
  /** Every building. */
  buildings: BuildingView[];
  /** Every road. */
  roads: RoadView[];
  /** Public facts about every seat. */
  players: PlayerView[];
  /** Longest Road holder. */
  longest_road: Seat | null;
  /** Largest Army holder. */
  largest_army: Seat | null;
  /** Whether the current player already played a development card this turn. */
  dev_card_played: boolean;
  /** Open trade offers. */
  offers: TradeOffer[];
  /** The viewer's private facts; `None` for spectators. */
  me: PrivateView | null;
  /**
   * The winner, once the game is over; `None` also when the turn limit ended it
   * with no winner: the phase says whether it is over.
   */
  winner: Seat | null;
}

/** `POST /api/guests` body. */
export interface GuestRequest {
  /**
   * Display name, 1 to `MAX_NAME_CHARS` characters (the rules of
   * `text::clean_name`).
   */
  name: string;
}

/** A harbor on a coastal path. */
export interface Harbor {
  /** The coastal path; both of its intersections use the harbor. */
  edge: EdgeId;
  /** `None` for a generic 3:1 harbor, `Some(r)` for a 2:1 harbor of `r`. */
  resource: Resource | null;
}

/**
 * The answer to `history` (protocol.md 5.2.12): the visible past of the room, current
 * as of `seq`. Game events are redacted for the asking seat exactly as they were
 * broadcast to it (a spectator's view for spectators); chat is the room's last 32
 * lines.
 */
export interface History {
  /**
   * Sequence number of the last message included: every numbered message up to it
   * is covered, later ones arrive as usual.
   */
  seq: number;
  /**
   * The events of every action of the game so far, in order, one entry per
   * `events` broadcast (empty before the start).
   */
  actions: HistoryActions[];
  /** The room's last 32 chat lines, in order. */
  chat: HistoryChat[];
}

/** The events of one action in a `History`, as its `events` broadcast carried them. */
export interface HistoryActions {
  /** The room-wide sequence number of the broadcast. */
  seq: number;
  /** What happened, redacted for the asking seat. */
  events: Event[];
}

/** One chat line in a `History`, as its `chat` broadcast carried it. */
export interface HistoryChat {
  /** Room-wide sequence number. */
  seq: number;
  /** The speaker's display name. */
  name: string;
  /** The text. */
  text: string;
  /** The speaker's seat; absent for spectators. */
  seat?: Seat | null;
}

/** `POST /admin/rooms/{id}/seats/{seat}/kick` body (optional). */
export interface KickRequest {
  /**
   * Sent to the client in the `closing` message; a default says an
   * administrator disconnected it.
   */
  message?: string | null;
}

/**
 * `GET /api/leaderboard` answer: a page of the players with a rated game, best
 * first.
 */
export interface Leaderboard {
  /** The page. */
  entries: LeaderboardEntry[];
  /** Entries skipped before the page. */
  offset: number;
  /** All the entries the query matches. */
  total: number;
}

/** One row of the leaderboard. */
export interface LeaderboardEntry {
  /** The place on the board (1 is first; players with equal ratings share it). */
  rank: number;
  /** The player's id. */
  id: string;
  /** Display name. */
  name: string;
  /** The rating. */
  rating: RatingInfo;
  /** Rated games won. */
  wins: number;
}

/** Resource cards a seat gave up, by cause (card counts over the whole game). */
export interface Lost {
  /** Paid for roads, settlements, cities and development cards. */
  spent: number;
  /** Returned after a 7. */
  discarded: number;
  /** Stolen by the robber's mover. */
  stolen: number;
  /** Handed over to another seat's Monopoly. */
  monopoly: number;
  /** Given to other players in trades. */
  trades: number;
  /** Given to the bank in maritime trades. */
  maritime: number;
}

/** Terrain, numbers and harbors of one game. Fixed once the game starts. */
export interface Map {
  /** Terrain of each tile, by `TileId`. */
  terrain: Terrain[];
  /** Number token of each tile; 0 for the desert. */
  numbers: number[];
  /** The 9 harbors; `harbors[i]` lies on `topology().harbor_edges[i]`. */
  harbors: Harbor[];
}

/** Which map a game is played on. */
export type MapKind =
  /** Terrain, numbers and harbors shuffled from the seed, no adjacent 6/8. */
  | "random"
  /** The fixed layout suggested for first games. */
  | "beginner";

/** What an administrator may do to a player (protocol 22.9). */
export type ModerationAction =
  /**
   * Sessions end, connected seats are disconnected and may not reconnect,
   * signing in is refused (`banned`).
   */
  | "ban"
  /** The ban is lifted. */
  | "unban"
  /** Chat from the player's seats is refused (`muted`). */
  | "mute"
  /** The mute is lifted. */
  | "unmute";

/** One entry of a player's moderation record (the audit log), newest first. */
export interface ModerationEntry {
  /** What was done. */
  action: ModerationAction;
  /** The reason given. */
  reason: string;
  /** For a ban or mute: until when (Unix ms); `null` until lifted. */
  until: number | null;
  /** Who took it: the name the administrator gave (`by`), or `admin`. */
  by: string;
  /** When (Unix ms). */
  at: number;
}

/** `POST /admin/players/{id}/{ban,unban,mute,unmute}` body. */
export interface ModerationRequest {
  /** Why, for the record: 1 to 500 characters. */
  reason: string;
  /**
   * Who takes it, for the record (1 to 32 characters; the admin API has one
   * token, so administrators name themselves); left out: `admin`.
   */
  by?: string | null;
  /**
   * For a ban or a mute: how many hours it lasts (1 to 87,600); left out, it
   * lasts until lifted. Not taken by unban and unmute.
   */
  hours?: number | null;
}

/** One game of `MyGames`. */
export interface MyGame {
  /**
   * The room (open it with the seat's token the player was given, or take the
   * seat again from the room's page).
   */
  room_id: string;
  /** `lobby` (gathering players) or `playing`. */
  status: RoomStatus;
  /** The player's seat. */
  seat: Seat;
  /** The display names at the table, in seat order (`null` for an empty seat). */
  names: (string | null)[];
  /** The room's options (`days` for a game over days). */
  options: RoomOptions;
  /** Whether a move is the player's now (known for a game over days). */
  your_move: boolean;
  /** The seats whose move it is (a game over days; empty otherwise). */
  to_move: Seat[];
  /** The player's own clock, in a game over days. */
  clock?: SeatClock | null;
  /** When the game started (Unix ms); absent while gathering. */
  started_at?: number | null;
}

/**
 * `GET /api/me/games`: every game the signed-in player has a seat in and that is
 * not over (protocol 27.4).
 */
export interface MyGames {
  /**
   * Games where a move is the player's first (the soonest deadline first), then
   * the other started games (latest started first), then rooms still gathering
   * players.
   */
  games: MyGame[];
}

/** Why a player is tapped on the shoulder. */
export type NoticeKind =
  /** A move is the player's (a game over days). */
  | "your_turn"
  /** Another player offered the player a trade. */
  | "offer_to_you"
  /** The player's move runs out soon. */
  | "time_low";

/** The language a channel's notices are written in (BCP 47 tags). */
export type NoticeLang =
  /** English. */
  | "en"
  /** Chinese in simplified characters. */
  | "zh-Hans"
  /** Chinese in traditional characters. */
  | "zh-Hant";

/** A channel of the signed-in player, as they see it. */
export interface NotifyChannelInfo {
  /** The channel's id (to delete it). */
  id: string;
  /** `web_push`, `email` or `webhook`. */
  kind: string;
  /**
   * Where it goes, shown without its secrets: the address of an email, the
   * scheme and host of a URL.
   */
  target: string;
  /** The language of its notices. */
  lang: NoticeLang;
  /** The notices it wants. */
  notices: NoticeKind[];
  /** When it was added, Unix ms. */
  created_at: number;
  /** A webhook's format. */
  format?: WebhookFormat | null;
}

/** `GET /api/me/notifications`. */
export interface NotifyChannelList {
  /** The player's channels, oldest first. */
  channels: NotifyChannelInfo[];
}

/** `POST /api/me/notifications`: a channel to add. */
export type NotifyChannelRequest = ({
  /** The language of its notices (`en` when left out). */
  lang?: NoticeLang;
  /** The notices it wants (every kind when left out). */
  notices?: NoticeKind[] | null;
}) & (
  /** A browser's push subscription (`PushSubscription.toJSON()`'s fields). */
  | {
    kind: "web_push";
    /** The push service's URL for this subscription. */
    endpoint: string;
    /** The browser's P-256 public key, base64url. */
    p256dh: string;
    /** The browser's 16-byte auth secret, base64url. */
    auth: string;
  }
  /** An email address (through the operator's SMTP server). */
  | {
    kind: "email";
    /** The address. */
    to: string;
  }
  /** An HTTP POST to a URL. */
  | {
    kind: "webhook";
    /** Where to POST (`http` or `https`). */
    url: string;
    /** The body the receiver expects. */
    format: WebhookFormat;
    /**
     * The signing secret, if the receiver checks signatures (DingTalk's and
     * Feishu's signing secrets too).
     */
    secret?: string | null;
  });

/** Who sits on a seat. */
export interface Occupant {
  /** Display name. */
  name: string;
  /** The bot kind, for a built-in bot. */
  bot?: BotKind | null;
}

/** Why an offer closed. */
export type OfferClosed =
  /** The trade was completed. */
  | "completed"
  /** Its sender took it back. */
  | "withdrawn"
  /** Every recipient rejected it. */
  | "rejected"
  /** It reached the room's trade timeout. */
  | "expired"
  /** The turn ended. */
  | "turn_ended"
  /** The game ended while the offer was open. */
  | "game_over";

/** When a trade offer expires. */
export interface OfferDeadline {
  /** The offer. */
  offer: OfferId;
  /** Expiry time, Unix ms. */
  deadline: number;
}

/** Identifies an offer within a game; never reused. */
export type OfferId = number;

/** A party of the queue (`/api/queue/party`; protocol 26.3): friends seated together. */
export interface PartyInfo {
  /** The code the leader shares (`POST /api/queue/party/{code}` joins). */
  code: string;
  /** The player who queues the party. */
  leader: string;
  /** Its members, the leader first (at most three). */
  members: PartyMember[];
}

/** A member of a party (protocol 26.3). */
export interface PartyMember {
  /** The player's id. */
  id: string;
  /** Their name. */
  name: string;
}

/**
 * The answer that starts a passkey ceremony (protocol 25.10): registering one
 * (`POST /api/me/passkeys/start`) or signing in with one
 * (`POST /api/sessions/passkey/start`).
 */
export interface PasskeyChallenge {
  /** The ceremony's id, sent back with its finish (valid for 5 minutes, once). */
  ceremony: string;
  /**
   * The options for the browser's WebAuthn call, as WebAuthn's JSON forms:
   * `{"publicKey": PublicKeyCredentialCreationOptionsJSON}` to register (for
   * `navigator.credentials.create`), `{"publicKey":
   * PublicKeyCredentialRequestOptionsJSON}` to sign in (`navigator.credentials.get`);
   * binary fields are base64url strings.
   */
  options: unknown;
}

/** A passkey of the player (`GET /api/me/passkeys`). */
export interface PasskeyInfo {
  /** The passkey's id (its WebAuthn credential id, base64url). */
  id: string;
  /** What the player called it. */
  label: string;
  /** When it was registered (Unix milliseconds). */
  created_at: number;
  /** When it last signed in (Unix milliseconds); `null` before its first use. */
  last_used_at: number | null;
}

/** `GET /api/me/passkeys` answer, oldest first. */
export interface PasskeyList {
  /** The player's passkeys. */
  passkeys: PasskeyInfo[];
}

/** `POST /api/me/passkeys/finish` body: the new credential. */
export interface PasskeyRegistrationRequest {
  /** The ceremony's id, from its start. */
  ceremony: string;
  /**
   * The authenticator's answer: `PublicKeyCredential.toJSON()` of the credential
   * `navigator.credentials.create` made (a `RegistrationResponseJSON`).
   */
  credential: unknown;
  /**
   * What to call the passkey in the list (1 to 40 characters); the client's
   * `User-Agent`, shortened, when left out.
   */
  label?: string | null;
}

/** `POST /api/sessions/passkey/finish` body: the signed challenge. */
export interface PasskeySignInRequest {
  /** The ceremony's id, from its start. */
  ceremony: string;
  /**
   * The authenticator's answer: `PublicKeyCredential.toJSON()` of the assertion
   * `navigator.credentials.get` made (an `AuthenticationResponseJSON`).
   */
  credential: unknown;
}

/** The step of the game, deciding which actions are legal. */
export type Phase =
  /**
   * Initial placements: placement `index` in `0..2 * players`, snake
   * order. `settlement` is the one just placed once its road is due.
   */
  | {
    name: "setup";
    /** Which placement of the snake order. */
    index: number;
    /** The settlement placed in this placement, whose road comes next. */
    settlement: VertexId | null;
  }
  /** The current player has not rolled yet. */
  | {
    name: "pre_roll";
  }
  /** A 7 was rolled: the listed seats still owe these many cards. */
  | {
    name: "discard";
    /** Cards still owed by each seat; 0 for seats that are done. */
    pending: [number, number, number, number];
  }
  /** The current player must move the robber. */
  | {
    name: "move_robber";
    /** Where the turn continues afterwards. */
    resume: Resume;
  }
  /** Trade and build. */
  | {
    name: "main";
  }
  /** Road Building: free roads still to place. */
  | {
    name: "road_building";
    /** Roads still to place (1 or 2). */
    remaining: number;
    /** Where the turn continues afterwards. */
    resume: Resume;
  }
  /**
   * The game is over; nothing more can happen. Someone won, or the last
   * allowed turn ended without a winner.
   */
  | {
    name: "over";
    /** The winner; `None` (`null` on the wire) when the turn limit ended the game. */
    winner: Seat | null;
  };

/** A player as they see themselves (`GET /api/me`). */
export interface PlayerInfo {
  /** The player's id. */
  id: string;
  /** Display name. */
  name: string;
  /** Whether the player claimed an account (a guest otherwise). */
  account: boolean;
  /** When the player was created (Unix milliseconds). */
  created_at: number;
}

/** A player as anyone may see them (`GET /api/players/{id}`). */
export interface PlayerProfile {
  /** The player's id. */
  id: string;
  /** Display name ("deleted player" once deleted). */
  name: string;
  /** Whether the player claimed an account. */
  account: boolean;
  /** The rating. */
  rating: RatingInfo;
  /** Finished games played, rated or not. */
  games: number;
  /** Of those, the games won. */
  wins: number;
  /**
   * A page of the player's finished games in listed rooms, newest first (`offset`
   * and `limit` of the query), each as `GET /api/games/{id}` shows it.
   */
  recent: GameSummary[];
  /** The level, for a built-in bot's identity (its rating is fixed). */
  bot?: BotKind | null;
}

/** A seat of a stored game, with its result once finished. */
export interface PlayerResult {
  /** The seat. */
  seat: Seat;
  /** Display name. */
  name: string;
  /** Bot kind, for built-in bots. */
  bot: BotKind | null;
  /** Final victory points, once finished. */
  final_vp: number | null;
  /** Victory Point cards revealed at the end. */
  vp_cards: number | null;
  /**
   * The player whose seat it was (protocol 25.7): a person's player, or a bot
   * level's identity; absent for a seat taken without a player and in games
   * stored before players existed.
   */
  player_id?: string | null;
  /**
   * What a finished rated game did to the seat's rating (protocol 25.8); absent
   * otherwise.
   */
  rating?: RatingChange | null;
}

/** What everyone knows about a seat. */
export interface PlayerView {
  /** The seat. */
  seat: Seat;
  /** Number of resource cards in hand. */
  resource_cards: number;
  /** Number of unplayed development cards. */
  dev_cards: number;
  /** Knights played. */
  knights_played: number;
  /** Public victory points (no VP cards, R-1.3). */
  public_vp: number;
  /** Longest route. */
  road_length: number;
  /** Roads left in supply. */
  roads_left: number;
  /** Settlements left in supply. */
  settlements_left: number;
  /** Cities left in supply. */
  cities_left: number;
}

/** Every seat's points by where they come from: the parts sum to `total`. */
export interface PointsBySource {
  /** The seat. */
  seat: Seat;
  /** One point per settlement on the board. */
  settlements: number;
  /** Two points per city on the board. */
  cities: number;
  /** One point per Victory Point card held. */
  vp_cards: number;
  /** Two points for holding the Longest Road card, else 0. */
  longest_road: number;
  /** Two points for holding the Largest Army card, else 0. */
  largest_army: number;
  /** The total, VP cards included. */
  total: number;
}

/**
 * Everything that decides a game, unvalidated: any field may be nonsense until
 * `Game::from_position` accepts it. `Game::to_position` gives it back, and a
 * serialized `Game` is exactly this shape, with no number above 2^53 (the seed and
 * the generator's position are decimal strings).
 */
export interface Position {
  /** Players, target and map kind; must pass `GameOptions::validate`. */
  options: GameOptions;
  /**
   * The seed of the game's random generator, which draws everything not
   * scripted: dice, deck-free steals, time-outs. A decimal string in JSON (a number
   * is read too).
   */
  seed: Decimal;
  /**
   * How far the seed's generator has run, in 32-bit words: 0 for a fresh stream.
   * A decimal string in JSON (a number is read too).
   */
  rng_word_pos: Decimal;
  /** Terrain, numbers and harbors (R-2.1..R-2.3; no adjacent 6/8 on any map). */
  map: Map;
  /** The robber's tile. */
  robber: TileId;
  /** One entry per seat in play, in seat order. */
  seats: SeatPosition[];
  /** The development deck, top card (the next one bought) last. */
  dev_deck: DevCard[];
  /** The step of the game. */
  phase: Phase;
  /** Whose turn it is (during setup: who places). */
  current: Seat;
  /** Who placed first; setup follows the snake order from here. */
  first: Seat;
  /**
   * Normal turns started so far (0 during setup). The game ends with no winner
   * when turn `options.turn_limit` ends; a position past its limit (a
   * game saved before the limit existed) ends when its current turn does.
   */
  turn: number;
  /** A development card was played this turn. */
  dev_played: boolean;
  /** The last dice rolled, if any. */
  last_roll: [number, number] | null;
  /**
   * Who holds Longest Road. `None` lets the engine decide: a single longest route
   * of at least 5 takes it, tied leaders leave it unheld. Name a seat only to say
   * which of several tied leaders kept it; anyone else is refused.
   */
  longest_road: Seat | null;
  /** Who holds Largest Army, decided as `longest_road` with 3 played Knights. */
  largest_army: Seat | null;
  /** Open player-trade offers, oldest first. */
  offers: TradeOffer[];
  /** The id the next offer gets; above every open offer's. */
  next_offer: number;
  /**
   * Dice for the next rolls, next first (R-4.2, each die 1-6): rolls take these
   * before drawing from the generator, which they leave untouched.
   */
  scripted_dice?: [number, number][];
}

/** What only the viewing seat knows about itself. */
export interface PrivateView {
  /** The viewer's seat. */
  seat: Seat;
  /** Resource cards in hand. */
  hand: Resources;
  /** Unplayed development cards, VP cards included. */
  dev_cards: DevCards;
  /** The part of `dev_cards` bought this turn (not playable yet, R-8.1). */
  dev_cards_new: DevCards;
  /** Total victory points including hidden VP cards. */
  total_vp: number;
  /** Maritime ratio per resource in resource order (4, 3 or 2; ). */
  maritime_ratios: number[];
}

/** What a client sends on the queue's socket (`GET /api/queue/ws`; protocol 26.5). */
export type QueueClientMessage =
  /** Joins the queue for the table described, as `POST /api/queue`. */
  | {
    type: "join";
    /** Seats at the table: 3 or 4. */
    seats: number;
    /** Whether bots may complete the table after a wait (default yes). */
    bots?: boolean;
    /** A rated table (default not). */
    rated?: boolean;
  }
  /** Leaves the queue, as `DELETE /api/queue`. */
  | {
    type: "leave";
  };

/** `POST /api/queue` body: the table a player waits for (protocol 26.1). */
export interface QueueRequest {
  /** Seats at the table: 3 or 4. */
  seats: number;
  /** Whether bots may complete the table after a wait (default yes). */
  bots?: boolean;
  /** A rated table (default not). */
  rated?: boolean;
}

/** Where a queued player sits once their table formed. */
export interface QueueSeated {
  /** The table's room (its game starts once everyone at it is connected). */
  room_id: string;
  /** The player's seat. */
  seat: number;
  /** The seat's token, to connect (`/api/rooms/{room_id}/ws?token=`). */
  token: string;
}

/** What the server sends on the queue's socket (protocol 26.5). */
export type QueueServerMessage =
  /**
   * The player's place in the queue, or their seat once their table formed: sent
   * on connecting, after each join, and whenever anything but the time waited
   * changes.
   */
  | {
    type: "status";
  } & QueueStatus
  /**
   * The player is not in the queue: sent on connecting, after leaving, and when
   * they are dropped from a table (protocol 26.4).
   */
  | {
    type: "not_queued";
  }
  /** A message was refused; nothing changed. */
  | {
    type: "error";
    /**
     * Stable machine-readable code, as the HTTP call's (`bad_request`,
     * `already_queued`, `rate_limited`, ...).
     */
    code: string;
    /** Human-readable explanation. */
    message: string;
  };

/** A player's place in the queue (`POST` and `GET /api/queue`; protocol 26.1). */
export interface QueueStatus {
  /** Seats at the table waited for. */
  seats: number;
  /** A rated table. */
  rated: boolean;
  /** Whether bots may complete it. */
  bots: boolean;
  /** When the player joined (Unix milliseconds). */
  since: number;
  /** Milliseconds waited so far (until seated). */
  waited_ms: number;
  /**
   * The player's place among those waiting for the same table, longest waiting
   * first (1: next); `null` once seated.
   */
  position: number | null;
  /** Where the player sits once the table formed; `null` while waiting. */
  seated: QueueSeated | null;
}

/** What a rated game did to a seat's rating, as shown (protocol 25.8). */
export interface RatingChange {
  /** The seat's place in the final order (1 is first; ties share a place). */
  place: number;
  /** The rating shown before the game. */
  before: number;
  /** The rating shown after it (the same for a bot, whose rating is fixed). */
  after: number;
  /** Whether the rating after the game is still provisional. */
  provisional: boolean;
}

/**
 * A rating as shown (protocol 25.8): the conservative figure, whether it is still
 * provisional, and the rated games behind it.
 */
export interface RatingInfo {
  /** The rating shown (a new player's is 1000). */
  value: number;
  /** Whether it is still too uncertain to mean much (few rated games). */
  provisional: boolean;
  /** Rated games played. */
  games: number;
}

/** `POST /api/rooms/{id}/rematch` answer: the new room for the game after this one. */
export interface RematchResponse {
  /** The new room's id. */
  room_id: string;
  /**
   * Its host token, to the caller who created it; `null` for everyone asking after
   * (the room exists already, its host is the first caller).
   */
  host_token: string | null;
  /** The new room, its bots seated. */
  room: RoomInfo;
}

/** `PUT /api/me/name` body. */
export interface RenameRequest {
  /** The new display name. */
  name: string;
}

/** `GET /api/games/{id}/replay` answer: enough to rebuild the game exactly. */
export interface Replay {
  /** The game. */
  game: GameSummary;
  /** The engine options the game ran with. */
  engine_options: GameOptions;
  /**
   * The map the seed dealt: terrain and number of every tile, the harbors.
   * Derived from the seed when asked for, so games stored before it existed have it.
   */
  map: Map;
  /** The robber's tile at the start: the desert. */
  robber_start: TileId;
  /** The seat the seed chose to place first. */
  first: Seat;
  /**
   * The seats in turn order from `first`; setup round two is its reverse
   * (R-3.2).
   */
  seat_order: Seat[];
  /**
   * The game before its first action as a spectator sees it: the view the events
   * of `actions` apply to, step by step.
   */
  start: GameView;
  /** Every action in order. */
  actions: ReplayStep[];
  /** Final scores from re-running the log now (equal to the stored ones). */
  final_scores: FinalScore[];
  /** The statistics of the game, as in its `game_over`. */
  stats: GameStats;
}

/** One action of a replay with everything it caused. */
export interface ReplayStep {
  /** Position in the log, from 0. */
  seq: number;
  /** The seat that acted; absent for the system (timers). */
  seat: Seat | null;
  /** The action. */
  action: Action;
  /** When it was accepted, Unix ms. */
  at: number;
  /** Every event, unredacted. */
  events: Event[];
  /**
   * Every seat's public victory points after the step (no VP cards, R-1.3), in
   * seat order: what a view followed from the events does not state.
   */
  public_vp: number[];
}

/** One of the five resources produced by land tiles. */
export type Resource =
  /** Produced by forest. */
  | "lumber"
  /** Produced by hills. */
  | "brick"
  /** Produced by pasture. */
  | "wool"
  /** Produced by fields. */
  | "grain"
  /** Produced by mountains. */
  | "ore";

/**
 * One seat's resource flow: `gained.total() - lost.total()` is the seat's hand at
 * the end.
 */
export interface ResourceFlow {
  /** The seat. */
  seat: Seat;
  /** Cards received, by source. */
  gained: Gained;
  /** Cards given up, by cause. */
  lost: Lost;
}

/**
 * Resource cards by kind: one field per resource, a count of 0 left out; `{}` is no
 * cards, and an unknown resource name is refused.
 */
export interface Resources {
  /** Brick cards. */
  brick?: number;
  /** Grain cards. */
  grain?: number;
  /** Lumber cards. */
  lumber?: number;
  /** Ore cards. */
  ore?: number;
  /** Wool cards. */
  wool?: number;
}

/** The phase a turn returns to after an interruption (robber, Road Building). */
export type Resume =
  /** The card was played before the roll: the player still has to roll. */
  | "pre_roll"
  /** Back to trade and build. */
  | "main";

/** A road on the board. */
export interface RoadView {
  /** Where. */
  edge: EdgeId;
  /** Owner. */
  seat: Seat;
}

/** Rooms by status. */
export interface RoomCounts {
  /** Rooms whose seats are being taken. */
  lobby: number;
  /** Rooms with a game in progress. */
  playing: number;
  /** Rooms whose game is over. */
  finished: number;
}

/** A room's public description. */
export interface RoomInfo {
  /** The room's id. */
  id: string;
  /** `lobby`, `playing` or `finished`. */
  status: RoomStatus;
  /** The room's options. */
  options: RoomOptions;
  /** One entry per seat. */
  seats: SeatInfo[];
  /** Creation time, Unix ms. */
  created_at: number;
  /**
   * SHA-256 of `"{seed}:{seed_salt}"`, published when the game starts; the seed
   * and salt are revealed at the end so anyone can check every roll and shuffle.
   */
  seed_commitment?: string | null;
}

/** `GET /api/rooms` answer. */
export interface RoomList {
  /** Listed rooms, newest first. */
  rooms: RoomInfo[];
}

/**
 * A room's settled options: the engine's `GameOptions` (once, flattened into the
 * same JSON object) and the room's own. Every field has a default, so options
 * written by an older version, without a field added since, still read.
 */
export interface RoomOptions {
  /** Number of seats, 3 or 4 (default 4). */
  players: number;
  /** Victory points needed to win, 3..=20 (R-1.1; default 10). */
  vp_target: number;
  /** Random or beginner map (R-2.4; default random). */
  map: MapKind;
  /**
   * Turns after which the game ends with no winner if nobody has won, each
   * player's turn counting one (R-10.5; `TURN_LIMIT_MIN`..=`TURN_LIMIT_MAX`,
   * default `DEFAULT_TURN_LIMIT`). Options written before the limit existed
   * read with the default.
   */
  turn_limit: number;
  /** Seconds per phase; 0 = no turn timer. */
  turn_timer_secs: number;
  /** Seconds before a trade offer expires. */
  trade_timeout_secs: number;
  /** Seconds to discard after a 7; 0 = no discard timer. */
  discard_timeout_secs: number;
  /** In the public room list. */
  listed: boolean;
  /** Spectators allowed. */
  spectators: boolean;
  /**
   * Seconds a person's seat may go without a connection while a decision is the
   * seat's before a built-in bot stands in for it (until the person is back);
   * 0 = never.
   */
  stand_in_secs: number;
  /** The kind of bot that stands in for an absent person. */
  stand_in_level: BotKind;
  /**
   * A rated game: its result updates the players' ratings (protocol 25.8).
   * Every person's seat needs a player (a session); bots play at their level's
   * fixed rating, and the random baseline cannot be seated.
   */
  rated: boolean;
  /**
   * A game over days (protocol 27): hours per move, a time bank and vacation
   * days instead of the turn timer, the trade timeout, the discard timeout and
   * stand-ins (which do not apply), and the game is never abandoned for want of
   * a connection. Absent for a live game.
   */
  days?: DaysOptions | null;
}

/** Where a room is in its life. */
export type RoomStatus =
  /** Seats are being taken. */
  | "lobby"
  /** The game is on. */
  | "playing"
  /** The game is over. */
  | "finished";

/** A ban or a mute in force. */
export interface Sanction {
  /** Since when (Unix ms). */
  since: number;
  /** Until when (Unix ms); `null` until an administrator lifts it. */
  until: number | null;
  /** The reason the administrator gave. */
  reason: string;
}

/** A player's seat, `0..players`. Seat order is turn order. */
export type Seat = number;

/** A seat's clock in a game over days, in `snapshot`, `events` and `resumed`. */
export interface SeatClock {
  /** The seat. */
  seat: Seat;
  /** Time bank left, ms. */
  bank_ms: number;
  /** Vacation left, whole days. */
  vacation_days: number;
  /** Moves a bot made for the seat because its time ran out. */
  time_outs: number;
  /**
   * When the seat's move runs out (Unix ms), while a move is the seat's: its time,
   * then its bank, then its vacation days. Then a bot moves for it.
   */
  deadline?: number | null;
  /**
   * Replaced by a bot for the rest of the game, after
   * `DAYS_TIME_OUTS_REPLACED` time-outs.
   */
  replaced?: boolean;
}

/** One seat of a room. */
export interface SeatInfo {
  /** The seat index, which is also turn order. */
  seat: Seat;
  /** Who sits here, if anyone. */
  occupant: Occupant | null;
  /** Whether a client (or bot) is connected now. */
  connected: boolean;
  /**
   * Whether a built-in bot plays the seat for its absent person now (left out
   * when not).
   */
  stand_in?: boolean;
}

/** What one seat holds in a `Position`: pieces as id lists, cards as counts. */
export interface SeatPosition {
  /** Resource cards in hand. */
  hand: Resources;
  /** Unplayed development cards, those bought this turn and VP cards included. */
  dev_cards: DevCards;
  /** The part of `dev_cards` bought this turn (not playable yet, R-8.1). */
  dev_cards_new: DevCards;
  /** Knights played so far. */
  knights_played: number;
  /** Intersections with this seat's settlements. */
  settlements: VertexId[];
  /** Intersections with this seat's cities. */
  cities: VertexId[];
  /** Paths with this seat's roads. */
  roads: EdgeId[];
}

/** A message to a client. */
export type ServerMessage =
  /** The full state as this client may see it; always the first message. */
  | {
    type: "snapshot";
  } & Snapshot
  /** Events of one accepted action, redacted for this client. */
  | {
    type: "events";
    /** Room-wide sequence number of this message. */
    seq: number;
    /** What happened, in order. */
    events: Event[];
    /** In a game over days, each seat's clock (protocol 27). */
    clocks?: SeatClock[];
    /** Deadline of the current phase (Unix ms), when the room has a turn timer. */
    deadline?: number | null;
    /** The actions this client's seat may take now (absent when none). */
    legal?: Action[];
    /** Expiry of each open trade offer (Unix ms). */
    offer_deadlines?: OfferDeadline[];
    /** The request id, only for the client whose action this was. */
    request_id?: string | null;
  }
  /** The client's action was refused; nothing changed. */
  | {
    type: "rejected";
    /** The request id of the refused action. */
    request_id: string;
    /** Stable machine-readable code. */
    code: string;
    /** Human-readable explanation. */
    message: string;
    /**
     * The room's current `seq`, with `stale_action`: the client has missed the
     * messages up to it (they are on their way) and may choose again from them.
     */
    seq?: number | null;
  }
  /** A message that could not be processed at all (malformed, too large, flood...). */
  | {
    type: "error";
    /** Stable machine-readable code. */
    code: string;
    /** Human-readable explanation. */
    message: string;
    /**
     * The `request_id` of the dropped message, when it had one that could be
     * read (sent with `rate_limited`).
     */
    request_id?: string | null;
  }
  /** A chat line. */
  | {
    type: "chat";
    /** Room-wide sequence number. */
    seq: number;
    /** The speaker's display name. */
    name: string;
    /** The text. */
    text: string;
    /** The speaker's seat; absent for spectators. */
    seat?: Seat | null;
  }
  /** A seat's connection came or went. */
  | {
    type: "presence";
    /** Room-wide sequence number. */
    seq: number;
    /** The seat. */
    seat: Seat;
    /** Whether a client is connected to it now. */
    connected: boolean;
  }
  /**
   * A built-in bot began (`active`) or stopped playing a person's seat while the
   * person is away (the room's `stand_in_secs`); the person takes over again by
   * reconnecting.
   */
  | {
    type: "stand_in";
    /** Room-wide sequence number. */
    seq: number;
    /** The seat. */
    seat: Seat;
    /** Whether a stand-in plays the seat now. */
    active: boolean;
  }
  /** The room changed outside the game (seat taken or left, bot added, started). */
  | {
    type: "room";
    /** Room-wide sequence number. */
    seq: number;
    /** The room now. */
    room: RoomInfo;
  }
  /**
   * Sent after the missed messages of a reconnect: the client is up to date as of
   * `seq`, and here is what it may do now.
   */
  | {
    type: "resumed";
    /**
     * `PROTOCOL_VERSION`: the server's answer to the version the client
     * stated, as in a snapshot (a resumed client gets no snapshot).
     */
    protocol_version: number;
    /** Sequence number of the last message the client now has. */
    seq: number;
    /** In a game over days, each seat's clock (protocol 27). */
    clocks?: SeatClock[];
    /** Deadline of the current phase (Unix ms), when the room has a turn timer. */
    deadline?: number | null;
    /** The actions this client's seat may take now. */
    legal?: Action[];
    /** Expiry of each open trade offer (Unix ms). */
    offer_deadlines?: OfferDeadline[];
  }
  /**
   * The game ended: final scores with VP cards revealed, the statistics and the
   * seed.
   */
  | {
    type: "game_over";
  } & GameOverInfo
  /**
   * Someone asked for a rematch of this room's finished game: a new room with the
   * same options and the same bots is open for the people of this one.
   */
  | {
    type: "rematch";
    /** Room-wide sequence number. */
    seq: number;
    /** The new room. */
    room_id: string;
  }
  /**
   * Answer to `history`: what this connection may see of the room's past, as of
   * `seq`.
   */
  | {
    type: "history";
  } & History
  /** Answer to `ping`. */
  | {
    type: "pong";
    /** The ping's request id. */
    request_id?: string | null;
  }
  /** The server is about to close this connection, and why. */
  | {
    type: "closing";
    /** Stable machine-readable reason. */
    code: string;
    /** Human-readable explanation. */
    message: string;
  };

/** `GET /admin/stats` answer. */
export interface ServerStats {
  /** Seconds since the server started. */
  uptime_secs: number;
  /** Rooms held, by status. */
  rooms: RoomCounts;
  /** Open WebSocket connections (bots are not counted: they run inside). */
  connections: number;
  /** Games won since the server started. */
  games_finished: number;
  /** Actions applied since the server started. */
  actions_applied: number;
  /** Whether the game store answers now. */
  store: StoreHealth;
}

/** A session of the player (`GET /api/sessions`). */
export interface SessionInfo {
  /** The session's id (to revoke it; not its token). */
  id: string;
  /** What it was opened from (the client's `User-Agent`, shortened). */
  label: string;
  /** When it was opened (Unix milliseconds). */
  created_at: number;
  /** When it ends (Unix milliseconds). */
  expires_at: number;
  /** Whether it is the session of the call that lists them. */
  current: boolean;
}

/** `GET /api/sessions` answer, newest first. */
export interface SessionList {
  /** The player's unexpired sessions. */
  sessions: SessionInfo[];
}

/** `POST /api/sessions` body: signing in to an account. */
export interface SignInRequest {
  /** The account's name (any case or look-alike form of it). */
  name: string;
  /** Its password. */
  password: string;
}

/**
 * The answer to creating a guest or signing in: the player, the new session, and
 * its token, given this once (a browser also gets it as an HttpOnly cookie).
 */
export interface SignedIn {
  /** Who is signed in. */
  player: PlayerInfo;
  /** The session opened. */
  session: SessionInfo;
  /** The session's bearer token (`Authorization: Bearer ...`). */
  token: string;
}

/**
 * The first message on every connection, and the answer to a reconnect that is
 * too far behind.
 */
export interface Snapshot {
  /** `PROTOCOL_VERSION`. */
  protocol_version: number;
  /** The room, its seats and their connection status. */
  room: RoomInfo;
  /** The client's seat; absent for spectators. */
  you: Seat | null;
  /** Sequence number of the last message included in this snapshot. */
  seq: number;
  /** The game as this client may see it, once started. */
  view: GameView | null;
  /** Actions this client may take now. */
  legal: Action[];
  /** Deadline of the current phase (Unix ms), when the room has a turn timer. */
  deadline: number | null;
  /** Expiry of each open trade offer (Unix ms). */
  offer_deadlines: OfferDeadline[];
  /** The result, once the game is over. */
  game_over: GameOverInfo | null;
  /** In a game over days, each seat's clock (protocol 27; left out otherwise). */
  clocks?: SeatClock[];
  /** The rematch room, once someone asked for one (absent before). */
  rematch?: string | null;
}

/** The store's health as last checked. */
export type StoreHealth =
  /** The database answered. */
  | "ok"
  /** The database did not answer. */
  | "unavailable";

/** `POST /api/rooms/{id}/seats` body. */
export interface TakeSeatRequest {
  /** Display name, 1 to `MAX_NAME_CHARS` characters. */
  name: string;
  /** A particular seat; default: the first free one. */
  seat?: Seat | null;
}

/** `POST /api/rooms/{id}/seats` answer. */
export interface TakeSeatResponse {
  /** The seat taken. */
  seat: Seat;
  /** Secret that identifies the seat on the WebSocket (`?token=`) and for leaving. */
  token: string;
}

/** A tile's terrain. */
export type Terrain =
  /** Produces lumber. */
  | "forest"
  /** Produces brick. */
  | "hills"
  /** Produces wool. */
  | "pasture"
  /** Produces grain. */
  | "fields"
  /** Produces ore. */
  | "mountains"
  /** Produces nothing; the robber starts here. */
  | "desert";

/** One tile. */
export interface TileGeometry {
  /** The tile's id. */
  id: TileId;
  /** Axial coordinate q. */
  q: number;
  /** Axial coordinate r. */
  r: number;
  /** Drawing x of the centre (`2q + r`). */
  x: number;
  /** Drawing y of the centre (`3r`). */
  y: number;
  /** The 6 corners, clockwise from the top. */
  vertices: VertexId[];
  /** The tiles sharing a side with it, ascending. */
  neighbors: TileId[];
}

/** A land tile, `0..19`, numbered row by row from the top, left to right. */
export type TileId = number;

/** An open player-trade offer. Offers are public: every seat sees them. */
export interface TradeOffer {
  /** The offer's id. */
  id: OfferId;
  /** Who offers: the current player, or an opponent countering. */
  from: Seat;
  /** The single recipient, or `None` for every opponent of `from`. */
  to: Seat | null;
  /** What `from` gives. */
  give: Resources;
  /** What `from` gets. */
  get: Resources;
  /** The offer this one counters, if any. */
  counter_to: OfferId | null;
  /** Seats that accepted, as a bit set by seat index. */
  accepted: number;
  /** Seats that rejected, as a bit set by seat index. */
  rejected: number;
}

/** `GET /api/notifications/vapid`: the key a browser subscribes with. */
export interface VapidKey {
  /**
   * The server's VAPID public key (uncompressed P-256, base64url): the
   * `applicationServerKey` of `pushManager.subscribe`.
   */
  public_key: string;
}

/** One intersection. */
export interface VertexGeometry {
  /** The intersection's id. */
  id: VertexId;
  /** Drawing x. */
  x: number;
  /** Drawing y. */
  y: number;
  /** The 1 to 3 tiles touching it. */
  tiles: TileId[];
  /** The 2 or 3 paths meeting there. */
  edges: EdgeId[];
}

/** An intersection, `0..54`, numbered top to bottom, left to right. */
export type VertexId = number;

/** The body a webhook receiver expects. */
export type WebhookFormat =
  /** This server's signed JSON (`X-Catan-Signature`). */
  | "json"
  /** A WeCom (企业微信) group robot. */
  | "we_com"
  /** A Feishu / Lark (飞书) custom bot. */
  | "feishu"
  /** A DingTalk (钉钉) custom robot. */
  | "ding_talk";
