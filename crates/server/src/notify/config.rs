//! The notifications' flags: where links point, the operator's SMTP server, the
//! Web Push key, which webhook addresses are allowed, and the retry pace.

use std::time::Duration;

use catan_notify::{SmtpConfig, SmtpTls};
use secrecy::SecretString;

/// How notices are sent (docs/configuration.md, protocol 27.6).
#[derive(Clone, Debug, clap::Args)]
pub struct NotifyConfig {
    /// The address players open the server at (`https://catan.example`), for the
    /// links in notices (the game, the unsubscribe link). Default: the first of
    /// `--public-origins`, else `http://` and `--bind`.
    #[arg(long, env = "CATAN_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// The SMTP server that sends email notices: `smtps://host[:465]` (TLS),
    /// `smtp://host[:587]` (STARTTLS required), or `smtp://host:25?tls=none` (no TLS,
    /// for a relay on the same host). Without it, email channels are refused.
    #[arg(long, env = "CATAN_SMTP_URL")]
    pub smtp_url: Option<String>,

    /// The sender of email notices.
    #[arg(
        long,
        env = "CATAN_SMTP_FROM",
        default_value = "Catan <noreply@localhost>"
    )]
    pub smtp_from: String,

    /// The SMTP login name, if the server wants one.
    #[arg(long = "smtp-username", env = "CATAN_SMTP_USERNAME")]
    pub smtp_login: Option<String>,

    /// The SMTP password (prefer the environment variable to the flag).
    #[arg(long, env = "CATAN_SMTP_PASSWORD", hide_env_values = true)]
    pub smtp_password: Option<SecretString>,

    /// The Web Push (VAPID) private key, base64url (as `web-push
    /// generate-vapid-keys` prints it). Without it the server makes one on its
    /// first start and keeps it in the database.
    #[arg(long, env = "CATAN_VAPID_PRIVATE_KEY", hide_env_values = true)]
    pub vapid_private_key: Option<SecretString>,

    /// How push services can reach the operator (`mailto:` or `https:`).
    #[arg(
        long,
        env = "CATAN_VAPID_SUBJECT",
        default_value = "mailto:admin@localhost"
    )]
    pub vapid_subject: String,

    /// Sends no Web Push (`GET /api/notifications/vapid` answers 404
    /// `push_unavailable` and push channels are refused).
    #[arg(long, env = "CATAN_NO_WEB_PUSH")]
    pub no_web_push: bool,

    /// Allows webhooks and push endpoints on private, loopback and link-local
    /// addresses, and push endpoints over plain http (tests, a LAN).
    #[arg(long, env = "CATAN_NOTIFY_ALLOW_PRIVATE_WEBHOOKS")]
    pub notify_allow_private_webhooks: bool,

    /// The wait before the first retry of a failed notice, in milliseconds; it
    /// doubles each time, up to an hour, for 8 attempts in all.
    #[arg(long, env = "CATAN_NOTIFY_RETRY_BASE_MS", default_value_t = 30_000)]
    pub notify_retry_base_ms: u64,

    /// How often the delivery worker looks for due notices, in milliseconds (a
    /// notice a room hands over is looked at at once).
    #[arg(long, env = "CATAN_NOTIFY_POLL_MS", default_value_t = 1_000)]
    pub notify_poll_ms: u64,
}

impl NotifyConfig {
    /// The SMTP server of `--smtp-url`.
    ///
    /// # Errors
    /// What is wrong with the URL, in words.
    pub fn smtp(&self) -> Result<Option<SmtpConfig>, String> {
        let Some(raw) = &self.smtp_url else {
            return Ok(None);
        };
        let url = url::Url::parse(raw).map_err(|_| "--smtp-url is not a URL".to_owned())?;
        let plain = url.query_pairs().any(|(k, v)| k == "tls" && v == "none");
        let (tls, port) = match (url.scheme(), plain) {
            ("smtps", _) => (SmtpTls::Tls, 465),
            ("smtp", true) => (SmtpTls::None, 25),
            ("smtp", false) => (SmtpTls::StartTls, 587),
            _ => return Err("--smtp-url is smtp:// or smtps://".to_owned()),
        };
        let host = url
            .host_str()
            .ok_or("--smtp-url has no host")?
            .trim_matches(['[', ']'])
            .to_owned();
        Ok(Some(SmtpConfig {
            host,
            port: url.port().unwrap_or(port),
            username: self.smtp_login.clone(),
            password: self.smtp_password.clone(),
            from: self.smtp_from.clone(),
            tls,
        }))
    }

    /// The wait before the first retry.
    #[must_use]
    pub fn retry_base(&self) -> Duration {
        Duration::from_millis(self.notify_retry_base_ms.max(1))
    }

    /// The worker's pace.
    #[must_use]
    pub fn poll(&self) -> Duration {
        Duration::from_millis(self.notify_poll_ms.max(10))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn parse(args: &[&str]) -> NotifyConfig {
        let mut all = vec!["catan-server"];
        all.extend_from_slice(args);
        crate::Config::parse_from(all).notify
    }

    #[test]
    fn smtp_urls_choose_tls_and_default_ports() {
        let smtp = |url: &str| parse(&["--smtp-url", url]).smtp().unwrap().unwrap();
        let s = smtp("smtps://mail.example.org");
        assert_eq!(
            (s.tls, s.port, s.host.as_str()),
            (SmtpTls::Tls, 465, "mail.example.org")
        );
        let s = smtp("smtp://mail.example.org");
        assert_eq!((s.tls, s.port), (SmtpTls::StartTls, 587));
        let s = smtp("smtp://127.0.0.1:2525?tls=none");
        assert_eq!((s.tls, s.port), (SmtpTls::None, 2525));
        assert!(parse(&["--smtp-url", "http://x"]).smtp().is_err());
        assert!(parse(&[]).smtp().unwrap().is_none());
    }

    #[test]
    fn secrets_stay_out_of_debug() {
        let c = parse(&[
            "--smtp-password",
            "hunter2-smtp",
            "--vapid-private-key",
            "PRIVATEVAPIDKEY",
        ]);
        let text = format!("{c:?}");
        assert!(
            !text.contains("hunter2-smtp") && !text.contains("PRIVATEVAPIDKEY"),
            "{text}"
        );
    }
}
