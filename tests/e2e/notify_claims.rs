//! The notification outbox claimed by several instances at once (protocol 27.6, a
//! cluster on one PostgreSQL): each instance's worker takes a batch of due notices
//! with one `UPDATE ... RETURNING`; three stores on their own connection pools
//! claiming the same queue at the same moments (round after round) never both take
//! one notice, and between them take every notice.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use catan_e2e::fresh_postgres_url;
use catan_notify::{ChannelKind, Lang, Notice, NoticeKind};
use catan_server::store::{NotifyStore, OutboxRow, OutboxStatus, SqlStore};
use tokio::sync::Barrier;
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

/// Claims batches of 7 in rounds, every round at the same moment as the other
/// instances (`round`), until every notice was claimed by someone (`claimed`); the
/// ids it claimed. (A claim may come back empty while others take the rows it was
/// after: that is no sign that the queue is empty.)
async fn claim_all(store: SqlStore, round: Arc<Barrier>, claimed: Arc<AtomicUsize>) -> Vec<Uuid> {
    let mut ids = Vec::new();
    for _ in 0..QUEUED {
        round.wait().await;
        let batch = store
            .claim_notices(1_000, 3_600_000, 7)
            .await
            .expect("claim");
        claimed.fetch_add(batch.len(), Ordering::SeqCst);
        ids.extend(batch.iter().map(|(row, _)| row.id));
        round.wait().await;
        if claimed.load(Ordering::SeqCst) >= QUEUED {
            break;
        }
    }
    ids
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
    let round = Arc::new(Barrier::new(3));
    let claimed = Arc::new(AtomicUsize::new(0));
    let claims = |store| tokio::spawn(claim_all(store, round.clone(), claimed.clone()));
    let (a, b, c) = tokio::join!(claims(first), claims(second), claims(third));
    let (a, b, c) = (a.expect("a"), b.expect("b"), c.expect("c"));
    let all: Vec<Uuid> = a.iter().chain(&b).chain(&c).copied().collect();
    let distinct: HashSet<Uuid> = all.iter().copied().collect();
    assert_eq!(all.len(), distinct.len(), "a notice claimed twice");
    let queued: HashSet<Uuid> = rows.iter().map(|r| r.id).collect();
    assert_eq!(distinct, queued, "every notice claimed");
}
