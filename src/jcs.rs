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

mod serializer;
pub use serializer::{to_string, Error};

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
    let mut sorted: Vec<(&String, &Value)> = members.collect();
    sorted.sort_unstable_by(|a, b| utf16_cmp(a.0, b.0));
    out.push('{');
    for (i, (k, v)) in sorted.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, k);
        out.push(':');
        write_value(out, v);
    }
    out.push('}');
}

/// Orders two strings as sequences of UTF-16 code units (RFC 8785 §3.2.3) without converting
/// them: UTF-8 byte order is code point order, which equals UTF-16 order except between a
/// character in U+E000..U+FFFF and a supplementary one (U+10000 and up, a surrogate pair in
/// UTF-16, which sorts first). Only the first differing character decides, so only it is
/// looked at.
pub fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let Some(i) = ab.iter().zip(bb).position(|(x, y)| x != y) else {
        return ab.len().cmp(&bb.len());
    };
    // Both strings share bytes 0..i, so they differ inside the same character position; both
    // differing bytes below 0xEE means neither character is U+E000 or above.
    let (x, y) = (
        ab.get(i).copied().unwrap_or(0),
        bb.get(i).copied().unwrap_or(0),
    );
    if x < 0xEE && y < 0xEE {
        return x.cmp(&y);
    }
    let first_char = |s: &str| {
        let mut start = i;
        while start > 0 && !s.is_char_boundary(start) {
            start -= 1;
        }
        s.get(start..)
            .and_then(|t| t.chars().next())
            .map_or(0, u32::from)
    };
    let key = |c: u32| if c >= 0x10000 { 0xD800 } else { c };
    let (cx, cy) = (first_char(a), first_char(b));
    key(cx).cmp(&key(cy)).then(cx.cmp(&cy))
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

/// The lowercase hex digit of the low four bits of `n`.
pub(crate) fn hex_digit(n: u8) -> char {
    char::from_digit(u32::from(n & 0xf), 16).unwrap_or('0')
}

/// Appends a JSON string with RFC 8785's minimal escaping: runs of characters that need no
/// escape are copied at once.
pub fn write_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            b'\t' => "\\t",
            b'\n' => "\\n",
            0x0c => "\\f",
            b'\r' => "\\r",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(s.get(run..i).unwrap_or_default());
        if escape.is_empty() {
            out.push_str("\\u00");
            out.push(crate::jcs::hex_digit(b >> 4));
            out.push(crate::jcs::hex_digit(b));
        } else {
            out.push_str(escape);
        }
        run = i + 1;
    }
    out.push_str(s.get(run..).unwrap_or_default());
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
    fn utf16_order_without_conversion() {
        let words = [
            "",
            "a",
            "ab",
            "b",
            "\u{7f}",
            "\u{80}",
            "\u{7ff}",
            "\u{800}",
            "\u{d7ff}",
            "\u{e000}",
            "\u{ffff}",
            "\u{10000}",
            "\u{1f600}",
            "\u{10ffff}",
            "a\u{e000}",
            "a\u{1f600}",
            "\u{e000}x",
            "\u{fb01}",
            "\u{1d11e}",
            "é",
            "éa",
        ];
        for x in words {
            for y in words {
                let want = x.encode_utf16().cmp(y.encode_utf16());
                assert_eq!(utf16_cmp(x, y), want, "{x:?} vs {y:?}");
            }
        }
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
