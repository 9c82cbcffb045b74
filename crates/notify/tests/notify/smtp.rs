//! A local SMTP sink: enough of RFC 5321 for lettre to deliver a mail to it, with
//! AUTH PLAIN checked, and a switch to refuse recipients.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use catan_notify::{Channel, Lang, NoticeKind, SendError, SmtpConfig, SmtpTls};
use secrecy::SecretString;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::{closed_port, notice, sender};

/// One mail the sink accepted.
#[derive(Debug)]
struct Mail {
    /// The `AUTH PLAIN` credentials of the connection, decoded (`\0user\0password`).
    auth: Option<String>,
    /// `MAIL FROM:<...>`.
    from: String,
    /// Each `RCPT TO:<...>`.
    to: Vec<String>,
    /// The message, dot-unstuffed, without the final `.`.
    data: String,
}

/// Starts the sink; `rcpt_reply` is what it answers to `RCPT TO` ("250 OK" to accept).
async fn sink(rcpt_reply: &'static str) -> (u16, mpsc::UnboundedReceiver<Mail>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let (socket, _) = listener.accept().await.unwrap();
            let tx = tx.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut lines = BufReader::new(read);
                let mut reply = async |text: &str| {
                    write
                        .write_all(format!("{text}\r\n").as_bytes())
                        .await
                        .unwrap();
                };
                reply("220 sink.test ESMTP ready").await;
                let mut mail = Mail {
                    auth: None,
                    from: String::new(),
                    to: Vec::new(),
                    data: String::new(),
                };
                let mut line = String::new();
                loop {
                    line.clear();
                    if lines.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let command = line.trim_end().to_owned();
                    let upper = command.to_ascii_uppercase();
                    if upper.starts_with("EHLO") {
                        reply("250-sink.test\r\n250-AUTH PLAIN\r\n250 8BITMIME").await;
                    } else if let Some(creds) = upper.strip_prefix("AUTH PLAIN ") {
                        let creds = &command[command.len() - creds.len()..];
                        mail.auth = Some(String::from_utf8(BASE64.decode(creds).unwrap()).unwrap());
                        reply("235 2.7.0 Authentication successful").await;
                    } else if upper.starts_with("MAIL FROM:") {
                        mail.from = command[10..].to_owned();
                        reply("250 OK").await;
                    } else if upper.starts_with("RCPT TO:") {
                        mail.to.push(command[8..].to_owned());
                        reply(rcpt_reply).await;
                    } else if upper == "DATA" {
                        reply("354 End data with <CR><LF>.<CR><LF>").await;
                        loop {
                            line.clear();
                            lines.read_line(&mut line).await.unwrap();
                            if line == ".\r\n" {
                                break;
                            }
                            let unstuffed = line.strip_prefix('.').unwrap_or(&line);
                            mail.data.push_str(unstuffed);
                        }
                        // The login holds for the connection, which the pool reuses.
                        let auth = mail.auth.clone();
                        let done = std::mem::replace(
                            &mut mail,
                            Mail {
                                auth,
                                from: String::new(),
                                to: Vec::new(),
                                data: String::new(),
                            },
                        );
                        let _ = tx.send(done);
                        reply("250 OK queued").await;
                    } else if upper == "QUIT" {
                        reply("221 Bye").await;
                        return;
                    } else {
                        // RSET, NOOP and anything else.
                        reply("250 OK").await;
                    }
                }
            });
        }
    });
    (port, rx)
}

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

/// Splits a message into unfolded headers and its body.
fn parse(data: &str) -> (Vec<(String, String)>, String) {
    let (head, body) = data
        .split_once("\r\n\r\n")
        .expect("headers end with a blank line");
    let unfolded = head.replace("\r\n ", " ").replace("\r\n\t", " ");
    let headers = unfolded
        .split("\r\n")
        .map(|l| {
            let (name, value) = l.split_once(':').unwrap();
            (name.to_ascii_lowercase(), value.trim().to_owned())
        })
        .collect();
    (headers, body.to_owned())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> &'a str {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map_or("", |(_, v)| v.as_str())
}

/// Decodes RFC 2047 encoded words (`=?utf-8?b?...?=`, `=?utf-8?q?...?=`).
fn decode_words(value: &str) -> String {
    let mut out = String::new();
    let mut last_was_word = false;
    for token in value.split(' ') {
        let word = token
            .strip_prefix("=?")
            .and_then(|t| t.strip_suffix("?="))
            .and_then(|t| {
                let mut parts = t.splitn(3, '?');
                Some((parts.next()?, parts.next()?, parts.next()?))
            });
        match word {
            Some((_charset, encoding, text)) => {
                let bytes = if encoding.eq_ignore_ascii_case("b") {
                    BASE64.decode(text).unwrap()
                } else {
                    let text = text.replace('_', " ");
                    let mut bytes = Vec::new();
                    let mut rest = text.as_bytes();
                    while let Some((&b, tail)) = rest.split_first() {
                        if b == b'=' {
                            let hex = std::str::from_utf8(&tail[..2]).unwrap();
                            bytes.push(u8::from_str_radix(hex, 16).unwrap());
                            rest = &tail[2..];
                        } else {
                            bytes.push(b);
                            rest = tail;
                        }
                    }
                    bytes
                };
                out.push_str(&String::from_utf8(bytes).unwrap());
                last_was_word = true;
            }
            None => {
                if !out.is_empty() || last_was_word {
                    out.push(' ');
                }
                out.push_str(token);
                last_was_word = false;
            }
        }
    }
    out
}

fn decode_body(headers: &[(String, String)], body: &str) -> String {
    match header(headers, "content-transfer-encoding")
        .to_ascii_lowercase()
        .as_str()
    {
        "base64" => {
            let joined: String = body.split_whitespace().collect();
            String::from_utf8(BASE64.decode(joined).unwrap()).unwrap()
        }
        _ => body.to_owned(),
    }
}

#[tokio::test]
async fn an_email_arrives_in_the_players_language_with_list_unsubscribe() {
    let (port, mut mails) = sink("250 OK").await;
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
        let (headers, body) = parse(&mail.data);
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
    let (port, _mails) = sink("550 5.1.1 No such user").await;
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
    let (port, _mails) = sink("451 4.3.0 Try again later").await;
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
