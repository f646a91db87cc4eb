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
    cardgate_with_env(args, stdin, &[])
}

/// `cardgate` with only these of the proxy variables `resolve` reads set (the fixtures are on
/// 127.0.0.1: whatever the test's own environment says goes).
fn cardgate_with_env(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cardgate"));
    for var in [
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
        "no_proxy",
        "NO_PROXY",
    ] {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    let mut child = command
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

/// The first reason's `message` (`""` when there is none).
fn first_message(d: &cardgate::json::Value) -> String {
    d.get("reasons")
        .and_then(|r| r.as_array())
        .and_then(|rs| rs.first())
        .and_then(|r| r.get("message"))
        .and_then(|m| m.as_str())
        .unwrap_or_default()
        .to_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// The system clock, in ms since the epoch.
fn unix_ms_now() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since.unwrap().as_millis() as i64
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
fn card_name_refuses_another_agents_card_from_flag_requirement_and_policy() {
    let base = [
        "check",
        "-",
        "--require",
        "task.execute.v3",
        "--max-stale",
        "10s",
        "--watermark-ms",
        "1500",
        "--now",
        NOW,
    ];
    // FRESH_CARD is worker-7's: its own name passes, any other spelling is another agent.
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        cardgate(&args, FRESH_CARD)
    };
    assert_eq!(with(&["--card-name", "worker-7"]).status.code(), Some(0));
    for other in ["worker-8", "Worker-7", "worker-7 "] {
        let out = with(&["--card-name", other]);
        assert_eq!(out.status.code(), Some(1), "{other:?}: {}", stderr(&out));
        let d = decision(&out);
        assert_eq!(codes(&d), ["card_name_mismatch"], "{other:?}");
        assert_eq!(
            d.get("error_class").unwrap().as_str(),
            Some("stale_agent_card")
        );
        assert_eq!(
            d.pointer("/reasons/0/figures/card_name")
                .and_then(|v| v.as_str()),
            Some(other)
        );
        assert_eq!(
            d.pointer("/reasons/0/figures/agent")
                .and_then(|v| v.as_str()),
            Some("worker-7")
        );
    }
    // The JSON form, and the flag over it (flags override the requirement's members).
    let json = r#"{"card_name":"worker-8"}"#;
    assert_eq!(with(&["--requirement", json]).status.code(), Some(1));
    let out = with(&["--requirement", json, "--card-name", "worker-7"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Bad values are usage errors (exit 2), one line naming the flag or member.
    for bad in [
        &["--card-name", ""][..],
        &["--card-name", "a", "--card-name", "a"][..],
        &["--requirement", r#"{"card_name":""}"#][..],
        &["--requirement", r#"{"card_name":7}"#][..],
    ] {
        let out = with(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{bad:?}: {}", stderr(&out));
    }
    // A policy rule's card_name applies to its agent only.
    let policy = std::env::temp_dir().join(format!("cardgate-name-{}.json", std::process::id()));
    std::fs::write(
        &policy,
        r#"{"defaults":{"max_stale":"10s"},"agents":{"worker-7":{"card_name":"worker-7"},"worker-8":{"card_name":"worker-8"}}}"#,
    )
    .unwrap();
    let by_policy = |agent: &str| {
        let p = policy.to_str().unwrap();
        let args = [
            "check",
            "-",
            "--policy",
            p,
            "--agent",
            agent,
            "--watermark-ms",
            "1500",
            "--now",
            NOW,
        ];
        cardgate(&args, FRESH_CARD)
    };
    assert_eq!(by_policy("worker-7").status.code(), Some(0));
    let out = by_policy("worker-8");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(codes(&decision(&out)), ["card_name_mismatch"]);
    // Ids a registry may read as each other are held to both rules: two names cannot both hold.
    std::fs::write(
        &policy,
        r#"{"defaults":{"max_stale":"10s"},"agents":{"straße":{"card_name":"worker-7"},"strasse":{"card_name":"worker-8"}}}"#,
    )
    .unwrap();
    for agent in ["straße", "STRASSE"] {
        let out = by_policy(agent);
        assert_eq!(out.status.code(), Some(2), "{agent}");
        assert!(
            stderr(&out).contains("conflicting card names"),
            "{agent}: {}",
            stderr(&out)
        );
    }
    std::fs::remove_file(&policy).unwrap();
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
        (
            &["policy", "lint", "policies/incident.json"],
            "usage: cardgate policy check FILE",
        ),
        (
            &["check", "-", "--policy", "-"],
            "the card and --policy cannot both be read from stdin",
        ),
        (&["launch"], "unknown command \"launch\";"),
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
fn option_forms_that_were_read_loosely_are_refused_and_help_works_per_command() {
    for (args, message) in [
        (
            &["check", "-", "--no-clock=false"][..],
            "--no-clock takes no value",
        ),
        (
            &["check", "-", "--no-clock", "--no-clock"][..],
            "--no-clock is given twice",
        ),
        (
            &["check", "-", "--max-card-bytes", "+70000"][..],
            "is not a whole number of bytes",
        ),
        (
            &["check", "-", "--max-card-bytes", " 7"][..],
            "is not a whole number of bytes",
        ),
        (
            &["check", "-", "--agent", ""][..],
            "an agent id is never empty",
        ),
        (
            &[
                "check",
                "-",
                "--policy",
                "policies/incident.json",
                "--agent",
                "worker-7/",
            ][..],
            "is not one path segment",
        ),
        (
            &[
                "check",
                "-",
                "--policy",
                "policies/incident.json",
                "--agent",
                "x/../worker-7",
            ][..],
            "is not one path segment",
        ),
        (
            &[
                "check",
                "-",
                "--policy",
                "policies/incident.json",
                "--agent",
                "worker-7\\",
            ][..],
            "is not one path segment",
        ),
        (
            &[
                "check",
                "-",
                "--policy",
                "policies/incident.json",
                "--agent",
                "..",
            ][..],
            "is not one path segment",
        ),
    ] {
        let out = cardgate(args, FRESH_CARD);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
    // An id with `/` is a policy agent's, escaped in a path (`team%2Fw7`): read as given.
    let dir = std::env::temp_dir().join(format!("cardgate-slash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let policy = dir.join("slash.json");
    std::fs::write(
        &policy,
        r#"{"defaults":{"max_stale":"1h"},"agents":{"team/w7":{"max_stale":"10s"}}}"#,
    )
    .unwrap();
    let out = check_as(&policy, "team/w7");
    assert_eq!(
        codes(&decision(&out)),
        ["watermark_exceeded"],
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
    for args in [
        &["check", "--help"][..],
        &["resolve", "--help"][..],
        &["check", "card.json", "--help"][..],
    ] {
        let out = cardgate(args, "");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let usage = String::from_utf8_lossy(&out.stdout);
        assert!(usage.contains("cardgate check"), "{args:?}");
        // It fits a 100-column terminal.
        for line in usage.lines() {
            assert!(
                line.chars().count() <= 100,
                "{} columns: {line}",
                line.len()
            );
        }
    }
}

#[test]
fn a_policy_with_agent_rules_needs_the_agent() {
    // Without --agent, policies/incident.json's defaults alone would pass the incident's card
    // that worker-7's rule refuses: refused as a usage error, for check and resolve alike.
    for command in ["check", "resolve"] {
        let target = if command == "check" {
            "-"
        } else {
            "http://127.0.0.1:9/card"
        };
        let args = [
            command,
            target,
            "--policy",
            "policies/incident.json",
            "--watermark-ms",
            "20000",
            "--now",
            NOW,
        ];
        let args: Vec<&str> = if command == "check" {
            args.to_vec()
        } else {
            let mut a = args.to_vec();
            a.drain(4..6);
            a
        };
        let out = cardgate(&args, STALE_CARD);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{command}");
        assert!(
            stderr(&out).contains("give --agent ID"),
            "{command}: {}",
            stderr(&out)
        );
    }
    // A policy of defaults alone needs no agent.
    let dir = std::env::temp_dir().join(format!("cardgate-defaults-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let policy = dir.join("defaults.json");
    std::fs::write(&policy, r#"{"defaults":{"max_stale":"10s"}}"#).unwrap();
    let out = cardgate(
        &[
            "check",
            "-",
            "--policy",
            policy.to_str().unwrap(),
            "--watermark-ms",
            "0",
            "--now",
            NOW,
        ],
        FRESH_CARD,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--require` adds to a policy rule's capabilities (the other flags replace the rule's members):
/// the rule's `task.execute.v3`, `binding:JSONRPC` and `protocol:1.0` stay required (the help and
/// DESIGN.md, "Requirement").
#[test]
fn require_flag_adds_to_the_policy_rules_capabilities() {
    let out = cardgate(
        &[
            "check",
            "-",
            "--policy",
            "policies/incident.json",
            "--agent",
            "worker-7",
            "--watermark-ms",
            "1500",
            "--require",
            "capability:pushNotifications",
            "--now",
            NOW,
        ],
        FRESH_CARD,
    );
    assert_eq!(out.status.code(), Some(1));
    let d = decision(&out);
    assert_eq!(codes(&d), ["capabilities_missing"]);
    let c = d.get("conditions").and_then(|c| c.get("c"));
    let message = c.and_then(|c| c.get("message")).and_then(|m| m.as_str());
    assert_eq!(
        message,
        Some(
            "card for worker-7 does not declare 1 of 4 required capabilities: capability:pushNotifications"
        )
    );
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

/// Each watermark flag sets its own figure: the staleness names it, and a figure the gate
/// refuses is refused for its own reason (a flag that set nothing would be
/// `freshness_unverifiable`).
#[test]
fn each_watermark_flag_sets_its_figure() {
    let base = ["check", "-", "--max-stale", "10s", "--now", NOW];
    let cases: &[(&[&str], Result<f64, &str>, &str)] = &[
        (&["--lag-ms", "4200"], Ok(4200.0), "lag_ms 4200 ms"),
        (&["--lag-s", "4.5"], Ok(4500.0), "lag_s 4.5 s"),
        (&["--lag-s", "40"], Err("watermark_exceeded"), "40000 ms"),
        (
            &["--synced-at", "2026-11-09T12:00:33Z"],
            Ok(7000.0),
            "synced_at 2026-11-09T12:00:33.000Z",
        ),
        (
            &[
                "--consul-last-contact-ms",
                "4000",
                "--consul-known-leader",
                "true",
            ],
            Ok(4000.0),
            "consul_last_contact_ms 4000 ms",
        ),
        (
            &[
                "--consul-known-leader",
                "false",
                "--consul-last-contact-ms",
                "0",
            ],
            Err("leader_unknown"),
            "KnownLeader false",
        ),
        (
            &["--consul-last-contact-ms", "4000"],
            Err("watermark_invalid"),
            "without consul_known_leader",
        ),
        (&["--lag-ms", "1000", "--age-s", "3"], Ok(4000.0), "age"),
    ];
    for (extra, expected, says) in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let out = cardgate(&args, FRESH_CARD);
        let d = decision(&out);
        let text = cardgate::jcs::canonicalize(&d);
        assert!(text.contains(says), "{extra:?}: {text}");
        match expected {
            Ok(staleness) => {
                assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", stderr(&out));
                let got = d.get("staleness_ms").and_then(|v| v.as_f64());
                assert_eq!(got, Some(*staleness), "{extra:?}");
            }
            Err(code) => {
                assert_eq!(out.status.code(), Some(1), "{extra:?}");
                assert_eq!(codes(&d), [*code], "{extra:?}");
            }
        }
    }
}

/// `check FILE --policy -`: the policy from stdin when the card is not read from there (the
/// other way round is refused: `bad_arguments_exit_2_with_one_line`).
#[test]
fn check_reads_the_policy_from_stdin_when_the_card_is_a_file() {
    let dir = std::env::temp_dir().join(format!("cardgate-stdin-policy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let card = dir.join("card.json");
    std::fs::write(&card, FRESH_CARD).unwrap();
    let policy = std::fs::read_to_string("policies/incident.json").unwrap();
    let args = |lag: &'static str| {
        [
            "check",
            card.to_str().unwrap(),
            "--policy",
            "-",
            "--agent",
            "worker-7",
            "--watermark-ms",
            lag,
        ]
        .map(str::to_owned)
    };
    // worker-7's rule (10 s) from the policy on stdin: 20 s refused, 2 s passes.
    let out = cardgate(&args("20000").each_ref().map(String::as_str), &policy);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(codes(&decision(&out)), ["watermark_exceeded"]);
    let out = cardgate(&args("2000").each_ref().map(String::as_str), &policy);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------- input, argument and output edges

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

/// Runs cardgate with raw (possibly non-UTF-8) arguments, stdin from `stdin`.
fn cardgate_os(args: &[OsString], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cardgate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cardgate");
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn os(parts: &[&str]) -> Vec<OsString> {
    parts.iter().map(OsString::from).collect()
}

/// Runs cardgate with `args` while a thread feeds stdin an endless stream (up to `feed` bytes,
/// far more than any limit); returns the output and whether the feeder was cut off (a broken
/// pipe: cardgate stopped reading and exited before taking it all).
fn with_endless_stdin(args: &[&str], feed: usize) -> (Output, bool) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cardgate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cardgate");
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let chunk = vec![b' '; 1 << 16];
        let mut sent = 0;
        while sent < feed {
            if stdin.write_all(&chunk).is_err() {
                return true;
            }
            sent += chunk.len();
        }
        false
    });
    let out = child.wait_with_output().unwrap();
    (out, feeder.join().unwrap())
}

/// A shell that caps cardgate's address space at 1 GiB, so that an unbounded read of
/// `/dev/zero` fails the test (allocation failure) instead of eating the machine's memory.
fn capped(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_cardgate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn figure(d: &cardgate::json::Value, name: &str) -> f64 {
    d.get("reasons").unwrap().as_array().unwrap()[0]
        .get("figures")
        .unwrap()
        .get(name)
        .unwrap()
        .as_f64()
        .unwrap()
}

#[test]
fn dev_zero_is_read_only_to_the_limit_plus_one() {
    // check: the typed body_too_large decision, "at least" limit + 1 bytes (a device has no size).
    let out = capped(&[
        "check",
        "/dev/zero",
        "--max-stale",
        "10s",
        "--watermark-ms",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(codes(&d), ["body_too_large"]);
    assert_eq!(figure(&d, "body_bytes"), 65_537.0);
    assert_eq!(figure(&d, "max_card_bytes"), 65_536.0);
    assert!(
        d.get("detail")
            .unwrap()
            .as_str()
            .unwrap()
            .contains("at least 65537 bytes"),
        "{d:?}"
    );
    let out = capped(&["check", "/dev/zero", "--max-card-bytes", "10"]);
    assert_eq!(figure(&decision(&out), "body_bytes"), 11.0);
    // Everything else that reads a file: exit 2 with one line naming the limit.
    for args in [
        &["hash", "/dev/zero"][..],
        &["canonicalize", "/dev/zero"],
        &["policy", "check", "/dev/zero"],
        &["check", "Cargo.toml", "--policy", "/dev/zero"],
    ] {
        let out = capped(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("at least") && err.contains("more than the limit"),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn an_endless_stdin_is_cut_off_at_the_limit() {
    for (args, code) in [
        (
            &["check", "-", "--max-stale", "10s", "--watermark-ms", "0"][..],
            1,
        ),
        (&["hash", "-"], 2),
        (&["canonicalize", "-"], 2),
        (&["policy", "check", "-"], 2),
        (&["check", "Cargo.toml", "--policy", "-"], 2),
    ] {
        // 64 MiB: more than every limit (the largest, canonicalize's, is 16 MiB).
        let (out, cut_off) = with_endless_stdin(args, 64 << 20);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        assert!(cut_off, "{args:?}: cardgate read the whole stream");
    }
}

#[test]
fn an_oversized_regular_file_reports_its_exact_size() {
    // The body_too_large figure and detail of a check, with `extra` options.
    let too_large = |card: &str, extra: &[&str], stdin: &str| {
        let mut args = vec!["check", card, "--max-stale", "10s", "--watermark-ms", "0"];
        args.extend_from_slice(extra);
        let d = decision(&cardgate(&args, stdin));
        assert_eq!(codes(&d), ["body_too_large"], "{args:?}");
        let detail = d.get("detail").unwrap().as_str().unwrap().to_owned();
        (figure(&d, "body_bytes"), detail)
    };
    let dir = std::env::temp_dir().join(format!("cardgate-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.json");
    std::fs::write(&path, vec![b' '; 71_030]).unwrap();
    let p = path.to_str().unwrap();
    let (bytes, detail) = too_large(p, &[], "");
    assert_eq!(bytes, 71_030.0);
    assert!(detail.contains("is 71030 bytes"), "{detail}");
    // The same bytes over stdin: no size to ask, so a lower bound, said as one.
    let (bytes, detail) = too_large("-", &[], &" ".repeat(71_030));
    assert_eq!(bytes, 65_537.0);
    assert!(detail.contains("at least 65537 bytes"), "{detail}");
    // Stdin redirected from the file (`< big.json`) has a size too.
    let out = Command::new(env!("CARGO_BIN_EXE_cardgate"))
        .args(["check", "-", "--max-stale", "10s", "--watermark-ms", "0"])
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    assert_eq!(figure(&decision(&out), "body_bytes"), 71_030.0);
    let out = cardgate(&["hash", p], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is 71030 bytes"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
    // A regular file whose length its metadata does not tell (procfs says 0): the bytes read,
    // said as a lower bound, never the 0.
    let (bytes, detail) = too_large("/proc/self/maps", &["--max-card-bytes", "64"], "");
    assert_eq!(bytes, 65.0);
    assert!(detail.contains("at least 65 bytes"), "{detail}");
}

#[test]
fn a_watermark_figure_given_twice_is_refused() {
    let base = ["check", "-", "--max-stale", "10s", "--now", NOW];
    let cases: &[&[&str]] = &[
        &["--watermark-ms", "40000", "--watermark-ms", "0"],
        &["--watermark-ms", "40000", "--watermark-ms", "40000"],
        &["--watermark-ms", "40000", "--lag-ms", "0"],
        &["--watermark-ms=40000", "--observation", r#"{"lag_ms":"0"}"#],
        &["--observation", r#"{"lag_ms":"0"}"#, "--lag-ms", "40000"],
        &["--lag-s", "40", "--lag-s", "0"],
        &["--age-s", "30", "--observation", r#"{"age_s":0}"#],
        &["--synced-at", NOW, "--synced-at", "2026-11-09T12:00:00Z"],
        &[
            "--consul-known-leader",
            "true",
            "--consul-known-leader",
            "false",
        ],
        &[
            "--consul-last-contact-ms",
            "1",
            "--observation",
            r#"{"consul_last_contact_ms":"9"}"#,
        ],
        &[
            "--observation",
            r#"{"lag_ms":"0"}"#,
            "--observation",
            r#"{"lag_ms":"9"}"#,
        ],
        &["--observation", r#"{"now":"2026-11-09T12:00:00Z"}"#],
    ];
    for extra in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let out = cardgate(&args, FRESH_CARD);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("given twice"), "{extra:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{extra:?}: {err}");
        assert!(out.stdout.is_empty(), "{extra:?}");
    }
    // A figure is named with both its sources; `--observation` itself is given once, even when
    // the two documents hold different figures.
    for (extra, says) in [
        (
            &["--watermark-ms", "1", "--lag-ms", "0"][..],
            "cardgate: the watermark lag_ms is given twice (--watermark-ms, then --lag-ms): give each figure once",
        ),
        (
            &["--now", NOW],
            "cardgate: the watermark now is given twice (--now, then --now): give each figure once",
        ),
        (
            &[
                "--observation",
                r#"{"lag_ms":1}"#,
                "--observation",
                r#"{"age_s":1}"#,
            ],
            "cardgate: --observation is given twice: give it once",
        ),
    ] {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let out = cardgate(&args, FRESH_CARD);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert_eq!(stderr(&out).trim_end(), says, "{extra:?}");
    }
    // Other single-valued options too; --require stays repeatable; disjoint sources combine.
    for extra in [
        &["--max-stale", "1h"][..],
        &[
            "--pin",
            "sha256:0000000000000000000000000000000000000000000000000000000000000000",
        ],
        &["--max-card-bytes", "1", "--max-card-bytes", "2"],
    ] {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        if extra[0] == "--pin" {
            args.extend_from_slice(extra);
        }
        let out = cardgate(&args, FRESH_CARD);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(stderr(&out).contains("given twice"), "{}", stderr(&out));
    }
    let out = cardgate(
        &[
            "check",
            "-",
            "--max-stale",
            "10s",
            "--require",
            "task.execute.v3",
            "--require",
            "capability:streaming",
            "--watermark-ms",
            "3000",
            "--observation",
            r#"{"age_s":"2","now":"2026-11-09T12:00:40Z"}"#,
        ],
        FRESH_CARD,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        decision(&out).get("staleness_ms").unwrap().as_f64(),
        Some(5000.0)
    );
}

#[test]
fn non_utf8_arguments_do_not_abort() {
    let dir = std::env::temp_dir().join(format!("cardgate-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut name = b"card-".to_vec();
    name.extend_from_slice(&[0xff, 0xfe]);
    name.extend_from_slice(b".json");
    let card = dir.join(OsString::from_vec(name));
    std::fs::write(&card, FRESH_CARD).unwrap();
    let policy = dir.join(OsString::from_vec(b"policy-\xff.json".to_vec()));
    std::fs::write(&policy, r#"{"defaults":{"max_stale":"10s"}}"#).unwrap();

    // A non-UTF-8 file name works wherever a file is read.
    let mut args = os(&["check"]);
    args.push(card.clone().into_os_string());
    args.extend(os(&["--watermark-ms", "0", "--policy"]));
    args.push(policy.clone().into_os_string());
    let out = cardgate_os(&args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut inline = OsString::from("--policy=");
    inline.push(policy.as_os_str());
    let args = vec![
        OsString::from("check"),
        OsString::from("-"),
        OsString::from("--watermark-ms=0"),
        inline,
    ];
    let out = cardgate_os(&args, FRESH_CARD.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = cardgate_os(
        &[OsString::from("hash"), card.clone().into_os_string()],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("sha256:"));
    let mut args = os(&["policy", "check"]);
    args.push(policy.clone().into_os_string());
    let out = cardgate_os(&args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A missing non-UTF-8 file name is an ordinary read error.
    let out = cardgate_os(
        &[
            OsString::from("hash"),
            OsString::from_vec(b"/nonexistent/\xff".to_vec()),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read"), "{}", stderr(&out));

    // Where text is needed, a non-UTF-8 value is exit 2 with one line.
    let bad = || OsString::from_vec(b"task\xff".to_vec());
    let cases: Vec<Vec<OsString>> = vec![
        [os(&["check", "-", "--require"]), vec![bad()]].concat(),
        [os(&["check", "-", "--max-stale"]), vec![bad()]].concat(),
        [os(&["check", "-", "--watermark-ms"]), vec![bad()]].concat(),
        [os(&["check", "-", "--now"]), vec![bad()]].concat(),
        [os(&["check", "-", "--observation"]), vec![bad()]].concat(),
        vec![OsString::from("check"), OsString::from("-"), {
            let mut a = OsString::from("--agent=");
            a.push(bad());
            a
        }],
        vec![bad()],
        [os(&["policy"]), vec![bad(), OsString::from("x")]].concat(),
    ];
    for args in cases {
        let out = cardgate_os(&args, FRESH_CARD.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).lines().count(),
            1,
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_full_stdout_is_exit_2_with_a_message() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let cases: &[&[&str]] = &[
        &["hash", "-"],
        &["canonicalize", "-"],
        &["policy", "check", "policies/incident.json"],
        &[
            "check",
            "-",
            "--max-stale",
            "10s",
            "--watermark-ms",
            "0",
            "--require",
            "task.execute.v3",
        ],
        &[
            "check",
            "-",
            "--max-stale",
            "10s",
            "--watermark-ms",
            "40000",
        ],
        &["--version"],
        &["--help"],
    ];
    for args in cases {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cardgate"))
            .args(*args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::piped())
            .stdout(full())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(FRESH_CARD.as_bytes());
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("cannot write output"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn sub_millisecond_staleness_rounds_up() {
    // The issue's example: 10000.9 ms of lag is 10001 ms, over a 10 s tolerance.
    let out = cardgate(
        &[
            "check",
            "-",
            "--synced-at",
            "2026-11-09T12:00:30Z",
            "--now",
            "2026-11-09T12:00:40.0009Z",
            "--max-stale",
            "10s",
        ],
        FRESH_CARD,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(codes(&d), ["watermark_exceeded"]);
    assert_eq!(d.get("staleness_ms").unwrap().as_f64(), Some(10_001.0));
    let out = cardgate(
        &[
            "check",
            "-",
            "--watermark-ms",
            "10000.0001",
            "--max-stale",
            "10s",
        ],
        FRESH_CARD,
    );
    assert_eq!(out.status.code(), Some(1));
}

// ---------------------------------------------------------------- cardgate resolve

/// A small HTTP/1.1 server on 127.0.0.1 for `resolve`: each path answers as configured, and
/// every request (path and lowercase header lines) is recorded.
mod fixture {
    use std::collections::HashMap;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    #[derive(Clone)]
    pub enum Answer {
        /// Status, extra headers, body.
        With(u16, Vec<(&'static str, String)>, Vec<u8>),
        /// Accept the request and never answer (until the test process ends).
        Stall,
        /// Send the status line, these headers and part of the body, then stall.
        StallBody(Vec<(&'static str, String)>, Vec<u8>),
        /// These bytes as the whole answer, then close.
        Raw(Vec<u8>),
    }

    /// Each request: its path and its header lines (lowercase).
    type Log = Mutex<Vec<(String, Vec<String>)>>;

    pub struct Server {
        pub base: String,
        requests: Arc<Log>,
    }

    impl Server {
        pub fn start(routes: Vec<(&'static str, Answer)>) -> Server {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            let routes: Arc<HashMap<&'static str, Answer>> = Arc::new(routes.into_iter().collect());
            let requests = Arc::new(Mutex::new(Vec::new()));
            let seen = Arc::clone(&requests);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    let Ok(stream) = stream else { continue };
                    let routes = Arc::clone(&routes);
                    let seen = Arc::clone(&seen);
                    std::thread::spawn(move || serve(stream, &routes, &seen));
                }
            });
            Server { base, requests }
        }

        pub fn url(&self, path: &str) -> String {
            format!("{}{path}", self.base)
        }

        /// How many requests reached `path`.
        pub fn hits(&self, path: &str) -> usize {
            self.requests
                .lock()
                .unwrap()
                .iter()
                .filter(|(p, _)| p == path)
                .count()
        }

        /// The header lines (lowercase) of the last request to `path`.
        pub fn last_headers(&self, path: &str) -> Vec<String> {
            let requests = self.requests.lock().unwrap();
            let found = requests.iter().rev().find(|(p, _)| p == path);
            found.map(|(_, h)| h.clone()).unwrap_or_default()
        }
    }

    /// A request's head, read byte by byte up to its blank line (never past it); `None` when
    /// the stream ends or fails first.
    pub fn read_head(stream: &mut impl Read) -> Option<Vec<u8>> {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            match stream.read(&mut byte) {
                Ok(1) => head.push(byte[0]),
                _ => return None,
            }
        }
        Some(head)
    }

    fn serve(mut stream: TcpStream, routes: &HashMap<&'static str, Answer>, seen: &Log) {
        let Some(head) = read_head(&mut stream) else {
            return;
        };
        let text = String::from_utf8_lossy(&head).to_string();
        let mut lines = text.split("\r\n");
        let path = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .unwrap_or("")
            .to_string();
        let headers = lines
            .filter(|l| !l.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        seen.lock().unwrap().push((path.clone(), headers));
        let answer = routes.get(path.as_str()).cloned().unwrap_or(Answer::With(
            404,
            vec![],
            b"no route".to_vec(),
        ));
        match answer {
            Answer::Stall => std::thread::sleep(Duration::from_secs(30)),
            Answer::Raw(bytes) => {
                let _ = stream.write_all(&bytes);
            }
            Answer::StallBody(headers, part) => {
                let mut out = String::from("HTTP/1.1 200 OK\r\n");
                for (name, value) in headers {
                    out.push_str(&format!("{name}: {value}\r\n"));
                }
                out.push_str("\r\n");
                let _ = stream.write_all(out.as_bytes());
                let _ = stream.write_all(&part);
                std::thread::sleep(Duration::from_secs(30));
            }
            Answer::With(status, extra, body) => {
                let mut out = format!(
                    "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\nconnection: close\r\n",
                    match status {
                        200 => "OK",
                        404 => "Not Found",
                        500 => "Internal Server Error",
                        _ => "Other",
                    }
                );
                if !extra.iter().any(|(n, _)| *n == "content-length") {
                    out.push_str(&format!("content-length: {}\r\n", body.len()));
                }
                for (name, value) in extra {
                    out.push_str(&format!("{name}: {value}\r\n"));
                }
                out.push_str("\r\n");
                let _ = stream.write_all(out.as_bytes());
                let _ = stream.write_all(&body);
            }
        }
    }

    /// A URL on 127.0.0.1 where nothing listens (a port bound, then released).
    pub fn refused_url() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        format!("http://127.0.0.1:{port}/card.json")
    }
}

use fixture::{Answer as Serve, Server};

/// A card answer with a replica lag header.
fn card_with_lag(body: &str, lag_ms: &str) -> Serve {
    Serve::With(
        200,
        vec![("x-replica-lag-ms", lag_ms.to_string())],
        body.as_bytes().to_vec(),
    )
}

const REQUIRE_V3: [&str; 4] = ["--require", "task.execute.v3", "--max-stale", "10s"];

fn resolve(urls: &[String], extra: &[&str]) -> (Output, std::time::Duration) {
    let started = std::time::Instant::now();
    let out = resolve_with(urls, extra, "", &[]);
    (out, started.elapsed())
}

/// `resolve` of these URLs with the peers' requirement, `extra` options, `stdin` and only
/// these of the proxy variables set ([`cardgate_with_env`]).
fn resolve_with(urls: &[String], extra: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut args: Vec<&str> = vec!["resolve"];
    args.extend(urls.iter().map(String::as_str));
    args.extend(REQUIRE_V3);
    args.extend(extra);
    cardgate_with_env(&args, stdin, env)
}

/// The decision of a `resolve` that accepted exactly `card` (exit 0, `valid`, its hash).
fn valid_with_card(out: &Output, card: &str) -> cardgate::json::Value {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    let d = decision(out);
    assert_eq!(d.get("verdict").unwrap().as_str(), Some("valid"));
    let hash = String::from_utf8(cardgate(&["hash", "-"], card).stdout).unwrap();
    assert_eq!(d.get("card_hash").unwrap().as_str(), Some(hash.trim()));
    d
}

/// `[source, verdict, error_class]` of each attempt (error_class `-` when there is none).
fn attempts(d: &cardgate::json::Value) -> Vec<[String; 3]> {
    let list = d
        .get("resolution")
        .and_then(|r| r.get("attempts"))
        .and_then(|a| a.as_array())
        .unwrap_or_else(|| {
            panic!(
                "no resolution.attempts in {}",
                cardgate::jcs::canonicalize(d)
            )
        });
    list.iter()
        .map(|a| {
            let s = |k: &str| a.get(k).and_then(|v| v.as_str()).unwrap_or("-").to_string();
            [s("source"), s("verdict"), s("error_class")]
        })
        .collect()
}

fn resolution_str(d: &cardgate::json::Value, key: &str) -> Option<String> {
    d.get("resolution")?.get(key)?.as_str().map(str::to_string)
}

#[test]
fn resolve_with_card_name_moves_on_from_another_agents_card() {
    // A replica that serves another agent's fresh card: accepted (it meets the requirement)
    // or a stop (it lacks a capability) without --card-name; re-resolved with it.
    let other = FRESH_CARD.replace(r#""name":"worker-7""#, r#""name":"worker-8""#);
    let lacking = STALE_CARD.replace(r#""name":"worker-7""#, r#""name":"billing""#);
    assert_ne!(other, FRESH_CARD);
    assert_ne!(lacking, STALE_CARD);
    let server = Server::start(vec![
        ("/other", card_with_lag(&other, "0")),
        ("/lacking", card_with_lag(&lacking, "0")),
        ("/primary", card_with_lag(FRESH_CARD, "0")),
    ]);
    let primary = server.url("/primary");
    for replica in ["/other", "/lacking"] {
        let urls = [server.url(replica), primary.clone()];
        let (plain, _) = resolve(&urls, &[]);
        let d = decision(&plain);
        assert!(
            resolution_str(&d, "source").is_none() && d.get("resolution").is_none(),
            "{replica}: without a name the replica's answer is the decision"
        );
        let (out, _) = resolve(&urls, &["--card-name", "worker-7"]);
        assert_eq!(out.status.code(), Some(0), "{replica}: {}", stderr(&out));
        let d = decision(&out);
        assert_eq!(resolution_str(&d, "source"), Some(primary.clone()));
        assert_eq!(
            attempts(&d),
            vec![
                [
                    urls[0].clone(),
                    "rejected".into(),
                    "stale_agent_card".into()
                ],
                [primary.clone(), "valid".into(), "-".into()],
            ],
            "{replica}"
        );
    }
    // Every source serving another agent's card: the last one's card_name_mismatch.
    let urls = [server.url("/other"), server.url("/lacking")];
    let (out, _) = resolve(&urls, &["--card-name", "worker-7"]);
    assert_eq!(out.status.code(), Some(1));
    let d = decision(&out);
    assert_eq!(codes(&d), ["card_name_mismatch", "capabilities_missing"]);
    assert_eq!(
        resolution_str(&d, "outcome").as_deref(),
        Some("sources_exhausted")
    );
}

#[test]
fn resolve_stale_replica_then_valid_primary_accepts_the_primary_card() {
    let server = Server::start(vec![
        ("/replica", card_with_lag(STALE_CARD, "40000")),
        ("/primary", card_with_lag(FRESH_CARD, "0")),
    ]);
    let urls = [server.url("/replica"), server.url("/primary")];
    let (out, _) = resolve(&urls, &[]);
    let d = valid_with_card(&out, FRESH_CARD);
    assert_eq!(resolution_str(&d, "outcome").as_deref(), Some("accepted"));
    assert_eq!(resolution_str(&d, "source"), Some(urls[1].clone()));
    assert_eq!(
        attempts(&d),
        vec![
            [
                urls[0].clone(),
                "rejected".into(),
                "stale_agent_card".into()
            ],
            [urls[1].clone(), "valid".into(), "-".into()],
        ]
    );
    assert_eq!((server.hits("/replica"), server.hits("/primary")), (1, 1));
    let sent = server.last_headers("/primary");
    for want in [
        "accept-encoding: identity",
        "a2a-version: 1.0",
        "accept: application/json",
    ] {
        assert!(sent.iter().any(|h| h == want), "{want} not in {sent:?}");
    }
}

#[test]
fn resolve_stale_and_stale_is_rejected_with_both_attempts() {
    let server = Server::start(vec![
        ("/replica", card_with_lag(STALE_CARD, "40000")),
        ("/primary", card_with_lag(FRESH_CARD, "15000")),
    ]);
    let urls = [server.url("/replica"), server.url("/primary")];
    let (out, _) = resolve(&urls, &[]);
    assert_eq!(out.status.code(), Some(1));
    let d = decision(&out);
    assert_eq!(
        d.get("error_class").unwrap().as_str(),
        Some("stale_agent_card")
    );
    assert_eq!(
        d.get("staleness_ms").unwrap().as_f64(),
        Some(15000.0),
        "the primary's rejection"
    );
    assert_eq!(
        resolution_str(&d, "outcome").as_deref(),
        Some("sources_exhausted")
    );
    assert_eq!(
        attempts(&d),
        vec![
            [
                urls[0].clone(),
                "rejected".into(),
                "stale_agent_card".into()
            ],
            [
                urls[1].clone(),
                "rejected".into(),
                "stale_agent_card".into()
            ],
        ]
    );
    assert!(stderr(&out).contains("rejected (stale_agent_card)"));
}

/// Nineteenth session: a body that stalls past `--timeout` is a timeout. ureq's body reader
/// reports it as an io error wrapping `ureq::Error::Timeout` (kind `Other`), which `resolve`
/// recorded as `reading the body failed: timeout: global`, not as a timeout: the deadline was not
/// counted as spent, so a resolution whose last source stalled ended `sources_exhausted` rather
/// than `deadline_passed`.
#[test]
fn resolve_a_body_that_stalls_is_a_timeout() {
    let part = FRESH_CARD.as_bytes()[..20].to_vec();
    let headers = vec![
        ("content-type", "application/json".to_owned()),
        ("x-replica-lag-ms", "0".to_owned()),
        ("content-length", FRESH_CARD.len().to_string()),
    ];
    let server = Server::start(vec![("/stall", Serve::StallBody(headers, part))]);
    let urls = [server.url("/stall")];
    let (out, took) = resolve(&urls, &["--timeout", "300ms", "--deadline", "300ms"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
    let d = decision(&out);
    assert_eq!(
        attempt_urls(&d),
        [[
            urls[0].clone(),
            "-".into(),
            "timeout after 300 ms while reading the body".into()
        ]]
    );
    assert_eq!(
        resolution_str(&d, "outcome").as_deref(),
        Some("deadline_passed")
    );
}

/// A body that stalls after a redirect is a timeout at the URL that answered; a body the server
/// cuts short (its connection closed before `Content-Length`) is a failed read, not a timeout.
#[test]
fn resolve_a_body_cut_short_or_stalled_after_a_redirect_names_its_cause_and_url() {
    let part = FRESH_CARD.as_bytes()[..20].to_vec();
    let headers = vec![
        ("x-replica-lag-ms", "0".to_owned()),
        ("content-length", FRESH_CARD.len().to_string()),
    ];
    let server = Server::start(vec![
        ("/to-stall", redirect(302, "/stall")),
        ("/stall", Serve::StallBody(headers.clone(), part.clone())),
        ("/short", Serve::With(200, headers, part)),
    ]);
    let urls = [server.url("/to-stall")];
    let (out, _) = resolve(&urls, &["--timeout", "300ms", "--deadline", "300ms"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        attempt_urls(&decision(&out)),
        [[
            urls[0].clone(),
            server.url("/stall"),
            "timeout after 300 ms while reading the body".into()
        ]]
    );
    let urls = [server.url("/short")];
    let (out, _) = resolve(&urls, &["--timeout", "5s"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = decision(&out);
    let [[source, final_url, error]] = <[_; 1]>::try_from(attempt_urls(&d)).unwrap();
    assert_eq!((source, final_url), (urls[0].clone(), "-".to_owned()));
    assert!(error.starts_with("reading the body failed: "), "{error}");
    assert_eq!(
        resolution_str(&d, "outcome").as_deref(),
        Some("sources_exhausted")
    );
}

/// A `synced_at` watermark from the response is judged against the clock when the card
/// arrives; `--no-clock` takes the clock away (`clock_missing`), and a `--now` given with it is
/// the time used.
#[test]
fn resolve_judges_a_synced_at_header_by_the_clock_unless_told_otherwise() {
    let now_ms = unix_ms_now();
    let synced = cardgate::Timestamp::from_unix_ms(now_ms - 2_000).to_rfc3339();
    let later = cardgate::Timestamp::from_unix_ms(now_ms + 1_000).to_rfc3339();
    let server = Server::start(vec![(
        "/card",
        Serve::With(
            200,
            vec![("x-replica-synced-at", synced)],
            FRESH_CARD.as_bytes().to_vec(),
        ),
    )]);
    let urls = [server.url("/card")];
    let (out, _) = resolve(&urls, &[]);
    let d = valid_with_card(&out, FRESH_CARD);
    let staleness = d.get("staleness_ms").and_then(|v| v.as_f64()).unwrap();
    assert!((2_000.0..10_000.0).contains(&staleness), "{staleness}");
    let (out, _) = resolve(&urls, &["--no-clock"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(codes(&decision(&out)), ["clock_missing"]);
    let (out, _) = resolve(&urls, &["--no-clock", "--now", &later]);
    let d = valid_with_card(&out, FRESH_CARD);
    assert_eq!(
        d.get("staleness_ms").and_then(|v| v.as_f64()),
        Some(3_000.0)
    );
}

#[test]
fn resolve_a_primary_that_never_answers_fails_within_the_timeout() {
    let server = Server::start(vec![
        ("/replica", card_with_lag(STALE_CARD, "40000")),
        ("/primary", Serve::Stall),
    ]);
    let urls = [server.url("/replica"), server.url("/primary")];
    let (out, took) = resolve(&urls, &["--timeout", "300ms"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
    let d = decision(&out);
    assert_eq!(
        d.get("error_class").unwrap().as_str(),
        Some("stale_agent_card")
    );
    assert_eq!(
        resolution_str(&d, "source"),
        Some(urls[0].clone()),
        "the replica's rejection stands"
    );
    let list = d
        .get("resolution")
        .unwrap()
        .get("attempts")
        .unwrap()
        .as_array()
        .unwrap();
    assert_eq!(list[1].get("verdict").unwrap().as_str(), Some("failed"));
    assert_eq!(
        list[1].get("error").unwrap().as_str(),
        Some("timeout after 300 ms")
    );
    assert_eq!(server.hits("/primary"), 1);

    // Without --timeout each fetch may take what is left of the deadline, and no more.
    let (out, took) = resolve(&urls, &["--deadline", "400ms"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
    let d = decision(&out);
    assert_eq!(
        resolution_str(&d, "outcome").as_deref(),
        Some("deadline_passed")
    );
    let list = d
        .get("resolution")
        .unwrap()
        .get("attempts")
        .unwrap()
        .as_array()
        .unwrap();
    let error = list[1].get("error").unwrap().as_str().unwrap();
    assert!(error.starts_with("timeout after "), "{error}");

    // A stalled first source gives way to the next within the deadline.
    let server = Server::start(vec![
        ("/replica", Serve::Stall),
        ("/primary", card_with_lag(FRESH_CARD, "0")),
    ]);
    let urls = [server.url("/replica"), server.url("/primary")];
    let (out, _) = resolve(&urls, &["--timeout", "200ms", "--deadline", "5s"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn resolve_a_fresh_card_lacking_the_capability_never_asks_the_second_source() {
    let server = Server::start(vec![
        ("/replica", card_with_lag(STALE_CARD, "0")),
        ("/primary", card_with_lag(FRESH_CARD, "0")),
    ]);
    let urls = [server.url("/replica"), server.url("/primary")];
    let (out, _) = resolve(&urls, &[]);
    assert_eq!(out.status.code(), Some(1));
    let d = decision(&out);
    assert_eq!(
        d.get("error_class").unwrap().as_str(),
        Some("capability_mismatch")
    );
    assert_eq!(d.get("status").unwrap().as_f64(), Some(409.0));
    assert!(
        d.get("resolution").is_none(),
        "one attempt that ended it: the plain decision"
    );
    assert_eq!(
        server.hits("/primary"),
        0,
        "the second source was never contacted"
    );
    // Byte for byte what `check` says about the same card and lag.
    let check = cardgate(
        &[
            "check",
            "-",
            "--require",
            "task.execute.v3",
            "--max-stale",
            "10s",
            "--watermark-ms",
            "0",
            "--now",
            NOW,
        ],
        STALE_CARD,
    );
    let (again, _) = resolve(&urls[..1], &["--now", NOW]);
    assert_eq!(again.stdout, check.stdout);
}

#[test]
fn resolve_malformed_or_encoded_then_valid() {
    let truncated = &FRESH_CARD[..80];
    let server = Server::start(vec![
        ("/truncated", card_with_lag(truncated, "0")),
        (
            "/gzip",
            Serve::With(
                200,
                vec![
                    ("x-replica-lag-ms", "0".into()),
                    ("content-encoding", "gzip".into()),
                ],
                vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0],
            ),
        ),
        (
            "/huge",
            Serve::With(
                200,
                vec![("x-replica-lag-ms", "0".into())],
                vec![b' '; 70_000],
            ),
        ),
        ("/primary", card_with_lag(FRESH_CARD, "0")),
    ]);
    for (first, code) in [
        ("/truncated", "json_syntax"),
        ("/gzip", "body_encoded"),
        ("/huge", "body_too_large"),
    ] {
        let urls = [server.url(first), server.url("/primary")];
        let (out, _) = resolve(&urls, &[]);
        assert_eq!(out.status.code(), Some(0), "{first}: {}", stderr(&out));
        let d = decision(&out);
        assert_eq!(
            attempts(&d),
            vec![
                [urls[0].clone(), "rejected".into(), "malformed_card".into()],
                [urls[1].clone(), "valid".into(), "-".into()],
            ],
            "{first}"
        );
        let first_attempt = &d
            .get("resolution")
            .unwrap()
            .get("attempts")
            .unwrap()
            .as_array()
            .unwrap()[0];
        let reasons = first_attempt.get("reasons").unwrap().as_array().unwrap();
        assert_eq!(
            reasons[0].get("code").unwrap().as_str(),
            Some(code),
            "{first}"
        );
        if code == "body_too_large" {
            let message = reasons[0].get("message").unwrap().as_str().unwrap();
            assert!(
                message.contains("70000 bytes"),
                "the declared length is exact: {message}"
            );
        }
    }
}

#[test]
fn resolve_every_source_down_is_source_unavailable() {
    let server = Server::start(vec![(
        "/broken",
        Serve::With(500, vec![], b"oops".to_vec()),
    )]);
    let urls = [fixture::refused_url(), server.url("/broken")];
    let (out, _) = resolve(&urls, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(
        d.get("error_class").unwrap().as_str(),
        Some("malformed_card")
    );
    assert_eq!(d.get("status").unwrap().as_f64(), Some(502.0));
    assert_eq!(codes(&d), ["source_unavailable"]);
    assert!(d
        .get("resolution")
        .unwrap()
        .get("source")
        .is_some_and(|v| *v == cardgate::json::Value::Null));
    let list = d
        .get("resolution")
        .unwrap()
        .get("attempts")
        .unwrap()
        .as_array()
        .unwrap();
    let errors: Vec<&str> = list
        .iter()
        .map(|a| a.get("error").unwrap().as_str().unwrap())
        .collect();
    assert_eq!(
        errors,
        ["connection refused", "HTTP 500 Internal Server Error"]
    );
}

/// A redirect to `to` (a path on the same server, or an absolute URL).
fn redirect(status: u16, to: &str) -> Serve {
    Serve::With(status, vec![("location", to.to_string())], vec![])
}

/// `(source, final_url, error)` of each attempt (`-` when absent).
fn attempt_urls(d: &cardgate::json::Value) -> Vec<[String; 3]> {
    let list = d.get("resolution").unwrap().get("attempts").unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let s = |k: &str| a.get(k).and_then(|v| v.as_str()).unwrap_or("-").to_string();
            [s("source"), s("final_url"), s("error")]
        })
        .collect()
}

#[test]
fn resolve_records_the_url_that_answered_after_redirects() {
    // 302 then 301 (a relative Location each), then the card with its own watermark header.
    let server = Server::start(vec![
        ("/a", redirect(302, "/b")),
        ("/b", redirect(301, "/card")),
        ("/card", card_with_lag(FRESH_CARD, "0")),
    ]);
    let urls = [server.url("/a")];
    let (out, _) = resolve(&urls, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(d.get("verdict").unwrap().as_str(), Some("valid"));
    // A single redirected attempt is reported: the card came from elsewhere than the URL asked.
    assert_eq!(
        attempt_urls(&d),
        [[urls[0].clone(), server.url("/card"), "-".into()]]
    );
    assert_eq!(resolution_str(&d, "source"), Some(urls[0].clone()));
    assert_eq!(
        resolution_str(&d, "message"),
        Some(format!(
            "accepted the card from {} (redirected to {}) at attempt 1",
            urls[0],
            server.url("/card")
        ))
    );
    assert_eq!(
        (server.hits("/a"), server.hits("/b"), server.hits("/card")),
        (1, 1, 1)
    );
    // Without a redirect the same card prints the plain decision, as before.
    let (plain, _) = resolve(&[server.url("/card")], &[]);
    assert_eq!(plain.status.code(), Some(0));
    assert!(decision(&plain).get("resolution").is_none());
}

/// A source URL read by the URL Standard: each one `resolve` will not ask is exit 2 with one
/// line naming the cause, before any request (the hosts here do not exist).
#[test]
fn resolve_refuses_source_urls_by_their_cause() {
    for (url, message) in [
        (
            "not a url",
            r#""not a url" is not a URL: it has no scheme (not an http:// or https:// URL)"#,
        ),
        (
            "http://[::1",
            r#""http://[::1" is not a URL: invalid IPv6 address"#,
        ),
        (
            "ftp://h.invalid/card",
            r#""ftp://h.invalid/card" is not an http:// or https:// URL"#,
        ),
        (
            "http://h.invalid/c:/../card",
            r#""http://h.invalid/c:/../card" is a URL with a `..` beside a segment like a drive letter (`c:`), which this client cannot read as fetch does"#,
        ),
        (
            "http://{x}/card",
            r#""http://{x}/card" is a URL whose host no HTTP request carries"#,
        ),
        (
            "http://u:p@H.invalid/",
            r#"the URL for "h.invalid" carries user information (`user:password@`): resolve sends no credentials and would print them in the decision; give the URL without them"#,
        ),
    ] {
        let out = cardgate(&["resolve", url, "--require", "task.execute.v3"], "");
        assert_eq!(out.status.code(), Some(2), "{url}");
        assert_eq!(stderr(&out), format!("cardgate: {message}\n"), "{url}");
        assert!(out.stdout.is_empty(), "{url}");
    }
}

/// An answer whose `Vary` names `A2A-Version` or `Accept` (or is `*`), request headers the SDKs'
/// resolvers send otherwise than `resolve`: a note on stderr for each, naming what was sent; the
/// decision unchanged. Other `Vary` names get none. (tests/node/card-variants.test.mjs runs
/// @a2a-js/sdk's own handler, which varies on `A2A-Version`.)
#[test]
fn resolve_notes_an_answer_that_varies_on_what_the_sdks_send_otherwise() {
    let with_vary = |vary: &str| {
        Serve::With(
            200,
            vec![
                ("x-replica-lag-ms", "0".to_string()),
                ("vary", vary.to_string()),
            ],
            FRESH_CARD.as_bytes().to_vec(),
        )
    };
    let server = Server::start(vec![
        ("/version", with_vary("Accept-Encoding, A2A-Version")),
        ("/accept", with_vary("accept")),
        ("/star", with_vary("*")),
        ("/encoding", with_vary("Accept-Encoding, Origin")),
    ]);
    let note = |url: &str, name: &str, sent: &str| {
        format!("cardgate: note: {url} varies its card on {name} (its Vary header): this decision is about the card served to {sent};")
    };
    for (path, extra, notes) in [
        (
            "/version",
            &[][..],
            vec![("A2A-Version", "A2A-Version: 1.0")],
        ),
        (
            "/version",
            &["--header", "A2A-Version:"][..],
            vec![(
                "A2A-Version",
                "an empty A2A-Version (as none, to @a2a-js/sdk's server)",
            )],
        ),
        (
            "/accept",
            &[][..],
            vec![("Accept", "Accept: application/json")],
        ),
        (
            "/accept",
            &["--header", "Accept:"][..],
            vec![("Accept", "an empty Accept")],
        ),
        (
            "/star",
            &["--header", "Accept: */*"][..],
            vec![
                ("A2A-Version", "A2A-Version: 1.0"),
                ("Accept", "Accept: */*"),
            ],
        ),
        ("/encoding", &[][..], vec![]),
    ] {
        let url = server.url(path);
        let (out, _) = resolve(std::slice::from_ref(&url), extra);
        assert_eq!(out.status.code(), Some(0), "{path}: {}", stderr(&out));
        let err = stderr(&out);
        let lines: Vec<&str> = err.lines().filter(|l| l.contains("varies")).collect();
        assert_eq!(lines.len(), notes.len(), "{path}: {err}");
        for (line, (name, sent)) in lines.iter().zip(&notes) {
            assert!(line.starts_with(&note(&url, name, sent)), "{path}: {line}");
        }
    }
}

/// A `Location` read as fetch reads it (the URL Standard, as `new URL(location, base)`): a run
/// of slashes before the host, backslashes as slashes and dot segments removed in an absolute
/// URL, `127.1` as 127.0.0.1, and an empty query not sent (undici sends `pathname + search`),
/// the URL that answered recorded as `response.url` shows it. One this client cannot read as
/// fetch does is a failed source, named for what it holds.
#[test]
fn resolve_reads_a_location_as_fetch_reads_it() {
    let cards = Server::start(vec![("/card", card_with_lag(FRESH_CARD, "0"))]);
    let port = cards.base.rsplit(':').next().unwrap().to_owned();
    let front = Server::start(vec![
        (
            "/a",
            redirect(302, &format!("///127.0.0.1:{port}/x/..\\card")),
        ),
        (
            "/b",
            redirect(301, &format!("HTTP://127.1:{port}/c/%2e%2E/d\\..\\card?#f")),
        ),
        ("/d", redirect(302, "/c:/../card")),
        ("/e", redirect(302, "ftp://h.invalid/card")),
        ("/f", redirect(302, "//u:p@h.invalid/card")),
        ("/g", redirect(307, "http://{x}/card")),
    ]);
    // Recorded as fetch's `response.url` shows the URL: no fragment, an empty query's `?` kept
    // (requested without it: the hits below are `/card`'s).
    for (path, hits, shown) in [("/a", 1, "/card"), ("/b", 2, "/card?")] {
        let urls = [front.url(path)];
        let (out, _) = resolve(&urls, &[]);
        assert_eq!(out.status.code(), Some(0), "{path}: {}", stderr(&out));
        let d = decision(&out);
        assert_eq!(
            attempt_urls(&d),
            [[urls[0].clone(), cards.url(shown), "-".into()]],
            "{path}"
        );
        assert_eq!(cards.hits("/card"), hits, "{path}");
    }
    // `url` keeps `c:` where fetch removes it with the `..`: refused, the next source asked.
    let urls = [front.url("/d"), cards.url("/card")];
    let (out, _) = resolve(&urls, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let error = &attempt_urls(&decision(&out))[0][2];
    assert_eq!(
        error,
        &format!(
            "{} answered 302 with a Location with a `..` beside a segment like a drive letter \
             (`c:`), which this client cannot read as fetch does: \"/c:/../card\"",
            urls[0]
        )
    );
    assert_eq!(front.hits("/card") + front.hits("/c:/card"), 0);
    // Each other refusal, named by its cause.
    for (path, status, why, location) in [
        (
            "/e",
            302,
            "that is not an http(s) URL",
            "ftp://h.invalid/card",
        ),
        (
            "/f",
            302,
            "that carries user information (`user:password@`)",
            "//u:p@h.invalid/card",
        ),
        (
            "/g",
            307,
            "whose host no HTTP request carries",
            "http://{x}/card",
        ),
    ] {
        let urls = [front.url(path), cards.url("/card")];
        let (out, _) = resolve(&urls, &[]);
        assert_eq!(out.status.code(), Some(0), "{path}: {}", stderr(&out));
        assert_eq!(
            attempt_urls(&decision(&out))[0][2],
            format!(
                "{} answered {status} with a Location {why}: {location:?}",
                urls[0]
            ),
            "{path}"
        );
    }
}

#[test]
fn resolve_follows_at_most_five_redirects() {
    let server = Server::start(vec![
        ("/r0", redirect(307, "/r1")),
        ("/r1", redirect(308, "/r2")),
        ("/r2", redirect(303, "/r3")),
        ("/r3", redirect(302, "/r4")),
        ("/r4", redirect(301, "/r5")),
        ("/r5", redirect(302, "/card")),
        ("/card", card_with_lag(FRESH_CARD, "0")),
    ]);
    // Five redirects: followed.
    let (out, _) = resolve(&[server.url("/r1")], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Six: a failed source, and the next source is asked.
    let urls = [server.url("/r0"), server.url("/card")];
    let (out, _) = resolve(&urls, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(
        attempt_urls(&d),
        [
            [
                urls[0].clone(),
                "-".into(),
                format!("{} redirected more than 5 times (the limit)", urls[0])
            ],
            [urls[1].clone(), "-".into(), "-".into()],
        ]
    );
    assert_eq!(server.hits("/r5"), 2, "the sixth redirect is not followed");
}

/// Nineteenth session (resolution red team): `resolve` followed every 3xx with a `Location` but
/// `304` (ureq's rule), so a `300 Multiple Choices` (or a `305`, a `399`) pointing at a fresh card
/// was `valid` (exit 0), while fetch (@a2a-js/sdk's resolver, the npm package) and httpx (a2a-sdk's,
/// which follows none by default) stop at it: a card that neither SDK reads. Now only the Fetch
/// standard's redirect statuses are followed (`resolution::follows_redirect`); any other 3xx is a
/// non-2xx answer, a failed source, as in the package.
#[test]
fn resolve_follows_only_the_redirect_statuses_fetch_follows() {
    let mut routes = vec![("/card", card_with_lag(FRESH_CARD, "0"))];
    for (path, status) in [("/300", 300), ("/305", 305), ("/306", 306), ("/399", 399)] {
        routes.push((path, redirect(status, "/card")));
    }
    for (path, status) in [
        ("/301", 301),
        ("/302", 302),
        ("/303", 303),
        ("/307", 307),
        ("/308", 308),
    ] {
        routes.push((path, redirect(status, "/card")));
    }
    let server = Server::start(routes);
    for (path, status) in [("/300", 300), ("/305", 305), ("/306", 306), ("/399", 399)] {
        let (out, _) = resolve(&[server.url(path)], &[]);
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stderr(&out));
        let d = decision(&out);
        assert_eq!(codes(&d), ["source_unavailable"], "{path}");
        let detail = d.get("detail").and_then(|v| v.as_str()).unwrap_or("");
        assert!(
            detail.contains(&format!("HTTP {status}")),
            "{path}: {detail}"
        );
    }
    assert_eq!(
        server.hits("/card"),
        0,
        "no 3xx outside fetch's list was followed"
    );
    for path in ["/301", "/302", "/303", "/307", "/308"] {
        let (out, _) = resolve(&[server.url(path)], &[]);
        assert_eq!(out.status.code(), Some(0), "{path}: {}", stderr(&out));
    }
}

/// Nineteenth session: `resolve` sent the path as written, `GET /a/../card` and the raw UTF-8 of
/// `/c\u{e4}rd`, where fetch (the npm package, @a2a-js/sdk) sends `/card` and `/c%C3%A4rd` (httpx,
/// a2a-sdk's client, too, but for `%2e` segments): a server or proxy that routes the raw path
/// answered the CLI otherwise than the SDKs. Now the request goes where fetch sends it.
#[test]
fn resolve_asks_the_path_fetch_asks() {
    let server = Server::start(vec![
        ("/card", card_with_lag(FRESH_CARD, "0")),
        ("/c%C3%A4rd", card_with_lag(FRESH_CARD, "0")),
    ]);
    for path in ["/a/../card", "/./x/%2E%2e/card", "/c\u{e4}rd"] {
        let (out, _) = resolve(&[server.url(path)], &[]);
        assert_eq!(out.status.code(), Some(0), "{path}: {}", stderr(&out));
        let d = decision(&out);
        assert!(d.get("resolution").is_none(), "{path}: not a redirect");
    }
    assert_eq!(server.hits("/card"), 2);
    assert_eq!(server.hits("/c%C3%A4rd"), 1);
}

/// A redirect to a URL with user information: fetch refuses to request it (the npm package's
/// source fails); `resolve` let ureq follow it, sending the credentials as `Authorization:
/// Basic`, and judged the card. Now a failed source in both.
#[test]
fn resolve_a_redirect_to_a_url_with_credentials_is_a_failed_source() {
    let card = Server::start(vec![("/card", card_with_lag(FRESH_CARD, "0"))]);
    let with_credentials = card.url("/card").replacen("http://", "http://user:pw@", 1);
    let server = Server::start(vec![("/a", redirect(302, &with_credentials))]);
    let (out, _) = resolve(&[server.url("/a")], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(codes(&decision(&out)), ["source_unavailable"]);
    assert_eq!(card.hits("/card"), 0, "no request carried the credentials");
}

/// A redirect without a `Location` (or one that is no URL) names the URL that answered, as the npm
/// package does.
#[test]
fn resolve_a_redirect_without_a_usable_location_is_a_failed_source() {
    let server = Server::start(vec![
        ("/a", redirect(302, "/b")),
        ("/b", Serve::With(307, vec![], vec![])),
        ("/c", redirect(301, "http://[::1/card")),
    ]);
    let (out, _) = resolve(&[server.url("/a"), server.url("/c")], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(
        attempt_urls(&d),
        [
            [
                server.url("/a"),
                server.url("/b"),
                format!(
                    "{} answered 307 without a Location header",
                    server.url("/b")
                )
            ],
            [
                server.url("/c"),
                "-".into(),
                format!(
                    "{} answered 301 with a Location that is not a URL: \"http://[::1/card\"",
                    server.url("/c")
                )
            ],
        ]
    );
}

#[test]
fn resolve_a_redirect_to_an_error_names_where_it_ended() {
    let server = Server::start(vec![("/moved", redirect(301, "/gone"))]);
    let refused = fixture::refused_url();
    // http -> https (an upgrade) is followed: here to a port where nothing listens.
    let upgrade = refused.replacen("http:", "https:", 1);
    let server2 = Server::start(vec![("/up", redirect(302, &upgrade))]);
    let urls = [server.url("/moved"), server2.url("/up")];
    let (out, _) = resolve(&urls, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(codes(&d), ["source_unavailable"]);
    assert_eq!(
        attempt_urls(&d),
        [
            [
                urls[0].clone(),
                server.url("/gone"),
                "HTTP 404 Not Found".into()
            ],
            [urls[1].clone(), "-".into(), "connection refused".into()],
        ]
    );
}

#[test]
fn resolve_max_attempts_bounds_the_sources_asked() {
    let server = Server::start(vec![
        ("/replica", card_with_lag(STALE_CARD, "40000")),
        ("/primary", card_with_lag(FRESH_CARD, "0")),
    ]);
    let urls = [server.url("/replica"), server.url("/primary")];
    let (out, _) = resolve(&urls, &["--max-attempts", "1", "--now", NOW]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        decision(&out).get("resolution").is_none(),
        "max_attempts 1: the plain decision"
    );
    assert_eq!(server.hits("/primary"), 0);
}

#[test]
fn resolve_bad_input_exits_2_before_any_request() {
    let server = Server::start(vec![("/replica", card_with_lag(FRESH_CARD, "0"))]);
    let ok = server.url("/replica");
    // Credentials in a URL are refused, and not printed (the decision would carry them).
    let with_user = ok.replacen("http://", "http://agent:s3cret@", 1);
    for (args, needle) in [
        (vec!["resolve"], "at least one URL"),
        (vec!["resolve", "not a url"], "is not a URL"),
        (
            vec!["resolve", "ftp://127.0.0.1/card.json"],
            "not an http:// or https:// URL",
        ),
        (
            vec!["resolve", "/relative/card.json"],
            "not an http:// or https:// URL",
        ),
        (vec!["resolve", &ok, "http://[::1"], "is not a URL"),
        (vec!["resolve", &with_user], "carries user information"),
        (
            vec!["resolve", &ok, "--watermark-ms", "0"],
            "does not apply to resolve",
        ),
        (
            vec!["resolve", &ok, "--observation", "{}"],
            "does not apply to resolve",
        ),
        (
            vec!["resolve", &ok, "--max-attempts", "0"],
            "--max-attempts",
        ),
        (vec!["resolve", &ok, "--deadline", "soon"], "--deadline"),
        (vec!["resolve", &ok, "--timeout", "0ms"], "--timeout"),
        (vec!["resolve", &ok, "--max-stale", "10"], "--max-stale"),
        (vec!["check", "-", "--timeout", "1s"], "resolve only"),
    ] {
        let out = cardgate(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
        assert!(
            !stderr(&out).contains("s3cret"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty());
    }
    assert_eq!(server.hits("/replica"), 0, "no request was sent");
}

// ---------------------------------------------------------------- scenarios from the review

// The independent scenario review (tests/scenarios/README.md): answers `resolve` got wrong, and
// cross-runtime agreements it pins (the npm package: tests/node/scenarios.test.mjs; Envoy:
// tests/envoy/test_scenarios.py).

/// An answer with `status` and the given headers, carrying the fresh card.
fn fresh_with(status: u16, headers: &[(&'static str, &str)]) -> Serve {
    let headers = headers.iter().map(|(n, v)| (*n, v.to_string())).collect();
    Serve::With(status, headers, FRESH_CARD.as_bytes().to_vec())
}

/// Nineteenth session (resolution red team): a `205 Reset Content` (or `204 No Content`) with a
/// body is a status without content. fetch reads no body on either (the Fetch standard's null
/// body statuses), so @a2a-js/sdk's resolver fails on it and the npm package read an empty body
/// (`body_empty`), while `resolve` read the bytes after the headers and said `valid` (exit 0) on
/// the 205. Now both are a failed source, with the core's text (`status_without_card`).
#[test]
fn scenario_204_and_205_with_a_body_are_failed_sources() {
    let lag = ("x-replica-lag-ms", "0");
    let server = Server::start(vec![
        ("/204", fresh_with(204, &[lag])),
        ("/205", fresh_with(205, &[lag])),
        ("/primary", card_with_lag(FRESH_CARD, "0")),
    ]);
    for (path, why) in [
        (
            "/205",
            "HTTP 205 Reset Content: a status without content, not a card",
        ),
        (
            "/204",
            "HTTP 204 No Content: a status without content, not a card",
        ),
    ] {
        let (out, _) = resolve(&[server.url(path)], &[]);
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stderr(&out));
        assert_eq!(codes(&decision(&out)), ["source_unavailable"], "{path}");
        let (out, _) = resolve(&[server.url(path), server.url("/primary")], &[]);
        assert_eq!(out.status.code(), Some(0), "{path}: {}", stderr(&out));
        let d = decision(&out);
        let first = attempt_urls(&d).remove(0);
        assert_eq!(first, [server.url(path), "-".into(), why.into()], "{path}");
    }
}

/// A `206 Partial Content` answer is never a whole card: the Envoy filter refuses it on a card
/// route and counts it as a failed attempt when re-resolving (DESIGN.md, "Whole cards" and
/// "Envoy host"). `cardgate resolve` used to accept it as `valid` when the range happened to
/// hold a whole card, here with a `Content-Range` that says it is 11 bytes of 500.
#[test]
fn scenario_206_partial_content_is_never_a_valid_card() {
    let server = Server::start(vec![
        (
            "/replica",
            fresh_with(
                206,
                &[
                    ("x-replica-lag-ms", "0"),
                    ("content-range", "bytes 0-10/500"),
                ],
            ),
        ),
        ("/primary", card_with_lag(FRESH_CARD, "0")),
    ]);

    // Alone: no source served a whole card.
    let (out, _) = resolve(&[server.url("/replica")], &[]);
    let d = decision(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(codes(&d), ["source_unavailable"]);
    assert_eq!(
        d.get("error_class").and_then(|v| v.as_str()),
        Some("malformed_card")
    );

    // Before the primary: a failed attempt, then the primary's card.
    let (out, _) = resolve(&[server.url("/replica"), server.url("/primary")], &[]);
    let d = decision(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let verdicts: Vec<String> = attempts(&d).into_iter().map(|[_, v, _]| v).collect();
    assert_eq!(verdicts, ["failed", "valid"]);
    let first_error = d
        .get("resolution")
        .and_then(|r| r.get("attempts"))
        .and_then(|a| a.as_array())
        .and_then(|a| a.first())
        .and_then(|a| a.get("error"))
        .and_then(|e| e.as_str())
        .unwrap_or("");
    assert!(first_error.contains("206"), "{first_error}");
}

/// The watermark comes from the answer that carried the card: several copies of a lag header
/// (any case), an `Age` that pushes the staleness over, and a Consul follower are all refused,
/// the same as in the npm package and Envoy.
#[test]
fn scenario_watermark_headers_through_resolve() {
    // (path, response headers, the one reason code expected)
    type Case = (
        &'static str,
        Vec<(&'static str, &'static str)>,
        &'static str,
    );
    let cases: [Case; 8] = [
        (
            "/dup",
            vec![("X-Replica-Lag-Ms", "0"), ("x-replica-lag-ms", "0")],
            "watermark_invalid",
        ),
        (
            "/age",
            vec![("x-replica-lag-ms", "5000"), ("age", "6")],
            "watermark_exceeded",
        ),
        (
            "/agedup",
            vec![("x-replica-lag-ms", "0"), ("age", "1"), ("Age", "1")],
            "watermark_invalid",
        ),
        ("/ageonly", vec![("age", "0")], "freshness_unverifiable"),
        (
            "/follower",
            vec![
                ("X-Consul-LastContact", "0"),
                ("X-Consul-KnownLeader", "false"),
            ],
            "leader_unknown",
        ),
        (
            "/empty",
            vec![("x-replica-lag-ms", "")],
            "watermark_invalid",
        ),
        (
            "/neg",
            vec![("x-replica-lag-ms", "-1")],
            "watermark_invalid",
        ),
        (
            "/both",
            vec![("x-replica-lag-ms", "0"), ("x-replica-lag-s", "40")],
            "watermark_contradictory",
        ),
    ];
    let server = Server::start(
        cases
            .iter()
            .map(|(path, headers, _)| (*path, fresh_with(200, headers)))
            .collect(),
    );
    for (path, _, code) in &cases {
        let (out, _) = resolve(&[server.url(path)], &[]);
        let d = decision(&out);
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stderr(&out));
        assert_eq!(
            d.get("error_class").and_then(|v| v.as_str()),
            Some("stale_agent_card"),
            "{path}"
        );
        assert_eq!(codes(&d), [*code], "{path}");
    }
}

/// `check --policy --agent ID` takes the rule the Envoy filter applies to that id: a route
/// `/agents/WORKER-7/card` (or `worker-7%20`, `worker-7.`) is judged by worker-7's rule there
/// (DESIGN.md, "Card routes and path variants"), so the CLI must not judge the same card by
/// the policy's looser defaults (30 s in policies/incident.json, worker-7's rule is 10 s).
#[test]
fn scenario_policy_agent_id_in_another_case_takes_that_agents_rule() {
    let check = |agent: &str| {
        let args = [
            "check",
            "-",
            "--policy",
            "policies/incident.json",
            "--agent",
            agent,
            "--watermark-ms",
            "20000",
        ];
        cardgate(&args, FRESH_CARD)
    };
    // An id with percent-escapes is also read decoded, once and twice: a pipeline that puts
    // it in the registry's URL as given asks for `worker-7 ` / `worker-7`.
    for agent in [
        "worker-7",
        "WORKER-7",
        "Worker-7",
        "worker-7 ",
        "worker-7.",
        "worker-7%20",
        "worker-7%2520",
        "worker%2D7",
        "%77orker-7",
    ] {
        let out = check(agent);
        assert_eq!(out.status.code(), Some(1), "{agent:?}: {}", stderr(&out));
        assert_eq!(codes(&decision(&out)), ["watermark_exceeded"], "{agent:?}");
    }
    // The note says which rule an id took, and an id spelled as the policy spells it takes no
    // note.
    for (agent, note) in [
        ("worker-7", None),
        (
            "WORKER-7",
            Some(
                r#"has no rule named "WORKER-7"; using the rule for "worker-7", as the Envoy filter does"#,
            ),
        ),
        (
            "worker-7.",
            Some(
                r#"has no rule named "worker-7.", which may be read as "worker-7"; using its defaults tightened with their rules"#,
            ),
        ),
    ] {
        let err = stderr(&check(agent));
        let notes: Vec<&str> = err.lines().filter(|l| l.contains("note:")).collect();
        match note {
            None => assert!(notes.is_empty(), "{agent:?}: {err}"),
            Some(note) => assert!(
                notes.len() == 1 && notes[0].contains(note),
                "{agent:?}: {err}"
            ),
        }
    }
    // An agent the policy does not name still gets the defaults (30 s).
    assert_eq!(check("worker-8").status.code(), Some(0));
}

/// An empty `Content-Encoding` lists no coding: the Envoy filter and the npm package read the
/// card; `resolve` used to refuse it as `body_encoded` with the message of a *repeated* header.
/// An unknown coding is still refused.
#[test]
fn scenario_empty_content_encoding_is_no_coding() {
    let lag = ("x-replica-lag-ms", "0");
    let server = Server::start(vec![
        ("/empty", fresh_with(200, &[lag, ("content-encoding", "")])),
        (
            "/custom",
            fresh_with(200, &[lag, ("content-encoding", "x-custom")]),
        ),
    ]);
    let (out, _) = resolve(&[server.url("/empty")], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (out, _) = resolve(&[server.url("/custom")], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(codes(&decision(&out)), ["body_encoded"]);
}

/// Third review (adversarial): `resolve` reads `Content-Encoding` as the Envoy filter does, every
/// value of every such header, each listed coding `identity` or empty. It used to refuse
/// `identity, identity`, a lone `,` and a repeated `identity` header as `body_encoded` where the
/// filter and the npm package read the card (callers' clients hand over the bytes as served).
#[test]
fn scenario_content_encoding_lists_read_as_the_filter_reads_them() {
    let lag = ("x-replica-lag-ms", "0");
    let ce = |v: &'static str| ("content-encoding", v);
    let server = Server::start(vec![
        ("/list", fresh_with(200, &[lag, ce("identity, identity")])),
        ("/comma", fresh_with(200, &[lag, ce(" , ")])),
        ("/case", fresh_with(200, &[lag, ce("\tIDENTITY ")])),
        (
            "/twice",
            fresh_with(200, &[lag, ce("identity"), ce("identity")]),
        ),
        (
            "/and-empty",
            fresh_with(200, &[lag, ce("identity"), ce("")]),
        ),
        ("/gzip-last", fresh_with(200, &[lag, ce("identity, gzip")])),
        (
            "/gzip-second",
            fresh_with(200, &[lag, ce("identity"), ce("gzip")]),
        ),
        ("/param", fresh_with(200, &[lag, ce("identity;q=1")])),
    ]);
    for path in ["/list", "/comma", "/case", "/twice", "/and-empty"] {
        let (out, _) = resolve(&[server.url(path)], &[]);
        assert_eq!(out.status.code(), Some(0), "{path}: {}", stderr(&out));
    }
    for (path, named) in [
        ("/gzip-last", "identity, gzip"),
        ("/gzip-second", "gzip"),
        ("/param", "identity;q=1"),
    ] {
        let (out, _) = resolve(&[server.url(path)], &[]);
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stderr(&out));
        let d = decision(&out);
        assert_eq!(codes(&d), ["body_encoded"], "{path}");
        let message = first_message(&d);
        assert!(message.contains(&format!("{named:?}")), "{path}: {message}");
    }
}

/// Third review (adversarial bodies): an `invalid_utf8` reason said "at byte 6 at byte 6" (the
/// parser's message carried the offset, and its `Display` adds it again); every other JSON
/// reason names it once. Card, policy and requirement messages alike.
#[test]
fn scenario_invalid_utf8_names_its_byte_once() {
    let card = [&br#"{"a":""#[..], &[0xff], &br#""}"#[..]].concat();
    let path = std::env::temp_dir().join(format!("cardgate-utf8-{}.json", std::process::id()));
    std::fs::write(&path, &card).unwrap();
    let file = path.to_str().unwrap();
    let out = cardgate(&["check", file, "--no-clock"], "");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(codes(&d), ["invalid_utf8"]);
    let message = first_message(&d);
    assert_eq!(
        message,
        "card is not valid I-JSON: invalid UTF-8 byte sequence at byte 6"
    );
    let out = cardgate(&["policy", "check", file], "");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("invalid UTF-8 byte sequence at byte 6") && !err.contains("at byte 6 at byte"),
        "{err}"
    );
    std::fs::remove_file(&path).ok();
}

/// Third review (adversarial HTTP): an answer with both `Transfer-Encoding: chunked` and a
/// `Content-Length` (RFC 9112 section 6.3: ambiguous framing, "ought to be handled as an
/// error") was a `valid` card in `resolve` (ureq reads the chunks) where the Envoy filter and
/// the npm package (undici) refuse the answer. It is now a failed source.
#[test]
fn scenario_both_framings_are_a_failed_source() {
    let chunked = format!("{:x}\r\n{FRESH_CARD}\r\n0\r\n\r\n", FRESH_CARD.len()).into_bytes();
    let server = Server::start(vec![(
        "/both",
        Serve::With(
            200,
            vec![
                ("x-replica-lag-ms", "0".into()),
                ("content-length", "3".into()),
                ("transfer-encoding", "chunked".into()),
            ],
            chunked,
        ),
    )]);
    let (out, _) = resolve(&[server.url("/both")], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(codes(&d), ["source_unavailable"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains("both Transfer-Encoding and Content-Length"),
        "{text}"
    );
}

/// Twenty-sixth session (an HTTP framing differential against the real SDKs' resolvers): a
/// Transfer-Encoding other than one `chunked` header was read by ureq (`chunked, identity`
/// de-chunked, `identity` or `gzip` to the close, two headers) and `resolve` said `valid`,
/// where a2a-sdk's httpx reads no such answer (h11: "Only Transfer-Encoding: chunked is
/// supported") and undici reads `chunked, identity` to the close, chunk sizes included. Each is
/// now a failed source; a single `chunked` (any case) still reads.
#[test]
fn scenario_transfer_encoding_other_than_one_chunked_is_a_failed_source() {
    let chunks = format!("{:x}\r\n{FRESH_CARD}\r\n0\r\n\r\n", FRESH_CARD.len());
    let answer = |te: &[&str], body: &str| {
        let mut head = String::from(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\nx-replica-lag-ms: 0\r\n",
        );
        for value in te {
            head.push_str(&format!("transfer-encoding: {value}\r\n"));
        }
        Serve::Raw(format!("{head}\r\n{body}").into_bytes())
    };
    let server = Server::start(vec![
        ("/chunked", answer(&["chunked"], &chunks)),
        ("/upper", answer(&["Chunked"], &chunks)),
        ("/chunked-identity", answer(&["chunked, identity"], &chunks)),
        ("/identity-chunked", answer(&["identity, chunked"], &chunks)),
        ("/two", answer(&["identity", "chunked"], &chunks)),
        ("/twice", answer(&["chunked", "chunked"], &chunks)),
        ("/identity", answer(&["identity"], FRESH_CARD)),
        ("/gzip", answer(&["gzip"], FRESH_CARD)),
        ("/empty", answer(&[""], FRESH_CARD)),
    ]);
    for path in ["/chunked", "/upper"] {
        let (out, _) = resolve(&[server.url(path)], &[]);
        assert_eq!(out.status.code(), Some(0), "{path}: {}", stderr(&out));
    }
    for path in [
        "/chunked-identity",
        "/identity-chunked",
        "/two",
        "/twice",
        "/identity",
        "/gzip",
        "/empty",
    ] {
        let (out, _) = resolve(&[server.url(path)], &[]);
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stderr(&out));
        let d = decision(&out);
        assert_eq!(codes(&d), ["source_unavailable"], "{path}");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(text.contains("Transfer-Encoding is"), "{path}: {text}");
    }
}

// ---------------------------------------------------------------- one agent-id rule for every host

#[test]
fn check_reads_the_clock_once_the_card_has_arrived() {
    // The card reaches stdin 1.5 s after the start; synced_at was 9 s before the start and the
    // tolerance is 10 s: judged when it is judged, the card is more than 10 s stale (the clock
    // read before the card made it 9 s and valid).
    let start_ms = unix_ms_now();
    let synced = cardgate::Timestamp::from_unix_ms(start_ms - 9_000).to_rfc3339();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cardgate"))
        .args([
            "check",
            "-",
            "--require",
            "task.execute.v3",
            "--max-stale",
            "10s",
            "--synced-at",
            &synced,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cardgate");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(FRESH_CARD.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(codes(&d), ["watermark_exceeded"], "{d:?}");
}

// `check --policy P --agent ID` applies the rule the Envoy filter applies to the same id in a card
// path (`Policy::rule_for_agent`, DESIGN.md "Card routes and path variants"): an id the policy
// does not know is also read as every agent it may name once accents, width, ligatures and
// ignorable characters are folded, and all their rules (with the defaults) must hold.

/// A policy whose defaults (30 s) are looser than each agent's rule, written to a scratch file.
fn folding_policy(tag: &str) -> std::path::PathBuf {
    let pin = |c: char| format!("sha256:{}", c.to_string().repeat(64));
    let text = format!(
        r#"{{"defaults":{{"max_stale":"30s"}},
        "agents":{{"worker-7":{{"max_stale":"10s"}},
                  "office-7":{{"max_stale":"10s"}},
                  "café-1":{{"max_stale":"10s"}},
                  "cafe-1":{{"require":["task.execute.v2"]}},
                  "straße":{{"pin":"{}"}},
                  "strasse":{{"pin":"{}"}}}}}}"#,
        pin('a'),
        pin('b')
    );
    let path =
        std::env::temp_dir().join(format!("cardgate-agent-{tag}-{}.json", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// `check` of the fresh card 20 s behind its primary under the policy's rule for `agent`.
fn check_as(policy: &std::path::Path, agent: &str) -> Output {
    let args = [
        "check",
        "-",
        "--policy",
        policy.to_str().unwrap(),
        "--agent",
        agent,
        "--watermark-ms",
        "20000",
        "--now",
        NOW,
    ];
    cardgate(&args, FRESH_CARD)
}

#[test]
fn agent_ids_folded_as_the_filter_folds_them_take_that_agents_rule() {
    let policy = folding_policy("fold");
    // The defaults (30 s) pass the card; worker-7's and office-7's rules (10 s) refuse it.
    for agent in ["worker-8", "office-8"] {
        let out = check_as(&policy, agent);
        assert_eq!(out.status.code(), Some(0), "{agent:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("using its defaults"), "{agent:?}");
    }
    for agent in [
        "worker-7",
        // accents, precomposed and combining
        "wörker-7",
        "WÖRKER-7",
        "wo\u{0308}rker-7",
        "ŵórkèr-7",
        // fullwidth forms, one letter or all of it
        "\u{FF57}orker-7",
        "\u{FF57}\u{FF4F}\u{FF52}\u{FF4B}\u{FF45}\u{FF52}\u{FF0D}\u{FF17}",
        // the Kelvin sign
        "wor\u{212A}er-7",
        // zero-width and other ignorable characters
        "wo\u{200B}rker-7",
        "\u{FEFF}worker-7",
        "work\u{00AD}er-7",
        "worker\u{2060}-7",
        // a ligature
        "o\u{FB03}ce-7",
        "O\u{FB03}CE-7",
    ] {
        let out = check_as(&policy, agent);
        assert_eq!(out.status.code(), Some(1), "{agent:?}: {}", stderr(&out));
        assert_eq!(codes(&decision(&out)), ["watermark_exceeded"], "{agent:?}");
    }
    let out = check_as(&policy, "wörker-7");
    assert!(
        stderr(&out).contains(r#"may be read as "worker-7""#),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(&policy).unwrap();
}

#[test]
fn an_agent_id_with_characters_the_fold_does_not_cover_is_held_to_every_rule() {
    // A collation may read `АГЕНТ-7` as `агент-7`, `worker-⁷` or `worker-٧` as `worker-7`, and
    // the fold knows none of these: the card must satisfy every agent's rule (worker-7's and
    // archive-search's, whose pin replaces the watermark check and is not this card), not the
    // defaults' 30 s alone, which pass it.
    let incident = std::path::Path::new("policies/incident.json");
    for agent in [
        "worker-\u{2077}",
        "worker-\u{0667}",
        "\u{0127}orker-7",
        // A combining Latin small letter: an `o` to ICU, not a mark to drop.
        "w\u{0366}rker-7",
    ] {
        let out = check_as(incident, agent);
        assert_eq!(out.status.code(), Some(1), "{agent:?}: {}", stderr(&out));
        assert_eq!(
            codes(&decision(&out)),
            ["pinned_hash_mismatch", "capabilities_missing"],
            "{agent:?}"
        );
    }
    // Ids the fold covers stay with the agents they name: worker-7 alone, no pin (a space
    // before a soft hyphen is trailing once the soft hyphen is dropped; a format suffix).
    for agent in ["wörker-7", "worker-7 \u{00AD}", "worker-7.xml"] {
        let out = check_as(incident, agent);
        assert_eq!(codes(&decision(&out)), ["watermark_exceeded"], "{agent:?}");
    }
    // The other way: an ASCII id a collation may read as an agent the fold does not cover.
    let dir = std::env::temp_dir().join(format!("cardgate-rev-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let policy = dir.join("rev.json");
    std::fs::write(
        &policy,
        r#"{"defaults":{"max_stale":"1h"},"agents":{"\u0127ub":{"max_stale":"10s"}}}"#,
    )
    .unwrap();
    for agent in ["hub", "HUB"] {
        let out = check_as(&policy, agent);
        assert_eq!(codes(&decision(&out)), ["watermark_exceeded"], "{agent:?}");
    }
    assert_eq!(check_as(&policy, "hubs").status.code(), Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_agent_id_folding_onto_two_agents_is_held_to_both_rules() {
    let policy = folding_policy("two");
    // Each agent by its own id: a registry that compares accent-insensitively may answer either
    // path with either card, so both rules hold for both (café-1's lag, cafe-1's capability).
    for agent in ["café-1", "cafe-1", "CAFE-1"] {
        let out = check_as(&policy, agent);
        assert_eq!(out.status.code(), Some(1), "{agent:?}: {}", stderr(&out));
        assert_eq!(
            codes(&decision(&out)),
            ["watermark_exceeded", "capabilities_missing"],
            "{agent:?}"
        );
        assert!(
            stderr(&out).contains("an upstream may read the id as theirs"),
            "{agent:?}: {}",
            stderr(&out)
        );
    }
    // An id that is neither but folds onto both: both rules, tightened together.
    for agent in [
        "CAFÉ-1",
        "cafe\u{0301}-1",
        "\u{FF43}afé-1",
        "caf\u{200B}é-1",
    ] {
        let out = check_as(&policy, agent);
        assert_eq!(out.status.code(), Some(1), "{agent:?}: {}", stderr(&out));
        assert_eq!(
            codes(&decision(&out)),
            ["watermark_exceeded", "capabilities_missing"],
            "{agent:?}"
        );
        assert!(
            stderr(&out).contains(r#"may be read as "café-1", "cafe-1""#),
            "{agent:?}: {}",
            stderr(&out)
        );
    }
    std::fs::remove_file(&policy).unwrap();
}

#[test]
fn an_agent_id_folding_onto_two_contradictory_rules_is_refused() {
    let policy = folding_policy("pins");
    // Every id that folds onto both, the two agents' own ids too (a registry may answer either
    // path with either card): two pins no card can match, refused as bad input (the Envoy
    // filter answers 400 for the same id in a card path).
    for agent in [
        "straße",
        "strasse",
        "STRASSE",
        "STRAẞE",
        "stra\u{00DF}e ",
        "strasse ",
        "\u{FF53}traße",
    ] {
        let out = check_as(&policy, agent);
        assert_eq!(out.status.code(), Some(2), "{agent:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{agent:?}");
        let message = stderr(&out);
        assert!(
            message.contains("cannot all hold") && message.contains("conflicting pins"),
            "{agent:?}: {message}"
        );
        assert!(message.contains(r#""straße""#) && message.contains(r#""strasse""#));
    }
    std::fs::remove_file(&policy).unwrap();
}

/// An id that is a policy agent's and also, cut at `;`, another agent's whose pin differs: exit 2,
/// and the message does not call the id unknown or bring in the defaults (it said "is no policy
/// agent's ... and the defaults" for every such id).
#[test]
fn conflicting_rules_of_a_known_agent_id_are_named_as_such() {
    let text = format!(
        r#"{{"agents":{{"w":{{"pin":"sha256:{}"}},"w;v=1":{{"pin":"sha256:{}"}}}}}}"#,
        "a".repeat(64),
        "b".repeat(64)
    );
    let policy =
        std::env::temp_dir().join(format!("cardgate-agent-semi-{}.json", std::process::id()));
    std::fs::write(&policy, text).unwrap();
    let out = check_as(&policy, "w;v=1");
    std::fs::remove_file(&policy).unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let message = stderr(&out);
    assert!(
        message.contains(r#"agent id "w;v=1" may be read as ["w;v=1", "w"]: their rules cannot all hold (conflicting pins"#),
        "{message}"
    );
    assert!(!message.contains("no policy agent's"), "{message}");
    assert!(!message.contains("defaults"), "{message}");
}

/// The second scenario review (tests/scenarios/scn2_policies.py): the Envoy filter reads an `{id}`
/// with `;parameters` (`/agents/w;v=1/card`, also `w%3Bv=1`) as that id and as the id before the
/// `;` (upstreams drop path parameters), holding the card to both rules (DESIGN.md, "Card
/// routes and path variants"). `check --agent 'w;v=1'` applied the defaults alone (an unknown
/// id) or `w;v=1`'s rule alone, so it passed a card the filter refuses for the same id.
#[test]
fn an_agent_id_with_path_parameters_is_also_read_as_the_id_before_them() {
    let policy = folding_policy("params");
    for agent in [
        "worker-7;v=2",
        "worker-7;",
        "WORKER-7;jsessionid=x",
        "wörker-7;v=2",
    ] {
        let out = check_as(&policy, agent);
        assert_eq!(out.status.code(), Some(1), "{agent:?}: {}", stderr(&out));
        assert_eq!(codes(&decision(&out)), ["watermark_exceeded"], "{agent:?}");
    }
    // An id the policy knows that has parameters: its own rule and the one before the `;`.
    let text = r#"{"defaults":{"max_stale":"60s"},"agents":{"w":{"max_stale":"10s"},
        "w;v=1":{"require":["task.execute.v3"]}}}"#;
    let known = std::env::temp_dir().join(format!(
        "cardgate-agent-known-params-{}.json",
        std::process::id()
    ));
    std::fs::write(&known, text).unwrap();
    let out = check_as(&known, "w;v=1");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(codes(&decision(&out)), ["watermark_exceeded"]);
    assert!(
        stderr(&out).contains(r#"takes the rule for "w;v=1" and the rules of "w" too: an upstream may read the id as theirs"#),
        "{}",
        stderr(&out)
    );
    // Parameters before which nothing names an agent change nothing: the defaults (30 s) pass.
    let out = check_as(&policy, "worker-8;v=2");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::remove_file(&policy).unwrap();
    std::fs::remove_file(&known).unwrap();
}

/// Fourteenth session (independent SDK corpus): a string or an array where a2a-sdk's protobuf
/// expects a message (`provider`, a security scheme wrapper, OAuth `flows`...) was refused with
/// "a2a-sdk refuses the card", yet a2a-sdk 1.3.0 (and 1.0.0) read `"provider": "x"` or
/// `["zz"]` as an empty message and take the card. The refusal stays (no other reading does
/// that); its message no longer says a2a-sdk refuses. A number there is a real refusal.
#[test]
fn scenario_string_for_a_message_is_not_called_an_sdk_refusal() {
    for (value, sdk_refuses) in [
        (r#""x""#, false),
        (r#"["zz"]"#, false),
        (r#"[]"#, false),
        ("5", true),
    ] {
        let card = FRESH_CARD.replacen(
            r#""skills":"#,
            &format!(r#""provider":{value},"skills":"#),
            1,
        );
        let out = cardgate(&["check", "-", "--no-clock"], &card);
        assert_eq!(out.status.code(), Some(1), "{value}: {}", stderr(&out));
        let d = decision(&out);
        assert_eq!(codes(&d), ["sdk_refuses_card"], "{value}");
        let message = first_message(&d);
        assert_eq!(
            message.starts_with("a2a-sdk refuses the card"),
            sdk_refuses,
            "{value}: {message}"
        );
        if !sdk_refuses {
            assert!(message.contains("empty message"), "{value}: {message}");
        }
    }
}

/// An https source on 127.0.0.1 for `resolve --cacert`: every connection gets the certificate
/// of tests/tls/server.pem (signed by the private CA tests/tls/ca.pem) and, once the handshake
/// passes, one fixed answer. Its hits count requests that got through the handshake.
mod tls_fixture {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    use std::io::Write;
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    pub fn tls_path(name: &str) -> String {
        format!("{}/tests/tls/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    pub struct TlsServer {
        pub base: String,
        served: Arc<AtomicUsize>,
    }

    impl TlsServer {
        pub fn start(answer: Vec<u8>) -> TlsServer {
            TlsServer::start_with(answer, false)
        }

        /// A server that asks every client for a certificate signed by tests/tls/ca.pem.
        pub fn requiring_client_certificates(answer: Vec<u8>) -> TlsServer {
            TlsServer::start_with(answer, true)
        }

        fn start_with(answer: Vec<u8>, client_auth: bool) -> TlsServer {
            let chain = vec![CertificateDer::from_pem_file(tls_path("server.pem")).unwrap()];
            let key = PrivateKeyDer::from_pem_file(tls_path("server.key")).unwrap();
            // ring's provider, which ureq builds for `resolve` (its tls/rustls.rs): rustls
            // 0.23.48 deprecates it for lacking post-quantum key exchange, which a loopback test
            // server does not need, and the aws-lc-rs provider would compile a C library more.
            #[allow(deprecated)]
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
                .with_safe_default_protocol_versions()
                .unwrap();
            let builder = if client_auth {
                let mut roots = rustls::RootCertStore::empty();
                roots
                    .add(CertificateDer::from_pem_file(tls_path("ca.pem")).unwrap())
                    .unwrap();
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    roots.into(),
                    provider,
                )
                .build()
                .unwrap();
                builder.with_client_cert_verifier(verifier)
            } else {
                builder.with_no_client_auth()
            };
            let config = builder.with_single_cert(chain, key).unwrap();
            let config = Arc::new(config);
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let base = format!("https://{}", listener.local_addr().unwrap());
            let served = Arc::new(AtomicUsize::new(0));
            let count = Arc::clone(&served);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    let Ok(stream) = stream else { continue };
                    let (config, count, answer) =
                        (Arc::clone(&config), Arc::clone(&count), answer.clone());
                    std::thread::spawn(move || {
                        let conn = rustls::ServerConnection::new(config).unwrap();
                        let mut tls = rustls::StreamOwned::new(conn, stream);
                        // A client that refuses the certificate ends the handshake here.
                        if super::fixture::read_head(&mut tls).is_none() {
                            return;
                        }
                        count.fetch_add(1, Ordering::SeqCst);
                        let _ = tls.write_all(&answer);
                        tls.conn.send_close_notify();
                        let _ = tls.flush();
                    });
                }
            });
            TlsServer { base, served }
        }

        pub fn served(&self) -> usize {
            self.served.load(Ordering::SeqCst)
        }
    }
}

/// Bad input: exit 2, and `says` in what stderr explains (`what` names the case on failure).
fn exit_2_saying(out: &Output, says: &str, what: &str) {
    assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(out));
    assert!(stderr(out).contains(says), "{what}: {}", stderr(out));
}

/// A whole HTTP/1.1 answer: the card with a replica lag of `lag_ms`.
fn raw_card_answer(body: &str, lag_ms: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-replica-lag-ms: {lag_ms}\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[test]
fn resolve_cacert_trusts_a_private_ca_and_only_it() {
    use tls_fixture::{tls_path, TlsServer};
    let server = TlsServer::start(raw_card_answer(FRESH_CARD, "0"));
    let url = format!("{}/card.json", server.base);
    let urls = [url.clone()];

    // The built-in (Mozilla) roots do not know the private CA: a failed source, loudly.
    let (out, _) = resolve(&urls, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = decision(&out);
    assert_eq!(attempts(&d)[0][1], "failed");
    let error = |d: &cardgate::json::Value| {
        d.get("resolution")
            .unwrap()
            .get("attempts")
            .unwrap()
            .as_array()
            .unwrap()[0]
            .get("error")
            .and_then(|e| e.as_str())
            .unwrap_or_default()
            .to_string()
    };
    assert!(error(&d).contains("UnknownIssuer"), "{}", error(&d));

    // Another CA given instead: still refused (the file replaces the roots, as curl's does).
    let (out, _) = resolve(&urls, &["--cacert", &tls_path("other-ca.pem")]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(error(&decision(&out)).contains("UnknownIssuer"));
    assert_eq!(
        server.served(),
        0,
        "no request may pass a refused handshake"
    );

    // The CA that signed the server's certificate: the card is fetched and judged.
    let (out, _) = resolve(&urls, &["--cacert", &tls_path("ca.pem")]);
    valid_with_card(&out, FRESH_CARD);
    assert_eq!(server.served(), 1);
}

#[test]
fn resolve_cacert_that_holds_no_certificate_is_bad_input() {
    use tls_fixture::tls_path;
    let urls = ["https://127.0.0.1:9/card.json".to_string()];
    let dir = std::env::temp_dir().join(format!("cardgate-cacert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("junk.pem");
    std::fs::write(
        &junk,
        "-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    let missing = dir.join("missing.pem");
    for (file, says) in [
        (tls_path("server.key"), "holds no PEM certificate"),
        (tls_path("README.md"), "holds no PEM certificate"),
        (missing.display().to_string(), "cannot read"),
        (junk.display().to_string(), "junk.pem: PEM: "),
    ] {
        let (out, _) = resolve(&urls, &["--cacert", &file]);
        exit_2_saying(&out, says, &file);
        assert!(out.stdout.is_empty(), "{file}: no decision for bad input");
    }
    // Given twice, or to `check` (which fetches nothing): refused too.
    let ca = tls_path("ca.pem");
    let (out, _) = resolve(&urls, &["--cacert", &ca, "--cacert", &ca]);
    exit_2_saying(&out, "--cacert is given twice", "twice");
    let out = cardgate(&["check", "-", "--cacert", &ca], FRESH_CARD);
    exit_2_saying(&out, "--cacert applies to resolve only", "check");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resolve_header_is_sent_and_credentials_stay_with_their_origin() {
    // The registry (one origin) redirects /same within itself and /away to another origin.
    let other = Server::start(vec![("/card", card_with_lag(FRESH_CARD, "0"))]);
    let registry = Server::start(vec![
        ("/card", card_with_lag(FRESH_CARD, "0")),
        ("/same", redirect(302, "/card")),
        ("/away", redirect(307, &other.url("/card"))),
    ]);
    let extra = [
        "--header",
        "Authorization: Bearer t0ken",
        "--header=X-Tenant:  blue ",
        "--header",
        "Cookie: s=1",
        "--header",
        "Accept: application/a2a+json",
        // Another spelling of a credential's name is the same header.
        "--header",
        "PROXY-Authorization: Basic cHJveHk=",
    ];
    let sent = |server: &Server, path: &str| server.last_headers(path);

    let (out, _) = resolve(&[registry.url("/same")], &extra);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let same = sent(&registry, "/card");
    for want in [
        "authorization: bearer t0ken",
        "x-tenant: blue",
        "cookie: s=1",
        "accept: application/a2a+json",
        "a2a-version: 1.0",
        "accept-encoding: identity",
        "proxy-authorization: basic chjvehk=",
    ] {
        assert!(same.iter().any(|h| h == want), "{want} not in {same:?}");
    }
    assert!(
        !same.iter().any(|h| h == "accept: application/json"),
        "a --header replaces the default of its name: {same:?}"
    );

    let (out, _) = resolve(&[registry.url("/away")], &extra);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(sent(&registry, "/away")
        .iter()
        .any(|h| h == "authorization: bearer t0ken"));
    let away = sent(&other, "/card");
    assert!(away.iter().any(|h| h == "x-tenant: blue"), "{away:?}");
    for gone in ["authorization", "cookie", "proxy-authorization"] {
        assert!(
            !away.iter().any(|h| h.starts_with(&format!("{gone}:"))),
            "{gone} crossed to another origin: {away:?}"
        );
    }
}

#[test]
fn resolve_header_that_is_not_a_plain_field_is_bad_input() {
    let urls = ["http://127.0.0.1:9/card.json".to_string()];
    for (header, says) in [
        ("Authorization Bearer t", "write it as"),
        (": x", "not an HTTP token"),
        ("X Tenant: blue", "not an HTTP token"),
        ("X-A: 1\r\nX-Injected: 2", "visible ASCII"),
        ("X-A: caf\u{e9}", "visible ASCII"),
        ("Host: registry.example", "writes this header itself"),
        ("Content-Length: 0", "writes this header itself"),
    ] {
        let (out, _) = resolve(&urls, &["--header", header]);
        exit_2_saying(&out, says, &format!("{header:?}"));
        assert!(
            out.stdout.is_empty(),
            "{header:?}: no decision for bad input"
        );
        let value = header.split_once(':').map_or(header, |(_, v)| v).trim();
        assert!(
            value.is_empty() || !stderr(&out).contains(value),
            "{header:?}: the value (a credential, maybe) is echoed: {}",
            stderr(&out)
        );
    }
    let out = cardgate(&["check", "-", "--header", "X-A: 1"], FRESH_CARD);
    exit_2_saying(&out, "--header applies to resolve only", "check");
}

/// `--header @FILE` and `@-`: a credential stays off the command line.
#[test]
fn resolve_header_file_and_stdin_send_their_headers() {
    let server = Server::start(vec![("/card", card_with_lag(FRESH_CARD, "0"))]);
    let url = server.url("/card");
    let dir = std::env::temp_dir().join(format!("cardgate-hfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        format!("@{}", path.display())
    };
    let run =
        |extra: &[&str], stdin: &str| resolve_with(std::slice::from_ref(&url), extra, stdin, &[]);
    let creds = file(
        "creds",
        "\u{feff}Authorization: Bearer s3cret\r\n\r\n  \nX-Team:  planner\n",
    );
    let out = run(&["--header", &creds, "--header", "X-Extra: 1"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = server.last_headers("/card");
    for want in [
        "authorization: bearer s3cret",
        "x-team: planner",
        "x-extra: 1",
    ] {
        assert!(sent.iter().any(|h| h == want), "{want} not in {sent:?}");
    }
    let out = run(&["--header=@-"], "Cookie: s=2");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = server.last_headers("/card");
    assert!(sent.iter().any(|h| h == "cookie: s=2"), "{sent:?}");
    assert_eq!(server.hits("/card"), 2);

    // Bad files: named by line, never shown; nothing fetched.
    let bad_line = file("bad", "X-A: 1\nBearer s3cret\n");
    let injected = file("inj", "X-A: 1\rX-B: s3cret\n");
    let host = file("host", "Host: s3cret.example\n");
    let empty = file("empty", "\r\n\n");
    let latin1 = dir.join("latin1");
    std::fs::write(&latin1, b"X-A: caf\xe9\n").unwrap();
    let latin1 = format!("@{}", latin1.display());
    let missing = format!("@{}", dir.join("missing").display());
    let huge = file("huge", &"X-A: s3cret\n".repeat(6000));
    for (extra, stdin, says) in [
        (
            vec!["--header", bad_line.as_str()],
            "",
            "line 2: write it as",
        ),
        (vec!["--header", injected.as_str()], "", "line 1"),
        (
            vec!["--header", host.as_str()],
            "",
            "line 1 host: the HTTP client",
        ),
        (vec!["--header", empty.as_str()], "", "holds no header"),
        (vec!["--header", latin1.as_str()], "", "not UTF-8"),
        (vec!["--header", missing.as_str()], "", "cannot read"),
        (
            vec!["--header", huge.as_str()],
            "",
            "the header file is 72000 bytes, more than the limit of 65536 bytes",
        ),
        (
            vec!["--header", "@-", "--header", "@-"],
            "X-A: 1",
            "given twice",
        ),
        (
            vec!["--header", "@-", "--policy", "-"],
            "X-A: 1",
            "cannot both be read from stdin",
        ),
    ] {
        let out = run(&extra, stdin);
        exit_2_saying(&out, says, &format!("{extra:?}"));
        assert!(!stderr(&out).contains("s3cret"), "{}", stderr(&out));
    }
    assert_eq!(server.hits("/card"), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resolve_cert_and_key_answer_a_server_that_asks_for_a_client_certificate() {
    use tls_fixture::{tls_path, TlsServer};
    let server = TlsServer::requiring_client_certificates(raw_card_answer(FRESH_CARD, "0"));
    let urls = [format!("{}/card.json", server.base)];
    let ca = tls_path("ca.pem");

    // No client certificate: the server ends the handshake; a failed source, nothing served.
    let (out, _) = resolve(&urls, &["--cacert", &ca]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(attempts(&decision(&out))[0][1], "failed");
    assert_eq!(server.served(), 0);

    // The certificate and its key, in two files or in one.
    let (cert, key) = (tls_path("client.pem"), tls_path("client.key"));
    let (out, _) = resolve(&urls, &["--cacert", &ca, "--cert", &cert, "--key", &key]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        decision(&out).get("verdict").unwrap().as_str(),
        Some("valid")
    );
    let dir = std::env::temp_dir().join(format!("cardgate-cert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let both = dir.join("client-and-key.pem");
    let text = std::fs::read_to_string(&cert).unwrap() + &std::fs::read_to_string(&key).unwrap();
    std::fs::write(&both, text).unwrap();
    let both = both.display().to_string();
    let (out, _) = resolve(&urls, &["--cacert", &ca, "--cert", &both]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(server.served(), 2);

    // Bad input, exit 2 before any request.
    for (args, says) in [
        (vec!["--key", key.as_str()], "--key needs --cert"),
        (vec!["--cert", cert.as_str()], "holds no private key"),
        (
            vec!["--cert", key.as_str(), "--key", key.as_str()],
            "--cert: ",
        ),
        (
            vec!["--cert", cert.as_str(), "--key", ca.as_str()],
            "holds no PEM private key",
        ),
    ] {
        let (out, _) = resolve(&urls, &args);
        exit_2_saying(&out, says, &format!("{args:?}"));
    }
    assert_eq!(server.served(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An HTTP CONNECT proxy on loopback (what ureq speaks to an http:// proxy, for http and https
/// targets alike): it records each CONNECT target and tunnels the bytes both ways.
struct ConnectProxy {
    url: String,
    targets: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl ConnectProxy {
    fn start() -> ConnectProxy {
        use std::net::{TcpListener, TcpStream};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let targets = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = std::sync::Arc::clone(&targets);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(mut client) = client else { continue };
                let Some(head) = fixture::read_head(&mut client) else {
                    continue;
                };
                let head = String::from_utf8_lossy(&head).into_owned();
                let target = head
                    .strip_prefix("CONNECT ")
                    .and_then(|rest| rest.split(' ').next())
                    .unwrap_or_default()
                    .to_owned();
                seen.lock().unwrap().push(target.clone());
                let Ok(upstream) = TcpStream::connect(&target) else {
                    let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n");
                    continue;
                };
                let _ = client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
                let (mut c2, mut u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
                let (mut c1, mut u1) = (client, upstream);
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut c1, &mut u1);
                    let _ = u1.shutdown(std::net::Shutdown::Write);
                });
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut u2, &mut c2);
                    let _ = c2.shutdown(std::net::Shutdown::Write);
                });
            }
        });
        ConnectProxy { url, targets }
    }

    /// The CONNECT targets asked for so far, and forget them.
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.targets.lock().unwrap())
    }
}

/// `resolve` chooses its proxy by the URL's scheme and honours `NO_PROXY` as curl and httpx do
/// (ureq's own reading sent every scheme through the first variable set).
#[test]
fn resolve_goes_through_the_proxy_its_url_scheme_names() {
    use tls_fixture::{tls_path, TlsServer};
    let proxy = ConnectProxy::start();
    let tls = TlsServer::start(raw_card_answer(FRESH_CARD, "0"));
    let secure = format!("{}/card.json", tls.base);
    let server = Server::start(vec![
        ("/card", card_with_lag(FRESH_CARD, "0")),
        (
            "/to-tls",
            Serve::With(302, vec![("location", secure.clone())], vec![]),
        ),
    ]);
    let plain = server.url("/card");
    let target = plain
        .trim_start_matches("http://")
        .trim_end_matches("/card")
        .to_owned();
    let run = |url: &str, env: &[(&str, &str)], extra: &[&str]| {
        let out = resolve_with(&[url.to_owned()], extra, "", env);
        assert_eq!(out.status.code(), Some(0), "{env:?}: {}", stderr(&out));
        assert_eq!(
            decision(&out).get("verdict").unwrap().as_str(),
            Some("valid")
        );
    };
    let p = proxy.url.as_str();

    run(&plain, &[("HTTP_PROXY", p)], &[]);
    assert_eq!(
        proxy.take(),
        vec![target.clone()],
        "http:// goes through HTTP_PROXY"
    );
    run(&plain, &[("all_proxy", p)], &[]);
    assert_eq!(proxy.take(), vec![target.clone()], "or ALL_PROXY");
    run(&plain, &[("HTTPS_PROXY", p)], &[]);
    assert_eq!(
        proxy.take(),
        Vec::<String>::new(),
        "HTTPS_PROXY is not for http://"
    );
    run(
        &plain,
        &[("http_proxy", p), ("NO_PROXY", "example.com,127.0.0.0/8")],
        &[],
    );
    assert_eq!(
        proxy.take(),
        Vec::<String>::new(),
        "NO_PROXY covers 127.0.0.1"
    );
    assert_eq!(server.hits("/card"), 4);

    // https: the tunnel carries the TLS handshake with the source itself.
    let tls_target = tls.base.trim_start_matches("https://").to_owned();
    let ca = tls_path("ca.pem");
    run(&secure, &[("https_proxy", p)], &["--cacert", &ca]);
    assert_eq!(proxy.take(), vec![tls_target.clone()]);
    run(&secure, &[("HTTP_PROXY", p)], &["--cacert", &ca]);
    assert_eq!(
        proxy.take(),
        Vec::<String>::new(),
        "HTTP_PROXY is not for https://"
    );
    // Each redirect hop's own scheme: the http hop through HTTP_PROXY, the https one direct.
    run(
        &server.url("/to-tls"),
        &[("HTTP_PROXY", p)],
        &["--cacert", &ca],
    );
    assert_eq!(proxy.take(), vec![target.clone()]);
    run(
        &server.url("/to-tls"),
        &[("HTTPS_PROXY", p)],
        &["--cacert", &ca],
    );
    assert_eq!(proxy.take(), vec![tls_target]);
    assert_eq!((tls.served(), server.hits("/to-tls")), (4, 2));

    // A proxy that cannot be used is bad input before any request, its value never shown.
    for (var, value) in [
        ("HTTP_PROXY", "socks5://user:secret@127.0.0.1:1080"),
        ("all_proxy", "http://user:secret@[::1"),
    ] {
        let out = resolve_with(std::slice::from_ref(&plain), &[], "", &[(var, value)]);
        exit_2_saying(
            &out,
            &format!("the environment's {var} is not an http:// or https:// proxy URL"),
            value,
        );
        assert!(!stderr(&out).contains("secret"), "{}", stderr(&out));
    }
    assert_eq!(server.hits("/card"), 4);
    assert_eq!(proxy.take(), Vec::<String>::new());
}
