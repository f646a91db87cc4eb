//! Counters and histograms, defined through the proxy-wasm ABI.
//!
//! Envoy shows them under `wasmcustom.` in `/stats`. Labels are encoded in the names and pulled
//! out by the `stats_tags` of `envoy/envoy.yaml`, which turn, e.g.,
//! `wasmcustom.cardgate.reason.watermark_exceeded` into
//! `cardgate_reason{cardgate_reason="watermark_exceeded"}` in `/stats/prometheus`.
//!
//! | name | type | meaning |
//! |---|---|---|
//! | `cardgate.verdict.{valid,rejected,passthrough,refused}` | counter | card answers by verdict (`passthrough`: non-2xx answers, untouched; `refused`: a caller header the gate cannot use) |
//! | `cardgate.error_class.{stale_agent_card,capability_mismatch,malformed_card}` | counter | rejections by class |
//! | `cardgate.reason.<code>` | counter | every reason of every rejection |
//! | `cardgate.observe.not_blocked` | counter | rejections forwarded because the mode is `observe` |
//! | `cardgate.body_chunks` | counter | body callbacks buffered (a card split over many reads) |
//! | `cardgate.staleness_ms` | histogram | staleness figure of every evaluated answer that had one |
//! | `cardgate.analysis.{hit,miss}` | counter | card bodies whose analysis (parse, hash, card view) was reused from the per-VM cache, or made now |
//! | `cardgate.evaluation_us` | histogram | time spent in the core per evaluation, in microseconds |
//! | `cardgate.reresolve.attempted` | counter | rejected answers (stale or malformed) that started a re-resolution |
//! | `cardgate.reresolve.succeeded` | counter | re-resolutions that served another source's valid card |
//! | `cardgate.reresolve.failed` | counter | re-resolutions that ended in the problem document (over budget included) |
//! | `cardgate.reresolve.coalesced` | counter | re-resolutions that waited for a call already in flight (single flight) |
//! | `cardgate.reresolve.over_budget` | counter | re-resolutions refused by the per-VM token bucket |
//! | `cardgate.reresolve.reused` | counter | attempts answered from the reuse cache (no call) |
//! | `cardgate.reresolve.calls` | counter | calls dispatched to a re-resolution cluster |
//! | `cardgate.reresolve_ms` | histogram | time from the first answer to the re-resolution's reply, in ms |

/// `cardgate.verdict.<verdict>`.
pub fn verdict(verdict: &str) -> String {
    format!("cardgate.verdict.{verdict}")
}

/// `cardgate.error_class.<class>`.
pub fn error_class(class: &str) -> String {
    format!("cardgate.error_class.{class}")
}

/// `cardgate.reason.<code>`.
pub fn reason(code: &str) -> String {
    format!("cardgate.reason.{code}")
}

/// Rejections that observe mode let through.
pub const OBSERVE_NOT_BLOCKED: &str = "cardgate.observe.not_blocked";
/// Body callbacks buffered.
pub const BODY_CHUNKS: &str = "cardgate.body_chunks";
/// Staleness histogram (ms).
pub const STALENESS_MS: &str = "cardgate.staleness_ms";
/// Card bodies whose analysis was reused from the per-VM cache.
pub const ANALYSIS_HIT: &str = "cardgate.analysis.hit";
/// Card bodies analysed now.
pub const ANALYSIS_MISS: &str = "cardgate.analysis.miss";
/// Evaluation time histogram (µs).
pub const EVALUATION_US: &str = "cardgate.evaluation_us";
/// Re-resolutions started.
pub const RERESOLVE_ATTEMPTED: &str = "cardgate.reresolve.attempted";
/// Re-resolutions that served another source's valid card.
pub const RERESOLVE_SUCCEEDED: &str = "cardgate.reresolve.succeeded";
/// Re-resolutions that ended in the problem document.
pub const RERESOLVE_FAILED: &str = "cardgate.reresolve.failed";
/// Re-resolutions that joined a call in flight.
pub const RERESOLVE_COALESCED: &str = "cardgate.reresolve.coalesced";
/// Re-resolutions refused by the token bucket.
pub const RERESOLVE_OVER_BUDGET: &str = "cardgate.reresolve.over_budget";
/// Attempts answered from the reuse cache.
pub const RERESOLVE_REUSED: &str = "cardgate.reresolve.reused";
/// Calls dispatched.
pub const RERESOLVE_CALLS: &str = "cardgate.reresolve.calls";
/// Re-resolution latency histogram (ms).
pub const RERESOLVE_MS: &str = "cardgate.reresolve_ms";

#[cfg(target_arch = "wasm32")]
pub use host::{add, increment, record};

#[cfg(target_arch = "wasm32")]
mod host {
    use proxy_wasm::hostcalls;
    use proxy_wasm::types::MetricType;
    use std::cell::RefCell;

    thread_local! {
        /// Metric ids by name: each VM defines a name once, on first use.
        static IDS: RefCell<Vec<(String, u32)>> = const { RefCell::new(Vec::new()) };
    }

    fn id(kind: MetricType, name: &str) -> Option<u32> {
        IDS.with(|ids| {
            let mut ids = ids.borrow_mut();
            if let Some((_, id)) = ids.iter().find(|(n, _)| n == name) {
                return Some(*id);
            }
            let id = hostcalls::define_metric(kind, name).ok()?;
            ids.push((name.to_owned(), id));
            Some(id)
        })
    }

    /// Adds one to a counter.
    pub fn increment(name: &str) {
        add(name, 1);
    }

    /// Adds `n` to a counter (one host call for several events).
    pub fn add(name: &str, n: u64) {
        if let Some(id) = id(MetricType::Counter, name) {
            let _ = hostcalls::increment_metric(id, i64::try_from(n).unwrap_or(i64::MAX));
        }
    }

    /// Records a histogram sample.
    pub fn record(name: &str, value: u64) {
        if let Some(id) = id(MetricType::Histogram, name) {
            let _ = hostcalls::record_metric(id, value);
        }
    }
}
