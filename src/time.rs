//! Instants supplied by the host. The core never reads a clock: the CLI, Envoy and JS each pass
//! their own `now`, and a check that needs one and lacks it fails closed.

use crate::InputError;

const NANOS_PER_MS: i128 = 1_000_000;
const NANOS_PER_S: i128 = 1_000_000_000;

/// An instant (UTC) to the nanosecond. Digits of an RFC 3339 fraction beyond the ninth are not
/// dropped silently: a non-zero tail marks the instant as lying strictly after its nanosecond,
/// so that a lag computed from it is never rounded down (DESIGN.md, observation rule 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    nanos: i128,
    /// Non-zero digits beyond nanoseconds: the instant is strictly after `nanos`.
    beyond: bool,
}

impl Timestamp {
    /// An instant `ms` milliseconds after 1970-01-01T00:00:00Z.
    pub fn from_unix_ms(ms: i64) -> Self {
        Timestamp {
            nanos: i128::from(ms) * NANOS_PER_MS,
            beyond: false,
        }
    }

    /// An instant `nanos` nanoseconds after 1970-01-01T00:00:00Z.
    pub fn from_unix_nanos(nanos: i128) -> Self {
        Timestamp {
            nanos,
            beyond: false,
        }
    }

    /// Milliseconds since the Unix epoch, rounded down (toward the past).
    pub fn unix_ms(self) -> i64 {
        let ms = self.nanos.div_euclid(NANOS_PER_MS);
        i64::try_from(ms).unwrap_or(if ms < 0 { i64::MIN } else { i64::MAX })
    }

    /// Nanoseconds since the Unix epoch, rounded down (toward the past).
    pub fn unix_nanos(self) -> i128 {
        self.nanos
    }

    /// Nanoseconds from `earlier` to `self`, rounded **up**: the exact difference when both
    /// instants are whole nanoseconds, else the next nanosecond above it (or, when both carry
    /// digits beyond nanoseconds, at most one nanosecond above the next). A lag computed this
    /// way, then rounded up to a whole millisecond, is never smaller than the true lag.
    ///
    /// ```
    /// use cardgate::Timestamp;
    /// let synced = Timestamp::parse_rfc3339("2026-11-09T12:00:30Z").unwrap();
    /// let now = Timestamp::parse_rfc3339("2026-11-09T12:00:40.0009Z").unwrap();
    /// assert_eq!(now.nanos_since_ceil(synced), 10_000_900_000);
    /// let now = Timestamp::parse_rfc3339("2026-11-09T12:00:40.0000000001Z").unwrap();
    /// assert_eq!(now.nanos_since_ceil(synced), 10_000_000_001);
    /// ```
    pub fn nanos_since_ceil(self, earlier: Timestamp) -> i128 {
        self.nanos - earlier.nanos + i128::from(self.beyond)
    }

    /// Parses an RFC 3339 date-time: `2026-11-09T12:00:40Z`, `2026-11-09T13:00:40.250+01:00`.
    /// Fractions are kept to the nanosecond; non-zero digits beyond that mark the instant as
    /// strictly later than its nanosecond (see [`Timestamp::nanos_since_ceil`]): nothing is
    /// truncated in the caller's favour. Leap seconds (`:60`) are refused.
    ///
    /// ```
    /// use cardgate::Timestamp;
    /// let t = Timestamp::parse_rfc3339("1970-01-01T00:00:01.5Z").unwrap();
    /// assert_eq!(t.unix_ms(), 1500);
    /// assert_eq!(t.to_rfc3339(), "1970-01-01T00:00:01.500Z");
    /// let t = Timestamp::parse_rfc3339("1970-01-01T00:00:01.0009Z").unwrap();
    /// assert_eq!(t.unix_nanos(), 1_000_900_000);
    /// assert_eq!(t.to_rfc3339(), "1970-01-01T00:00:01.0009Z");
    /// ```
    pub fn parse_rfc3339(text: &str) -> Result<Self, InputError> {
        let bad = |why: &str| {
            InputError::range_error("", format!("invalid RFC 3339 timestamp {text:?}: {why}"))
        };
        let b = text.as_bytes();
        let num = |range: std::ops::Range<usize>| -> Option<i64> {
            let s = text.get(range)?;
            if s.bytes().all(|c| c.is_ascii_digit()) {
                s.parse().ok()
            } else {
                None
            }
        };
        let shape_ok = b.len() >= 20
            && b.get(4) == Some(&b'-')
            && b.get(7) == Some(&b'-')
            && matches!(b.get(10), Some(b'T' | b't'))
            && b.get(13) == Some(&b':')
            && b.get(16) == Some(&b':');
        if !shape_ok {
            return Err(bad(
                "expected YYYY-MM-DDTHH:MM:SS followed by Z or an offset",
            ));
        }
        let fields = (
            num(0..4),
            num(5..7),
            num(8..10),
            num(11..13),
            num(14..16),
            num(17..19),
        );
        let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = fields
        else {
            return Err(bad("non-digit in a date or time field"));
        };
        if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
            return Err(bad("no such date"));
        }
        if hour > 23 || minute > 59 || second > 59 {
            return Err(bad("no such time of day"));
        }
        let mut pos = 19;
        let mut frac_nanos = 0i128;
        let mut beyond = false;
        if b.get(pos) == Some(&b'.') {
            let start = pos + 1;
            let mut end = start;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            if end == start {
                return Err(bad("empty fraction"));
            }
            let frac = text.get(start..end).unwrap_or_default();
            let first9: String = frac.chars().chain("000000000".chars()).take(9).collect();
            frac_nanos = first9.parse().map_err(|_| bad("bad fraction"))?;
            beyond = frac.bytes().skip(9).any(|d| d != b'0');
            pos = end;
        }
        let offset_min = match text.get(pos..) {
            Some("Z" | "z") => 0,
            Some(off) if off.len() == 6 && off.as_bytes().get(3) == Some(&b':') => {
                let sign = match off.as_bytes().first() {
                    Some(b'+') => 1,
                    Some(b'-') => -1,
                    _ => return Err(bad("offset must start with + or -")),
                };
                let (Some(oh), Some(om)) = (num(pos + 1..pos + 3), num(pos + 4..pos + 6)) else {
                    return Err(bad("bad offset"));
                };
                if oh > 23 || om > 59 {
                    return Err(bad("bad offset"));
                }
                sign * (oh * 60 + om)
            }
            _ => return Err(bad("expected Z or an offset like +01:00 at the end")),
        };
        let days = days_from_civil(year, month, day);
        let secs = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_min * 60;
        Ok(Timestamp {
            nanos: i128::from(secs) * NANOS_PER_S + frac_nanos,
            beyond,
        })
    }

    /// Formats as RFC 3339 in UTC with at least milliseconds, and as many more digits (up to
    /// nanoseconds) as the instant has: `2026-11-09T12:00:40.000Z`, `2026-11-09T12:00:40.0009Z`.
    pub fn to_rfc3339(self) -> String {
        let frac = self.nanos.rem_euclid(NANOS_PER_S);
        let secs = i64::try_from(self.nanos.div_euclid(NANOS_PER_S)).unwrap_or(0);
        let mut digits = format!("{frac:09}");
        while digits.len() > 3 && digits.ends_with('0') {
            digits.pop();
        }
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{digits}Z",
            rem / 3_600,
            (rem / 60) % 60,
            rem % 60
        )
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's civil algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formatting and parsing are inverse on every day from 1600 to 2500 (the century and
    /// 400-year leap rules, month ends, the era boundaries of the civil algorithms).
    #[test]
    fn formats_every_day_back_to_itself() {
        let first = Timestamp::parse_rfc3339("1600-01-01T00:00:00Z")
            .unwrap()
            .unix_ms();
        let last = Timestamp::parse_rfc3339("2500-12-31T23:59:59Z")
            .unwrap()
            .unix_ms();
        let mut days = 0;
        for ms in (first..=last).step_by(86_400_000) {
            let t = Timestamp::from_unix_ms(ms + 45_296_789);
            let text = t.to_rfc3339();
            assert!(text.ends_with("T12:34:56.789Z"), "{text}");
            assert_eq!(Timestamp::parse_rfc3339(&text), Ok(t), "{text}");
            days += 1;
        }
        assert_eq!(days, 901 * 365 + 219);
        assert_eq!(
            Timestamp::from_unix_ms(951_782_400_000).to_rfc3339(),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(
            Timestamp::from_unix_ms(-2_203_891_200_000).to_rfc3339(),
            "1900-03-01T00:00:00.000Z"
        );
    }

    /// The host's clock in and out: milliseconds and nanoseconds since the epoch, rounded
    /// toward the past, saturating where a figure leaves `i64`.
    #[test]
    fn unix_figures() {
        let t = Timestamp::from_unix_ms(1_794_225_640_123);
        assert_eq!(
            t,
            Timestamp::parse_rfc3339("2026-11-09T12:00:40.123Z").unwrap()
        );
        assert_eq!(t.unix_ms(), 1_794_225_640_123);
        assert_eq!(t.unix_nanos(), 1_794_225_640_123_000_000);
        assert_eq!(Timestamp::from_unix_ms(-2).unix_nanos(), -2_000_000);
        assert_eq!(Timestamp::from_unix_nanos(-1).unix_ms(), -1);
        assert_eq!(Timestamp::from_unix_nanos(1_999_999).unix_ms(), 1);
        assert_eq!(Timestamp::from_unix_nanos(i128::MAX).unix_ms(), i64::MAX);
        assert_eq!(Timestamp::from_unix_nanos(i128::MIN).unix_ms(), i64::MIN);
    }

    #[test]
    fn parses_offsets_and_fractions() {
        let z = Timestamp::parse_rfc3339("2026-11-09T12:00:40Z").unwrap();
        let off = Timestamp::parse_rfc3339("2026-11-09T13:00:40+01:00").unwrap();
        assert_eq!(z, off);
        assert_eq!(z.unix_ms(), 1_794_225_640_000);
        let frac = Timestamp::parse_rfc3339("2026-11-09T12:00:40.123456Z").unwrap();
        assert_eq!(frac.unix_ms() - z.unix_ms(), 123);
        assert_eq!(frac.nanos_since_ceil(z), 123_456_000);
        assert_eq!(frac.to_rfc3339(), "2026-11-09T12:00:40.123456Z");
        // Digits beyond nanoseconds: the instant is later than its nanosecond, never earlier.
        let tail = Timestamp::parse_rfc3339("2026-11-09T12:00:40.1234567891Z").unwrap();
        assert_eq!(tail.nanos_since_ceil(z), 123_456_790);
        assert_eq!(z.nanos_since_ceil(tail), -123_456_789);
        let zeros = Timestamp::parse_rfc3339("2026-11-09T12:00:40.1234567890000Z").unwrap();
        assert_eq!(zeros.nanos_since_ceil(z), 123_456_789);
        assert!(tail > zeros);
        assert_eq!(
            Timestamp::parse_rfc3339("1969-12-31T23:59:59.9995Z")
                .unwrap()
                .unix_ms(),
            -1
        );
        assert_eq!(
            Timestamp::parse_rfc3339("2024-02-29T00:00:00Z")
                .unwrap()
                .to_rfc3339(),
            "2024-02-29T00:00:00.000Z"
        );
    }

    #[test]
    fn refuses_non_rfc3339() {
        for bad in [
            "",
            "2026-11-09",
            "2026-11-09 12:00:40Z",
            "2026-11-09T12:00:40",
            "2026-02-30T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-11-09T24:00:00Z",
            "2026-11-09T12:00:60Z",
            "2026-11-09T12:00:40.Z",
            "2026-11-09T12:00:40+0100",
            "2026-11-09T12:00:40+24:00",
            "+2026-11-09T12:00:40Z",
            "2026-11-09T12:00:40Zjunk",
        ] {
            assert!(Timestamp::parse_rfc3339(bad).is_err(), "{bad}");
        }
    }
}
