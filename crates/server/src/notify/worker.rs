//! The two loops behind the rooms: the intake turns each handover into outbox rows
//! (one per channel of the player that wants the notice; a dedupe key queued
//! already is left out), and the delivery loop claims due rows for a while (so
//! that no other instance sends them meanwhile), sends each, and records the
//! outcome: sent; tried again later (`Backoff`, at least what the receiver asked
//! in `Retry-After`); given up; or a push subscription that is gone, deleted.

use std::sync::Arc;
use std::time::Duration;

use catan_notify::{Backoff, SendError};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};
use uuid::Uuid;

use super::{Handover, Notify, Trigger};
use crate::room::now_ms;
use crate::store::{ChannelRow, OutboxRow, OutboxStatus, StoreError};

/// How long a claim keeps other workers off a row: longer than a send can take.
const CLAIM_MS: u64 = 60_000;
/// Rows claimed at once.
const BATCH: u64 = 32;

/// Takes the rooms' handovers until shutdown (or until every room is gone).
pub async fn intake(
    notify: Arc<Notify>,
    mut rx: mpsc::Receiver<Handover>,
    shutdown: CancellationToken,
) {
    loop {
        let handover = tokio::select! {
            () = shutdown.cancelled() => return,
            h = rx.recv() => match h {
                Some(h) => h,
                None => return,
            },
        };
        if let Err(e) = notify.take(handover).await {
            warn!(error = %e, "could not queue a notice");
        }
    }
}

impl Notify {
    /// Queues one handover's rows, or drops the notices it names.
    async fn take(&self, handover: Handover) -> Result<(), StoreError> {
        let trigger = match handover {
            Handover::Drop(key) => {
                self.store.drop_notices(&key).await?;
                return Ok(());
            }
            Handover::Notice(trigger) => trigger,
        };
        let channels = self.store.channels(trigger.player).await?;
        let rows = self.rows(&trigger, &channels).await?;
        if rows.is_empty() {
            return Ok(());
        }
        let queued = self.store.enqueue_notices(&rows).await?;
        if queued > 0 {
            for row in &rows {
                self.metrics.notice_queued(row.channel_kind.code());
            }
            self.wake.notify_one();
        }
        Ok(())
    }

    /// The outbox rows of `trigger`: one per channel that wants its kind.
    async fn rows(
        &self,
        trigger: &Trigger,
        channels: &[ChannelRow],
    ) -> Result<Vec<OutboxRow>, StoreError> {
        let wanted: Vec<&ChannelRow> = channels
            .iter()
            .filter(|c| c.kinds.contains(&trigger.kind))
            .collect();
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let ready = self.ready().await?;
        let now = now_ms();
        Ok(wanted
            .into_iter()
            .map(|c| OutboxRow {
                id: Uuid::new_v4(),
                player_id: trigger.player,
                channel_id: c.id,
                channel_kind: c.channel.kind(),
                shown: super::target::masked(&c.channel),
                dedupe_key: trigger.dedupe_key(),
                notice: self.notice(ready, trigger, c),
                status: OutboxStatus::Pending,
                attempts: 0,
                next_at: trigger.due_at,
                last_error: None,
                created_at: now,
                sent_at: None,
            })
            .collect())
    }

    /// The retry policy in force.
    fn backoff(&self) -> Backoff {
        Backoff {
            base: self.config.retry_base(),
            ..Backoff::default()
        }
    }
}

/// Sends due notices until shutdown: a batch, then the next as soon as the
/// intake queues one or `--notify-poll-ms` passed.
pub async fn deliver(notify: Arc<Notify>, shutdown: CancellationToken) {
    loop {
        let sent = match deliver_due(&notify).await {
            Ok(n) => n,
            Err(e) => {
                warn!(error = %e, "could not claim due notices");
                0
            }
        };
        if sent as u64 >= BATCH {
            continue;
        }
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = notify.wake.notified() => {}
            () = tokio::time::sleep(notify.config.poll()) => {}
        }
    }
}

/// Claims one batch of due rows and sends them side by side: how many.
async fn deliver_due(notify: &Arc<Notify>) -> Result<usize, StoreError> {
    let now = now_ms();
    let claimed = notify
        .store
        .claim_notices(now, now + CLAIM_MS, BATCH)
        .await?;
    let count = claimed.len();
    let mut sends = JoinSet::new();
    for (row, channel) in claimed {
        sends.spawn(send_one(notify.clone(), row, channel));
    }
    while sends.join_next().await.is_some() {}
    Ok(count)
}

/// Sends one claimed row and records what happened.
async fn send_one(notify: Arc<Notify>, row: OutboxRow, channel: Option<ChannelRow>) {
    let kind = row.channel_kind.code();
    let Some(channel) = channel else {
        let row = OutboxRow {
            status: OutboxStatus::Dropped,
            ..row
        };
        settle(&notify, &row).await;
        return;
    };
    let result = match notify.ready().await {
        Ok(ready) => ready.sender.send(&channel.channel, &row.notice).await,
        Err(e) => {
            warn!(error = %e, "notifications are not ready; a notice waits");
            return;
        }
    };
    let (row, gone) = after_attempt(
        row,
        result.as_ref().err(),
        &notify.backoff(),
        now_ms(),
        rand::random(),
    );
    match &result {
        Ok(()) => notify.metrics.notice_sent(kind),
        Err(e) => notify.metrics.notice_failed(kind, e.code()),
    }
    settle(&notify, &row).await;
    if gone {
        debug!(channel = %channel.id, "push subscription gone; deleting its channel");
        if let Err(e) = notify.store.delete_channel(None, channel.id).await {
            warn!(error = %e, "could not delete a gone push subscription");
        }
    }
}

async fn settle(notify: &Notify, row: &OutboxRow) {
    if let Err(e) = notify.store.settle_notice(row).await {
        warn!(error = %e, "could not record a notice's delivery; it is claimed again later");
    }
}

/// `row` after one more attempt that ended with `error` (none: delivered) at
/// `now`; and whether its channel is gone. `random` is uniform in `[0, 1)`.
#[must_use]
pub fn after_attempt(
    mut row: OutboxRow,
    error: Option<&SendError>,
    backoff: &Backoff,
    now: u64,
    random: f64,
) -> (OutboxRow, bool) {
    row.attempts = row.attempts.saturating_add(1);
    let Some(error) = error else {
        row.status = OutboxStatus::Sent;
        row.sent_at = Some(now);
        row.last_error = None;
        return (row, false);
    };
    row.last_error = Some(error.code().to_owned());
    let wait = error
        .is_retryable()
        .then(|| backoff.next_after_jittered(row.attempts, random))
        .flatten();
    match wait {
        Some(wait) => {
            let wait = wait.max(error.retry_after().unwrap_or(Duration::ZERO));
            row.next_at = now + u64::try_from(wait.as_millis()).unwrap_or(u64::MAX / 2);
            row.status = OutboxStatus::Pending;
        }
        None => row.status = OutboxStatus::Failed,
    }
    (row, error.is_gone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use catan_notify::{ChannelKind, Lang, Notice, NoticeKind};

    fn row() -> OutboxRow {
        OutboxRow {
            id: Uuid::nil(),
            player_id: Uuid::nil(),
            channel_id: Uuid::nil(),
            channel_kind: ChannelKind::Webhook,
            shown: String::new(),
            dedupe_key: "k".into(),
            notice: Notice {
                kind: NoticeKind::YourTurn,
                lang: Lang::En,
                room_id: Uuid::nil(),
                game_url: String::new(),
                unsubscribe_url: String::new(),
                deadline_ms: None,
                seat_name: String::new(),
            },
            status: OutboxStatus::Pending,
            attempts: 0,
            next_at: 0,
            last_error: None,
            created_at: 0,
            sent_at: None,
        }
    }

    fn status(code: u16, retry_after: Option<u64>) -> SendError {
        SendError::WebhookStatus {
            status: code,
            retry_after: retry_after.map(Duration::from_secs),
        }
    }

    #[test]
    fn a_delivery_is_sent_and_a_server_error_is_tried_again_after_the_backoff() {
        let b = Backoff::default();
        let (sent, gone) = after_attempt(row(), None, &b, 5, 0.5);
        assert_eq!(
            (sent.status, sent.sent_at, sent.attempts, gone),
            (OutboxStatus::Sent, Some(5), 1, false)
        );
        let (again, _) = after_attempt(row(), Some(&status(500, None)), &b, 1000, 0.5);
        assert_eq!(
            (again.status, again.next_at),
            (OutboxStatus::Pending, 1000 + 30_000)
        );
        assert_eq!(again.last_error.as_deref(), Some("webhook_status"));
    }

    #[test]
    fn retry_after_is_waited_at_least_and_a_refusal_is_final() {
        let b = Backoff::default();
        let (again, _) = after_attempt(row(), Some(&status(429, Some(600))), &b, 0, 0.5);
        assert_eq!(again.next_at, 600_000);
        let (failed, _) = after_attempt(row(), Some(&status(400, None)), &b, 0, 0.5);
        assert_eq!(failed.status, OutboxStatus::Failed);
        let last = OutboxRow {
            attempts: 7,
            ..row()
        };
        let (failed, _) = after_attempt(last, Some(&status(503, None)), &b, 0, 0.5);
        assert_eq!((failed.status, failed.attempts), (OutboxStatus::Failed, 8));
    }

    #[test]
    fn a_gone_push_subscription_fails_and_says_so() {
        let gone = SendError::PushStatus {
            status: 410,
            retry_after: None,
        };
        let (row, is_gone) = after_attempt(row(), Some(&gone), &Backoff::default(), 0, 0.5);
        assert_eq!((row.status, is_gone), (OutboxStatus::Failed, true));
    }
}
