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
//!   `packaging` refuses are passed over, and one it cannot turn into numbers (a part over
//!   Python's 4,300-digit `int()` limit) raises out of the factory: no client at all.
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
    /// The gate cannot tell which interface it picks; the string is the spelling that decides
    /// (for `@a2a-js/sdk`, a binding that may upper-case as the required one does, both holding
    /// letters whose upper case is not ASCII).
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

/// Whether `binding` is usable in `reading` for `sdk`'s client: an interface spells it exactly,
/// and the client picks an interface for it.
pub fn usable(sdk: Sdk, reading: &Reading, binding: &str) -> bool {
    reading.offers_binding(binding) && serves(sdk, reading, binding, &[])
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
        match packaging_release(version) {
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
            // The `ValueError` leaves the factory: no client at all.
            Release::Raises => return Choice::NoInterface,
        }
    }
    match above.or(at_least_0_3).or(unversioned) {
        Some(v) => Choice::Picked(v),
        None => Choice::NoInterface,
    }
}

/// A version as `packaging.version.Version` (26.x, which a2a-sdk 1.3.0 installs) reads it.
#[derive(Debug, PartialEq, Eq)]
enum Release {
    /// The release's first two numbers (a missing minor is 0), each saturated: only their order
    /// against 0.3 and 1.0 matters.
    MajorMinor(u64, u64),
    /// `InvalidVersion`, which the factory passes over.
    Invalid,
    /// A number longer than Python's 4,300-digit `int()` limit: a `ValueError`.
    Raises,
}

/// Python's `int()` limit on the digits of a string (`sys.get_int_max_str_digits()`).
const INT_MAX_STR_DIGITS: usize = 4300;

/// `Version(version)`: its fast path for digits and dots, else its regular expression
/// (`packaging.version.VERSION_PATTERN` between `\s*`, case-insensitive, every quantifier
/// possessive, so one left-to-right pass decides). No library reads PEP 440 in Rust the way
/// `packaging` does (its whitespace is Python's `str.isspace`, its `int()` has a digit limit).
fn packaging_release(version: &str) -> Release {
    if version.bytes().all(|b| b == b'.' || b.is_ascii_digit()) {
        let parts = || version.split('.');
        if parts().any(str::is_empty) {
            return Release::Invalid;
        }
        if parts().any(|p| p.len() > INT_MAX_STR_DIGITS) {
            return Release::Raises;
        }
        let mut numbers = parts().map(saturating_number);
        let major = numbers.next().unwrap_or(0);
        return Release::MajorMinor(major, numbers.next().unwrap_or(0));
    }
    let text = version.trim_matches(python_isspace);
    let mut at = Pep440 {
        s: text.as_bytes(),
        i: 0,
        numbers: Vec::new(),
    };
    at.word(&["v"]);
    // Epoch: digits and a `!`, or nothing.
    let start = at.i;
    if at.digits().is_none() || !at.byte(b'!') {
        at.i = start;
        at.numbers.clear();
    }
    let Some(major) = at.digits() else {
        return Release::Invalid;
    };
    let mut minor = None;
    loop {
        let before = at.i;
        if !at.byte(b'.') {
            break;
        }
        match at.digits() {
            Some(n) => minor = minor.or(Some(n)),
            None => {
                at.i = before;
                break;
            }
        }
    }
    let release = (major, minor);
    // Pre-release, post-release, development release: each one optional group.
    at.group(|at| {
        at.separator();
        at.word(&["alpha", "a", "beta", "b", "preview", "pre", "c", "rc"]) && {
            at.separator();
            at.digits();
            true
        }
    });
    at.group(|at| {
        let start = at.i;
        if at.byte(b'-') && at.digits().is_some() {
            return true;
        }
        at.i = start;
        at.separator();
        at.word(&["post", "rev", "r"]) && {
            at.separator();
            at.digits();
            true
        }
    });
    at.group(|at| {
        at.separator();
        at.word(&["dev"]) && {
            at.separator();
            at.digits();
            true
        }
    });
    // Local version: `+` and alphanumeric segments joined by `.`, `_` or `-`.
    at.group(|at| {
        if !at.byte(b'+') || !at.segment() {
            return false;
        }
        loop {
            let before = at.i;
            let (numbers, joined) = (at.numbers.len(), at.separator() && at.segment());
            if !joined {
                at.i = before;
                at.numbers.truncate(numbers);
                return true;
            }
        }
    });
    if at.i != at.s.len() {
        return Release::Invalid;
    }
    if at.numbers.iter().any(|&n| n > INT_MAX_STR_DIGITS) {
        return Release::Raises;
    }
    Release::MajorMinor(
        saturating_number(release.0),
        release.1.map_or(0, saturating_number),
    )
}

/// A cursor over a version for [`packaging_release`]: `numbers` holds the length of every
/// number `int()` will read.
struct Pep440<'s> {
    s: &'s [u8],
    i: usize,
    numbers: Vec<usize>,
}

impl<'s> Pep440<'s> {
    fn byte(&mut self, b: u8) -> bool {
        let hit = self.s.get(self.i) == Some(&b);
        self.i += usize::from(hit);
        hit
    }

    /// `[._-]?+`; whether one was taken.
    fn separator(&mut self) -> bool {
        let hit = matches!(self.s.get(self.i), Some(b'.' | b'_' | b'-'));
        self.i += usize::from(hit);
        hit
    }

    /// `[0-9]++`: the digits, noted as a number.
    fn digits(&mut self) -> Option<&'s str> {
        let rest = self.s.get(self.i..).unwrap_or_default();
        let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        self.i += n;
        self.numbers.push(n);
        std::str::from_utf8(rest.get(..n)?).ok()
    }

    /// The first of `words` (in order, ASCII case ignored) that the text goes on with.
    fn word(&mut self, words: &[&str]) -> bool {
        let rest = self.s.get(self.i..).unwrap_or_default();
        match words.iter().find(|w| {
            rest.get(..w.len())
                .is_some_and(|r| r.eq_ignore_ascii_case(w.as_bytes()))
        }) {
            Some(w) => {
                self.i += w.len();
                true
            }
            None => false,
        }
    }

    /// `[a-z0-9]++` (ASCII case ignored) of a local version; an all-digit segment is a number.
    fn segment(&mut self) -> bool {
        let rest = self.s.get(self.i..).unwrap_or_default();
        let n = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if rest
            .get(..n)
            .is_some_and(|seg| seg.iter().all(u8::is_ascii_digit))
            && n > 0
        {
            self.numbers.push(n);
        }
        self.i += n;
        n > 0
    }

    /// An optional group `(...)?+`: kept when `body` matches, else undone.
    fn group(&mut self, body: impl FnOnce(&mut Self) -> bool) {
        let (i, numbers) = (self.i, self.numbers.len());
        if !body(self) {
            self.i = i;
            self.numbers.truncate(numbers);
        }
    }
}

/// Decimal digits as a number, saturated at `u64::MAX`.
fn saturating_number(digits: &str) -> u64 {
    digits.bytes().fold(0u64, |n, d| {
        n.saturating_mul(10)
            .saturating_add(u64::from(d.wrapping_sub(b'0')))
    })
}

/// Python's `str.isspace` (what `\s` matches in a `str` pattern).
fn python_isspace(c: char) -> bool {
    matches!(c, '\t'..='\r' | '\u{1c}'..='\u{20}' | '\u{85}' | '\u{a0}' | '\u{1680}'
        | '\u{2000}'..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

/// `bestInterfacePerProtocol` for this binding.
fn js<'r>(reading: &'r Reading, binding: &'r str) -> Choice<'r> {
    if reading.untyped_binding {
        return Choice::NoInterface;
    }
    // Upper-cased as `toUpperCase` does, compared without building copies. A character
    // outside [`upper_case`]'s table upper-cases to something that is not ASCII, so a binding
    // holding one never matches one without.
    let foldable = upper_cases_to_ascii(binding);
    if !foldable {
        // Two such bindings may upper-case alike (`\u{e9}` and `\u{c9}`), which the gate does
        // not follow without Unicode's case table: only the same spelling is certain.
        if let Some((b, _)) = reading
            .interfaces
            .iter()
            .find(|(b, _)| b != binding && !upper_cases_to_ascii(b))
        {
            return Choice::Unknown(b);
        }
    }
    let key = || upper_case(binding);
    let mut picked: Option<&str> = None;
    for (b, version) in &reading.interfaces {
        let same = if !foldable {
            b == binding
        } else if b.is_ascii() && binding.is_ascii() {
            b.eq_ignore_ascii_case(binding)
        } else {
            upper_cases_to_ascii(b) && upper_case(b).eq(key())
        };
        if same && (picked.is_none() || version == "1.0") {
            picked = Some(version);
        }
    }
    picked.map_or(Choice::NoInterface, Choice::Picked)
}

/// The non-ASCII characters whose upper case (`String.prototype.toUpperCase`, Unicode's full
/// mapping) is ASCII: every one of them, found by upper-casing every code point with Rust and
/// with Node.js (both give these ten). Any other non-ASCII character upper-cases to something
/// that is not ASCII. A table, not `char::to_uppercase`: that brings Unicode's whole case table
/// (about 20 KB) into the `.wasm` modules for these ten.
const UPPER_TO_ASCII: [(char, &str); 10] = [
    ('\u{df}', "SS"),
    ('\u{131}', "I"),
    ('\u{17f}', "S"),
    ('\u{fb00}', "FF"),
    ('\u{fb01}', "FI"),
    ('\u{fb02}', "FL"),
    ('\u{fb03}', "FFI"),
    ('\u{fb04}', "FFL"),
    ('\u{fb05}', "ST"),
    ('\u{fb06}', "ST"),
];

/// Whether `s` upper-cases to ASCII: ASCII and [`UPPER_TO_ASCII`]'s characters only.
fn upper_cases_to_ascii(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_ascii() || UPPER_TO_ASCII.iter().any(|(k, _)| *k == c))
}

/// The bytes of `s` upper-cased, for a string [`upper_cases_to_ascii`] accepts.
fn upper_case(s: &str) -> impl Iterator<Item = u8> + '_ {
    s.chars().flat_map(|c| {
        let (ascii, expansion) = match UPPER_TO_ASCII.iter().find(|(k, _)| *k == c) {
            Some((_, up)) => (None, up.bytes()),
            None => (
                u8::try_from(c).ok().map(|b| b.to_ascii_uppercase()),
                "".bytes(),
            ),
        };
        ascii.into_iter().chain(expansion)
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
    fn python_reads_versions_as_packaging_does() {
        // What packaging 26.4 gives (checked with Python 3.11): (major, minor), or refused.
        let cases: &[(&str, Option<(u64, u64)>)] = &[
            ("1", Some((1, 0))),
            ("01.02", Some((1, 2))),
            ("1.0.0.0.0", Some((1, 0))),
            ("v1.0", Some((1, 0))),
            ("V1.0", Some((1, 0))),
            ("1.0RC1", Some((1, 0))),
            ("1!0.3", Some((0, 3))),
            (" 1.0 ", Some((1, 0))),
            ("\u{a0}1.0\u{3000}", Some((1, 0))),
            ("1.0\u{1c}", Some((1, 0))),
            ("1.0a.", Some((1, 0))),
            ("1.0-1", Some((1, 0))),
            ("1.0.post", Some((1, 0))),
            ("1.0preview2", Some((1, 0))),
            ("1.0alpha", Some((1, 0))),
            ("1.0c", Some((1, 0))),
            ("1.0-r", Some((1, 0))),
            ("1.0rev", Some((1, 0))),
            ("1.0_dev_3", Some((1, 0))),
            ("1.0.dev", Some((1, 0))),
            ("1.0+ABC", Some((1, 0))),
            ("1.0+a-b_c.d", Some((1, 0))),
            ("1.0a1.post2.dev3+x.1", Some((1, 0))),
            ("2.5", Some((2, 5))),
            ("1.0-", None),
            ("1.0+a..b", None),
            ("1.0\u{200b}", None),
            ("v 1.0", None),
            ("1.0 rc1", None),
            ("1.0+", None),
            ("1.0++a", None),
            ("vv1", None),
            ("1.0al", None),
            ("1.", None),
            ("1..0", None),
            (".1", None),
            ("  ", None),
            ("x", None),
        ];
        for (version, want) in cases {
            let got = packaging_release(version);
            let want = want.map_or(Release::Invalid, |(a, b)| Release::MajorMinor(a, b));
            assert_eq!(got, want, "{version:?}");
        }
        let long = "0".repeat(4301);
        for version in [
            format!("1.{long}"),
            format!("v1.{long}"),
            format!("1.0rc{long}"),
            format!("1.0+{long}"),
        ] {
            assert_eq!(
                packaging_release(&version),
                Release::Raises,
                "{version:.12}"
            );
        }
        // A refused part wins over a long one on the fast path; a long letter segment is no number.
        assert_eq!(packaging_release(&format!("{long}..1")), Release::Invalid);
        assert_eq!(
            packaging_release(&format!("1.0+a{long}")),
            Release::MajorMinor(1, 0)
        );
        assert_eq!(
            packaging_release(&"0".repeat(4300)),
            Release::MajorMinor(0, 0)
        );
        assert_eq!(
            packaging_release("99999999999999999999999.0"),
            Release::MajorMinor(u64::MAX, 0)
        );
        // The factory: "v1.0" is 1.0 to it; a ValueError leaves no client at all.
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", "v1.0")]);
        assert_eq!(python(&r, "JSONRPC"), Choice::Picked("v1.0"));
        let long_version = format!("1.{long}");
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", &long_version)]);
        assert_eq!(python(&r, "JSONRPC"), Choice::NoInterface);
        let r = reading(&[("JSONRPC", "1.0"), ("JSONRPC", &long_version)]);
        assert_eq!(python(&r, "JSONRPC"), Choice::Picked("1.0"));
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
        // Ligatures and sharp s expand; other letters never upper-case to ASCII.
        let r = reading(&[
            ("GRPC", "1.0"),
            ("\u{fb00}oo", "0.3"),
            ("stra\u{df}e", "1.0.0"),
        ]);
        assert_eq!(js(&r, "FFOO"), Choice::Picked("0.3"));
        assert_eq!(js(&r, "STRASSE"), Choice::Picked("1.0.0"));
        assert_eq!(js(&r, "stra\u{df}e"), Choice::Picked("1.0.0"));
        let r = reading(&[("JSONRPC", "1.0"), ("x\u{10d70}", "1.0"), ("\u{e9}", "1.0")]);
        assert_eq!(js(&r, "JSONRPC"), Choice::Picked("1.0"));
        assert_eq!(js(&r, "E"), Choice::NoInterface);
        // A required binding with such a letter: the same spelling matches, and another
        // binding with such letters may match too (not followed: unknown).
        assert_eq!(js(&r, "\u{e9}"), Choice::Unknown("x\u{10d70}"));
        let r = reading(&[
            ("JSONRPC", "1.0"),
            ("caf\u{e9}", "0.3"),
            ("caf\u{e9}", "1.0"),
        ]);
        assert_eq!(js(&r, "caf\u{e9}"), Choice::Picked("1.0"));
        assert_eq!(js(&r, "CAF\u{c9}"), Choice::Unknown("caf\u{e9}"));
        assert_eq!(js(&r, "CAFE"), Choice::NoInterface);
    }
}
