//! Envoy proxy-wasm glue (feature `envoy`, target `wasm32-wasip1`): an HTTP filter that checks
//! Agent Card responses before they reach the caller.
//!
//! The glue is thin: parsing, evaluation and the decision's JSON come from the core. What lives
//! here is what only a proxy has: which paths carry cards ([`routes`]), where the watermark is
//! (the core's [`crate::watermark_sources`]), what the caller asks for in request headers ([`caller`]), what the caller
//! gets back ([`response`]), the configuration ([`config`]) and the metrics ([`metrics`]).
//! Everything but the host calls in `filter` is plain Rust, unit-tested natively.
//!
//! Build: `make filter` (writes `dist/cardgate.wasm`). Deployment and configuration reference:
//! `envoy/README.md` and the commented `envoy/envoy.yaml`.

pub mod analysis;
pub mod caller;
pub mod config;
pub mod headers;
pub mod metrics;
pub mod redirect;
pub mod reresolve;
pub mod response;
pub mod routes;
pub mod vec_map;

#[cfg(target_arch = "wasm32")]
mod filter;

/// The module's entry point: Envoy calls `_initialize` once per VM.
#[cfg(target_arch = "wasm32")]
mod entry {
    proxy_wasm::main! {{
        super::filter::start();
    }}
}
