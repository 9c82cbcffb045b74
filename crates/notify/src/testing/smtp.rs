//! A local SMTP sink: enough of RFC 5321 for lettre to deliver a mail to it, with
//! AUTH PLAIN recorded, and a choice of answer to `RCPT TO` to refuse recipients.
//! Its helpers unwrap: it is for tests, where a panic is a failure.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// One mail the sink accepted.
#[derive(Debug)]
pub struct Mail {
    /// The `AUTH PLAIN` credentials of the connection, decoded (`\0user\0password`).
    pub auth: Option<String>,
    /// `MAIL FROM:<...>`.
    pub from: String,
    /// Each `RCPT TO:<...>`.
    pub to: Vec<String>,
    /// The message, dot-unstuffed, without the final `.`.
    pub data: String,
}

/// Starts the sink on 127.0.0.1 (its port and the mails it accepted);
/// `rcpt_reply` is what it answers to `RCPT TO` ("250 OK" to accept).
///
/// # Panics
/// If it cannot listen on 127.0.0.1.
pub async fn smtp_sink(rcpt_reply: &'static str) -> (u16, mpsc::UnboundedReceiver<Mail>) {
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

/// Splits a message into unfolded headers and its body.
pub fn parse_mail(data: &str) -> (Vec<(String, String)>, String) {
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

/// The value of header `name` (lower case) of a parsed mail, or "".
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> &'a str {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map_or("", |(_, v)| v.as_str())
}

/// Decodes RFC 2047 encoded words (`=?utf-8?b?...?=`, `=?utf-8?q?...?=`).
pub fn decode_words(value: &str) -> String {
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

/// The body as text, decoded from its transfer encoding.
pub fn decode_body(headers: &[(String, String)], body: &str) -> String {
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

impl Mail {
    /// The decoded `Subject`.
    #[must_use]
    pub fn subject(&self) -> String {
        let (headers, _) = parse_mail(&self.data);
        decode_words(header(&headers, "subject"))
    }

    /// The decoded text of the body.
    #[must_use]
    pub fn text(&self) -> String {
        let (headers, body) = parse_mail(&self.data);
        decode_body(&headers, &body)
    }
}
