//! What a player is told and how it reads in their language.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::macros::format_description;
use uuid::Uuid;

use crate::Lang;

/// Why a player is being tapped on the shoulder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// The game is waiting for this player's move.
    YourTurn,
    /// Another player has offered this player a trade.
    OfferToYou,
    /// The clock for this player's move is about to run out.
    TimeLow,
}

impl NoticeKind {
    /// Every kind, in a fixed order, for tests and settings pages.
    pub const ALL: [NoticeKind; 3] = [
        NoticeKind::YourTurn,
        NoticeKind::OfferToYou,
        NoticeKind::TimeLow,
    ];

    /// The stable snake_case name, as in serde, dedupe keys and metric labels.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            NoticeKind::YourTurn => "your_turn",
            NoticeKind::OfferToYou => "offer_to_you",
            NoticeKind::TimeLow => "time_low",
        }
    }

    /// Whether the player should hear about it at once: a turn or a running clock
    /// is; an offer can wait for the device to wake up (Web Push `Urgency`).
    #[must_use]
    pub fn is_urgent(self) -> bool {
        matches!(self, NoticeKind::YourTurn | NoticeKind::TimeLow)
    }
}

impl std::fmt::Display for NoticeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// One notice for one player, as the server hands it to [`crate::Sender::send`].
///
/// It carries everything the text needs, so rendering is a pure function and a
/// queued notice can be sent again later exactly as it was first written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    /// What happened.
    pub kind: NoticeKind,
    /// The language the player chose for their notices.
    pub lang: Lang,
    /// The room the notice is about; webhook receivers group by it.
    pub room_id: Uuid,
    /// The link that opens the game, so one tap takes the player to their move.
    pub game_url: String,
    /// The link to the player's notice settings, where they can switch any
    /// channel off; every notice carries it (and email puts it in `List-Unsubscribe`).
    pub unsubscribe_url: String,
    /// When the move runs out, in Unix milliseconds, if the room has a clock.
    pub deadline_ms: Option<u64>,
    /// The player's display name, so a shared group chat says who is meant.
    pub seat_name: String,
}

/// A notice written out in its language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rendered {
    /// One short line: an email subject, a push title, a bot message's first line.
    pub title: String,
    /// The full text: what happened, the deadline in UTC if there is one, the game
    /// link, and last the unsubscribe hint with its link.
    pub body: String,
    /// The first part of `body` alone (what happened and the deadline), without the
    /// links, for a push notification: it has little room, shows no clickable text,
    /// and opens the game link itself.
    pub summary: String,
}

impl Notice {
    /// Writes the notice out in its language.
    #[must_use]
    pub fn render(&self) -> Rendered {
        let deadline = self.deadline_ms.and_then(format_deadline);
        let name = self.seat_name.trim();
        let (title, mut summary) = match self.lang {
            Lang::En => english(self.kind, name, deadline.as_deref()),
            Lang::ZhHans => simplified(self.kind, name, deadline.as_deref()),
            Lang::ZhHant => traditional(self.kind, name, deadline.as_deref()),
        };
        summary = summary.trim_end().to_owned();
        let (open, unsubscribe) = match self.lang {
            Lang::En => (
                "Open the game:",
                "To stop these notices, change your settings here:",
            ),
            Lang::ZhHans => ("打开游戏：", "不想再收到这类提醒？可在此更改设置或退订："),
            Lang::ZhHant => (
                "開啟遊戲：",
                "不想再收到這類提醒？可在此更改設定或取消訂閱：",
            ),
        };
        let sep = if self.lang == Lang::En { " " } else { "" };
        let body = format!(
            "{summary}\n\n{open}{sep}{}\n\n{unsubscribe}{sep}{}",
            self.game_url, self.unsubscribe_url
        );
        Rendered {
            title: title.to_owned(),
            body,
            summary,
        }
    }
}

/// Formats Unix milliseconds as `YYYY-MM-DD HH:MM UTC`; `None` if out of range.
pub(crate) fn format_deadline(ms: u64) -> Option<String> {
    let nanos = i128::from(ms) * 1_000_000;
    let at = OffsetDateTime::from_unix_timestamp_nanos(nanos).ok()?;
    let text = at
        .format(format_description!("[year]-[month]-[day] [hour]:[minute]"))
        .ok()?;
    Some(format!("{text} UTC"))
}

fn english(kind: NoticeKind, name: &str, deadline: Option<&str>) -> (&'static str, String) {
    match kind {
        NoticeKind::YourTurn => (
            "It's your turn in Catan",
            format!(
                "{name}, the other players are waiting for your move.\n{}",
                deadline.map_or(String::new(), |d| format!("Please move before {d}."))
            ),
        ),
        NoticeKind::OfferToYou => (
            "You have a trade offer in Catan",
            format!(
                "{name}, another player has offered you a trade.\n{}",
                deadline.map_or(String::new(), |d| format!("Please answer before {d}."))
            ),
        ),
        NoticeKind::TimeLow => (
            "Your time is running out in Catan",
            format!(
                "{name}, your time for this move is almost up.\n{}",
                deadline.map_or(String::new(), |d| format!("It runs out at {d}."))
            ),
        ),
    }
}

fn simplified(kind: NoticeKind, name: &str, deadline: Option<&str>) -> (&'static str, String) {
    match kind {
        NoticeKind::YourTurn => (
            "轮到你了",
            format!(
                "{name}，卡坦岛上其他玩家正在等你行动。\n{}",
                deadline.map_or(String::new(), |d| format!("请在 {d} 之前行动。"))
            ),
        ),
        NoticeKind::OfferToYou => (
            "有人向你提出交易",
            format!(
                "{name}，有玩家向你提出了一笔交易。\n{}",
                deadline.map_or(String::new(), |d| format!("请在 {d} 之前答复。"))
            ),
        ),
        NoticeKind::TimeLow => (
            "你的时间快用完了",
            format!(
                "{name}，你这一步的时间快到了。\n{}",
                deadline.map_or(String::new(), |d| format!("截止时间：{d}。"))
            ),
        ),
    }
}

fn traditional(kind: NoticeKind, name: &str, deadline: Option<&str>) -> (&'static str, String) {
    match kind {
        NoticeKind::YourTurn => (
            "輪到你了",
            format!(
                "{name}，卡坦島上其他玩家正在等你行動。\n{}",
                deadline.map_or(String::new(), |d| format!("請在 {d} 之前行動。"))
            ),
        ),
        NoticeKind::OfferToYou => (
            "有人向你提出交易",
            format!(
                "{name}，有玩家向你提出了一筆交易。\n{}",
                deadline.map_or(String::new(), |d| format!("請在 {d} 之前回覆。"))
            ),
        ),
        NoticeKind::TimeLow => (
            "你的時間快用完了",
            format!(
                "{name}，你這一步的時間快到了。\n{}",
                deadline.map_or(String::new(), |d| format!("截止時間：{d}。"))
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(kind: NoticeKind, lang: Lang, deadline_ms: Option<u64>) -> Notice {
        Notice {
            kind,
            lang,
            room_id: Uuid::nil(),
            game_url: "https://catan.example/rooms/1".to_owned(),
            unsubscribe_url: "https://catan.example/settings/notices".to_owned(),
            deadline_ms,
            seat_name: "Ada".to_owned(),
        }
    }

    // 2026-03-01 12:34:56 UTC
    const DEADLINE: u64 = 1_772_368_496_000;

    #[test]
    fn a_deadline_is_written_in_utc_to_the_minute() {
        assert_eq!(format_deadline(DEADLINE).unwrap(), "2026-03-01 12:34 UTC");
        assert_eq!(format_deadline(0).unwrap(), "1970-01-01 00:00 UTC");
        assert_eq!(format_deadline(u64::MAX), None);
    }

    #[test]
    fn your_turn_reads_naturally_in_english() {
        let r = notice(NoticeKind::YourTurn, Lang::En, Some(DEADLINE)).render();
        assert_eq!(r.title, "It's your turn in Catan");
        assert!(
            r.body
                .starts_with("Ada, the other players are waiting for your move.")
        );
        assert!(r.body.contains("Please move before 2026-03-01 12:34 UTC."));
        assert!(
            r.body
                .contains("Open the game: https://catan.example/rooms/1")
        );
        assert!(r.body.ends_with("https://catan.example/settings/notices"));
        assert!(!r.summary.contains("https://"));
    }

    #[test]
    fn your_turn_reads_naturally_in_simplified_chinese() {
        let r = notice(NoticeKind::YourTurn, Lang::ZhHans, Some(DEADLINE)).render();
        assert_eq!(r.title, "轮到你了");
        assert!(r.body.contains("请在 2026-03-01 12:34 UTC 之前行动。"));
        assert!(r.body.contains("打开游戏：https://catan.example/rooms/1"));
        assert!(r.body.contains("退订"));
        assert!(r.body.ends_with("https://catan.example/settings/notices"));
    }

    #[test]
    fn your_turn_reads_naturally_in_traditional_chinese() {
        let r = notice(NoticeKind::YourTurn, Lang::ZhHant, Some(DEADLINE)).render();
        assert_eq!(r.title, "輪到你了");
        assert!(r.body.contains("請在 2026-03-01 12:34 UTC 之前行動。"));
        assert!(r.body.contains("開啟遊戲：https://catan.example/rooms/1"));
        assert!(r.body.contains("取消訂閱"));
        assert!(r.body.ends_with("https://catan.example/settings/notices"));
    }

    #[test]
    fn every_kind_has_its_own_title_in_every_language() {
        for lang in Lang::ALL {
            let titles: Vec<String> = NoticeKind::ALL
                .iter()
                .map(|&k| notice(k, lang, None).render().title)
                .collect();
            assert_ne!(titles[0], titles[1], "{lang}");
            assert_ne!(titles[1], titles[2], "{lang}");
            assert_ne!(titles[0], titles[2], "{lang}");
        }
    }

    #[test]
    fn without_a_deadline_no_time_is_mentioned() {
        for lang in Lang::ALL {
            for kind in NoticeKind::ALL {
                let r = notice(kind, lang, None).render();
                assert!(!r.body.contains("UTC"), "{lang} {kind}: {}", r.body);
                assert!(!r.summary.ends_with('\n'));
                let with = notice(kind, lang, Some(DEADLINE)).render();
                assert!(with.body.contains("2026-03-01 12:34 UTC"), "{lang} {kind}");
            }
        }
    }

    #[test]
    fn chinese_texts_use_their_own_script() {
        let hans = notice(NoticeKind::OfferToYou, Lang::ZhHans, Some(DEADLINE)).render();
        let hant = notice(NoticeKind::OfferToYou, Lang::ZhHant, Some(DEADLINE)).render();
        assert!(hans.body.contains("笔交易") && !hans.body.contains("筆"));
        assert!(hant.body.contains("筆交易") && !hant.body.contains("笔"));
    }

    #[test]
    fn kinds_serialize_in_snake_case() {
        assert_eq!(
            serde_json::to_string(&NoticeKind::OfferToYou).unwrap(),
            "\"offer_to_you\""
        );
        for kind in NoticeKind::ALL {
            assert_eq!(
                serde_json::to_string(&kind).unwrap(),
                format!("\"{}\"", kind.code())
            );
        }
    }
}
