//! The per-VM analysis cache: each distinct card body is parsed, hashed and read once
//! ([`crate::gate::analyze`]); a repeated body reuses that analysis, and only the per-request
//! checks ([`crate::gate::decide`]: freshness against this answer's watermark, the caller's and
//! the route's requirement) run again.
//!
//! The key is the exact body bytes themselves, not a digest: a hit compares the whole body with
//! the kept one, so a body that differs in one byte (or in length) is a different entry by
//! construction, with no collision argument to make. To find the candidates cheaply the map is
//! ordered by a fingerprint (the length and an unkeyed 64-bit checksum of the bytes, one pass of
//! 8-byte words): entries whose fingerprints match are then compared in full, 8 bytes at a time
//! (a byte-wise `memcmp`, what comparing `Vec<u8>` keys costs in Wasm, took several microseconds
//! per 4 KB card). The map is ordered ([`VecMap`], sorted by fingerprint): no hasher seed to draw from the host; bodies
//! an upstream crafts to share a fingerprint only share a bucket, never an analysis, and a bucket
//! holds at most [`MAX_ENTRIES`] entries.
//!
//! Bounded: at most [`MAX_ENTRIES`] entries and [`MAX_BYTES`] accounted bytes, least recently
//! used evicted first. An entry is accounted as its body (the key) plus the heap the analysis
//! holds, measured after analysing ([`Analysis::heap_bytes`]: the document's slot list, text and
//! decoded strings, and the card view; a body built of many tiny values, such as a long array of
//! zeros, holds several times its length in slots, and is accounted so) plus [`ENTRY_OVERHEAD`];
//! a body whose entry alone would exceed [`MAX_ENTRY_BYTES`] is evaluated without being kept. Only routes that read the
//! card as the whole body use the cache (envelope routes, `card_pointer`/`watermark_pointer`,
//! read their watermark from the body, so they evaluate every answer in full).

use std::collections::VecDeque;
use std::rc::Rc;

use super::vec_map::VecMap;
use crate::gate::{analyze, Analysis, PassedChecks};
use crate::{Decision, Limits, Observation, Requirement};

/// Most entries kept per VM.
pub const MAX_ENTRIES: usize = 128;
/// Most accounted bytes kept per VM (see [`AnalysisCache::weight`]).
pub const MAX_BYTES: usize = 4 * 1024 * 1024;
/// Largest accounted size of one entry: bigger bodies are never kept (with the default
/// `max_card_bytes`, 64 KiB, every card fits).
pub const MAX_ENTRY_BYTES: usize = MAX_BYTES / 8;
/// Fixed bytes accounted per entry, on top of the body and the analysis: the entry itself and
/// its memo of passed requirement checks at its largest ([`PassedChecks::MAX_BYTES`]).
pub const ENTRY_OVERHEAD: usize = 1024 + PassedChecks::MAX_BYTES;

struct Entry {
    body: Vec<u8>,
    analysis: Analysis,
    /// Conditions (a) and (c) this card passed under recent requirements.
    checks: PassedChecks,
    weight: usize,
    used: u64,
}

/// Whether a lookup found the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The body's analysis was kept.
    Hit,
    /// Analysed now (and kept, unless too large).
    Miss,
}

/// Analyses by exact body bytes, bounded, least recently used evicted first.
pub struct AnalysisCache {
    entries: VecMap<Fingerprint, Vec<Entry>>,
    /// The fingerprint of the entry used last: a body equal to its body is found without
    /// fingerprinting it (a registry serves the same card again and again).
    last: Option<Fingerprint>,
    /// Every use of an entry, oldest first, as (its clock, its fingerprint): the least recently
    /// used entry is the first record whose entry still has that clock as its last use (later
    /// uses and evicted entries leave stale records, skipped). Rebuilt from the entries when it
    /// holds more than [`AnalysisCache::uses_bound`] records, so its size stays bounded.
    uses: VecDeque<(u64, Fingerprint)>,
    len: usize,
    bytes: usize,
    clock: u64,
    max_entries: usize,
    max_bytes: usize,
}

impl Default for AnalysisCache {
    fn default() -> AnalysisCache {
        AnalysisCache::with_bounds(MAX_ENTRIES, MAX_BYTES)
    }
}

impl AnalysisCache {
    /// A cache with explicit bounds (tests use small ones).
    pub fn with_bounds(max_entries: usize, max_bytes: usize) -> AnalysisCache {
        AnalysisCache {
            entries: VecMap::new(),
            last: None,
            uses: VecDeque::new(),
            len: 0,
            bytes: 0,
            clock: 0,
            max_entries,
            max_bytes,
        }
    }

    /// The bytes accounted for a body's entry with its analysis.
    pub fn weight(body: &[u8], analysis: &Analysis) -> usize {
        body.len()
            .saturating_add(analysis.heap_bytes())
            .saturating_add(ENTRY_OVERHEAD)
    }

    /// Runs `f` on the analysis of `body`: the kept one, or a new one (kept when it fits).
    pub fn with<R>(
        &mut self,
        body: &[u8],
        limits: &Limits,
        f: impl FnOnce(&Analysis) -> R,
    ) -> (R, Lookup) {
        self.with_checks(body, limits, |analysis, _| f(analysis))
    }

    /// The decision on `body` for one request ([`crate::gate::decide`] on its analysis, kept or
    /// made now), with the entry's memo of passed requirement checks
    /// ([`Analysis::decide_remembering`]): the same decision, and on a hit with a requirement
    /// seen before only the freshness check runs.
    pub fn decide(
        &mut self,
        body: &[u8],
        limits: &Limits,
        requirement: &Rc<Requirement>,
        observation: &Observation,
    ) -> (Decision, Lookup) {
        self.with_checks(body, limits, |analysis, checks| {
            analysis.decide_remembering(checks, requirement, observation)
        })
    }

    fn with_checks<R>(
        &mut self,
        body: &[u8],
        limits: &Limits,
        f: impl FnOnce(&Analysis, &mut PassedChecks) -> R,
    ) -> (R, Lookup) {
        self.clock += 1;
        // The bucket of the entry used last first: its bodies are compared in full, as any
        // candidate's are (a length that differs ends a comparison at once), and only when none
        // is this body is the body fingerprinted. A body equal to one in that bucket has its
        // fingerprint, so either way `key` is this body's fingerprint.
        let position = |entries: &VecMap<Fingerprint, Vec<Entry>>, key: &Fingerprint| {
            entries
                .get(key)
                .and_then(|bucket| bucket.iter().position(|e| same_bytes(&e.body, body)))
        };
        let (key, found) = match self
            .last
            .filter(|k| k.0 == body.len())
            .and_then(|k| Some((k, position(&self.entries, &k)?)))
        {
            Some((k, i)) => (k, Some(i)),
            None => {
                let k = fingerprint(body);
                (k, position(&self.entries, &k))
            }
        };
        if let Some(entry) = found.and_then(|i| self.entries.get_mut(&key)?.get_mut(i)) {
            entry.used = self.clock;
            self.last = Some(key);
            let out = f(&entry.analysis, &mut entry.checks);
            self.record_use(key);
            return (out, Lookup::Hit);
        }
        let analysis = analyze(body, limits);
        let mut checks = PassedChecks::default();
        let out = f(&analysis, &mut checks);
        let weight = AnalysisCache::weight(body, &analysis);
        if weight <= MAX_ENTRY_BYTES.min(self.max_bytes) && self.max_entries > 0 {
            while self.len >= self.max_entries || self.bytes.saturating_add(weight) > self.max_bytes
            {
                if !self.evict_oldest() {
                    break;
                }
            }
            if let Some(bucket) = self.entries.get_or_insert_with(key, Vec::new) {
                self.last = Some(key);
                self.bytes += weight;
                self.len += 1;
                bucket.push(Entry {
                    body: body.to_vec(),
                    analysis,
                    checks,
                    weight,
                    used: self.clock,
                });
                self.record_use(key);
            }
        }
        (out, Lookup::Miss)
    }

    /// Most records [`AnalysisCache::uses`] holds before it is rebuilt.
    fn uses_bound(&self) -> usize {
        self.max_entries
            .min(1 << 16)
            .saturating_mul(2)
            .saturating_add(16)
    }

    /// Records the use of the entry with fingerprint `key` at the current clock.
    fn record_use(&mut self, key: Fingerprint) {
        self.uses.push_back((self.clock, key));
        if self.uses.len() > self.uses_bound() {
            // Only each entry's last use is still needed, in order.
            let mut live: Vec<(u64, Fingerprint)> = self
                .entries
                .iter()
                .flat_map(|(k, bucket)| bucket.iter().map(move |e| (e.used, *k)))
                .collect();
            live.sort_unstable();
            self.uses = live.into();
        }
    }

    /// Evicts the least recently used entry; whether there was one.
    fn evict_oldest(&mut self) -> bool {
        while let Some((used, key)) = self.uses.pop_front() {
            let Some(bucket) = self.entries.get_mut(&key) else {
                continue;
            };
            let Some(i) = bucket.iter().position(|e| e.used == used) else {
                continue;
            };
            let entry = bucket.swap_remove(i);
            if bucket.is_empty() {
                self.entries.remove(&key);
            }
            self.bytes -= entry.weight;
            self.len -= 1;
            return true;
        }
        // Not reached while every entry's last use is recorded; the full scan keeps eviction
        // working regardless.
        self.evict_oldest_by_scan()
    }

    fn evict_oldest_by_scan(&mut self) -> bool {
        let oldest = self
            .entries
            .iter()
            .flat_map(|(k, bucket)| bucket.iter().enumerate().map(move |(i, e)| (e.used, *k, i)))
            .min();
        let Some((_, key, i)) = oldest else {
            return false;
        };
        let Some(bucket) = self.entries.get_mut(&key) else {
            return false;
        };
        if i >= bucket.len() {
            return false;
        }
        let entry = bucket.swap_remove(i);
        if bucket.is_empty() {
            self.entries.remove(&key);
        }
        self.bytes -= entry.weight;
        self.len -= 1;
        true
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No entry kept.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Accounted bytes kept (never more than the bound).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether `body` has an entry (does not count as a use).
    pub fn contains(&self, body: &[u8]) -> bool {
        self.entries
            .get(&fingerprint(body))
            .is_some_and(|bucket| bucket.iter().any(|e| same_bytes(&e.body, body)))
    }
}

/// The length of a body and an unkeyed checksum of its bytes: equal bodies have equal
/// fingerprints (the converse is checked byte for byte).
type Fingerprint = (usize, u64);

fn fingerprint(body: &[u8]) -> Fingerprint {
    const K: u64 = 0x0000_0100_0000_01b3;
    let mix = |h: u64, w: &[u8; 8]| (h ^ u64::from_le_bytes(*w)).wrapping_mul(K).rotate_left(29);
    // Four independent lanes over 32-byte blocks (no lane waits for another's multiply), then
    // folded into one; the tail word by word, then byte by byte. Slice patterns, not iterator
    // adapters: the filter is built for size, and these loops must not call out per word.
    let (blocks, rest) = body.as_chunks::<32>();
    let (mut a, mut b, mut c, mut d): (u64, u64, u64, u64) = (
        0x9e37_79b9_7f4a_7c15,
        0x6a09_e667_f3bc_c908,
        0xbb67_ae85_84ca_a73b,
        0x3c6e_f372_fe94_f82b,
    );
    for block in blocks {
        if let ([w0, w1, w2, w3], _) = block.as_chunks::<8>() {
            a = mix(a, w0);
            b = mix(b, w1);
            c = mix(c, w2);
            d = mix(d, w3);
        }
    }
    let mut h = a ^ b.rotate_left(16) ^ c.rotate_left(32) ^ d.rotate_left(48);
    let (words, tail) = rest.as_chunks::<8>();
    for w in words {
        h = mix(h, w);
    }
    for &byte in tail {
        h = (h ^ u64::from(byte)).wrapping_mul(K);
    }
    (body.len(), h)
}

/// `a == b`, compared 32 bytes at a time as four 8-byte words (slice equality is a byte-wise
/// `memcmp` in Wasm).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let word = |w: &[u8; 8]| u64::from_le_bytes(*w);
    let ((x, x_rest), (y, y_rest)) = (a.as_chunks::<32>(), b.as_chunks::<32>());
    for (p, q) in x.iter().zip(y) {
        // Always four words each; anything else counts as a difference (a miss, never a hit).
        let (([p0, p1, p2, p3], _), ([q0, q1, q2, q3], _)) =
            (p.as_chunks::<8>(), q.as_chunks::<8>())
        else {
            return false;
        };
        let diff = (word(p0) ^ word(q0))
            | (word(p1) ^ word(q1))
            | (word(p2) ^ word(q2))
            | (word(p3) ^ word(q3));
        if diff != 0 {
            return false;
        }
    }
    let ((xw, x_tail), (yw, y_tail)) = (x_rest.as_chunks::<8>(), y_rest.as_chunks::<8>());
    x_tail == y_tail && xw.iter().zip(yw).all(|(p, q)| word(p) == word(q))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate_with;
    use crate::gate::decide;

    fn card(name: &str) -> Vec<u8> {
        format!(
            r#"{{"name":"{name}","version":"3.0.0","skills":[{{"id":"task.execute.v3","name":"x","description":"x","tags":["x"]}}]}}"#
        )
        .into_bytes()
    }

    fn lookup(cache: &mut AnalysisCache, body: &[u8]) -> Lookup {
        cache.with(body, &Limits::default(), |_| ()).1
    }

    #[test]
    fn evicts_the_least_recently_used() {
        let mut cache = AnalysisCache::with_bounds(3, usize::MAX);
        let (a, b, c, d) = (card("a"), card("b"), card("c"), card("d"));
        for body in [&a, &b, &c] {
            assert_eq!(lookup(&mut cache, body), Lookup::Miss);
        }
        // a is used again, so b is now the oldest.
        assert_eq!(lookup(&mut cache, &a), Lookup::Hit);
        assert_eq!(lookup(&mut cache, &d), Lookup::Miss);
        assert_eq!(cache.len(), 3);
        assert!(!cache.contains(&b), "b was the least recently used");
        assert!(cache.contains(&a) && cache.contains(&c) && cache.contains(&d));
        assert_eq!(lookup(&mut cache, &b), Lookup::Miss);
        assert!(!cache.contains(&c), "then c");
    }

    fn weight(body: &[u8]) -> usize {
        AnalysisCache::weight(body, &analyze(body, &Limits::default()))
    }

    /// The bounds are exact: entries that fill the byte bound to the byte are all kept, one
    /// that needs two older ones gone has both evicted, and a cache of no entries keeps none.
    #[test]
    fn bounds_hold_to_the_byte_and_the_entry() {
        let (a, b, c) = (card("a"), card("b"), card("c"));
        let w = weight(&a);
        assert_eq!((weight(&b), weight(&c)), (w, w));
        let mut cache = AnalysisCache::with_bounds(1000, 3 * w);
        assert!(cache.is_empty());
        for body in [&a, &b, &c] {
            assert_eq!(lookup(&mut cache, body), Lookup::Miss);
        }
        assert_eq!((cache.len(), cache.bytes()), (3, 3 * w));
        assert!(!cache.is_empty());
        // A body a little heavier than one of them needs two of them gone: the two oldest.
        let big = (4..)
            .map(|n| card(&"x".repeat(n)))
            .find(|body| weight(body) > w)
            .unwrap();
        assert!(weight(&big) <= 2 * w);
        assert_eq!(lookup(&mut cache, &big), Lookup::Miss);
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.bytes(), w + weight(&big));
        assert!(cache.contains(&c) && cache.contains(&big));
        assert!(!cache.contains(&a) && !cache.contains(&b));

        let mut none = AnalysisCache::with_bounds(0, usize::MAX);
        for _ in 0..2 {
            assert_eq!(lookup(&mut none, &a), Lookup::Miss);
        }
        assert!(none.is_empty());
        assert_eq!(none.bytes(), 0);
    }

    #[test]
    fn never_exceeds_its_memory_bound() {
        let bound = 4 * weight(&card("n00"));
        let mut cache = AnalysisCache::with_bounds(1000, bound);
        for i in 0..200 {
            // Bodies of varying length, some repeated.
            let body = card(&format!("n{:0width$}", i % 37, width = 2 + i % 5));
            cache.with(&body, &Limits::default(), |_| ());
            assert!(cache.bytes() <= bound, "{} > {bound}", cache.bytes());
            let sum: usize = cache.entries.values().flatten().map(|e| e.weight).sum();
            assert_eq!(sum, cache.bytes(), "accounting matches the entries");
        }
        assert!(cache.len() <= 4);
        // A card of ordinary shape at the default size limit fits.
        let mut big = card("big");
        let filler = format!(r#","description":"{}"}}"#, "x ".repeat(30_000));
        big.truncate(big.len() - 1);
        big.extend_from_slice(filler.as_bytes());
        assert!(big.len() < Limits::default().max_card_bytes);
        assert!(weight(&big) <= MAX_ENTRY_BYTES, "{}", weight(&big));
        // A body of many tiny values holds far more than its length, and is accounted so:
        // evaluated, not kept.
        let mut tiny = card("tiny");
        tiny.truncate(tiny.len() - 1);
        tiny.extend_from_slice(br#","a":["#);
        tiny.extend_from_slice(&b"0,".repeat(30_000));
        tiny.extend_from_slice(b"0]}");
        let analysis = analyze(&tiny, &Limits::default());
        assert!(analysis.card_hash().is_some());
        assert!(
            analysis.heap_bytes() > 8 * tiny.len(),
            "{}",
            analysis.heap_bytes()
        );
        let mut cache = AnalysisCache::default();
        assert_eq!(lookup(&mut cache, &tiny), Lookup::Miss);
        assert!(cache.is_empty(), "{} accounted", weight(&tiny));
        // So is a body that is not a card but parses (its decision carries the tree).
        let mut not_a_card = b"{\"a\":[".to_vec();
        not_a_card.extend_from_slice(&b"0,".repeat(30_000));
        not_a_card.extend_from_slice(b"0]}");
        assert!(weight(&not_a_card) > 16 * not_a_card.len());
        let huge = vec![b' '; MAX_ENTRY_BYTES];
        let mut cache = AnalysisCache::default();
        let (d, how) = cache.with(&huge, &Limits::default(), |a| {
            decide(a, &Requirement::default(), &Observation::default())
        });
        assert_eq!(how, Lookup::Miss);
        assert!(!d.is_valid());
        assert!(cache.is_empty());
        assert_eq!(cache.bytes(), 0);
    }

    #[test]
    fn bodies_sharing_a_fingerprint_keep_their_own_analyses() {
        let mut cache = AnalysisCache::default();
        let (a, b) = (card("a"), card("b"));
        assert_eq!(a.len(), b.len());
        // b sits first in a's bucket, as a body crafted to collide with a would.
        let key = fingerprint(&a);
        for body in [&b, &a] {
            cache
                .entries
                .get_or_insert_with(key, Vec::new)
                .unwrap()
                .push(Entry {
                    body: body.clone(),
                    analysis: analyze(body, &Limits::default()),
                    checks: PassedChecks::default(),
                    weight: weight(body),
                    used: 0,
                });
            cache.len += 1;
            cache.bytes += weight(body);
        }
        let req = Requirement::default();
        let obs = Observation::default();
        let fresh = |body: &[u8]| evaluate_with(body, &req, &obs, &Limits::default()).to_json();
        let (d, how) = cache.with(&a, &Limits::default(), |x| decide(x, &req, &obs));
        assert_eq!(how, Lookup::Hit);
        assert_eq!(d.to_json(), fresh(&a));
        assert_ne!(d.to_json(), fresh(&b));
        assert!(!same_bytes(&a, &b));
        assert!(same_bytes(&a, &a.clone()));
        assert!(!same_bytes(&a, &a[..a.len() - 1]));
        // Eviction empties buckets and keeps the accounting.
        while cache.evict_oldest() {}
        assert!(cache.is_empty() && cache.bytes() == 0 && cache.entries.is_empty());
    }

    #[test]
    fn a_hit_decides_every_requirement_as_a_fresh_evaluation() {
        let mut cache = AnalysisCache::default();
        let body = card("worker");
        let fresh = Observation::from_json(r#"{"lag_ms":"100"}"#).unwrap();
        let stale = Observation::from_json(r#"{"lag_ms":"40000"}"#).unwrap();
        let passing = Rc::new(
            Requirement::from_json(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#).unwrap(),
        );
        let failing = Rc::new(
            Requirement::from_json(r#"{"require":["task.cancel"],"max_stale":"10s"}"#).unwrap(),
        );
        let full = |r: &Requirement, o: &Observation| {
            evaluate_with(&body, r, o, &Limits::default()).to_json()
        };
        let mut hows = Vec::new();
        for r in [&passing, &failing, &passing, &failing] {
            for o in [&fresh, &stale, &fresh] {
                let (d, how) = cache.decide(&body, &Limits::default(), r, o);
                assert_eq!(d.to_json(), full(r, o));
                hows.push(how);
            }
        }
        assert_eq!(hows[0], Lookup::Miss);
        assert!(hows[1..].iter().all(|h| *h == Lookup::Hit));
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn the_last_entry_is_tried_first_and_only_by_its_bytes() {
        let mut cache = AnalysisCache::with_bounds(2, usize::MAX);
        let (a, b, c) = (card("a"), card("b"), card("c"));
        assert_eq!(a.len(), b.len());
        let req =
            Requirement::from_json(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#).unwrap();
        let obs = Observation::from_json(r#"{"lag_ms":"100"}"#).unwrap();
        let name = |body: &[u8], cache: &mut AnalysisCache| {
            let (d, how) = cache.with(body, &Limits::default(), |x| decide(x, &req, &obs));
            assert_eq!(
                d.to_json(),
                evaluate_with(body, &req, &obs, &Limits::default()).to_json()
            );
            how
        };
        let hows: Vec<Lookup> = [&a, &a, &b, &a, &b, &b, &c, &a, &b, &c]
            .iter()
            .map(|body| name(body, &mut cache))
            .collect();
        use Lookup::{Hit, Miss};
        // c evicts a (the least recently used), then a evicts b, b evicts c.
        assert_eq!(
            hows,
            [Miss, Hit, Miss, Hit, Hit, Hit, Miss, Miss, Miss, Miss]
        );
        assert_eq!(cache.last, Some(fingerprint(&c)));
        while cache.evict_oldest() {}
        // The last entry is gone: its fingerprint leads nowhere.
        assert_eq!(name(&c, &mut cache), Miss);
        assert_eq!(name(&c, &mut cache), Hit);
    }

    #[test]
    fn evictions_follow_a_plain_lru_over_long_runs() {
        let bodies: Vec<Vec<u8>> = (0..12).map(|i| card(&format!("n{i}"))).collect();
        for max in [1, 2, 5, 11] {
            let mut cache = AnalysisCache::with_bounds(max, usize::MAX);
            // The model: most recently used last.
            let mut model: Vec<usize> = Vec::new();
            let mut seed: u64 = 7;
            for step in 0..3000 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Skewed: low indexes come back often, so hits and misses both happen.
                let pick = ((seed >> 33) % 12) as usize;
                let pick = if step % 3 == 0 { pick } else { pick % 4 };
                let expected = if let Some(at) = model.iter().position(|&b| b == pick) {
                    model.remove(at);
                    Lookup::Hit
                } else {
                    if model.len() == max {
                        model.remove(0);
                    }
                    Lookup::Miss
                };
                model.push(pick);
                assert_eq!(lookup(&mut cache, &bodies[pick]), expected, "{max} {step}");
                assert_eq!(cache.len(), model.len());
                assert!(cache.uses.len() <= cache.uses_bound());
            }
            for (i, body) in bodies.iter().enumerate() {
                assert_eq!(cache.contains(body), model.contains(&i));
            }
        }
    }

    #[test]
    fn same_bytes_and_fingerprints_see_every_byte() {
        for len in [0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, 4096] {
            let a: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            assert!(same_bytes(&a, &a.clone()));
            for i in 0..len {
                let mut b = a.clone();
                b[i] ^= 0x80;
                assert!(!same_bytes(&a, &b), "{len} {i}");
                assert_ne!(fingerprint(&a), fingerprint(&b), "{len} {i}");
            }
            if len > 0 {
                assert!(!same_bytes(&a, &a[..len - 1]));
            }
            // The same change in two or four words of a 32-byte block (differences that
            // cancel if the words' differences were combined by XOR rather than OR).
            for i in (0..len.saturating_sub(8)).step_by(8) {
                let mut b = a.clone();
                b[i] ^= 1;
                b[i + 8] ^= 1;
                assert!(!same_bytes(&a, &b), "{len} {i}");
                if i + 24 < len {
                    b[i + 16] ^= 1;
                    b[i + 24] ^= 1;
                    assert!(!same_bytes(&a, &b), "{len} {i}");
                }
            }
        }
    }

    #[test]
    fn a_changed_body_never_reuses_an_old_analysis() {
        let mut cache = AnalysisCache::default();
        let req =
            Requirement::from_json(r#"{"require":["task.execute.v3"],"max_stale":"10s"}"#).unwrap();
        let obs = Observation::from_json(r#"{"lag_ms":"100"}"#).unwrap();
        let original = card("worker");
        let first = cache
            .with(&original, &Limits::default(), |a| decide(a, &req, &obs))
            .0;
        assert!(first.is_valid());
        // Every one-byte change, and a one-byte truncation or extension, is a new entry whose
        // decision is the one a fresh evaluation makes.
        let mut variants = Vec::new();
        for i in 0..original.len() {
            let mut v = original.clone();
            v[i] ^= 0x01;
            variants.push(v);
        }
        variants.push(original[..original.len() - 1].to_vec());
        let mut longer = original.clone();
        longer.push(b'x');
        variants.push(longer);
        for v in &variants {
            let mut cache = AnalysisCache::default();
            cache.with(&original, &Limits::default(), |_| ());
            let (d, how) = cache.with(v, &Limits::default(), |a| decide(a, &req, &obs));
            assert_eq!(how, Lookup::Miss, "{}", String::from_utf8_lossy(v));
            assert_eq!(
                d.to_json(),
                evaluate_with(v, &req, &obs, &Limits::default()).to_json()
            );
            assert_ne!(d.to_json(), first.to_json());
        }
        // The same bytes hit, and the per-request checks still run: a stale watermark now.
        let stale = Observation::from_json(r#"{"lag_ms":"40000"}"#).unwrap();
        let (d, how) = cache.with(&original, &Limits::default(), |a| decide(a, &req, &stale));
        assert_eq!(how, Lookup::Hit);
        assert_eq!(d.error_class().unwrap().as_str(), "stale_agent_card");
    }
}
