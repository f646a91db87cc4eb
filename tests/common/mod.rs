//! Helpers shared by the vector runners: the bytes a case sends as its card.

#![allow(
    dead_code,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing
)]

use cardgate::json::Value;
use cardgate::{jcs, Decision};

/// Compact JSON in document order, as `JSON.stringify` writes it (number spelling aside, which
/// the card hash does not see).
fn compact(v: &Value, out: &mut String) {
    match v {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                compact(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                jcs::write_string(out, k);
                out.push(':');
                compact(item, out);
            }
            out.push('}');
        }
        scalar => out.push_str(&jcs::canonicalize(scalar)),
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in text
        .bytes()
        .filter(|c| *c != b'=' && !c.is_ascii_whitespace())
    {
        let v = alphabet.iter().position(|a| *a == c).expect("base64 digit") as u32;
        bits = (bits << 6) | v;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    out
}

/// The bytes a case sends as the card.
pub fn card_bytes(case: &Value) -> Vec<u8> {
    if let Some(text) = case.get("card_text") {
        return text
            .as_str()
            .expect("card_text is a string")
            .as_bytes()
            .to_vec();
    }
    if let Some(b64) = case.get("card_base64") {
        return base64_decode(b64.as_str().expect("card_base64 is a string"));
    }
    let mut out = String::new();
    compact(
        case.get("card")
            .expect("case has card, card_text or card_base64"),
        &mut out,
    );
    out.into_bytes()
}

/// Compares every member of a case's `expect` with the decision: `reason_codes` and
/// `missing_capabilities` from the decision, a key `special` answers from the runner's own
/// state, anything else from the decision JSON. One line per difference.
pub fn expect_diffs(
    expect: &Value,
    decision: &Decision,
    special: impl Fn(&str) -> Option<Value>,
) -> Vec<String> {
    let got = decision.to_value();
    let strings = |items: Vec<String>| Value::Array(items.into_iter().map(Value::String).collect());
    let mut diffs = Vec::new();
    for (key, want) in expect.as_object().expect("expect is an object") {
        let actual = match key.as_str() {
            "reason_codes" => strings(
                decision
                    .reasons()
                    .iter()
                    .map(|r| r.code.as_str().to_string())
                    .collect(),
            ),
            "missing_capabilities" => strings(decision.missing_capabilities().to_vec()),
            other => special(other)
                .or_else(|| got.get(other).cloned())
                .unwrap_or(Value::Null),
        };
        if actual != *want {
            diffs.push(format!(
                "{key}: expected {}, got {}",
                jcs::canonicalize(want),
                jcs::canonicalize(&actual)
            ));
        }
    }
    diffs
}
