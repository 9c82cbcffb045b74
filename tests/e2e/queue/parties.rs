//! Friends who queue together (protocol 26.3).

use catan_e2e::TestServer;
use catan_protocol::SignedIn;
use reqwest::Method;
use serde_json::json;

use super::{call, code, seated};

/// Parties (protocol 26.3): a code made and joined (in any case) up to three
/// members; the refusals (full, unknown, already in one, a member queueing, not in
/// one); the leader queues everyone with one ticket, the party ends, and the three
/// are seated at one table with a fourth player; a leader who leaves ends the
/// party for its members.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_party_queues_together_and_is_seated_at_one_table() {
    let server = TestServer::start_with(|c| {
        c.queue.queue_tick_ms = 100;
        c.queue.queue_bots_after_secs = 3600;
    })
    .await;
    let mut people = Vec::new();
    for n in ["Ann", "Bob", "Cyd", "Dan", "Eve"] {
        people.push(server.guest(n).await.0);
    }
    let [ann, bob, cyd, dan, eve]: [SignedIn; 5] = people.try_into().expect("five");
    let party = |method: Method, path: String, p: &SignedIn| {
        let token = p.token.clone();
        let server = &server;
        async move {
            let (status, body, _) = server.call(method, &path, Some(&token), None).await;
            (status, body)
        }
    };
    let (status, made) = party(Method::POST, "/api/queue/party".into(), &ann).await;
    assert_eq!(status, 201, "{made}");
    let party_code = made["code"].as_str().expect("code").to_owned();
    assert_eq!(party_code.len(), 6);
    let (status, body) = party(
        Method::POST,
        format!("/api/queue/party/{}", party_code.to_lowercase()),
        &bob,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = party(Method::POST, format!("/api/queue/party/{party_code}"), &cyd).await;
    assert_eq!(status, 200, "{body}");
    let names: Vec<&str> = body["members"]
        .as_array()
        .expect("members")
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["Ann", "Bob", "Cyd"],
        "the leader first, then in order"
    );
    let (status, body) = party(Method::POST, format!("/api/queue/party/{party_code}"), &dan).await;
    assert_eq!((status, code(&body)), (409, "party_full"), "{body}");
    let (status, body) = party(Method::POST, "/api/queue/party/ZZZZZZ".into(), &dan).await;
    assert_eq!((status, code(&body)), (404, "party_not_found"), "{body}");
    let (status, body) = party(Method::POST, "/api/queue/party".into(), &bob).await;
    assert_eq!((status, code(&body)), (409, "already_in_party"), "{body}");
    let (status, body) = call(
        &server,
        Method::POST,
        &bob,
        Some(json!({ "seats": 4, "bots": false })),
    )
    .await;
    assert_eq!((status, code(&body)), (403, "not_party_leader"), "{body}");
    assert_eq!(
        call(&server, Method::GET, &bob, None).await.0,
        404,
        "nothing queued"
    );

    // The leader queues the party: everyone waits, one ticket, the party ends.
    let (status, body) = call(
        &server,
        Method::POST,
        &ann,
        Some(json!({ "seats": 4, "bots": false })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, bob_status) = call(&server, Method::GET, &bob, None).await;
    assert_eq!(status, 200, "{bob_status}");
    assert_eq!(bob_status["since"], body["since"], "queued together");
    let (status, body) = party(Method::GET, "/api/queue/party".into(), &cyd).await;
    assert_eq!((status, code(&body)), (404, "not_in_party"), "{body}");

    // With a fourth, one table.
    let (status, body) = call(
        &server,
        Method::POST,
        &eve,
        Some(json!({ "seats": 4, "bots": false })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let at =
        futures_util::future::join_all([&ann, &bob, &cyd, &eve].map(|p| seated(&server, p))).await;
    let rooms: std::collections::BTreeSet<_> = at
        .iter()
        .map(|s| s.seated.as_ref().expect("seated").room_id)
        .collect();
    assert_eq!(rooms.len(), 1, "one table: {at:?}");

    // A leader who leaves ends the party.
    let (status, made) = party(Method::POST, "/api/queue/party".into(), &dan).await;
    assert_eq!(status, 201, "{made}");
    let party_code = made["code"].as_str().expect("code").to_owned();
    assert_eq!(
        party(Method::POST, format!("/api/queue/party/{party_code}"), &ann)
            .await
            .0,
        200
    );
    assert_eq!(
        party(Method::DELETE, "/api/queue/party".into(), &dan)
            .await
            .0,
        204
    );
    let (status, body) = party(Method::GET, "/api/queue/party".into(), &ann).await;
    assert_eq!((status, code(&body)), (404, "not_in_party"), "{body}");
    server.stop().await;
}
