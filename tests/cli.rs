//! The `cardgate` binary as a pipeline meets it: exit codes, stdout, stderr.

// Test code: a broken expectation should stop the run loudly, so unwrap/expect/panic are fine here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

const STALE_CARD: &str = r#"{"name":"worker-7","description":"Executes planner tasks","version":"3.0.0",
 "supportedInterfaces":[{"url":"wss://worker-7.internal/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
 "capabilities":{"streaming":true},"defaultInputModes":["application/json"],"defaultOutputModes":["application/json"],
 "skills":[{"id":"task.execute.v2","name":"Execute task","description":"Runs a planner task","tags":["execute"]}]}"#;

const FRESH_CARD: &str = r#"{"name":"worker-7","description":"Executes planner tasks","version":"3.0.0",
 "supportedInterfaces":[{"url":"wss://worker-7.a2a.internal/v3","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
 "capabilities":{"streaming":true},"defaultInputModes":["application/json"],"defaultOutputModes":["application/json"],
 "skills":[{"id":"task.execute.v3","name":"Execute task","description":"Runs a planner task","tags":["execute"]}]}"#;

const NOW: &str = "2026-11-09T12:00:40Z";

fn cardgate(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cardgate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cardgate");
    // The process may exit before reading stdin (a usage error): a broken pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn decision(out: &Output) -> cardgate::json::Value {
    cardgate::json::parse(&out.stdout, 64).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn codes(d: &cardgate::json::Value) -> Vec<String> {
    d.get("reasons")
        .and_then(|r| r.as_array())
        .map(|rs| {
            rs.iter()
                .map(|r| r.get("code").unwrap().as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn incident_stale_card_is_refused_with_every_reason() {
    let out = cardgate(
        &[
            "check",
            "-",
            "--require",
            "task.execute.v3",
            "--max-stale",
            "10s",
            "--watermark-ms",
            "40000",
            "--now",
            NOW,
        ],
        STALE_CARD,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(
        d.get("error_class").unwrap().as_str(),
        Some("stale_agent_card")
    );
    assert_eq!(d.get("status").unwrap().as_f64(), Some(503.0));
    assert_eq!(codes(&d), ["watermark_exceeded", "capabilities_missing"]);
    let detail = d.get("detail").unwrap().as_str().unwrap();
    assert!(
        detail.contains("staleness 40000 ms exceeds max_stale 10000 ms"),
        "{detail}"
    );
    assert!(detail.contains("task.execute.v3"), "{detail}");
    // The offending card travels with the problem.
    assert_eq!(
        d.pointer("/card/skills/0/id").and_then(|v| v.as_str()),
        Some("task.execute.v2")
    );
    assert!(stderr(&out).starts_with("cardgate: rejected (stale_agent_card): "));
    assert_eq!(stderr(&out).lines().count(), 1);
}

#[test]
fn fresh_card_passes_and_lag_adds_cache_age() {
    let file = std::env::temp_dir().join(format!("cardgate-fresh-{}.json", std::process::id()));
    std::fs::write(&file, FRESH_CARD).unwrap();
    let out = cardgate(
        &[
            "check",
            file.to_str().unwrap(),
            "--require",
            "task.execute.v3",
            "--max-stale=10s",
            "--watermark-ms",
            "2000",
            "--age-s",
            "3",
            "--now",
            NOW,
        ],
        "",
    );
    std::fs::remove_file(&file).ok();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(d.get("verdict").unwrap().as_str(), Some("valid"));
    assert_eq!(d.get("staleness_ms").unwrap().as_f64(), Some(5000.0));
    assert_eq!(d.get("freshness").unwrap().as_str(), Some("watermark"));
    assert!(out.stderr.is_empty());
}

#[test]
fn without_a_tolerance_only_a_pin_passes() {
    let out = cardgate(
        &["check", "-", "--watermark-ms", "0", "--now", NOW],
        FRESH_CARD,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(codes(&decision(&out)), ["tolerance_missing"]);
    let out = cardgate(&["check", "-", "--now", NOW], FRESH_CARD);
    assert_eq!(codes(&decision(&out)), ["freshness_unverifiable"]);

    let hash = cardgate(&["hash", "-"], FRESH_CARD);
    assert_eq!(hash.status.code(), Some(0));
    let hash = String::from_utf8(hash.stdout).unwrap().trim().to_string();
    assert!(hash.starts_with("sha256:") && hash.len() == 71, "{hash}");
    let out = cardgate(&["check", "-", "--pin", &hash, "--now", NOW], FRESH_CARD);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        decision(&out).get("freshness").unwrap().as_str(),
        Some("pinned")
    );
    // A pin for another card is a stale card.
    let out = cardgate(&["check", "-", "--pin", &hash, "--now", NOW], STALE_CARD);
    assert_eq!(codes(&decision(&out)), ["pinned_hash_mismatch"]);
}

#[test]
fn policy_supplies_the_requirement_per_agent() {
    let args = [
        "check",
        "-",
        "--policy",
        "policies/incident.json",
        "--agent",
        "worker-7",
        "--watermark-ms",
        "40000",
        "--now",
        NOW,
    ];
    let out = cardgate(&args, STALE_CARD);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        codes(&decision(&out)),
        ["watermark_exceeded", "capabilities_missing"]
    );
    let mut fresh_args = args;
    fresh_args[7] = "1500";
    let out = cardgate(&fresh_args, FRESH_CARD);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Flags override the policy.
    let out = cardgate(
        &[
            "check",
            "-",
            "--policy",
            "policies/incident.json",
            "--agent",
            "worker-7",
            "--watermark-ms",
            "40000",
            "--max-stale",
            "1m",
            "--now",
            NOW,
        ],
        FRESH_CARD,
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn bad_card_input_is_a_typed_rejection() {
    let dup = r#"{"name":"w","version":"1","version":"9","capabilities":{},"skills":[]}"#;
    let cases = [
        (dup, "duplicate_member"),
        ("", "body_empty"),
        ("{\"name\":", "json_syntax"),
        ("{} {}", "trailing_data"),
        ("[1]", "not_an_object"),
        (
            r#"{"name":"\ud800","version":"1","capabilities":{},"skills":[]}"#,
            "lone_surrogate",
        ),
        (
            r#"{"name":"w","version":3,"capabilities":{},"skills":[]}"#,
            "wrong_type",
        ),
    ];
    for (card, code) in cases {
        let out = cardgate(
            &[
                "check",
                "-",
                "--max-stale",
                "10s",
                "--watermark-ms",
                "0",
                "--now",
                NOW,
            ],
            card,
        );
        assert_eq!(out.status.code(), Some(1), "{card}: {}", stderr(&out));
        let d = decision(&out);
        assert_eq!(
            d.get("error_class").unwrap().as_str(),
            Some("malformed_card"),
            "{card}"
        );
        assert_eq!(d.get("status").unwrap().as_f64(), Some(502.0));
        assert_eq!(codes(&d), [code], "{card}");
    }
    let out = cardgate(
        &["check", "-", "--max-card-bytes", "10", "--now", NOW],
        FRESH_CARD,
    );
    assert_eq!(codes(&decision(&out)), ["body_too_large"]);
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (&["check", "-", "--max-stale", "10"], "--max-stale"),
        (&["check", "-", "--max-stale"], "needs a value"),
        (&["check", "-", "--min-version", "latest"], "--min-version"),
        (&["check", "-", "--pin", "sha256:XYZ"], "--pin"),
        (
            &["check", "-", "--require", "capability:teleport"],
            "teleport",
        ),
        (&["check", "-", "--now", "yesterday"], "--now"),
        (&["check", "-", "--frobnicate"], "unknown option"),
        (&["check"], "needs a card"),
        (&["check", "-", "extra.json"], "only one card"),
        (&["check", "/nonexistent/card.json"], "cannot read"),
        (&["check", "-", "--agent", "w"], "--agent needs --policy"),
        (
            &["check", "-", "--policy", "policies/schema.json"],
            "invalid policy at /$id",
        ),
        (&["hash", "-"], "not valid I-JSON"),
        (&["policy", "check"], "usage"),
        (&["launch"], "unknown command"),
        (&[], "no command"),
    ];
    for (args, needle) in cases {
        let out = cardgate(args, "{");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn canonicalize_writes_rfc8785_without_newline() {
    let out = cardgate(
        &["canonicalize", "-"],
        r#"{ "b": [1.50, 1E2], "a": "\u00e9\u2028" }"#,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"a\":\"\u{e9}\u{2028}\",\"b\":[1.5,100]}"
    );
    let out = cardgate(&["canonicalize", "-"], r#"{"a":1,"a":1}"#);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn policy_check_names_the_field() {
    let out = cardgate(&["policy", "check", "policies/incident.json"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = cardgate(
        &["policy", "check", "-"],
        r#"{"agents":{"w":{"max_stale":"10 s"}}}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/agents/w/max_stale"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn json_forms_and_no_clock() {
    let out = cardgate(
        &[
            "check",
            "-",
            "--requirement",
            r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#,
            "--observation",
            r#"{"lag_ms":40000}"#,
        ],
        STALE_CARD,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        codes(&decision(&out)),
        ["watermark_exceeded", "capabilities_missing"]
    );
    // Flags add to the JSON forms.
    let out = cardgate(
        &[
            "check",
            "-",
            "--requirement",
            r#"{"max_stale":"10s"}"#,
            "--observation",
            r#"{"synced_at":"2026-11-09T12:00:35Z"}"#,
            "--now",
            NOW,
            "--require",
            "task.execute.v3",
        ],
        FRESH_CARD,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        decision(&out).get("staleness_ms").unwrap().as_f64(),
        Some(5000.0)
    );
    let out = cardgate(
        &[
            "check",
            "-",
            "--requirement",
            r#"{"max_stale":"10s"}"#,
            "--synced-at",
            "2026-11-09T12:00:35Z",
            "--no-clock",
        ],
        FRESH_CARD,
    );
    assert_eq!(codes(&decision(&out)), ["clock_missing"]);
    for (flag, bad, path) in [
        ("--requirement", r#"{"maxStale":"1s"}"#, "/maxStale"),
        ("--observation", r#"{"lag_ms":"1","now":5}"#, "/now"),
        ("--observation", "[", "not valid JSON"),
    ] {
        let out = cardgate(&["check", "-", flag, bad], FRESH_CARD);
        assert_eq!(out.status.code(), Some(2), "{flag} {bad}");
        assert!(stderr(&out).contains(path), "{}", stderr(&out));
    }
}
