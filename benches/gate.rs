//! Prints what one evaluation costs, in time and memory, for a small and a large card.
//! Run: `cargo bench --bench gate` (or `make bench`). Figures are printed, never asserted: the
//! machines are shared and noisy, so compare the ratios within one run.

// Test code: a broken expectation should stop the run loudly, so unwrap/expect/panic are fine here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use cardgate::{evaluate, json, CardHash, Observation, Requirement};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// Counts allocations and tracks the peak of live heap bytes.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static COUNT: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        COUNT.fetch_add(1, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn card(skills: usize) -> Vec<u8> {
    let skill = |i: usize| {
        format!(
            r#"{{"id":"task.execute.v{i}","name":"Execute task {i}","description":"Runs a planner task of kind {i} and reports progress","tags":["execute","planner","v{i}"],"examples":["run job {i}"],"inputModes":["application/json"],"outputModes":["application/json"]}}"#
        )
    };
    let skills: Vec<String> = (1..=skills).map(skill).collect();
    format!(
        r#"{{"name":"worker-7","description":"Executes planner tasks","version":"3.0.0","provider":{{"organization":"Example","url":"https://example.com"}},"supportedInterfaces":[{{"url":"https://worker-7.internal/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],"capabilities":{{"streaming":true,"pushNotifications":false,"extensions":[{{"uri":"https://example.com/ext/trace/v1","required":false}}]}},"defaultInputModes":["application/json"],"defaultOutputModes":["application/json"],"skills":[{}]}}"#,
        skills.join(",")
    )
    .into_bytes()
}

fn time_per_op(label: &str, bytes: usize, iters: u32, mut f: impl FnMut()) -> f64 {
    for _ in 0..iters / 10 {
        f();
    }
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    let ns = start.elapsed().as_nanos() as f64 / f64::from(iters);
    println!(
        "  {label:<34} {:>10.1} µs/op {:>8.1} MB/s",
        ns / 1000.0,
        bytes as f64 / ns * 1000.0
    );
    ns
}

fn memory(label: &str, f: impl FnOnce()) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let count = COUNT.load(Relaxed);
    f();
    println!(
        "  {label:<34} peak {:>8} bytes above baseline, {:>6} allocations",
        PEAK.load(Relaxed) - base,
        COUNT.load(Relaxed) - count
    );
}

fn main() {
    let requirement = Requirement::from_json(
        r#"{"require":["task.execute.v3","capability:streaming","binding:JSONRPC"],"min_version":"3.0.0","max_stale":"10s"}"#,
    )
    .unwrap();
    let observation = Observation::from_json(r#"{"lag_ms":"1200","age_s":"2"}"#).unwrap();
    println!("cardgate gate benchmark (release build, one thread)");
    for (name, skills, iters) in [("small card", 3, 20_000), ("large card", 150, 400)] {
        let card = card(skills);
        let n = card.len();
        println!("{name}: {n} bytes, {skills} skills");
        let parse = time_per_op("parse (strict I-JSON)", n, iters, || {
            black_box(json::parse(black_box(&card), 64).unwrap());
        });
        let doc = json::parse(&card, 64).unwrap();
        let hash = time_per_op("card hash (RFC 8785 + SHA-256)", n, iters, || {
            black_box(CardHash::of(black_box(&doc)));
        });
        let eval = time_per_op("evaluate (parse+hash+checks)", n, iters, || {
            black_box(evaluate(black_box(&card), &requirement, &observation));
        });
        let decision = evaluate(&card, &requirement, &observation);
        assert!(decision.is_valid(), "{}", decision.to_json());
        time_per_op("decision to_json (valid)", n, iters, || {
            black_box(decision.to_json());
        });
        let stale = Observation::from_json(r#"{"lag_ms":"40000"}"#).unwrap();
        let rejected = evaluate(&card, &requirement, &stale);
        time_per_op("decision to_json (rejected, card)", n, iters, || {
            black_box(rejected.to_json());
        });
        println!(
            "  ratios: parse {:.2}, hash {:.2} of evaluate",
            parse / eval,
            hash / eval
        );
        memory("evaluate", || {
            black_box(evaluate(&card, &requirement, &observation));
        });
        memory("evaluate + rejected to_json", || {
            black_box(evaluate(&card, &requirement, &stale).to_json());
        });
    }
}
