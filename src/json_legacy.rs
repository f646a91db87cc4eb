//! Temporary: the hand-written reader that serde_json replaces, kept only for the old-vs-new
//! differential. Deleted once the differential has run.
#![allow(missing_docs, clippy::indexing_slicing)]
use super::{JsonError, JsonErrorKind, Value};
/// Parses `bytes` as one strict I-JSON document, nesting at most `max_depth` levels.
pub fn parse_legacy(bytes: &[u8], max_depth: usize) -> Result<Value, JsonError> {
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

impl JsonError {
    /// The same error, one level further down: `segment` is the enclosing member or index.
    fn under(mut self, segment: &str) -> Self {
        self.path = format!("/{}{}", super::pointer_token(segment), self.path);
        self
    }
}
