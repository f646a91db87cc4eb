//! Stable reason codes, the conditions they belong to, and the error classes they roll up into.

/// Which part of the invariant a reason belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
// TypeScript `ConditionName` (the package's `Condition` is a condition's outcome).
#[cfg_attr(feature = "js", derive(tsify::Tsify), tsify(type_suffix = "Name"))]
pub enum Condition {
    /// (b) freshness: watermark within tolerance, or the pinned hash. Checked first.
    #[serde(rename = "b")]
    Freshness,
    /// (a) version floor.
    #[serde(rename = "a")]
    Version,
    /// (c) capability superset.
    #[serde(rename = "c")]
    Capabilities,
    /// The card itself could not be read.
    #[serde(rename = "card")]
    Card,
}

impl Condition {
    /// `"a"`, `"b"`, `"c"` or `"card"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Condition::Version => "a",
            Condition::Freshness => "b",
            Condition::Capabilities => "c",
            Condition::Card => "card",
        }
    }
}

/// The class of a rejection: what the caller should do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// The card may be out of date: re-resolve (from the primary) before delegating.
    StaleAgentCard,
    /// The card is current but does not offer what the caller will invoke.
    CapabilityMismatch,
    /// The card could not be read.
    MalformedCard,
}

impl ErrorClass {
    /// `stale_agent_card`, `capability_mismatch` or `malformed_card`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::StaleAgentCard => "stale_agent_card",
            ErrorClass::CapabilityMismatch => "capability_mismatch",
            ErrorClass::MalformedCard => "malformed_card",
        }
    }
    /// The HTTP status a proxy answers with: 503, 409 or 502.
    pub fn status(self) -> u16 {
        match self {
            ErrorClass::StaleAgentCard => 503,
            ErrorClass::CapabilityMismatch => 409,
            ErrorClass::MalformedCard => 502,
        }
    }
    /// The RFC 9457 `title`.
    pub fn title(self) -> &'static str {
        match self {
            ErrorClass::StaleAgentCard => "Stale Agent Card",
            ErrorClass::CapabilityMismatch => "Agent Card Capability Mismatch",
            ErrorClass::MalformedCard => "Malformed Agent Card",
        }
    }
}

macro_rules! reason_codes {
    ($($variant:ident => $code:literal, $cond:ident, $doc:literal;)*) => {
        /// A stable, machine-readable reason a condition failed.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
        #[cfg_attr(feature = "js", derive(tsify::Tsify))]
        pub enum ReasonCode {
            $(#[doc = $doc] #[serde(rename = $code)] $variant,)*
        }
        impl ReasonCode {
            /// Every code, in documentation order.
            pub const ALL: &'static [ReasonCode] = &[$(ReasonCode::$variant,)*];
            /// The snake_case code.
            pub fn as_str(self) -> &'static str {
                match self { $(ReasonCode::$variant => $code,)* }
            }
            /// The condition this code fails.
            pub fn condition(self) -> Condition {
                match self { $(ReasonCode::$variant => Condition::$cond,)* }
            }
        }
    };
}

reason_codes! {
    VersionBelowMinimum => "version_below_minimum", Version, "card version < min_version";
    VersionIncomparable => "version_incomparable", Version, "card version cannot be ordered";
    FreshnessUnverifiable => "freshness_unverifiable", Freshness, "no replica-lag source and no pin";
    ToleranceMissing => "tolerance_missing", Freshness, "no max_stale and no pin";
    WatermarkInvalid => "watermark_invalid", Freshness, "a watermark value does not parse, or is negative or non-finite";
    WatermarkContradictory => "watermark_contradictory", Freshness, "lag sources disagree by more than 1000 ms";
    LeaderUnknown => "leader_unknown", Freshness, "Consul reports no known leader";
    ClockMissing => "clock_missing", Freshness, "a timestamp watermark without a clock";
    WatermarkInFuture => "watermark_in_future", Freshness, "last sync later than now plus the skew allowance";
    WatermarkExceeded => "watermark_exceeded", Freshness, "staleness above max_stale";
    PinnedHashMismatch => "pinned_hash_mismatch", Freshness, "card hash differs from the pin";
    CardNameMismatch => "card_name_mismatch", Freshness, "card name differs from the requirement's card_name";
    CapabilitiesMissing => "capabilities_missing", Capabilities, "required capabilities not declared";
    BodyEmpty => "body_empty", Card, "empty body";
    BodyTooLarge => "body_too_large", Card, "body larger than max_card_bytes";
    InvalidUtf8 => "invalid_utf8", Card, "body is not UTF-8";
    JsonSyntax => "json_syntax", Card, "body is not JSON";
    TrailingData => "trailing_data", Card, "data after the JSON document";
    DuplicateMember => "duplicate_member", Card, "an object repeats a member name";
    LoneSurrogate => "lone_surrogate", Card, "a surrogate escape without its pair";
    NumberOutOfRange => "number_out_of_range", Card, "a number that is not a finite double";
    TooDeep => "too_deep", Card, "nesting deeper than the limit";
    NotAnObject => "not_an_object", Card, "top level is not an object";
    MissingField => "missing_field", Card, "a member the gate needs is absent";
    WrongType => "wrong_type", Card, "a member the gate reads has the wrong type";
    AmbiguousMember => "ambiguous_member", Card, "a member spelled both in camelCase and in snake_case, or under a name a2a-sdk reads as that member";
    SdkRefusesCard => "sdk_refuses_card", Card, "an A2A SDK refuses to read the card";
    SourceUnavailable => "source_unavailable", Card, "no source answered with a card";
    BodyEncoded => "body_encoded", Card, "body has a Content-Encoding the gate cannot read";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn design_md_lists_every_reason_code_with_its_condition() {
        let design = include_str!("../DESIGN.md");
        for code in ReasonCode::ALL {
            let row = format!("| `{}` | {} |", code.as_str(), code.condition().as_str());
            assert!(
                design.contains(&row),
                "DESIGN.md lacks the row starting {row}"
            );
        }
        let rows = design
            .lines()
            .filter(|l| l.starts_with("| `") && l.contains("` | "))
            .count();
        assert!(rows >= ReasonCode::ALL.len());
    }

    #[test]
    fn serde_names_are_the_stable_strings() {
        let name = |v: serde_json::Value| v.as_str().map(str::to_owned);
        for code in ReasonCode::ALL {
            let got = name(serde_json::to_value(code).unwrap());
            assert_eq!(got.as_deref(), Some(code.as_str()));
            let cond = code.condition();
            let got = name(serde_json::to_value(cond).unwrap());
            assert_eq!(got.as_deref(), Some(cond.as_str()));
        }
        for class in [
            ErrorClass::StaleAgentCard,
            ErrorClass::CapabilityMismatch,
            ErrorClass::MalformedCard,
        ] {
            let got = name(serde_json::to_value(class).unwrap());
            assert_eq!(got.as_deref(), Some(class.as_str()));
        }
    }
}
