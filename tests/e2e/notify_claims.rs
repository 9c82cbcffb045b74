//! The notification outbox claimed by several instances at once (protocol 27.6, a
//! cluster on one PostgreSQL): each instance's worker takes a batch of due notices
//! with one `UPDATE ... RETURNING`; two stores on their own connection pools
//! claiming the same queue in a race never both take one notice, and between them
//! take every notice.

use std::collections::HashSet;

use catan_e2e::fresh_postgres_url;
use catan_notify::{ChannelKind, Lang, Notice, NoticeKind};
use catan_server::store::{NotifyStore, OutboxRow, OutboxStatus, SqlStore};
use uuid::Uuid;

/// Notices queued.
const QUEUED: usize = 400;

/// A due notice of its own (its own dedupe key).
fn notice(i: usize) -> OutboxRow {
    OutboxRow {
        id: Uuid::new_v4(),
        player_id: Uuid::new_v4(),
        channel_id: Uuid::new_v4(),
        channel_kind: ChannelKind::Webhook,
        shown: "https://example.com/…".into(),
        dedupe_key: format!("claims-{i}"),
        notice: Notice {
            kind: NoticeKind::YourTurn,
            lang: Lang::En,
            room_id: Uuid::new_v4(),
            game_url: String::new(),
            unsubscribe_url: String::new(),
            deadline_ms: None,
            seat_name: "Ann".into(),
        },
        status: OutboxStatus::Pending,
        attempts: 0,
        next_at: 0,
        last_error: None,
        created_at: 0,
        sent_at: None,
    }
}

/// Claims batches of 7 until none is left; the ids claimed.
async fn claim_all(store: SqlStore) -> Vec<Uuid> {
    let mut ids = Vec::new();
    loop {
        let batch = store
            .claim_notices(1_000, 3_600_000, 7)
            .await
            .expect("claim");
        if batch.is_empty() {
            return ids;
        }
        ids.extend(batch.iter().map(|(row, _)| row.id));
        tokio::task::yield_now().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_claiming_the_outbox_at_once_never_take_the_same_notice() {
    let url = fresh_postgres_url().await;
    let first = SqlStore::connect(&url).await.expect("store");
    let rows: Vec<OutboxRow> = (0..QUEUED).map(notice).collect();
    assert_eq!(
        first.enqueue_notices(&rows).await.expect("queued"),
        QUEUED as u64
    );
    let second = SqlStore::connect(&url)
        .await
        .expect("a second instance's store");
    let third = SqlStore::connect(&url)
        .await
        .expect("a third instance's store");
    let (a, b, c) = tokio::join!(
        tokio::spawn(claim_all(first)),
        tokio::spawn(claim_all(second)),
        tokio::spawn(claim_all(third))
    );
    let (a, b, c) = (a.expect("a"), b.expect("b"), c.expect("c"));
    assert!(
        [&a, &b, &c].iter().filter(|ids| !ids.is_empty()).count() >= 2,
        "a race: {} / {} / {}",
        a.len(),
        b.len(),
        c.len()
    );
    let all: Vec<Uuid> = a.iter().chain(&b).chain(&c).copied().collect();
    let distinct: HashSet<Uuid> = all.iter().copied().collect();
    assert_eq!(all.len(), distinct.len(), "a notice claimed twice");
    let queued: HashSet<Uuid> = rows.iter().map(|r| r.id).collect();
    assert_eq!(distinct, queued, "every notice claimed");
}
