//! RFC 8785 JSON Canonicalization Scheme (JCS).
//!
//! The canonical form is what the card hash is computed over and how every decision is
//! serialized, so that the CLI, Envoy, Node and the browser emit identical bytes.
//!
//! - no whitespace; literals `null`, `true`, `false`;
//! - strings: only `"`, `\`, and U+0000..U+001F escaped (`\b \t \n \f \r`, else `\u00xx`);
//! - numbers: ECMAScript `Number.prototype.toString` (shortest round-trip digits), via `ryu-js`;
//! - object members sorted by their names as sequences of UTF-16 code units.
//!
//! ```
//! let v = cardgate::json::parse(br#"{"b": 1.50, "a": [1E2, "\u00e9"]}"#, 64).unwrap();
//! assert_eq!(cardgate::jcs::canonicalize(&v), r#"{"a":[100,"é"],"b":1.5}"#);
//! ```

use crate::json::Value;

/// The RFC 8785 canonical form of `value`.
pub fn canonicalize(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// Appends the canonical form of `value` to `out`.
pub fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(out, *n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(members) => write_members(out, members.iter().map(|(k, v)| (k, v))),
    }
}

/// Appends the canonical form of an object with the given members (sorted here).
pub fn write_members<'a>(out: &mut String, members: impl Iterator<Item = (&'a String, &'a Value)>) {
    let mut sorted: Vec<(Vec<u16>, &String, &Value)> = members
        .map(|(k, v)| (k.encode_utf16().collect(), k, v))
        .collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    out.push('{');
    for (i, (_, k, v)) in sorted.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, k);
        out.push(':');
        write_value(out, v);
    }
    out.push('}');
}

/// Appends an ECMAScript-formatted number. Non-finite numbers cannot occur in a parsed
/// [`Value`]; should one be constructed by hand it is written as `null`, as
/// `JSON.stringify` does.
pub fn write_number(out: &mut String, n: f64) {
    if !n.is_finite() {
        out.push_str("null");
    } else if n == 0.0 {
        out.push('0'); // also -0
    } else {
        let mut buf = ryu_js::Buffer::new();
        out.push_str(buf.format_finite(n));
    }
}

/// Appends a JSON string with RFC 8785's minimal escaping.
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn canon(text: &str) -> String {
        canonicalize(&parse(text.as_bytes(), 64).unwrap())
    }

    #[test]
    fn numbers_follow_ecmascript() {
        assert_eq!(
            canon("[1e21,1e20,1e-7,1e-6,-0,4.50,0.1]"),
            "[1e+21,100000000000000000000,1e-7,0.000001,0,4.5,0.1]"
        );
        assert_eq!(
            canon("[5e-324,1.7976931348623157e308,9007199254740993]"),
            "[5e-324,1.7976931348623157e+308,9007199254740992]"
        );
        assert_eq!(
            canon("[333333333.33333329,1E30,4.35,0.002,1e23]"),
            "[333333333.3333333,1e+30,4.35,0.002,1e+23]"
        );
    }

    #[test]
    fn strings_escape_minimally() {
        assert_eq!(
            canon(r#""\u0001\u001f\/\u007f\u2028\b""#),
            "\"\\u0001\\u001f/\u{7f}\u{2028}\\b\""
        );
    }

    #[test]
    fn members_sort_by_utf16_code_units() {
        // U+1F600 is D83D DE00 in UTF-16, which sorts before U+E000, unlike in UTF-8.
        assert_eq!(
            canon("{\"\u{e000}\":1,\"\u{1F600}\":2,\"a\":3}"),
            "{\"a\":3,\"\u{1F600}\":2,\"\u{e000}\":1}"
        );
    }
}
