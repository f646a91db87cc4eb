//! Which interface each SDK's client picks for a binding.
//!
//! A caller that requires `binding:X` does not get "some interface with binding X": its SDK's
//! `ClientFactory` picks one interface for X, and the client talks to that one, at its url and
//! protocol version. A card offering `JSONRPC` at 0.3 first and at `1.0.0` second sends
//! `@a2a-js/sdk`'s client to the 0.3 endpoint (it prefers exactly `"1.0"`, else the first), whatever
//! the caller requires. So condition (c) checks the interface each client picks:
//!
//! - PyPI `a2a-sdk` 1.3.0, `ClientFactory._find_best_interface`: bindings compared exactly; the
//!   first interface whose `packaging` version has `(major, minor) == (1, 0)`, else the first
//!   above 1.0, else the first at or above 0.3, else the first without a version; versions
//!   `packaging` refuses are passed over. Only versions made of digits and dots are read here
//!   (what `packaging` reads without its regular expression): any other spelling it may meet
//!   makes the pick [`Choice::Unknown`].
//! - npm `@a2a-js/sdk` 1.3.0, `ClientFactory.createFromNormalizedAgentCard`: bindings compared
//!   through `String.prototype.toUpperCase`; the first interface of a binding, replaced by any
//!   later one whose `protocolVersion` is exactly `"1.0"`. An interface whose `protocolBinding`
//!   is not a string makes `toUpperCase` throw: no client for any binding. Both resolver readings
//!   pick the same way (the transport's own `pickMatchingInterface` then lands on an interface of
//!   the same kind: exactly `"1.0"` when the pick is, else the pick itself).
//!
//! No library does this: these are the SDKs' own selection rules, restated, and checked against
//! the real `ClientFactory`s by `tests/sdk_parity/`.

use crate::capability::major_minor;
use crate::sdk_reading::{Reading, Sdk};

/// What one SDK's client does for a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice<'r> {
    /// It picks an interface with this `protocolVersion` (as the reading has it, `""` if unset).
    Picked(&'r str),
    /// It picks none: no interface has the binding, none has a version it accepts, or it throws.
    NoInterface,
    /// The gate cannot tell which interface it picks; the string is the spelling that decides.
    Unknown(&'r str),
}

/// The interface `sdk`'s client picks for `binding` in `reading`.
pub fn choice<'r>(sdk: Sdk, reading: &'r Reading, binding: &'r str) -> Choice<'r> {
    match sdk {
        Sdk::Python => python(reading, binding),
        Sdk::JsDefault | Sdk::JsLegacyCompat => js(reading, binding),
    }
}

/// Whether `sdk`'s client picks an interface for `binding` in `reading`, and, when `protocols`
/// (`Major.Minor` versions) are given, one whose `protocolVersion` has one of them.
pub fn serves(sdk: Sdk, reading: &Reading, binding: &str, protocols: &[&str]) -> bool {
    match choice(sdk, reading, binding) {
        Choice::Picked(version) => {
            protocols.is_empty() || major_minor(version).is_some_and(|mm| protocols.contains(&mm))
        }
        Choice::NoInterface | Choice::Unknown(_) => false,
    }
}

/// Why `binding` is not served in one of `readings` (the first that does not serve it, as in
/// [`serves`]), for the decision's message; `None` when every reading serves it.
pub fn unserved(readings: &[(Sdk, Reading)], binding: &str, protocols: &[&str]) -> Option<String> {
    let (sdk, reading) = readings
        .iter()
        .find(|(sdk, r)| !serves(*sdk, r, binding, protocols))?;
    let client = sdk.label();
    Some(match choice(*sdk, reading, binding) {
        Choice::Picked(version) => format!(
            "{client}: its client picks the interface with protocolVersion {version:?} for it, not one at protocol:{}",
            protocols.join(" or protocol:")
        ),
        Choice::NoInterface => format!("{client}: its client picks no interface for it"),
        Choice::Unknown(spelling) => format!(
            "{client}: which interface its client picks for it is not known ({spelling:?} is not read here)"
        ),
    })
}

/// `_find_best_interface` over the interfaces with exactly this binding.
fn python<'r>(reading: &'r Reading, binding: &str) -> Choice<'r> {
    let mut above: Option<&str> = None;
    let mut at_least_0_3: Option<&str> = None;
    let mut unversioned: Option<&str> = None;
    for (_, version) in reading.interfaces.iter().filter(|(b, _)| b == binding) {
        let version: &str = version;
        if version.is_empty() {
            unversioned = unversioned.or(Some(version));
            continue;
        }
        match simple_release(version) {
            Release::MajorMinor(1, 0) => return Choice::Picked(version),
            Release::MajorMinor(major, minor) => {
                if (major, minor) > (1, 0) {
                    above = above.or(Some(version));
                }
                if (major, minor) >= (0, 3) {
                    at_least_0_3 = at_least_0_3.or(Some(version));
                }
            }
            Release::Invalid => {}
            Release::Unread => return Choice::Unknown(version),
        }
    }
    match above.or(at_least_0_3).or(unversioned) {
        Some(v) => Choice::Picked(v),
        None => Choice::NoInterface,
    }
}

/// A version as `packaging.version.Version` reads it, as far as the gate follows it.
#[derive(Debug, PartialEq, Eq)]
enum Release {
    /// Digits and dots: the release's first two numbers (a missing minor is 0), each saturated
    /// (only their order against 0.3 and 1.0 matters).
    MajorMinor(u64, u64),
    /// Digits and dots that `packaging` refuses (`InvalidVersion`: an empty part).
    Invalid,
    /// Anything else: `packaging`'s regular expression (epochs, `v`, pre/post/dev/local parts,
    /// surrounding whitespace), or a part longer than Python's 4,300-digit `int()` limit (a
    /// `ValueError` that escapes the factory).
    Unread,
}

fn simple_release(version: &str) -> Release {
    if !version.bytes().all(|b| b == b'.' || b.is_ascii_digit()) {
        return Release::Unread;
    }
    let mut numbers = [0u64; 2];
    for (i, part) in version.split('.').enumerate() {
        if part.is_empty() {
            return Release::Invalid;
        }
        if part.len() > 4300 {
            return Release::Unread;
        }
        if let Some(n) = numbers.get_mut(i) {
            *n = part.bytes().fold(0u64, |n, d| {
                n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
            });
        }
    }
    Release::MajorMinor(numbers[0], numbers[1])
}

/// `bestInterfacePerProtocol` for this binding.
fn js<'r>(reading: &'r Reading, binding: &'r str) -> Choice<'r> {
    if reading.untyped_binding {
        return Choice::NoInterface;
    }
    if let Some(b) = std::iter::once(binding)
        .chain(reading.interfaces.iter().map(|(b, _)| &**b))
        .find(|b| !upper_case_is_settled(b))
    {
        return Choice::Unknown(b);
    }
    let key = binding.to_uppercase();
    let mut picked: Option<&str> = None;
    for (b, version) in &reading.interfaces {
        let same = if b.is_ascii() && key.is_ascii() {
            b.eq_ignore_ascii_case(&key)
        } else {
            b.to_uppercase() == key
        };
        if same && (picked.is_none() || version == "1.0") {
            picked = Some(version);
        }
    }
    picked.map_or(Choice::NoInterface, Choice::Picked)
}

/// Whether every JavaScript engine upper-cases `s` as Rust does: no character from U+1C80 up
/// changes case. Unicode never changes an assigned character's case mapping, but characters
/// encoded after an engine's Unicode version (Cyrillic, Latin and Garay letters in Unicode 16,
/// all above U+1C80) are left as they are there.
fn upper_case_is_settled(s: &str) -> bool {
    s.is_ascii()
        || s.chars().all(|c| {
            u32::from(c) < 0x1C80 || {
                let mut upper = c.to_uppercase();
                upper.next() == Some(c) && upper.next().is_none()
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn reading(interfaces: &[(&str, &str)]) -> Reading {
        Reading {
            interfaces: interfaces
                .iter()
                .map(|(b, v)| (Cow::Owned(b.to_string()), Cow::Owned(v.to_string())))
                .collect(),
            ..Reading::default()
        }
    }

    #[test]
    fn python_prefers_1_0_then_above_then_0_3_then_unversioned() {
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", "2.0"), ("JSONRPC", "1.0.0")]);
        assert_eq!(python(&r, "JSONRPC"), Choice::Picked("1.0.0"));
        let r = reading(&[("JSONRPC", ""), ("JSONRPC", "0.3"), ("JSONRPC", "1.1")]);
        assert_eq!(python(&r, "JSONRPC"), Choice::Picked("1.1"));
        let r = reading(&[("JSONRPC", ""), ("JSONRPC", "0.2"), ("JSONRPC", "0.3.0")]);
        assert_eq!(python(&r, "JSONRPC"), Choice::Picked("0.3.0"));
        let r = reading(&[("JSONRPC", "0.2"), ("JSONRPC", ""), ("JSONRPC", "1..0")]);
        assert_eq!(python(&r, "JSONRPC"), Choice::Picked(""));
        let r = reading(&[("JSONRPC", "0.2"), ("JSONRPC", "1.")]);
        assert_eq!(python(&r, "JSONRPC"), Choice::NoInterface);
        // "1" and "01.0" are 1.0 to packaging.
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", "01")]);
        assert_eq!(python(&r, "JSONRPC"), Choice::Picked("01"));
        // Exact binding names only.
        let r = reading(&[("jsonrpc", "1.0")]);
        assert_eq!(python(&r, "JSONRPC"), Choice::NoInterface);
    }

    #[test]
    fn python_pick_is_unknown_where_packaging_reads_more_than_digits_and_dots() {
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", "v1.0")]);
        assert_eq!(python(&r, "JSONRPC"), Choice::Unknown("v1.0"));
        // Unless a 1.0 comes first: the factory returns before it reads the rest.
        let r = reading(&[("JSONRPC", "1.0"), ("JSONRPC", "v1.0")]);
        assert_eq!(python(&r, "JSONRPC"), Choice::Picked("1.0"));
        let long = format!("1.{}", "0".repeat(4301));
        let r = reading(&[("JSONRPC", &long)]);
        assert_eq!(python(&r, "JSONRPC"), Choice::Unknown(long.as_str()));
        assert_eq!(
            simple_release("99999999999999999999999.0"),
            Release::MajorMinor(u64::MAX, 0)
        );
    }

    #[test]
    fn js_prefers_the_last_exact_1_0_else_the_first() {
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", "1.0.0")]);
        assert_eq!(js(&r, "JSONRPC"), Choice::Picked("0.3"));
        let r = reading(&[("jsonrpc", "0.3"), ("JSONRPC", "1.0"), ("JsonRpc", "1.0")]);
        assert_eq!(js(&r, "JSONRPC"), Choice::Picked("1.0"));
        let r = reading(&[("GRPC", "1.0"), ("J\u{17f}ONRPC", "0.3")]);
        assert_eq!(js(&r, "JSONRPC"), Choice::Picked("0.3"));
        assert_eq!(js(&r, "HTTP+JSON"), Choice::NoInterface);
        let mut r = reading(&[("JSONRPC", "1.0")]);
        r.untyped_binding = true;
        assert_eq!(js(&r, "JSONRPC"), Choice::NoInterface);
        // A Garay letter (Unicode 16): older engines leave it as it is.
        let r = reading(&[("JSONRPC", "1.0"), ("x\u{10d70}", "1.0")]);
        assert_eq!(js(&r, "JSONRPC"), Choice::Unknown("x\u{10d70}"));
        let r = reading(&[("JSONRPC", "1.0"), ("x\u{10d50}", "1.0")]);
        assert_eq!(js(&r, "JSONRPC"), Choice::Picked("1.0"));
    }
}
