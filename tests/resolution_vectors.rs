//! Replays the re-resolution vectors (`tests/vectors/resolution/*.json`) through the core's
//! [`cardgate::Resolution`]: each case's sources answer in order until the rule stops.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use cardgate::json::{self, Value};
use cardgate::resolution::Outcome;
use cardgate::{evaluate, Answer, Observation, Requirement, Resolution, ResolutionLimits, Step};
use common::{card_bytes, expect_diffs};
use std::path::Path;

fn load() -> Vec<Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/resolution");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/vectors/resolution exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let doc = json::parse(&std::fs::read(&file).unwrap(), 128).unwrap();
        cases.extend(doc.get("cases").and_then(Value::as_array).unwrap().to_vec());
    }
    cases
}

/// Runs one case the way a host does; returns the final decision and how many answers it used.
pub fn run(case: &Value) -> (cardgate::Decision, usize) {
    let empty = Value::Object(vec![]);
    let requirement =
        Requirement::from_value(case.get("requirement").unwrap_or(&empty), "").unwrap();
    let limits = case.get("limits").unwrap_or(&empty);
    let num = |k: &str, d: u64| {
        limits
            .get(k)
            .and_then(Value::as_f64)
            .map_or(d, |n| n as u64)
    };
    let mut resolution = Resolution::new(
        ResolutionLimits {
            max_attempts: num("max_attempts", 3) as usize,
            deadline_ms: num("deadline_ms", 5000),
        },
        0,
    );
    let mut budget = case.get("budget").and_then(Value::as_f64).map(|b| b as u64);
    let mut tried = 0;
    let sources = case.get("sources").and_then(Value::as_array).unwrap();
    for (i, source) in sources.iter().enumerate() {
        if i > 0 {
            match budget.as_mut() {
                Some(0) => {
                    resolution.stop(Outcome::OverBudget);
                    break;
                }
                Some(b) => *b -= 1,
                None => {}
            }
        }
        let name = source.get("source").and_then(Value::as_str).unwrap();
        let at = source.get("at_ms").and_then(Value::as_f64).unwrap() as u64;
        let answer = match source.get("failed").and_then(Value::as_str) {
            Some(why) => Answer::Failed(why.to_string()),
            None => {
                let obs = Observation::from_value(source.get("observation").unwrap_or(&empty), "")
                    .unwrap();
                Answer::Card(Box::new(evaluate(&card_bytes(source), &requirement, &obs)))
            }
        };
        tried += 1;
        let final_url = source.get("final_url").and_then(Value::as_str);
        if resolution.record_from(name, final_url, answer, at) != Step::TryNext {
            break;
        }
    }
    resolution.stop(Outcome::SourcesExhausted);
    (resolution.finish(), tried)
}

#[test]
fn every_resolution_vector_gives_the_recorded_decision() {
    let cases = load();
    assert!(
        cases.len() >= 10,
        "found {} resolution vectors",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.get("name").and_then(Value::as_str).unwrap();
        let (decision, tried) = run(case);
        let got = decision.to_value();
        let resolution = got.get("resolution");
        let diffs = expect_diffs(case.get("expect").unwrap(), &decision, |key| match key {
            "tried" => Some(Value::Number(tried as f64)),
            "outcome" | "source" => Some(
                resolution
                    .and_then(|r| r.get(key))
                    .cloned()
                    .unwrap_or(Value::Null),
            ),
            "attempts" => Some(match resolution.and_then(|r| r.get("attempts")) {
                None => Value::Null,
                Some(list) => Value::Array(
                    list.as_array()
                        .unwrap()
                        .iter()
                        .map(|a| {
                            Value::Array(vec![
                                a.get("source").cloned().unwrap(),
                                a.get("verdict").cloned().unwrap(),
                                a.get("error_class").cloned().unwrap_or(Value::Null),
                            ])
                        })
                        .collect(),
                ),
            }),
            // Each attempt's final_url (null when absent).
            "final_urls" => Some(match resolution.and_then(|r| r.get("attempts")) {
                None => Value::Null,
                Some(list) => Value::Array(
                    list.as_array()
                        .unwrap()
                        .iter()
                        .map(|a| a.get("final_url").cloned().unwrap_or(Value::Null))
                        .collect(),
                ),
            }),
            _ => None,
        });
        if !diffs.is_empty() {
            failures.push(format!(
                "{name}:\n    {}\n    decision: {}",
                diffs.join("\n    "),
                decision.to_json()
            ));
        }
    }
    println!("resolution vectors: {} cases", cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
