//! A strict I-JSON (RFC 7493) reader.
//!
//! Agent Cards are security-relevant input: two parsers that disagree about a document (which of
//! two `version` members wins, what a lone surrogate means) let an attacker show one card to the
//! gate and another to the caller. This reader therefore refuses everything I-JSON refuses:
//! duplicate member names at any depth, lone surrogates, numbers that are not finite doubles,
//! invalid UTF-8, and anything but whitespace after the document. It never panics and bounds its
//! recursion by `max_depth`.
//!
//! serde_json does the lexing (numbers exact with its `float_roundtrip` feature, lone
//! surrogates refused); a [`DeserializeSeed`] builds the [`Value`] tree and adds what I-JSON
//! wants beyond JSON: unique member names and the depth limit. Errors keep the hand-written
//! reader's kinds, byte offsets and JSON Pointers (a differential checked them on the vectors,
//! the fuzz corpora and millions of mutated inputs before that reader was deleted).

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

pub use crate::document::Document;
use crate::document::Slot;

/// A parsed JSON value. Objects keep their members in document order.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number, as the IEEE double it denotes.
    Number(f64),
    /// A string (valid Unicode: no lone surrogates).
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, members in document order, names unique.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// A string value (a figure or a label in a decision).
    pub(crate) fn text(s: &str) -> Value {
        Value::String(s.to_owned())
    }

    /// A whole-number figure (a byte count, milliseconds): exact in every runtime's JSON, since
    /// every such figure the gate reports is far below 2^53.
    #[allow(clippy::cast_precision_loss)]
    pub(crate) fn whole(n: u64) -> Value {
        Value::Number(n as f64)
    }

    /// The member `key` of an object, if this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<&[(String, Value)]> {
        match self {
            Value::Object(members) => Some(members),
            _ => None,
        }
    }

    /// The heap bytes this tree holds (capacities, not lengths), for hosts that bound memory.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Value::String(s) => s.capacity(),
            Value::Array(items) => {
                items.capacity() * std::mem::size_of::<Value>()
                    + items.iter().map(Value::heap_bytes).sum::<usize>()
            }
            Value::Object(members) => {
                members.capacity() * std::mem::size_of::<(String, Value)>()
                    + members
                        .iter()
                        .map(|(k, v)| k.capacity() + v.heap_bytes())
                        .sum::<usize>()
            }
            _ => 0,
        }
    }

    /// The JSON type name, as used in error messages (`"string"`, `"object"`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    /// Resolves an RFC 6901 JSON Pointer (`""` is the whole document).
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut current = self;
        for raw in rest.split('/') {
            let token = raw.replace("~1", "/").replace("~0", "~");
            current = match current {
                Value::Object(_) => current.get(&token)?,
                Value::Array(items) => {
                    let valid_index = !token.is_empty()
                        && token.bytes().all(|b| b.is_ascii_digit())
                        && (token == "0" || !token.starts_with('0'));
                    if !valid_index {
                        return None;
                    }
                    items.get(token.parse::<usize>().ok()?)?
                }
                _ => return None,
            };
        }
        Some(current)
    }
}

/// Escapes one reference token for a JSON Pointer (RFC 6901).
pub fn pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Writes the value with its object members in document order (numbers as `f64`).
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => s.serialize_f64(*n),
            Value::String(text) => s.serialize_str(text),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (name, value) in members {
                    map.serialize_entry(name, value)?;
                }
                map.end()
            }
        }
    }
}

/// Why a document is not acceptable I-JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonErrorKind {
    /// No document at all (empty or only whitespace).
    Empty,
    /// The bytes are not UTF-8.
    InvalidUtf8,
    /// Not JSON.
    Syntax,
    /// Something other than whitespace follows the document.
    TrailingData,
    /// An object repeats a member name.
    DuplicateMember,
    /// A `\u` escape names half of a surrogate pair without the other half.
    LoneSurrogate,
    /// A number that is not a finite IEEE double.
    NumberOutOfRange,
    /// Arrays and objects nested deeper than the limit.
    TooDeep,
}

/// A document that could not be read, with where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    kind: JsonErrorKind,
    offset: usize,
    path: String,
    message: String,
}

impl JsonError {
    /// The coarse class of the error.
    pub fn kind(&self) -> JsonErrorKind {
        self.kind
    }
    /// Byte offset in the input where the problem was found.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// JSON Pointer of the value being read when the problem was found.
    pub fn path(&self) -> &str {
        &self.path
    }
    /// A sentence saying what is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The path is reported separately (`path()`), so callers can place it once.
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

impl std::error::Error for JsonError {}

/// Parses `bytes` as one strict I-JSON document, nesting at most `max_depth` levels.
///
/// The tree is built from the [`Document`] that [`parse_document`] reads.
pub fn parse(bytes: &[u8], max_depth: usize) -> Result<Value, JsonError> {
    parse_document(bytes, max_depth).map(|doc| doc.root().to_value())
}

/// Appends the decimal digits of `n` to `out`: what `write!(out, "{n}")` writes, without the
/// formatting machinery (the decision's messages are written on every evaluation), by `itoa`.
pub(crate) fn push_whole(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Parses `bytes` as one strict I-JSON document into a [`Document`], nesting at most
/// `max_depth` levels.
///
/// serde_json lexes; `DocSeed` fills the document and refuses what serde_json accepts but I-JSON
/// does not (duplicate member names) and nesting beyond `max_depth`. serde_json's own recursion
/// limit (127 levels) also applies whatever `max_depth` says.
pub fn parse_document(bytes: &[u8], max_depth: usize) -> Result<Document, JsonError> {
    // UTF-8 first, so an invalid byte is `InvalidUtf8` at its own offset wherever it is (also
    // after the document), and serde_json then reads a `str` without checking it again.
    let text = std::str::from_utf8(bytes).map_err(|e| JsonError {
        kind: JsonErrorKind::InvalidUtf8,
        offset: e.valid_up_to(),
        path: String::new(),
        // `Display` adds " at byte N" to every message.
        message: "invalid UTF-8 byte sequence".into(),
    })?;
    if text.bytes().all(is_json_whitespace) {
        return Err(JsonError {
            kind: JsonErrorKind::Empty,
            offset: text.len(),
            path: String::new(),
            message: "empty document".into(),
        });
    }
    // A UTF-8 byte order mark is not JSON text (RFC 8259 §8.1: MUST NOT add one); serde_json
    // refuses it as any other unexpected character.
    let mut reading = Reading {
        max_depth,
        refusal: None,
        path: Vec::new(),
        doc: Document::for_text(text),
        text,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let read = DocSeed {
        reading: &mut reading,
        depth: 0,
        at: At::Root,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    match read {
        Ok(()) => Ok(reading.doc),
        Err(e) => Err(reading.error(&e, text.as_bytes())),
    }
}

fn is_json_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// What the seeds share while reading one document: the limit, the document being filled, and
/// on the way out of an error, what refused it (when it was not serde_json) and the path,
/// innermost segment first. Reading a
/// valid document never touches the path.
struct Reading<'t> {
    max_depth: usize,
    refusal: Option<Refusal>,
    path: Vec<String>,
    doc: Document,
    /// The text being read: a string serde_json lends from it is plain (it had no escape).
    text: &'t str,
}

impl Reading<'_> {
    /// Appends a string slot: a range of the text when serde_json lent the string straight
    /// from it (it had no escape), else a decoded copy.
    #[inline(always)]
    fn push_str(&mut self, s: &str, borrowed: bool) -> usize {
        let start = self.text.as_ptr() as usize;
        let at = (s.as_ptr() as usize).wrapping_sub(start);
        if borrowed && at <= self.text.len() && s.len() <= self.text.len() - at {
            self.doc.push_plain_str(at, s.len())
        } else {
            self.doc.push_str(s)
        }
    }
}

/// A refusal of this module's own (serde_json sees only a custom error).
enum Refusal {
    Duplicate(String),
    TooDeep,
}

/// Where the value being read sits in its parent.
#[derive(Clone, Copy)]
enum At {
    Root,
    Index(usize),
    /// The member whose key is the string slot at this index.
    Member(usize),
}

/// Reads one value into the document; on an error from inside it, adds its own segment to the
/// path.
struct DocSeed<'r, 't> {
    reading: &'r mut Reading<'t>,
    depth: usize,
    at: At,
}

impl<'de> DeserializeSeed<'de> for DocSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let at = self.at;
        let reading = self.reading;
        let read = d.deserialize_any(DocVisitor {
            reading: &mut *reading,
            depth: self.depth,
        });
        if read.is_err() {
            match at {
                At::Root => {}
                At::Index(i) => reading.path.push(i.to_string()),
                At::Member(key) => {
                    let name = reading.doc.str_at(key).to_owned();
                    reading.path.push(name);
                }
            }
        }
        read
    }
}

struct DocVisitor<'r, 't> {
    reading: &'r mut Reading<'t>,
    depth: usize,
}

impl DocVisitor<'_, '_> {
    /// Nesting one level deeper than this value's; refused past the limit.
    fn enter<E: de::Error>(&mut self) -> Result<usize, E> {
        let depth = self.depth + 1;
        if depth > self.reading.max_depth {
            self.reading.refusal = Some(Refusal::TooDeep);
            return Err(E::custom("too deep"));
        }
        Ok(depth)
    }
}

impl<'de> Visitor<'de> for DocVisitor<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.reading.doc.push(Slot::Null);
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<(), E> {
        self.reading.doc.push(Slot::Bool(b));
        Ok(())
    }

    // Integers convert with round-to-nearest-even, the double the decimal text denotes.
    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<(), E> {
        self.reading.doc.push(Slot::Number(n as f64));
        Ok(())
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<(), E> {
        self.reading.doc.push(Slot::Number(n as f64));
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<(), E> {
        // serde_json refuses non-finite numbers itself; this wording is its own for them.
        if n.is_finite() {
            self.reading.doc.push(Slot::Number(n));
            Ok(())
        } else {
            Err(E::custom("number out of range"))
        }
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<(), E> {
        self.reading.push_str(s, true);
        Ok(())
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        self.reading.push_str(s, false);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let depth = self.enter()?;
        let head = self.reading.doc.open_array();
        let mut index = 0;
        loop {
            let before = self.reading.path.len();
            let seed = DocSeed {
                reading: &mut *self.reading,
                depth,
                at: At::Index(index),
            };
            match seq.next_element_seed(seed) {
                Ok(Some(())) => index += 1,
                Ok(None) => {
                    self.reading.doc.close(head, index);
                    return Ok(());
                }
                Err(e) => {
                    // serde_json reports a missing element (`[1,]`, `[1,` or `[` at the end)
                    // at the array; the path names the element that is missing.
                    if self.reading.path.len() == before && missing_element(&e, index) {
                        self.reading.path.push(index.to_string());
                    }
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let depth = self.enter()?;
        let head = self.reading.doc.open_object();
        // Past a few members, duplicates are looked up in a set, so a hostile body of many
        // small members costs O(n), not O(n^2).
        let mut seen: Option<HashSet<String>> = None;
        let mut count = 0;
        // One bit per [`name_bit`] of the names so far.
        let mut name_bits = 0u64;
        while let Some((key, bit)) = map.next_key_seed(KeySeed(&mut *self.reading))? {
            let reading = &mut *self.reading;
            let duplicate = match &mut seen {
                Some(set) => !set.insert(reading.doc.str_at(key).to_owned()),
                None => {
                    // Only a name whose bit an earlier name has can repeat one: then the
                    // earlier names are read again from the document.
                    let duplicate =
                        name_bits & bit != 0 && reading.doc.has_earlier_member(head, count, key);
                    if count >= LINEAR_SCAN_MEMBERS {
                        let mut set: HashSet<String> = reading
                            .doc
                            .member_names(head, count)
                            .map(str::to_owned)
                            .collect();
                        set.insert(reading.doc.str_at(key).to_owned());
                        seen = Some(set);
                    }
                    duplicate
                }
            };
            if duplicate {
                let name = reading.doc.str_at(key).to_owned();
                reading.path.push(name.clone());
                reading.refusal = Some(Refusal::Duplicate(name));
                return Err(de::Error::custom("duplicate member"));
            }
            if depth == 1 {
                reading.doc.note_root_member(key, bit);
            }
            name_bits |= bit;
            count += 1;
            map.next_value_seed(DocSeed {
                reading: &mut *self.reading,
                depth,
                at: At::Member(key),
            })?;
        }
        self.reading.doc.close_object(head, count, name_bits);
        Ok(())
    }
}

/// Reads a member name into a string slot; its value is the slot's index and the name's
/// [`name_bit`].
struct KeySeed<'r, 't>(&'r mut Reading<'t>);

/// What [`KeySeed`] gives.
type KeyRead = (usize, u64);

impl<'de> DeserializeSeed<'de> for KeySeed<'_, '_> {
    type Value = KeyRead;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<KeyRead, D::Error> {
        d.deserialize_str(self)
    }
}

/// A name's [`crate::document::name_bit`]: a name whose bit no earlier name of its object has
/// is no duplicate.
#[inline(always)]
fn name_bit(name: &str) -> u64 {
    crate::document::name_bit(name.as_bytes())
}

impl<'de> Visitor<'de> for KeySeed<'_, '_> {
    type Value = KeyRead;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<KeyRead, E> {
        // Lent from the JSON text: it had no escape, so it holds no U+0000.
        if s.starts_with('[') {
            self.0.doc.note_name(s);
        }
        Ok((self.0.push_str(s, true), name_bit(s)))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<KeyRead, E> {
        self.0.doc.note_name(s);
        Ok((self.0.push_str(s, false), name_bit(s)))
    }
}

/// Objects up to this many members are checked for duplicates by a linear scan.
const LINEAR_SCAN_MEMBERS: usize = 16;

/// serde_json's errors, told apart by their wording (serde_json exposes no code; the unit test
/// `serde_json_wording_is_pinned` fails if the wording changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Code {
    EofWhileParsingList,
    EofWhileParsingObject,
    EofWhileParsingString,
    EofWhileParsingValue,
    ExpectedColon,
    ExpectedListCommaOrEnd,
    ExpectedObjectCommaOrEnd,
    ExpectedSomeIdent,
    ExpectedSomeValue,
    InvalidEscape,
    InvalidNumber,
    NumberOutOfRange,
    ControlCharacterWhileParsingString,
    KeyMustBeAString,
    LoneLeadingSurrogateInHexEscape,
    UnexpectedEndOfHexEscape,
    TrailingComma,
    TrailingCharacters,
    RecursionLimitExceeded,
    /// Any other wording (a custom error of ours, or one this module does not know).
    Other,
}

const WORDING: &[(&str, Code)] = &[
    ("EOF while parsing a list", Code::EofWhileParsingList),
    ("EOF while parsing an object", Code::EofWhileParsingObject),
    ("EOF while parsing a string", Code::EofWhileParsingString),
    ("EOF while parsing a value", Code::EofWhileParsingValue),
    ("expected `:`", Code::ExpectedColon),
    ("expected `,` or `]`", Code::ExpectedListCommaOrEnd),
    ("expected `,` or `}`", Code::ExpectedObjectCommaOrEnd),
    ("expected ident", Code::ExpectedSomeIdent),
    ("expected value", Code::ExpectedSomeValue),
    ("invalid escape", Code::InvalidEscape),
    ("invalid number", Code::InvalidNumber),
    ("number out of range", Code::NumberOutOfRange),
    (
        "control character (\\u0000-\\u001F) found while parsing a string",
        Code::ControlCharacterWhileParsingString,
    ),
    ("key must be a string", Code::KeyMustBeAString),
    (
        "lone leading surrogate in hex escape",
        Code::LoneLeadingSurrogateInHexEscape,
    ),
    (
        "unexpected end of hex escape",
        Code::UnexpectedEndOfHexEscape,
    ),
    ("trailing comma", Code::TrailingComma),
    ("trailing characters", Code::TrailingCharacters),
    ("recursion limit exceeded", Code::RecursionLimitExceeded),
];

/// The wording of `e` without its position, and what it means.
fn code(e: &serde_json::Error) -> (String, Code) {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let wording = text.strip_suffix(&suffix).unwrap_or(&text).to_string();
    let code = WORDING
        .iter()
        .find(|(w, _)| *w == wording)
        .map_or(Code::Other, |&(_, c)| c);
    (wording, code)
}

/// Whether serde_json's error `e`, raised by the array itself before element `index` was read,
/// is about that element missing.
fn missing_element<E: de::Error>(e: &E, index: usize) -> bool {
    // `E` is serde_json's error here; its wording is all this generic context can see.
    let text = e.to_string();
    text.starts_with("trailing comma")
        || text.starts_with("EOF while parsing a value")
        || (index == 0 && text.starts_with("EOF while parsing a list"))
}

/// The byte offset of serde_json's line and column (a column counts bytes from the line's start).
fn byte_offset(bytes: &[u8], line: usize, column: usize) -> usize {
    if line == 0 {
        return bytes.len();
    }
    let line_start = if line == 1 {
        0
    } else {
        bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .nth(line - 2)
            .map_or(bytes.len(), |(i, _)| i + 1)
    };
    (line_start + column).min(bytes.len())
}

fn byte_at(bytes: &[u8], i: usize) -> u8 {
    bytes.get(i).copied().unwrap_or(0)
}

/// Going back from `end` over JSON whitespace.
fn back_over_whitespace(bytes: &[u8], mut end: usize) -> usize {
    while end > 0 && is_json_whitespace(byte_at(bytes, end - 1)) {
        end -= 1;
    }
    end
}

/// The opening quote of the string whose closing quote is at `close`.
fn string_start(bytes: &[u8], close: usize) -> usize {
    let mut i = close;
    while i > 0 {
        i -= 1;
        if byte_at(bytes, i) == b'"' {
            let backslashes = bytes
                .get(..i)
                .unwrap_or_default()
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if backslashes % 2 == 0 {
                return i;
            }
        }
    }
    0
}

/// Where a refusal raised right after a member name (or an opening bracket) started, given where
/// serde_json stood when it noticed: at most whitespace and one closing bracket (or a comma and
/// whitespace) were read after it.
fn token_before(bytes: &[u8], position: usize) -> usize {
    let mut i = back_over_whitespace(bytes, position);
    if i > 0 && matches!(byte_at(bytes, i - 1), b'}' | b']' | b',') {
        i = back_over_whitespace(bytes, i - 1);
    }
    i.saturating_sub(1)
}

/// Whether a backslash at `i` starts an escape (it is not itself escaped).
fn escape_starts_at(bytes: &[u8], i: usize) -> bool {
    byte_at(bytes, i) == b'\\'
        && bytes
            .get(..i)
            .unwrap_or_default()
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count()
            % 2
            == 0
}

/// The four hex digits at `i`, if there are four.
fn hex4(bytes: &[u8], i: usize) -> Option<u32> {
    let digits = std::str::from_utf8(bytes.get(i..i + 4)?).ok()?;
    if digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        u32::from_str_radix(digits, 16).ok()
    } else {
        None
    }
}

fn is_number_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
}

/// The first byte of the number that ends at or around `position`.
fn number_start(bytes: &[u8], position: usize) -> usize {
    let mut i = position.min(bytes.len());
    while i > 0 && is_number_byte(byte_at(bytes, i - 1)) {
        i -= 1;
    }
    i
}

/// The `\u` escape of the lone surrogate serde_json refused, given where it stood: just after a
/// lone low surrogate (`\uDC00`), after a high one and a non-low escape (`\uD800\u0041`), or one
/// or two bytes after a high one (`\uD800"`, `\uD800\n`).
fn lone_surrogate_at(bytes: &[u8], position: usize) -> (usize, u32) {
    let unit = |at: usize| -> Option<u32> {
        let escape = bytes.get(at..at + 6)?;
        let hex = std::str::from_utf8(escape.get(2..)?).ok()?;
        if escape.starts_with(b"\\u") {
            u32::from_str_radix(hex, 16).ok()
        } else {
            None
        }
    };
    let back = |n: usize| position.checked_sub(n);
    let high = |u: &u32| (0xD800..=0xDBFF).contains(u);
    let candidates = [
        (back(6), (0xDC00..=0xDFFF)),
        (back(12), (0xD800..=0xDBFF)),
        (back(7), (0xD800..=0xDBFF)),
        (back(8), (0xD800..=0xDBFF)),
    ];
    for (at, range) in candidates {
        if let Some(at) = at {
            if let Some(u) = unit(at).filter(|u| range.contains(u)) {
                // A high surrogate counts at 12 back only if an escape follows it.
                if !high(&u) || at + 12 != position || unit(at + 6).is_some() {
                    return (at, u);
                }
            }
        }
    }
    (position.saturating_sub(6), 0)
}

impl Reading<'_> {
    /// The [`JsonError`] for serde_json's error `e` on `bytes`.
    fn error(&mut self, e: &serde_json::Error, bytes: &[u8]) -> JsonError {
        let position = byte_offset(bytes, e.line(), e.column());
        let (kind, offset, message) = match self.refusal.take() {
            Some(Refusal::Duplicate(name)) => {
                // serde_json stands after the name (and after whitespace and maybe a `}`).
                let close = token_before(bytes, position);
                (
                    JsonErrorKind::DuplicateMember,
                    string_start(bytes, close),
                    format!("duplicate member name {name:?}"),
                )
            }
            Some(Refusal::TooDeep) => (
                JsonErrorKind::TooDeep,
                token_before(bytes, position),
                format!("nesting deeper than {} levels", self.max_depth),
            ),
            None => self.serde_error(e, bytes, position),
        };
        let mut path = String::new();
        for segment in self.path.iter().rev() {
            path.push('/');
            path.push_str(&pointer_token(segment));
        }
        JsonError {
            kind,
            offset,
            path,
            message,
        }
    }

    /// Kind, offset and message of an error serde_json raised itself.
    fn serde_error(
        &mut self,
        e: &serde_json::Error,
        bytes: &[u8],
        position: usize,
    ) -> (JsonErrorKind, usize, String) {
        let (wording, code) = code(e);
        let path_is_root = self.path.is_empty();
        let leading_zero = code == Code::InvalidNumber
            && byte_at(bytes, position.saturating_sub(1)).is_ascii_digit();
        if leading_zero && !self.path.is_empty() {
            // Reported at the enclosing container, as the character after a complete value.
            self.path.remove(0);
        }
        let peeked = position.saturating_sub(1);
        let text = std::str::from_utf8(bytes).unwrap_or_default();
        let found = |at: usize| match text.get(at..).and_then(|s| s.chars().next()) {
            Some(c) => format!("{wording}, found {c:?}"),
            None => format!("{wording}, found end of input"),
        };
        match code {
            Code::TrailingCharacters => (
                JsonErrorKind::TrailingData,
                peeked,
                "unexpected data after the JSON document".to_string(),
            ),
            Code::NumberOutOfRange => {
                let start = number_start(bytes, position);
                let end = start
                    + bytes
                        .get(start..)
                        .unwrap_or_default()
                        .iter()
                        .take_while(|&&b| is_number_byte(b))
                        .count();
                let literal = text.get(start..end).unwrap_or_default();
                (
                    JsonErrorKind::NumberOutOfRange,
                    start,
                    format!("number {literal} is not a finite double"),
                )
            }
            Code::LoneLeadingSurrogateInHexEscape | Code::UnexpectedEndOfHexEscape => {
                let (at, unit) = lone_surrogate_at(bytes, position);
                (
                    JsonErrorKind::LoneSurrogate,
                    at,
                    format!("lone surrogate \\u{unit:04X}"),
                )
            }
            Code::RecursionLimitExceeded => (
                JsonErrorKind::TooDeep,
                peeked,
                format!("nesting deeper than {} levels", self.max_depth.min(127)),
            ),
            Code::EofWhileParsingValue => {
                // A truncated `null`, `true` or `false` is refused at its first letter.
                let letters = bytes
                    .iter()
                    .rev()
                    .take_while(|b| b.is_ascii_alphabetic())
                    .count();
                let start = bytes.len() - letters;
                let word = bytes.get(start..).unwrap_or_default();
                let truncated = letters > 0
                    && [&b"null"[..], b"true", b"false"]
                        .iter()
                        .any(|w| w.starts_with(word));
                let at = if truncated { start } else { bytes.len() };
                (JsonErrorKind::Syntax, at, found(at))
            }
            Code::EofWhileParsingString => {
                // The text ends inside a `\u` escape or right after a high surrogate's: refused
                // at the escape's first digit, or as the lone surrogate it is.
                let tail = bytes.len().saturating_sub(11);
                let escape = (tail..bytes.len())
                    .filter(|&i| escape_starts_at(bytes, i) && byte_at(bytes, i + 1) == b'u')
                    .find(|&i| bytes.len() - i < 8);
                let unit = escape.and_then(|i| hex4(bytes, i + 2));
                match (escape, unit) {
                    (Some(i), Some(u)) if (0xD800..=0xDBFF).contains(&u) => (
                        JsonErrorKind::LoneSurrogate,
                        i,
                        format!("lone surrogate \\u{u:04X}"),
                    ),
                    (Some(i), None) => (JsonErrorKind::Syntax, i + 2, found(i + 2)),
                    _ => (JsonErrorKind::Syntax, bytes.len(), found(bytes.len())),
                }
            }
            Code::EofWhileParsingList | Code::EofWhileParsingObject => {
                (JsonErrorKind::Syntax, bytes.len(), found(bytes.len()))
            }
            Code::InvalidNumber if byte_at(bytes, peeked).is_ascii_digit() => {
                // A digit after a leading `0`: the number `0` is complete and the digit is
                // what follows it, after the document (trailing data) or in its container.
                if path_is_root {
                    (
                        JsonErrorKind::TrailingData,
                        peeked,
                        "unexpected data after the JSON document".to_string(),
                    )
                } else {
                    (JsonErrorKind::Syntax, peeked, found(peeked))
                }
            }
            Code::InvalidEscape | Code::ControlCharacterWhileParsingString => {
                // Raised after the offending character, or after a `\u` escape's four digits
                // (then at the first digit).
                let hex = position >= 6
                    && escape_starts_at(bytes, position - 6)
                    && byte_at(bytes, position - 5) == b'u';
                let at = if code == Code::InvalidEscape && hex {
                    position - 4
                } else {
                    peeked
                };
                (JsonErrorKind::Syntax, at, found(at))
            }
            Code::ExpectedSomeIdent => {
                // A misspelt `null`, `true` or `false`: at its first letter.
                let mut start = peeked;
                while start > 0 && byte_at(bytes, start - 1).is_ascii_alphabetic() {
                    start -= 1;
                }
                (JsonErrorKind::Syntax, start, found(start))
            }
            Code::ExpectedColon
            | Code::ExpectedListCommaOrEnd
            | Code::ExpectedObjectCommaOrEnd
            | Code::ExpectedSomeValue
            | Code::InvalidNumber
            | Code::KeyMustBeAString
            | Code::TrailingComma
            | Code::Other => (JsonErrorKind::Syntax, peeked, found(peeked)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> JsonErrorKind {
        parse(text.as_bytes(), 64).unwrap_err().kind()
    }

    #[test]
    fn whole_numbers_are_written_as_display_writes_them() {
        for n in [
            0,
            1,
            9,
            10,
            99,
            100,
            500,
            10_000,
            65_536,
            u64::from(u32::MAX),
            u64::MAX - 1,
        ]
        .into_iter()
        .chain((0..64).map(|i| 1u64 << i))
        .chain((1..20).map(|i| 10u64.pow(i) - 1))
        {
            let mut out = String::from("x");
            push_whole(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
    }

    #[test]
    fn reads_nested_documents() {
        let v = parse(
            br#" {"a": [1, -2.5e3, true, null, "x\u00e9\ud83d\ude00"]} "#,
            64,
        )
        .unwrap();
        let a = v.get("a").unwrap().as_array().unwrap();
        assert_eq!(a[1], Value::Number(-2500.0));
        assert_eq!(a[4].as_str(), Some("x\u{e9}\u{1F600}"));
    }

    #[test]
    fn numbers_are_the_double_the_text_denotes() {
        let v = parse(
            b"[-0, 0, 9007199254740993, 18446744073709551615, 18446744073709551616, \
              -9223372036854775808, -9223372036854775809, 1e-400, 2.2250738585072011e-308]",
            64,
        )
        .unwrap();
        let got: Vec<u64> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_f64().unwrap().to_bits())
            .collect();
        let want: Vec<u64> = [
            -0.0,
            0.0,
            9007199254740992.0,
            18446744073709551616.0,
            18446744073709551616.0,
            -9223372036854775808.0,
            -9223372036854775808.0,
            0.0,
            2.225073858507201e-308,
        ]
        .iter()
        .map(|n: &f64| n.to_bits())
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn refuses_what_i_json_refuses() {
        assert_eq!(
            parse(b"\"\xff\"", 64).unwrap_err().kind(),
            JsonErrorKind::InvalidUtf8
        );
        assert_eq!(parse(b"\"\xff\"", 64).unwrap_err().offset(), 1);
        // UTF-8 is checked first: an invalid byte after the document is not trailing data.
        assert_eq!(
            parse(b"{} \xff", 64).unwrap_err().kind(),
            JsonErrorKind::InvalidUtf8
        );
        assert_eq!(kind("[1e309, 1]"), JsonErrorKind::NumberOutOfRange);
    }

    /// Kind, path and offset of each kind of refusal, pinned; the hand-written reader this
    /// module replaced gave the same for every one.
    #[test]
    fn errors_keep_kind_path_and_offset() {
        use JsonErrorKind::*;
        let cases: &[(&str, usize, JsonErrorKind, &str, usize)] = &[
            ("", 64, Empty, "", 0),
            (" \n", 64, Empty, "", 2),
            ("\"\\xff\"", 64, Syntax, "", 2),
            ("\u{feff}{}", 64, Syntax, "", 0),
            ("{} x", 64, TrailingData, "", 3),
            ("01", 64, TrailingData, "", 1),
            ("[01]", 64, Syntax, "", 2),
            ("{\"a\":01}", 64, Syntax, "", 6),
            ("-01", 64, TrailingData, "", 2),
            ("{\"a\":1,\"a\":2}", 64, DuplicateMember, "/a", 7),
            ("{\"a\":1, \"\\u0061\" :2}", 64, DuplicateMember, "/a", 8),
            ("{\"x\":{\"b\":1,\"b\"}}", 64, DuplicateMember, "/x/b", 12),
            (
                "{\"s\":[{\"id\":\"a\",\"id\":\"b\"}]}",
                64,
                DuplicateMember,
                "/s/0/id",
                16,
            ),
            // Names and strings holding escaped quotes and backslashes: the offset is still
            // the opening quote's, or the escape's.
            (r#"{"a\"":1,"a\"":2}"#, 64, DuplicateMember, "/a\"", 9),
            (r#"{"a\\":1,"a\\":2}"#, 64, DuplicateMember, "/a\\", 9),
            (r#"{"\\\"":1,"\\\"":2}"#, 64, DuplicateMember, "/\\\"", 10),
            (r#"{"\"":1,"\"":2}"#, 64, DuplicateMember, "/\"", 8),
            ("{\"a\":1,\n \"a\"\n:2}", 64, DuplicateMember, "/a", 9),
            (
                r#"{"x":{"a\\\\":1,"a\\\\" }}"#,
                64,
                DuplicateMember,
                "/x/a\\\\",
                16,
            ),
            (r#""\\u12"#, 64, Syntax, "", 6),
            (r#""\\\u12"#, 64, Syntax, "", 5),
            (r#""\\\ud800""#, 64, LoneSurrogate, "", 3),
            (r#"["\\\ud800\\"]"#, 64, LoneSurrogate, "/0", 4),
            (r#""\\\ud800\u0041""#, 64, LoneSurrogate, "", 3),
            (r#""\\\udc00""#, 64, LoneSurrogate, "", 3),
            // After the text of an escape that is not one (its backslash escaped).
            (r#""\\ud800\ud800""#, 64, LoneSurrogate, "", 8),
            (r#""\\ud800\ud800x""#, 64, LoneSurrogate, "", 8),
            (r#""\\ud800\ud800\n""#, 64, LoneSurrogate, "", 8),
            (r#""\\udc00\udc00""#, 64, LoneSurrogate, "", 8),
            (r#""a\\ud800\ud800\u0041""#, 64, LoneSurrogate, "", 9),
            (r#""\\\\\ud800""#, 64, LoneSurrogate, "", 5),
            ("\"\\ud800\"", 64, LoneSurrogate, "", 1),
            ("[\"\\udc00\\ud800\"]", 64, LoneSurrogate, "/0", 2),
            ("{\"k\":\"\\ud800\\ud800\"}", 64, LoneSurrogate, "/k", 6),
            ("\"\\ud800\\n\"", 64, LoneSurrogate, "", 1),
            ("\"\\ud800x\"", 64, LoneSurrogate, "", 1),
            ("\"\\ud800", 64, LoneSurrogate, "", 1),
            ("\"\\ud800\\", 64, LoneSurrogate, "", 1),
            ("1e400", 64, NumberOutOfRange, "", 0),
            ("[-1e400]", 64, NumberOutOfRange, "/0", 1),
            ("{\"v\": 123456789e999}", 64, NumberOutOfRange, "/v", 6),
            ("1.", 64, Syntax, "", 2),
            // A number broken by a letter is a syntax error, not a complete number and trailing
            // data (as after a leading zero).
            ("1.x", 64, Syntax, "", 2),
            ("-x", 64, Syntax, "", 1),
            ("1ex", 64, Syntax, "", 2),
            ("1.e5", 64, Syntax, "", 2),
            ("1e+", 64, Syntax, "", 3),
            ("00", 64, TrailingData, "", 1),
            ("[1.]", 64, Syntax, "/0", 3),
            ("NaN", 64, Syntax, "", 0),
            ("[1,]", 64, Syntax, "/1", 3),
            ("[1,", 64, Syntax, "/1", 3),
            ("[", 64, Syntax, "/0", 1),
            ("[1", 64, Syntax, "", 2),
            ("[1 2]", 64, Syntax, "", 3),
            ("{", 64, Syntax, "", 1),
            ("{\"a\"", 64, Syntax, "", 4),
            ("{\"a\" 1}", 64, Syntax, "", 5),
            ("{\"a\":", 64, Syntax, "/a", 5),
            ("{\"a\":1 \"b\":2}", 64, Syntax, "", 7),
            ("{1:2}", 64, Syntax, "", 1),
            ("{\"a\":1,}", 64, Syntax, "", 7),
            ("nul", 64, Syntax, "", 0),
            ("[tru]", 64, Syntax, "/0", 1),
            ("[fals", 64, Syntax, "/0", 1),
            ("{\"a\":\"\n\"}", 64, Syntax, "/a", 6),
            ("\"\\x\"", 64, Syntax, "", 2),
            ("\"\\u12\"", 64, Syntax, "", 3),
            ("\"\\u12", 64, Syntax, "", 3),
            ("\"a\\uZZZZ\"", 64, Syntax, "", 4),
            ("/* c */ {}", 64, Syntax, "", 0),
            (
                "{\"s\":[{\"id\":\"a\",\"id\":\"b\"}]}",
                2,
                TooDeep,
                "/s/0",
                6,
            ),
            ("[[[]]]", 2, TooDeep, "/0/0", 2),
            ("[[[1]]]", 2, TooDeep, "/0/0", 2),
            ("[[[ ]]]", 2, TooDeep, "/0/0", 2),
            ("[[{}]]", 2, TooDeep, "/0/0", 2),
        ];
        for &(text, depth, kind, path, offset) in cases {
            let e = parse(text.as_bytes(), depth).unwrap_err();
            assert_eq!(
                (e.kind(), e.path(), e.offset()),
                (kind, path, offset),
                "{text:?}"
            );
        }
    }

    /// Each refusal says why in a sentence naming what it found, then where (what the CLI
    /// prints and a decision's `malformed_card` reason carries).
    #[test]
    fn errors_say_why_and_where() {
        let cases: &[(&[u8], &str)] = &[
            (b"", "empty document at byte 0"),
            (b"\"\xff\"", "invalid UTF-8 byte sequence at byte 1"),
            (b"{} x", "unexpected data after the JSON document at byte 3"),
            (
                b"{\"a\":1,\"a\":2}",
                "duplicate member name \"a\" at byte 7",
            ),
            (b"\"\\ud800\"", "lone surrogate \\uD800 at byte 1"),
            (b"1e400", "number 1e400 is not a finite double at byte 0"),
            (b"[1,]", "trailing comma, found ']' at byte 3"),
            (b"[[[1]]]", "nesting deeper than 2 levels at byte 2"),
            (b"[01]", "invalid number, found '1' at byte 2"),
            (b"\"\\x\"", "invalid escape, found 'x' at byte 2"),
            // The text ends in a string: inside a `\u` escape (at its first digit), after a
            // complete escape or a `u` that starts none (at the end), after a high surrogate's
            // escape (the lone surrogate it is).
            (
                b"\"\\u12",
                "EOF while parsing a string, found '1' at byte 3",
            ),
            (
                b"\"x\\u00",
                "EOF while parsing a string, found '0' at byte 4",
            ),
            (
                b"\"\\ud800\\u",
                "EOF while parsing a string, found end of input at byte 9",
            ),
            (
                b"\"\\u0041",
                "EOF while parsing a string, found end of input at byte 7",
            ),
            (
                b"\"u12",
                "EOF while parsing a string, found end of input at byte 4",
            ),
            (
                b"\"ab\\\\u12",
                "EOF while parsing a string, found end of input at byte 8",
            ),
            (b"\"\\udbff", "lone surrogate \\uDBFF at byte 1"),
        ];
        for &(text, want) in cases {
            let e = parse(text, 2).unwrap_err();
            assert_eq!(e.to_string(), want, "{text:?}");
            assert_eq!(format!("{} at byte {}", e.message(), e.offset()), want);
        }
    }

    /// The heap a tree holds counts every string's and container's capacity (hosts bound the
    /// memory of what they keep by it).
    #[test]
    fn heap_bytes_count_strings_and_containers() {
        let slot = std::mem::size_of::<Value>();
        let member = std::mem::size_of::<(String, Value)>();
        assert_eq!(Value::Null.heap_bytes(), 0);
        assert_eq!(Value::Number(1.0).heap_bytes(), 0);
        assert_eq!(Value::String("abc".into()).heap_bytes(), 3);
        let array = Value::Array(vec![Value::String("ab".into()), Value::Bool(true)]);
        assert_eq!(array.heap_bytes(), 2 * slot + 2);
        let object = Value::Object(vec![("key".into(), array.clone())]);
        assert_eq!(object.heap_bytes(), member + 3 + array.heap_bytes());
        assert_eq!(
            Value::Array(vec![object.clone(), object.clone()]).heap_bytes(),
            2 * slot + 2 * object.heap_bytes()
        );
    }

    #[test]
    fn depth_is_bounded_without_overflowing_the_stack() {
        let deep = "[".repeat(100_000);
        assert_eq!(kind(&deep), JsonErrorKind::TooDeep);
        let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
        assert!(parse(ok.as_bytes(), 64).is_ok());
        let over = format!("{}{}", "[".repeat(65), "]".repeat(65));
        assert_eq!(kind(&over), JsonErrorKind::TooDeep);
        // serde_json's own limit (127 levels) applies above a larger `max_depth`.
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(nested(127).as_bytes(), 256).is_ok());
        let e = parse(nested(128).as_bytes(), 256).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (JsonErrorKind::TooDeep, 127));
        assert_eq!(e.path(), "/0".repeat(127));
    }

    /// The wording serde_json gives each error it raises, which is all `code` can tell them
    /// apart by: this fails if a serde_json release rewords one.
    #[test]
    fn serde_json_wording_is_pinned() {
        let deep = "[".repeat(200);
        let cases: &[(&str, Code)] = &[
            ("[", Code::EofWhileParsingList),
            ("{", Code::EofWhileParsingObject),
            ("\"abc", Code::EofWhileParsingString),
            ("[1,", Code::EofWhileParsingValue),
            ("{\"a\" 1}", Code::ExpectedColon),
            ("[1 2]", Code::ExpectedListCommaOrEnd),
            ("{\"a\":1 \"b\":2}", Code::ExpectedObjectCommaOrEnd),
            ("nulx", Code::ExpectedSomeIdent),
            ("x", Code::ExpectedSomeValue),
            ("\"\\x\"", Code::InvalidEscape),
            ("[1.]", Code::InvalidNumber),
            ("1e400", Code::NumberOutOfRange),
            ("\"\u{1}\"", Code::ControlCharacterWhileParsingString),
            ("{1:2}", Code::KeyMustBeAString),
            ("\"\\udc00\"", Code::LoneLeadingSurrogateInHexEscape),
            ("\"\\ud800\"", Code::UnexpectedEndOfHexEscape),
            ("[1,]", Code::TrailingComma),
            ("1 2", Code::TrailingCharacters),
            (&deep, Code::RecursionLimitExceeded),
        ];
        assert_eq!(cases.len(), WORDING.len());
        for &(text, want) in cases {
            let e = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
            assert_eq!(code(&e).1, want, "{text:?}: {e}");
        }
    }

    #[test]
    fn errors_name_the_path() {
        let e = parse(br#"{"skills":[{"id":"a","id":"b"}]}"#, 64).unwrap_err();
        assert_eq!(e.path(), "/skills/0/id");
        let e = parse(br#"{"a/b":{"~":[1,{"x":1e999}]}}"#, 64).unwrap_err();
        assert_eq!(e.path(), "/a~1b/~0/1/x");
    }

    /// In small objects a name is compared only with earlier names that share its bit (of its
    /// length, first and last bytes): duplicates are found at every length, also after names
    /// of other lengths, names of the same length that differ in their last byte, and names
    /// that share length, first and last bytes but differ inside.
    #[test]
    fn duplicates_are_found_at_every_length() {
        for n in [0, 1, 3, 8, 9, 16, 30, 31, 32, 45] {
            let name = "n".repeat(n);
            let twin = format!("{}x", "n".repeat(n.saturating_sub(1)));
            let long = "q".repeat(n + 33);
            let ok = match n {
                0 => format!(r#"{{"{long}":0,"ab":2,"{name}":3}}"#),
                1 | 2 => format!(r#"{{"{long}":0,"{twin}":1,"ab":2,"{name}":3}}"#),
                _ => {
                    let inside = format!("n{}n", "m".repeat(n - 2));
                    assert_eq!(name_bit(&inside), name_bit(&name));
                    format!(r#"{{"{long}":0,"{twin}":1,"{inside}":1,"ab":2,"{name}":3}}"#)
                }
            };
            assert!(parse(ok.as_bytes(), 64).is_ok(), "{ok}");
            let dup = format!("{}, \"{name}\": 4}}", ok.strip_suffix('}').unwrap());
            let e = parse(dup.as_bytes(), 64).unwrap_err();
            assert_eq!(e.kind(), JsonErrorKind::DuplicateMember, "{dup}");
            assert_eq!(e.path(), format!("/{name}"), "{dup}");
        }
    }

    /// Past the linear scan the names go into a set: the first 16 read back from the document
    /// (values of every kind between them, containers skipped whole), the later ones as they
    /// come. A repeat of any of them is found.
    #[test]
    fn duplicates_past_the_linear_scan_use_a_set() {
        let value = |i: usize| match i % 4 {
            0 => format!("{i}"),
            1 => format!("{{\"m{i}\":[{i},{{\"x\":{i}}}]}}"),
            2 => format!("[\"m{i}\",[]]"),
            _ => format!("\"m{i}\""),
        };
        let members: Vec<String> = (0..40).map(|i| format!("\"m{i}\":{}", value(i))).collect();
        let ok = format!("{{{}}}", members.join(","));
        assert_eq!(
            parse(ok.as_bytes(), 64).unwrap().as_object().unwrap().len(),
            40
        );
        for i in [0, 3, 7, 8, 14, 15, 16, 17, 39] {
            // The repeat spelled with an escape, so it is the decoded names that are compared.
            let spelled = match i {
                0..=9 => format!("m\\u00{:x}", 0x30 + i),
                _ => format!("m\\u00{:x}{}", 0x30 + i / 10, i % 10),
            };
            let dup = format!("{{{},\"{spelled}\":0}}", members.join(","));
            let e = parse(dup.as_bytes(), 64).unwrap_err();
            assert_eq!(
                (e.kind(), e.path()),
                (JsonErrorKind::DuplicateMember, format!("/m{i}").as_str()),
                "{dup}"
            );
            assert_eq!(e.offset(), dup.rfind(",\"m").unwrap() + 1);
        }
    }

    #[test]
    fn serializes_members_in_document_order() {
        let v = parse(br#"{"b":1.5,"a":[true,null,"\u00e9"],"c":{}}"#, 64).unwrap();
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"b":1.5,"a":[true,null,"é"],"c":{}}"#
        );
    }

    #[test]
    fn pointers_follow_rfc_6901() {
        let v = parse(br#"{"a/b":{"~":[10,20]}}"#, 64).unwrap();
        assert_eq!(v.pointer("/a~1b/~0/1"), Some(&Value::Number(20.0)));
        assert_eq!(v.pointer("/a~1b/~0/01"), None);
        assert_eq!(v.pointer(""), Some(&v));
        assert_eq!(v.pointer("a"), None);
    }
}
