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
    let dir = std::env::temp_dir().join(format!("cardgate-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.json");
    std::fs::write(&path, vec![b' '; 71_030]).unwrap();
    let p = path.to_str().unwrap();
    let out = cardgate(
        &["check", p, "--max-stale", "10s", "--watermark-ms", "0"],
        "",
    );
    let d = decision(&out);
    assert_eq!(codes(&d), ["body_too_large"]);
    assert_eq!(figure(&d, "body_bytes"), 71_030.0);
    let detail = d.get("detail").unwrap().as_str().unwrap();
    assert!(detail.contains("is 71030 bytes"), "{detail}");
    // The same bytes over stdin: no size to ask, so a lower bound, said as one.
    let out = cardgate(
        &["check", "-", "--max-stale", "10s", "--watermark-ms", "0"],
        &" ".repeat(71_030),
    );
    let d = decision(&out);
    assert_eq!(figure(&d, "body_bytes"), 65_537.0);
    assert!(d
        .get("detail")
        .unwrap()
        .as_str()
        .unwrap()
        .contains("at least 65537 bytes"));
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
