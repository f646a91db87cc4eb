//! Scenarios from the independent scenario review (tests/scenarios/README.md) that the CLI's
//! `resolve` got wrong or that pin a cross-runtime agreement: each serves exact HTTP answers
//! from a loopback server and checks the decision against DESIGN.md.

// Test code: a broken expectation should stop the run loudly, so unwrap/expect/panic are fine here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

/// Serves each path's exact response bytes (status line, headers, body), then closes.
fn serve(routes: Vec<(&'static str, Vec<u8>)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let routes = Arc::new(routes);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let routes = Arc::clone(&routes);
            std::thread::spawn(move || answer(stream, &routes));
        }
    });
    base
}

fn answer(mut stream: TcpStream, routes: &[(&'static str, Vec<u8>)]) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let text = String::from_utf8_lossy(&head).to_string();
    let path = text.split(' ').nth(1).unwrap_or("").to_string();
    let found = routes.iter().find(|(p, _)| *p == path);
    let bytes = match found {
        Some((_, bytes)) => bytes.clone(),
        None => {
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_vec()
        }
    };
    let _ = stream.write_all(&bytes);
}

fn response(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (n, v) in headers {
        out.push_str(&format!("{n}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

const FRESH: &str = r#"{"name":"worker-7","version":"3.0.0","supportedInterfaces":[{"url":"wss://worker-7b.internal/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},"defaultInputModes":["application/json"],"defaultOutputModes":["application/json"],"skills":[{"id":"task.execute.v3","name":"Execute task","description":"Runs one planner task.","tags":["task"]}]}"#;

fn resolve(urls: &[String]) -> (Output, serde_json::Value) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cardgate"));
    for var in [
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
    ] {
        command.env_remove(var);
    }
    let out = command
        .arg("resolve")
        .args(urls)
        .args([
            "--require",
            "task.execute.v3",
            "--max-stale",
            "10s",
            "--deadline",
            "10s",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let d = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out, d)
}

fn codes(d: &serde_json::Value) -> Vec<String> {
    d["reasons"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| r["code"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// A `206 Partial Content` answer is never a whole card: the Envoy filter refuses it on a card
/// route and counts it as a failed attempt when re-resolving (DESIGN.md, "Whole cards" and
/// "Envoy host"). `cardgate resolve` used to accept it as `valid` when the range happened to
/// hold a whole card, here with a `Content-Range` that says it is 11 bytes of 500.
#[test]
fn scenario_206_partial_content_is_never_a_valid_card() {
    let partial = response(
        "206 Partial Content",
        &[
            ("content-type", "application/json"),
            ("x-replica-lag-ms", "0"),
            ("content-range", "bytes 0-10/500"),
        ],
        FRESH.as_bytes(),
    );
    let whole = response(
        "200 OK",
        &[
            ("content-type", "application/json"),
            ("x-replica-lag-ms", "0"),
        ],
        FRESH.as_bytes(),
    );
    let base = serve(vec![("/replica", partial), ("/primary", whole)]);

    // Alone: no source served a whole card.
    let (out, d) = resolve(&[format!("{base}/replica")]);
    assert_eq!(out.status.code(), Some(1), "{d}");
    assert_eq!(d["verdict"], "rejected", "{d}");
    assert_eq!(d["error_class"], "malformed_card", "{d}");
    assert_eq!(codes(&d), ["source_unavailable"], "{d}");

    // Before the primary: a failed attempt, then the primary's card.
    let (out, d) = resolve(&[format!("{base}/replica"), format!("{base}/primary")]);
    assert_eq!(out.status.code(), Some(0), "{d}");
    let attempts = d["resolution"]["attempts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(attempts.len(), 2, "{d}");
    assert_eq!(attempts[0]["verdict"], "failed", "{d}");
    assert!(
        attempts[0]["error"].as_str().unwrap_or("").contains("206"),
        "{d}"
    );
    assert_eq!(attempts[1]["verdict"], "valid", "{d}");
}

/// The watermark comes from the answer that carried the card: several copies of a lag header
/// (any case), an `Age` that pushes the staleness over, and a Consul follower are all refused,
/// the same as in the npm package (tests/node/scenarios.test.mjs) and Envoy.
#[test]
fn scenario_watermark_headers_through_resolve() {
    let ct = ("content-type", "application/json");
    type Case = (
        &'static str,
        Vec<(&'static str, &'static str)>,
        &'static str,
    );
    let cases: Vec<Case> = vec![
        (
            "/dup",
            vec![ct, ("X-Replica-Lag-Ms", "0"), ("x-replica-lag-ms", "0")],
            "watermark_invalid",
        ),
        (
            "/age",
            vec![ct, ("x-replica-lag-ms", "5000"), ("age", "6")],
            "watermark_exceeded",
        ),
        (
            "/agedup",
            vec![ct, ("x-replica-lag-ms", "0"), ("age", "1"), ("Age", "1")],
            "watermark_invalid",
        ),
        ("/ageonly", vec![ct, ("age", "0")], "freshness_unverifiable"),
        (
            "/follower",
            vec![
                ct,
                ("X-Consul-LastContact", "0"),
                ("X-Consul-KnownLeader", "false"),
            ],
            "leader_unknown",
        ),
        (
            "/empty",
            vec![ct, ("x-replica-lag-ms", "")],
            "watermark_invalid",
        ),
        (
            "/neg",
            vec![ct, ("x-replica-lag-ms", "-1")],
            "watermark_invalid",
        ),
        (
            "/both",
            vec![ct, ("x-replica-lag-ms", "0"), ("x-replica-lag-s", "40")],
            "watermark_contradictory",
        ),
    ];
    let routes = cases
        .iter()
        .map(|(p, h, _)| (*p, response("200 OK", h, FRESH.as_bytes())))
        .collect();
    let base = serve(routes);
    for (path, _, code) in &cases {
        let (out, d) = resolve(&[format!("{base}{path}")]);
        assert_eq!(out.status.code(), Some(1), "{path}: {d}");
        assert_eq!(d["error_class"], "stale_agent_card", "{path}: {d}");
        assert_eq!(codes(&d), [*code], "{path}: {d}");
    }
}

/// `check --policy --agent ID` takes the rule the Envoy filter applies to that id: a route
/// `/agents/WORKER-7/card` (or `worker-7%20`, `worker-7.`) is judged by worker-7's rule there
/// (DESIGN.md, "Card routes and path variants"), so the CLI must not judge the same card by
/// the policy's looser defaults (30 s in policies/incident.json, worker-7's rule is 10 s).
#[test]
fn scenario_policy_agent_id_in_another_case_takes_that_agents_rule() {
    let dir = std::env::temp_dir().join(format!("cardgate-scn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let card = dir.join("fresh.json");
    std::fs::write(&card, FRESH).unwrap();
    let policy = concat!(env!("CARGO_MANIFEST_DIR"), "/policies/incident.json");
    for agent in ["worker-7", "WORKER-7", "Worker-7", "worker-7 ", "worker-7."] {
        let out = Command::new(env!("CARGO_BIN_EXE_cardgate"))
            .arg("check")
            .arg(&card)
            .args([
                "--policy",
                policy,
                "--agent",
                agent,
                "--watermark-ms",
                "20000",
            ])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(1), "{agent:?}: {d}");
        assert_eq!(codes(&d), ["watermark_exceeded"], "{agent:?}: {d}");
    }
    // An agent the policy does not name still gets the defaults (30 s).
    let out = Command::new(env!("CARGO_BIN_EXE_cardgate"))
        .arg("check")
        .arg(&card)
        .args([
            "--policy",
            policy,
            "--agent",
            "worker-8",
            "--watermark-ms",
            "20000",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An empty `Content-Encoding` lists no coding: the Envoy filter and the npm package read the
/// card (tests/envoy/test_scenarios.py); `resolve` used to refuse it as `body_encoded` with the
/// message of a *repeated* header. A repeated one, or an unknown coding, is still refused.
#[test]
fn scenario_empty_content_encoding_is_no_coding() {
    let ct = ("content-type", "application/json");
    let lag = ("x-replica-lag-ms", "0");
    let base = serve(vec![
        (
            "/empty",
            response(
                "200 OK",
                &[ct, lag, ("content-encoding", "")],
                FRESH.as_bytes(),
            ),
        ),
        (
            "/twice",
            response(
                "200 OK",
                &[
                    ct,
                    lag,
                    ("content-encoding", "identity"),
                    ("content-encoding", "identity"),
                ],
                FRESH.as_bytes(),
            ),
        ),
        (
            "/custom",
            response(
                "200 OK",
                &[ct, lag, ("content-encoding", "x-custom")],
                FRESH.as_bytes(),
            ),
        ),
    ]);
    let (out, d) = resolve(&[format!("{base}/empty")]);
    assert_eq!(out.status.code(), Some(0), "{d}");
    for path in ["/twice", "/custom"] {
        let (out, d) = resolve(&[format!("{base}{path}")]);
        assert_eq!(out.status.code(), Some(1), "{path}: {d}");
        assert_eq!(codes(&d), ["body_encoded"], "{path}: {d}");
    }
}
