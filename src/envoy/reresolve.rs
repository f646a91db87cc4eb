//! Re-resolution in the proxy: what the filter keeps between requests to protect the primary,
//! and how it reads an answer from another cluster. Plain Rust (no host calls): the single
//! flight table, the reuse cache and the token bucket live in the root context; `filter` makes
//! the calls and replies.
//!
//! The rule (accept, try the next source, stop) and the final decision are the core's
//! ([`crate::resolution`]); this module only supplies the attempts:
//!
//! - [`call_answer`]: a dispatched call's answer as an attempt, read by the response path's own
//!   functions ([`response::read_status`], the header copy less `a2a-card-*`, encodings, the size
//!   limit): `Failed` for no answer or a status that is no card; `body_empty` for a `304`, `206`
//!   or `205` and a refusal for a redirect with a `Location`; otherwise the card evaluated with
//!   the caller's requirement and the answer's own watermark headers, exactly as the replica's
//!   answer was);
//! - [`CardCache`]: a valid card from a cluster, reused for at most what is left of the
//!   tolerance: the staleness it had when fetched plus the time since, re-checked per request
//!   with the current clock and the request's own requirement;
//! - [`Flights`]: concurrent re-resolutions that need the same cluster and path share one call;
//! - [`Variant`]: the caller's headers that can choose which card a source serves, sent on
//!   every call and part of the flight and cache keys;
//! - [`TokenBucket`]: calls per second per VM; when empty, the resolution stops `over_budget`.

use super::vec_map::VecMap;

use crate::resolution::{Answer, Resolution, ResolutionLimits};
use crate::watermark_sources::{ResponseFields, WatermarkSources};
use crate::{Decision, ErrorClass, FreshnessBasis, Limits, Requirement, Timestamp};

use super::headers::HeaderSnapshot;
use super::redirect;
use super::response::{self, evaluate_body, StatusReading};
use super::routes::{CardRoute, RouteId};

/// A route's `re_resolve` setting (validated by `config`).
#[derive(Debug, Clone, PartialEq)]
pub struct ReResolve {
    /// Envoy clusters to ask, in order, after the route's own upstream.
    pub clusters: Vec<String>,
    /// The path to ask for (`{id}`: the agent id the route matched); `None`: the request's.
    pub path: Option<String>,
    /// `:authority` of the calls; `None`: the cluster's name.
    pub authority: Option<String>,
    /// Per-call timeout (ms).
    pub timeout_ms: u64,
    /// The core's bounds: `max_attempts` (the route's own answer included) and the deadline.
    pub limits: ResolutionLimits,
    /// Token bucket: calls per second.
    pub per_second: f64,
    /// Token bucket: burst (the bucket's size).
    pub burst: u32,
    /// Which bucket: 0 for the top-level setting, `i + 1` for `routes[i]`'s own.
    pub budget_slot: usize,
}

impl ReResolve {
    /// The path to ask the clusters for, given the request path (query kept) and the agent id.
    pub fn path_for(&self, request_path: &str, agent: Option<&str>) -> Result<String, String> {
        let Some(template) = &self.path else {
            return Ok(request_path.to_owned());
        };
        if !template.contains("{id}") {
            return Ok(template.clone());
        }
        let agent = agent.ok_or_else(|| {
            "the re_resolve path has {id} but this request names no agent".to_owned()
        })?;
        Ok(template.replace("{id}", &percent_encode_segment(agent)))
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn percent_encode_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The caller's request headers that can choose which card a source serves: `A2A-Version`
/// (@a2a-js/sdk's own card handler serves a v0.3-shaped card to a request without `1.0`, with
/// `Vary: A2A-Version`) and `Accept`. Every re-resolution call sends them as the caller sent
/// them, so each source is asked what the route's upstream was asked, and they are part of the
/// single-flight and reuse-cache keys, so that no caller is handed a card asked for with another
/// caller's headers (DESIGN.md, "Card variants").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Variant {
    /// The caller's `accept` and `a2a-version` fields, in the caller's order.
    sent: Vec<(&'static str, String)>,
}

impl Variant {
    /// The caller's variant headers, or why they cannot be sent (a call's header values are
    /// text; Envoy lets other bytes through): the calls then fail closed, as for a path that
    /// cannot be asked.
    pub fn of(request: &HeaderSnapshot) -> Result<Variant, String> {
        let mut sent = Vec::new();
        for (name, value) in request.pairs() {
            let Some(name) = ["accept", "a2a-version"]
                .into_iter()
                .find(|n| name.eq_ignore_ascii_case(n.as_bytes()))
            else {
                continue;
            };
            let value = std::str::from_utf8(value).map_err(|_| {
                format!(
                    "the caller's {name} header is not UTF-8 text, so no other source can be \
                     asked with it"
                )
            })?;
            sent.push((name, value.to_owned()));
        }
        Ok(Variant { sent })
    }

    /// The headers a call sends for this variant (after `:method`, `:path` and `:authority`):
    /// the caller's, `accept: application/json` when it sent no `Accept`, and
    /// `accept-encoding: identity`.
    pub fn call_headers(&self) -> Vec<(&str, &str)> {
        let mut headers: Vec<(&str, &str)> = Vec::with_capacity(self.sent.len() + 2);
        if !self.sent.iter().any(|(n, _)| *n == "accept") {
            headers.push(("accept", "application/json"));
        }
        headers.extend(self.sent.iter().map(|(n, v)| (*n, v.as_str())));
        headers.push(("accept-encoding", "identity"));
        headers
    }
}

/// Calls per second with a burst; refills continuously.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    per_second: f64,
    burst: f64,
    tokens: f64,
    last_ns: Option<u64>,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(per_second: f64, burst: u32) -> TokenBucket {
        TokenBucket {
            per_second,
            burst: f64::from(burst),
            tokens: f64::from(burst),
            last_ns: None,
        }
    }

    /// Takes one token at host time `now_ns`; `false` when the bucket is empty.
    pub fn take(&mut self, now_ns: u64) -> bool {
        if let Some(last) = self.last_ns {
            let secs = now_ns.saturating_sub(last) as f64 / 1e9;
            self.tokens = (self.tokens + secs * self.per_second).min(self.burst);
        }
        self.last_ns = Some(now_ns);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// A card another cluster served, kept for reuse and for the reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ServedCard {
    /// Its `2xx` status (the reply keeps it, as the response path forwards an upstream's).
    pub status: u16,
    /// The answer's exact bytes.
    pub body: Vec<u8>,
    /// Its `Content-Type`, if any.
    pub content_type: Option<String>,
    /// Its `Cache-Control` values (capped again on every reply).
    pub cache_control: Vec<Vec<u8>>,
    /// Its `Vary` values (the reply keeps them beside the gate's own).
    pub vary: Vec<Vec<u8>>,
}

/// One reusable card.
#[derive(Debug, Clone)]
struct CacheEntry {
    cluster: String,
    path: String,
    variant: Variant,
    route: RouteId,
    card: ServedCard,
    staleness_ms: u64,
    fetched_ns: u64,
}

/// Valid cards from clusters, keyed by cluster, path and the caller's [`Variant`] (and route:
/// its envelope settings).
#[derive(Debug, Clone, Default)]
pub struct CardCache {
    entries: Vec<CacheEntry>,
}

/// How many cards a VM keeps per filter configuration.
pub const CACHE_CAPACITY: usize = 32;

/// The lag header a reused card is evaluated with (any name the route does not use would do).
const REUSE_LAG_HEADER: &str = "x-cardgate-reused-lag-ms";

impl CardCache {
    /// Keeps a valid card (replacing the one for the same key; the oldest goes when full).
    #[allow(clippy::too_many_arguments)]
    pub fn put(
        &mut self,
        (cluster, path, variant): (&str, &str, &Variant),
        route: RouteId,
        card: ServedCard,
        staleness_ms: u64,
        fetched_ns: u64,
    ) {
        self.entries.retain(|e| {
            !(e.cluster == cluster && e.path == path && e.variant == *variant && e.route == route)
        });
        if self.entries.len() >= CACHE_CAPACITY {
            if let Some(oldest) = self
                .entries
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| e.fetched_ns)
                .map(|(i, _)| i)
            {
                self.entries.swap_remove(oldest);
            }
        }
        self.entries.push(CacheEntry {
            cluster: cluster.to_owned(),
            path: path.to_owned(),
            variant: variant.clone(),
            route,
            card,
            staleness_ms,
            fetched_ns,
        });
    }

    /// The cached card for this key re-evaluated now with `requirement`: its staleness is the
    /// one it was fetched with plus the time since (rounded up to a whole ms). Returned only
    /// when another fetch could not do better: valid on its watermark (a `replace` pin has no
    /// tolerance to spend, so it is fetched again), or a fresh card that lacks a capability.
    /// Anything else drops the entry.
    pub fn reuse(
        &mut self,
        key: (&str, &str, &Variant, RouteId),
        route: &CardRoute,
        requirement: &Requirement,
        now_ns: u64,
        limits: &Limits,
    ) -> Option<(Decision, ServedCard)> {
        let (cluster, path, variant, route_id) = key;
        let i = self.entries.iter().position(|e| {
            e.cluster == cluster && e.path == path && e.variant == *variant && e.route == route_id
        })?;
        let entry = self.entries.get(i)?;
        let since_ms = now_ns.saturating_sub(entry.fetched_ns).div_ceil(1_000_000);
        let lag = entry.staleness_ms.saturating_add(since_ms).to_string();
        let mut reread = route.clone();
        reread.watermark = WatermarkSources {
            lag_ms_header: Some(REUSE_LAG_HEADER.to_owned()),
            lag_s_header: None,
            synced_at_header: None,
            consul: false,
            age: false,
        };
        reread.watermark_pointer = None;
        let header = |name: &str| {
            if name == REUSE_LAG_HEADER {
                vec![lag.as_bytes().to_vec()]
            } else {
                Vec::new()
            }
        };
        let now = Timestamp::from_unix_nanos(i128::from(now_ns));
        let decision = evaluate_body(
            &entry.card.body,
            &reread,
            requirement,
            ResponseFields::headers(&header),
            now,
            limits,
        );
        let usable = match decision.error_class() {
            None => decision.freshness() == Some(FreshnessBasis::Watermark),
            Some(ErrorClass::CapabilityMismatch) => true,
            Some(_) => false,
        };
        if usable {
            Some((decision, entry.card.clone()))
        } else {
            self.entries.swap_remove(i);
            None
        }
    }

    /// How many cards are kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no card is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One call in flight and the streams waiting for it.
#[derive(Debug, Clone)]
pub struct Flight {
    /// The host's token for the call.
    pub token: u32,
    /// The stream whose context made the call (its end cancels the call).
    pub owner: u32,
    /// Cluster called.
    pub cluster: String,
    /// Path asked for.
    pub path: String,
    /// The variant headers sent.
    pub variant: Variant,
    /// Streams waiting (the owner included when it waits).
    pub waiters: Vec<u32>,
    /// Host time the call started.
    pub started_ns: u64,
    /// The call's timeout.
    pub timeout_ms: u64,
}

/// The calls in flight of one filter configuration.
#[derive(Debug, Clone, Default)]
pub struct Flights {
    flights: Vec<Flight>,
}

impl Flights {
    /// Joins the call for `cluster`, `path` and `variant` if one is in flight: `true` if
    /// `stream` now waits.
    pub fn join(&mut self, cluster: &str, path: &str, variant: &Variant, stream: u32) -> bool {
        match self
            .flights
            .iter_mut()
            .find(|f| f.cluster == cluster && f.path == path && f.variant == *variant)
        {
            Some(f) => {
                f.waiters.push(stream);
                true
            }
            None => false,
        }
    }

    /// Records a new call.
    pub fn start(&mut self, flight: Flight) {
        self.flights.push(flight);
    }

    /// Removes the call with this token.
    pub fn take(&mut self, token: u32) -> Option<Flight> {
        let i = self.flights.iter().position(|f| f.token == token)?;
        Some(self.flights.swap_remove(i))
    }

    /// Removes every call `owner` made (its end cancels them).
    pub fn take_owned_by(&mut self, owner: u32) -> Vec<Flight> {
        let (gone, kept) = std::mem::take(&mut self.flights)
            .into_iter()
            .partition(|f| f.owner == owner);
        self.flights = kept;
        gone
    }

    /// How many calls are in flight.
    pub fn len(&self) -> usize {
        self.flights.len()
    }

    /// Whether no call is in flight.
    pub fn is_empty(&self) -> bool {
        self.flights.is_empty()
    }
}

/// One stream's resolution in progress.
#[derive(Debug, Clone)]
pub struct Pending {
    /// The core's resolution (the route's own answer is its first attempt).
    pub resolution: Resolution,
    /// Index into `re_resolve.clusters` of the next source.
    pub next: usize,
    /// The setting in force.
    pub re_resolve: ReResolve,
    /// The card route (envelope and watermark settings for every answer).
    pub route: RouteId,
    /// The requirement every answer is checked against.
    pub requirement: Requirement,
    /// The path asked of the clusters (or why there is none).
    pub ask: Result<String, String>,
    /// The caller's variant headers, sent with every call.
    pub variant: Variant,
    /// The caller asked with `HEAD`.
    pub head: bool,
    /// The request path and the rule's agent (for the log line).
    pub request_path: String,
    /// The rule's agent.
    pub rule_agent: Option<String>,
    /// Host time the resolution started.
    pub started_ns: u64,
    /// The accepted card, once an attempt is valid.
    pub accepted: Option<(String, ServedCard)>,
}

/// Everything a filter configuration keeps between requests (one per root context).
#[derive(Debug, Default)]
pub struct Shared {
    /// Streams waiting on a resolution, by context id.
    pub pending: VecMap<u32, Box<Pending>>,
    /// Calls in flight.
    pub flights: Flights,
    /// Reusable cards.
    pub cache: CardCache,
    /// Token buckets by budget slot.
    pub buckets: VecMap<usize, TokenBucket>,
}

/// What a call answered, as seen by the host.
pub struct CallResult<'a> {
    /// `:status`, `None` when the call got no answer (timeout, refused, reset).
    pub status: Option<u16>,
    /// Response headers, less the `a2a-card-*` ones (the gate's alone).
    pub headers: &'a HeaderSnapshot,
    /// Response trailers (empty without any), less the `a2a-card-*` ones.
    pub trailers: &'a HeaderSnapshot,
    /// The body read (at most `max_card_bytes + 1` bytes, or the start of a longer one).
    pub body: &'a [u8],
    /// The body's full size.
    pub body_size: usize,
    /// Milliseconds since the call started.
    pub elapsed_ms: u64,
    /// The call's timeout.
    pub timeout_ms: u64,
}

impl CallResult<'_> {
    /// Every value of a response header.
    pub fn header(&self, name: &str) -> Vec<Vec<u8>> {
        self.headers.values(name)
    }

    /// The card as served (for the reply and the cache).
    pub fn served(&self) -> ServedCard {
        ServedCard {
            status: self.status.unwrap_or(200),
            body: self.body.to_vec(),
            content_type: self
                .header("content-type")
                .first()
                .map(|v| String::from_utf8_lossy(v).into_owned()),
            cache_control: self.header("cache-control"),
            vary: self.header("vary"),
        }
    }
}

/// Whether a call ended at its timeout. The filter's clock and Envoy's timer are read at
/// slightly different moments (a 400 ms timeout was seen answered at 395 ms by the filter's
/// clock), so the margin is a tenth of the timeout, at least 50 ms.
fn ran_out_of_time(result: &CallResult<'_>) -> bool {
    let margin = (result.timeout_ms / 10).max(50);
    result.elapsed_ms.saturating_add(margin) >= result.timeout_ms
}

/// The attempt a call's answer makes: the same check as the route's own answer.
pub fn call_answer(
    result: &CallResult<'_>,
    route: &CardRoute,
    requirement: &Requirement,
    now: Timestamp,
    limits: &Limits,
) -> Answer {
    let status = match result.status {
        None if ran_out_of_time(result) => {
            return Answer::Failed(format!("no answer within {} ms", result.timeout_ms))
        }
        None => {
            return Answer::Failed(format!(
                "no answer (connection refused or reset after {} ms)",
                result.elapsed_ms
            ))
        }
        Some(s) => s,
    };
    let reading = response::read_status(status);
    // Envoy answers a call that ran out of time with its own 504.
    if reading != StatusReading::Card && ran_out_of_time(result) {
        return Answer::Failed(format!(
            "no answer within {} ms (HTTP {status})",
            result.timeout_ms
        ));
    }
    // The status read as the response path reads it: the same verdict for the same answer.
    match reading {
        StatusReading::Card => {}
        StatusReading::NoWholeCard(decision) => return Answer::Card(decision),
        // A re-resolution follows no redirect: its target is a card the gate never checked.
        // Refused as the response path refuses a redirect past the gate; one without a
        // `Location` (no client follows it) is no card, as it passes there.
        StatusReading::Redirect => {
            let locations = result.header("location");
            if !matches!(
                redirect::target(&locations, "/", None, None),
                redirect::Target::None
            ) {
                return Answer::Card(Box::new(response::redirect_refused(
                    status,
                    "a re-resolution follows no redirect",
                )));
            }
            return Answer::Failed(format!("HTTP {status}"));
        }
        StatusReading::NotACard => return Answer::Failed(format!("HTTP {status}")),
    }
    // Trailers are read as the response path reads them: an encoding or a framing field there
    // is refused too.
    let refusal = response::unreadable_encoding(&|name| result.header(name))
        .or_else(|| response::unreadable_trailers(&|name| result.trailers.values(name)));
    if let Some(decision) = refusal {
        return Answer::Card(Box::new(decision));
    }
    let limit = limits.max_card_bytes;
    if result.body_size > limit {
        let start = result.body.get(..4096).unwrap_or(result.body);
        return Answer::Card(Box::new(Decision::body_too_large(
            start,
            result.body_size,
            limit,
            true,
        )));
    }
    let header = |name: &str| result.header(name);
    let trailer = |name: &str| result.trailers.first(name).is_some();
    Answer::Card(Box::new(evaluate_body(
        result.body,
        route,
        requirement,
        ResponseFields {
            header: &header,
            trailer: &trailer,
        },
        now,
        limits,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envoy::routes::PathPattern;
    use crate::resolution::Step;

    const V3: &str = r#"{"name":"w","version":"3.0.0","skills":[{"id":"task.execute.v3"}]}"#;

    fn route() -> CardRoute {
        CardRoute {
            pattern: PathPattern::WellKnown,
            agent: None,
            card_pointer: None,
            watermark: WatermarkSources::conventional(),
            watermark_pointer: None,
        }
    }

    fn req(text: &str) -> Requirement {
        Requirement::from_json(text).unwrap()
    }

    fn served(body: &str) -> ServedCard {
        ServedCard {
            status: 200,
            body: body.as_bytes().to_vec(),
            content_type: Some("application/json".into()),
            cache_control: vec![],
            vary: vec![],
        }
    }

    /// A variant with these `A2A-Version` values.
    fn version(values: &[&str]) -> Variant {
        Variant {
            sent: values
                .iter()
                .map(|v| ("a2a-version", (*v).to_owned()))
                .collect(),
        }
    }

    #[test]
    fn bucket_refills_at_its_rate_up_to_its_burst() {
        let mut b = TokenBucket::new(2.0, 2);
        assert!(b.take(0) && b.take(0));
        assert!(!b.take(100_000_000), "0.2 tokens after 100 ms");
        assert!(b.take(500_000_000), "1 token after 500 ms");
        assert!(!b.take(500_000_000));
        assert!(b.take(10_000_000_000) && b.take(10_000_000_000));
        assert!(!b.take(10_000_000_000), "never more than the burst");
    }

    #[test]
    fn cache_reuses_for_what_is_left_of_the_tolerance() {
        let mut c = CardCache::default();
        let r = route();
        let limits = Limits::default();
        let none = Variant::default();
        c.put(
            ("primary", "/p", &none),
            RouteId::WellKnown,
            served(V3),
            500,
            1_000_000_000,
        );
        let key = ("primary", "/p", &none, RouteId::WellKnown);
        let two_s = req(r#"{"max_stale":"2s"}"#);
        // 500 ms stale at fetch + 1.5 s since = 2000 ms: still within 2 s.
        let (d, card) = c
            .reuse(key, &r, &two_s, 2_500_000_000, &limits)
            .expect("reusable");
        assert!(d.is_valid(), "{}", d.to_json());
        assert_eq!(d.staleness_ms(), Some(2000));
        assert_eq!(card.body, V3.as_bytes());
        // A different requirement is evaluated on the same bytes.
        let mismatch = req(r#"{"max_stale":"10s","require":["other"]}"#);
        let (d, _) = c.reuse(key, &r, &mismatch, 2_500_000_000, &limits).unwrap();
        assert_eq!(d.error_class(), Some(ErrorClass::CapabilityMismatch));
        // One nanosecond more than the tolerance: dropped.
        assert!(c.reuse(key, &r, &two_s, 2_500_000_001, &limits).is_none());
        assert!(c.is_empty());
    }

    #[test]
    fn cache_never_reuses_a_replace_pin_and_stays_bounded() {
        let mut c = CardCache::default();
        let hash = crate::api::card_hash(V3.as_bytes()).unwrap();
        let pinned = req(&format!(r#"{{"pin":"{hash}"}}"#));
        let none = Variant::default();
        c.put(("p", "/a", &none), RouteId::WellKnown, served(V3), 0, 0);
        assert!(c
            .reuse(
                ("p", "/a", &none, RouteId::WellKnown),
                &route(),
                &pinned,
                0,
                &Limits::default()
            )
            .is_none());
        for i in 0..(CACHE_CAPACITY as u64 + 5) {
            c.put(
                ("p", &format!("/{i}"), &none),
                RouteId::WellKnown,
                served(V3),
                0,
                i,
            );
        }
        assert_eq!(c.len(), CACHE_CAPACITY);
    }

    #[test]
    fn flights_coalesce_by_cluster_path_and_variant() {
        let mut f = Flights::default();
        let none = Variant::default();
        assert!(!f.join("primary", "/a", &none, 1));
        f.start(Flight {
            token: 9,
            owner: 1,
            cluster: "primary".into(),
            path: "/a".into(),
            variant: none.clone(),
            waiters: vec![1],
            started_ns: 0,
            timeout_ms: 100,
        });
        assert!(f.join("primary", "/a", &none, 2));
        assert!(!f.join("primary", "/b", &none, 3));
        assert!(!f.join("other", "/a", &none, 3));
        assert!(!f.join("primary", "/a", &version(&["1.0"]), 3));
        assert_eq!(f.take(9).unwrap().waiters, vec![1, 2]);
        assert!(f.take(9).is_none());
        f.start(Flight {
            token: 10,
            owner: 4,
            cluster: "c".into(),
            path: "/x".into(),
            variant: none,
            waiters: vec![4, 5],
            started_ns: 0,
            timeout_ms: 100,
        });
        assert_eq!(f.take_owned_by(4).len(), 1);
        assert!(f.is_empty());
    }

    #[test]
    fn cache_keeps_each_variant_apart() {
        let mut c = CardCache::default();
        let (v1, none) = (version(&["1.0"]), Variant::default());
        let legacy = r#"{"name":"w","version":"3.0.0","skills":[{"id":"task.execute.v0"}]}"#;
        c.put(("p", "/a", &v1), RouteId::WellKnown, served(V3), 0, 0);
        c.put(("p", "/a", &none), RouteId::WellKnown, served(legacy), 0, 0);
        assert_eq!(c.len(), 2, "one entry per variant");
        let any = req(r#"{"max_stale":"10s"}"#);
        let limits = Limits::default();
        let body = |c: &mut CardCache, v: &Variant| {
            c.reuse(
                ("p", "/a", v, RouteId::WellKnown),
                &route(),
                &any,
                0,
                &limits,
            )
            .map(|(_, card)| card.body)
        };
        assert_eq!(body(&mut c, &v1), Some(V3.as_bytes().to_vec()));
        assert_eq!(body(&mut c, &none), Some(legacy.as_bytes().to_vec()));
        // Values are compared as sent: another spelling or another `Accept` is another variant.
        assert_eq!(body(&mut c, &version(&["1.0 "])), None);
        assert_eq!(body(&mut c, &version(&["1.0", "1.0"])), None);
        let mut with_accept = v1.clone();
        with_accept.sent.push(("accept", "*/*".into()));
        assert_eq!(body(&mut c, &with_accept), None);
        // A newer card for a key replaces the one kept; another cluster or route is another key.
        assert!(!c.is_empty());
        c.put(("p", "/a", &v1), RouteId::WellKnown, served(legacy), 0, 1);
        assert_eq!(c.len(), 2);
        assert_eq!(body(&mut c, &v1), Some(legacy.as_bytes().to_vec()));
        c.put(("q", "/a", &v1), RouteId::WellKnown, served(V3), 0, 2);
        c.put(("p", "/a", &v1), RouteId::Listed(0), served(V3), 0, 3);
        assert_eq!(c.len(), 4);
        assert_eq!(body(&mut c, &v1), Some(legacy.as_bytes().to_vec()));
    }

    #[test]
    fn variant_is_read_from_the_callers_headers_and_sent_as_read() {
        let snapshot = HeaderSnapshot::from_pairs(&[
            (":path", b"/card"),
            ("accept", b"application/json"),
            ("A2A-Version", b"1.0"),
            ("accept", b"*/*;q=0.1"),
            ("accept-encoding", b"gzip"),
        ]);
        let v = Variant::of(&snapshot).unwrap();
        assert_eq!(
            v.call_headers(),
            [
                ("accept", "application/json"),
                ("a2a-version", "1.0"),
                ("accept", "*/*;q=0.1"),
                ("accept-encoding", "identity"),
            ]
        );
        let version_only = Variant::of(&HeaderSnapshot::from_pairs(&[("a2a-version", b"0.3")]));
        assert_eq!(
            version_only.unwrap().call_headers(),
            [
                ("accept", "application/json"),
                ("a2a-version", "0.3"),
                ("accept-encoding", "identity"),
            ]
        );
        // None sent: the calls ask for JSON and send no version, as before.
        let bare = Variant::of(&HeaderSnapshot::from_pairs(&[(":path", b"/card")])).unwrap();
        assert_eq!(bare, Variant::default());
        assert_eq!(
            bare.call_headers(),
            [
                ("accept", "application/json"),
                ("accept-encoding", "identity")
            ]
        );
        // A value that is not text cannot be sent: refused, by name.
        let junk = HeaderSnapshot::from_pairs(&[("a2a-version", b"1.\xff")]);
        let why = Variant::of(&junk).unwrap_err();
        assert_eq!(
            why,
            "the caller's a2a-version header is not UTF-8 text, so no other source can be \
             asked with it"
        );
        let junk = HeaderSnapshot::from_pairs(&[("a2a-version", b"1.0"), ("Accept", b"\xfe/*")]);
        assert_eq!(
            Variant::of(&junk).unwrap_err(),
            "the caller's accept header is not UTF-8 text, so no other source can be asked \
             with it"
        );
    }

    #[test]
    fn call_answers_become_attempts() {
        let r = route();
        let rq = req(r#"{"max_stale":"10s"}"#);
        let limits = Limits::default();
        let now = Timestamp::from_unix_ms(0);
        let lag0 = HeaderSnapshot::from_pairs(&[("x-replica-lag-ms", b"0")]);
        let none = HeaderSnapshot::from_pairs(&[]);
        let base = CallResult {
            status: Some(200),
            headers: &lag0,
            trailers: &none,
            body: V3.as_bytes(),
            body_size: V3.len(),
            elapsed_ms: 3,
            timeout_ms: 500,
        };
        let Answer::Card(d) = call_answer(&base, &r, &rq, now, &limits) else {
            panic!("no card")
        };
        assert!(d.is_valid());
        let timeout = CallResult {
            status: None,
            elapsed_ms: 500,
            ..base
        };
        assert_eq!(
            call_answer(&timeout, &r, &rq, now, &limits),
            Answer::Failed("no answer within 500 ms".into())
        );
        let refused = CallResult {
            status: None,
            elapsed_ms: 1,
            headers: &lag0,
            trailers: &none,
            body: b"",
            body_size: 0,
            timeout_ms: 500,
        };
        assert!(
            matches!(call_answer(&refused, &r, &rq, now, &limits), Answer::Failed(m) if m.contains("refused"))
        );
        let error = CallResult {
            status: Some(503),
            headers: &lag0,
            trailers: &none,
            body: b"",
            body_size: 0,
            elapsed_ms: 1,
            timeout_ms: 500,
        };
        assert_eq!(
            call_answer(&error, &r, &rq, now, &limits),
            Answer::Failed("HTTP 503".into())
        );
        // Envoy's own 504 at the timeout is the timeout; the margin is a tenth of a long
        // timeout (1 850 ms of 2 000 ran out), 50 ms of a short one.
        let late = |status, elapsed_ms, timeout_ms| CallResult {
            status,
            elapsed_ms,
            timeout_ms,
            ..error
        };
        assert_eq!(
            call_answer(&late(Some(504), 1_850, 2_000), &r, &rq, now, &limits),
            Answer::Failed("no answer within 2000 ms (HTTP 504)".into())
        );
        assert_eq!(
            call_answer(&late(None, 1_850, 2_000), &r, &rq, now, &limits),
            Answer::Failed("no answer within 2000 ms".into())
        );
        assert!(matches!(
            call_answer(&late(None, 1_750, 2_000), &r, &rq, now, &limits),
            Answer::Failed(m) if m.contains("refused")
        ));
        assert_eq!(
            call_answer(&late(Some(504), 440, 500), &r, &rq, now, &limits),
            Answer::Failed("HTTP 504".into())
        );
        // A body of the size limit is read; one byte over, it is refused unread.
        let at = |max_card_bytes| Limits {
            max_card_bytes,
            ..Limits::default()
        };
        let Answer::Card(d) = call_answer(&base, &r, &rq, now, &at(V3.len())) else {
            panic!("no card")
        };
        assert!(d.is_valid());
        let Answer::Card(d) = call_answer(&base, &r, &rq, now, &at(V3.len() - 1)) else {
            panic!("no card")
        };
        assert_eq!(d.reasons()[0].code, crate::ReasonCode::BodyTooLarge);
        assert_eq!(d.status(), 502);
        let gz = HeaderSnapshot::from_pairs(&[("content-encoding", b"gzip")]);
        let encoded = CallResult {
            status: Some(200),
            headers: &gz,
            trailers: &none,
            body: b"x",
            body_size: 1,
            elapsed_ms: 1,
            timeout_ms: 500,
        };
        let Answer::Card(d) = call_answer(&encoded, &r, &rq, now, &limits) else {
            panic!("no card")
        };
        assert_eq!(d.status(), 502);
        // Trailers (an HTTP/2 cluster) are read as the response path reads them: an encoding
        // or a framing field there is refused, and a watermark there is invalid, agreeing with
        // the header or not.
        let with_trailers = |trailers: &HeaderSnapshot| {
            let result = CallResult { trailers, ..base };
            match call_answer(&result, &r, &rq, now, &limits) {
                Answer::Card(d) => d,
                other => panic!("no card: {other:?}"),
            }
        };
        let d = with_trailers(&gz);
        assert_eq!(d.reasons()[0].code.as_str(), "body_encoded");
        let d = with_trailers(&HeaderSnapshot::from_pairs(&[("Content-Length", b"3")]));
        assert_eq!(d.reasons()[0].code.as_str(), "body_encoded");
        assert!(d.reasons()[0].message.contains("content-length"));
        for lag in [&b"0"[..], b"40000"] {
            let d = with_trailers(&HeaderSnapshot::from_pairs(&[("x-replica-lag-ms", lag)]));
            assert_eq!(d.status(), 503, "{}", d.to_json());
            assert_eq!(d.reasons()[0].code.as_str(), "watermark_invalid");
        }
        // The attempt goes into the core's resolution like any other.
        let mut res = Resolution::new(ResolutionLimits::default(), 0);
        assert_eq!(
            res.record("replica", Answer::Failed("HTTP 500".into()), 1),
            Step::TryNext
        );
    }

    /// Every status shape read as the response path reads it ([`response::read_status`]).
    #[test]
    fn call_answer_statuses_read_as_the_response_path_reads_them() {
        let r = route();
        let rq = req(r#"{"max_stale":"10s"}"#);
        let limits = Limits::default();
        let now = Timestamp::from_unix_ms(0);
        let lag0 = HeaderSnapshot::from_pairs(&[("x-replica-lag-ms", b"0")]);
        let none = HeaderSnapshot::from_pairs(&[]);
        let moved = HeaderSnapshot::from_pairs(&[
            ("x-replica-lag-ms", b"0"),
            ("location", b"https://elsewhere.example/card"),
        ]);
        let answer = |status: u16, headers: &HeaderSnapshot| {
            let result = CallResult {
                status: Some(status),
                headers,
                trailers: &none,
                body: V3.as_bytes(),
                body_size: V3.len(),
                elapsed_ms: 3,
                timeout_ms: 500,
            };
            (call_answer(&result, &r, &rq, now, &limits), result.served())
        };
        // A card body with a status that carries no whole card: body_empty, as on the response
        // path (a 205 was valid here, a 304 and a 206 were failed attempts).
        for status in [205, 206, 304] {
            let (Answer::Card(d), _) = answer(status, &lag0) else {
                panic!("{status}: no card decision")
            };
            assert_eq!(d.status(), 502, "{status}");
            assert_eq!(d.reasons()[0].code.as_str(), "body_empty", "{status}");
        }
        // A redirect is never followed: refused as a redirect past the gate; without a
        // Location it is no card (the response path lets it pass).
        for status in [301, 302, 303, 307, 308] {
            let (Answer::Card(d), _) = answer(status, &moved) else {
                panic!("{status}: no card decision")
            };
            assert_eq!(d.reasons()[0].code.as_str(), "body_empty", "{status}");
            assert_eq!(
                answer(status, &lag0).0,
                Answer::Failed(format!("HTTP {status}"))
            );
        }
        for status in [100, 300, 304 + 1, 404, 500] {
            assert_eq!(
                answer(status, &lag0).0,
                Answer::Failed(format!("HTTP {status}"))
            );
        }
        // A 203 is a card, served with its own status.
        let (Answer::Card(d), served) = answer(203, &lag0) else {
            panic!("203: no card decision")
        };
        assert!(d.is_valid(), "{}", d.to_json());
        assert_eq!(served.status, 203);
    }

    #[test]
    fn paths_to_ask_for() {
        let mut rr = ReResolve {
            clusters: vec!["p".into()],
            path: None,
            authority: None,
            timeout_ms: 100,
            limits: ResolutionLimits::default(),
            per_second: 1.0,
            burst: 1,
            budget_slot: 0,
        };
        assert_eq!(rr.path_for("/a/b?x=1", None).unwrap(), "/a/b?x=1");
        rr.path = Some("/cards/{id}".into());
        assert_eq!(
            rr.path_for("/a", Some("w 7/x")).unwrap(),
            "/cards/w%207%2Fx"
        );
        assert!(rr.path_for("/a", None).is_err());
        rr.path = Some("/fixed".into());
        assert_eq!(rr.path_for("/a", None).unwrap(), "/fixed");
    }
}
