//! Replays every shared decision vector in `tests/vectors/*.json` through the native core.
//!
//! The same files are replayed by the Node package, the browser build and a real Envoy; each
//! runtime must reach the decision recorded in `expect`.

// Test code: a broken expectation should stop the run loudly, so unwrap/expect/panic are fine here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use cardgate::json::{self, Value};
use cardgate::watermark_sources::{observe, ResponseFields, WatermarkSources};
use cardgate::{evaluate, jcs, Observation, Requirement, Timestamp};
use common::{card_bytes, expect_diffs};
use std::path::Path;

/// A case's `headers` (response headers served with the card, DESIGN.md "Vectors") mapped to
/// the observation the way every host that reads responses maps them: the conventional
/// [`WatermarkSources`]. Names compare case-insensitively; each character of a value is one
/// byte (U+0000-U+00FF, as HTTP carries octets), so a value can hold bytes that are not UTF-8.
/// The case's observation may only add `now`.
fn observe_headers(headers: &Value, observation: Observation) -> Observation {
    let pairs: Vec<(String, Vec<u8>)> = headers
        .as_array()
        .expect("headers is an array")
        .iter()
        .map(|h| {
            let pair = h.as_array().expect("a header is [name, value]");
            let name = pair[0].as_str().expect("header name").to_ascii_lowercase();
            let value = pair[1].as_str().expect("header value");
            let bytes = value
                .chars()
                .map(|c| u8::try_from(u32::from(c)).expect("header value characters are bytes"))
                .collect();
            (name, bytes)
        })
        .collect();
    let lookup = |name: &str| -> Vec<Vec<u8>> {
        pairs
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .collect()
    };
    assert_eq!(
        Observation {
            now: None,
            ..observation.clone()
        },
        Observation::default(),
        "a case with headers takes its watermark from them (observation: `now` only)"
    );
    let mut obs = observe(
        &WatermarkSources::conventional(),
        None,
        None,
        ResponseFields::headers(&lookup),
        observation.now.unwrap_or(Timestamp::from_unix_ms(0)),
    );
    obs.now = observation.now;
    obs
}

fn load_cases() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/vectors exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let bytes = std::fs::read(&file).expect("readable vector file");
        let doc = json::parse(&bytes, 128).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        for case in doc
            .get("cases")
            .and_then(Value::as_array)
            .expect("cases array")
        {
            cases.push((stem.clone(), case.clone()));
        }
    }
    cases
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|s| s.as_str().expect("string").to_string())
        .collect()
}

#[test]
fn every_vector_gives_the_recorded_decision() {
    let cases = load_cases();
    assert!(
        cases.len() >= 80,
        "expected at least 80 vectors, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    let mut names = std::collections::HashSet::new();
    let mut per_file = std::collections::BTreeMap::<String, usize>::new();
    for (file, case) in &cases {
        let name = case
            .get("name")
            .and_then(Value::as_str)
            .expect("case name")
            .to_string();
        assert!(names.insert(name.clone()), "duplicate case name {name:?}");
        *per_file.entry(file.clone()).or_default() += 1;
        let empty = Value::Object(vec![]);
        let requirement =
            Requirement::from_value(case.get("requirement").unwrap_or(&empty), "/requirement")
                .unwrap_or_else(|e| panic!("{name}: bad requirement: {e}"));
        let observation =
            Observation::from_value(case.get("observation").unwrap_or(&empty), "/observation")
                .unwrap_or_else(|e| panic!("{name}: bad observation: {e}"));
        let observation = match case.get("headers") {
            Some(headers) => observe_headers(headers, observation),
            None => observation,
        };
        let decision = evaluate(&card_bytes(case), &requirement, &observation);
        let json_out = decision.to_json();
        // A kept analysis (the Envoy cache) decides byte-identically, every time it is reused.
        let analysis = cardgate::gate::analyze(&card_bytes(case), &cardgate::Limits::default());
        let shared = std::rc::Rc::new(requirement.clone());
        let mut memo = cardgate::gate::PassedChecks::default();
        for _ in 0..2 {
            let reused = cardgate::gate::decide(&analysis, &requirement, &observation);
            assert_eq!(
                reused.to_json(),
                json_out,
                "{name}: decide(analyze) differs"
            );
            let remembered = analysis.decide_remembering(&mut memo, &shared, &observation);
            assert_eq!(
                remembered.to_json(),
                json_out,
                "{name}: decide_remembering differs"
            );
        }
        // The decision's own JSON is strict, canonical JSON.
        let reparsed = json::parse(json_out.as_bytes(), 128).expect("decision JSON parses");
        assert_eq!(
            jcs::canonicalize(&reparsed),
            json_out,
            "{name}: decision JSON is canonical"
        );

        let expect = case.get("expect").expect("expect");
        let mut diffs = expect_diffs(expect, &decision, |_| None);
        if let Some(codes) = expect.get("reason_codes") {
            if strings(codes).is_empty() != decision.is_valid() {
                diffs.push("reason_codes and verdict disagree".into());
            }
        }
        if !diffs.is_empty() {
            failures.push(format!(
                "[{file}] {name}:\n    {}\n    decision: {json_out}",
                diffs.join("\n    ")
            ));
        }
    }
    let summary: Vec<String> = per_file.iter().map(|(f, n)| format!("{f} {n}")).collect();
    println!("vectors: {} cases ({})", cases.len(), summary.join(", "));
    assert!(
        failures.is_empty(),
        "{} of {} vectors disagree:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
