//! What the caller requires of a card: capabilities, a version floor, a staleness tolerance and
//! optionally a pinned hash and the card's expected name.
//!
//! JSON form (every member optional, unknown members refused):
//! `{"require": ["task.execute.v3"], "min_version": "3.0.0", "max_stale": "10s", "pin": "sha256:...",
//!   "pin_mode": "replace", "card_name": "Worker 7"}`

use crate::capability::Capability;
use crate::card_hash::CardHash;
use crate::input_error::{read_typed, RangeMessage};
use crate::json::{self, Value};
use crate::version::Version;
use crate::InputError;

/// The caller's requirement.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Requirement {
    /// The capabilities the caller will invoke, in the order given, without repeats.
    pub require: Vec<Capability>,
    /// The lowest acceptable card version.
    pub min_version: Option<Version>,
    /// The staleness tolerance in milliseconds; `None` means none given, and only a pin passes.
    pub max_stale_ms: Option<u64>,
    /// A card hash pinned out of band; replaces the watermark check unless `pin_mode` says
    /// both must hold.
    pub pin: Option<CardHash>,
    /// How a pin combines with the watermark check; `None` means [`PinMode::Replace`].
    pub pin_mode: Option<PinMode>,
    /// The `name` the card must carry, exactly: whose card the caller expects (checked with
    /// condition (b); `None`: not checked).
    pub card_name: Option<CardName>,
}

/// A card name the caller expects (`card_name`): any non-empty text, compared with the card's
/// `name` code point for code point (no trimming, case folding or Unicode normalization).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct CardName(String);

impl CardName {
    /// Reads a card name: any non-empty text.
    pub fn parse(text: &str) -> Result<CardName, InputError> {
        CardName::try_from(text.to_owned()).map_err(|e| InputError::range_error("", e.0))
    }
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for CardName {
    type Error = RangeMessage;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        if text.is_empty() {
            return Err(RangeMessage(
                "must not be empty (the card's name, exactly as it carries it)".into(),
            ));
        }
        Ok(CardName(text))
    }
}

impl std::fmt::Display for CardName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl schemars::JsonSchema for CardName {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "card_name".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "minLength": 1 })
    }
}

/// How a pinned hash combines with the watermark check (condition (b)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "String")]
pub enum PinMode {
    /// A matching hash passes (b) whatever the watermark says (the default).
    Replace,
    /// A matching hash **and** a watermark within `max_stale` are both required.
    WithWatermark,
}

impl PinMode {
    /// `"replace"` or `"with_watermark"`.
    pub fn as_str(self) -> &'static str {
        match self {
            PinMode::Replace => "replace",
            PinMode::WithWatermark => "with_watermark",
        }
    }
}

impl TryFrom<String> for PinMode {
    type Error = RangeMessage;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        match text.as_str() {
            "replace" => Ok(PinMode::Replace),
            "with_watermark" => Ok(PinMode::WithWatermark),
            other => Err(RangeMessage(format!(
                "must be \"replace\" or \"with_watermark\", found {other:?}"
            ))),
        }
    }
}

impl schemars::JsonSchema for PinMode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "pin_mode".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "enum": ["replace", "with_watermark"] })
    }
}

/// Declares a struct with the requirement's JSON members (and any members given before them),
/// so that the caller's requirement and a policy rule share one definition of those members.
macro_rules! requirement_members {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($extra:tt)* }) => {
        #[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        $(#[$meta])*
        $vis struct $name {
            $($extra)*
            /// Capabilities the caller will invoke. A bare name is a skill id;
            /// `extension:<uri>`, `capability:streaming|pushNotifications|extendedAgentCard`,
            /// `binding:<protocolBinding>`, `protocol:<Major.Minor>`.
            #[serde(default, deserialize_with = "crate::input_error::present")]
            #[schemars(with = "Vec<crate::capability::Capability>")]
            #[cfg_attr(feature = "js", tsify(optional, type = "string[]"))]
            pub require: Option<Vec<crate::capability::Capability>>,
            /// Lowest acceptable card version: dot-separated whole numbers (7, 1.2, 2.0.0.1)
            /// or SemVer 2.0.0.
            #[serde(default, deserialize_with = "crate::input_error::present")]
            #[schemars(with = "crate::version::Version")]
            #[cfg_attr(feature = "js", tsify(optional, type = "string"))]
            pub min_version: Option<crate::version::Version>,
            /// Staleness tolerance: a whole number and a unit, e.g. 250ms, 10s, 2m, 1h (at
            /// most 10 years). Without it only a pinned card passes.
            #[serde(default, deserialize_with = "crate::input_error::present")]
            #[schemars(with = "crate::duration::Millis")]
            #[cfg_attr(feature = "js", tsify(optional, type = "string"))]
            pub max_stale: Option<crate::duration::Millis>,
            /// Card hash pinned out of band (`cardgate hash CARD.json`); replaces the
            /// watermark check unless `pin_mode` is `with_watermark`.
            #[serde(default, deserialize_with = "crate::input_error::present")]
            #[schemars(with = "crate::card_hash::CardHash")]
            #[cfg_attr(feature = "js", tsify(optional, type = "string"))]
            pub pin: Option<crate::card_hash::CardHash>,
            /// How a pin combines with the watermark check: "replace" (default) a matching
            /// pin passes whatever the watermark says; "with_watermark" both are required.
            #[serde(default, deserialize_with = "crate::input_error::present")]
            #[schemars(with = "crate::requirement::PinMode")]
            #[cfg_attr(feature = "js", tsify(optional, type = "\"replace\" | \"with_watermark\""))]
            pub pin_mode: Option<crate::requirement::PinMode>,
            /// The card's expected `name`, exactly (no trimming, case folding or Unicode
            /// normalization): a card whose name differs is refused with condition (b)
            /// (`card_name_mismatch`), so that another agent's card is never taken for this one.
            #[serde(default, deserialize_with = "crate::input_error::present")]
            #[schemars(with = "crate::requirement::CardName")]
            #[cfg_attr(feature = "js", tsify(optional, type = "string"))]
            pub card_name: Option<crate::requirement::CardName>,
        }

        impl $name {
            /// The requirement these members state (capabilities kept once, in order).
            pub fn requirement(&self) -> crate::requirement::Requirement {
                let mut require: Vec<crate::capability::Capability> = Vec::new();
                for cap in self.require.iter().flatten() {
                    if !require.contains(cap) {
                        require.push(cap.clone());
                    }
                }
                crate::requirement::Requirement {
                    require,
                    min_version: self.min_version.clone(),
                    max_stale_ms: self.max_stale.map(|m| m.0),
                    pin: self.pin.clone(),
                    pin_mode: self.pin_mode,
                    card_name: self.card_name.clone(),
                }
            }
        }
    };
}
pub(crate) use requirement_members;

requirement_members! {
    /// The JSON form of a [`Requirement`] (every member optional, unknown members refused):
    /// `{"require": ["task.execute.v3"], "min_version": "3.0.0", "max_stale": "10s",
    /// "pin": "sha256:...", "pin_mode": "replace", "card_name": "Worker 7"}`.
    #[cfg_attr(feature = "js", derive(tsify::Tsify))]
    pub struct RequirementInput {}
}

impl Requirement {
    /// Parses the JSON form ([`RequirementInput`]).
    ///
    /// ```
    /// let r = cardgate::Requirement::from_json(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#).unwrap();
    /// assert_eq!(r.max_stale_ms, Some(10_000));
    /// let e = cardgate::Requirement::from_json(r#"{"max_stale":"10"}"#).unwrap_err();
    /// assert_eq!(e.path, "/max_stale");
    /// ```
    pub fn from_json(text: &str) -> Result<Requirement, InputError> {
        // The strict reader first (duplicate names, lone surrogates, depth...), then the typed one.
        json::parse(text.as_bytes(), 32).map_err(|e| {
            InputError::type_error("", format!("requirement is not valid JSON: {e}"))
        })?;
        Requirement::deserialize_input(&mut serde_json::Deserializer::from_str(text))
    }

    /// Reads the JSON form from any serde Deserializer (for example serde_wasm_bindgen's, for a
    /// JavaScript object); errors name the JSON Pointer of the offending member.
    pub fn deserialize_input<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Requirement, InputError> {
        read_typed::<RequirementInput, D>(d).map(|r| r.requirement())
    }

    /// Reads the JSON form from a parsed value; errors are reported under `prefix`.
    pub fn from_value(value: &Value, prefix: &str) -> Result<Requirement, InputError> {
        Requirement::from_json(&crate::jcs::canonicalize(value)).map_err(|e| e.within(prefix))
    }

    /// Adds a required capability (repeats are kept once).
    pub fn add_capability(&mut self, name: &str) -> Result<(), InputError> {
        let cap = Capability::parse(name)?;
        if !self.require.contains(&cap) {
            self.require.push(cap);
        }
        Ok(())
    }

    /// Sets the version floor; it must itself be comparable.
    pub fn set_min_version(&mut self, text: &str) -> Result<(), InputError> {
        let v = Version::parse(text)
            .map_err(|e| InputError::range_error("", format!("min_version: {e}")))?;
        self.min_version = Some(v);
        Ok(())
    }

    /// Sets the staleness tolerance.
    pub fn set_max_stale_ms(&mut self, ms: u64) {
        self.max_stale_ms = Some(ms);
    }

    /// Pins a card hash.
    pub fn set_pin(&mut self, text: &str) -> Result<(), InputError> {
        self.pin = Some(CardHash::parse(text)?);
        Ok(())
    }

    /// Sets the card's expected name.
    pub fn set_card_name(&mut self, text: &str) -> Result<(), InputError> {
        self.card_name = Some(CardName::parse(text)?);
        Ok(())
    }

    /// Whether a pin must be matched **and** the watermark be within `max_stale`.
    pub fn pin_with_watermark(&self) -> bool {
        self.pin.is_some() && self.pin_mode == Some(PinMode::WithWatermark)
    }

    /// This requirement (a complete rule, such as an operator's) made stricter by the conditions
    /// `other` adds (such as a caller's headers), never looser: the result holds only when both
    /// hold. Capabilities are united and the higher version floor wins. For condition (b),
    /// `other`'s `max_stale` adds a watermark condition and its `pin` adds a hash condition, on
    /// top of this rule's own: a caller's pin never replaces an operator's watermark check, and
    /// a caller's tolerance applies on top of an operator's pin-only rule (the result then has
    /// [`PinMode::WithWatermark`]). What `other` leaves out adds nothing. Two different pins,
    /// or two different card names, cannot both hold: that is an error.
    ///
    /// ```
    /// use cardgate::Requirement;
    /// let operator = Requirement::from_json(r#"{"max_stale":"10s"}"#).unwrap();
    /// let pin = format!(r#"{{"pin":"sha256:{}"}}"#, "a".repeat(64));
    /// let caller = Requirement::from_json(&pin).unwrap();
    /// let both = operator.tighten(&caller).unwrap();
    /// assert!(both.pin_with_watermark());
    /// assert_eq!(both.max_stale_ms, Some(10_000));
    /// ```
    pub fn tighten(&self, other: &Requirement) -> Result<Requirement, InputError> {
        let mut out = self.clone();
        for cap in &other.require {
            if !out.require.contains(cap) {
                out.require.push(cap.clone());
            }
        }
        out.min_version = match (&self.min_version, &other.min_version) {
            (Some(a), Some(b)) => Some(if b > a { b.clone() } else { a.clone() }),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        out.pin = both_or_either(&self.pin, &other.pin, |a, b| {
            InputError::range_error(
                "/pin",
                format!("conflicting pins {a} and {b}: no card can match both"),
            )
        })?;
        out.card_name = both_or_either(&self.card_name, &other.card_name, |a, b| {
            InputError::range_error(
                "/card_name",
                format!(
                    "conflicting card names {:?} and {:?}: no card can carry both",
                    a.as_str(),
                    b.as_str()
                ),
            )
        })?;
        // This rule's watermark condition: none when its own pin replaces the watermark check;
        // otherwise "staleness within max_stale", where no max_stale can never be met.
        let own_watermark = if self.pin.is_some() && !self.pin_with_watermark() {
            None
        } else {
            Some(self.max_stale_ms)
        };
        // The other rule's demand: none when its own pin replaces the watermark check (its
        // `max_stale` is then the alternative to that pin, which the pin kept here decides), so
        // tightening a rule with itself gives the same rule. Never looser than the conjunction.
        let other_watermark = if other.pin.is_some() && !other.pin_with_watermark() {
            None
        } else {
            other.max_stale_ms
        };
        let watermark = match (own_watermark, other_watermark) {
            (None, None) => None,
            (None, Some(b)) => Some(Some(b)),
            (Some(a), None) => Some(a),
            (Some(a), Some(b)) => Some(a.map(|a| a.min(b))),
        };
        match (out.pin.is_some(), watermark) {
            // Pinned, and nothing asks for a watermark: the pin alone decides, as before.
            (true, None) => {}
            (true, Some(max)) => {
                out.max_stale_ms = max;
                out.pin_mode = Some(PinMode::WithWatermark);
            }
            (false, max) => out.max_stale_ms = max.flatten(),
        }
        Ok(out)
    }

    /// This requirement with every member `other` sets replaced by `other`'s (capabilities are
    /// still united). Only for policies that let callers relax rules.
    pub fn overlay(&self, other: &Requirement) -> Requirement {
        let mut out = self.clone();
        for cap in &other.require {
            if !out.require.contains(cap) {
                out.require.push(cap.clone());
            }
        }
        if other.min_version.is_some() {
            out.min_version.clone_from(&other.min_version);
        }
        if other.max_stale_ms.is_some() {
            out.max_stale_ms = other.max_stale_ms;
        }
        if other.pin.is_some() {
            out.pin.clone_from(&other.pin);
        }
        if other.pin_mode.is_some() {
            out.pin_mode = other.pin_mode;
        }
        if other.card_name.is_some() {
            out.card_name.clone_from(&other.card_name);
        }
        out
    }
}

/// A member two requirements must both hold when tightened (a pin, a card name): the one that
/// is set, or the shared value; two different values are `conflict`'s error.
fn both_or_either<T: Clone + PartialEq>(
    a: &Option<T>,
    b: &Option<T>,
    conflict: impl FnOnce(&T, &T) -> InputError,
) -> Result<Option<T>, InputError> {
    match (a, b) {
        (Some(a), Some(b)) if a != b => Err(conflict(a, b)),
        (a, b) => Ok(a.clone().or_else(|| b.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(text: &str) -> Requirement {
        Requirement::from_json(text).unwrap()
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (r#"{"require":"x"}"#, "/require"),
            (r#"{"require":["a",""]}"#, "/require/1"),
            (r#"{"require":["capability:teleport"]}"#, "/require/0"),
            (r#"{"min_version":"latest"}"#, "/min_version"),
            (r#"{"max_stale":10}"#, "/max_stale"),
            (r#"{"pin":"sha256:ABC"}"#, "/pin"),
            (r#"{"maxStale":"1s"}"#, "/maxStale"),
            ("[]", ""),
            ("{", ""),
        ];
        for (text, path) in cases {
            assert_eq!(
                Requirement::from_json(text).unwrap_err().path,
                path,
                "{text}"
            );
        }
    }

    #[test]
    fn strictness_stays() {
        use crate::{InputErrorKind, Observation, Policy};
        // Each is refused before any member is read (a Type error for the whole input).
        for text in [
            r#"{"max_stale":"1s","max_stale":"2s"}"#,
            r#"{"max_stale":"1s","max\u005fstale":"2s"}"#,
            r#"{"require":["a"]} x"#,
            r#"{}{}"#,
            "\u{feff}{}",
            r#"{"require":["\ud800"]}"#,
            r#"{"require":[NaN]}"#,
        ] {
            let e = Requirement::from_json(text).unwrap_err();
            assert_eq!(
                (e.kind, e.path.as_str()),
                (InputErrorKind::Type, ""),
                "{text}"
            );
        }
        for text in [
            r#"{"lag_ms":{"a":1,"a":2}}"#,
            r#"{"lag_ms":1e400}"#,
            r#"{"lag_ms":Infinity}"#,
            r#"{"lag_ms":"\udc00"}"#,
            r#"{"lag_ms":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
        ] {
            let e = Observation::from_json(text).unwrap_err();
            assert_eq!(
                (e.kind, e.path.as_str()),
                (InputErrorKind::Type, ""),
                "{text}"
            );
        }
        let e = Policy::from_json(b"{\"$comment\":\"\xff\"}").unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Type);
        // null is not "absent".
        let e = Requirement::from_json(r#"{"pin":null}"#).unwrap_err();
        assert_eq!((e.kind, e.path.as_str()), (InputErrorKind::Type, "/pin"));
        // Kinds: a wrong type is Type, an unacceptable value Range.
        let e = Requirement::from_json(r#"{"max_stale":"10"}"#).unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Range);
        assert!(e.message.contains("missing unit"), "{e}");
        let e = Requirement::from_json(r#"{"max_stale":10}"#).unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Type);
        assert_eq!(
            Requirement::from_json(r#"{"pin_mode":"both"}"#)
                .unwrap_err()
                .kind,
            InputErrorKind::Range
        );
    }

    #[test]
    fn any_serde_deserializer_reads_the_same_requirement() {
        let value = serde_json::json!({"require": ["a", "b", "a"], "max_stale": "2m", "min_version": "1.2"});
        let r = Requirement::deserialize_input(value).unwrap();
        assert_eq!(
            r,
            req(r#"{"require":["a","b"],"max_stale":"2m","min_version":"1.2"}"#)
        );
        let e =
            Requirement::deserialize_input(serde_json::json!({"require": ["a", 3]})).unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (crate::InputErrorKind::Type, "/require/1")
        );
        let e = Requirement::deserialize_input(serde_json::json!(["10s"])).unwrap_err();
        assert_eq!(e.path, "");
        // Without the strict reader in front, serde's own duplicate check still refuses.
        let mut de =
            serde_json::Deserializer::from_str(r#"{"pin_mode":"replace","pin_mode":"replace"}"#);
        let e = Requirement::deserialize_input(&mut de).unwrap_err();
        assert!(e.message.contains("duplicate"), "{e}");
        let o = crate::Observation::deserialize_input(
            serde_json::json!({"lag_ms": 40000, "lag_s": [1], "now": "2026-01-01T00:00:00Z"}),
        )
        .unwrap();
        assert_eq!(o.lag_ms, Some(crate::WatermarkValue::Number(40000.0)));
        assert!(matches!(o.lag_s, Some(crate::WatermarkValue::Invalid(_))));
        let e = crate::Observation::deserialize_input(serde_json::json!({"now": "yesterday"}))
            .unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (crate::InputErrorKind::Range, "/now")
        );
    }

    /// A requirement value the gate cannot use is refused at its member (a `Range` error), never
    /// read as "no requirement": a malformed pin, an incomparable floor, a tolerance without a
    /// unit. Each accepted neighbour shows the refusal is about the form alone.
    #[test]
    fn unusable_values_are_refused_at_their_member() {
        use crate::InputErrorKind;
        let hex = "0123456789abcdef".repeat(4);
        let refused = [
            // Pins: upper-case hex, one digit short or long, other algorithms, other spellings.
            ("pin", format!("sha256:{}", hex.to_uppercase())),
            ("pin", format!("sha256:{}", &hex[..63])),
            ("pin", format!("sha256:{hex}0")),
            ("pin", format!("SHA256:{hex}")),
            ("pin", format!("sha512:{hex}{hex}")),
            ("pin", format!("sha-256:{hex}")),
            ("pin", format!("sha256: {hex}")),
            ("pin", format!("sha256:{hex} ")),
            ("pin", hex.clone()),
            ("pin", format!("sha256:{}g", &hex[..63])),
            ("pin", String::new()),
            // Floors: whatever a card version could not be.
            ("min_version", String::new()),
            ("min_version", "v1.0".into()),
            ("min_version", " 1.0".into()),
            ("min_version", "1.0 ".into()),
            ("min_version", "1.2-beta".into()),
            ("min_version", "1..2".into()),
            ("min_version", "1.0.0-rc.01".into()),
            ("min_version", "1.0.0+".into()),
            ("min_version", "latest".into()),
            ("min_version", "\u{ff11}.0".into()),
            // Tolerances: a unit is required, whole numbers only, at most 10 years.
            ("max_stale", "10".into()),
            ("max_stale", "10.5s".into()),
            ("max_stale", "-1s".into()),
            ("max_stale", "10 s".into()),
            ("max_stale", "10S".into()),
            ("max_stale", "1d".into()),
            ("max_stale", "PT10S".into()),
            ("max_stale", "87601h".into()),
            ("max_stale", String::new()),
        ];
        for (member, value) in refused {
            let text = format!(
                "{{{}:{}}}",
                serde_json::json!(member),
                serde_json::json!(value)
            );
            let e = Requirement::from_json(&text).unwrap_err();
            assert_eq!(
                (e.kind, e.path.as_str()),
                (InputErrorKind::Range, format!("/{member}").as_str()),
                "{text}: {e}"
            );
        }
        let accepted = req(&format!(
            r#"{{"pin":"sha256:{hex}","min_version":"1.0.0-rc.1+b.7","max_stale":"87600h"}}"#
        ));
        assert_eq!(
            accepted.max_stale_ms,
            Some(crate::duration::MAX_DURATION_MS)
        );
        assert_eq!(accepted.pin.unwrap().as_str(), format!("sha256:{hex}"));
        assert_eq!(req(r#"{"max_stale":"0ms"}"#).max_stale_ms, Some(0));
        // A capability named twice is one requirement (the decision lists it once).
        assert_eq!(req(r#"{"require":["a","b","a"]}"#).require.len(), 2);
    }

    #[test]
    fn card_name_is_exact_text_tightened_and_overlaid() {
        let named = req(r#"{"card_name":"Worker 7","max_stale":"10s"}"#);
        assert_eq!(
            named.card_name.as_ref().map(CardName::as_str),
            Some("Worker 7")
        );
        // Read as given: surrounding spaces and letter case are part of the name.
        let spaced = req(r#"{"card_name":" worker 7 "}"#);
        assert_eq!(
            spaced.card_name.as_ref().map(CardName::as_str),
            Some(" worker 7 ")
        );
        for (text, path) in [
            (r#"{"card_name":""}"#, "/card_name"),
            (r#"{"card_name":7}"#, "/card_name"),
            (r#"{"card_name":null}"#, "/card_name"),
            (r#"{"card_name":["Worker 7"]}"#, "/card_name"),
            (r#"{"cardName":"Worker 7"}"#, "/cardName"),
        ] {
            assert_eq!(
                Requirement::from_json(text).unwrap_err().path,
                path,
                "{text}"
            );
        }
        let empty = Requirement::from_json(r#"{"card_name":""}"#).unwrap_err();
        assert!(
            empty.message.contains("must not be empty"),
            "{}",
            empty.message
        );
        let mut flags = Requirement::default();
        assert!(flags.set_card_name("").is_err());
        flags.set_card_name("Worker 8").unwrap();

        // Tightening: the rule's name stays, a caller's is added, two different names conflict.
        let plain = req(r#"{"max_stale":"10s"}"#);
        assert_eq!(named.tighten(&plain).unwrap().card_name, named.card_name);
        assert_eq!(plain.tighten(&named).unwrap().card_name, named.card_name);
        assert_eq!(named.tighten(&named).unwrap(), named);
        let e = named.tighten(&flags).unwrap_err();
        assert_eq!(e.path, "/card_name");
        assert!(
            e.message.contains(r#""Worker 7" and "Worker 8""#),
            "{}",
            e.message
        );
        // Overlay: a set member replaces, an absent one keeps.
        assert_eq!(named.overlay(&flags).card_name, flags.card_name);
        assert_eq!(named.overlay(&plain).card_name, named.card_name);
    }

    #[test]
    fn names_and_pin_modes_as_text() {
        assert_eq!(CardName::parse("Worker 7").unwrap().to_string(), "Worker 7");
        assert!(CardName::parse("").is_err());
        assert_eq!(PinMode::Replace.as_str(), "replace");
        assert_eq!(PinMode::WithWatermark.as_str(), "with_watermark");
        let pinned = req(&format!(
            r#"{{"pin":"sha256:{}","pin_mode":"with_watermark"}}"#,
            "a".repeat(64)
        ));
        assert!(pinned.pin_with_watermark());
    }

    #[test]
    fn tighten_never_loosens() {
        let policy = req(r#"{"require":["a"],"min_version":"2","max_stale":"10s"}"#);
        let caller = req(r#"{"require":["b"],"min_version":"1","max_stale":"60s"}"#);
        let t = policy.tighten(&caller).unwrap();
        assert_eq!(t.require.len(), 2);
        assert_eq!(t.min_version.unwrap().as_str(), "2");
        assert_eq!(t.max_stale_ms, Some(10_000));
        // The other way round: the caller's floor and tolerance are the stricter ones.
        let strict = req(r#"{"min_version":"2.10","max_stale":"5s"}"#);
        let t = req(r#"{"min_version":"2.9","max_stale":"10s"}"#)
            .tighten(&strict)
            .unwrap();
        assert_eq!(t.min_version.unwrap().as_str(), "2.10");
        assert_eq!(t.max_stale_ms, Some(5_000));
        let none = Requirement::default().tighten(&caller).unwrap();
        assert_eq!(none.max_stale_ms, None);
        let relaxed = policy.overlay(&caller);
        assert_eq!(relaxed.max_stale_ms, Some(60_000));
        // Capabilities are still united, each once.
        let names = |r: &Requirement| r.require.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        assert_eq!(names(&relaxed), ["a", "b"]);
        assert_eq!(names(&relaxed.overlay(&caller)), ["a", "b"]);
        let p1 = req(&format!(r#"{{"pin":"sha256:{}"}}"#, "a".repeat(64)));
        let p2 = req(&format!(r#"{{"pin":"sha256:{}"}}"#, "b".repeat(64)));
        assert!(p1.tighten(&p2).is_err());
        assert!(p1.tighten(&p1).is_ok());
        // Idempotent, also for a pin that replaces a given max_stale.
        for text in [
            format!(r#"{{"pin":"sha256:{}","max_stale":"10s"}}"#, "a".repeat(64)),
            format!(
                r#"{{"pin":"sha256:{}","max_stale":"10s","pin_mode":"with_watermark"}}"#,
                "a".repeat(64)
            ),
            r#"{"max_stale":"10s","min_version":"2","require":["a"]}"#.to_string(),
        ] {
            let r = req(&text);
            let t = r.tighten(&r).unwrap();
            assert_eq!(
                (t.max_stale_ms, t.pin_with_watermark(), &t.pin),
                (r.max_stale_ms, r.pin_with_watermark(), &r.pin),
                "{text}"
            );
        }
    }

    #[test]
    fn a_caller_pin_adds_to_the_operator_watermark() {
        let pin = format!(r#"{{"pin":"sha256:{}"}}"#, "a".repeat(64));
        let caller_pin = req(&pin);
        // Operator tolerance + caller pin: both.
        let t = req(r#"{"max_stale":"10s"}"#).tighten(&caller_pin).unwrap();
        assert!(t.pin_with_watermark());
        assert_eq!(t.max_stale_ms, Some(10_000));
        // Operator without any tolerance: the pin cannot make the watermark check pass.
        let t = Requirement::default().tighten(&caller_pin).unwrap();
        assert!(t.pin_with_watermark());
        assert_eq!(t.max_stale_ms, None);
        // Operator pin-only rule (its inherited max_stale is not consulted) + caller tolerance.
        let op = req(&format!(
            r#"{{"pin":"sha256:{}","max_stale":"30s"}}"#,
            "a".repeat(64)
        ));
        let t = op.tighten(&req(r#"{"max_stale":"60s"}"#)).unwrap();
        assert!(t.pin_with_watermark());
        assert_eq!(t.max_stale_ms, Some(60_000));
        // ... and with nothing from the caller it stays pin-only.
        let t = op.tighten(&Requirement::default()).unwrap();
        assert!(!t.pin_with_watermark());
        let t = op.tighten(&caller_pin).unwrap();
        assert!(!t.pin_with_watermark());
        // Operator pin with watermark + caller tolerance: the smaller one.
        let both = req(&format!(
            r#"{{"pin":"sha256:{}","max_stale":"10s","pin_mode":"with_watermark"}}"#,
            "a".repeat(64)
        ));
        let t = both.tighten(&req(r#"{"max_stale":"60s"}"#)).unwrap();
        assert_eq!(
            (t.max_stale_ms, t.pin_with_watermark()),
            (Some(10_000), true)
        );
        let t = both.tighten(&req(r#"{"max_stale":"2s"}"#)).unwrap();
        assert_eq!(t.max_stale_ms, Some(2_000));
        // Without pins nothing changes: the smaller tolerance, none stays none.
        let t = req(r#"{"max_stale":"10s"}"#)
            .tighten(&req(r#"{"max_stale":"60s"}"#))
            .unwrap();
        assert_eq!((t.max_stale_ms, t.pin), (Some(10_000), None));
        assert_eq!(
            Requirement::default()
                .tighten(&req(r#"{"max_stale":"60s"}"#))
                .unwrap()
                .max_stale_ms,
            None
        );
        assert_eq!(
            Requirement::from_json(r#"{"pin_mode":"both"}"#)
                .unwrap_err()
                .path,
            "/pin_mode"
        );
    }
}
