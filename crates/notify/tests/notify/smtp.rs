//! Email through the local SMTP sink of `catan_notify::testing`.

use std::time::Duration;

use catan_notify::testing::smtp::{decode_body, decode_words, header, parse_mail};
use catan_notify::testing::smtp_sink;
use catan_notify::{Channel, Lang, NoticeKind, SendError, SmtpConfig, SmtpTls};
use secrecy::SecretString;

use crate::{closed_port, notice, sender};

fn smtp_config(port: u16) -> SmtpConfig {
    SmtpConfig {
        host: "127.0.0.1".to_owned(),
        port,
        username: Some("catan".to_owned()),
        password: Some(SecretString::from("sink-password")),
        from: "Catan <noreply@catan.example>".to_owned(),
        tls: SmtpTls::None,
    }
}

#[tokio::test]
async fn an_email_arrives_in_the_players_language_with_list_unsubscribe() {
    let (port, mut mails) = smtp_sink("250 OK").await;
    let sender = sender(None, Some(smtp_config(port)), Duration::from_secs(5));
    let cases = [
        (
            Lang::En,
            "It's your turn in Catan",
            "waiting for your move",
            "change your settings",
        ),
        (Lang::ZhHans, "轮到你了", "其他玩家正在等你行动", "退订"),
        (Lang::ZhHant, "輪到你了", "其他玩家正在等你行動", "取消訂閱"),
    ];
    for (lang, subject, sentence, unsubscribe) in cases {
        let channel = Channel::Email {
            to: "Ada <ada@example.org>".to_owned(),
        };
        sender
            .send(&channel, &notice(NoticeKind::YourTurn, lang))
            .await
            .unwrap_or_else(|e| panic!("{lang}: {e}"));
        let mail = mails.recv().await.unwrap();
        assert_eq!(
            mail.auth.as_deref(),
            Some("\0catan\0sink-password"),
            "{lang}"
        );
        assert_eq!(mail.from, "<noreply@catan.example>");
        assert_eq!(mail.to, ["<ada@example.org>"]);
        let (headers, body) = parse_mail(&mail.data);
        assert_eq!(header(&headers, "to"), "Ada <ada@example.org>");
        assert_eq!(decode_words(header(&headers, "subject")), subject, "{lang}");
        assert_eq!(
            header(&headers, "list-unsubscribe"),
            "<https://catan.example/settings/notices?token=u1>"
        );
        assert_eq!(header(&headers, "content-language"), lang.tag());
        assert!(header(&headers, "content-type").starts_with("text/plain; charset=utf-8"));
        let text = decode_body(&headers, &body);
        assert!(text.contains(sentence), "{lang}: {text}");
        assert!(text.contains(unsubscribe), "{lang}: {text}");
        assert!(text.contains("2026-03-01 12:34 UTC"), "{lang}: {text}");
        assert!(
            text.trim_end()
                .ends_with("https://catan.example/settings/notices?token=u1")
        );
    }
}

#[tokio::test]
async fn a_refused_recipient_is_a_permanent_failure() {
    let (port, _mails) = smtp_sink("550 5.1.1 No such user").await;
    let err = sender(None, Some(smtp_config(port)), Duration::from_secs(5))
        .send(
            &Channel::Email {
                to: "nobody@example.org".to_owned(),
            },
            &notice(NoticeKind::OfferToYou, Lang::En),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            SendError::Smtp {
                permanent: true,
                ..
            }
        ),
        "{err}"
    );
    assert!(!err.is_retryable());
    assert!(!err.to_string().contains("sink-password"));
}

#[tokio::test]
async fn a_busy_mail_server_is_a_transient_failure() {
    let (port, _mails) = smtp_sink("451 4.3.0 Try again later").await;
    let err = sender(None, Some(smtp_config(port)), Duration::from_secs(5))
        .send(
            &Channel::Email {
                to: "ada@example.org".to_owned(),
            },
            &notice(NoticeKind::TimeLow, Lang::En),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            SendError::Smtp {
                permanent: false,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.is_retryable());
}

#[tokio::test]
async fn an_unreachable_mail_server_is_retryable() {
    let port = closed_port().await;
    let err = sender(None, Some(smtp_config(port)), Duration::from_secs(2))
        .send(
            &Channel::Email {
                to: "ada@example.org".to_owned(),
            },
            &notice(NoticeKind::TimeLow, Lang::En),
        )
        .await
        .unwrap_err();
    assert!(err.is_retryable(), "{err}");
    assert!(!err.to_string().contains("sink-password"));
}

#[tokio::test]
async fn email_without_an_smtp_server_is_not_configured() {
    let err = sender(None, None, Duration::from_secs(1))
        .send(
            &Channel::Email {
                to: "ada@example.org".to_owned(),
            },
            &notice(NoticeKind::YourTurn, Lang::En),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "not_configured");
}
