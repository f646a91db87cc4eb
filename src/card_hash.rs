//! The card hash: `"sha256:" + hex(SHA-256(JCS(card without top-level "signatures")))`.
//!
//! Computed over the card as received (after strict parsing), so it identifies exactly the
//! document the caller would act on. It is the value a caller pins out of band.

use crate::document::Document;
use crate::jcs;
use crate::json::Value;
use crate::InputError;
use sha2::{Digest, Sha256};
use std::cell::Cell;
use std::fmt;

/// A SHA-256 implementation a host supplies: the digest of its argument, or `None` to fall
/// back to the sha2 crate.
pub type HostSha256 = fn(&[u8]) -> Option<[u8; 32]>;

thread_local! {
    static HOST_SHA256: Cell<Option<HostSha256>> = const { Cell::new(None) };
    /// The canonical form's buffer, kept between card hashes on this thread: written, hashed
    /// and cleared, so a hash allocates no buffer of the card's size (on glibc, freeing one
    /// near the heap's top made the allocator hand memory back to the system, and the next
    /// card fault it in again: about a third of a 60 KB card's evaluation in a long-running
    /// process). At most [`KEPT_CANONICAL_BYTES`] stay allocated.
    static CANONICAL: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// The largest canonical buffer kept between card hashes (one default-limit card's worth, with
/// room for the canonical form's longer numbers).
const KEPT_CANONICAL_BYTES: usize = 128 * 1024;

/// Lets this thread's card hashes use the host's SHA-256 (for instance Node's `node:crypto`,
/// which uses the CPU's SHA instructions where a Wasm build of sha2 cannot), or, with `None`,
/// the sha2 crate again. The hook is tried first on inputs of several lengths (empty, short,
/// one and several 64-byte blocks, past 1 KiB) and refused (returns false, nothing changes) if
/// any digest it gives differs from sha2's, so a broken hook cannot change a card hash. A hook
/// may decline an input (`None`, for instance a short one): sha2 hashes that one.
pub fn set_host_sha256(hook: Option<HostSha256>) -> bool {
    if let Some(f) = hook {
        let agrees = |len: usize| {
            let input: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            f(&input).is_none_or(|d| d.as_slice() == Sha256::digest(&input).as_slice())
        };
        if ![0, 3, 64, 1024, 1087, 4160].into_iter().all(agrees) {
            return false;
        }
    }
    HOST_SHA256.with(|h| h.set(hook));
    true
}

/// SHA-256 of `bytes`, by the host's implementation when one is set and answers.
fn sha256(bytes: &[u8]) -> [u8; 32] {
    if let Some(digest) = HOST_SHA256.with(Cell::get).and_then(|f| f(bytes)) {
        return digest;
    }
    Sha256::digest(bytes).into()
}

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
        let digest = CANONICAL.with(|cell| {
            let mut canonical = cell.take();
            canonical.clear();
            canonical.reserve(card.canonical_len_hint());
            jcs::write_node(&mut canonical, card.root(), Some("signatures"));
            let digest = sha256(&canonical);
            if canonical.capacity() <= KEPT_CANONICAL_BYTES {
                cell.set(canonical);
            }
            digest
        });
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

    fn sha2_digest(data: &[u8]) -> Option<[u8; 32]> {
        Some(Sha256::digest(data).into())
    }

    static COUNTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    fn counting(data: &[u8]) -> Option<[u8; 32]> {
        COUNTED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        sha2_digest(data)
    }

    fn wrong_past_1k(data: &[u8]) -> Option<[u8; 32]> {
        let mut d = sha2_digest(data)?;
        if data.len() > 1024 {
            d[0] ^= 1;
        }
        Some(d)
    }

    fn declines(_: &[u8]) -> Option<[u8; 32]> {
        None
    }

    /// A host SHA-256 is used only if it agrees with sha2; a wrong one is refused and the
    /// card hash stays the same (each test runs on its own thread, so the hook is this test's).
    #[test]
    fn host_sha256_is_checked_before_use() {
        let long = Value::Object(vec![("d".into(), Value::String("x".repeat(3000)))]);
        let want = CardHash::of(&long);
        assert!(!set_host_sha256(Some(wrong_past_1k)));
        assert_eq!(CardHash::of(&long), want);
        assert!(set_host_sha256(Some(declines)));
        assert_eq!(CardHash::of(&long), want);
        assert!(set_host_sha256(Some(counting)));
        let before = COUNTED.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(CardHash::of(&long), want);
        assert_eq!(
            COUNTED.load(std::sync::atomic::Ordering::SeqCst),
            before + 1
        );
        assert!(set_host_sha256(None));
        assert_eq!(CardHash::of(&long), want);
    }

    #[test]
    fn known_answer() {
        // SHA-256 of the 2 bytes "{}" (FIPS 180-4 arithmetic, checked with `printf '{}' | sha256sum`).
        let h = CardHash::of(&Value::Object(vec![]));
        assert_eq!(
            h.as_str(),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    fn kept_canonical_capacity() -> usize {
        CANONICAL.with(|cell| {
            let kept = cell.take();
            let capacity = kept.capacity();
            cell.set(kept);
            capacity
        })
    }

    fn digest_text(text: &[u8]) -> String {
        let hex: String = Sha256::digest(text)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("sha256:{hex}")
    }

    /// The kept canonical buffer never carries one card's bytes into the next card's hash: a
    /// long card, then shorter ones, then the long one again hash as each does alone (the
    /// digests are taken over the canonical text written out by hand).
    #[test]
    fn a_kept_buffer_holds_only_the_card_being_hashed() {
        let long = Value::Object(vec![("d".into(), Value::String("x".repeat(5000)))]);
        let long_hash = digest_text(format!(r#"{{"d":"{}"}}"#, "x".repeat(5000)).as_bytes());
        let short = Value::Object(vec![("a".into(), Value::Number(1.0))]);
        let empty = Value::Object(vec![]);
        assert_eq!(CardHash::of(&long).as_str(), long_hash);
        assert!(kept_canonical_capacity() >= 5000);
        assert_eq!(CardHash::of(&short).as_str(), digest_text(br#"{"a":1}"#));
        assert_eq!(CardHash::of(&empty).as_str(), digest_text(b"{}"));
        assert_eq!(CardHash::of(&long).as_str(), long_hash);
    }

    /// A buffer past the cap is dropped after its hash, so a thread keeps at most
    /// KEPT_CANONICAL_BYTES between hashes; a later small card still hashes right.
    #[test]
    fn a_kept_buffer_is_bounded() {
        let huge_text = "y".repeat(KEPT_CANONICAL_BYTES + 1);
        let huge = Value::Object(vec![("d".into(), Value::String(huge_text.clone()))]);
        let want = digest_text(format!(r#"{{"d":"{huge_text}"}}"#).as_bytes());
        assert_eq!(CardHash::of(&huge).as_str(), want);
        assert!(kept_canonical_capacity() <= KEPT_CANONICAL_BYTES);
        let short = Value::Object(vec![("b".into(), Value::Bool(true))]);
        assert_eq!(CardHash::of(&short).as_str(), digest_text(br#"{"b":true}"#));
        assert!(kept_canonical_capacity() <= KEPT_CANONICAL_BYTES);
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
