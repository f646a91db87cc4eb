//! Which interface each SDK's client picks for a binding.
//!
//! A caller that requires `binding:X` does not get "some interface with binding X": its SDK's
//! `ClientFactory` picks one interface for X, and the client talks to that one, at its url and
//! protocol version. A card offering `JSONRPC` at 0.3 first and at `1.0.0` second sends
//! `@a2a-js/sdk`'s client to the 0.3 endpoint (it prefers exactly `"1.0"`, else the first), whatever
//! the caller requires. So condition (c) checks the interface each client picks:
//!
//! - PyPI `a2a-sdk` 1.3.0 (and 1.2.3), `ClientFactory._find_best_interface`: bindings compared
//!   exactly; the first interface whose `packaging` version has `(major, minor) == (1, 0)`, else
//!   the first above 1.0, else the first at or above 0.3, else the first without a version;
//!   versions `packaging` refuses are passed over, and one it cannot turn into numbers (a part
//!   over Python's 4,300-digit `int()` limit) raises out of the factory: no client at all.
//! - a2a-sdk 1.0.0 to 1.2.2, the same method before 1.2.3: the first interface whose version is
//!   exactly the string `"1.0"`; else, comparing whole PEP 440 versions, the first above 1.0
//!   (`1.0.1`, `1.0.post1`, `1.0+x`, but not `1.0.0`), else the first at or above 0.3 (not
//!   `0.3rc1`), else the first without a version; every version is read, so one that raises
//!   leaves no client unless an exact `"1.0"` came first. A card offering `JSONRPC` at 0.3 and
//!   at `1.0.0` sends these clients to 0.3.
//! - Either with `packaging` before 26.1 (a2a-sdk allows 24.0 and later): its pattern ignored
//!   case in Unicode, so `\u{130}`/`\u{131}` read as `i`, `\u{17f}` as `s` and `\u{212a}` (Kelvin)
//!   as `k`: `1.0.po\u{17f}t1` is a valid 1.0.post1 there and refused by 26.1.
//! - npm `@a2a-js/sdk` 1.3.0, `ClientFactory.createFromNormalizedAgentCard`: bindings compared
//!   through `String.prototype.toUpperCase`; the first interface of a binding, replaced by any
//!   later one whose `protocolVersion` is exactly `"1.0"`. An interface whose `protocolBinding`
//!   is not a string makes `toUpperCase` throw: no client for any binding. Both resolver readings
//!   pick the same way (the transport's own `pickMatchingInterface` then lands on an interface of
//!   the same kind: exactly `"1.0"` when the pick is, else the pick itself). A transport factory
//!   with `legacyCompat` takes its v0.3 transport when `isLegacyVersion` reads the pick's
//!   version as `0.3 <= v < 1.0`, whose `Number.parseInt` makes a minor of 309 digits or more
//!   `Infinity`: `0.99...9` gets 1.0 requests there ([`Choice::JsOtherWire`]).
//!
//! - a2a-sdk's transport producers then take their v0.3 transport when `packaging` reads the
//!   pick's version as `0.3 <= v < 1.0` (`is_legacy_version`), in PEP 440 order, where
//!   `1.0.0-rc.1` lies below 1.0: such a pick serves no `protocol:1.0` ([`Choice::OtherWire`]).
//!   Those v0.3 transports send no tenant, so such a pick of an interface that names one
//!   serves nothing ([`Choice::DropsTenant`]).
//!
//! A caller's a2a-sdk and `packaging` versions are not known to the gate, so a binding is served
//! only when every one of these clients picks a serving interface ([`choices`]): one with a url
//! (on one without, the client is built but sends nowhere, or in a browser to the page's own
//! origin) and, when the caller names protocol versions, at one of them.
//!
//! No library does this: these are the SDKs' own selection rules, restated, and checked against
//! the real `ClientFactory`s by `tests/sdk_parity/`.

use crate::capability::major_minor;
use crate::document::Node;
use crate::interface_url::Url;
use crate::sdk_reading::{
    either, flag, js_is_legacy_version, js_is_proto, proto_member, Reading, Sdk,
};
use std::borrow::Cow;
use std::cmp::Ordering;

/// What one SDK's client does for a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice<'r> {
    /// It picks an interface with this `protocolVersion` (as the reading has it, `""` if unset).
    Picked(&'r str),
    /// It picks an interface with this `protocolVersion` whose url its transport cannot send to,
    /// or not to one place whatever the SDK ([`Url::serves`]): no url (the client sends nowhere,
    /// or in a browser to the page's own origin), or, for an HTTP binding, not a plain absolute
    /// http(s) URL. It serves nothing.
    UnusableUrl(&'r str, Url),
    /// An a2a-sdk client picks an interface with this `protocolVersion` and talks to it in the
    /// other protocol generation than the version's `Major.Minor` says: its transport producer
    /// takes its v0.3 transport exactly when `packaging` reads the version as
    /// `0.3 <= v < 1.0` (`is_legacy_version`), so `1.0.0-rc.1`, a pre-release below 1.0 to it,
    /// gets v0.3 requests, and `0.3.0-rc.1`, below 0.3, gets 1.0 ones. The flag is whether it
    /// speaks v0.3. It serves the binding, but no required protocol version.
    OtherWire(&'r str, bool),
    /// An `@a2a-js/sdk` client whose transport factories have `legacyCompat` picks an interface
    /// with this `protocolVersion` and talks to it in the other generation than the version's
    /// `Major.Minor` says: the factory takes its v0.3 transport exactly when `isLegacyVersion`
    /// reads the version as `0.3 <= v < 1.0` with `Number.parseInt`, whose minor number past a
    /// double's range (309 digits and more) is not finite, so `0.99...9` gets 1.0 requests
    /// there and v0.3 ones from a2a-sdk. The flag is whether it speaks v0.3. It serves the
    /// binding, but no required protocol version.
    JsOtherWire(&'r str, bool),
    /// A client picks an interface with this `protocolVersion` that names a `tenant`, and talks
    /// v0.3 to it (a2a-sdk's `is_legacy_version`, or `isLegacyVersion` for an @a2a-js/sdk
    /// transport factory with `legacyCompat`): the v0.3 transports have no tenant to send (the
    /// JSON-RPC one drops it from the request, the REST one from the path), so the request
    /// reaches the agent's default tenant, not the card's. It serves nothing.
    DropsTenant(&'r str),
    /// It picks none: no interface has the binding, none has a version it accepts, or it throws.
    NoInterface,
    /// The gate cannot tell which interface it picks; the string is the spelling that decides
    /// (for `@a2a-js/sdk`, a binding that may upper-case as the required one does, both holding
    /// letters whose upper case is not ASCII).
    Unknown(&'r str),
}

/// An a2a-sdk client whose pick can differ from another's for the same card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PyClient {
    /// `_find_best_interface` as in a2a-sdk 1.0.0 to 1.2.2 (else 1.2.3 and later).
    before_1_2_3: bool,
    /// `packaging` before 26.1 (else 26.1 and later).
    old_packaging: bool,
    /// Its name in a decision's message, after the SDK's label.
    label: &'static str,
}

const PY_CLIENTS: [PyClient; 4] = [
    PyClient {
        before_1_2_3: false,
        old_packaging: false,
        label: "",
    },
    PyClient {
        before_1_2_3: true,
        old_packaging: false,
        label: ", versions 1.0.0 to 1.2.2",
    },
    PyClient {
        before_1_2_3: false,
        old_packaging: true,
        label: " with packaging before 26.1",
    },
    PyClient {
        before_1_2_3: true,
        old_packaging: true,
        label: ", versions 1.0.0 to 1.2.2 with packaging before 26.1",
    },
];

/// The interface each of `sdk`'s clients picks for `binding` in `reading`, with the client's
/// name for a message (`""` for the SDK's current client): one pick for `@a2a-js/sdk` (every
/// version of the peer range picks alike); for a2a-sdk the current rule and the one before
/// 1.2.3, and, when a version of the binding holds a letter old `packaging` reads as ASCII,
/// both again as such a `packaging` reads them.
pub fn choices<'r>(
    sdk: Sdk,
    reading: &'r Reading,
    binding: &'r str,
) -> impl Iterator<Item = (&'static str, Choice<'r>)> {
    let mut picks: [Option<(&'static str, Choice<'r>)>; 4] = [None; 4];
    match sdk {
        Sdk::Python => {
            let folds = reading
                .interfaces
                .iter()
                .any(|(b, v, _, _)| b == binding && v.contains(FOLDED_BY_OLD_PACKAGING));
            for (slot, client) in picks.iter_mut().zip(PY_CLIENTS) {
                if folds || !client.old_packaging {
                    *slot = Some((client.label, python(reading, binding, client)));
                }
            }
        }
        Sdk::JsDefault | Sdk::JsLegacyCompat => picks[0] = Some(("", js(reading, binding))),
    }
    picks.into_iter().flatten()
}

/// Whether a pick serves `protocols` (any, when empty).
fn picked_serves(choice: Choice<'_>, protocols: &[&str]) -> bool {
    match choice {
        Choice::Picked(version) => {
            protocols.is_empty() || major_minor(version).is_some_and(|mm| protocols.contains(&mm))
        }
        Choice::OtherWire(..) | Choice::JsOtherWire(..) => protocols.is_empty(),
        Choice::UnusableUrl(..)
        | Choice::DropsTenant(_)
        | Choice::NoInterface
        | Choice::Unknown(_) => false,
    }
}

/// Whether every one of `sdk`'s clients ([`choices`]) picks an interface for `binding` in
/// `reading`, and, when `protocols` (`Major.Minor` versions) are given, one whose
/// `protocolVersion` has one of them.
pub fn serves(sdk: Sdk, reading: &Reading, binding: &str, protocols: &[&str]) -> bool {
    choices(sdk, reading, binding).all(|(_, c)| picked_serves(c, protocols))
}

/// Whether `binding` is usable in `reading` for `sdk`'s client: an interface spells it exactly,
/// and the client picks an interface for it.
pub fn usable(sdk: Sdk, reading: &Reading, binding: &str) -> bool {
    reading.offers_binding(binding) && serves(sdk, reading, binding, &[])
}

/// Why `binding` is not served in one of `readings` (the first client that does not serve it,
/// as in [`serves`]), for the decision's message; `None` when every client serves it.
pub fn unserved(readings: &[(Sdk, Reading)], binding: &str, protocols: &[&str]) -> Option<String> {
    let (sdk, (client, choice)) = readings.iter().find_map(|(sdk, r)| {
        choices(*sdk, r, binding)
            .find(|(_, c)| !picked_serves(*c, protocols))
            .map(|pick| (sdk, pick))
    })?;
    let client = format!("{}{client}", sdk.label());
    Some(match choice {
        Choice::Picked(version) => format!(
            "{client}: its client picks the interface with protocolVersion {version:?} for it, not one at protocol:{}",
            protocols.join(" or protocol:")
        ),
        Choice::UnusableUrl(version, url) => format!(
            "{client}: its client picks the interface with protocolVersion {version:?} for it, {}",
            url.unusable_because(binding).unwrap_or("whose url it cannot use")
        ),
        Choice::OtherWire(version, legacy) => format!(
            "{client}: its client picks the interface with protocolVersion {version:?} for it and speaks {} to it (packaging reads that version {}), not protocol:{}",
            if legacy { "v0.3" } else { "v1.0" },
            if legacy { "as 0.3 <= v < 1.0" } else { "outside 0.3 <= v < 1.0" },
            protocols.join(" or protocol:")
        ),
        Choice::JsOtherWire(version, legacy) => format!(
            "{client}: its client picks the interface with protocolVersion {version:?} for it, and its legacyCompat transport speaks {} to it (isLegacyVersion reads that version {}), not protocol:{}",
            if legacy { "v0.3" } else { "v1.0" },
            if legacy { "as 0.3 <= v < 1.0" } else { "outside 0.3 <= v < 1.0" },
            protocols.join(" or protocol:")
        ),
        Choice::DropsTenant(version) => format!(
            "{client}: its client picks the interface with protocolVersion {version:?} for it, which names a tenant, and speaks v0.3 to it (its version reads as 0.3 <= v < 1.0), whose requests carry no tenant"
        ),
        Choice::NoInterface => format!("{client}: its client picks no interface for it"),
        Choice::Unknown(spelling) => format!(
            "{client}: which interface its client picks for it is not known ({spelling:?} is not read here)"
        ),
    })
}

/// What `client` does for `binding`: its pick ([`python_pick`]), and which of its transports
/// talks to it ([`speaks_v0_3`]).
fn python<'r>(reading: &'r Reading, binding: &str, client: PyClient) -> Choice<'r> {
    match python_pick(reading, binding, client) {
        Choice::Picked(version) => {
            let legacy = speaks_v0_3(version, client);
            // The pick is the first interface of the binding with its version string (versions
            // spelled alike fall in one rank of `_find_best_interface`).
            let tenanted = || {
                reading
                    .interfaces
                    .iter()
                    .find(|(b, v, _, _)| b == binding && v == version)
                    .is_some_and(|(_, _, _, tenanted)| *tenanted)
            };
            match (legacy, declares_v0_3(version)) {
                (Some(true), _) if tenanted() => Choice::DropsTenant(version),
                (Some(legacy), Some(declared)) if legacy != declared => {
                    Choice::OtherWire(version, legacy)
                }
                _ => Choice::Picked(version),
            }
        }
        other => other,
    }
}

/// Whether a2a-sdk's transport producers take their v0.3 transport for an interface at
/// `version` (`a2a.compat.v0_3.versions.is_legacy_version`: `packaging` reads it as
/// `0.3 <= v < 1.0`); `None` for a version `packaging` does not read (the producers then take
/// the 1.0 transport, but such a version has no `Major.Minor` either).
fn speaks_v0_3(version: &str, client: PyClient) -> Option<bool> {
    let folded;
    let text = if client.old_packaging && version.contains(FOLDED_BY_OLD_PACKAGING) {
        folded = fold_as_old_packaging(version);
        folded.as_str()
    } else {
        version
    };
    match packaging_version(text) {
        Release::Valid(v) => {
            Some(v.cmp_plain(0, 3) != Ordering::Less && v.cmp_plain(1, 0) == Ordering::Less)
        }
        Release::Invalid | Release::Raises => None,
    }
}

/// Whether the gate's `Major.Minor` of `version` is a v0.3-generation one (`0.3 <= M.m < 1.0`);
/// `None` when it has none.
fn declares_v0_3(version: &str) -> Option<bool> {
    let (major, minor) = major_minor(version)?.split_once('.')?;
    let mm = (saturating_number(major), saturating_number(minor));
    Some(((0, 3)..(1, 0)).contains(&mm))
}

/// `_find_best_interface` of `client` over the interfaces with exactly this binding.
fn python_pick<'r>(reading: &'r Reading, binding: &str, client: PyClient) -> Choice<'r> {
    let candidates = reading
        .interfaces
        .iter()
        .filter(move |(b, _, _, _)| b == binding)
        .map(|(_, v, url, _)| -> (&'r str, Url) { (v, *url) });
    // Before 1.2.3 the exact string "1.0" is looked for first, before any version is read.
    if client.before_1_2_3 {
        if let Some(found) = candidates.clone().find(|(v, _)| *v == "1.0") {
            return picked(binding, found);
        }
    }
    let mut above: Option<(&str, Url)> = None;
    let mut at_least_0_3: Option<(&str, Url)> = None;
    let mut unversioned: Option<(&str, Url)> = None;
    for candidate in candidates {
        let (version, _) = candidate;
        if version.is_empty() {
            unversioned = unversioned.or(Some(candidate));
            continue;
        }
        let folded;
        let text = if client.old_packaging && version.contains(FOLDED_BY_OLD_PACKAGING) {
            folded = fold_as_old_packaging(version);
            folded.as_str()
        } else {
            version
        };
        let v = match packaging_version(text) {
            Release::Valid(v) => v,
            Release::Invalid => continue,
            // The `ValueError` leaves the factory: no client at all.
            Release::Raises => return Choice::NoInterface,
        };
        let (is_above, at_least) = if client.before_1_2_3 {
            (
                v.cmp_plain(1, 0) == Ordering::Greater,
                v.cmp_plain(0, 3) != Ordering::Less,
            )
        } else {
            let mm = (v.major, v.minor);
            if mm == (1, 0) {
                return picked(binding, candidate);
            }
            (mm > (1, 0), mm >= (0, 3))
        };
        if is_above {
            above = above.or(Some(candidate));
        }
        if at_least {
            at_least_0_3 = at_least_0_3.or(Some(candidate));
        }
    }
    above
        .or(at_least_0_3)
        .or(unversioned)
        .map_or(Choice::NoInterface, |found| picked(binding, found))
}

/// The pick of an interface with this version and url, for a client of `binding`.
fn picked<'r>(binding: &str, (version, url): (&'r str, Url)) -> Choice<'r> {
    if url.serves(binding) {
        Choice::Picked(version)
    } else {
        Choice::UnusableUrl(version, url)
    }
}

/// The non-ASCII letters `packaging` before 26.1 matched as ASCII ones: its version pattern was
/// compiled with `re.IGNORECASE` and without `re.ASCII`, so Python's Unicode case rules applied
/// (every code point checked against `[a-z]` with Python 3.11's `re`: these four).
const FOLDED_BY_OLD_PACKAGING: [char; 4] = ['\u{130}', '\u{131}', '\u{17f}', '\u{212a}'];

/// `version` with [`FOLDED_BY_OLD_PACKAGING`]'s letters replaced by the ASCII ones they match.
fn fold_as_old_packaging(version: &str) -> String {
    version
        .chars()
        .map(|c| match c {
            '\u{130}' | '\u{131}' => 'i',
            '\u{17f}' => 's',
            '\u{212a}' => 'k',
            c => c,
        })
        .collect()
}

/// A version as `packaging.version.Version` (26.x, which a2a-sdk 1.3.0 installs) reads it.
#[derive(Debug, PartialEq, Eq)]
enum Release {
    /// A valid version.
    Valid(Pep440Version),
    /// `InvalidVersion`, which the factory passes over.
    Invalid,
    /// A number longer than Python's 4,300-digit `int()` limit: a `ValueError`.
    Raises,
}

/// What the factories ask of a valid version: its `(major, minor)` (a missing minor is 0; both
/// saturated, since only their order against 0.3 and 1.0 matters), and for a whole PEP 440
/// comparison with a plain release (`1.0`, `0.3`), what else it has.
#[derive(Debug, Default, PartialEq, Eq)]
struct Pep440Version {
    major: u64,
    minor: u64,
    /// A non-zero epoch (`1!0.3` is above every version without one).
    epoch: bool,
    /// A non-zero release number after the minor (`1.0.0.1` is above 1.0).
    more: bool,
    /// A pre-release, post-release, development release, local version.
    pre: bool,
    post: bool,
    dev: bool,
    local: bool,
}

impl Pep440Version {
    /// This version against the plain release `major.minor` in PEP 440's order (`packaging`'s
    /// `_cmpkey`): a pre-release, or a development release that is not a post-release's, is
    /// below its release; a post-release or a local version is above it.
    fn cmp_plain(&self, major: u64, minor: u64) -> Ordering {
        if self.epoch {
            return Ordering::Greater;
        }
        match (self.major, self.minor).cmp(&(major, minor)) {
            Ordering::Equal if self.more => Ordering::Greater,
            Ordering::Equal if self.pre || (self.dev && !self.post) => Ordering::Less,
            Ordering::Equal if self.post || self.local => Ordering::Greater,
            order => order,
        }
    }
}

/// Python's `int()` limit on the digits of a string (`sys.get_int_max_str_digits()`).
const INT_MAX_STR_DIGITS: usize = 4300;

/// `Version(version)`: its fast path for digits and dots, else its regular expression
/// (`packaging.version.VERSION_PATTERN` between `\s*`, case-insensitive, every quantifier
/// possessive, so one left-to-right pass decides). No library reads PEP 440 in Rust the way
/// `packaging` does (its whitespace is Python's `str.isspace`, its `int()` has a digit limit).
fn packaging_version(version: &str) -> Release {
    if version.bytes().all(|b| b == b'.' || b.is_ascii_digit()) {
        // One pass over the parts (this runs for every interface of every pick): an empty part
        // is invalid, whatever else; else a part over `int()`'s digit limit raises.
        let mut raises = false;
        let mut release = Pep440Version::default();
        for (i, part) in version.split('.').enumerate() {
            if part.is_empty() {
                return Release::Invalid;
            }
            raises |= part.len() > INT_MAX_STR_DIGITS;
            if raises {
                continue;
            }
            match i {
                0 => release.major = saturating_number(part),
                1 => release.minor = saturating_number(part),
                _ => release.more |= part.bytes().any(|d| d != b'0'),
            }
        }
        return if raises {
            Release::Raises
        } else {
            Release::Valid(release)
        };
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
    let epoch = match at.digits() {
        Some(n) if at.byte(b'!') => saturating_number(n) != 0,
        _ => {
            at.i = start;
            at.numbers.clear();
            false
        }
    };
    let Some(major) = at.digits() else {
        return Release::Invalid;
    };
    let mut minor = None;
    let mut more = false;
    loop {
        let before = at.i;
        if !at.byte(b'.') {
            break;
        }
        match at.digits() {
            Some(n) if minor.is_none() => minor = Some(n),
            Some(n) => more |= n.bytes().any(|d| d != b'0'),
            None => {
                at.i = before;
                break;
            }
        }
    }
    // Pre-release, post-release, development release: each one optional group.
    let pre = at.group(|at| {
        at.separator();
        at.word(&["alpha", "a", "beta", "b", "preview", "pre", "c", "rc"]) && {
            at.separator();
            at.digits();
            true
        }
    });
    let post = at.group(|at| {
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
    let dev = at.group(|at| {
        at.separator();
        at.word(&["dev"]) && {
            at.separator();
            at.digits();
            true
        }
    });
    // Local version: `+` and alphanumeric segments joined by `.`, `_` or `-`.
    let local = at.group(|at| {
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
    Release::Valid(Pep440Version {
        major: saturating_number(major),
        minor: minor.map_or(0, saturating_number),
        epoch,
        more,
        pre,
        post,
        dev,
        local,
    })
}

/// A cursor over a version for [`packaging_version`]: `numbers` holds the length of every
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

    /// An optional group `(...)?+`: kept when `body` matches, else undone; whether it matched.
    fn group(&mut self, body: impl FnOnce(&mut Self) -> bool) -> bool {
        let (i, numbers) = (self.i, self.numbers.len());
        let matched = body(self);
        if !matched {
            self.i = i;
            self.numbers.truncate(numbers);
        }
        matched
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
        if let Some((b, _, _, _)) = reading
            .interfaces
            .iter()
            .find(|(b, _, _, _)| b != binding && !upper_cases_to_ascii(b))
        {
            return Choice::Unknown(b);
        }
    }
    let key = || upper_case(binding);
    let mut chosen: Option<(&str, Url, bool)> = None;
    for (b, version, url, tenanted) in &reading.interfaces {
        let same = if !foldable {
            b == binding
        } else if b.is_ascii() && binding.is_ascii() {
            b.eq_ignore_ascii_case(binding)
        } else {
            upper_cases_to_ascii(b) && upper_case(b).eq(key())
        };
        if same && (chosen.is_none() || version == "1.0") {
            chosen = Some((version, *url, *tenanted));
        }
    }
    chosen.map_or(Choice::NoInterface, |(version, url, tenanted)| {
        match picked(binding, (version, url)) {
            // A `legacyCompat` factory's v0.3 transport sends no tenant either.
            Choice::Picked(version) if tenanted && js_is_legacy_version(version) => {
                Choice::DropsTenant(version)
            }
            Choice::Picked(version) => js_wire(version),
            other => other,
        }
    })
}

/// A pick at `version`, or [`Choice::JsOtherWire`] when a `legacyCompat` transport factory speaks
/// the other generation to it than its `Major.Minor` declares (`isLegacyVersion`, the factory's
/// test, against [`declares_v0_3`]). A transport factory without `legacyCompat` speaks 1.0 to
/// every pick, which is the caller's configuration (DESIGN.md).
fn js_wire(version: &str) -> Choice<'_> {
    match declares_v0_3(version) {
        Some(declared) if declared != js_is_legacy_version(version) => {
            Choice::JsOtherWire(version, !declared)
        }
        _ => Choice::Picked(version),
    }
}

/// Where the clients of the SDKs before 1.0 send each binding. They read only a card's v0.3
/// members (`url`, `preferredTransport`, `additionalInterfaces`), never `supportedInterfaces`,
/// so a caller that names `protocol:0.3` (it may be one of them) is served a binding only when
/// every one of them sends it to one url, which serves it ([`V03Clients::serves`]):
///
/// - a2a-sdk 0.3.26, `ClientFactory.create` on pydantic's `AgentCard`: `{preferred_transport or
///   "JSONRPC": url}` updated with each `additional_interfaces` entry's `{transport: url}`; names
///   compared exactly, the last entry of a name wins, an empty url raises. pydantic takes the
///   camelCase member when it is there (even `null`), else the snake_case one; `url` is required.
/// - @a2a-js/sdk 0.3.14, `ClientFactory.createFromAgentCard` on the card as fetched
///   (camelCase only): `preferredTransport ?? "JSONRPC"`, `additionalInterfaces ?? []`, names
///   through `toUpperCase`, the last entry of a name wins, no client for a falsy url. A card its
///   resolver takes for proto JSON (`isProtoAgentCard`, 0.3.11 on) is converted first
///   (`AgentCard.fromJSON`, then `FromProto.agentCard`: `v03_proto_entries`), while 0.3.7 to
///   0.3.10 use it as fetched, so on such a card both readings must send a binding to one url.
/// - @a2a-js/sdk 0.3.x's `A2AClient` (JSON-RPC only): `url`, whatever `preferredTransport` says.
///
/// Such a caller's `capability:extendedAgentCard` also needs the v0.3 flag
/// `supportsAuthenticatedExtendedCard`, without which neither 0.3 client fetches the extended
/// card, and its `capability:pushNotifications` needs `capabilities.pushNotifications` itself
/// (`A2AClient` tests that member of the card as fetched, never `push_notifications`). A card
/// a2a-sdk 0.3's resolver refuses ([`crate::v03_card_model`]) leaves a caller on it without a
/// card: its `protocol:0.3` is not covered. Checked against the real 0.3 clients by
/// `tests/sdk_parity/v03_picks.py`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V03Clients {
    /// For each of [`V03_BINDINGS`], whether every 0.3 client sends it to one url that serves
    /// it, or why not. Decided when the card is read: the view keeps no copy of the members.
    served: [Result<(), V03Miss>; 3],
    /// `supportsAuthenticatedExtendedCard` is `true`: only then does either 0.3 client fetch
    /// the extended card (`get_card()`, `getAgentCard()`); v0.3 has no `capabilities` member for it.
    pub extended_card: bool,
    /// `capabilities.pushNotifications` is `true`: what `A2AClient`'s push-notification calls
    /// test on the card as fetched (a2a-sdk 0.3's pydantic takes that member first too). On a
    /// proto-shaped card the 1.x readings also take `push_notifications`, which it never reads.
    pub push_notifications: bool,
    /// Why the resolver of a2a-sdk 0.3 or of @a2a-js/sdk 0.3 refuses the card, naming it
    /// ([`crate::v03_card_model`]), or `None` when both read it: a caller on it then has no
    /// card, hence none of its capabilities.
    pub refusal: Option<Cow<'static, str>>,
}

/// Why the 0.3 clients do not serve a binding, for the decision's message.
#[derive(Debug, Clone, PartialEq, Eq)]
enum V03Miss {
    /// This SDK's client has no url for it (it refuses the members, or none names the binding).
    NoUrl(&'static str),
    /// a2a-sdk's and @a2a-js/sdk's factories send it to these different urls.
    Apart(String, String),
    /// @a2a-js/sdk's factory sends it to the first url from the card as fetched (0.3.7 to
    /// 0.3.10) and to the second from the card converted from proto JSON (0.3.11 on).
    JsApart(String, String),
    /// Both factories send JSON-RPC to this url, `A2AClient` to the card's `url`.
    NotA2AClients(String),
    /// Every client sends it to this url, which does not serve it.
    Unusable(String, &'static str),
}

impl Default for V03Clients {
    /// A card without `url`: a2a-sdk 0.3's pydantic model refuses it, no binding is served, nor
    /// the extended card (`V03Clients::of` still reads the push-notification flag).
    fn default() -> V03Clients {
        V03Clients {
            served: [const { Err(V03Miss::NoUrl("a2a-sdk")) }; 3],
            extended_card: false,
            push_notifications: false,
            refusal: Some(Cow::Borrowed(crate::v03_card_model::NO_URL)),
        }
    }
}

/// The bindings the 0.3 clients have transports for.
const V03_BINDINGS: [&str; 3] = ["JSONRPC", "HTTP+JSON", "GRPC"];

impl V03Clients {
    /// The v0.3 members of `doc` as each client reads them (their JSON types are checked by
    /// the card's shape first). A card without a string `url` (every v1.0-only card) is read
    /// by none.
    pub fn of(doc: Node<'_>) -> V03Clients {
        // Read with or without `url`, as the 1.x readings read the flag.
        let push_notifications = flag(
            doc.get("capabilities")
                .and_then(|c| c.get("pushNotifications")),
        );
        let Some(url) = doc.get("url").and_then(Node::as_str) else {
            return V03Clients {
                push_notifications,
                refusal: crate::v03_card_model::refusal(doc),
                ..V03Clients::default()
            };
        };
        let python = v03_entries(
            either(Some(doc), "preferredTransport", "preferred_transport"),
            url,
            either(Some(doc), "additionalInterfaces", "additional_interfaces"),
            true,
        );
        let js = v03_entries(
            doc.get("preferredTransport"),
            url,
            doc.get("additionalInterfaces"),
            false,
        );
        let converted = js_is_proto(doc).then(|| v03_proto_entries(doc, url));
        let served = V03_BINDINGS.map(|binding| {
            let python = v03_last(&python, binding, false).ok_or(V03Miss::NoUrl("a2a-sdk"))?;
            let js = v03_last(&js, binding, true).ok_or(V03Miss::NoUrl("@a2a-js/sdk"))?;
            if let Some(converted) = &converted {
                let from_proto =
                    v03_last(converted, binding, true).ok_or(V03Miss::NoUrl("@a2a-js/sdk"))?;
                if from_proto != js {
                    return Err(V03Miss::JsApart(js.to_owned(), from_proto.to_owned()));
                }
            }
            if python != js {
                return Err(V03Miss::Apart(python.to_owned(), js.to_owned()));
            }
            if binding == "JSONRPC" && python != url {
                return Err(V03Miss::NotA2AClients(python.to_owned()));
            }
            match Url::of_str(python).unusable_because(binding) {
                Some(why) => Err(V03Miss::Unusable(python.to_owned(), why)),
                None => Ok(()),
            }
        });
        V03Clients {
            served,
            // camelCase is a boolean or null (the card's shape), and pydantic takes it first.
            extended_card: flag(doc.get("supportsAuthenticatedExtendedCard")),
            push_notifications,
            refusal: crate::v03_card_model::refusal(doc),
        }
    }

    /// Whether every 0.3 client sends `binding` to one url that serves it.
    pub fn serves(&self, binding: &str) -> bool {
        self.verdict(binding).is_ok()
    }

    /// Why the 0.3 clients do not serve `binding`, for the decision's message (`None` when they do).
    pub fn why_not(&self, binding: &str) -> Option<String> {
        Some(match self.verdict(binding).err()? {
            None => format!("the v0.3 clients have no {binding:?} transport"),
            Some(V03Miss::NoUrl(sdk)) => format!(
                "{sdk} 0.3 reads no url for it from the card's v0.3 members (url, preferredTransport, additionalInterfaces)"
            ),
            Some(V03Miss::Apart(python, js)) => {
                format!("a2a-sdk 0.3 sends it to {python:?} and @a2a-js/sdk 0.3 to {js:?}")
            }
            Some(V03Miss::JsApart(fetched, converted)) => format!(
                "@a2a-js/sdk 0.3 sends it to {fetched:?} from the card as fetched (0.3.7 to 0.3.10) and to {converted:?} from the card its resolver converts from proto JSON (0.3.11 on)"
            ),
            Some(V03Miss::NotA2AClients(url)) => format!(
                "the ClientFactory of both 0.3 SDKs sends it to {url:?} and @a2a-js/sdk 0.3's A2AClient to the card's url"
            ),
            Some(V03Miss::Unusable(url, why)) => {
                format!("the 0.3 clients send it to {url:?}, {why}")
            }
        })
    }

    /// `Ok` when the 0.3 clients serve `binding`; else its miss, or `None` for a binding they
    /// have no transport for.
    fn verdict(&self, binding: &str) -> Result<(), Option<&V03Miss>> {
        let i = V03_BINDINGS.iter().position(|b| *b == binding);
        match i.and_then(|i| self.served.get(i)) {
            Some(Ok(())) => Ok(()),
            Some(Err(miss)) => Err(Some(miss)),
            None => Err(None),
        }
    }

    /// About the heap bytes held, for [`crate::card::AgentCard::heap_bytes`].
    pub fn heap_bytes(&self) -> usize {
        self.served
            .iter()
            .map(|s| match s {
                Err(V03Miss::Apart(a, b) | V03Miss::JsApart(a, b)) => a.capacity() + b.capacity(),
                Err(V03Miss::NotA2AClients(u) | V03Miss::Unusable(u, _)) => u.capacity(),
                _ => 0,
            })
            .sum::<usize>()
            + match &self.refusal {
                Some(Cow::Owned(why)) => why.capacity(),
                _ => 0,
            }
    }
}

/// The url of the last of `entries` named `binding` (through `toUpperCase` when `upper`, as
/// @a2a-js/sdk compares), unless it is empty (no client).
fn v03_last<'d>(
    entries: &Option<Vec<(&str, &'d str)>>,
    binding: &str,
    upper: bool,
) -> Option<&'d str> {
    let (_, url) = entries.as_ref()?.iter().rev().find(|(t, _)| {
        if upper {
            upper_cases_to_ascii(t) && upper_case(t).eq(binding.bytes())
        } else {
            *t == binding
        }
    })?;
    Some(*url).filter(|u| !u.is_empty())
}

/// One 0.3 factory's entries: the preferred transport with `url`, then each additional
/// interface; `None` when the reader refuses them. `python`: a2a-sdk's pydantic reading (`null`
/// or `""` is `"JSONRPC"`, every entry needs a string transport and url); else @a2a-js/sdk's
/// (`null` is `"JSONRPC"`, `""` stays, a missing url is no url, a missing transport throws).
fn v03_entries<'d>(
    preferred: Option<Node<'d>>,
    url: &'d str,
    additional: Option<Node<'d>>,
    python: bool,
) -> Option<Vec<(&'d str, &'d str)>> {
    let preferred = match preferred {
        None => "JSONRPC",
        Some(v) if v.is_null() => "JSONRPC",
        Some(v) => match v.as_str()? {
            "" if python => "JSONRPC",
            s => s,
        },
    };
    let mut entries = vec![(preferred, url)];
    if let Some(list) = additional.filter(|v| !v.is_null()) {
        for item in list.items()? {
            let transport = item.get("transport").and_then(Node::as_str)?;
            let url = match item.get("url").and_then(Node::as_str) {
                Some(u) => u,
                None if python => return None,
                None => "",
            };
            entries.push((transport, url));
        }
    }
    Some(entries)
}

/// @a2a-js/sdk 0.3.11 on: the entries of a proto-shaped card as its resolver converts it
/// (`AgentCard.fromJSON`, generated by ts-proto, then `FromProto.agentCard`). A member is set
/// unless absent or `null`; camelCase first, then snake_case (a list only when it is an array);
/// an unset preferred transport is `""`, which the factory's `?? "JSONRPC"` keeps; an unset
/// transport or url is `""`. `fromJSON` turns any other value into a string with `String()`
/// (`["JSONRPC"]` is `"JSONRPC"`): `None` (nothing served) for any non-string, and for an entry
/// that is not an object.
fn v03_proto_entries<'d>(doc: Node<'d>, url: &'d str) -> Option<Vec<(&'d str, &'d str)>> {
    let text = |v: Option<Node<'d>>| match v {
        None => Some(""),
        Some(v) => v.as_str(),
    };
    let preferred = text(proto_member(
        doc,
        "preferredTransport",
        "preferred_transport",
    ))?;
    let mut entries = vec![(preferred, url)];
    let list = ["additionalInterfaces", "additional_interfaces"]
        .into_iter()
        .find_map(|name| doc.get(name).and_then(Node::items));
    for item in list.into_iter().flatten() {
        // An entry that is not an object: `fromJSON` reads `null` as a TypeError.
        item.members()?;
        let transport = text(item.get("transport").filter(|v| !v.is_null()))?;
        let url = text(item.get("url").filter(|v| !v.is_null()))?;
        entries.push((transport, url));
    }
    Some(entries)
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
pub(crate) fn upper_cases_to_ascii(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_ascii() || UPPER_TO_ASCII.iter().any(|(k, _)| *k == c))
}

/// The bytes of `s` upper-cased, for a string [`upper_cases_to_ascii`] accepts.
pub(crate) fn upper_case(s: &str) -> impl Iterator<Item = u8> + '_ {
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
                .map(|(b, v)| {
                    (
                        Cow::Owned(b.to_string()),
                        Cow::Owned(v.to_string()),
                        Url::PlainBase,
                        false,
                    )
                })
                .collect(),
            ..Reading::default()
        }
    }

    /// The current a2a-sdk client's pick.
    fn py<'r>(r: &'r Reading, binding: &str) -> Choice<'r> {
        python(r, binding, PY_CLIENTS[0])
    }

    /// `(major, minor)` of a valid version, for comparing with what `packaging` gives.
    fn major_minor_of(release: Release) -> Result<(u64, u64), Release> {
        match release {
            Release::Valid(v) => Ok((v.major, v.minor)),
            other => Err(other),
        }
    }

    #[test]
    fn python_prefers_1_0_then_above_then_0_3_then_unversioned() {
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", "2.0"), ("JSONRPC", "1.0.0")]);
        assert_eq!(py(&r, "JSONRPC"), Choice::Picked("1.0.0"));
        let r = reading(&[("JSONRPC", ""), ("JSONRPC", "0.3"), ("JSONRPC", "1.1")]);
        assert_eq!(py(&r, "JSONRPC"), Choice::Picked("1.1"));
        let r = reading(&[("JSONRPC", ""), ("JSONRPC", "0.2"), ("JSONRPC", "0.3.0")]);
        assert_eq!(py(&r, "JSONRPC"), Choice::Picked("0.3.0"));
        let r = reading(&[("JSONRPC", "0.2"), ("JSONRPC", ""), ("JSONRPC", "1..0")]);
        assert_eq!(py(&r, "JSONRPC"), Choice::Picked(""));
        let r = reading(&[("JSONRPC", "0.2"), ("JSONRPC", "1.")]);
        assert_eq!(py(&r, "JSONRPC"), Choice::NoInterface);
        // "1" and "01.0" are 1.0 to packaging.
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", "01")]);
        assert_eq!(py(&r, "JSONRPC"), Choice::Picked("01"));
        // Exact binding names only.
        let r = reading(&[("jsonrpc", "1.0")]);
        assert_eq!(py(&r, "JSONRPC"), Choice::NoInterface);
    }

    #[test]
    fn python_speaks_v0_3_exactly_where_packaging_reads_0_3_to_1_0() {
        // a2a-sdk's producers take the v0.3 transport for 0.3 <= v < 1.0 (checked with the real
        // ClientFactory: CompatJsonRpcTransport for the first four, JsonRpcTransport for the rest).
        for v in ["1.0.0-rc.1", "1.0.0-alpha", "1.0.0-dev", "1.0.0-dev.1"] {
            let r = reading(&[("JSONRPC", v)]);
            assert_eq!(py(&r, "JSONRPC"), Choice::OtherWire(v, true), "{v}");
            assert!(serves(Sdk::Python, &r, "JSONRPC", &[]), "{v}");
            assert!(!serves(Sdk::Python, &r, "JSONRPC", &["1.0"]), "{v}");
        }
        for v in [
            "1.0", "1.0.0", "1.0.0+x", "1.0.0-0", "0.3", "0.3.0+x", "0.9.9",
        ] {
            let r = reading(&[("JSONRPC", v)]);
            assert_eq!(py(&r, "JSONRPC"), Choice::Picked(v), "{v}");
        }
        // Below 0.3 to packaging but 0.3 to the gate: the 1.0 transport.
        let r = reading(&[("JSONRPC", "0.3.0-dev")]);
        assert_eq!(py(&r, "JSONRPC"), Choice::OtherWire("0.3.0-dev", false));
        assert!(!serves(Sdk::Python, &r, "JSONRPC", &["0.3"]));
        // No Major.Minor to the gate: an ordinary pick, which serves no protocol anyway.
        let r = reading(&[("JSONRPC", "1.0rc1")]);
        assert_eq!(py(&r, "JSONRPC"), Choice::Picked("1.0rc1"));
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
            let got = major_minor_of(packaging_version(version));
            assert_eq!(got, want.ok_or(Release::Invalid), "{version:?}");
        }
        let long = "0".repeat(4301);
        for version in [
            format!("1.{long}"),
            format!("v1.{long}"),
            format!("1.0rc{long}"),
            format!("1.0+{long}"),
        ] {
            assert_eq!(
                packaging_version(&version),
                Release::Raises,
                "{version:.12}"
            );
        }
        // A refused part wins over a long one on the fast path; a long letter segment is no number.
        assert_eq!(packaging_version(&format!("{long}..1")), Release::Invalid);
        assert_eq!(
            major_minor_of(packaging_version(&format!("1.0+a{long}"))),
            Ok((1, 0))
        );
        assert_eq!(
            major_minor_of(packaging_version(&"0".repeat(4300))),
            Ok((0, 0))
        );
        // The limit is the same off the fast path: 4300 digits are read, 4301 raise.
        for version in [
            format!("v1.{}", "0".repeat(4300)),
            format!("1.0rc{}", "0".repeat(4300)),
        ] {
            assert_eq!(
                major_minor_of(packaging_version(&version)),
                Ok((1, 0)),
                "{version:.12}"
            );
        }
        assert_eq!(
            major_minor_of(packaging_version("99999999999999999999999.0")),
            Ok((u64::MAX, 0))
        );
        // The factory: "v1.0" is 1.0 to it; a ValueError leaves no client at all.
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", "v1.0")]);
        assert_eq!(py(&r, "JSONRPC"), Choice::Picked("v1.0"));
        let long_version = format!("1.{long}");
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", &long_version)]);
        assert_eq!(py(&r, "JSONRPC"), Choice::NoInterface);
        let r = reading(&[("JSONRPC", "1.0"), ("JSONRPC", &long_version)]);
        assert_eq!(py(&r, "JSONRPC"), Choice::Picked("1.0"));
    }

    #[test]
    fn every_a2a_sdk_client_picks_as_the_real_factory_does() {
        // The index each client's real `_find_best_interface` picked (None: no interface), in
        // PY_CLIENTS' order: a2a-sdk 1.3.0 with packaging 26.4, 1.0.0 with 26.4, 1.3.0 with
        // 24.0, 1.0.0 with 24.0 (Python 3.11; every interface JSONRPC, urls by index).
        let cases: &[(&[&str], [Option<usize>; 4])] = &[
            (&["0.3", "1.0.0"], [Some(1), Some(0), Some(1), Some(0)]),
            (&["1.0.0", "1.1"], [Some(0), Some(1), Some(0), Some(1)]),
            (
                &["1.0.0", "1.0.post1"],
                [Some(0), Some(1), Some(0), Some(1)],
            ),
            (&["1.0.0", "1.0"], [Some(0), Some(1), Some(0), Some(1)]),
            (&["0.3rc1"], [Some(0), None, Some(0), None]),
            (&["0.3rc1", "0.3.0"], [Some(0), Some(1), Some(0), Some(1)]),
            (&["1", "1.0"], [Some(0), Some(1), Some(0), Some(1)]),
            (
                &["0.3", "1.0.po\u{17f}t1"],
                [Some(0), Some(0), Some(1), Some(1)],
            ),
            (
                &["0.3", "1.0+\u{212a}"],
                [Some(0), Some(0), Some(1), Some(1)],
            ),
            (
                &["0.3", "1.0prev\u{131}ew1"],
                [Some(0), Some(0), Some(1), Some(0)],
            ),
            (&["0.3", "1.\u{130}"], [Some(0), Some(0), Some(0), Some(0)]),
            (&["1.0.0", "1.0+x"], [Some(0), Some(1), Some(0), Some(1)]),
            (&["1.0.0", "1.0.0.1"], [Some(0), Some(1), Some(0), Some(1)]),
            (&["1.0.0", "1!0.1"], [Some(0), Some(1), Some(0), Some(1)]),
            (&["1.0.0", "0!1.0.1"], [Some(0), Some(1), Some(0), Some(1)]),
            (&["0.3", "1.0.dev1"], [Some(1), Some(0), Some(1), Some(0)]),
            (
                &["0.3", "1.0.post1.dev1"],
                [Some(1), Some(1), Some(1), Some(1)],
            ),
            (
                &["0.3", "1.0rc1.post1"],
                [Some(1), Some(0), Some(1), Some(0)],
            ),
            (&["0.2", "0.3.dev1"], [Some(1), None, Some(1), None]),
            (&["0.2", "0.3-1"], [Some(1), Some(1), Some(1), Some(1)]),
            (&["", "0.2"], [Some(0), Some(0), Some(0), Some(0)]),
            (&["0.3", "1.0-1"], [Some(1), Some(1), Some(1), Some(1)]),
            (
                &["0.3", "1.0.0+local"],
                [Some(1), Some(1), Some(1), Some(1)],
            ),
            (
                &["1", "1.00000000000000000000000000000000000000000000001"],
                [Some(0), Some(1), Some(0), Some(1)],
            ),
        ];
        for (versions, want) in cases {
            let r = reading(&versions.iter().map(|v| ("JSONRPC", *v)).collect::<Vec<_>>());
            for (client, want) in PY_CLIENTS.iter().zip(want) {
                let got = match python(&r, "JSONRPC", *client) {
                    Choice::Picked(v) | Choice::OtherWire(v, _) => {
                        versions.iter().position(|x| *x == v)
                    }
                    Choice::NoInterface | Choice::Unknown(_) => None,
                    Choice::JsOtherWire(v, _) => {
                        panic!("a2a-sdk's pick is not @a2a-js/sdk's: {v:?}")
                    }
                    Choice::UnusableUrl(v, _) => {
                        panic!("every interface here has a url, not {v:?}")
                    }
                    Choice::DropsTenant(v) => panic!("no interface here names a tenant: {v:?}"),
                };
                assert_eq!(got, *want, "{versions:?} {:?}", client.label);
            }
        }
        // Before 1.2.3 every version is read unless an exact "1.0" comes first: a part past
        // `int()`'s limit leaves no client, where 1.3.0 stops at "1".
        let long = format!("1.{}", "0".repeat(4301));
        let r = reading(&[("JSONRPC", "1"), ("JSONRPC", &long)]);
        assert_eq!(python(&r, "JSONRPC", PY_CLIENTS[0]), Choice::Picked("1"));
        assert_eq!(python(&r, "JSONRPC", PY_CLIENTS[1]), Choice::NoInterface);
        let r = reading(&[("JSONRPC", &long), ("JSONRPC", "1.0")]);
        assert_eq!(python(&r, "JSONRPC", PY_CLIENTS[0]), Choice::NoInterface);
        assert_eq!(python(&r, "JSONRPC", PY_CLIENTS[1]), Choice::Picked("1.0"));
        // A client with old packaging is asked only when a version holds one of its letters.
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", "1.0.0")]);
        assert_eq!(choices(Sdk::Python, &r, "JSONRPC").count(), 2);
        let r = reading(&[
            ("JSONRPC", "0.3"),
            ("JSONRPC", "1.0+\u{212a}"),
            ("GRPC", "1.0"),
        ]);
        assert_eq!(choices(Sdk::Python, &r, "JSONRPC").count(), 4);
        assert_eq!(choices(Sdk::Python, &r, "GRPC").count(), 2);
        // Served only when every client serves: the old rule sends a 1.0 caller to 0.3 here.
        let r = reading(&[("JSONRPC", "0.3"), ("JSONRPC", "1.0.0")]);
        assert!(serves(Sdk::Python, &r, "JSONRPC", &[]));
        assert!(!serves(Sdk::Python, &r, "JSONRPC", &["1.0"]));
        assert!(!serves(Sdk::Python, &r, "JSONRPC", &["0.3"]));
        let message = unserved(&[(Sdk::Python, r)], "JSONRPC", &["1.0"]);
        assert_eq!(
            message.as_deref(),
            Some("a2a-sdk (Python), versions 1.0.0 to 1.2.2: its client picks the interface with protocolVersion \"0.3\" for it, not one at protocol:1.0")
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

    #[test]
    fn js_legacy_compat_transport_speaks_by_is_legacy_version() {
        // Number.parseInt of a minor of 309 digits and more is not finite: isLegacyVersion says
        // no, and the legacyCompat transport factory speaks 1.0 to a version declaring 0.x.
        let long = format!("0.{}", "9".repeat(309));
        let r = reading(&[("JSONRPC", long.as_str())]);
        assert_eq!(js(&r, "JSONRPC"), Choice::JsOtherWire(long.as_str(), false));
        let mm = major_minor(&long).unwrap_or_default();
        assert!(serves(Sdk::JsDefault, &r, "JSONRPC", &[]));
        assert!(!serves(Sdk::JsLegacyCompat, &r, "JSONRPC", &[mm]));
        let message = unserved(&[(Sdk::JsDefault, r.clone())], "JSONRPC", &[mm]);
        assert!(message.is_some_and(|m| m.contains(
            "its legacyCompat transport speaks v1.0 to it (isLegacyVersion reads that version outside 0.3 <= v < 1.0)"
        )));
        // One digit fewer is a finite double: v0.3, as declared (and as a2a-sdk speaks it).
        let short = format!("0.{}", "9".repeat(308));
        let r = reading(&[("JSONRPC", short.as_str())]);
        assert_eq!(js(&r, "JSONRPC"), Choice::Picked(short.as_str()));
        // A major past the range is not v0.3 either way.
        let big = format!("{}.3", "9".repeat(400));
        let r = reading(&[("JSONRPC", big.as_str()), ("HTTP+JSON", "0.3.0-rc.1")]);
        assert_eq!(js(&r, "JSONRPC"), Choice::Picked(big.as_str()));
        assert_eq!(js(&r, "HTTP+JSON"), Choice::Picked("0.3.0-rc.1"));
    }

    #[test]
    fn a_v0_3_pick_with_a_tenant_serves_nothing_to_a2a_sdk() {
        let r = |list: &[(&str, bool)]| Reading {
            interfaces: list
                .iter()
                .map(|(v, t)| {
                    (
                        Cow::Borrowed("JSONRPC"),
                        Cow::Owned(v.to_string()),
                        Url::PlainBase,
                        *t,
                    )
                })
                .collect(),
            ..Reading::default()
        };
        // a2a-sdk's v0.3 transports send no tenant: the agent's default tenant gets the request.
        for v in ["0.3", "0.3.0", "0.9", "1.0rc1", "1.0.dev0"] {
            let card = r(&[(v, true)]);
            assert_eq!(py(&card, "JSONRPC"), Choice::DropsTenant(v), "{v}");
            assert!(!serves(Sdk::Python, &card, "JSONRPC", &[]), "{v}");
            assert!(unserved(&[(Sdk::Python, card.clone())], "JSONRPC", &[])
                .is_some_and(|m| m.contains("carry no tenant")));
            assert!(
                serves(Sdk::Python, &r(&[(v, false)]), "JSONRPC", &[]),
                "{v}"
            );
        }
        // At 1.0 the tenant goes in the request; the pick is the first of its version string.
        for card in [
            r(&[("1.0", true)]),
            r(&[("1.0", false), ("0.3", true)]),
            r(&[("0.3", false), ("0.3", true)]),
        ] {
            assert!(serves(Sdk::Python, &card, "JSONRPC", &[]));
        }
        assert!(!serves(
            Sdk::Python,
            &r(&[("0.3", true), ("0.3", false)]),
            "JSONRPC",
            &[]
        ));
        // @a2a-js/sdk's legacyCompat transports drop it too; `1.0rc1` is not legacy there.
        assert_eq!(
            js(&r(&[("0.3", true)]), "JSONRPC"),
            Choice::DropsTenant("0.3")
        );
        assert_eq!(
            js(&r(&[("0.3", true), ("1.0", false)]), "JSONRPC"),
            Choice::Picked("1.0")
        );
        assert_eq!(
            js(&r(&[("1.0rc1", true)]), "JSONRPC"),
            Choice::Picked("1.0rc1")
        );
    }

    #[test]
    fn a_pick_without_a_url_serves_nothing() {
        let r = |list: &[(&str, &str, Url)]| Reading {
            interfaces: list
                .iter()
                .map(|(b, v, url)| {
                    (
                        Cow::Owned(b.to_string()),
                        Cow::Owned(v.to_string()),
                        *url,
                        false,
                    )
                })
                .collect(),
            ..Reading::default()
        };
        // The interface each client picks decides, not whether some interface has a url.
        let (with, none) = (Url::PlainBase, Url::Missing);
        let picked_urlless = r(&[("JSONRPC", "0.3", with), ("JSONRPC", "1.0", none)]);
        for sdk in [Sdk::Python, Sdk::JsDefault] {
            for (_, choice) in choices(sdk, &picked_urlless, "JSONRPC") {
                assert_eq!(choice, Choice::UnusableUrl("1.0", none), "{sdk:?}");
            }
            assert!(!serves(sdk, &picked_urlless, "JSONRPC", &[]), "{sdk:?}");
            assert!(!usable(sdk, &picked_urlless, "JSONRPC"), "{sdk:?}");
        }
        let other_urlless = r(&[("JSONRPC", "0.3", none), ("JSONRPC", "1.0", with)]);
        for sdk in [Sdk::Python, Sdk::JsDefault] {
            assert!(serves(sdk, &other_urlless, "JSONRPC", &["1.0"]), "{sdk:?}");
        }
        // @a2a-js/sdk takes the last exact "1.0", a2a-sdk 1.3.0 the first 1.0.
        let two = r(&[("JSONRPC", "1.0", none), ("JSONRPC", "1.0", with)]);
        assert_eq!(js(&two, "JSONRPC"), Choice::Picked("1.0"));
        assert_eq!(py(&two, "JSONRPC"), Choice::UnusableUrl("1.0", none));
        assert!(!serves(Sdk::Python, &two, "JSONRPC", &[]));
        assert!(serves(Sdk::JsDefault, &two, "JSONRPC", &[]));
        let message = unserved(&[(Sdk::Python, two.clone())], "JSONRPC", &["1.0"]);
        assert!(
            message
                .as_deref()
                .is_some_and(|m| m.ends_with("which has no url")),
            "{message:?}"
        );
    }

    /// Whether a pre-1.0 resolver refuses the card, with or without a string `url`.
    #[test]
    fn v03_clients_keep_why_a_pre_1_0_resolver_refuses_the_card() {
        let refusal = |card: &str| {
            let doc = crate::json::parse_document(card.as_bytes(), 64).unwrap();
            V03Clients::of(doc.root())
                .refusal
                .map(|why| why.into_owned())
        };
        let rest = r#""name":"W","description":"d","version":"1","capabilities":{},
            "defaultInputModes":[],"defaultOutputModes":[],"skills":[]"#;
        let why = |what: &str| Some(format!("a2a-sdk 0.3 refuses the card: /url {what}"));
        assert_eq!(refusal(&format!("{{{rest}}}")), why("is required"));
        assert_eq!(
            refusal(&format!(r#"{{"url":null,{rest}}}"#)),
            why("is null")
        );
        assert_eq!(
            refusal(&format!(r#"{{"url":5,{rest}}}"#)),
            why("is not a string")
        );
        assert_eq!(refusal(&format!(r#"{{"url":"https://a",{rest}}}"#)), None);
        assert_eq!(
            refusal(&format!(
                r#"{{"url":"https://a",{}}}"#,
                rest.replace(r#""skills":[]"#, r#""skills":[{}]"#)
            )),
            Some("a2a-sdk 0.3 refuses the card: /skills/0/id is required".into())
        );
    }

    /// The v0.3 members of a card as each pre-1.0 client reads them (the real clients:
    /// tests/sdk_parity/v03_picks.py).
    #[test]
    fn v03_clients_send_a_binding_to_one_url() {
        let clients = |card: &str| {
            let doc = crate::json::parse_document(card.as_bytes(), 64).unwrap();
            V03Clients::of(doc.root())
        };
        // Served: every 0.3 client sends the binding to one url (which one is in the messages
        // below and in tests/sdk_parity/v03_picks.py's comparison with the real clients).
        let ok = |card: &str, binding: &str| {
            let c = clients(card);
            assert!(
                c.serves(binding),
                "{card} {binding}: {:?}",
                c.why_not(binding)
            );
            assert_eq!(c.why_not(binding), None, "{card} {binding}");
        };
        let refused = |card: &str, binding: &str, why: &str| {
            let c = clients(card);
            let got = c.why_not(binding);
            assert!(!c.serves(binding), "{card} {binding}");
            assert!(
                got.as_ref().is_some_and(|m| m.contains(why)),
                "{card} {binding}: {got:?}"
            );
        };
        // No url: no 0.3 client reads the card.
        refused(
            r#"{"preferredTransport":"JSONRPC"}"#,
            "JSONRPC",
            "a2a-sdk 0.3 reads no url",
        );
        ok(r#"{"url":"https://a/x"}"#, "JSONRPC");
        ok(
            r#"{"url":"https://a/x","preferredTransport":null}"#,
            "JSONRPC",
        );
        // `or` against `??`: "" is JSONRPC to a2a-sdk only.
        refused(
            r#"{"url":"https://a/x","preferredTransport":""}"#,
            "JSONRPC",
            "@a2a-js/sdk 0.3 reads no url",
        );
        // pydantic takes camelCase first, even null; @a2a-js/sdk never reads snake_case.
        ok(
            r#"{"url":"https://a/x","preferredTransport":null,"preferred_transport":"GRPC"}"#,
            "JSONRPC",
        );
        refused(
            r#"{"url":"g:1","preferred_transport":"GRPC"}"#,
            "GRPC",
            "@a2a-js/sdk 0.3 reads no url",
        );
        refused(
            r#"{"url":"g:1","preferred_transport":7}"#,
            "GRPC",
            "a2a-sdk 0.3 reads no url",
        );
        // The last entry of a name wins; names are exact to a2a-sdk, upper-cased to @a2a-js/sdk.
        let later = r#"{"url":"g:1","preferredTransport":"GRPC","additionalInterfaces":[{"transport":"GRPC","url":"g:2"}]}"#;
        ok(later, "GRPC");
        refused(later, "JSONRPC", "a2a-sdk 0.3 reads no url");
        let lower = r#"{"url":"https://a/x","additionalInterfaces":[{"transport":"jsonrpc","url":"https://a/y"}]}"#;
        refused(
            lower,
            "JSONRPC",
            "sends it to \"https://a/x\" and @a2a-js/sdk 0.3 to \"https://a/y\"",
        );
        // `toUpperCase` makes U+017F an S: @a2a-js/sdk reads this entry as JSONRPC, a2a-sdk does not.
        let long_s = "{\"url\":\"https://a/x\",\"additionalInterfaces\":[{\"transport\":\"J\u{17f}ONRPC\",\"url\":\"https://a/y\"}]}";
        refused(long_s, "JSONRPC", "@a2a-js/sdk 0.3 to \"https://a/y\"");
        // A2AClient sends JSON-RPC to `url` whatever the factories pick.
        let grpc_first = r#"{"url":"g:1","preferredTransport":"GRPC","additionalInterfaces":[{"transport":"JSONRPC","url":"https://a/j"}]}"#;
        refused(grpc_first, "JSONRPC", "A2AClient");
        ok(grpc_first, "GRPC");
        // An entry without url: a2a-sdk's pydantic refuses; without transport both do (`toUpperCase`
        // of undefined throws).
        refused(
            r#"{"url":"https://a/x","additionalInterfaces":[{"transport":"GRPC"}]}"#,
            "JSONRPC",
            "a2a-sdk 0.3 reads no url",
        );
        refused(
            r#"{"url":"https://a/x","additionalInterfaces":[{"url":"g:1"}]}"#,
            "JSONRPC",
            "reads no url",
        );
        ok(
            r#"{"url":"https://a/x","additionalInterfaces":null,"additional_interfaces":[{"transport":"GRPC","url":"g:1"}]}"#,
            "JSONRPC",
        );
        // The url must serve the binding; a name no 0.3 client has a transport for serves nothing.
        refused(
            r#"{"url":" https://a/x"}"#,
            "JSONRPC",
            "not a plain absolute URL",
        );
        refused(
            r#"{"url":"https://a/r?x=1","preferredTransport":"HTTP+JSON"}"#,
            "HTTP+JSON",
            "join to their paths differently",
        );
        ok(
            r#"{"url":"https://a/r/","preferredTransport":"HTTP+JSON"}"#,
            "HTTP+JSON",
        );
        refused(
            r#"{"url":"k:1","preferredTransport":"KAFKA"}"#,
            "KAFKA",
            "no \"KAFKA\" transport",
        );
        // The extended card: only the v0.3 flag makes a 0.3 client fetch it.
        let flag = |card: &str| {
            let doc = crate::json::parse_document(card.as_bytes(), 64).unwrap();
            V03Clients::of(doc.root()).extended_card
        };
        assert!(flag(
            r#"{"url":"https://a/x","supportsAuthenticatedExtendedCard":true}"#
        ));
        assert!(!flag(
            r#"{"url":"https://a/x","supportsAuthenticatedExtendedCard":null}"#
        ));
        assert!(!flag(
            r#"{"url":"https://a/x","supports_authenticated_extended_card":true}"#
        ));
        assert!(!flag(
            r#"{"url":"https://a/x","capabilities":{"extendedAgentCard":true}}"#
        ));
        assert!(!flag(r#"{"supportsAuthenticatedExtendedCard":true}"#));
        // A card @a2a-js/sdk 0.3.11 on takes for proto JSON is converted, and its unset
        // preferred transport is "": 0.3.7 to 0.3.10 (the card as fetched, "JSONRPC" by
        // default) and 0.3.11 on must agree.
        refused(
            r#"{"url":"https://a/x","security":[{"schemes":{}}]}"#,
            "JSONRPC",
            "@a2a-js/sdk 0.3 reads no url",
        );
        ok(
            r#"{"url":"https://a/x","preferredTransport":"JSONRPC","security":[{"schemes":{}}]}"#,
            "JSONRPC",
        );
        let proto = r#""securitySchemes":{"k":{"apiKeySecurityScheme":{}}}"#;
        ok(
            &format!(
                r#"{{"url":"https://a/x","preferredTransport":"JSONRPC",
                "additionalInterfaces":[{{"transport":"HTTP+JSON","url":"https://a/r"}}],{proto}}}"#
            ),
            "HTTP+JSON",
        );
        // Only the conversion reads the snake_case spelling, or a snake_case list behind a
        // camelCase `null`.
        refused(
            &format!(r#"{{"url":"https://a/x","preferred_transport":"GRPC",{proto}}}"#),
            "GRPC",
            "@a2a-js/sdk 0.3 reads no url",
        );
        refused(
            &format!(
                r#"{{"url":"https://a/x","preferredTransport":"JSONRPC","additionalInterfaces":null,
                "additional_interfaces":[{{"transport":"JSONRPC","url":"https://a/y"}}],{proto}}}"#
            ),
            "JSONRPC",
            "to \"https://a/x\" from the card as fetched (0.3.7 to 0.3.10) and to \"https://a/y\"",
        );
        // `String()` would make a list a name: not followed (a2a-sdk takes the camelCase
        // `null`, so "JSONRPC", as does the card as fetched).
        refused(
            &format!(
                r#"{{"url":"https://a/x","preferredTransport":null,"preferred_transport":["GRPC"],
                {proto}}}"#
            ),
            "JSONRPC",
            "@a2a-js/sdk 0.3 reads no url",
        );
        // An entry that is not an object: `fromJSON` throws on `null` (no card, no client);
        // a2a-sdk and the card as fetched take the camelCase `null` and never see it.
        refused(
            &format!(
                r#"{{"url":"https://a/x","preferredTransport":"JSONRPC","additionalInterfaces":null,
                "additional_interfaces":[null],{proto}}}"#
            ),
            "JSONRPC",
            "@a2a-js/sdk 0.3 reads no url",
        );
        // Push notifications: `A2AClient` tests capabilities.pushNotifications alone.
        let push = |card: &str| {
            let doc = crate::json::parse_document(card.as_bytes(), 64).unwrap();
            V03Clients::of(doc.root()).push_notifications
        };
        assert!(push(r#"{"capabilities":{"pushNotifications":true}}"#));
        assert!(!push(r#"{"capabilities":{"push_notifications":true}}"#));
        assert!(!push(
            r#"{"capabilities":{"pushNotifications":null,"push_notifications":true}}"#
        ));
        assert!(!push(r#"{"capabilities":{"pushNotifications":false}}"#));
        assert!(!push(r#"{"pushNotifications":true}"#));
    }
}
