//! Hostile input never panics: every shared vector's card, mutated many ways, still yields a
//! decision whose JSON is canonical, and the requirement/observation/policy readers answer junk
//! with typed errors. (A panic in the Envoy filter is a wasm trap that takes down a worker's VM.)

// Test code: a broken expectation should stop the run loudly, so unwrap/expect/panic are fine here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use cardgate::json::{self, Value};
use cardgate::{api, evaluate, jcs, Observation, Policy, Requirement};

/// A small deterministic PRNG (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&[u8]] = &[
    b"\"",
    b"\\",
    b"\\u",
    b"\\ud800",
    b"\\udc00",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"1e400",
    b"-0",
    b"null",
    b"\"version\":\"1\",",
    b"\xff",
    b"\xf0\x9f\x98",
    b"\x00",
    b" ",
    b"\"skills\":{}",
];

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(5) {
            0 if !out.is_empty() => {
                let i = at.min(out.len() - 1);
                out[i] ^= 1 << rng.below(8);
            }
            1 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                out.splice(at..at, token.iter().copied());
            }
            2 if !out.is_empty() => {
                let end = (at + rng.below(16)).min(out.len());
                out.drain(at.min(end)..end);
            }
            3 => out.truncate(at),
            _ => {
                let start = rng.below(out.len() + 1);
                let end = (start + rng.below(32)).min(out.len());
                let chunk = out[start..end].to_vec();
                out.splice(at..at, chunk);
            }
        }
    }
    out
}

fn seed_cards() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut cards = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let doc = json::parse(&std::fs::read(&path).unwrap(), 128).unwrap();
            for case in doc.get("cases").and_then(Value::as_array).unwrap() {
                if let Some(card) = case.get("card") {
                    cards.push(jcs::canonicalize(card).into_bytes());
                } else if let Some(text) = case.get("card_text").and_then(Value::as_str) {
                    cards.push(text.as_bytes().to_vec());
                }
            }
        }
    }
    assert!(!cards.is_empty());
    cards
}

#[test]
fn mutated_cards_always_get_a_canonical_decision() {
    let cards = seed_cards();
    let requirement = Requirement::from_json(
        r#"{"require":["task.execute.v3","capability:streaming","binding:JSONRPC","protocol:1.0"],"min_version":"2.0.0","max_stale":"10s"}"#,
    )
    .unwrap();
    let observation = Observation::from_json(r#"{"lag_ms":"1200","age_s":"2"}"#).unwrap();
    let mut rng = Rng(0x5eed_ca7d_9a7e_0001);
    let rounds = 20_000;
    let mut rejected = 0;
    for round in 0..rounds {
        let base = &cards[rng.below(cards.len())];
        let input = mutate(&mut rng, base);
        let decision = evaluate(&input, &requirement, &observation);
        let out = decision.to_json();
        let reparsed = json::parse(out.as_bytes(), 256)
            .unwrap_or_else(|e| panic!("round {round}: decision JSON does not parse: {e}"));
        assert_eq!(jcs::canonicalize(&reparsed), out, "round {round}");
        if !decision.is_valid() {
            rejected += 1;
        }
    }
    // Most mutations break the card; some must survive, or the mutator is not exercising the gate.
    assert!(
        rejected > rounds / 2 && rejected < rounds,
        "{rejected} of {rounds} rejected"
    );
}

#[test]
fn junk_requirements_observations_and_policies_are_typed_errors() {
    let mut rng = Rng(42);
    let seeds: [&[u8]; 3] = [
        br#"{"require":["a","extension:x"],"min_version":"1.2.3-rc.1","max_stale":"250ms","pin":"sha256:0000000000000000000000000000000000000000000000000000000000000000"}"#,
        br#"{"lag_ms":"1","lag_s":2,"synced_at":"2026-11-09T12:00:00Z","consul_last_contact_ms":"3","consul_known_leader":"true","age_s":"4","now":"2026-11-09T12:00:40Z"}"#,
        br#"{"$schema":"./schema.json","defaults":{"max_stale":"10s"},"agents":{"w":{"require":["x"],"$comment":"c"}}}"#,
    ];
    for _ in 0..20_000 {
        let which = rng.below(seeds.len());
        let input = mutate(&mut rng, seeds[which]);
        let text = String::from_utf8_lossy(&input);
        let errors = [
            Requirement::from_json(&text).err(),
            Observation::from_json(&text).err(),
            Policy::from_json(&input).err(),
        ];
        for e in errors.into_iter().flatten() {
            assert!(!e.message.is_empty());
            assert!(e.path.is_empty() || e.path.starts_with('/'), "{e}");
        }
        if let Ok(o) = Observation::from_json(&text) {
            let _ = o.staleness(); // must not panic on any accepted observation
        }
        let _ = api::canonicalize(&input);
    }
}
