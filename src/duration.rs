//! Staleness tolerances as operators write them: `250ms`, `10s`, `2m`, `1h`.

use crate::input_error::RangeMessage;
use crate::InputError;

/// The largest tolerance accepted: 10 years, in milliseconds (Consul's "any staleness").
pub const MAX_DURATION_MS: u64 = 10 * 365 * 24 * 3_600_000;

/// Parses a duration into milliseconds: ASCII digits followed by `ms`, `s`, `m` or `h`.
///
/// ```
/// use cardgate::duration::parse_duration;
/// assert_eq!(parse_duration("250ms").unwrap(), 250);
/// assert_eq!(parse_duration("2m").unwrap(), 120_000);
/// assert!(parse_duration("10").is_err());
/// assert!(parse_duration("1.5s").is_err());
/// ```
pub fn parse_duration(text: &str) -> Result<u64, InputError> {
    let bad = |why: &str| {
        InputError::range_error(
            "",
            format!("invalid duration {text:?}: {why} (write e.g. 250ms, 10s, 2m, 1h)"),
        )
    };
    let digits_end = text
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(digits_end);
    if digits.is_empty() {
        return Err(bad("no leading whole number"));
    }
    let scale: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "" => return Err(bad("missing unit")),
        _ => return Err(bad("unknown unit")),
    };
    let value: u64 = digits.parse().map_err(|_| bad("number too large"))?;
    match value.checked_mul(scale) {
        Some(ms) if ms <= MAX_DURATION_MS => Ok(ms),
        _ => Err(bad("longer than 10 years")),
    }
}

/// A duration as read from a JSON string such as `"10s"`, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct Millis(pub u64);

impl TryFrom<String> for Millis {
    type Error = RangeMessage;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        Ok(Millis(parse_duration(&text)?))
    }
}

impl schemars::JsonSchema for Millis {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "duration".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A whole number and a unit: 250ms, 10s, 2m, 1h (at most 10 years).",
            "pattern": "^[0-9]+(?:ms|s|m|h)(?![\\s\\S])"
        })
    }
}

/// Formats milliseconds the way [`parse_duration`] reads them, in the largest exact unit.
pub fn format_duration(ms: u64) -> String {
    let mut out = String::new();
    push_duration(&mut out, ms);
    out
}

/// Appends [`format_duration`]`(ms)` to `out`.
pub(crate) fn push_duration(out: &mut String, ms: u64) {
    for (unit, scale) in [("h", 3_600_000), ("m", 60_000), ("s", 1_000)] {
        if ms != 0 && ms.is_multiple_of(scale) {
            crate::json::push_whole(out, ms / scale);
            out.push_str(unit);
            return;
        }
    }
    crate::json::push_whole(out, ms);
    out.push_str("ms");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_each_unit_and_refuses_junk() {
        assert_eq!(parse_duration("0s").unwrap(), 0);
        assert_eq!(parse_duration("10s").unwrap(), 10_000);
        assert_eq!(parse_duration("1h").unwrap(), 3_600_000);
        for bad in [
            "",
            "s",
            "-1s",
            "+1s",
            "1.5s",
            "10 s",
            " 10s",
            "10S",
            "1d",
            "99999999999999999999s",
            "87600h1",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert!(parse_duration("87601h").is_err());
    }

    #[test]
    fn formats_round_trip() {
        for ms in [0, 250, 10_000, 120_000, 3_600_000, 1_500] {
            assert_eq!(parse_duration(&format_duration(ms)).unwrap(), ms);
        }
        // In the largest unit that is exact.
        let texts: Vec<String> = [0, 250, 10_000, 90_000, 120_000, 3_600_000, 5_400_000, 1_500]
            .into_iter()
            .map(format_duration)
            .collect();
        assert_eq!(
            texts,
            ["0ms", "250ms", "10s", "90s", "2m", "1h", "90m", "1500ms"]
        );
    }
}
