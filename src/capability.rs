//! Capability names a caller can require, and whether a card declares them.

use crate::card::AgentCard;
use crate::interface_choice;
use crate::sdk_reading::{Reading, Sdk};
use crate::InputError;
use std::fmt;

/// A card flag under `capabilities`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    /// `capabilities.streaming`
    Streaming,
    /// `capabilities.pushNotifications`
    PushNotifications,
    /// `capabilities.extendedAgentCard`
    ExtendedAgentCard,
}

/// One thing the caller will invoke.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "String")]
pub enum Capability {
    /// A bare name: a skill `id`.
    Skill(String),
    /// `extension:<uri>`: a declared extension.
    Extension(String),
    /// `capability:<flag>`: that flag is `true`.
    Flag(Flag),
    /// `binding:<protocolBinding>`: an interface with that binding (at a required protocol
    /// version, when the requirement names any: [`Capability::covered_by`]).
    Binding(String),
    /// `protocol:<Major.Minor>`: an interface speaking that protocol version.
    Protocol(String),
}

impl Capability {
    /// Parses a capability name (see the crate docs for the forms).
    ///
    /// ```
    /// use cardgate::capability::Capability;
    /// assert_eq!(Capability::parse("task.execute.v3").unwrap(), Capability::Skill("task.execute.v3".into()));
    /// assert!(Capability::parse("capability:teleport").is_err());
    /// ```
    pub fn parse(name: &str) -> Result<Capability, InputError> {
        let bad = |why: String| InputError::range_error("", why);
        if name.is_empty() {
            return Err(bad("capability name is empty".into()));
        }
        if let Some(uri) = name.strip_prefix("extension:") {
            if uri.is_empty() {
                return Err(bad("extension: needs a URI".into()));
            }
            return Ok(Capability::Extension(uri.into()));
        }
        if let Some(flag) = name.strip_prefix("capability:") {
            return match flag {
                "streaming" => Ok(Capability::Flag(Flag::Streaming)),
                "pushNotifications" => Ok(Capability::Flag(Flag::PushNotifications)),
                "extendedAgentCard" => Ok(Capability::Flag(Flag::ExtendedAgentCard)),
                _ => Err(bad(format!(
                    "unknown capability flag {flag:?} (known: streaming, pushNotifications, extendedAgentCard)"
                ))),
            };
        }
        if let Some(binding) = name.strip_prefix("binding:") {
            if binding.is_empty() {
                return Err(bad(
                    "binding: needs a protocol binding such as JSONRPC".into()
                ));
            }
            return Ok(Capability::Binding(binding.into()));
        }
        if let Some(version) = name.strip_prefix("protocol:") {
            if major_minor(version) != Some(version) {
                return Err(bad(format!(
                    "protocol: needs a Major.Minor version such as 1.0, found {version:?}"
                )));
            }
            return Ok(Capability::Protocol(version.into()));
        }
        Ok(Capability::Skill(name.into()))
    }

    /// Whether one SDK reading has this capability; `None` for skills and extensions, which
    /// every reading takes as written. A binding needs an interface with exactly that binding
    /// and one that `sdk`'s client picks for it ([`crate::interface_choice`]).
    pub fn in_reading(&self, sdk: Sdk, reading: &Reading) -> Option<bool> {
        match self {
            Capability::Skill(_) | Capability::Extension(_) => None,
            Capability::Flag(Flag::Streaming) => Some(reading.streaming),
            Capability::Flag(Flag::PushNotifications) => Some(reading.push_notifications),
            Capability::Flag(Flag::ExtendedAgentCard) => Some(reading.extended_agent_card),
            Capability::Binding(b) => Some(interface_choice::usable(sdk, reading, b)),
            Capability::Protocol(v) => Some(
                reading
                    .interfaces
                    .iter()
                    .any(|(_, x, _, _)| major_minor(x) == Some(v.as_str())),
            ),
        }
    }

    /// Whether `card` covers this capability for a caller that also requires the protocol
    /// versions `protocols` (the requirement's `protocol:` capabilities that the card declares):
    /// a binding then counts only when, in every SDK reading, the interface that SDK's client
    /// picks for it ([`crate::interface_choice`]) speaks one of those versions, because the
    /// caller invokes that one interface, at its protocol version. Everything else is
    /// [`Capability::declared_by`] (whose bindings already need a pick in every reading). A
    /// caller that names `protocol:0.3` and no other version (`v03_caller`) may be on an SDK
    /// before 1.0, whose clients read only the card's v0.3 members: a binding also needs their
    /// one url, `capability:extendedAgentCard` their flag and `capability:pushNotifications` the
    /// member they read ([`interface_choice::V03Clients`]), and its `protocol:0.3` a card
    /// a2a-sdk 0.3's model accepts ([`crate::v03_card_model`]).
    pub fn covered_by(&self, card: &AgentCard, protocols: &[&str], v03_caller: bool) -> bool {
        self.declared_by(card)
            && match self {
                Capability::Binding(b) if !protocols.is_empty() => {
                    card.readings
                        .iter()
                        .all(|(sdk, r)| interface_choice::serves(*sdk, r, b, protocols))
                        && (!v03_caller || card.v03.serves(b))
                }
                Capability::Flag(Flag::ExtendedAgentCard) => !v03_caller || card.v03.extended_card,
                Capability::Flag(Flag::PushNotifications) => {
                    !v03_caller || card.v03.push_notifications
                }
                // A caller on a pre-1.0 SDK reads no card its resolver refuses.
                Capability::Protocol(_) => !v03_caller || card.v03.refusal.is_none(),
                _ => true,
            }
    }

    /// Whether `card` declares this capability.
    pub fn declared_by(&self, card: &AgentCard) -> bool {
        match self {
            Capability::Skill(id) => card.skill_ids.contains(id),
            Capability::Extension(uri) => card.extension_uris.contains(uri),
            Capability::Flag(Flag::Streaming) => card.streaming,
            Capability::Flag(Flag::PushNotifications) => card.push_notifications,
            Capability::Flag(Flag::ExtendedAgentCard) => card.extended_agent_card,
            Capability::Binding(b) => card.declares_binding(b),
            Capability::Protocol(v) => card.protocols.iter().any(|x| x == v),
        }
    }
}

impl TryFrom<String> for Capability {
    type Error = crate::input_error::RangeMessage;
    fn try_from(name: String) -> Result<Self, Self::Error> {
        Ok(Capability::parse(&name)?)
    }
}

impl schemars::JsonSchema for Capability {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "capability".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A capability the caller will invoke. A bare name is a skill id; extension:<uri>, capability:streaming|pushNotifications|extendedAgentCard, binding:<protocolBinding>, protocol:<Major.Minor>.",
            "minLength": 1,
            "not": {
                "anyOf": [
                    { "pattern": "^capability:(?!(?:streaming|pushNotifications|extendedAgentCard)(?![\\s\\S]))" },
                    { "pattern": "^extension:(?![\\s\\S])" },
                    { "pattern": "^binding:(?![\\s\\S])" },
                    { "pattern": "^protocol:(?![0-9]+\\.[0-9]+(?![\\s\\S]))" }
                ]
            }
        })
    }
}

/// `"1.0"` of `"1.0"`, `"1.0.1"` or `"0.3.0"`; `None` unless it starts with digits.digits
/// (and, after a second `.`, digits up to a `-`, a `+` or the end). One pass over the bytes.
pub(crate) fn major_minor(version: &str) -> Option<&str> {
    let bytes = version.as_bytes();
    // The length of the run of ASCII digits at `from`.
    let digits_from = |from: usize| {
        bytes
            .get(from..)
            .map_or(0, |s| s.iter().take_while(|b| b.is_ascii_digit()).count())
    };
    let major = digits_from(0);
    if major == 0 || bytes.get(major) != Some(&b'.') {
        return None;
    }
    let minor = digits_from(major + 1);
    let end = major + 1 + minor;
    if minor == 0 {
        return None;
    }
    match bytes.get(end) {
        None => {}
        Some(b'.') => {
            let patch = digits_from(end + 1);
            if patch == 0 || !matches!(bytes.get(end + 1 + patch), None | Some(b'-' | b'+')) {
                return None;
            }
        }
        Some(_) => return None,
    }
    version.get(..end)
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Capability::Skill(id) => f.write_str(id),
            Capability::Extension(uri) => write!(f, "extension:{uri}"),
            Capability::Flag(Flag::Streaming) => f.write_str("capability:streaming"),
            Capability::Flag(Flag::PushNotifications) => {
                f.write_str("capability:pushNotifications")
            }
            Capability::Flag(Flag::ExtendedAgentCard) => {
                f.write_str("capability:extendedAgentCard")
            }
            Capability::Binding(b) => write!(f, "binding:{b}"),
            Capability::Protocol(v) => write!(f, "protocol:{v}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_versions_compare_by_major_minor() {
        assert_eq!(major_minor("1.0"), Some("1.0"));
        assert_eq!(major_minor("0.3.0"), Some("0.3"));
        assert_eq!(major_minor("1"), None);
        assert_eq!(major_minor("1.x"), None);
        // The splitting reading it replaces, on versions of every shape around the dots.
        let split = |version: &str| -> Option<String> {
            let mut parts = version.splitn(3, '.');
            let (major, minor) = (parts.next()?, parts.next()?);
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            if !digits(major) || !digits(minor) {
                return None;
            }
            if let Some(rest) = parts.next() {
                if !digits(rest.split(['-', '+']).next().unwrap_or_default()) {
                    return None;
                }
            }
            Some(format!("{major}.{minor}"))
        };
        let pieces = [
            "", "1", "12", "x", ".", "-", "+", "1-", "2+b", "3x", "é", "04",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for version in [
                        format!("{a}.{b}.{c}"),
                        format!("{a}.{b}{c}"),
                        format!("{a}{b}.{c}"),
                    ] {
                        let got = major_minor(&version).map(str::to_owned);
                        assert_eq!(got, split(&version), "{version:?}");
                    }
                }
            }
        }
        assert!(Capability::parse("protocol:1.0.0").is_err());
        assert!(Capability::parse("protocol:1").is_err());
        assert_eq!(
            Capability::parse("urn:x:skill").unwrap(),
            Capability::Skill("urn:x:skill".into())
        );
        assert!(Capability::parse("").is_err());
    }
}
