//! Errors in what a caller or operator supplied: a requirement, an observation, a policy, a
//! duration. They are distinct from a card's defects, which are decisions, not errors.

use std::fmt;

/// Which JavaScript error class an [`InputError`] maps to (`"type"` or `"range"` in its JSON
/// form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputErrorKind {
    /// Wrong JSON type, unknown member, not JSON at all (`TypeError`).
    Type,
    /// Right type, unacceptable value: a bad duration, version, pin (`RangeError`).
    Range,
}

/// An input the gate cannot use, with the JSON Pointer of the offending field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// `Type` or `Range`.
    pub kind: InputErrorKind,
    /// JSON Pointer of the field (`""` for the whole input).
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

impl InputError {
    /// A wrong type, unknown member or unreadable document at `path`.
    pub fn type_error(path: impl Into<String>, message: impl Into<String>) -> Self {
        InputError {
            kind: InputErrorKind::Type,
            path: path.into(),
            message: message.into(),
        }
    }

    /// An unacceptable value at `path`.
    pub fn range_error(path: impl Into<String>, message: impl Into<String>) -> Self {
        InputError {
            kind: InputErrorKind::Range,
            path: path.into(),
            message: message.into(),
        }
    }

    /// The same error, reported under `prefix` (a JSON Pointer of the enclosing document).
    pub fn within(mut self, prefix: &str) -> Self {
        self.path = format!("{prefix}{}", self.path);
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for InputError {}

/// Marks a serde error message as a [`InputErrorKind::Range`] error (a value of the right type
/// that is unacceptable); every other serde error (wrong type, unknown or duplicate member) is a
/// [`InputErrorKind::Type`] error. The marker never reaches a message.
const RANGE_MARK: &str = "\u{1}range\u{1}";

/// A serde error for an unacceptable value (kind `Range` once read by [`read_typed`]).
pub(crate) fn range<E: serde::de::Error>(message: impl fmt::Display) -> E {
    E::custom(format_args!("{RANGE_MARK}{message}"))
}

/// The error of a value type's `TryFrom<String>` (a capability, version, pin, duration): its
/// message, read as an [`InputErrorKind::Range`] error.
#[derive(Debug)]
pub struct RangeMessage(pub String);

impl fmt::Display for RangeMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{RANGE_MARK}{}", self.0)
    }
}

impl From<InputError> for RangeMessage {
    fn from(e: InputError) -> Self {
        RangeMessage(e.message)
    }
}

/// Deserializes `T` from any serde Deserializer, naming the JSON Pointer of the offending member
/// (serde_path_to_error) and telling `Type` from `Range` errors.
pub(crate) fn read_typed<'de, T, D>(d: D) -> Result<T, InputError>
where
    T: serde::Deserialize<'de>,
    D: serde::Deserializer<'de>,
{
    serde_path_to_error::deserialize(d)
        .map(|o: Object<T>| o.0)
        .map_err(|e| typed_error(pointer(e.path()), e.into_inner().to_string()))
}

/// The [`InputError`] of a serde error `text` at `path`: one copy of it in a module, not one per
/// input type and Deserializer read_typed is built for (issue 10).
#[cold]
#[inline(never)]
fn typed_error(path: String, text: String) -> InputError {
    // serde_json appends the position; the JSON Pointer says where instead.
    let text = match text.rsplit_once(" at line ") {
        Some((head, tail))
            if tail
                .split_once(" column ")
                .is_some_and(|(l, c)| is_number(l) && is_number(c)) =>
        {
            head.to_owned()
        }
        _ => text,
    };
    match text.split_once(RANGE_MARK) {
        Some((head, rest)) => InputError::range_error(path, format!("{head}{rest}")),
        None => InputError::type_error(path, text),
    }
}

/// [`read_typed`] from JSON text that `json::parse` has already accepted (so it is UTF-8), with
/// serde_json's `str` reader: the one the document reader uses too, so that each wasm module
/// holds one build of serde_json's lexer and of the typed readers, not one per reader type.
pub(crate) fn read_json_text<'de, T: serde::Deserialize<'de>>(
    bytes: &'de [u8],
) -> Result<T, InputError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| InputError::type_error("", format!("not UTF-8: {e}")))?;
    read_typed(&mut serde_json::Deserializer::from_str(text))
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The JSON Pointer (RFC 6901) of a serde path.
fn pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        out.push('/');
        match segment {
            Segment::Seq { index } => out.push_str(&index.to_string()),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                out.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            Segment::Unknown => out.push('?'),
        }
    }
    out
}

/// For `#[serde(deserialize_with = "present")]` on an optional member: a member that is there
/// must hold a `T` (`null` is not "absent", it is the wrong type).
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// A `T` read from an object only: serde's derived structs also take an array of the members
/// in order, which no input of ours means. Every typed input is read through it.
#[derive(Debug, Clone)]
pub struct Object<T>(pub T);

impl<T: schemars::JsonSchema> schemars::JsonSchema for Object<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Object<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Members<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Object<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Object)
            }
        }
        // `deserialize_any`, not `deserialize_map` nor `deserialize_struct`: serde_wasm_bindgen
        // reads any iterable (an Array too) as a map, and a struct by its known fields only
        // (so unknown members would go unseen); this way an object's every member is read and
        // an array is refused, from JSON text and from JavaScript alike.
        d.deserialize_any(Members(std::marker::PhantomData))
    }
}

/// [`present`] for a member that must be an object.
pub(crate) fn present_object<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    <Object<T> as serde::Deserialize>::deserialize(d).map(|o| Some(o.0))
}

// The typed readers take serde_wasm_bindgen's Deserializer (the npm package's objects, read
// without JSON text): checked when the `js` feature builds.
#[cfg(feature = "js")]
const _: [fn(wasm_bindgen::JsValue) -> Result<(), InputError>; 2] = [
    |v| crate::Requirement::deserialize_input(serde_wasm_bindgen::Deserializer::from(v)).map(drop),
    |v| crate::Observation::deserialize_input(serde_wasm_bindgen::Deserializer::from(v)).map(drop),
];
