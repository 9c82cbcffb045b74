//! Email over the operator's SMTP server: a plain-text mail in the notice's
//! language with a `List-Unsubscribe` header (RFC 2369).

use lettre::message::header::{
    ContentTransferEncoding, ContentType, Header, HeaderName, HeaderValue,
};
use lettre::message::{Mailbox, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, Message, Tokio1Executor};
use secrecy::{ExposeSecret as _, SecretString};
use serde::Deserialize;
use std::time::Duration;

use crate::{ChannelKind, ConfigError, Notice, SendError};

/// How the connection to the SMTP server is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmtpTls {
    /// Plain text, no TLS: only for a relay on the same host or a test sink.
    None,
    /// Plain connection upgraded with `STARTTLS`, required (usually port 587).
    StartTls,
    /// TLS from the first byte, "implicit TLS" (usually port 465).
    Tls,
}

/// The operator's SMTP server. `Debug` shows no password.
#[derive(Debug, Clone, Deserialize)]
pub struct SmtpConfig {
    /// The server's host name (also the name its TLS certificate must carry).
    pub host: String,
    /// The server's port: 587 for `StartTls`, 465 for `Tls`, 25 for a local relay.
    pub port: u16,
    /// The login name, if the server wants one.
    pub username: Option<String>,
    /// The password for `username`; kept secret so it never reaches a log.
    pub password: Option<SecretString>,
    /// The sender, as a mailbox (`Catan <noreply@catan.example>`).
    pub from: String,
    /// How the connection is secured.
    pub tls: SmtpTls,
}

/// A ready SMTP transport and the parsed sender.
#[derive(Debug, Clone)]
pub(crate) struct Mailer {
    /// The connection pool to the operator's server.
    transport: AsyncSmtpTransport<Tokio1Executor>,
    /// The `From` of every mail.
    from: Mailbox,
}

impl Mailer {
    /// Sets up the transport (no connection is made yet).
    ///
    /// # Errors
    ///
    /// [`ConfigError::SmtpFrom`] for a bad `from`, [`ConfigError::Smtp`] if TLS
    /// cannot be set up.
    pub(crate) fn new(config: &SmtpConfig, timeout: Duration) -> Result<Mailer, ConfigError> {
        let from: Mailbox = config.from.parse().map_err(|_| ConfigError::SmtpFrom)?;
        let smtp_err = |e: lettre::transport::smtp::Error| ConfigError::Smtp(e.to_string());
        let builder = match config.tls {
            SmtpTls::None => AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&config.host),
            SmtpTls::StartTls => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&config.host)
                .map_err(smtp_err)?,
            SmtpTls::Tls => {
                AsyncSmtpTransport::<Tokio1Executor>::relay(&config.host).map_err(smtp_err)?
            }
        };
        let mut builder = builder.port(config.port).timeout(Some(timeout));
        if let Some(username) = &config.username {
            let password = config
                .password
                .as_ref()
                .map(|p| p.expose_secret().to_owned())
                .unwrap_or_default();
            builder = builder.credentials(Credentials::new(username.clone(), password));
        }
        Ok(Mailer {
            transport: builder.build(),
            from,
        })
    }

    /// Sends one notice to one address.
    ///
    /// # Errors
    ///
    /// [`SendError::InvalidChannel`] for a bad address, [`SendError::Smtp`] if the
    /// server refuses or cannot be reached.
    pub(crate) async fn send(&self, to: &str, notice: &Notice) -> Result<(), SendError> {
        use lettre::AsyncTransport as _;
        let message = build_message(self.from.clone(), to, notice)?;
        self.transport
            .send(message)
            .await
            .map(drop)
            .map_err(|e| SendError::Smtp {
                permanent: e.is_permanent(),
                reason: e.to_string(),
            })
    }
}

/// The mail for one notice: subject = title, plain-text body, `List-Unsubscribe`
/// and `Content-Language` headers.
///
/// # Errors
///
/// [`SendError::InvalidChannel`] if `to` is not a valid mailbox.
pub(crate) fn build_message(
    from: Mailbox,
    to: &str,
    notice: &Notice,
) -> Result<Message, SendError> {
    let invalid = |reason| SendError::InvalidChannel {
        channel: ChannelKind::Email,
        reason,
    };
    let to: Mailbox = to
        .parse()
        .map_err(|_| invalid("the address is not a valid mailbox"))?;
    let rendered = notice.render();
    let body = SinglePart::builder()
        .header(ContentType::TEXT_PLAIN)
        .header(ContentTransferEncoding::Base64)
        .body(rendered.body);
    Message::builder()
        .from(from)
        .to(to)
        .subject(rendered.title)
        // A generated `<random@hostname>`: mail without a Message-ID is often junked.
        .message_id(None)
        .header(ListUnsubscribe(format!("<{}>", notice.unsubscribe_url)))
        .header(ContentLanguage(notice.lang.tag().to_owned()))
        .singlepart(body)
        .map_err(|_| invalid("the mail could not be built"))
}

/// `List-Unsubscribe: <url>` (RFC 2369), which mail clients show as an
/// "unsubscribe" button.
#[derive(Debug, Clone)]
struct ListUnsubscribe(String);

impl Header for ListUnsubscribe {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe")
    }

    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(ListUnsubscribe(s.to_owned()))
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

/// `Content-Language: <tag>` (RFC 3282), so clients pick fonts and offer translation.
#[derive(Debug, Clone)]
struct ContentLanguage(String);

impl Header for ContentLanguage {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Content-Language")
    }

    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(ContentLanguage(s.to_owned()))
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Lang, NoticeKind};

    fn notice() -> Notice {
        Notice {
            kind: NoticeKind::YourTurn,
            lang: Lang::ZhHant,
            room_id: uuid::Uuid::nil(),
            game_url: "https://catan.example/r/1".to_owned(),
            unsubscribe_url: "https://catan.example/unsub?t=abc".to_owned(),
            deadline_ms: None,
            seat_name: "阿明".to_owned(),
        }
    }

    #[test]
    fn the_mail_carries_list_unsubscribe_and_its_language() {
        let from: Mailbox = "Catan <noreply@catan.example>".parse().unwrap();
        let mail = build_message(from, "ada@example.org", &notice()).unwrap();
        let text = String::from_utf8(mail.formatted()).unwrap();
        assert!(
            text.contains("List-Unsubscribe: <https://catan.example/unsub?t=abc>\r\n"),
            "{text}"
        );
        assert!(text.contains("Content-Language: zh-Hant\r\n"), "{text}");
        assert!(text.contains("To: ada@example.org\r\n"), "{text}");
        assert!(text.contains("Message-ID: <"), "{text}");
    }

    #[test]
    fn a_bad_address_is_an_invalid_channel() {
        let from: Mailbox = "noreply@catan.example".parse().unwrap();
        let err = build_message(from, "not an address", &notice()).unwrap_err();
        assert_eq!(err.code(), "invalid_channel");
        assert!(!err.is_retryable());
    }

    #[test]
    fn debug_of_the_smtp_config_hides_the_password() {
        let config = SmtpConfig {
            host: "smtp.example.org".to_owned(),
            port: 587,
            username: Some("catan".to_owned()),
            password: Some(SecretString::from("hunter2-very-secret")),
            from: "noreply@catan.example".to_owned(),
            tls: SmtpTls::StartTls,
        };
        let text = format!("{config:?}");
        assert!(!text.contains("hunter2-very-secret"), "{text}");
        assert!(text.contains("smtp.example.org"));
    }
}
