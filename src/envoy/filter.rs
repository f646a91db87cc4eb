//! The proxy-wasm contexts: the only code here that talks to Envoy.
//!
//! Request: match the path to a card route, read the caller's tightening headers, remove
//! `Accept-Encoding`. Response: remove upstream `a2a-card-*` headers, let non-2xx answers pass,
//! hold the headers (`allow_on_headers_stop_iteration: true`), buffer the body up to
//! `max_card_bytes`, evaluate at end of stream, then forward with verdict headers or replace.
//!
//! Every host call goes through `hostcalls` with its `Result` handled; header values are read
//! as bytes (the SDK's string getters panic on non-UTF-8 values). Nothing here unwraps.

use std::rc::Rc;
use std::time::UNIX_EPOCH;

use proxy_wasm::hostcalls;
use proxy_wasm::traits::{Context, HttpContext, RootContext};
use proxy_wasm::types::{Action, BufferType, ContextType, LogLevel, MapType};

use crate::{Decision, Requirement, Timestamp};

use super::caller::{caller_requirement, effective_requirement};
use super::config::{FilterConfig, Mode};
use super::metrics;
use super::response::{self, LocalReply, Outcome, VERDICT_HEADER_PREFIX};
use super::routes::{strip_query, RouteId};
use crate::watermark_sources::observe;

/// Registers the root context; called once per VM from `_initialize`.
pub fn start() {
    proxy_wasm::set_log_level(LogLevel::Info);
    proxy_wasm::set_root_context(|_| -> Box<dyn RootContext> {
        Box::new(GateRoot { config: None })
    });
}

/// One per plugin configuration: holds the validated configuration.
struct GateRoot {
    config: Option<Rc<FilterConfig>>,
}

impl Context for GateRoot {}

impl RootContext for GateRoot {
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

    fn create_http_context(&self, _context_id: u32) -> Option<Box<dyn HttpContext>> {
        Some(Box::new(CardStream {
            config: self.config.clone(),
            card: None,
            replied: false,
        }))
    }
}

/// A request on a card route.
struct CardRequest {
    path: String,
    rule_agent: Option<String>,
    route_id: RouteId,
    requirement: Requirement,
    head: bool,
    decided: bool,
}

struct CardStream {
    config: Option<Rc<FilterConfig>>,
    card: Option<CardRequest>,
    /// Set once we sent a local reply: Envoy runs it through this filter's response callbacks
    /// too, and it must pass untouched.
    replied: bool,
}

impl Context for CardStream {}

/// One copy of a header map, read once per callback (each host call copies the whole map).
struct HeaderSnapshot(Vec<(String, Vec<u8>)>);

impl HeaderSnapshot {
    fn read(map: MapType) -> HeaderSnapshot {
        HeaderSnapshot(hostcalls::get_map_bytes(map).unwrap_or_default())
    }

    /// Every value of a header (names compared case-insensitively).
    fn values(&self, name: &str) -> Vec<Vec<u8>> {
        self.0
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .collect()
    }
}

/// Removes every field of `map` whose name starts with `a2a-card-`.
fn remove_verdict_fields(map: MapType) {
    let names: Vec<String> = hostcalls::get_map_bytes(map)
        .unwrap_or_default()
        .into_iter()
        .map(|(k, _)| k)
        .filter(|k| k.to_ascii_lowercase().starts_with(VERDICT_HEADER_PREFIX))
        .collect();
    for name in names {
        let _ = hostcalls::remove_map_value(map, &name);
    }
}

fn header_text(map: MapType, name: &str) -> Option<String> {
    hostcalls::get_map_value_bytes(map, name)
        .ok()
        .flatten()
        .map(|v| String::from_utf8_lossy(&v).into_owned())
}

fn now() -> Timestamp {
    let ms = hostcalls::get_current_time()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    Timestamp::from_unix_ms(ms)
}

fn micros_now() -> u64 {
    hostcalls::get_current_time()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

impl CardStream {
    fn send(&mut self, reply: &LocalReply) {
        self.replied = true;
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

    /// Applies a decision: counts, logs, then forwards with headers or replaces the answer.
    fn apply(&mut self, decision: &Decision, config: &FilterConfig) -> Action {
        let Some(card) = self.card.as_mut() else {
            return Action::Continue;
        };
        card.decided = true;
        if let Some(ms) = decision.staleness_ms() {
            metrics::record(metrics::STALENESS_MS, ms);
        }
        match decision.error_class() {
            None => metrics::increment(&metrics::verdict("valid")),
            Some(class) => {
                metrics::increment(&metrics::verdict("rejected"));
                metrics::increment(&metrics::error_class(class.as_str()));
                for r in decision.reasons() {
                    metrics::increment(&metrics::reason(r.code.as_str()));
                }
                log::warn!(
                    "{}",
                    response::rejection_log(
                        decision,
                        card.rule_agent.as_deref(),
                        &card.path,
                        config.mode
                    )
                );
                if config.mode == Mode::Observe {
                    metrics::increment(metrics::OBSERVE_NOT_BLOCKED);
                }
            }
        }
        match response::outcome(decision, config.mode, config.retry_after_s) {
            Outcome::Forward(headers) => {
                for (name, value) in headers {
                    let _ =
                        hostcalls::set_map_value(MapType::HttpResponseHeaders, name, Some(&value));
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
            return self.apply(&decision, config);
        }
        let body = hostcalls::get_buffer(BufferType::HttpResponseBody, 0, size)
            .ok()
            .flatten()
            .unwrap_or_default();
        let snapshot = HeaderSnapshot::read(MapType::HttpResponseHeaders);
        let header = |name: &str| snapshot.values(name);
        let started = micros_now();
        let decision = response::evaluate_body(
            &body,
            route,
            &card.requirement,
            &header,
            now(),
            &config.limits,
        );
        metrics::record(metrics::EVALUATION_US, micros_now().saturating_sub(started));
        self.apply(&decision, config)
    }
}

impl HttpContext for CardStream {
    fn on_http_request_headers(&mut self, _num_headers: usize, _end_of_stream: bool) -> Action {
        let Some(config) = self.config.clone() else {
            return Action::Continue;
        };
        let raw_path = header_text(MapType::HttpRequestHeaders, ":path").unwrap_or_default();
        let path = strip_query(&raw_path);
        let Some((route_id, matched)) = config.match_path(path) else {
            return Action::Continue;
        };
        // Only reads serve cards for delegation; writes to a registry (registrations) pass.
        let method = header_text(MapType::HttpRequestHeaders, ":method").unwrap_or_default();
        if method != "GET" && method != "HEAD" {
            return Action::Continue;
        }
        let rule_agent = matched.agent;
        // The gate reads identity-encoded bodies only.
        let _ = hostcalls::remove_map_value(MapType::HttpRequestHeaders, "accept-encoding");

        let snapshot = HeaderSnapshot::read(MapType::HttpRequestHeaders);
        let header = |name: &str| snapshot.values(name);
        let rule = config.policy.requirement_for(rule_agent.as_deref());
        let requirement = caller_requirement(&header)
            .and_then(|caller| effective_requirement(&rule, &caller, config.allow_caller_relax));
        let requirement = match requirement {
            Ok(r) => r,
            Err(e) => {
                metrics::increment(&metrics::verdict("refused"));
                log::warn!(
                    "refused caller header on {path}: {}: {} (mode {})",
                    e.header,
                    e.message,
                    config.mode.as_str()
                );
                if config.mode == Mode::Enforce {
                    self.send(&response::caller_refused(&e));
                    return Action::Pause;
                }
                // Observe mode never blocks: check the card against the policy's rule alone.
                rule
            }
        };
        let head = method == "HEAD";
        self.card = Some(CardRequest {
            path: path.to_owned(),
            rule_agent,
            route_id,
            requirement,
            head,
            decided: false,
        });
        Action::Continue
    }

    fn on_http_response_headers(&mut self, _num_headers: usize, end_of_stream: bool) -> Action {
        if self.replied {
            return Action::Continue;
        }
        let (Some(config), Some(card)) = (self.config.clone(), self.card.as_ref()) else {
            return Action::Continue;
        };
        // An upstream can never fake a verdict: our header names are ours alone.
        remove_verdict_fields(MapType::HttpResponseHeaders);

        let status: u16 = header_text(MapType::HttpResponseHeaders, ":status")
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let Some(route) = config.route(card.route_id) else {
            return Action::Continue;
        };
        if status == 304 || (card.head && (200..300).contains(&status)) {
            // No card in this answer: only the watermark can be checked.
            let snapshot = HeaderSnapshot::read(MapType::HttpResponseHeaders);
            let header = |name: &str| snapshot.values(name);
            let observation = observe(&route.watermark, None, None, &header, now());
            let decision = crate::gate::evaluate_freshness(&card.requirement, &observation);
            return self.apply(&decision, &config);
        }
        if !(200..300).contains(&status) {
            metrics::increment(&metrics::verdict("passthrough"));
            // Not a card: the body must not be held or evaluated either.
            self.card = None;
            return Action::Continue;
        }
        if let Some(encoding) = header_text(MapType::HttpResponseHeaders, "content-encoding") {
            let identity = encoding.split(',').all(|e| {
                e.trim_matches([' ', '\t']).eq_ignore_ascii_case("identity") || e.trim().is_empty()
            });
            if !identity {
                return self.apply(&Decision::body_encoded(encoding.trim()), &config);
            }
        }
        if end_of_stream {
            // 2xx without a body (e.g. 204): the core reports body_empty.
            return self.evaluate_buffer(0, true, &config);
        }
        Action::Pause
    }

    fn on_http_response_body(&mut self, body_size: usize, end_of_stream: bool) -> Action {
        if self.replied {
            return Action::Continue;
        }
        let (Some(config), Some(card)) = (self.config.clone(), self.card.as_ref()) else {
            return Action::Continue;
        };
        if card.decided {
            return Action::Continue;
        }
        metrics::increment(metrics::BODY_CHUNKS);
        if body_size > config.limits.max_card_bytes || end_of_stream {
            return self.evaluate_buffer(body_size, end_of_stream, &config);
        }
        Action::Pause
    }

    fn on_http_response_trailers(&mut self, _num_trailers: usize) -> Action {
        if self.replied {
            return Action::Continue;
        }
        let (Some(config), Some(card)) = (self.config.clone(), self.card.as_ref()) else {
            return Action::Continue;
        };
        // Trailers travel with the card where the listener forwards them: not a verdict either.
        remove_verdict_fields(MapType::HttpResponseTrailers);
        if card.decided {
            return Action::Continue;
        }
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
