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

use crate::document::{Document, Node, Slot};
use crate::json::Value;

mod serializer;
pub use serializer::{to_string, Error};

/// The RFC 8785 canonical form of `value`.
pub fn canonicalize(value: &Value) -> String {
    // A tree is written through serde (`Value` is `Serialize`), which cannot fail for JSON.
    to_string(value).unwrap_or_default()
}

/// The RFC 8785 canonical form of a parsed document.
pub fn canonicalize_document(doc: &Document) -> String {
    let mut out = Vec::with_capacity(doc.canonical_len_hint());
    write_node(&mut out, doc.root(), None);
    // The writer copies UTF-8 text and ASCII punctuation only, so this never takes the lossy arm.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Appends the canonical form of `node` to `out`, leaving out the member named `skip` if
/// `node` is an object (the card hash leaves out the top-level `signatures`).
///
/// Walks the document's slots directly: one match per slot, strings copied whole when their
/// JSON text had no escape (that text has no `"`, `\` or control character, so it is its own
/// canonical form), and one scratch list for every object's members, used as a stack. Bytes,
/// not a `String`: the card hash only needs the bytes, and every piece written is UTF-8.
pub(crate) fn write_node(out: &mut Vec<u8>, node: Node<'_>, skip: Option<&str>) {
    let (doc, at) = node.position();
    let mut writer = TapeWriter {
        doc,
        out,
        // Room for the members of a few nested objects of a typical card without regrowing.
        members: Vec::with_capacity(48),
    };
    writer.value(at, skip);
}

/// Where the writers put text: a `String` (decisions) or bytes (the card hash).
pub trait Sink {
    /// Appends `s`.
    fn put(&mut self, s: &str);
}

impl Sink for String {
    #[inline]
    fn put(&mut self, s: &str) {
        self.push_str(s);
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, s: &str) {
        self.extend_from_slice(s.as_bytes());
    }
}

struct TapeWriter<'d, 'o> {
    doc: &'d Document,
    out: &'o mut Vec<u8>,
    /// The sort key and the name's slot index of each member of the objects being written
    /// (innermost last); the value's slot follows its name's.
    members: Vec<(u64, usize)>,
}

impl TapeWriter<'_, '_> {
    /// Writes the value at slot `at`; returns the slot just past it (and everything in it), so
    /// an array's elements are walked without reading each slot twice. Scalars are written in
    /// place: only a container costs a call.
    fn value(&mut self, at: usize, skip: Option<&str>) -> usize {
        match self.doc.slot(at) {
            Slot::Array { len, end } => {
                self.out.push(b'[');
                let mut item = at + 1;
                for i in 0..len {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    item = match self.doc.slot(item) {
                        Slot::Array { .. } | Slot::Object { .. } => self.value(item, None),
                        scalar => {
                            self.scalar(scalar);
                            item + 1
                        }
                    };
                }
                self.out.push(b']');
                end
            }
            Slot::Object { len, end, .. } => {
                self.object(at + 1, len, skip);
                end
            }
            scalar => {
                self.scalar(scalar);
                at + 1
            }
        }
    }

    /// A scalar slot (a container's slot writes nothing here).
    #[inline(always)]
    fn scalar(&mut self, slot: Slot) {
        match slot {
            Slot::Null => self.out.extend_from_slice(b"null"),
            Slot::Bool(true) => self.out.extend_from_slice(b"true"),
            Slot::Bool(false) => self.out.extend_from_slice(b"false"),
            Slot::Number(n) => write_number(self.out, n),
            Slot::Str { at, len, plain } => self.string(at, len, plain),
            Slot::Array { .. } | Slot::Object { .. } => {}
        }
    }

    /// A string slot: a plain one is copied with its quotes straight from the JSON text (that
    /// text has no `"`, `\` or control character, so it is its own canonical form); others are
    /// escaped.
    #[inline(always)]
    fn string(&mut self, at: usize, len: usize, plain: bool) {
        if plain {
            // Most strings of a card (member names, modes, ids) are short: their quoted text
            // and whatever follows it in the JSON text go out as one block, cut back at once.
            if len + 2 <= crate::document::TEXT_BLOCK {
                if let Some(block) = self.doc.text_block(at.wrapping_sub(1)) {
                    let end = self.out.len() + len + 2;
                    self.out.extend_from_slice(block);
                    self.out.truncate(end);
                    return;
                }
            }
            if let Some(quoted) = self.doc.quoted_plain_bytes(at, len) {
                self.out.extend_from_slice(quoted);
                return;
            }
        }
        write_string(self.out, self.doc.str_text(at, len, plain));
    }

    /// An object whose first member's name is at slot `first`.
    fn object(&mut self, first: usize, len: usize, skip: Option<&str>) {
        let base = self.members.len();
        let mut key = first;
        for _ in 0..len {
            if let Slot::Str { at, len, plain } = self.doc.slot(key) {
                let name = self.doc.str_bytes(at, len, plain).unwrap_or_default();
                if skip.is_none_or(|s| s.as_bytes() != name) {
                    self.members.push((sort_prefix(name), key));
                }
            }
            key = self.doc.end_of(key + 1);
        }
        if let Some(own) = self.members.get_mut(base..) {
            sort_members(self.doc, own);
        }
        self.out.push(b'{');
        for i in base..self.members.len() {
            let Some(&(_, key)) = self.members.get(i) else {
                break;
            };
            if i > base {
                self.out.push(b',');
            }
            if let Slot::Str { at, len, plain } = self.doc.slot(key) {
                self.string(at, len, plain);
            }
            self.out.push(b':');
            match self.doc.slot(key + 1) {
                Slot::Array { .. } | Slot::Object { .. } => {
                    self.value(key + 1, None);
                }
                scalar => self.scalar(scalar),
            }
        }
        self.members.truncate(base);
        self.out.push(b'}');
    }
}

/// Sorts an object's members (sort key, name slot) into RFC 8785 order: by insertion, with the
/// order inlined, for the few members objects mostly have; by the library sort past that.
fn sort_members(doc: &Document, members: &mut [(u64, usize)]) {
    if members.len() > 20 {
        members.sort_unstable_by(|a, b| member_order(doc, *a, *b));
        return;
    }
    for i in 1..members.len() {
        let Some(&member) = members.get(i) else {
            break;
        };
        let mut j = i;
        while let Some(&before) = j.checked_sub(1).and_then(|k| members.get(k)) {
            if member_order(doc, before, member).is_le() {
                break;
            }
            if let Some(slot) = members.get_mut(j) {
                *slot = before;
            }
            j -= 1;
        }
        if let Some(slot) = members.get_mut(j) {
            *slot = member;
        }
    }
}

/// A member name's sort key: its first eight bytes as a big-endian number (zeros past its end),
/// with the lead bytes of characters from U+E000 up moved so that comparing two keys compares
/// the names' first bytes in UTF-16 order (see [`utf16_key_byte`]). Two names whose keys differ
/// are in the order of their keys; names whose keys are equal are compared in full.
#[inline]
fn sort_prefix(name: &[u8]) -> u64 {
    // The first eight bytes, zeros past the end, read big-endian.
    let word = crate::document::head_le(name).swap_bytes();
    // Bytes 0xEE and up have their high bit set: ASCII names keep their bytes.
    if word & 0x8080_8080_8080_8080 == 0 {
        return word;
    }
    u64::from_be_bytes(word.to_be_bytes().map(utf16_key_byte))
}

/// A UTF-8 byte, moved so that byte order is UTF-16 order: a supplementary character (lead
/// 0xF0..=0xF4; a surrogate pair, 0xD800.. in UTF-16) sorts before one in U+E000..=U+FFFF (lead
/// 0xEE or 0xEF), and after every other (U+D7FF and below, leads up to 0xED). So the leads
/// 0xF0..=0xF4 become 0xEE..=0xF2 and 0xEE, 0xEF become 0xF3, 0xF4; continuation bytes
/// (0x80..=0xBF) and the other leads stay, and no UTF-8 byte is above 0xF4.
#[inline]
fn utf16_key_byte(b: u8) -> u8 {
    match b {
        0xEE | 0xEF => b + 5,
        0xF0..=0xF4 => b - 2,
        _ => b,
    }
}

/// RFC 8785 member order of two members given as (sort key, name slot): the keys decide when
/// they differ (see [`sort_prefix`]); otherwise the names are compared in full.
#[inline]
fn member_order(doc: &Document, a: (u64, usize), b: (u64, usize)) -> std::cmp::Ordering {
    if a.0 != b.0 {
        return a.0.cmp(&b.0);
    }
    utf16_cmp(doc.str_at(a.1), doc.str_at(b.1))
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
    // Both strings share bytes 0..i, so the differing bytes belong to characters that start
    // at the same place. Below 0xEE on either side, byte order is UTF-16 order: a continuation
    // byte differs only from another continuation byte of the same lead, and a character below
    // U+E000 (UTF-8 has no surrogates, so U+D7FF and below) sorts first either way. Both at
    // 0xEE or above are lead bytes, so both characters start at `i`.
    let (x, y) = (
        ab.get(i).copied().unwrap_or(0),
        bb.get(i).copied().unwrap_or(0),
    );
    if x < 0xEE || y < 0xEE {
        return x.cmp(&y);
    }
    let first_char = |s: &str| {
        s.get(i..)
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
pub fn write_number<S: Sink + ?Sized>(out: &mut S, n: f64) {
    if !n.is_finite() {
        out.put("null");
    } else if n == 0.0 {
        out.put("0"); // also -0
    } else if n.fract() == 0.0 && n.abs() < 1e15 {
        // An integer below 10^15 is exact and ECMAScript writes its plain digits: no need for
        // the shortest-digits search.
        write_integer(out, n);
    } else {
        let mut buf = ryu_js::Buffer::new();
        out.put(buf.format_finite(n));
    }
}

/// Appends the digits of `n`, an integer with magnitude below 10^15.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn write_integer<S: Sink + ?Sized>(out: &mut S, n: f64) {
    let mut value = n.abs() as u64;
    let mut digits = [b'-'; 17];
    let mut start = digits.len();
    while start > 0 {
        start -= 1;
        if let Some(d) = digits.get_mut(start) {
            *d = b'0' + (value % 10) as u8;
        }
        value /= 10;
        if value == 0 {
            break;
        }
    }
    if n < 0.0 {
        start -= 1; // digits[start] is still '-'
    }
    // Only ASCII digits and '-' were written.
    out.put(std::str::from_utf8(digits.get(start..).unwrap_or_default()).unwrap_or_default());
}

/// The lowercase hex digit of the low four bits of `n`, as an ASCII byte.
#[inline]
pub(crate) fn hex_byte(n: u8) -> u8 {
    b"0123456789abcdef"
        .get(usize::from(n & 0xf))
        .copied()
        .unwrap_or(b'0')
}

/// Appends a JSON string with RFC 8785's minimal escaping: runs of characters that need no
/// escape are copied at once, and found eight bytes at a time.
pub fn write_string<S: Sink + ?Sized>(out: &mut S, s: &str) {
    out.put("\"");
    let bytes = s.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while let Some(at) = next_escape(bytes, i) {
        let b = bytes.get(at).copied().unwrap_or(0);
        out.put(s.get(run..at).unwrap_or_default());
        match b {
            b'"' => out.put("\\\""),
            b'\\' => out.put("\\\\"),
            0x08 => out.put("\\b"),
            b'\t' => out.put("\\t"),
            b'\n' => out.put("\\n"),
            0x0c => out.put("\\f"),
            b'\r' => out.put("\\r"),
            _ => {
                let escape = [b'\\', b'u', b'0', b'0', hex_byte(b >> 4), hex_byte(b)];
                out.put(std::str::from_utf8(&escape).unwrap_or_default());
            }
        }
        run = at + 1;
        i = at + 1;
    }
    out.put(s.get(run..).unwrap_or_default());
    out.put("\"");
}

/// Whether `b` must be escaped in a JSON string: `"`, `\` or a control character.
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The index of the first byte at or after `from` that must be escaped. Eight bytes at a time
/// (SWAR): a word has such a byte when one of its bytes is below 0x20 or equals `"` or `\`;
/// the classic "has a zero byte" test tells, after XOR for the equalities. The test may flag a
/// word falsely only after a true hit inside it, so the byte loop then finds the true one.
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH;
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        if below(x, 0x20) | below(x ^ (ONES * 0x22), 1) | below(x ^ (ONES * 0x5c), 1) != 0 {
            break;
        }
        i += 8;
    }
    bytes
        .get(i..)?
        .iter()
        .position(|&b| needs_escape(b))
        .map(|p| i + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time scan finds every byte that needs an escape, wherever it sits.
    #[test]
    fn escapes_are_found_at_every_position() {
        let simple = |s: &str| {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\u{8}' => out.push_str("\\b"),
                    '\t' => out.push_str("\\t"),
                    '\n' => out.push_str("\\n"),
                    '\u{c}' => out.push_str("\\f"),
                    '\r' => out.push_str("\\r"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        };
        for len in 0..20 {
            for at in 0..len {
                for b in (0u8..0x80).chain([0xc3]) {
                    let mut text: Vec<u8> = b"abcdefghijklmnopqrstuvwxyz"
                        .iter()
                        .copied()
                        .take(len)
                        .collect();
                    if b == 0xc3 {
                        text.splice(at..=at, "é!".bytes());
                    } else if let Some(slot) = text.get_mut(at) {
                        *slot = b;
                    }
                    let text = String::from_utf8(text).unwrap();
                    let mut out = String::new();
                    write_string(&mut out, &text);
                    assert_eq!(out, simple(&text), "{text:?}");
                }
            }
        }
    }
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

    /// The integer shortcut writes what the shortest-digits formatter writes.
    #[test]
    fn integers_take_the_shortcut_exactly() {
        let mut cases: Vec<f64> = vec![
            1.0,
            9.0,
            10.0,
            99.0,
            100.0,
            65_536.0,
            1e14,
            1e15 - 1.0,
            1e15,
        ];
        let mut x = 1u64;
        for _ in 0..200 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            cases.push((x % 1_000_000_000_000_000) as f64);
            cases.push((x % 100_000) as f64);
        }
        for n in cases {
            for n in [n, -n] {
                let mut out = String::new();
                write_number(&mut out, n);
                let mut buf = ryu_js::Buffer::new();
                let want = if n == 0.0 { "0" } else { buf.format_finite(n) };
                assert_eq!(out, want, "{n}");
            }
        }
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

    /// Every pair of one- and two-character strings over the characters at the edges of
    /// UTF-8's lengths and of the ranges UTF-16 orders apart (U+E000..=U+FFFF against
    /// supplementary ones), one after the other and after a shared character.
    #[test]
    fn utf16_order_at_every_edge() {
        let edges = [
            0x0, 0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xd000, 0xd7ff, 0xe000, 0xefff, 0xf000, 0xfffd,
            0xffff, 0x10000, 0x1f600, 0xfffff, 0x100000, 0x10ffff,
        ];
        let chars: Vec<char> = edges.iter().filter_map(|&c| char::from_u32(c)).collect();
        assert_eq!(chars.len(), edges.len());
        let mut words: Vec<String> = chars.iter().map(char::to_string).collect();
        for a in &chars {
            for b in &chars {
                words.push([*a, *b].iter().collect());
            }
        }
        for x in &words {
            for y in &words {
                let want = x.encode_utf16().cmp(y.encode_utf16());
                assert_eq!(utf16_cmp(x, y), want, "{x:?} vs {y:?}");
            }
        }
    }

    /// The writer's member order (eight-byte prefixes first) is UTF-16 order for names that
    /// share long prefixes, end inside a prefix, hold NULs or differ past byte eight.
    #[test]
    fn member_order_is_utf16_order() {
        let mut words: Vec<String> = [
            "",
            "a",
            "ab",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "abcdefgh\0",
            "abcdefg\0",
            "\0",
            "a\0",
            "\u{7f}",
            "\u{80}",
            "\u{e000}",
            "\u{ffff}",
            "\u{10000}",
            "\u{1f600}",
            "abcdefg\u{e000}",
            "abcdefg\u{1f600}",
            "abcdef\u{e000}",
            "abcdef\u{1f600}",
            "abcdefgh\u{e000}",
            "abcdefgh\u{1f600}",
            "abcdefghijklmno",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
            "abcdefghijklmnop\0",
            "abcdefghijklmno\0",
            "abcdefghijklmno\u{e000}",
            "abcdefghijklmno\u{1f600}",
            "abcdefghijklmnop\u{e000}",
            "abcdefghijklmnop\u{1f600}",
            "abcdefghijklmn\u{e000}",
            "abcdefghijklmn\u{1f600}",
            "\u{d7ff}",
            "\u{10ffff}",
            "a\u{10ffff}",
            "a\u{fffd}",
            "a\u{d7ff}",
            "\u{e000}\u{10000}",
            "\u{10000}\u{e000}",
            "\u{7ff}\u{800}",
            "\u{100000}",
            "\u{f0000}",
            "ééééx",
            "éééé\u{e000}",
            "éééé\u{10000}",
        ]
        .iter()
        .map(|w| (*w).to_owned())
        .collect();
        words.push("x".repeat(40));
        words.push(format!("{}y", "x".repeat(40)));
        for x in &words {
            for y in &words {
                if x == y {
                    continue;
                }
                let doc = Document::from_value(&Value::Object(vec![
                    (x.clone(), Value::Number(1.0)),
                    (y.clone(), Value::Number(2.0)),
                ]));
                let first = if x.encode_utf16().cmp(y.encode_utf16()).is_lt() {
                    x
                } else {
                    y
                };
                let written = canonicalize_document(&doc);
                let mut want = String::from("{");
                write_string(&mut want, first);
                assert!(written.starts_with(&want), "{x:?} vs {y:?}: {written:?}");
            }
        }
        // Whole objects of these names, in several orders, both below and above the count the
        // insertion sort takes (20 members).
        for count in [3, 7, 20, 21, words.len()] {
            for turn in [0, 5, 11] {
                let mut names: Vec<&String> = words.iter().cycle().skip(turn).take(count).collect();
                if turn == 5 {
                    names.reverse();
                }
                let members = names.iter().map(|n| ((*n).clone(), Value::Null)).collect();
                let written = canonicalize_document(&Document::from_value(&Value::Object(members)));
                names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
                let mut want = String::from("{");
                for (i, name) in names.iter().enumerate() {
                    if i > 0 {
                        want.push(',');
                    }
                    write_string(&mut want, name);
                    want.push_str(":null");
                }
                want.push('}');
                assert_eq!(written, want, "{count} names from {turn}");
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
