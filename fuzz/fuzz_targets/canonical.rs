//! RFC 8785 canonical form: for any document the strict reader accepts, the canonical text
//! reads back as the same tree, and canonicalising it again changes nothing.
#![no_main]

use cardgate::json::{self, Value};
use cardgate::{api, jcs};
use libfuzzer_sys::fuzz_target;

/// The tree with object members sorted as RFC 8785 sorts them (UTF-16 code units), so a tree
/// and its canonical form compare equal.
fn sorted(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        Value::Object(members) => {
            let mut out: Vec<(String, Value)> =
                members.iter().map(|(k, v)| (k.clone(), sorted(v))).collect();
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

fuzz_target!(|bytes: &[u8]| {
    let Ok(tree) = json::parse(bytes, 128) else {
        assert!(api::canonicalize(bytes).is_err());
        return;
    };
    let canonical = jcs::canonicalize(&tree);
    assert_eq!(api::canonicalize(bytes).ok().as_deref(), Some(canonical.as_str()));
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
