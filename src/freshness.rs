//! Freshness: turning what a resolver reported into one staleness figure, or a reason it cannot.
//!
//! A2A carries no replication watermark, so the gate reads the ones registries and caches
//! already send (see `DESIGN.md`): replica lag in ms or s, a last-sync timestamp, Consul's
//! `X-Consul-LastContact` with `X-Consul-KnownLeader`, and HTTP `Age`. Staleness is the replica
//! lag plus the time the answer then spent in caches. Anything missing, malformed, negative,
//! non-finite or contradictory is unverifiable, and unverifiable fails.

use crate::json::{self, Value};
use crate::reason::ReasonCode;
use crate::time::Timestamp;
use crate::InputError;

/// How far two lag sources may disagree before the observation is contradictory, and how far in
/// the future a last-sync timestamp may lie (clock skew), in milliseconds.
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
    fn from_json(v: &Value) -> WatermarkValue {
        match v {
            Value::String(s) => WatermarkValue::Text(s.clone()),
            Value::Number(n) => WatermarkValue::Number(*n),
            other => WatermarkValue::Invalid(format!("a JSON {}", other.type_name())),
        }
    }

    fn describe(&self) -> String {
        match self {
            WatermarkValue::Text(s) => format!("{s:?}"),
            WatermarkValue::Number(n) => format!("{n}"),
            WatermarkValue::Invalid(what) => what.clone(),
        }
    }

    /// The value as a non-negative finite number; `integer` also refuses fractions.
    fn number(&self, integer: bool) -> Option<f64> {
        let n = match self {
            WatermarkValue::Number(n) => *n,
            WatermarkValue::Text(s) => {
                let t = s.trim_matches([' ', '\t']);
                let (int, frac) = t.split_once('.').unwrap_or((t, ""));
                let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
                if int.is_empty()
                    || !digits(int)
                    || !digits(frac)
                    || (t.contains('.') && frac.is_empty())
                {
                    return None;
                }
                t.parse::<f64>().ok()?
            }
            WatermarkValue::Invalid(_) => return None,
        };
        let ok = n.is_finite() && n >= 0.0 && (!integer || n.fract() == 0.0);
        ok.then_some(n)
    }
}

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

const OBSERVATION_MEMBERS: &[&str] = &[
    "lag_ms",
    "lag_s",
    "synced_at",
    "consul_last_contact_ms",
    "consul_known_leader",
    "age_s",
    "now",
];

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
}

impl Observation {
    /// Parses the JSON form (see `DESIGN.md`).
    pub fn from_json(text: &str) -> Result<Observation, InputError> {
        let value = json::parse(text.as_bytes(), 32).map_err(|e| {
            InputError::type_error("", format!("observation is not valid JSON: {e}"))
        })?;
        Observation::from_value(&value, "")
    }

    /// Reads the JSON form from a parsed value; errors are reported under `prefix`.
    pub fn from_value(value: &Value, prefix: &str) -> Result<Observation, InputError> {
        let members = value.as_object().ok_or_else(|| {
            InputError::type_error(
                prefix,
                format!("must be an object, found {}", value.type_name()),
            )
        })?;
        let mut obs = Observation::default();
        for (key, v) in members {
            let at = format!("{prefix}/{}", json::pointer_token(key));
            let w = Some(WatermarkValue::from_json(v));
            match key.as_str() {
                "lag_ms" => obs.lag_ms = w,
                "lag_s" => obs.lag_s = w,
                "synced_at" => obs.synced_at = w,
                "consul_last_contact_ms" => obs.consul_last_contact_ms = w,
                "consul_known_leader" => obs.consul_known_leader = w,
                "age_s" => obs.age_s = w,
                "now" => {
                    let text = v.as_str().ok_or_else(|| {
                        InputError::type_error(
                            at.clone(),
                            format!("must be an RFC 3339 string, found {}", v.type_name()),
                        )
                    })?;
                    obs.now = Some(Timestamp::parse_rfc3339(text).map_err(|e| e.within(&at))?);
                }
                other => {
                    return Err(InputError::type_error(
                        at,
                        format!(
                            "unknown member {other:?} (known: {})",
                            OBSERVATION_MEMBERS.join(", ")
                        ),
                    ))
                }
            }
        }
        Ok(obs)
    }

    /// Composes the staleness figure, or says why it cannot be established.
    pub fn staleness(&self) -> Result<Staleness, Unverifiable> {
        let invalid = |name: &str, v: &WatermarkValue, want: &str| Unverifiable {
            code: ReasonCode::WatermarkInvalid,
            message: format!("watermark {name} = {} is not {want}", v.describe()),
        };
        // Every value is checked for its form first, so a bad one is never silently ignored.
        let mut lags: Vec<(f64, String)> = Vec::new();
        if let Some(v) = &self.lag_ms {
            let n = v
                .number(false)
                .ok_or_else(|| invalid("lag_ms", v, "a non-negative number of milliseconds"))?;
            lags.push((n, format!("lag_ms {} ms", fmt_num(n))));
        }
        if let Some(v) = &self.lag_s {
            let n = v
                .number(false)
                .ok_or_else(|| invalid("lag_s", v, "a non-negative number of seconds"))?;
            lags.push((n * 1000.0, format!("lag_s {} s", fmt_num(n))));
        }
        let last_contact = match &self.consul_last_contact_ms {
            Some(v) => Some(v.number(true).ok_or_else(|| {
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
            Some(v) => Some(v.number(true).ok_or_else(|| {
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
                return Err(Unverifiable {
                    code: ReasonCode::LeaderUnknown,
                    message: "Consul reports KnownLeader false: the LastContact lag means nothing"
                        .into(),
                })
            }
            (Some(ms), Some(true)) => {
                lags.push((ms, format!("consul_last_contact_ms {} ms", fmt_num(ms))))
            }
            (Some(_), None) => return Err(Unverifiable {
                code: ReasonCode::WatermarkInvalid,
                message:
                    "consul_last_contact_ms without consul_known_leader: the lag cannot be trusted"
                        .into(),
            }),
            (None, Some(_)) => {
                return Err(Unverifiable {
                    code: ReasonCode::WatermarkInvalid,
                    message: "consul_known_leader without consul_last_contact_ms: no lag reported"
                        .into(),
                })
            }
            (None, None) => {}
        }
        if let Some(synced) = synced_at {
            let now = self.now.ok_or_else(|| Unverifiable {
                code: ReasonCode::ClockMissing,
                message: "synced_at needs a clock, and none was supplied".into(),
            })?;
            let lag = (now.unix_ms() - synced.unix_ms()) as f64;
            if lag < -SKEW_MS {
                return Err(Unverifiable {
                    code: ReasonCode::WatermarkInFuture,
                    message: format!(
                        "synced_at {} is {} ms after now {}, beyond the {} ms skew allowance",
                        synced.to_rfc3339(),
                        fmt_num(-lag),
                        now.to_rfc3339(),
                        fmt_num(SKEW_MS)
                    ),
                });
            }
            lags.push((
                lag.max(0.0),
                format!(
                    "synced_at {} ({} ms before now)",
                    synced.to_rfc3339(),
                    fmt_num(lag.max(0.0))
                ),
            ));
        }
        if lags.is_empty() {
            return Err(Unverifiable {
                code: ReasonCode::FreshnessUnverifiable,
                message: if age.is_some() {
                    "only Age was reported: it counts cache time, not replica lag, so freshness is unverifiable".into()
                } else {
                    "the resolver reported no replication watermark, so freshness is unverifiable"
                        .into()
                },
            });
        }
        let lo = lags.iter().map(|l| l.0).fold(f64::INFINITY, f64::min);
        let hi = lags.iter().map(|l| l.0).fold(0.0, f64::max);
        if hi - lo > SKEW_MS {
            let listed: Vec<&str> = lags.iter().map(|l| l.1.as_str()).collect();
            return Err(Unverifiable {
                code: ReasonCode::WatermarkContradictory,
                message: format!(
                    "watermarks disagree by {} ms (more than {} ms): {}",
                    fmt_num(hi - lo),
                    fmt_num(SKEW_MS),
                    listed.join(", ")
                ),
            });
        }
        let mut basis: Vec<String> = lags
            .into_iter()
            .filter(|l| l.0 == hi)
            .map(|l| l.1)
            .take(1)
            .collect();
        let mut total = hi;
        if let Some(a) = age {
            total += a * 1000.0;
            basis.push(format!("age_s {} s", fmt_num(a)));
        }
        let ms = total.ceil();
        if ms > u64::MAX as f64 / 2.0 {
            return Err(Unverifiable {
                code: ReasonCode::WatermarkInvalid,
                message: format!("staleness {} ms is out of range", fmt_num(total)),
            });
        }
        Ok(Staleness {
            ms: ms as u64,
            basis: basis.join(" + "),
        })
    }
}

/// Formats a figure without a needless fraction: `40000`, `1.5`.
pub(crate) fn fmt_num(n: f64) -> String {
    let mut s = String::new();
    crate::jcs::write_number(&mut s, n);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(text: &str) -> Observation {
        Observation::from_json(text).unwrap()
    }

    fn code(text: &str) -> ReasonCode {
        obs(text).staleness().unwrap_err().code
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
        assert!(Observation::from_json(r#"{"lag":"1"}"#).is_err());
        assert!(Observation::from_json(r#"{"now":"yesterday"}"#).is_err());
    }
}
