//! Errors in what a caller or operator supplied: a requirement, an observation, a policy, a
//! duration. They are distinct from a card's defects, which are decisions, not errors.

use std::fmt;

/// Which JavaScript error class an [`InputError`] maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
