//! The card hash: `"sha256:" + hex(SHA-256(JCS(card without top-level "signatures")))`.
//!
//! Computed over the card as received (after strict parsing), so it identifies exactly the
//! document the caller would act on. It is the value a caller pins out of band.

use crate::document::Document;
use crate::jcs;
use crate::json::Value;
use crate::InputError;
use sha2::{Digest, Sha256};
use std::fmt;

/// A card hash, always `sha256:` followed by 64 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct CardHash(String);

impl TryFrom<String> for CardHash {
    type Error = crate::input_error::RangeMessage;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        Ok(CardHash::parse(&text)?)
    }
}

impl schemars::JsonSchema for CardHash {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "card_hash".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A card hash (`cardgate hash CARD.json`): sha256: and 64 lowercase hex digits.",
            "pattern": "^sha256:[0-9a-f]{64}(?![\\s\\S])"
        })
    }
}

impl CardHash {
    /// Hashes a card given as a tree (the same hash as [`CardHash::of_document`] of the same
    /// JSON).
    ///
    /// ```
    /// let card = cardgate::json::parse(br#"{"b":1,"a":2,"signatures":[]}"#, 64).unwrap();
    /// let same = cardgate::json::parse(br#"{ "a": 2.0, "b": 1 }"#, 64).unwrap();
    /// assert_eq!(cardgate::CardHash::of(&card), cardgate::CardHash::of(&same));
    /// ```
    pub fn of(card: &Value) -> CardHash {
        CardHash::of_document(&Document::from_value(card))
    }

    /// Hashes a parsed card document.
    pub fn of_document(card: &Document) -> CardHash {
        let mut canonical = Vec::with_capacity(card.canonical_len_hint());
        jcs::write_node(&mut canonical, card.root(), Some("signatures"));
        let digest = Sha256::digest(&canonical);
        let mut hex = [0u8; 7 + 64];
        let (prefix, digits) = hex.split_at_mut(7);
        prefix.copy_from_slice(b"sha256:");
        for (pair, &byte) in digits.chunks_exact_mut(2).zip(digest.iter()) {
            pair.copy_from_slice(&[jcs::hex_byte(byte >> 4), jcs::hex_byte(byte)]);
        }
        // Only ASCII was written.
        CardHash(String::from_utf8_lossy(&hex).into_owned())
    }

    /// Parses a pin: `sha256:` and 64 lowercase hex digits.
    pub fn parse(text: &str) -> Result<CardHash, InputError> {
        let hex = text.strip_prefix("sha256:").ok_or_else(|| {
            InputError::range_error("", format!("pin {text:?} must start with \"sha256:\""))
        })?;
        let lower_hex = hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if hex.len() != 64 || !lower_hex {
            return Err(InputError::range_error(
                "",
                format!("pin {text:?} must be \"sha256:\" followed by 64 lowercase hex digits"),
            ));
        }
        Ok(CardHash(text.to_string()))
    }

    /// The `sha256:...` text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CardHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answer() {
        // SHA-256 of the 2 bytes "{}" (FIPS 180-4 arithmetic, checked with `printf '{}' | sha256sum`).
        let h = CardHash::of(&Value::Object(vec![]));
        assert_eq!(
            h.as_str(),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    #[test]
    fn pins_are_strict() {
        let good = format!("sha256:{}", "a".repeat(64));
        assert!(CardHash::parse(&good).is_ok());
        for bad in [
            format!("sha256:{}", "A".repeat(64)),
            format!("sha256:{}", "a".repeat(63)),
            "a".repeat(64),
            format!("SHA256:{}", "a".repeat(64)),
        ] {
            assert!(CardHash::parse(&bad).is_err(), "{bad}");
        }
    }
}
