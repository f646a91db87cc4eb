//! The proxy-wasm contexts: the only code here that talks to Envoy.
//!
//! Request: match the path (in every form an upstream may read it as) to a card route; on a
//! `GET` or `HEAD` there, read the caller's tightening headers and remove `Accept-Encoding`,
//! `Range` and the conditional headers so the upstream sends the whole card, and send a `HEAD`
//! upstream as a `GET`; a caller requirement in the request trailers is refused (it would not be
//! checked). Response: remove upstream `a2a-card-*` headers and trailers from every
//! answer (card route or not, any method); on a checked request let non-2xx answers pass except
//! `304` (no card: fails closed, as do a `206` and a `205`), hold the headers (`allow_on_headers_stop_iteration: true`),
//! buffer the body up to `max_card_bytes`, evaluate at end of stream, then forward with verdict
//! headers and a cache lifetime capped to what is left of the tolerance (a `HEAD` without the
//! body), or replace.
//!
//! Re-resolution (enforce mode, a route with `re_resolve`): when the core's rule says to try
//! the next source (`stale_agent_card`, `malformed_card`), the stream's resolution is kept in
//! the root context's [`Shared`] state and the next cluster is asked with `dispatch_http_call`
//! (or the reuse cache answers, or the stream joins a call in flight for the same cluster and
//! path, or the token bucket refuses). A call's answer comes back to the stream whose context
//! made it, which records it in every waiting stream's resolution and replies to each of them
//! (`set_effective_context`) with the served card or the core's final decision. A redirect
//! Envoy followed itself that the gate refuses starts one at the request headers, under the
//! original card route (the request never leaves; the reply is a local one).
//!
//! Every host call goes through `hostcalls` with its `Result` handled; header values are read
//! as bytes (the SDK's string getters panic on non-UTF-8 values). Nothing here unwraps.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, UNIX_EPOCH};

use proxy_wasm::hostcalls;
use proxy_wasm::traits::{Context, HttpContext, RootContext};
use proxy_wasm::types::{Action, BufferType, ContextType, LogLevel, MapType};

use crate::resolution::{self, Answer, Outcome as ResolutionOutcome, Resolution, Step};
use crate::watermark_sources::ResponseFields;
use crate::{Decision, FreshnessBasis, Requirement, Timestamp};

use super::analysis::{AnalysisCache, Lookup};
use super::caller::{caller_requirement, effective_requirement, trailer_requirement};
use super::config::{FilterConfig, Mode};
use super::headers::{
    header_calls, HeaderCall, HeaderEdit, HeaderSnapshot, MemoEntry, RequestMemo, CALLER_HEADERS,
};
use super::metrics;
use super::redirect;
use super::reresolve::{call_answer, CallResult, Flight, Pending, Shared, Variant};
use super::response::{self, LocalReply, Outcome, StatusReading, VERDICT_HEADER_PREFIX};
use super::routes::{strip_query, RouteId};

/// Request headers removed on a checked card request: the upstream must send the whole card,
/// identity-encoded, every time (a `304` or a `206` carries no card the gate could check).
const REQUEST_HEADERS_REMOVED: &[&str] = &[
    "accept-encoding",
    "if-none-match",
    "if-modified-since",
    "if-match",
    "if-unmodified-since",
    "if-range",
    "range",
];

/// Registers the root context; called once per VM from `_initialize`.
pub fn start() {
    proxy_wasm::set_log_level(LogLevel::Info);
    proxy_wasm::set_root_context(|_| -> Box<dyn RootContext> {
        Box::new(GateRoot {
            config: None,
            shared: Rc::default(),
            analyses: Rc::default(),
            requests: Rc::default(),
            sampler: Rc::default(),
        })
    });
}

/// One per plugin configuration: holds the validated configuration and what re-resolution
/// keeps between requests (calls in flight, reusable cards, the token buckets).
struct GateRoot {
    config: Option<Rc<FilterConfig>>,
    shared: Rc<RefCell<Shared>>,
    /// Card body analyses by exact bytes, reset with the configuration (its limits).
    analyses: Rc<RefCell<AnalysisCache>>,
    /// Recent card requests' routes and requirements, reset with the configuration.
    requests: Rc<RefCell<RequestMemo>>,
    /// Which evaluations `cardgate.evaluation_us` times.
    sampler: Rc<RefCell<metrics::Sampler>>,
}

impl Context for GateRoot {
    /// The plugin ends: what the VM kept of the metrics goes to Envoy now.
    fn on_done(&mut self) -> bool {
        metrics::flush();
        true
    }
}

impl RootContext for GateRoot {
    /// Hands the metrics kept in the VM to Envoy (see [`metrics::Batch`]).
    fn on_tick(&mut self) {
        metrics::flush();
    }

    fn on_configure(&mut self, _size: usize) -> bool {
        let bytes = hostcalls::get_buffer(BufferType::PluginConfiguration, 0, usize::MAX)
            .ok()
            .flatten()
            .unwrap_or_default();
        match FilterConfig::from_json(&bytes) {
            Ok(config) => {
                log::info!(
                    "configured: mode={} routes={} well_known={} max_card_bytes={} agents={}",
                    config.mode.as_str(),
                    config.routes.len(),
                    config.well_known.is_some(),
                    config.limits.max_card_bytes,
                    config.policy.agents.len()
                );
                self.config = Some(Rc::new(config));
                if let Err(status) =
                    hostcalls::set_tick_period(Duration::from_millis(metrics::FLUSH_MS))
                {
                    log::error!("could not set the metrics tick: {status:?}");
                }
                self.shared = Rc::default();
                self.analyses = Rc::default();
                self.requests = Rc::default();
                true
            }
            Err(e) => {
                let at = if e.path.is_empty() {
                    "(the document)"
                } else {
                    e.path.as_str()
                };
                log::error!(
                    "invalid plugin configuration at {at}: {} (configuration refused)",
                    e.message
                );
                false
            }
        }
    }

    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::HttpContext)
    }

    fn create_http_context(&self, context_id: u32) -> Option<Box<dyn HttpContext>> {
        Some(Box::new(CardStream {
            config: self.config.clone(),
            shared: self.shared.clone(),
            analyses: self.analyses.clone(),
            requests: self.requests.clone(),
            sampler: self.sampler.clone(),
            id: context_id,
            card: None,
            replied: false,
            resolving: false,
        }))
    }
}

/// A card request's route, the agent its rule is for, and its requirement.
type CardRule = (RouteId, Option<String>, Rc<Requirement>);

/// A request on a card route.
struct CardRequest {
    /// `:path` as received (query included): what a cluster is asked for by default.
    raw_path: String,
    /// `:authority` as received: a redirect elsewhere is not followed through this gate.
    authority: Option<String>,
    /// `:scheme` as received: a redirect to another scheme leaves this listener.
    scheme: Option<String>,
    rule_agent: Option<String>,
    route_id: RouteId,
    requirement: Rc<Requirement>,
    head: bool,
    decided: bool,
    /// The upstream's response headers, read once when they arrive (without the `a2a-card-*`
    /// ones, which are removed then): the watermark and `Cache-Control` come from this copy.
    /// The filter holds the headers until it decides, so they cannot change meanwhile.
    response: HeaderSnapshot,
    /// The upstream's response trailers (HTTP/2, or chunked HTTP/1.1 on a cluster that keeps
    /// them), less the `a2a-card-*` ones, when the body ended with them: a watermark field
    /// there makes that watermark invalid.
    trailers: HeaderSnapshot,
    /// Body callbacks, added to `cardgate.body_chunks` when the stream ends (one metric call
    /// per request).
    chunks: u64,
    /// The caller's variant headers, read when the route re-resolves (else empty).
    variant: Result<Variant, String>,
}

impl CardRequest {
    /// The path, query removed: what the route matched.
    fn path(&self) -> &str {
        strip_query(&self.raw_path)
    }
}

struct CardStream {
    config: Option<Rc<FilterConfig>>,
    shared: Rc<RefCell<Shared>>,
    analyses: Rc<RefCell<AnalysisCache>>,
    requests: Rc<RefCell<RequestMemo>>,
    sampler: Rc<RefCell<metrics::Sampler>>,
    id: u32,
    card: Option<CardRequest>,
    /// Set once we sent a local reply: Envoy runs it through this filter's response callbacks
    /// too, and it must pass untouched.
    replied: bool,
    /// Set while a re-resolution decides the answer: nothing of the route's own answer may
    /// reach the caller (its body is dropped as it arrives), the reply comes later.
    resolving: bool,
}

impl Context for CardStream {
    /// The answer to a re-resolution call this stream's context made: recorded in the
    /// resolution of every stream waiting for it, each of which then moves on or is answered.
    fn on_http_call_response(
        &mut self,
        token_id: u32,
        num_headers: usize,
        body_size: usize,
        num_trailers: usize,
    ) {
        let Some(config) = self.config.clone() else {
            return;
        };
        let Some(flight) = self.shared.borrow_mut().flights.take(token_id) else {
            return;
        };
        // The answer's headers, read as the response path reads an upstream's: one copy of the
        // map (bytes, no panic on a non-UTF-8 name) less the `a2a-card-*` headers, which are
        // the gate's alone. A map the host did not hand over whole is no answer.
        let mut headers = if num_headers > 0 {
            read_headers(MapType::HttpCallResponseHeaders)
        } else {
            HeaderSnapshot::default()
        };
        headers.take_where(|k| k.starts_with(VERDICT_HEADER_PREFIX));
        // Its trailers likewise (a cluster that speaks HTTP/2 may send some).
        let mut trailers = if num_trailers > 0 {
            read_headers(MapType::HttpCallResponseTrailers)
        } else {
            HeaderSnapshot::from_pairs_bytes(Vec::new())
        };
        trailers.take_where(|k| k.starts_with(VERDICT_HEADER_PREFIX));
        let status = (headers.is_whole() && trailers.is_whole())
            .then(|| headers.status())
            .flatten();
        let limit = config.limits.max_card_bytes;
        let read = if body_size > limit { 4096 } else { body_size };
        let body = if read > 0 {
            hostcalls::get_buffer(BufferType::HttpCallResponseBody, 0, read)
                .ok()
                .flatten()
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let now_ns = nanos_now();
        let now_ms = now_ns / 1_000_000;
        let result = CallResult {
            status,
            headers: &headers,
            trailers: &trailers,
            body: &body,
            body_size,
            elapsed_ms: now_ns.saturating_sub(flight.started_ns) / 1_000_000,
            timeout_ms: flight.timeout_ms,
        };
        for waiter in flight.waiters {
            {
                let mut guard = self.shared.borrow_mut();
                let Shared { pending, cache, .. } = &mut *guard;
                let Some(p) = pending.get_mut(&waiter) else {
                    continue;
                };
                let Some(route) = config.route(p.route) else {
                    continue;
                };
                let answer = call_answer(&result, route, &p.requirement, now(), &config.limits);
                if let Answer::Card(d) = &answer {
                    if d.is_valid() && d.freshness() == Some(FreshnessBasis::Watermark) {
                        cache.put(
                            (&flight.cluster, &flight.path, &flight.variant),
                            p.route,
                            result.served(),
                            d.staleness_ms().unwrap_or(0),
                            now_ns,
                        );
                    }
                }
                let step = p.resolution.record(&flight.cluster, answer, now_ms);
                p.next += 1;
                if step == Step::Accept {
                    p.accepted = Some((flight.cluster.clone(), result.served()));
                }
            }
            advance(&self.shared, &config, waiter, self.id);
        }
        let _ = hostcalls::set_effective_context(self.id);
    }

    /// The stream ended: its body callbacks are counted, its resolution is dropped, and streams
    /// waiting on a call its context made (the host cancels such calls) fail closed now rather
    /// than wait for nothing.
    fn on_done(&mut self) -> bool {
        if let Some(card) = self.card.as_ref().filter(|c| c.chunks > 0) {
            metrics::add(metrics::BODY_CHUNKS, card.chunks);
        }
        let orphaned = {
            let mut shared = self.shared.borrow_mut();
            shared.pending.remove(&self.id);
            shared.flights.take_owned_by(self.id)
        };
        let Some(config) = self.config.clone() else {
            return true;
        };
        if orphaned.is_empty() {
            // Nothing replied on another stream's behalf: the effective context is still ours.
            return true;
        }
        for flight in orphaned {
            for waiter in flight.waiters {
                if let Some(p) = self.shared.borrow_mut().pending.get_mut(&waiter) {
                    let why = format!(
                        "the call to {} was cancelled: the request that made it ended first",
                        flight.cluster
                    );
                    let now_ms = nanos_now() / 1_000_000;
                    p.resolution
                        .record(&flight.cluster, Answer::Failed(why), now_ms);
                    p.resolution.stop(ResolutionOutcome::SourcesExhausted);
                }
                finish(&self.shared, &config, waiter);
            }
        }
        let _ = hostcalls::set_effective_context(self.id);
        true
    }
}

/// A copy of a header map, read with one host call (the host's buffer kept as it is); not
/// [whole](HeaderSnapshot::is_whole) when the host refused.
fn read_headers(map: MapType) -> HeaderSnapshot {
    raw::get_header_map_pairs(map).map_or_else(HeaderSnapshot::default, |bytes| {
        HeaderSnapshot::from_pairs_bytes(bytes)
    })
}

/// Header-map host calls without the SDK's copies and panics: its `get_map_bytes` turns the
/// host's buffer into a `String` and a `Vec` per header, and its calls panic on a status other
/// than `Ok`.
mod raw {
    use proxy_wasm::types::MapType;

    #[link(wasm_import_module = "env")]
    extern "C" {
        fn proxy_get_header_map_pairs(
            map_type: u32,
            return_map_data: *mut *mut u8,
            return_map_size: *mut usize,
        ) -> u32;
        fn proxy_add_header_map_value(
            map_type: u32,
            key_data: *const u8,
            key_size: usize,
            value_data: *const u8,
            value_size: usize,
        ) -> u32;
        fn proxy_replace_header_map_value(
            map_type: u32,
            key_data: *const u8,
            key_size: usize,
            value_data: *const u8,
            value_size: usize,
        ) -> u32;
        fn proxy_remove_header_map_value(
            map_type: u32,
            key_data: *const u8,
            key_size: usize,
        ) -> u32;
    }

    /// Status `Ok` in the proxy-wasm ABI.
    const OK: u32 = 0;

    /// The map in the pairs format, as the host wrote it; `None` if the host refused.
    pub fn get_header_map_pairs(map: MapType) -> Option<Vec<u8>> {
        let mut data: *mut u8 = std::ptr::null_mut();
        let mut size: usize = 0;
        // SAFETY: the host writes a pointer and a size through the two out-pointers, which
        // point at live locals.
        let status = unsafe { proxy_get_header_map_pairs(map as u32, &mut data, &mut size) };
        if status != OK {
            return None;
        }
        if data.is_null() {
            return Some(Vec::new());
        }
        // SAFETY: the host allocated these `size` bytes in the VM through
        // `proxy_on_memory_allocate` (the SDK's: a boxed slice of exactly `size` bytes, so
        // length and capacity are `size`) and hands them over; this is how the SDK's own
        // `get_map_bytes` takes them.
        Some(unsafe { Vec::from_raw_parts(data, size, size) })
    }

    /// A header-value write: map, name, value (`proxy_add_header_map_value` and
    /// `proxy_replace_header_map_value` share it).
    type WriteValue = unsafe extern "C" fn(u32, *const u8, usize, *const u8, usize) -> u32;

    /// One header-value write. A refusal is ignored: the SDK's own calls panic.
    fn write_value(call: WriteValue, map: MapType, name: &str, value: &[u8]) {
        // SAFETY: the host reads both live slices during the call.
        unsafe {
            call(
                map as u32,
                name.as_ptr(),
                name.len(),
                value.as_ptr(),
                value.len(),
            )
        };
    }

    /// Appends one entry (Envoy's `addCopy`).
    pub fn add_header_map_value(map: MapType, name: &str, value: &[u8]) {
        write_value(proxy_add_header_map_value, map, name, value);
    }

    /// Replaces a header (Envoy's `setCopy`).
    pub fn replace_header_map_value(map: MapType, name: &str, value: &[u8]) {
        write_value(proxy_replace_header_map_value, map, name, value);
    }

    /// Removes every entry of a header.
    pub fn remove_header_map_value(map: MapType, name: &str) {
        // SAFETY: the host reads a live slice during the call.
        unsafe { proxy_remove_header_map_value(map as u32, name.as_ptr(), name.len()) };
    }
}

/// Removes from the host's map, and from `snapshot`, every header whose lowercase name
/// `remove` selects (only names the map holds cost a host call).
fn remove_headers(snapshot: &mut HeaderSnapshot, map: MapType, remove: impl Fn(&str) -> bool) {
    for name in snapshot.take_where(remove) {
        let _ = hostcalls::remove_map_value(map, &name);
    }
}

/// Removes every response header (or trailer) named `a2a-card-*`: those names are the gate's.
/// Returns what is left of the map.
fn strip_verdict_headers(map: MapType) -> HeaderSnapshot {
    let mut snapshot = read_headers(map);
    remove_headers(&mut snapshot, map, |k| k.starts_with(VERDICT_HEADER_PREFIX));
    snapshot
}

/// Writes the verdict headers of a forwarded answer and, on a valid one, keeps caches after the
/// gate from reusing it longer than `cap_s` seconds: one single-header host call per header
/// written ([`header_calls`]). `upstream`: the response headers as the upstream sent them (less
/// `a2a-card-*`), unchanged since (the filter holds them until it decides).
///
/// Not one whole-map write: Envoy carries that out by removing and re-adding every header the
/// upstream sent, which cost more than these few calls in the bench (bench/README.md), and more
/// the more headers an upstream sends.
fn write_forward_headers(
    upstream: &HeaderSnapshot,
    verdict: &[(&'static str, String)],
    cap_s: Option<u64>,
) {
    let cache_control = cap_s.map(|cap| {
        let values: Vec<&[u8]> = upstream.values_of("cache-control").collect();
        response::capped_cache_control(&values, cap)
    });
    let mut edits: Vec<HeaderEdit> = Vec::with_capacity(verdict.len() + 5);
    edits.extend(
        verdict
            .iter()
            .map(|(name, value)| HeaderEdit::Set(name, value.as_bytes())),
    );
    if let Some(value) = &cache_control {
        edits.push(HeaderEdit::Set("cache-control", value.as_bytes()));
        // Only names the upstream sent (a name it sent twice is removed once).
        edits.extend(
            upstream
                .pairs()
                .filter_map(|(name, _)| std::str::from_utf8(name).ok())
                .filter(|name| response::is_lifetime_header(name))
                .map(HeaderEdit::Remove),
        );
        edits.push(HeaderEdit::Add("vary", response::VARY.as_bytes()));
    }
    let map = MapType::HttpResponseHeaders;
    for call in header_calls(upstream, &edits) {
        match call {
            HeaderCall::Add(name, value) => raw::add_header_map_value(map, name, value),
            HeaderCall::Replace(name, value) => raw::replace_header_map_value(map, name, value),
            HeaderCall::Remove(name) => raw::remove_header_map_value(map, name),
        }
    }
}

/// Empties the buffered response body (the answer to a `HEAD`): the headers, including the
/// upstream's `Content-Length`, describe the card the `GET` returned.
fn drop_response_body() {
    let size = hostcalls::get_buffer(BufferType::HttpResponseBody, 0, usize::MAX)
        .ok()
        .flatten()
        .map_or(0, |b| b.len());
    if size > 0 {
        if let Err(status) = hostcalls::set_buffer(BufferType::HttpResponseBody, 0, size, &[]) {
            log::error!("could not drop the body of a HEAD answer: {status:?}");
        }
    }
}

/// The host's clock to the nanosecond (a `synced_at` lag is never rounded down).
fn now() -> Timestamp {
    Timestamp::from_unix_nanos(i128::from(nanos_now()))
}

fn nanos_now() -> u64 {
    hostcalls::get_current_time()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Counts (and logs, when rejected) a decision the caller gets.
fn count(decision: &Decision, rule_agent: Option<&str>, path: &str, mode: Mode) {
    if let Some(ms) = decision.staleness_ms() {
        metrics::record(metrics::STALENESS_MS, ms);
    }
    match decision.error_class() {
        None => metrics::increment(metrics::VERDICT_VALID),
        Some(class) => {
            metrics::increment_named(&metrics::verdict("rejected"));
            metrics::increment_named(&metrics::error_class(class.as_str()));
            for r in decision.reasons() {
                metrics::increment_named(&metrics::reason(r.code.as_str()));
            }
            log::warn!(
                "{}",
                response::rejection_log(decision, rule_agent, path, mode)
            );
            if mode == Mode::Observe {
                metrics::increment(metrics::OBSERVE_NOT_BLOCKED);
            }
        }
    }
}

/// Sends a local reply on the effective context.
fn send_reply(reply: &LocalReply) {
    let headers: Vec<(&str, &str)> = reply
        .headers
        .iter()
        .map(|(k, v)| (*k, v.as_str()))
        .collect();
    if let Err(status) = hostcalls::send_http_response(
        u32::from(reply.status),
        headers,
        Some(reply.body.as_bytes()),
    ) {
        log::error!("could not send the local reply: {status:?}");
    }
}

/// The Envoy cluster the route sent the request to (the first source of a re-resolution).
fn upstream_cluster() -> String {
    [vec!["xds", "cluster_name"], vec!["cluster_name"]]
        .into_iter()
        .find_map(|path| hostcalls::get_property(path).ok().flatten())
        .and_then(|b| String::from_utf8(b).ok())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "upstream".to_owned())
}

/// Moves stream `id`'s resolution on until it waits for a call or ends (then replies). A call
/// it dispatches belongs to `owner`, the context running now: its answer comes back there.
fn advance(shared: &Rc<RefCell<Shared>>, config: &FilterConfig, id: u32, owner: u32) {
    loop {
        let mut guard = shared.borrow_mut();
        let Shared {
            pending,
            flights,
            cache,
            buckets,
        } = &mut *guard;
        let Some(p) = pending.get_mut(&id) else {
            return;
        };
        if p.resolution.outcome().is_some() {
            drop(guard);
            finish(shared, config, id);
            return;
        }
        let Some(cluster) = p.re_resolve.clusters.get(p.next).cloned() else {
            p.resolution.stop(ResolutionOutcome::SourcesExhausted);
            continue;
        };
        let now_ns = nanos_now();
        let now_ms = now_ns / 1_000_000;
        let remaining_ms = p.resolution.remaining_ms(now_ms);
        if remaining_ms == 0 {
            p.resolution.stop(ResolutionOutcome::DeadlinePassed);
            continue;
        }
        let path = match &p.ask {
            Ok(path) => path.clone(),
            Err(why) => {
                let why = why.clone();
                p.resolution.record(&cluster, Answer::Failed(why), now_ms);
                p.next += 1;
                continue;
            }
        };
        // A card this cluster served recently, if it still holds for this requirement now.
        if let Some(route) = config.route(p.route) {
            let key = (cluster.as_str(), path.as_str(), &p.variant, p.route);
            if let Some((decision, card)) =
                cache.reuse(key, route, &p.requirement, now_ns, &config.limits)
            {
                metrics::increment(metrics::RERESOLVE_REUSED);
                let step = p
                    .resolution
                    .record(&cluster, Answer::Card(Box::new(decision)), now_ms);
                p.next += 1;
                if step == Step::Accept {
                    p.accepted = Some((cluster, card));
                }
                continue;
            }
        }
        // Single flight: the same cluster, path and variant already asked for.
        if flights.join(&cluster, &path, &p.variant, id) {
            metrics::increment(metrics::RERESOLVE_COALESCED);
            return;
        }
        let rr = &p.re_resolve;
        let took = buckets
            .get_or_insert_with(rr.budget_slot, || {
                super::reresolve::TokenBucket::new(rr.per_second, rr.burst)
            })
            .is_some_and(|bucket| bucket.take(now_ns));
        if !took {
            metrics::increment(metrics::RERESOLVE_OVER_BUDGET);
            p.resolution.stop(ResolutionOutcome::OverBudget);
            continue;
        }
        let timeout_ms = rr.timeout_ms.min(remaining_ms);
        let authority = rr.authority.clone().unwrap_or_else(|| cluster.clone());
        // The call lives on the owner's context (whose callback this is).
        let _ = hostcalls::set_effective_context(owner);
        let mut headers = vec![
            (":method", "GET"),
            (":path", path.as_str()),
            (":authority", authority.as_str()),
        ];
        headers.extend(p.variant.call_headers());
        let call = hostcalls::dispatch_http_call(
            &cluster,
            headers,
            None,
            vec![],
            Duration::from_millis(timeout_ms),
        );
        match call {
            Ok(token) => {
                metrics::increment(metrics::RERESOLVE_CALLS);
                flights.start(Flight {
                    token,
                    owner,
                    cluster,
                    path,
                    variant: p.variant.clone(),
                    waiters: vec![id],
                    started_ns: now_ns,
                    timeout_ms,
                });
                return;
            }
            Err(status) => {
                let why = format!("could not call cluster {cluster}: {status:?}");
                p.resolution.record(&cluster, Answer::Failed(why), now_ms);
                p.next += 1;
            }
        }
    }
}

/// Ends stream `id`'s resolution: counts, logs and replies with the core's final decision.
fn finish(shared: &Rc<RefCell<Shared>>, config: &FilterConfig, id: u32) {
    let Some(p) = shared.borrow_mut().pending.remove(&id) else {
        return;
    };
    let attempts = p.resolution.attempts().len();
    let decision = p.resolution.finish();
    metrics::record(
        metrics::RERESOLVE_MS,
        nanos_now().saturating_sub(p.started_ns) / 1_000_000,
    );
    metrics::increment(if decision.is_valid() {
        metrics::RERESOLVE_SUCCEEDED
    } else {
        metrics::RERESOLVE_FAILED
    });
    count(
        &decision,
        p.rule_agent.as_deref(),
        &p.request_path,
        config.mode,
    );
    if let Some(resolution) = decision.resolution() {
        log::warn!(
            "{}",
            response::resolution_log(resolution, p.rule_agent.as_deref(), &p.request_path)
        );
    }
    let accepted = p.accepted.as_ref().map(|(s, c)| (s.as_str(), c));
    let reply = response::resolved_reply(
        &decision,
        accepted,
        &p.requirement,
        attempts,
        config.retry_after_s,
    );
    match hostcalls::set_effective_context(id) {
        Ok(()) => send_reply(&reply),
        Err(status) => log::warn!("re-resolution: the request ended first ({status:?})"),
    }
}

/// The decision refusing a redirect on a card route, unless the caller following it will come
/// back through this gate to a card route whose policy rule is this route's or a stricter one
/// (see [`redirect`]).
fn redirect_refusal(config: &FilterConfig, card: &CardRequest, status: u16) -> Option<Decision> {
    let locations = card.response.values("location");
    let why = match redirect::target(
        &locations,
        card.path(),
        card.authority.as_deref(),
        card.scheme.as_deref(),
    ) {
        redirect::Target::None => return None,
        redirect::Target::Elsewhere(why) => why,
        // Every path the caller's client may ask for there, in every reading, has this route's
        // rule or a stricter one: its next request is checked at least as strictly.
        redirect::Target::SamePath(target) => {
            match config.redirect_keeps_rule(card.path(), &target) {
                Ok(()) => return None,
                Err(why) => why,
            }
        }
    };
    Some(response::redirect_refused(status, &why))
}

impl CardStream {
    fn send(&mut self, reply: &LocalReply) {
        self.replied = true;
        send_reply(reply);
    }

    /// The route, rule agent and requirement of a card request on `path`: a recent request's
    /// with the same caller headers, else the route's rule combined with the caller's headers
    /// in `snapshot` (then remembered). `None`: `path` is no card route. `Some(Err(()))`: a
    /// caller header was refused and the refusal sent (enforce mode; observe mode checks the
    /// rule alone).
    fn card_rule(
        &mut self,
        path: &str,
        snapshot: &HeaderSnapshot,
        config: &FilterConfig,
    ) -> Option<Result<CardRule, ()>> {
        // The same path with the same caller headers as a recent request: the same route and
        // requirement (the memo lives and dies with the configuration).
        let caller_key = snapshot.caller_key();
        if let Some(e) = self.requests.borrow().get(path, &caller_key) {
            return Some(Ok((
                e.route_id,
                e.rule_agent.clone(),
                Rc::clone(&e.requirement),
            )));
        }
        let (route_id, matched, rule) = config.route_and_requirement(path)?;
        let header = |name: &str| snapshot.values(name);
        let requirement = rule
            .clone()
            .map_err(|e| super::caller::CallerError {
                header: ":path",
                message: format!("names agents whose rules cannot both hold: {}", e.message),
            })
            .and_then(|rule| caller_requirement(&header).map(|caller| (rule, caller)))
            .and_then(|(rule, caller)| {
                effective_requirement(&rule, &caller, config.allow_caller_relax)
            });
        let requirement = match requirement {
            Ok(r) => {
                let r = Rc::new(r);
                self.requests.borrow_mut().put(MemoEntry {
                    path: path.to_owned(),
                    caller: caller_key,
                    route_id,
                    rule_agent: matched.agent.clone(),
                    requirement: Rc::clone(&r),
                });
                r
            }
            Err(e) => {
                metrics::increment_named(&metrics::verdict("refused"));
                log::warn!(
                    "refused caller header on {path}: {}: {} (mode {})",
                    e.header,
                    e.message,
                    config.mode.as_str()
                );
                if config.mode == Mode::Enforce {
                    self.send(&response::caller_refused(&e));
                    return Some(Err(()));
                }
                // Observe mode never blocks: check the card against the policy's rule alone,
                // or the defaults.
                Rc::new(rule.unwrap_or_else(|_| config.policy.defaults.clone()))
            }
        };
        Some(Ok((route_id, matched.agent, requirement)))
    }

    /// A redirect Envoy followed itself from a card route to `path`, refused
    /// ([`redirect::internal_refusal`]): the card route's own attempt, failed. Enforce mode
    /// re-resolves it when that route (the original one, not the target's) has `re_resolve`,
    /// as a refused redirect on the response path is, and otherwise fails closed at once.
    /// `None`: observe mode, which counts and logs it, and lets the request go on.
    fn refuse_internal_redirect(
        &mut self,
        refusal: redirect::InternalRefusal,
        path: &str,
        snapshot: &HeaderSnapshot,
        config: &FilterConfig,
    ) -> Option<Action> {
        let original_path = refusal.original_path().to_owned();
        let re_resolves = config.re_resolves(refusal.route);
        // The original route's requirement, as for any request on it with these headers.
        let found = re_resolves
            .then(|| self.card_rule(&original_path, snapshot, config))
            .flatten();
        let Some(found) = found else {
            count(&refusal.decision, None, path, config.mode);
            return match response::outcome(&refusal.decision, config.mode, config.retry_after_s) {
                Outcome::Replace(reply) => {
                    self.send(&reply);
                    Some(Action::Pause)
                }
                Outcome::Forward(_) => None,
            };
        };
        let Ok((route_id, rule_agent, requirement)) = found else {
            // A caller header refused (sent), as on that route.
            return Some(Action::Pause);
        };
        self.card = Some(CardRequest {
            raw_path: refusal.original,
            authority: snapshot.first_text(":authority"),
            scheme: snapshot.first_text(":scheme"),
            rule_agent,
            route_id,
            requirement,
            head: false,
            decided: false,
            response: HeaderSnapshot::default(),
            trailers: HeaderSnapshot::default(),
            chunks: 0,
            variant: Variant::of(snapshot),
        });
        let action = self.decide(refusal.decision, config);
        // No upstream answer will come (the request never leaves): the reply is the
        // resolution's, a local reply that must pass this filter's response callbacks.
        self.resolving = false;
        Some(action)
    }

    /// Applies the decision about the route's own answer, or starts a re-resolution when the
    /// core's rule says another source may do better and the route has `re_resolve`.
    fn decide(&mut self, decision: Decision, config: &FilterConfig) -> Action {
        let rr = self
            .card
            .as_ref()
            .and_then(|card| config.re_resolve_for(card.route_id));
        let (Some(rr), Some(card)) = (rr, self.card.as_mut()) else {
            return self.apply(&decision, config);
        };
        if config.mode != Mode::Enforce || resolution::rule(&decision) != Step::TryNext {
            return self.apply(&decision, config);
        }
        card.decided = true;
        self.replied = true;
        self.resolving = true;
        metrics::increment(metrics::RERESOLVE_ATTEMPTED);
        let now_ns = nanos_now();
        let now_ms = now_ns / 1_000_000;
        let mut resolution = Resolution::new(rr.limits, now_ms);
        resolution.record(
            &upstream_cluster(),
            Answer::Card(Box::new(decision)),
            now_ms,
        );
        let pending = Pending {
            resolution,
            next: 0,
            re_resolve: rr.clone(),
            route: card.route_id,
            requirement: Requirement::clone(&card.requirement),
            // A path that cannot be asked, or caller headers that cannot be sent: every call
            // then fails closed with that reason (the path's first).
            ask: rr
                .path_for(&card.raw_path, card.rule_agent.as_deref())
                .and_then(|path| match &card.variant {
                    Ok(_) => Ok(path),
                    Err(why) => Err(why.clone()),
                }),
            variant: card.variant.clone().unwrap_or_default(),
            head: card.head,
            request_path: card.path().to_owned(),
            rule_agent: card.rule_agent.clone(),
            started_ns: now_ns,
            accepted: None,
        };
        self.shared
            .borrow_mut()
            .pending
            .insert(self.id, Box::new(pending));
        advance(&self.shared, config, self.id, self.id);
        let _ = hostcalls::set_effective_context(self.id);
        Action::Pause
    }

    /// Applies a decision: counts, logs, then forwards with headers or replaces the answer.
    fn apply(&mut self, decision: &Decision, config: &FilterConfig) -> Action {
        let Some(card) = self.card.as_mut() else {
            return Action::Continue;
        };
        card.decided = true;
        count(
            decision,
            card.rule_agent.as_deref(),
            card.path(),
            config.mode,
        );
        match response::outcome(decision, config.mode, config.retry_after_s) {
            Outcome::Forward(headers) => {
                let cap_s = decision
                    .is_valid()
                    .then(|| response::lifetime_left_s(decision, &card.requirement));
                write_forward_headers(&card.response, &headers, cap_s);
                if card.head {
                    // The caller asked for headers only; the upstream was asked for the card.
                    drop_response_body();
                }
                Action::Continue
            }
            Outcome::Replace(reply) => {
                self.send(&reply);
                Action::Pause
            }
        }
    }

    /// Evaluates the buffered body (`size` bytes so far; more than the limit means oversized;
    /// `complete`: the body has ended).
    fn evaluate_buffer(&mut self, size: usize, complete: bool, config: &FilterConfig) -> Action {
        let Some(card) = self.card.as_ref() else {
            return Action::Continue;
        };
        let Some(route) = config.route(card.route_id) else {
            return Action::Continue;
        };
        let limit = config.limits.max_card_bytes;
        if size > limit {
            // Read only the start: the problem carries 4 KiB of it, and the wasm heap never
            // shrinks, so an oversized body must not be copied in.
            let start = hostcalls::get_buffer(BufferType::HttpResponseBody, 0, 4096)
                .ok()
                .flatten()
                .unwrap_or_default();
            let decision = Decision::body_too_large(&start, size, limit, complete);
            return self.decide(decision, config);
        }
        let body = hostcalls::get_buffer(BufferType::HttpResponseBody, 0, size)
            .ok()
            .flatten()
            .unwrap_or_default();
        let header = |name: &str| card.response.values(name);
        let trailer = |name: &str| card.trailers.first(name).is_some();
        // The clock is read only when something needs it: an evaluation sampled for the
        // histogram (its start, which is also its "now"; a second read ends it), or a watermark
        // whose staleness is measured against now (`synced_at`). A lag needs no clock.
        let timed = self.sampler.borrow_mut().take();
        let started_ns = timed.then(nanos_now);
        let mut clock =
            || Timestamp::from_unix_nanos(i128::from(started_ns.unwrap_or_else(nanos_now)));
        let (decision, lookup) = response::evaluate_body_cached(
            &body,
            route,
            &card.requirement,
            ResponseFields {
                header: &header,
                trailer: &trailer,
            },
            &mut clock,
            &config.limits,
            &mut self.analyses.borrow_mut(),
        );
        if let Some(started_ns) = started_ns {
            metrics::record(
                metrics::EVALUATION_US,
                nanos_now().saturating_sub(started_ns) / 1000,
            );
        }
        match lookup {
            Some(Lookup::Hit) => metrics::increment(metrics::ANALYSIS_HIT),
            Some(Lookup::Miss) => metrics::increment(metrics::ANALYSIS_MISS),
            None => {}
        }
        self.decide(decision, config)
    }
}

impl HttpContext for CardStream {
    fn on_http_request_headers(&mut self, _num_headers: usize, _end_of_stream: bool) -> Action {
        let Some(config) = self.config.clone() else {
            return Action::Continue;
        };
        // Every request header the filter reads comes from one copy of the map (one host call;
        // the shipped configurations disable the filter on routes that serve no card).
        let mut snapshot = read_headers(MapType::HttpRequestHeaders);
        if !snapshot.is_whole() {
            // Without the whole map the filter cannot tell a card route: fail closed.
            log::error!("the host did not hand over the whole request header map: refused");
            self.send(&response::headers_unreadable("request"));
            return Action::Pause;
        }
        let raw_path = snapshot.first_text(":path").unwrap_or_default();
        let path = strip_query(&raw_path);
        // Only reads serve cards for delegation; writes to a registry (registrations) pass
        // (their answers still lose any a2a-card-* header).
        let method = snapshot.first(":method").unwrap_or_default();
        let head = method.eq_ignore_ascii_case(b"HEAD");
        if !head && !method.eq_ignore_ascii_case(b"GET") {
            return Action::Continue;
        }
        // Envoy followed a card route's redirect itself (a route's `internal_redirect_policy`)
        // and runs the filter chain again for the target: the first stream never saw the
        // redirect, so this one judges it as the caller following it would be judged.
        if let Some(original) = snapshot.first_text(redirect::ORIGINAL_URL) {
            if let Some(refusal) = redirect::internal_refusal(&config, &original, path) {
                if let Some(action) =
                    self.refuse_internal_redirect(refusal, path, &snapshot, &config)
                {
                    return action;
                }
            }
        }
        let Some(found) = self.card_rule(path, &snapshot, &config) else {
            return Action::Continue;
        };
        let Ok((route_id, rule_agent, requirement)) = found else {
            // A caller header refused (the reply is sent).
            return Action::Pause;
        };
        // The gate reads whole, identity-encoded cards only: no compression, no ranges, no
        // conditional answers (a 304 would carry no card to check). Only the ones present
        // are removed (each removal is a host call, and makes Envoy clear its route cache).
        remove_headers(&mut snapshot, MapType::HttpRequestHeaders, |k| {
            REQUEST_HEADERS_REMOVED.contains(&k)
        });
        if head {
            // A valid stamp means the card was checked: ask the upstream for it.
            let _ = hostcalls::set_map_value(MapType::HttpRequestHeaders, ":method", Some("GET"));
        }
        let authority = snapshot.first_text(":authority");
        let scheme = snapshot.first_text(":scheme");
        let variant = if config.re_resolves(route_id) {
            Variant::of(&snapshot)
        } else {
            Ok(Variant::default())
        };
        self.card = Some(CardRequest {
            raw_path,
            authority,
            scheme,
            rule_agent,
            route_id,
            requirement,
            head,
            decided: false,
            response: HeaderSnapshot::default(),
            trailers: HeaderSnapshot::default(),
            chunks: 0,
            variant,
        });
        Action::Continue
    }

    /// Request trailers (an HTTP/2 request, or a chunked HTTP/1.1 one): the requirement was read
    /// from the request headers, so a caller header that states a requirement here would not be
    /// checked. Refused like an unreadable caller header (`400`, enforce mode), while the answer
    /// is not decided yet (the filter holds it until then); observe mode logs and counts it.
    fn on_http_request_trailers(&mut self, _num_trailers: usize) -> Action {
        let (Some(config), Some(card)) = (self.config.clone(), self.card.as_ref()) else {
            return Action::Continue;
        };
        if self.replied {
            return Action::Continue;
        }
        let trailers = read_headers(MapType::HttpRequestTrailers);
        let Some(e) = trailer_requirement(&|name| trailers.values(name), CALLER_HEADERS) else {
            return Action::Continue;
        };
        metrics::increment_named(&metrics::verdict("refused"));
        log::warn!(
            "refused caller trailer on {}: {}: {} (mode {}{})",
            card.path(),
            e.header,
            e.message,
            config.mode.as_str(),
            if card.decided {
                ", the answer was decided before it arrived"
            } else {
                ""
            }
        );
        if config.mode == Mode::Enforce && !card.decided {
            self.send(&response::caller_refused(&e));
            return Action::Pause;
        }
        Action::Continue
    }

    fn on_http_response_headers(&mut self, _num_headers: usize, end_of_stream: bool) -> Action {
        if self.replied {
            return Action::Continue;
        }
        // An upstream can never fake a verdict: our header names are ours alone, on every
        // answer that passes the filter (any method, any path).
        let upstream = strip_verdict_headers(MapType::HttpResponseHeaders);
        if !upstream.is_whole() && self.config.is_some() {
            // Without the whole map the filter can neither strip an upstream's verdict headers
            // nor read a card's status: fail closed.
            log::error!("the host did not hand over the whole response header map: refused");
            self.send(&response::headers_unreadable("response"));
            return Action::Pause;
        }
        let (Some(config), Some(card)) = (self.config.clone(), self.card.as_mut()) else {
            return Action::Continue;
        };
        let status: u16 = upstream.status().unwrap_or(0);
        card.response = upstream;
        match response::read_status(status) {
            StatusReading::Card => {}
            StatusReading::NoWholeCard(decision) => return self.decide(*decision, &config),
            StatusReading::Redirect => {
                if let Some(decision) = redirect_refusal(&config, card, status) {
                    return self.decide(decision, &config);
                }
                metrics::increment_named(&metrics::verdict("passthrough"));
                self.card = None;
                return Action::Continue;
            }
            StatusReading::NotACard => {
                metrics::increment_named(&metrics::verdict("passthrough"));
                // Not a card: the body must not be held or evaluated either.
                self.card = None;
                return Action::Continue;
            }
        }
        if let Some(decision) = response::unreadable_encoding(&|name| card.response.values(name)) {
            return self.decide(decision, &config);
        }
        if end_of_stream {
            // 2xx without a body (e.g. 204): the core reports body_empty.
            return self.evaluate_buffer(0, true, &config);
        }
        Action::Pause
    }

    fn on_http_response_body(&mut self, body_size: usize, end_of_stream: bool) -> Action {
        if self.resolving {
            // The route's own answer was refused (say a 206 or an encoded body, decided at
            // its headers): hold it back, keeping nothing, until the re-resolution replies.
            drop_response_body();
            return Action::Pause;
        }
        if self.replied {
            return Action::Continue;
        }
        let (Some(config), Some(card)) = (self.config.clone(), self.card.as_mut()) else {
            return Action::Continue;
        };
        if card.decided {
            return Action::Continue;
        }
        card.chunks += 1;
        let limit = config.limits.max_card_bytes;
        // A body declared longer than the limit is refused at its first bytes. Held to its end,
        // it could overrun the stream's buffer (the listener's per_connection_buffer_limit_bytes,
        // 1 MiB by default) in one read: Envoy then adds that read to the held body before the
        // filter sees it, and answers its own untyped 500 (response_payload_too_large).
        let declared = response::declared_length(&|name| card.response.values(name))
            .filter(|&length| length > limit);
        if let Some(length) = declared {
            return self.evaluate_buffer(length.max(body_size), true, &config);
        }
        if body_size > limit || end_of_stream {
            return self.evaluate_buffer(body_size, end_of_stream, &config);
        }
        Action::Pause
    }

    fn on_http_response_trailers(&mut self, _num_trailers: usize) -> Action {
        if self.resolving {
            return Action::Pause;
        }
        if self.replied {
            return Action::Continue;
        }
        let mut trailers = strip_verdict_headers(MapType::HttpResponseTrailers);
        let (Some(config), Some(card)) = (self.config.clone(), self.card.as_mut()) else {
            return Action::Continue;
        };
        if card.decided {
            return Action::Continue;
        }
        if !trailers.is_whole() {
            // Without the whole trailer section the filter can strip no forged verdict trailer
            // nor tell a watermark sent there: fail closed.
            log::error!("the host did not hand over the whole response trailer map: refused");
            self.send(&response::headers_unreadable("response trailer"));
            return Action::Pause;
        }
        // The trailers are read as the headers were: an encoding the caller's side would apply,
        // or a framing field, is refused, and a watermark field among them is invalid
        // (evaluate_buffer); a cache lifetime there goes (the headers carry the capped one).
        if let Some(decision) = response::unreadable_trailers(&|name| trailers.values(name)) {
            return self.decide(decision, &config);
        }
        remove_headers(
            &mut trailers,
            MapType::HttpResponseTrailers,
            response::is_trailer_removed,
        );
        card.trailers = trailers;
        // The body ended with trailers: evaluate what was buffered.
        let size = hostcalls::get_buffer(
            BufferType::HttpResponseBody,
            0,
            config.limits.max_card_bytes.saturating_add(1),
        )
        .ok()
        .flatten()
        .map_or(0, |b| b.len());
        self.evaluate_buffer(size, size <= config.limits.max_card_bytes, &config)
    }
}
