//! Ordering of Agent Card `version` strings against a caller's minimum.
//!
//! A2A leaves the format of `version` to the provider. The gate orders what it can order without
//! guessing: dotted numeric versions (`7`, `1.2`, `2.0.0.1`), compared component by component as
//! integers of any length with missing components counting as 0, and SemVer 2.0.0 (exactly three
//! components, then an optional `-pre.release` and `+build`). Everything else is not comparable,
//! and an incomparable card version fails condition (a).

use std::cmp::Ordering;
use std::fmt;

/// A version the gate can order.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct Version {
    text: String,
    /// Where its parts are in `text`.
    parts: Parts,
}

/// Where a version's parts sit in its text: the numeric components are `text[..core]`, the
/// pre-release identifiers `text[core + 1..pre]` when `pre > core` (none for a release), and a
/// build suffix, which orders nothing, follows. Kept as offsets so that parsing and comparing
/// allocate nothing (a card's version is compared on every evaluation).
#[derive(Debug, Clone, Copy)]
struct Parts {
    core: usize,
    pre: usize,
}

/// A version's text with its [`Parts`], borrowed.
#[derive(Clone, Copy)]
struct View<'a> {
    text: &'a str,
    parts: Parts,
}

impl<'a> View<'a> {
    fn components(self) -> std::str::Split<'a, char> {
        self.text
            .get(..self.parts.core)
            .unwrap_or_default()
            .split('.')
    }

    fn pre_release(self) -> Option<std::str::Split<'a, char>> {
        (self.parts.pre > self.parts.core).then(|| {
            self.text
                .get(self.parts.core + 1..self.parts.pre)
                .unwrap_or_default()
                .split('.')
        })
    }
}

/// Why a version string cannot be ordered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncomparableVersion {
    /// The text that was given.
    pub text: String,
    /// Why it cannot be ordered.
    pub reason: &'static str,
}

impl fmt::Display for IncomparableVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "version {:?} is not comparable: {}",
            self.text, self.reason
        )
    }
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// A whole number's digits without leading zeros (`"0"` for zero).
fn strip_zeros(s: &str) -> &str {
    let t = s.trim_start_matches('0');
    if t.is_empty() {
        "0"
    } else {
        t
    }
}

fn cmp_numeric(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

impl Version {
    /// Parses `text`, or says why it is not comparable.
    ///
    /// ```
    /// use cardgate::version::Version;
    /// let v = |s| Version::parse(s).unwrap();
    /// assert!(v("10") > v("9"));
    /// assert!(v("1.2") == v("1.2.0"));
    /// assert!(v("2.0.0-rc.1") < v("2.0.0"));
    /// assert!(Version::parse("latest").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Version, IncomparableVersion> {
        match parts(text) {
            Ok(parts) => Ok(Version {
                text: text.to_string(),
                parts,
            }),
            Err(reason) => Err(IncomparableVersion {
                text: text.to_string(),
                reason,
            }),
        }
    }

    /// Whether the version spelled `text` orders before `min` (without copying `text`), or why
    /// it is not comparable: `Version::parse(text).map(|v| v < *min)`.
    pub(crate) fn is_below(text: &str, min: &Version) -> Result<bool, IncomparableVersion> {
        match parts(text) {
            Ok(parts) => Ok(compare(View { text, parts }, min.view()) == Ordering::Less),
            Err(reason) => Err(IncomparableVersion {
                text: text.to_string(),
                reason,
            }),
        }
    }

    fn view(&self) -> View<'_> {
        View {
            text: &self.text,
            parts: self.parts,
        }
    }

    /// The text as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl TryFrom<String> for Version {
    type Error = crate::input_error::RangeMessage;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        Version::parse(&text).map_err(|e| crate::input_error::RangeMessage(e.to_string()))
    }
}

impl schemars::JsonSchema for Version {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "version".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A card version the gate can order: dot-separated whole numbers (7, 1.2, 2.0.0.1) or SemVer 2.0.0.",
            "pattern": "^(?:[0-9]+(?:\\.[0-9]+)*|[0-9]+\\.[0-9]+\\.[0-9]+(?:-(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?)(?![\\s\\S])"
        })
    }
}

/// Where the parts of `text` are, or why it is not comparable.
fn parts(text: &str) -> Result<Parts, &'static str> {
    if text.is_empty() {
        return Err("it is empty");
    }
    let (core_and_pre, build) = match text.split_once('+') {
        Some((c, b)) => (c, Some(b)),
        None => (text, None),
    };
    let (core, pre) = match core_and_pre.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (core_and_pre, None),
    };
    if !core.split('.').all(is_digits) {
        return Err("expected dot-separated whole numbers (like 7, 1.2 or 1.2.0) or SemVer");
    }
    let ident_ok =
        |id: &str| !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if pre.is_some() || build.is_some() {
        if core.split('.').count() != 3 {
            return Err(
                "a pre-release or build suffix needs exactly three numeric components (SemVer)",
            );
        }
        if let Some(p) = pre {
            for id in p.split('.') {
                if !ident_ok(id) {
                    return Err("bad SemVer pre-release identifier");
                }
                if id.len() > 1 && id.starts_with('0') && is_digits(id) {
                    return Err("SemVer forbids leading zeros in numeric pre-release identifiers");
                }
            }
        }
        if let Some(b) = build {
            if !b.split('.').all(ident_ok) {
                return Err("bad SemVer build metadata");
            }
        }
    }
    Ok(Parts {
        core: core.len(),
        pre: core_and_pre.len(),
    })
}

fn cmp_identifiers(a: &str, b: &str) -> Ordering {
    match (is_digits(a), is_digits(b)) {
        (true, true) => cmp_numeric(strip_zeros(a), strip_zeros(b)),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => a.cmp(b),
    }
}

/// SemVer precedence, with any number of numeric components (missing ones count as 0).
fn compare(a: View<'_>, b: View<'_>) -> Ordering {
    let (mut xs, mut ys) = (a.components(), b.components());
    loop {
        let (x, y) = match (xs.next(), ys.next()) {
            (None, None) => break,
            (x, y) => (x.unwrap_or("0"), y.unwrap_or("0")),
        };
        match cmp_numeric(strip_zeros(x), strip_zeros(y)) {
            Ordering::Equal => {}
            unequal => return unequal,
        }
    }
    match (a.pre_release(), b.pre_release()) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(mut xs), Some(mut ys)) => loop {
            match (xs.next(), ys.next()) {
                (Some(x), Some(y)) => match cmp_identifiers(x, y) {
                    Ordering::Equal => {}
                    unequal => return unequal,
                },
                (x, y) => return x.is_some().cmp(&y.is_some()),
            }
        },
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        compare(self.view(), other.view())
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    #[test]
    fn semver_precedence_chain() {
        // SemVer 2.0.0 §11 example chain.
        let chain = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
        ];
        for w in chain.windows(2) {
            assert!(v(w[0]) < v(w[1]), "{} < {}", w[0], w[1]);
        }
        assert_eq!(v("1.0.0+build.1"), v("1.0.0+other"));
        assert_ne!(v("1.0.0"), v("1.0.0-rc.1"));
        assert_ne!(v("1.0.0"), v("1.0.1"));
    }

    /// A numeric first pre-release identifier is ordered as a number (§11.4.1), not as text:
    /// a floor of `1.0.0-10` refuses a card at `1.0.0-2`.
    #[test]
    fn first_pre_release_identifier_numeric() {
        assert!(v("1.0.0-2") < v("1.0.0-10"));
        assert!(v("1.0.0-9.z") < v("1.0.0-10.a"));
        assert_eq!(Version::is_below("1.0.0-2", &v("1.0.0-10")), Ok(true));
        assert_eq!(Version::is_below("1.0.0-10", &v("1.0.0-2")), Ok(false));
    }

    #[test]
    fn display() {
        assert_eq!(v("007.1.0-rc+b").to_string(), "007.1.0-rc+b");
        let e = Version::parse("latest").unwrap_err();
        assert_eq!(e.text, "latest");
        assert_eq!(
            e.to_string(),
            format!("version \"latest\" is not comparable: {}", e.reason)
        );
    }

    #[test]
    fn integers_of_any_length() {
        assert!(v("10") > v("9"));
        assert!(v("123456789012345678901234567890") > v("123456789012345678901234567889"));
        assert_eq!(v("007"), v("7"));
        assert!(v("7") < v("7.1"));
        assert_eq!(v("1.2"), v("1.2.0.0"));
    }

    /// `is_below` (the gate's check, nothing copied) says what parsing and ordering say.
    #[test]
    fn is_below_agrees_with_the_order() {
        let texts = [
            "7",
            "7.0",
            "007",
            "7.3.1",
            "7.3.1-rc.1",
            "7.3.1-rc.1+b",
            "7.3.1+b",
            "10",
            "6.99",
            "0",
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-11",
            "1.0.0-2",
            "latest",
            "",
            "1.2-beta",
        ];
        for card in texts {
            for min in texts.iter().filter_map(|t| Version::parse(t).ok()) {
                let expected = Version::parse(card).map(|v| v < min);
                assert_eq!(Version::is_below(card, &min), expected, "{card:?} < {min}");
            }
        }
    }

    #[test]
    fn refuses_what_it_cannot_order() {
        for bad in [
            "",
            "latest",
            "v1.2",
            "1.2-beta",
            "2024-01-05",
            " 1.0",
            "1..2",
            "1.",
            ".1",
            "1.0.0-",
            "1.0.0+",
            "1.0.0-a..b",
            "1.0.0-ä",
            "-1",
            "1.0.0-rc.01",
        ] {
            assert!(Version::parse(bad).is_err(), "{bad:?}");
        }
    }
}
