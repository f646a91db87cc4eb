//! RFC 8785 canonical form: for any document the strict reader accepts, the canonical text
//! reads back as the same tree, and canonicalising it again changes nothing. Differential:
//! serde_json's own `Value` (the same lexer as the strict reader, its own tree building) accepts
//! every document the strict reader accepts, with the same values; what serde_json accepts and
//! the strict reader refuses is a duplicate member or nesting past the limit (I-JSON's
//! additions), nothing else.
#![no_main]

use cardgate::json::{self, JsonErrorKind, Value};
use cardgate::{api, jcs};
use libfuzzer_sys::fuzz_target;

/// The tree with object members sorted as RFC 8785 sorts them (UTF-16 code units), so a tree
/// and its canonical form compare equal.
fn sorted(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        Value::Object(members) => {
            let mut out: Vec<(String, Value)> = members
                .iter()
                .map(|(k, v)| (k.clone(), sorted(v)))
                .collect();
            out.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            Value::Object(out)
        }
        scalar => scalar.clone(),
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        // -0 and 0 are one number in JCS ("0"); NaN cannot occur (I-JSON).
        (Value::Number(x), Value::Number(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| a.0 == b.0 && same(&a.1, &b.1))
        }
        _ => a == b,
    }
}

/// Same document per serde_json (members looked up by name; numbers as doubles).
fn agrees(ours: &Value, theirs: &serde_json::Value) -> bool {
    use serde_json::Value as S;
    match (ours, theirs) {
        (Value::Null, S::Null) => true,
        (Value::Bool(a), S::Bool(b)) => a == b,
        (Value::Number(a), S::Number(b)) => b.as_f64() == Some(*a),
        (Value::String(a), S::String(b)) => a == b,
        (Value::Array(a), S::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| agrees(x, y))
        }
        (Value::Object(a), S::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| agrees(v, w)))
        }
        _ => false,
    }
}

fuzz_target!(|bytes: &[u8]| {
    let theirs = serde_json::from_slice::<serde_json::Value>(bytes);
    let tree = match json::parse(bytes, 128) {
        Ok(tree) => tree,
        Err(e) => {
            assert!(api::canonicalize(bytes).is_err());
            if theirs.is_ok() {
                assert!(
                    matches!(
                        e.kind(),
                        JsonErrorKind::DuplicateMember | JsonErrorKind::TooDeep
                    ),
                    "serde_json reads what the strict reader refuses as {:?}: {e}",
                    e.kind()
                );
            }
            return;
        }
    };
    if json::parse(bytes, 100).is_ok() {
        let theirs =
            theirs.unwrap_or_else(|e| panic!("serde_json refuses an accepted document: {e}"));
        assert!(agrees(&tree, &theirs), "serde_json reads another document");
    }
    let canonical = jcs::canonicalize(&tree);
    assert_eq!(
        api::canonicalize(bytes).ok().as_deref(),
        Some(canonical.as_str())
    );
    let back = json::parse(canonical.as_bytes(), 128)
        .unwrap_or_else(|e| panic!("canonical output does not parse: {e}\n{canonical}"));
    assert!(
        same(&back, &sorted(&tree)),
        "parse(canonical) differs from the tree\n{canonical}"
    );
    assert_eq!(jcs::canonicalize(&back), canonical, "not idempotent");
    // The canonical form is ASCII-safe where JCS says so: no raw control characters.
    assert!(!canonical.bytes().any(|b| b < 0x20));
});
