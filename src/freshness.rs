//! Freshness: turning what a resolver reported into one staleness figure, or a reason it cannot.
//!
//! A2A carries no replication watermark, so the gate reads the ones registries and caches
//! already send (see `DESIGN.md`): replica lag in ms or s, a last-sync timestamp, Consul's
//! `X-Consul-LastContact` with `X-Consul-KnownLeader`, and HTTP `Age`. Staleness is the replica
//! lag plus the time the answer then spent in caches. Anything missing, malformed, negative,
//! non-finite or contradictory is unverifiable, and unverifiable fails.

use crate::input_error::{present, range, read_typed};
use crate::json::{self, Value};
use crate::reason::ReasonCode;
use crate::time::Timestamp;
use crate::InputError;

/// How far two lag sources may disagree before the observation is contradictory, and how far in
/// the future a last-sync timestamp may lie (clock skew), in milliseconds. (The arithmetic is
/// done exactly, in nanoseconds.)
pub const SKEW_MS: f64 = 1000.0;

/// One reported watermark value: header text or a JSON number, or something unusable.
#[derive(Debug, Clone, PartialEq)]
pub enum WatermarkValue {
    /// Header text, e.g. `"40000"`.
    Text(String),
    /// A number from a JSON envelope.
    Number(f64),
    /// A value of the wrong JSON type (described), e.g. from an envelope.
    Invalid(String),
}

impl WatermarkValue {
    fn describe(&self) -> String {
        match self {
            WatermarkValue::Text(s) => format!("{s:?}"),
            WatermarkValue::Number(n) => format!("{n}"),
            WatermarkValue::Invalid(what) => what.clone(),
        }
    }

    /// The exact value, scaled by `10^scale` (the unit's nanoseconds) and rounded **up** to a
    /// whole nanosecond, when it is a non-negative decimal; `integer` also refuses a decimal point.
    /// Text is read digit by digit (no binary floating point, so `10000.0000000000001` ms is
    /// not `10000` ms); a JSON number is read as its shortest round-trip decimal form.
    fn nanos_ceil(&self, scale: u32, integer: bool) -> Option<u128> {
        match self {
            WatermarkValue::Number(n) => {
                if !n.is_finite() || *n < 0.0 {
                    return None;
                }
                if *n == 0.0 {
                    return Some(0);
                }
                // A whole number below 2^53 (`"lag_ms": 500`): `Display` prints its shortest
                // round-trip digits, which below 2^53 are exactly its integer digits (above, it
                // pads shorter digits with zeros: 2^63 prints as 9223372036854776000), so the
                // figure is the integer times 10^scale, without printing it.
                if n.fract() == 0.0 && *n < 9_007_199_254_740_992.0 {
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let whole = *n as u64;
                    return u128::from(whole).checked_mul(10u128.pow(scale));
                }
                // Rust's `Display` for f64 never uses an exponent.
                decimal_nanos_ceil(&format!("{n}"), scale, integer)
            }
            WatermarkValue::Text(s) => {
                decimal_nanos_ceil(s.trim_matches([' ', '\t']), scale, integer)
            }
            WatermarkValue::Invalid(_) => None,
        }
    }
}

/// Any JSON value: a string or number is a figure to check, anything else an invalid one.
impl<'de> serde::Deserialize<'de> for WatermarkValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Any;
        impl<'de> serde::de::Visitor<'de> for Any {
            type Value = WatermarkValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a watermark (a string or a number)")
            }
            fn visit_str<E>(self, v: &str) -> Result<WatermarkValue, E> {
                Ok(WatermarkValue::Text(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<WatermarkValue, E> {
                Ok(WatermarkValue::Text(v))
            }
            fn visit_f64<E>(self, v: f64) -> Result<WatermarkValue, E> {
                Ok(WatermarkValue::Number(v))
            }
            // Correctly rounded, as a JSON number's text would be.
            #[allow(clippy::cast_precision_loss)]
            fn visit_u64<E>(self, v: u64) -> Result<WatermarkValue, E> {
                Ok(WatermarkValue::Number(v as f64))
            }
            #[allow(clippy::cast_precision_loss)]
            fn visit_i64<E>(self, v: i64) -> Result<WatermarkValue, E> {
                Ok(WatermarkValue::Number(v as f64))
            }
            fn visit_bool<E>(self, _: bool) -> Result<WatermarkValue, E> {
                Ok(WatermarkValue::Invalid("a JSON boolean".into()))
            }
            fn visit_unit<E>(self) -> Result<WatermarkValue, E> {
                Ok(WatermarkValue::Invalid("a JSON null".into()))
            }
            fn visit_none<E>(self) -> Result<WatermarkValue, E> {
                Ok(WatermarkValue::Invalid("a JSON null".into()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<WatermarkValue, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(WatermarkValue::Invalid("a JSON array".into()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<WatermarkValue, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(WatermarkValue::Invalid("a JSON object".into()))
            }
        }
        d.deserialize_any(Any)
    }
}

/// `text` (`digits[.digits]`) times `10^scale`, rounded up to an integer; `None` when it is not
/// of that form, overflows, or (with `integer`) has a decimal point.
fn decimal_nanos_ceil(text: &str, scale: u32, integer: bool) -> Option<u128> {
    let (int, frac) = match text.split_once('.') {
        Some((_, "")) => return None,
        Some((i, f)) => (i, f),
        None => (text, ""),
    };
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !digits(int) || !digits(frac) {
        return None;
    }
    let scale_usize = usize::try_from(scale).ok()?;
    let tail_nonzero = frac.bytes().skip(scale_usize).any(|d| d != b'0');
    // An integer figure (HTTP `Age` is delta-seconds: digits only) has no decimal point at all.
    if integer && text.contains('.') {
        return None;
    }
    let int = int.trim_start_matches('0');
    let int_digits = int.bytes();
    let frac_digits = frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(scale_usize);
    // Up to 19 digits fit 64 bits (every realistic figure): no 128-bit multiplication, which is
    // a library call in the wasm builds.
    if int.len().saturating_add(scale_usize) <= 19 {
        let mut value: u64 = 0;
        for d in int_digits.chain(frac_digits) {
            value = value * 10 + u64::from(d - b'0');
        }
        return Some(u128::from(value) + u128::from(tail_nonzero));
    }
    let mut value: u128 = 0;
    for d in int_digits.chain(frac_digits) {
        value = value.checked_mul(10)?.checked_add(u128::from(d - b'0'))?;
    }
    value.checked_add(u128::from(tail_nonzero))
}

/// Nanoseconds as a decimal figure in units of `10^scale` ns: `fmt_scaled(10_000_900_000, 6)`
/// is `"10000.9"`.
fn fmt_scaled(nanos: u128, scale: u32) -> String {
    let mut out = String::new();
    push_scaled(&mut out, nanos, scale);
    out
}

/// Appends [`fmt_scaled`]`(nanos, scale)` to `out`.
fn push_scaled(out: &mut String, nanos: u128, scale: u32) {
    let unit = 10u128.pow(scale);
    // Figures that fit 64 bits (every realistic one) are divided in 64 bits: 128-bit division
    // is a library call in the wasm builds.
    let (whole, part) = match (u64::try_from(nanos), u64::try_from(unit)) {
        (Ok(n), Ok(u)) => (u128::from(n / u), u128::from(n % u)),
        _ => (nanos / unit, nanos % unit),
    };
    match u64::try_from(whole) {
        Ok(whole) => crate::json::push_whole(out, whole),
        Err(_) => out.push_str(&whole.to_string()),
    }
    if part != 0 {
        let width = usize::try_from(scale).unwrap_or(0);
        let frac = format!("{part:0width$}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
}

/// `"<name> <figure> <unit>"`, the description of one watermark (`lag_ms 500 ms`).
fn described(name: &str, nanos: u128, scale: u32, unit: &str) -> String {
    let mut out = String::with_capacity(name.len() + unit.len() + 24);
    out.push_str(name);
    out.push(' ');
    push_scaled(&mut out, nanos, scale);
    out.push(' ');
    out.push_str(unit);
    out
}

const MS: u32 = 6;
const S: u32 = 9;
const SKEW_NANOS: u128 = 1_000_000_000;
#[allow(clippy::cast_possible_truncation)]
const SKEW_MS_FIGURE: u64 = (SKEW_NANOS / 1_000_000) as u64;

/// What the resolver reported about staleness, and the host's clock.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observation {
    /// Replica lag in milliseconds.
    pub lag_ms: Option<WatermarkValue>,
    /// Replica lag in seconds.
    pub lag_s: Option<WatermarkValue>,
    /// Last successful sync, RFC 3339.
    pub synced_at: Option<WatermarkValue>,
    /// `X-Consul-LastContact`: ms since the answering server heard from the leader.
    pub consul_last_contact_ms: Option<WatermarkValue>,
    /// `X-Consul-KnownLeader`: `true` or `false`.
    pub consul_known_leader: Option<WatermarkValue>,
    /// HTTP `Age`: whole seconds spent in caches.
    pub age_s: Option<WatermarkValue>,
    /// The host's clock.
    pub now: Option<Timestamp>,
}

/// The JSON form of an [`Observation`] (every member optional, unknown members refused): each
/// watermark is header text or a JSON number (any other JSON value is an invalid watermark, which
/// the gate reports as a decision), and `now` is an RFC 3339 timestamp.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct ObservationInput {
    /// Replica lag in milliseconds.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "js", tsify(optional, type = "string | number"))]
    pub lag_ms: Option<WatermarkValue>,
    /// Replica lag in seconds.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "js", tsify(optional, type = "string | number"))]
    pub lag_s: Option<WatermarkValue>,
    /// Last successful sync, RFC 3339.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "js", tsify(optional, type = "string"))]
    pub synced_at: Option<WatermarkValue>,
    /// `X-Consul-LastContact`: ms since the answering server heard from the leader.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "js", tsify(optional, type = "string | number"))]
    pub consul_last_contact_ms: Option<WatermarkValue>,
    /// `X-Consul-KnownLeader`: `"true"` or `"false"`.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "js", tsify(optional, type = "string"))]
    pub consul_known_leader: Option<WatermarkValue>,
    /// HTTP `Age`: whole seconds spent in caches.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "js", tsify(optional, type = "string | number"))]
    pub age_s: Option<WatermarkValue>,
    /// The host's clock, RFC 3339 (the host's own clock when absent).
    #[serde(default, deserialize_with = "rfc3339")]
    #[cfg_attr(feature = "js", tsify(optional, type = "string"))]
    pub now: Option<Timestamp>,
}

fn rfc3339<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
    struct Text;
    impl serde::de::Visitor<'_> for Text {
        type Value = Timestamp;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an RFC 3339 string")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Timestamp, E> {
            Timestamp::parse_rfc3339(v).map_err(|e| range(e.message))
        }
    }
    d.deserialize_str(Text).map(Some)
}

impl From<ObservationInput> for Observation {
    fn from(o: ObservationInput) -> Observation {
        Observation {
            lag_ms: o.lag_ms,
            lag_s: o.lag_s,
            synced_at: o.synced_at,
            consul_last_contact_ms: o.consul_last_contact_ms,
            consul_known_leader: o.consul_known_leader,
            age_s: o.age_s,
            now: o.now,
        }
    }
}

/// A staleness figure the gate could establish.
#[derive(Debug, Clone, PartialEq)]
pub struct Staleness {
    /// Milliseconds the card may be behind the authority (rounded up).
    pub ms: u64,
    /// How it was composed, e.g. `"lag_ms 40000 ms + age_s 3 s"`.
    pub basis: String,
}

/// Why freshness could not be established.
#[derive(Debug, Clone, PartialEq)]
pub struct Unverifiable {
    /// The reason code.
    pub code: ReasonCode,
    /// A sentence with the figures.
    pub message: String,
    /// The figures, by name: the offending `watermark` member and its `value` as given, the
    /// clock (`now`), the `watermarks` that disagree, the `skew_ms` allowance, the
    /// `max_staleness_ms` bound and the `basis` that exceeded it (DESIGN.md, "Decision").
    pub figures: Vec<(String, Value)>,
}

impl Unverifiable {
    fn new(code: ReasonCode, message: String, figures: Vec<(&str, Value)>) -> Unverifiable {
        Unverifiable {
            code,
            message,
            figures: figures
                .into_iter()
                .map(|(name, value)| (name.to_owned(), value))
                .collect(),
        }
    }
}

/// The watermark member and its value as given (a value of the wrong JSON type is described in
/// the message only).
fn watermark_figures(name: &str, v: &WatermarkValue) -> Vec<(&'static str, Value)> {
    let mut figures = vec![("watermark", Value::text(name))];
    match v {
        WatermarkValue::Text(s) => figures.push(("value", Value::text(s))),
        WatermarkValue::Number(n) => figures.push(("value", Value::Number(*n))),
        WatermarkValue::Invalid(_) => {}
    }
    figures
}

impl Observation {
    /// Parses the JSON form ([`ObservationInput`], see `DESIGN.md`).
    pub fn from_json(text: &str) -> Result<Observation, InputError> {
        // The strict reader first (duplicate names, lone surrogates, depth...), then the typed one.
        json::parse(text.as_bytes(), 32).map_err(|e| {
            InputError::type_error("", format!("observation is not valid JSON: {e}"))
        })?;
        Observation::deserialize_input(&mut serde_json::Deserializer::from_str(text))
    }

    /// Reads the JSON form from any serde Deserializer (for example serde_wasm_bindgen's, for a
    /// JavaScript object); errors name the JSON Pointer of the offending member.
    pub fn deserialize_input<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Observation, InputError> {
        read_typed::<ObservationInput, D>(d).map(Observation::from)
    }

    /// Reads the JSON form from a parsed value; errors are reported under `prefix`.
    pub fn from_value(value: &Value, prefix: &str) -> Result<Observation, InputError> {
        Observation::from_json(&crate::jcs::canonicalize(value)).map_err(|e| e.within(prefix))
    }

    /// Composes the staleness figure, or says why it cannot be established. Every figure is
    /// exact to the nanosecond and rounded up, so the result in whole milliseconds is never
    /// smaller than the true staleness (DESIGN.md, observation rule 6).
    pub fn staleness(&self) -> Result<Staleness, Unverifiable> {
        let invalid = |name: &str, v: &WatermarkValue, want: &str| {
            Unverifiable::new(
                ReasonCode::WatermarkInvalid,
                format!("watermark {name} = {} is not {want}", v.describe()),
                watermark_figures(name, v),
            )
        };
        // Every value is checked for its form first, so a bad one is never silently ignored.
        // Lags are in nanoseconds, rounded up.
        let mut lags: Vec<(u128, String)> = Vec::new();
        if let Some(v) = &self.lag_ms {
            let n = v
                .nanos_ceil(MS, false)
                .ok_or_else(|| invalid("lag_ms", v, "a non-negative number of milliseconds"))?;
            lags.push((n, described("lag_ms", n, MS, "ms")));
        }
        if let Some(v) = &self.lag_s {
            let n = v
                .nanos_ceil(S, false)
                .ok_or_else(|| invalid("lag_s", v, "a non-negative number of seconds"))?;
            lags.push((n, described("lag_s", n, S, "s")));
        }
        let last_contact = match &self.consul_last_contact_ms {
            Some(v) => Some(v.nanos_ceil(MS, true).ok_or_else(|| {
                invalid(
                    "consul_last_contact_ms",
                    v,
                    "a non-negative whole number of milliseconds",
                )
            })?),
            None => None,
        };
        let known_leader = match &self.consul_known_leader {
            Some(WatermarkValue::Text(t)) if t.trim_matches([' ', '\t']) == "true" => Some(true),
            Some(WatermarkValue::Text(t)) if t.trim_matches([' ', '\t']) == "false" => Some(false),
            Some(v) => return Err(invalid("consul_known_leader", v, "\"true\" or \"false\"")),
            None => None,
        };
        let age = match &self.age_s {
            Some(v) => Some(v.nanos_ceil(S, true).ok_or_else(|| {
                invalid(
                    "age_s",
                    v,
                    "a non-negative whole number of seconds (HTTP Age)",
                )
            })?),
            None => None,
        };
        let synced_at = match &self.synced_at {
            Some(v @ WatermarkValue::Text(t)) => Some(
                Timestamp::parse_rfc3339(t.trim_matches([' ', '\t']))
                    .map_err(|_| invalid("synced_at", v, "an RFC 3339 timestamp"))?,
            ),
            Some(v) => return Err(invalid("synced_at", v, "an RFC 3339 timestamp")),
            None => None,
        };
        match (last_contact, known_leader) {
            (Some(_), Some(false)) => {
                return Err(Unverifiable::new(
                    ReasonCode::LeaderUnknown,
                    "Consul reports KnownLeader false: the LastContact lag means nothing".into(),
                    vec![
                        ("watermark", Value::text("consul_known_leader")),
                        ("value", Value::text("false")),
                    ],
                ))
            }
            (Some(ns), Some(true)) => {
                lags.push((ns, described("consul_last_contact_ms", ns, MS, "ms")))
            }
            (Some(_), None) => {
                return Err(Unverifiable::new(
                    ReasonCode::WatermarkInvalid,
                    "consul_last_contact_ms without consul_known_leader: the lag cannot be trusted"
                        .into(),
                    vec![("watermark", Value::text("consul_last_contact_ms"))],
                ))
            }
            (None, Some(_)) => {
                return Err(Unverifiable::new(
                    ReasonCode::WatermarkInvalid,
                    "consul_known_leader without consul_last_contact_ms: no lag reported".into(),
                    vec![("watermark", Value::text("consul_known_leader"))],
                ))
            }
            (None, None) => {}
        }
        if let (Some(synced), Some(given)) = (synced_at, &self.synced_at) {
            let now = self.now.ok_or_else(|| {
                Unverifiable::new(
                    ReasonCode::ClockMissing,
                    "synced_at needs a clock, and none was supplied".into(),
                    watermark_figures("synced_at", given),
                )
            })?;
            // Both directions rounded up: the lag (digits of `now` beyond the nanosecond count)
            // and how far the sync lies ahead of the clock (digits of `synced_at` count), so a
            // sync a fraction of a nanosecond past the skew allowance is not within it.
            let lag = now.nanos_since_ceil(synced);
            let ahead = u128::try_from(synced.nanos_since_ceil(now)).unwrap_or(0);
            if ahead > SKEW_NANOS {
                return Err(Unverifiable::new(
                    ReasonCode::WatermarkInFuture,
                    format!(
                        "synced_at {} is {} ms after now {}, beyond the {} ms skew allowance",
                        synced.to_rfc3339(),
                        fmt_scaled(ahead, MS),
                        now.to_rfc3339(),
                        fmt_scaled(SKEW_NANOS, MS)
                    ),
                    watermark_figures("synced_at", given)
                        .into_iter()
                        .chain([
                            ("now", Value::text(&now.to_rfc3339())),
                            ("skew_ms", Value::whole(SKEW_MS_FIGURE)),
                        ])
                        .collect(),
                ));
            }
            let lag = u128::try_from(lag).unwrap_or(0);
            lags.push((
                lag,
                format!(
                    "synced_at {} ({} ms before now)",
                    synced.to_rfc3339(),
                    fmt_scaled(lag, MS)
                ),
            ));
        }
        if lags.is_empty() {
            return Err(Unverifiable::new(
                ReasonCode::FreshnessUnverifiable,
                if age.is_some() {
                    "only Age was reported: it counts cache time, not replica lag, so freshness is unverifiable".into()
                } else {
                    "the resolver reported no replication watermark, so freshness is unverifiable"
                        .into()
                },
                Vec::new(),
            ));
        }
        let lo = lags.iter().map(|l| l.0).min().unwrap_or(0);
        let hi = lags.iter().map(|l| l.0).max().unwrap_or(0);
        if hi - lo > SKEW_NANOS {
            let listed: Vec<&str> = lags.iter().map(|l| l.1.as_str()).collect();
            return Err(Unverifiable::new(
                ReasonCode::WatermarkContradictory,
                format!(
                    "watermarks disagree by {} ms (more than {} ms): {}",
                    fmt_scaled(hi - lo, MS),
                    fmt_scaled(SKEW_NANOS, MS),
                    listed.join(", ")
                ),
                vec![
                    (
                        "watermarks",
                        Value::Array(listed.iter().map(|l| Value::text(l)).collect()),
                    ),
                    ("skew_ms", Value::whole(SKEW_MS_FIGURE)),
                ],
            ));
        }
        // The first watermark of the largest lag, and the age on top of it.
        let mut basis = lags
            .into_iter()
            .find(|l| l.0 == hi)
            .map(|l| l.1)
            .unwrap_or_default();
        let mut total = Some(hi);
        if let Some(a) = age {
            total = total.and_then(|t| t.checked_add(a));
            basis.push_str(" + age_s ");
            push_scaled(&mut basis, a, S);
            basis.push_str(" s");
        }
        // Rounded up to a whole millisecond; bounded so every runtime's JSON number is exact.
        let ms = total.map(|t| t.div_ceil(1_000_000));
        match ms.and_then(|m| u64::try_from(m).ok()) {
            Some(ms) if ms <= MAX_STALENESS_MS => Ok(Staleness { ms, basis }),
            _ => Err(Unverifiable::new(
                ReasonCode::WatermarkInvalid,
                format!(
                    "staleness {} ms is out of range",
                    total.map_or_else(|| "beyond 10^32".into(), |t| fmt_scaled(t, MS))
                ),
                vec![
                    ("basis", Value::text(&basis)),
                    ("max_staleness_ms", Value::whole(MAX_STALENESS_MS)),
                ],
            )),
        }
    }
}

/// The largest staleness figure reported, in ms: 2^53, so that the figure is an exact JSON
/// number in every runtime (a larger one is `watermark_invalid`).
pub const MAX_STALENESS_MS: u64 = 1 << 53;

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(text: &str) -> Observation {
        Observation::from_json(text).unwrap()
    }

    fn code(text: &str) -> ReasonCode {
        obs(text).staleness().unwrap_err().code
    }

    /// The 64-bit shortcuts give what the general paths give: a whole-number watermark read
    /// without printing it, a figure formatted without 128-bit division.
    /// [`fmt_scaled`] in 128-bit arithmetic throughout.
    fn fmt_scaled_wide(nanos: u128, scale: u32) -> String {
        let unit = 10u128.pow(scale);
        let (whole, part) = (nanos / unit, nanos % unit);
        if part == 0 {
            return whole.to_string();
        }
        let width = usize::try_from(scale).unwrap_or(0);
        let frac = format!("{part:0width$}");
        format!("{whole}.{}", frac.trim_end_matches('0'))
    }

    /// [`decimal_nanos_ceil`] in 128-bit arithmetic throughout.
    fn decimal_nanos_ceil_wide(text: &str, scale: u32) -> Option<u128> {
        let (int, frac) = text.split_once('.').unwrap_or((text, ""));
        let scale = usize::try_from(scale).unwrap();
        let tail = frac.bytes().skip(scale).any(|d| d != b'0');
        let mut value: u128 = 0;
        for d in int
            .bytes()
            .chain(frac.bytes().chain(std::iter::repeat(b'0')).take(scale))
        {
            value = value.checked_mul(10)?.checked_add(u128::from(d - b'0'))?;
        }
        value.checked_add(u128::from(tail))
    }

    #[test]
    fn decimal_figures_read_in_64_bits_as_in_128() {
        let mut texts: Vec<String> = [
            "0",
            "00",
            "1",
            "500",
            "0500",
            "1.5",
            "0.000001",
            "0.0000001",
            "7.0000000001",
            "123.456789",
            "1000000000000",
        ]
        .iter()
        .map(|t| (*t).to_owned())
        .collect();
        for digits in 8..=24 {
            texts.push("9".repeat(digits));
            texts.push(format!("1{}", "0".repeat(digits - 1)));
            texts.push(format!("{}.{}", "9".repeat(digits - 7), "9".repeat(12)));
            texts.push(format!("000{}.5", "9".repeat(digits - 7)));
        }
        for t in &texts {
            for scale in [MS, S] {
                assert_eq!(
                    decimal_nanos_ceil(t, scale, false),
                    decimal_nanos_ceil_wide(t, scale),
                    "{t} at {scale}"
                );
            }
        }
    }

    #[test]
    fn shortcuts_agree_with_the_general_paths() {
        let mut figures: Vec<u128> = vec![0, 1, 9, 10, 999_999, 1_000_000, 1_000_001, 500_000_000];
        for shift in [20, 32, 40, 53, 60, 63] {
            figures.extend([(1u128 << shift) - 1, 1u128 << shift, (1u128 << shift) + 7]);
        }
        figures.extend([
            u128::from(u64::MAX) - 1,
            u128::from(u64::MAX),
            1u128 << 64,
            u128::MAX,
        ]);
        for &n in &figures {
            for scale in [MS, S] {
                assert_eq!(
                    fmt_scaled(n, scale),
                    fmt_scaled_wide(n, scale),
                    "{n} at {scale}"
                );
            }
        }
        let mut numbers: Vec<f64> = vec![1.0, 7.0, 500.0, 40_000.0, 1e15, 9_007_199_254_740_993.0];
        numbers.extend([
            2f64.powi(53),
            2f64.powi(63),
            2f64.powi(64) - 2048.0,
            2f64.powi(64),
        ]);
        numbers.extend([1e19, 1e20, 1e30, 0.5, 1.25, 123.000_001]);
        for n in numbers {
            for scale in [MS, S] {
                for integer in [false, true] {
                    assert_eq!(
                        WatermarkValue::Number(n).nanos_ceil(scale, integer),
                        decimal_nanos_ceil(&format!("{n}"), scale, integer),
                        "{n} at {scale}, integer {integer}"
                    );
                }
            }
        }
    }

    #[test]
    fn composes_lag_and_age() {
        let s = obs(r#"{"lag_ms":"40000","age_s":"3"}"#)
            .staleness()
            .unwrap();
        assert_eq!(s.ms, 43_000);
        assert_eq!(obs(r#"{"lag_s":1.0005}"#).staleness().unwrap().ms, 1001);
        assert_eq!(obs(r#"{"lag_ms":" 12 "}"#).staleness().unwrap().ms, 12);
        let t = obs(r#"{"synced_at":"2026-11-09T12:00:00Z","now":"2026-11-09T12:00:40Z"}"#);
        assert_eq!(t.staleness().unwrap().ms, 40_000);
        let c =
            obs(r#"{"consul_last_contact_ms":"250","consul_known_leader":"true","lag_ms":900}"#);
        assert_eq!(c.staleness().unwrap().ms, 900);
    }

    #[test]
    fn never_rounds_down() {
        let ms = |text: &str| obs(text).staleness().unwrap().ms;
        // The issue's case: 10000.9 ms of lag is 10001 ms, not 10000.
        assert_eq!(
            ms(r#"{"synced_at":"2026-11-09T12:00:30Z","now":"2026-11-09T12:00:40.0009Z"}"#),
            10_001
        );
        // Digits beyond nanoseconds still count.
        assert_eq!(
            ms(r#"{"synced_at":"2026-11-09T12:00:30Z","now":"2026-11-09T12:00:40.0000000001Z"}"#),
            10_001
        );
        // A sync a hair after a whole millisecond shortens the lag below it.
        assert_eq!(
            ms(r#"{"synced_at":"2026-11-09T12:00:30.0000001Z","now":"2026-11-09T12:00:40Z"}"#),
            10_000
        );
        assert_eq!(ms(r#"{"lag_ms":"10000.0000000000001"}"#), 10_001);
        assert_eq!(ms(r#"{"lag_ms":"10000.000"}"#), 10_000);
        assert_eq!(ms(r#"{"lag_s":"10.0000001"}"#), 10_001);
        assert_eq!(ms(r#"{"lag_s":"0.000000000001"}"#), 1);
        assert_eq!(ms(r#"{"lag_ms":10000.0009}"#), 10_001);
        assert_eq!(ms(r#"{"lag_ms":-0.0}"#), 0);
        assert_eq!(ms(r#"{"lag_ms":"0009"}"#), 9);
        assert_eq!(ms(r#"{"lag_ms":"0.5","age_s":"3"}"#), 3_001);
        assert_eq!(
            code(r#"{"lag_ms":"0.5","age_s":"3.000"}"#),
            ReasonCode::WatermarkInvalid
        );
        assert_eq!(ms(r#"{"lag_ms":"9007199254740992"}"#), 1 << 53);
        assert_eq!(
            code(r#"{"lag_ms":"9007199254740993"}"#),
            ReasonCode::WatermarkInvalid
        );
        assert_eq!(
            code(&format!(r#"{{"lag_ms":"{}"}}"#, "9".repeat(60))),
            ReasonCode::WatermarkInvalid
        );
        assert_eq!(fmt_scaled(10_000_900_000, MS), "10000.9");
        assert_eq!(fmt_scaled(3_000_000_000, S), "3");
        // Two sources just over the skew apart are contradictory, not rounded together.
        assert_eq!(
            code(r#"{"lag_ms":"0","lag_s":"1.0000000001"}"#),
            ReasonCode::WatermarkContradictory
        );
        assert_eq!(ms(r#"{"lag_ms":"0","lag_s":"1"}"#), 1_000);
    }

    /// Every (b) failure carries the figures that explain it in the decision: the offending
    /// watermark and its value as given, the clock, the sources that disagree, the tolerance
    /// (`max_stale_ms`, whenever the requirement has one).
    #[test]
    fn unverifiable_decisions_carry_their_figures() {
        let card = br#"{"name":"W","version":"1.0","skills":[{"id":"s"}]}"#;
        let figures = |req: &str, o: &str| -> String {
            let d = crate::evaluate(card, &crate::Requirement::from_json(req).unwrap(), &obs(o));
            assert_eq!(d.reasons().len(), 1, "{o}");
            let mut out: Vec<String> = d.reasons()[0]
                .figures
                .iter()
                .map(|(k, v)| format!("{k}={}", crate::jcs::canonicalize(v)))
                .collect();
            out.sort();
            format!("{} {}", d.reasons()[0].code.as_str(), out.join(" "))
        };
        let ten = r#"{"max_stale":"10s"}"#;
        let cases = [
            ("{}", "freshness_unverifiable max_stale_ms=10000"),
            (
                r#"{"lag_ms":" junk"}"#,
                r#"watermark_invalid max_stale_ms=10000 value=" junk" watermark="lag_ms""#,
            ),
            (
                r#"{"lag_s":-1.5}"#,
                r#"watermark_invalid max_stale_ms=10000 value=-1.5 watermark="lag_s""#,
            ),
            (
                r#"{"age_s":null,"lag_ms":"1"}"#,
                r#"watermark_invalid max_stale_ms=10000 watermark="age_s""#,
            ),
            (
                r#"{"consul_last_contact_ms":"5","consul_known_leader":"false"}"#,
                r#"leader_unknown max_stale_ms=10000 value="false" watermark="consul_known_leader""#,
            ),
            (
                r#"{"consul_last_contact_ms":"5"}"#,
                r#"watermark_invalid max_stale_ms=10000 watermark="consul_last_contact_ms""#,
            ),
            (
                r#"{"synced_at":"2026-11-09T12:00:00Z"}"#,
                r#"clock_missing max_stale_ms=10000 value="2026-11-09T12:00:00Z" watermark="synced_at""#,
            ),
            (
                r#"{"synced_at":"2026-11-09T13:00:05+01:00","now":"2026-11-09T12:00:00Z"}"#,
                r#"watermark_in_future max_stale_ms=10000 now="2026-11-09T12:00:00.000Z" skew_ms=1000 value="2026-11-09T13:00:05+01:00" watermark="synced_at""#,
            ),
            (
                r#"{"lag_ms":"40000","lag_s":"1"}"#,
                r#"watermark_contradictory max_stale_ms=10000 skew_ms=1000 watermarks=["lag_ms 40000 ms","lag_s 1 s"]"#,
            ),
            (
                r#"{"lag_ms":"9007199254740992","age_s":"1"}"#,
                r#"watermark_invalid basis="lag_ms 9007199254740992 ms + age_s 1 s" max_stale_ms=10000 max_staleness_ms=9007199254740992"#,
            ),
            (
                r#"{"lag_ms":"10000.5"}"#,
                "watermark_exceeded max_stale_ms=10000 staleness_ms=10001",
            ),
        ];
        for (o, want) in cases {
            assert_eq!(figures(ten, o), want, "{o}");
        }
        // Several bad members: the first in the order lag_ms, lag_s, consul_last_contact_ms,
        // consul_known_leader, age_s, synced_at is the one named (DESIGN.md, "One (b) reason").
        assert_eq!(
            figures(
                ten,
                r#"{"synced_at":"x","age_s":"y","lag_s":"z","lag_ms":"w"}"#
            ),
            r#"watermark_invalid max_stale_ms=10000 value="w" watermark="lag_ms""#
        );
        assert_eq!(
            figures(
                ten,
                r#"{"synced_at":"x","age_s":"y","consul_known_leader":"maybe"}"#
            ),
            r#"watermark_invalid max_stale_ms=10000 value="maybe" watermark="consul_known_leader""#
        );
        assert_eq!(
            figures(ten, r#"{"synced_at":"x","age_s":"y"}"#),
            r#"watermark_invalid max_stale_ms=10000 value="y" watermark="age_s""#
        );
        // Without a tolerance there is none to report; tolerance_missing names the staleness.
        assert_eq!(figures("{}", "{}"), "freshness_unverifiable ");
        assert_eq!(
            figures("{}", r#"{"lag_ms":"3"}"#),
            "tolerance_missing staleness_ms=3"
        );
    }

    /// A value of the wrong form is quoted in the message as it was given: text in quotes,
    /// a JSON number as a number, another JSON type by name.
    #[test]
    fn invalid_watermark_messages_quote_the_value() {
        let message = |o: &str| obs(o).staleness().unwrap_err().message;
        assert_eq!(
            message(r#"{"lag_ms":" junk"}"#),
            r#"watermark lag_ms = " junk" is not a non-negative number of milliseconds"#
        );
        assert_eq!(
            message(r#"{"lag_s":-1.5}"#),
            "watermark lag_s = -1.5 is not a non-negative number of seconds"
        );
        assert_eq!(
            message(r#"{"age_s":null,"lag_ms":"1"}"#),
            "watermark age_s = a JSON null is not a non-negative whole number of seconds (HTTP Age)"
        );
        // The host's clock is an input, not a watermark: of another type it is refused.
        let e = Observation::from_json(r#"{"lag_ms":"1","now":5}"#).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            (
                "/now",
                "invalid type: integer `5`, expected an RFC 3339 string"
            )
        );
    }

    #[test]
    fn fails_closed() {
        assert_eq!(code("{}"), ReasonCode::FreshnessUnverifiable);
        assert_eq!(code(r#"{"age_s":"0"}"#), ReasonCode::FreshnessUnverifiable);
        for bad in [
            r#""-1""#,
            r#"-1"#,
            r#""NaN""#,
            r#""inf""#,
            r#""1e3""#,
            r#""""#,
            r#""12ms""#,
            "true",
            "{}",
            r#""1.""#,
            r#""+1""#,
        ] {
            assert_eq!(
                code(&format!(r#"{{"lag_ms":{bad}}}"#)),
                ReasonCode::WatermarkInvalid,
                "{bad}"
            );
        }
        assert_eq!(
            code(r#"{"lag_ms":"1","age_s":"1.5"}"#),
            ReasonCode::WatermarkInvalid
        );
        assert_eq!(
            code(r#"{"consul_last_contact_ms":"5","consul_known_leader":"false"}"#),
            ReasonCode::LeaderUnknown
        );
        assert_eq!(
            code(r#"{"consul_last_contact_ms":"5"}"#),
            ReasonCode::WatermarkInvalid
        );
        assert_eq!(
            code(r#"{"consul_known_leader":"true"}"#),
            ReasonCode::WatermarkInvalid
        );
        assert_eq!(
            code(r#"{"synced_at":"2026-11-09T12:00:00Z"}"#),
            ReasonCode::ClockMissing
        );
        assert_eq!(
            code(r#"{"synced_at":"2026-11-09T12:00:02Z","now":"2026-11-09T12:00:00Z"}"#),
            ReasonCode::WatermarkInFuture
        );
        assert_eq!(
            obs(r#"{"synced_at":"2026-11-09T12:00:01Z","now":"2026-11-09T12:00:00Z"}"#)
                .staleness()
                .unwrap()
                .ms,
            0
        );
        assert_eq!(
            code(r#"{"lag_ms":"1000","lag_s":"3"}"#),
            ReasonCode::WatermarkContradictory
        );
        // More than the skew allowance ahead, if only by digits beyond the nanosecond.
        assert_eq!(
            code(r#"{"synced_at":"2026-11-09T12:00:01.0000000001Z","now":"2026-11-09T12:00:00Z"}"#),
            ReasonCode::WatermarkInFuture
        );
        assert_eq!(
            code(r#"{"synced_at":"2026-11-09T12:00:01.000000001Z","now":"2026-11-09T12:00:00Z"}"#),
            ReasonCode::WatermarkInFuture
        );
        for within in ["2026-11-09T12:00:01Z", "2026-11-09T12:00:00.9999999999Z"] {
            let o = format!(r#"{{"synced_at":"{within}","now":"2026-11-09T12:00:00Z"}}"#);
            assert_eq!(obs(&o).staleness().unwrap().ms, 0, "{within}");
        }
        assert!(Observation::from_json(r#"{"lag":"1"}"#).is_err());
        assert!(Observation::from_json(r#"{"now":"yesterday"}"#).is_err());
    }
}
