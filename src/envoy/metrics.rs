//! Counters and histograms, defined through the proxy-wasm ABI.
//!
//! Envoy shows them under `wasmcustom.` in `/stats`. Labels are encoded in the names and pulled
//! out by the `stats_tags` of `envoy/envoy.yaml`, which turn, e.g.,
//! `wasmcustom.cardgate.reason.watermark_exceeded` into
//! `cardgate_reason{cardgate_reason="watermark_exceeded"}` in `/stats/prometheus`.
//!
//! Counters are added to in Envoy at once (one host call each), so `/stats` counts a request as
//! soon as it is answered. Histogram samples are kept in the VM and handed to Envoy every
//! [`FLUSH_MS`] ms (a tick) and when the plugin ends ([`Batch`]): Envoy shows histograms only
//! after its own stats flush (`stats_flush_interval`, 5 s by default) anyway, and each sample
//! would otherwise be a host call on the request path.
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
//! | `cardgate.evaluation_us` | histogram | time spent in the core per evaluation, in microseconds: one evaluation in [`EVALUATION_SAMPLE`] per VM is timed (the first, then every 16th), hits and misses alike, so its count is about evaluations / 16 |
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

/// `cardgate.verdict.valid` (the counter every passed card adds to).
pub const VERDICT_VALID: &str = "cardgate.verdict.valid";

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
/// Evaluation time histogram (µs), of one evaluation in [`EVALUATION_SAMPLE`].
pub const EVALUATION_US: &str = "cardgate.evaluation_us";
/// One evaluation in this many is timed into [`EVALUATION_US`]: timing one takes a second
/// clock read and a histogram record (two host calls), what a repeated card's whole check costs.
pub const EVALUATION_SAMPLE: u32 = 16;

/// Picks the evaluations [`EVALUATION_US`] times: the first, then every
/// [`EVALUATION_SAMPLE`]th, whatever their outcome or cost (an unbiased sample).
#[derive(Default)]
pub struct Sampler {
    seen: u32,
}

impl Sampler {
    /// Counts one evaluation; whether to time it.
    pub fn take(&mut self) -> bool {
        let timed = self.seen == 0;
        self.seen = (self.seen + 1) % EVALUATION_SAMPLE;
        timed
    }
}
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

/// How often (ms) the histogram samples kept in the VM are handed to Envoy ([`Batch`]).
pub const FLUSH_MS: u64 = 50;

/// Most histogram samples kept between flushes; one more sends them at once.
pub const MAX_SAMPLES: usize = 256;

/// Histogram samples kept in the VM between flushes (a tick every [`FLUSH_MS`], and the plugin's
/// end), in order, at most [`MAX_SAMPLES`]: each is a host call, on the request path otherwise.
#[derive(Default)]
pub struct Batch {
    samples: Vec<Sample>,
}

/// A histogram's metric id and a sample.
pub type Sample = (u32, u64);

impl Batch {
    /// Keeps a sample of histogram `id`; whether the samples are now at their bound (to be sent).
    pub fn sample(&mut self, id: u32, value: u64) -> bool {
        self.samples.push((id, value));
        self.samples.len() >= MAX_SAMPLES
    }

    /// Takes the samples kept.
    pub fn take(&mut self) -> Vec<Sample> {
        std::mem::take(&mut self.samples)
    }
}

#[cfg(target_arch = "wasm32")]
pub use host::{add, flush, increment, increment_named, record};

#[cfg(target_arch = "wasm32")]
mod host {
    use super::Batch;
    use proxy_wasm::hostcalls;
    use proxy_wasm::types::MetricType;
    use std::cell::RefCell;

    /// Metric ids by name: each VM defines a name once, on first use. The constant names
    /// (`&'static str`, whose address never changes) are found by address and length, without
    /// comparing text (this runs several times per request); names built at run time by text.
    /// And the histogram samples kept for the next flush.
    #[derive(Default)]
    struct Ids {
        by_address: Vec<(usize, usize, u32)>,
        by_name: Vec<(String, u32)>,
        batch: Batch,
    }

    thread_local! {
        static IDS: RefCell<Ids> = RefCell::new(Ids::default());
    }

    fn define(kind: MetricType, name: &str, ids: &mut Ids) -> Option<u32> {
        if let Some((_, id)) = ids.by_name.iter().find(|(n, _)| n == name) {
            return Some(*id);
        }
        let id = hostcalls::define_metric(kind, name).ok()?;
        ids.by_name.push((name.to_owned(), id));
        Some(id)
    }

    fn id_static(kind: MetricType, name: &'static str, ids: &mut Ids) -> Option<u32> {
        let key = (name.as_ptr() as usize, name.len());
        if let Some((_, _, id)) = ids.by_address.iter().find(|(a, l, _)| (*a, *l) == key) {
            return Some(*id);
        }
        let id = define(kind, name, ids)?;
        ids.by_address.push((key.0, key.1, id));
        Some(id)
    }

    /// Adds one to a counter.
    pub fn increment(name: &'static str) {
        add(name, 1);
    }

    /// Adds `n` to a counter.
    pub fn add(name: &'static str, n: u64) {
        let id = IDS.with(|ids| id_static(MetricType::Counter, name, &mut ids.borrow_mut()));
        if let Some(id) = id {
            let _ = hostcalls::increment_metric(id, i64::try_from(n).unwrap_or(i64::MAX));
        }
    }

    /// Adds one to a counter whose name is built at run time (a verdict, class or reason).
    pub fn increment_named(name: &str) {
        let id = IDS.with(|ids| define(MetricType::Counter, name, &mut ids.borrow_mut()));
        if let Some(id) = id {
            let _ = hostcalls::increment_metric(id, 1);
        }
    }

    /// Records a histogram sample (kept until the next [`flush`], or sent with the samples
    /// before it once they reach their bound).
    pub fn record(name: &'static str, value: u64) {
        let full = IDS.with(|ids| {
            let mut ids = ids.borrow_mut();
            id_static(MetricType::Histogram, name, &mut ids)
                .is_some_and(|id| ids.batch.sample(id, value))
        });
        if full {
            flush();
        }
    }

    /// Hands the kept samples to Envoy: one host call per sample.
    pub fn flush() {
        let samples = IDS.with(|ids| ids.borrow_mut().batch.take());
        for (id, value) in samples {
            let _ = hostcalls::record_metric(id, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_keeps_samples_in_order_and_bounded() {
        let mut batch = Batch::default();
        let full: Vec<bool> = (0..MAX_SAMPLES as u64)
            .map(|v| batch.sample(9, v))
            .collect();
        assert!(full[..MAX_SAMPLES - 1].iter().all(|f| !f) && full[MAX_SAMPLES - 1]);
        let samples = batch.take();
        assert_eq!(samples.len(), MAX_SAMPLES);
        assert_eq!(samples[3], (9, 3));
        assert!(batch.take().is_empty());
    }

    #[test]
    fn one_evaluation_in_sixteen_is_timed() {
        let mut sampler = Sampler::default();
        let timed: Vec<usize> = (0..100).filter(|_| sampler.take()).collect();
        assert_eq!(timed, [0, 16, 32, 48, 64, 80, 96]);
    }

    #[test]
    fn the_constant_verdict_is_the_built_one() {
        assert_eq!(VERDICT_VALID, verdict("valid"));
    }

    /// The per-class and per-reason counters have the names the table above documents.
    #[test]
    fn counters_are_named_as_documented() {
        assert_eq!(
            error_class("stale_agent_card"),
            "cardgate.error_class.stale_agent_card"
        );
        assert_eq!(
            reason("watermark_exceeded"),
            "cardgate.reason.watermark_exceeded"
        );
        assert_eq!(verdict("rejected"), "cardgate.verdict.rejected");
    }
}
