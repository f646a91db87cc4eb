//! The per-VM analysis cache: each distinct card body is parsed, hashed and read once
//! ([`crate::gate::analyze`]); a repeated body reuses that analysis, and only the per-request
//! checks ([`crate::gate::decide`]: freshness against this answer's watermark, the caller's and
//! the route's requirement) run again.
//!
//! The key is the exact body bytes themselves, not a digest: a lookup compares whole bodies, so
//! a body that differs in one byte (or in length) is a different entry by construction, with no
//! collision argument to make, and no SHA-256 pass over every body just to find its entry. The
//! map is ordered (`BTreeMap`): no hasher seed to draw from the host, and bodies chosen by an
//! upstream cannot flood a hash table.
//!
//! Bounded: at most [`MAX_ENTRIES`] entries and [`MAX_BYTES`] accounted bytes, least recently
//! used evicted first. An entry is accounted as [`BODY_FACTOR`] times its body length (the key
//! itself, and an estimate of the parsed document and card view: their text comes from the body,
//! plus a node and a `String` header per value) plus [`ENTRY_OVERHEAD`]; a body whose entry alone
//! would exceed [`MAX_ENTRY_BYTES`] is evaluated without being kept. Only routes that read the
//! card as the whole body use the cache (envelope routes, `card_pointer`/`watermark_pointer`,
//! read their watermark from the body, so they evaluate every answer in full).

use std::collections::BTreeMap;

use crate::gate::{analyze, Analysis};
use crate::Limits;

/// Most entries kept per VM.
pub const MAX_ENTRIES: usize = 128;
/// Most accounted bytes kept per VM (see [`AnalysisCache::weight`]).
pub const MAX_BYTES: usize = 4 * 1024 * 1024;
/// Largest accounted size of one entry: bigger bodies are never kept (with the default
/// `max_card_bytes`, 64 KiB, every card fits).
pub const MAX_ENTRY_BYTES: usize = MAX_BYTES / 8;
/// Bytes accounted per body byte.
pub const BODY_FACTOR: usize = 6;
/// Fixed bytes accounted per entry, on top of the body's share.
pub const ENTRY_OVERHEAD: usize = 1024;

struct Entry {
    analysis: Analysis,
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
    entries: BTreeMap<Vec<u8>, Entry>,
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
            entries: BTreeMap::new(),
            bytes: 0,
            clock: 0,
            max_entries,
            max_bytes,
        }
    }

    /// The bytes accounted for a body's entry.
    pub fn weight(body: &[u8]) -> usize {
        body.len()
            .saturating_mul(BODY_FACTOR)
            .saturating_add(ENTRY_OVERHEAD)
    }

    /// Runs `f` on the analysis of `body`: the kept one, or a new one (kept when it fits).
    pub fn with<R>(
        &mut self,
        body: &[u8],
        limits: &Limits,
        f: impl FnOnce(&Analysis) -> R,
    ) -> (R, Lookup) {
        self.clock += 1;
        if let Some(entry) = self.entries.get_mut(body) {
            entry.used = self.clock;
            return (f(&entry.analysis), Lookup::Hit);
        }
        let analysis = analyze(body, limits);
        let out = f(&analysis);
        let weight = AnalysisCache::weight(body);
        if weight <= MAX_ENTRY_BYTES.min(self.max_bytes) && self.max_entries > 0 {
            while self.entries.len() >= self.max_entries
                || self.bytes.saturating_add(weight) > self.max_bytes
            {
                if !self.evict_oldest() {
                    break;
                }
            }
            self.bytes += weight;
            self.entries.insert(
                body.to_vec(),
                Entry {
                    analysis,
                    weight,
                    used: self.clock,
                },
            );
        }
        (out, Lookup::Miss)
    }

    fn evict_oldest(&mut self) -> bool {
        let oldest = self
            .entries
            .iter()
            .min_by_key(|(_, e)| e.used)
            .map(|(k, _)| k.clone());
        match oldest.and_then(|k| self.entries.remove(&k)) {
            Some(entry) => {
                self.bytes -= entry.weight;
                true
            }
            None => false,
        }
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No entry kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Accounted bytes kept (never more than the bound).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether `body` has an entry (does not count as a use).
    pub fn contains(&self, body: &[u8]) -> bool {
        self.entries.contains_key(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::decide;
    use crate::{evaluate_with, Observation, Requirement};

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

    #[test]
    fn never_exceeds_its_memory_bound() {
        let bound = 4 * AnalysisCache::weight(&card("n00"));
        let mut cache = AnalysisCache::with_bounds(1000, bound);
        for i in 0..200 {
            // Bodies of varying length, some repeated.
            let body = card(&format!("n{:0width$}", i % 37, width = 2 + i % 5));
            cache.with(&body, &Limits::default(), |_| ());
            assert!(cache.bytes() <= bound, "{} > {bound}", cache.bytes());
            let sum: usize = cache.entries.values().map(|e| e.weight).sum();
            assert_eq!(sum, cache.bytes(), "accounting matches the entries");
        }
        assert!(cache.len() <= 4);
        // Every card within the default limit fits; a larger entry is evaluated but not kept.
        assert!(
            AnalysisCache::weight(&vec![b' '; Limits::default().max_card_bytes]) <= MAX_ENTRY_BYTES
        );
        let huge = vec![b' '; MAX_ENTRY_BYTES / BODY_FACTOR];
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
