//! A strict I-JSON (RFC 7493) reader.
//!
//! Agent Cards are security-relevant input: two parsers that disagree about a document (which of
//! two `version` members wins, what a lone surrogate means) let an attacker show one card to the
//! gate and another to the caller. This reader therefore refuses everything I-JSON refuses:
//! duplicate member names at any depth, lone surrogates, numbers that are not finite doubles,
//! invalid UTF-8, and anything but whitespace after the document. It never panics and bounds its
//! recursion by `max_depth`.

use std::fmt;

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

    /// The boolean, if this is a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
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

impl JsonError {
    /// The same error, one level further down: `segment` is the enclosing member or index.
    fn under(mut self, segment: &str) -> Self {
        self.path = format!("/{}{}", pointer_token(segment), self.path);
        self
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
pub fn parse(bytes: &[u8], max_depth: usize) -> Result<Value, JsonError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            return Err(JsonError {
                kind: JsonErrorKind::InvalidUtf8,
                offset: e.valid_up_to(),
                path: String::new(),
                message: format!("invalid UTF-8 byte sequence at byte {}", e.valid_up_to()),
            })
        }
    };
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        max_depth,
    };
    // A UTF-8 byte order mark is not JSON text (RFC 8259 §8.1: MUST NOT add one); refuse it.
    reader.skip_ws();
    if reader.pos >= reader.bytes.len() {
        return Err(reader.error(JsonErrorKind::Empty, "empty document".into()));
    }
    let value = reader.value(0)?;
    reader.skip_ws();
    if reader.pos < reader.bytes.len() {
        return Err(reader.error(
            JsonErrorKind::TrailingData,
            "unexpected data after the JSON document".into(),
        ));
    }
    Ok(value)
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    max_depth: usize,
}

impl Reader<'_> {
    /// An error at the current position. Its path is filled in on the way out: each enclosing
    /// array or object prepends its own segment (see [`JsonError::under`]), so reading a valid
    /// document never pays for path bookkeeping.
    fn error(&self, kind: JsonErrorKind, message: String) -> JsonError {
        JsonError {
            kind,
            offset: self.pos,
            path: String::new(),
            message,
        }
    }

    fn syntax(&self, what: &str) -> JsonError {
        let found = match self.text.get(self.pos..).and_then(|s| s.chars().next()) {
            Some(c) => format!("found {c:?}"),
            None => "found end of input".to_string(),
        };
        self.error(JsonErrorKind::Syntax, format!("expected {what}, {found}"))
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, JsonError> {
        if self
            .text
            .get(self.pos..)
            .is_some_and(|s| s.starts_with(word))
        {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.syntax("a JSON value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, JsonError> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.syntax("a JSON value")),
        }
    }

    fn enter(&self, depth: usize) -> Result<(), JsonError> {
        if depth > self.max_depth {
            Err(self.error(
                JsonErrorKind::TooDeep,
                format!("nesting deeper than {} levels", self.max_depth),
            ))
        } else {
            Ok(())
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, JsonError> {
        self.enter(depth)?;
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            let index = items.len();
            let item = self.value(depth).map_err(|e| e.under(&index.to_string()))?;
            items.push(item);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.syntax("',' or ']'")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, JsonError> {
        self.enter(depth)?;
        self.pos += 1; // '{'
        let mut members: Vec<(String, Value)> = Vec::new();
        // Large objects switch from a linear scan to a set, so a hostile body of many small
        // members costs O(n), not O(n^2), to check for duplicates.
        let mut seen: Option<std::collections::HashSet<String>> = None;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.syntax("a member name"));
            }
            let name_at = self.pos;
            let name = self.string()?;
            let duplicate = match &mut seen {
                Some(set) => !set.insert(name.clone()),
                None => {
                    let dup = members.iter().any(|(k, _)| *k == name);
                    if members.len() >= 16 {
                        let mut set: std::collections::HashSet<String> =
                            members.iter().map(|(k, _)| k.clone()).collect();
                        set.insert(name.clone());
                        seen = Some(set);
                    }
                    dup
                }
            };
            if duplicate {
                self.pos = name_at;
                return Err(self
                    .error(
                        JsonErrorKind::DuplicateMember,
                        format!("duplicate member name {name:?}"),
                    )
                    .under(&name));
            }
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.syntax("':'"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth).map_err(|e| e.under(&name))?;
            members.push((name, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(self.syntax("',' or '}'")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.syntax("four hex digits"))?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.syntax("four hex digits"));
        }
        let code = u32::from_str_radix(digits, 16).map_err(|_| self.syntax("four hex digits"))?;
        self.pos += 4;
        Ok(code)
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            let start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(self.text.get(start..self.pos).unwrap_or_default());
            match self.peek() {
                None => return Err(self.syntax("'\"' to close the string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let escape_at = self.pos;
                    self.pos += 1;
                    let c = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.pos += 1;
                            let unit = self.hex4()?;
                            self.pos -= 1; // compensate the common advance below
                            self.unicode_escape(unit, escape_at)?
                        }
                        _ => return Err(self.syntax("a valid escape")),
                    };
                    self.pos += 1;
                    out.push(c);
                }
                Some(_) => return Err(self.syntax("no raw control characters in a string")),
            }
        }
    }

    /// Completes a `\uXXXX` escape whose code unit is `unit`; `self.pos` is on its last digit.
    fn unicode_escape(&mut self, unit: u32, escape_at: usize) -> Result<char, JsonError> {
        let lone = |r: &Self| {
            let mut e = r.error(
                JsonErrorKind::LoneSurrogate,
                format!("lone surrogate \\u{unit:04X}"),
            );
            e.offset = escape_at;
            e
        };
        match unit {
            0xD800..=0xDBFF => {
                let after = self.pos + 1;
                if self.bytes.get(after..after + 2) != Some(b"\\u".as_slice()) {
                    return Err(lone(self));
                }
                self.pos = after + 2;
                let low = self.hex4()?;
                self.pos -= 1;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(lone(self));
                }
                let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                char::from_u32(code).ok_or_else(|| lone(self))
            }
            0xDC00..=0xDFFF => Err(lone(self)),
            _ => char::from_u32(unit).ok_or_else(|| lone(self)),
        }
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.syntax("a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.syntax("a digit after '.'"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.syntax("a digit in the exponent"));
            }
            self.digits();
        }
        let literal = self.text.get(start..self.pos).unwrap_or_default();
        match literal.parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(Value::Number(n)),
            _ => {
                let mut e = self.error(
                    JsonErrorKind::NumberOutOfRange,
                    format!("number {literal} is not a finite double"),
                );
                e.offset = start;
                Err(e)
            }
        }
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
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
    fn refuses_what_i_json_refuses() {
        assert_eq!(kind(""), JsonErrorKind::Empty);
        assert_eq!(kind("  \n"), JsonErrorKind::Empty);
        assert_eq!(kind("{} x"), JsonErrorKind::TrailingData);
        assert_eq!(kind(r#"{"a":1,"a":2}"#), JsonErrorKind::DuplicateMember);
        assert_eq!(
            kind(r#"{"a":1,"\u0061":2}"#),
            JsonErrorKind::DuplicateMember
        );
        assert_eq!(
            kind(r#"{"x":{"b":1,"b":1}}"#),
            JsonErrorKind::DuplicateMember
        );
        assert_eq!(kind(r#""\ud800""#), JsonErrorKind::LoneSurrogate);
        assert_eq!(kind(r#""\udc00\ud800""#), JsonErrorKind::LoneSurrogate);
        assert_eq!(kind(r#""\ud800\ud800""#), JsonErrorKind::LoneSurrogate);
        assert_eq!(kind("1e400"), JsonErrorKind::NumberOutOfRange);
        assert_eq!(kind("-1e400"), JsonErrorKind::NumberOutOfRange);
        assert_eq!(kind("01"), JsonErrorKind::TrailingData);
        assert_eq!(kind("1."), JsonErrorKind::Syntax);
        assert_eq!(kind("NaN"), JsonErrorKind::Syntax);
        assert_eq!(kind("[1,]"), JsonErrorKind::Syntax);
        assert_eq!(kind("{\"a\":\"\n\"}"), JsonErrorKind::Syntax);
        assert_eq!(kind("\u{feff}{}"), JsonErrorKind::Syntax);
        assert_eq!(kind("/* c */ {}"), JsonErrorKind::Syntax);
        assert_eq!(
            parse(b"\"\xff\"", 64).unwrap_err().kind(),
            JsonErrorKind::InvalidUtf8
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
    }

    #[test]
    fn errors_name_the_path() {
        let e = parse(br#"{"skills":[{"id":"a","id":"b"}]}"#, 64).unwrap_err();
        assert_eq!(e.path(), "/skills/0/id");
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
