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
    /// Numeric components with leading zeros removed (so "007" is "7").
    components: Vec<String>,
    /// Pre-release identifiers; empty for a release.
    pre_release: Vec<String>,
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

fn strip_zeros(s: &str) -> String {
    let t = s.trim_start_matches('0');
    if t.is_empty() {
        "0".into()
    } else {
        t.into()
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
        let fail = |reason| IncomparableVersion {
            text: text.to_string(),
            reason,
        };
        if text.is_empty() {
            return Err(fail("it is empty"));
        }
        let (core_and_pre, build) = match text.split_once('+') {
            Some((c, b)) => (c, Some(b)),
            None => (text, None),
        };
        let (core, pre) = match core_and_pre.split_once('-') {
            Some((c, p)) => (c, Some(p)),
            None => (core_and_pre, None),
        };
        let components: Vec<&str> = core.split('.').collect();
        if !components.iter().all(|c| is_digits(c)) {
            return Err(fail(
                "expected dot-separated whole numbers (like 7, 1.2 or 1.2.0) or SemVer",
            ));
        }
        let ident_ok =
            |id: &str| !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        let mut pre_release = Vec::new();
        if pre.is_some() || build.is_some() {
            if components.len() != 3 {
                return Err(fail(
                    "a pre-release or build suffix needs exactly three numeric components (SemVer)",
                ));
            }
            if let Some(p) = pre {
                for id in p.split('.') {
                    if !ident_ok(id) {
                        return Err(fail("bad SemVer pre-release identifier"));
                    }
                    if id.len() > 1 && id.starts_with('0') && is_digits(id) {
                        return Err(fail(
                            "SemVer forbids leading zeros in numeric pre-release identifiers",
                        ));
                    }
                    pre_release.push(id.to_string());
                }
            }
            if let Some(b) = build {
                if !b.split('.').all(ident_ok) {
                    return Err(fail("bad SemVer build metadata"));
                }
            }
        }
        Ok(Version {
            text: text.to_string(),
            components: components.iter().map(|c| strip_zeros(c)).collect(),
            pre_release,
        })
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

fn cmp_identifiers(a: &str, b: &str) -> Ordering {
    match (is_digits(a), is_digits(b)) {
        (true, true) => cmp_numeric(&strip_zeros(a), &strip_zeros(b)),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => a.cmp(b),
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        let n = self.components.len().max(other.components.len());
        for i in 0..n {
            let a = self.components.get(i).map_or("0", String::as_str);
            let b = other.components.get(i).map_or("0", String::as_str);
            match cmp_numeric(a, b) {
                Ordering::Equal => {}
                unequal => return unequal,
            }
        }
        match (self.pre_release.is_empty(), other.pre_release.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => {
                for (a, b) in self.pre_release.iter().zip(&other.pre_release) {
                    match cmp_identifiers(a, b) {
                        Ordering::Equal => {}
                        unequal => return unequal,
                    }
                }
                self.pre_release.len().cmp(&other.pre_release.len())
            }
        }
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
    }

    #[test]
    fn integers_of_any_length() {
        assert!(v("10") > v("9"));
        assert!(v("123456789012345678901234567890") > v("123456789012345678901234567889"));
        assert_eq!(v("007"), v("7"));
        assert!(v("7") < v("7.1"));
        assert_eq!(v("1.2"), v("1.2.0.0"));
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
