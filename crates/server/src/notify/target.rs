//! A channel a player adds, checked (an address that looks like one, a webhook or
//! push endpoint that is `http(s)` and, unless allowed, not on a private,
//! loopback or link-local address), and channels shown without their secrets.

use std::net::IpAddr;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catan_notify::{Channel, WebhookFormat};
use catan_protocol::{NotifyTarget, WebhookFormat as WireFormat};

/// The longest URL, address or secret a channel takes.
const MAX_LEN: usize = 2048;

/// What the server sends on, for checking a channel.
#[derive(Debug, Clone, Copy)]
pub struct Allowed {
    /// Web Push is on.
    pub push: bool,
    /// An SMTP server is configured.
    pub email: bool,
    /// Private addresses (and push over http) are allowed.
    pub private: bool,
}

/// Checks `target` and turns it into the channel to store.
///
/// # Errors
/// What is wrong, in words (never echoing a secret).
pub async fn check(target: &NotifyTarget, allowed: Allowed) -> Result<Channel, String> {
    match target {
        NotifyTarget::Email { to } => {
            if !allowed.email {
                return Err("this server sends no email (no SMTP server is configured)".into());
            }
            check_email(to)?;
            Ok(Channel::Email {
                to: to.trim().to_owned(),
            })
        }
        NotifyTarget::Webhook {
            url,
            format,
            secret,
        } => {
            check_url(url, false, allowed.private).await?;
            if secret.as_ref().is_some_and(|s| s.len() > 256) {
                return Err("a webhook secret has at most 256 characters".into());
            }
            Ok(Channel::Webhook {
                url: url.clone(),
                format: format_of(*format),
                secret: secret.clone().filter(|s| !s.is_empty()),
            })
        }
        NotifyTarget::WebPush {
            endpoint,
            p256dh,
            auth,
        } => {
            if !allowed.push {
                return Err("this server sends no Web Push".into());
            }
            if !is_push_service(endpoint) {
                check_url(endpoint, !allowed.private, allowed.private).await?;
            }
            let key = URL_SAFE_NO_PAD
                .decode(p256dh.trim_end_matches('='))
                .unwrap_or_default();
            let secret = URL_SAFE_NO_PAD
                .decode(auth.trim_end_matches('='))
                .unwrap_or_default();
            if key.len() != 65 || key[0] != 4 || secret.len() != 16 {
                return Err(
                    "keys.p256dh is a P-256 public key and keys.auth 16 bytes, base64url".into(),
                );
            }
            Ok(Channel::WebPush {
                endpoint: endpoint.clone(),
                p256dh: p256dh.clone(),
                auth: auth.clone(),
            })
        }
    }
}

fn format_of(format: WireFormat) -> WebhookFormat {
    match format {
        WireFormat::Json => WebhookFormat::Json,
        WireFormat::WeCom => WebhookFormat::WeCom,
        WireFormat::Feishu => WebhookFormat::Feishu,
        WireFormat::DingTalk => WebhookFormat::DingTalk,
    }
}

/// The wire's name of a stored webhook format.
#[must_use]
pub fn wire_format(format: WebhookFormat) -> WireFormat {
    match format {
        WebhookFormat::Json => WireFormat::Json,
        WebhookFormat::WeCom => WireFormat::WeCom,
        WebhookFormat::Feishu => WireFormat::Feishu,
        WebhookFormat::DingTalk => WireFormat::DingTalk,
    }
}

fn check_email(to: &str) -> Result<(), String> {
    let to = to.trim();
    let bad = || Err("not an email address (name@example.org)".to_owned());
    let Some((local, domain)) = to.rsplit_once('@') else {
        return bad();
    };
    let plain = |s: &str| {
        !s.is_empty()
            && !s
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || "<>()[],;:\"@\\".contains(c))
    };
    if to.len() > 254
        || !plain(local)
        || !plain(domain)
        || !domain.contains('.')
        || domain.starts_with('.')
        || domain.ends_with('.')
    {
        return bad();
    }
    Ok(())
}

/// The push services of the browsers (Chromium's FCM and its GCM hosts,
/// Firefox's autopush, Edge's WNS, Safari's): hosts of their vendors, on the
/// internet by construction, so an endpoint there is taken without a DNS lookup.
/// A lookup would refuse a good subscription where the vendor's names do not
/// resolve (a server in mainland China often cannot reach Google's), and the
/// notice would only fail at delivery, retried, as any unreachable endpoint.
const PUSH_SERVICES: [&str; 6] = [
    "fcm.googleapis.com",
    "android.googleapis.com",
    ".google.com",
    ".push.services.mozilla.com",
    ".notify.windows.com",
    ".push.apple.com",
];

/// Whether `raw` is an https URL on a browser vendor's push service
/// ([`PUSH_SERVICES`]: a name, or a suffix when it starts with a dot).
fn is_push_service(raw: &str) -> bool {
    let Ok(url) = url::Url::parse(raw) else {
        return false;
    };
    let Some(url::Host::Domain(host)) = url.host() else {
        return false;
    };
    let host = host.to_ascii_lowercase();
    raw.len() <= MAX_LEN
        && url.scheme() == "https"
        && url.port().is_none()
        && PUSH_SERVICES.iter().any(|s| match s.strip_prefix('.') {
            Some(domain) => host.ends_with(s) || host == domain,
            None => host == *s,
        })
}

/// Checks that `raw` is an http(s) URL (https only when `https`) whose host is a
/// public address, unless `private` (every address its name resolves to).
async fn check_url(raw: &str, https: bool, private: bool) -> Result<(), String> {
    if raw.len() > MAX_LEN {
        return Err("the URL is too long".into());
    }
    let url = url::Url::parse(raw).map_err(|_| "not a URL".to_owned())?;
    match url.scheme() {
        "https" => {}
        "http" if !https => {}
        _ if https => return Err("the URL must be https".into()),
        _ => return Err("the URL must be http or https".into()),
    }
    let host = url
        .host_str()
        .ok_or("the URL has no host")?
        .trim_matches(['[', ']']);
    if private {
        return Ok(());
    }
    if host.eq_ignore_ascii_case("localhost") || host.to_ascii_lowercase().ends_with(".localhost") {
        return Err("the URL's host is this machine".into());
    }
    let port = url.port_or_known_default().unwrap_or(443);
    let addresses: Vec<IpAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        Err(_) => tokio::net::lookup_host((host, port))
            .await
            .map_err(|_| "the URL's host name does not resolve".to_owned())?
            .map(|a| a.ip())
            .collect(),
    };
    if addresses.iter().any(|ip| !is_public(*ip)) {
        return Err("the URL's host is a private, loopback or link-local address".into());
    }
    Ok(())
}

/// Whether `ip` is an address on the internet (not private, loopback, link-local,
/// unspecified, multicast, shared or documentation space).
#[must_use]
pub fn is_public(ip: IpAddr) -> bool {
    const CLOSED: [&str; 12] = [
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "224.0.0.0/3",
        "::/127",
        "fc00::/7",
        "fe80::/10",
        "ff00::/8",
    ];
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    !CLOSED
        .iter()
        .any(|net| net.parse::<ipnet::IpNet>().is_ok_and(|n| n.contains(&ip)))
}

/// `channel` as its owner sees it: an email in full, a URL's scheme and host.
#[must_use]
pub fn shown_to_owner(channel: &Channel) -> String {
    match channel {
        Channel::Email { to } => to.clone(),
        Channel::WebPush { endpoint: url, .. } | Channel::Webhook { url, .. } => url_head(url),
    }
}

/// `channel` as anyone else sees it: an email masked (`a***@example.com`), a URL's
/// scheme and host.
#[must_use]
pub fn masked(channel: &Channel) -> String {
    match channel {
        Channel::Email { to } => match to.rsplit_once('@') {
            Some((local, domain)) => {
                let first: String = local.chars().next().into_iter().collect();
                format!("{first}***@{domain}")
            }
            None => "***".to_owned(),
        },
        other => shown_to_owner(other),
    }
}

fn url_head(raw: &str) -> String {
    url::Url::parse(raw).map_or_else(
        |_| "<invalid url>".to_owned(),
        |u| format!("{}/…", u.origin().ascii_serialization()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_loopback_and_link_local_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.1.1",
            "172.20.0.1",
            "169.254.169.254",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "0.0.0.0",
            "100.64.0.1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:4700::1111", "8.8.8.8"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[tokio::test]
    async fn webhooks_must_be_http_and_public_unless_allowed() {
        let hook = |url: &str| NotifyTarget::Webhook {
            url: url.into(),
            format: WireFormat::Json,
            secret: None,
        };
        let strict = Allowed {
            push: true,
            email: true,
            private: false,
        };
        let open = Allowed {
            private: true,
            ..strict
        };
        assert!(check(&hook("http://127.0.0.1:9/h"), strict).await.is_err());
        assert!(check(&hook("http://localhost/h"), strict).await.is_err());
        assert!(check(&hook("http://[::1]/h"), strict).await.is_err());
        assert!(check(&hook("ftp://93.184.216.34/h"), strict).await.is_err());
        assert!(
            check(&hook("https://93.184.216.34/h"), strict)
                .await
                .is_ok()
        );
        assert!(check(&hook("http://127.0.0.1:9/h"), open).await.is_ok());
    }

    #[tokio::test]
    async fn push_endpoints_of_the_browsers_push_services_are_taken_without_a_lookup() {
        for good in [
            "https://fcm.googleapis.com/fcm/send/abc",
            "https://jmt17.google.com/fcm/send/abc",
            "https://updates.push.services.mozilla.com/wpush/v2/abc",
            "https://wns2-by3p.notify.windows.com/w/?token=abc",
            "https://web.push.apple.com/abc",
        ] {
            assert!(is_push_service(good), "{good}");
        }
        for bad in [
            "http://fcm.googleapis.com/fcm/send/abc",
            "https://fcm.googleapis.com:8443/fcm/send/abc",
            "https://evilgoogle.com/x",
            "https://google.com.evil.example/x",
            "https://fcm.googleapis.com.evil.example/x",
            "https://127.0.0.1/x",
            "https://localhost/x",
            "not a url",
        ] {
            assert!(!is_push_service(bad), "{bad}");
        }
        // A subscription on a vendor's host whose name does not resolve (offline,
        // or a country where it is blocked) is taken; one elsewhere is looked up.
        let push = |endpoint: &str| NotifyTarget::WebPush {
            endpoint: endpoint.into(),
            p256dh: URL_SAFE_NO_PAD.encode([4u8; 65]),
            auth: URL_SAFE_NO_PAD.encode([7u8; 16]),
        };
        let strict = Allowed {
            push: true,
            email: false,
            private: false,
        };
        assert!(
            check(&push("https://jmt17.google.com/fcm/send/t"), strict)
                .await
                .is_ok()
        );
        assert!(
            check(&push("https://push.invalid/fcm/send/t"), strict)
                .await
                .is_err()
        );
        assert!(
            check(&push("https://127.0.0.1/fcm/send/t"), strict)
                .await
                .is_err()
        );
    }

    #[test]
    fn emails_are_checked_and_masked() {
        assert!(check_email("ada@example.org").is_ok());
        for bad in [
            "ada",
            "ada@",
            "@example.org",
            "a da@example.org",
            "ada@localhost",
            "<ada@example.org>",
        ] {
            assert!(check_email(bad).is_err(), "{bad}");
        }
        let email = Channel::Email {
            to: "ada@example.org".into(),
        };
        assert_eq!(masked(&email), "a***@example.org");
        assert_eq!(shown_to_owner(&email), "ada@example.org");
        let hook = Channel::Webhook {
            url: "https://hooks.example/x?key=SECRET".into(),
            format: WebhookFormat::WeCom,
            secret: None,
        };
        assert_eq!(masked(&hook), "https://hooks.example/…");
    }
}
