//! What one native evaluation costs, step by step, on the shared benchmark cards (bench/cards/).
//!
//! Two ways to run it, both with `CARGO_PROFILE_BENCH_PANIC=unwind` (cargo builds benches with
//! unwind; with the release profile's "abort" it builds the library twice under one file name,
//! and the bench may link the wrong one and fail to build):
//! - `CARGO_PROFILE_BENCH_PANIC=unwind cargo bench --bench gate`: prints µs per operation and
//!   allocations for each card, one process, one pass (a quick look while working on the core);
//! - `... cargo bench --bench gate -- --serve`: a worker for `make bench` (bench/run.py), which
//!   round-robins it with the Python and JS peers and the npm package and builds the table.
//!   Protocol, one line each way: `run <card path> <op> <iterations>` answers the elapsed
//!   nanoseconds; `allocs <card path> <op>` answers `<allocations> <peak bytes>` for one call;
//!   `check <card path>` answers the decision JSON; `quit` ends.
//!
//! Figures are printed, never asserted: the machines are shared and noisy, so compare ratios
//! measured in the same run.

// Bench code: a broken expectation should stop the run loudly, so unwrap/expect/panic are fine.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use cardgate::card::AgentCard;
use cardgate::document::Document;
use cardgate::json;
use cardgate::{evaluate, jcs, CardHash, Decision, Observation, Requirement};
use sha2::{Digest, Sha256};
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::hint::black_box;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// Counts allocations and the peak of live heap bytes, only while `COUNTING` is on (so timed
/// runs pay one relaxed load per allocation, not three atomic updates).
struct Counting;
static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static COUNT: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
            COUNT.fetch_add(1, Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if COUNTING.load(Relaxed) {
            LIVE.fetch_sub(layout.size(), Relaxed);
        }
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The peers' requirement (bench/README.md): task.execute.v3, min_version 7, max_stale 10 s,
/// replication lag 500 ms.
const REQUIREMENT: &str = r#"{"require":["task.execute.v3"],"min_version":"7","max_stale":"10s"}"#;
const OBSERVATION: &str = r#"{"lag_ms":"500"}"#;

/// The operations, in table order. `evaluate` is what the peers are compared with.
const OPS: [&str; 9] = [
    "evaluate",
    "evaluate_json",
    "parse",
    "canonical",
    "hash",
    "card_hash",
    "card_view",
    "to_json",
    "floor",
];

/// One card and everything the operations reuse.
struct Card {
    bytes: Vec<u8>,
    doc: Document,
    canonical: String,
    decision: Decision,
}

struct Bench {
    requirement: Requirement,
    observation: Observation,
    cards: HashMap<PathBuf, Card>,
}

/// The hex digest as the card hash spells it (lowercase, no table).
fn hex(digest: &[u8]) -> String {
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for &b in digest {
        for nibble in [b >> 4, b & 15] {
            out.push(char::from(if nibble < 10 {
                b'0' + nibble
            } else {
                b'a' + nibble - 10
            }));
        }
    }
    out
}

impl Bench {
    fn new() -> Bench {
        Bench {
            requirement: Requirement::from_json(REQUIREMENT).unwrap(),
            observation: Observation::from_json(OBSERVATION).unwrap(),
            cards: HashMap::new(),
        }
    }

    fn card(&mut self, path: &Path) -> &Card {
        if !self.cards.contains_key(path) {
            let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let doc = json::parse_document(&bytes, 64).unwrap();
            let canonical = jcs::canonicalize_document(&doc);
            let naive = bytes
                .iter()
                .filter(|&&b| b == b'"' || b == b'\\' || b < 0x20);
            assert_eq!(stops(&bytes) as usize, naive.count(), "the floor's scan");
            let decision = evaluate(&bytes, &self.requirement, &self.observation);
            assert!(
                decision.is_valid(),
                "{}: {}",
                path.display(),
                decision.to_json()
            );
            let card = Card {
                bytes,
                doc,
                canonical,
                decision,
            };
            self.cards.insert(path.to_path_buf(), card);
        }
        &self.cards[path]
    }

    /// Runs `op` `n` times on the card; returns the elapsed nanoseconds.
    fn run(&mut self, path: &Path, op: &str, n: u64) -> u128 {
        self.card(path);
        let card = &self.cards[path];
        let (req, obs) = (&self.requirement, &self.observation);
        let start = Instant::now();
        match op {
            // The whole gate: parse, card hash, the three checks, the decision (no JSON).
            "evaluate" => repeat(n, || {
                black_box(evaluate(black_box(&card.bytes), req, obs));
            }),
            // What the CLI, the npm package and the Envoy filter do today: the decision as JSON.
            "evaluate_json" => repeat(n, || {
                black_box(evaluate(black_box(&card.bytes), req, obs).to_json());
            }),
            "parse" => repeat(n, || {
                black_box(json::parse_document(black_box(&card.bytes), 64).unwrap());
            }),
            // serde_json alone (no document built): what `parse` costs at least.
            "lex" => repeat(n, || {
                let text = std::str::from_utf8(black_box(&card.bytes)).unwrap();
                black_box(serde_json::from_str::<serde::de::IgnoredAny>(text).unwrap());
            }),
            // serde_json through `deserialize_any` with a visitor that keeps nothing.
            "lex_any" => repeat(n, || {
                let text = std::str::from_utf8(black_box(&card.bytes)).unwrap();
                let mut de = serde_json::Deserializer::from_str(text);
                let read: Result<Nothing, _> = serde::Deserialize::deserialize(&mut de);
                black_box(read.is_ok());
            }),
            "canonical" => repeat(n, || {
                black_box(jcs::canonicalize_document(black_box(&card.doc)));
            }),
            // SHA-256 of the canonical bytes and its hex spelling.
            "hash" => repeat(n, || {
                black_box(hex(&Sha256::digest(black_box(card.canonical.as_bytes()))));
            }),
            // Canonical form + hash as the gate computes them.
            "card_hash" => repeat(n, || {
                black_box(CardHash::of_document(black_box(&card.doc)));
            }),
            // The card as the checks read it (every SDK reading), part of "checks".
            "card_view" => repeat(n, || {
                black_box(AgentCard::from_document(black_box(&card.doc)).unwrap());
            }),
            "to_json" => repeat(n, || {
                black_box(black_box(&card.decision).to_json());
            }),
            // What the hardware needs at least: UTF-8 validation, one scan over the body (for
            // the bytes a JSON string scanner stops at: quote, backslash, control), SHA-256 of
            // the canonical bytes.
            "floor" => repeat(n, || {
                let text = std::str::from_utf8(black_box(&card.bytes)).unwrap();
                black_box(stops(text.as_bytes()));
                black_box(Sha256::digest(black_box(card.canonical.as_bytes())));
            }),
            other => panic!("unknown op {other:?}"),
        }
        start.elapsed().as_nanos()
    }

    /// Allocations and peak live heap bytes of one call of `op`.
    fn allocs(&mut self, path: &Path, op: &str) -> (usize, usize) {
        self.run(path, op, 1);
        let base = LIVE.load(Relaxed);
        PEAK.store(base, Relaxed);
        let count = COUNT.load(Relaxed);
        COUNTING.store(true, Relaxed);
        self.run(path, op, 1);
        COUNTING.store(false, Relaxed);
        (
            COUNT.load(Relaxed) - count,
            PEAK.load(Relaxed).saturating_sub(base),
        )
    }
}

/// How many bytes are a quote, a backslash or a control character: one pass, eight bytes at a
/// time (SWAR, so the count does not depend on the compiler vectorizing at opt-level "s").
fn stops(bytes: &[u8]) -> u32 {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    // High bit set in each byte of `x` that is not zero.
    let nonzero = |x: u64| ((x & LOW) + LOW) | x;
    let mut count = 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().unwrap());
        let at_least_space = ((w & LOW) + 0x6060_6060_6060_6060) | w;
        let hits = !(nonzero(w ^ (ONES * u64::from(b'"')))
            & nonzero(w ^ (ONES * u64::from(b'\\')))
            & at_least_space)
            & HIGH;
        count += hits.count_ones();
    }
    for &b in words.remainder() {
        count += u32::from(b == b'"' || b == b'\\' || b < 0x20);
    }
    count
}

/// A value read through `deserialize_any` and dropped.
struct Nothing;

impl<'de> serde::Deserialize<'de> for Nothing {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Nothing, D::Error> {
        d.deserialize_any(NothingVisitor)
    }
}

struct NothingVisitor;

impl<'de> serde::de::Visitor<'de> for NothingVisitor {
    type Value = Nothing;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JSON")
    }
    fn visit_unit<E>(self) -> Result<Nothing, E> {
        Ok(Nothing)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Nothing, E> {
        Ok(Nothing)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Nothing, E> {
        Ok(Nothing)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Nothing, E> {
        Ok(Nothing)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Nothing, E> {
        Ok(Nothing)
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Nothing, E> {
        black_box(s);
        Ok(Nothing)
    }
    fn visit_str<E>(self, s: &str) -> Result<Nothing, E> {
        black_box(s);
        Ok(Nothing)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Nothing, A::Error> {
        while seq.next_element::<Nothing>()?.is_some() {}
        Ok(Nothing)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Nothing, A::Error> {
        while let Some(key) = map.next_key::<&'de str>()? {
            black_box(key);
            map.next_value::<Nothing>()?;
        }
        Ok(Nothing)
    }
}

fn repeat(n: u64, mut f: impl FnMut()) {
    for _ in 0..n {
        f();
    }
}

fn serve() {
    let mut bench = Bench::new();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let words: Vec<&str> = line.split_whitespace().collect();
        let answer = match words.as_slice() {
            ["run", path, op, n] => bench
                .run(Path::new(path), op, n.parse().unwrap())
                .to_string(),
            ["allocs", path, op] => {
                let (count, peak) = bench.allocs(Path::new(path), op);
                format!("{count} {peak}")
            }
            ["check", path] => bench.card(Path::new(path)).decision.to_json(),
            ["quit"] => break,
            _ => panic!("bad command {line:?}"),
        };
        writeln!(out, "{answer}").unwrap();
        out.flush().unwrap();
    }
}

fn main() {
    if std::env::args().any(|a| a == "--serve") {
        return serve();
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/cards");
    let mut bench = Bench::new();
    println!("cardgate native core, one pass (`make bench` has the interleaved table with peers)");
    println!("requirement {REQUIREMENT}, observation {OBSERVATION}");
    for name in ["minimal", "typical", "large"] {
        let path = dir.join(format!("{name}.json"));
        let len = bench.card(&path).bytes.len();
        println!("{name}.json ({len} bytes)");
        // About 0.2 s per operation: enough iterations that the clock does not matter.
        let n = (20_000_000 / len.max(1) as u64).clamp(20, 200_000);
        for op in OPS {
            bench.run(&path, op, n / 10);
            let ns = bench.run(&path, op, n) as f64 / n as f64;
            let (count, peak) = bench.allocs(&path, op);
            println!(
                "  {op:<14} {:>10.2} µs/op {:>7} allocations {:>9} peak heap bytes",
                ns / 1000.0,
                count,
                peak
            );
        }
    }
}
