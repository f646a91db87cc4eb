//! Header maps as the filter sees them: one copy of a map read with one host call, the edits
//! a forwarded answer makes to its response headers (written back with one call), and the memo
//! of recent card requests' routes and requirements. Plain Rust, unit-tested natively; the host
//! calls stay in `filter`.

use std::borrow::Cow;
use std::rc::Rc;

use crate::Requirement;

use super::routes::RouteId;

/// The request headers a card request's requirement depends on besides its path (the caller's
/// tightening headers, see [`super::caller`]).
pub const CALLER_HEADERS: &[&str] = &[
    "cache-control",
    super::caller::REQUIRE_CAPABILITIES,
    super::caller::MIN_CARD_VERSION,
    super::caller::CARD_PIN,
];

/// How many distinct card requests [`RequestMemo`] remembers.
pub const REQUEST_MEMO_SIZE: usize = 8;

/// The largest path plus caller key [`RequestMemo`] keeps (bytes): the Wasm heap never shrinks,
/// so unusually long headers are not copied into it to be kept.
pub const REQUEST_MEMO_MAX_KEY: usize = 2048;

/// The route and effective requirement of recent card requests, by everything they are made
/// from under one configuration: the path (query removed) and the values of the caller's
/// headers. Callers repeat the same few requests, and matching the route, reading the caller's
/// headers and tightening the rule cost more than comparing them. Only requests that yielded a
/// requirement are kept (a refused header takes the long way, with its log and metric).
#[derive(Default)]
pub struct RequestMemo {
    entries: Vec<MemoEntry>,
    /// The slot the next new entry takes once the memo is full.
    next: usize,
}

/// One remembered card request.
pub struct MemoEntry {
    /// The path, query removed.
    pub path: String,
    /// [`HeaderSnapshot::caller_key`].
    pub caller: Vec<u8>,
    /// The route it matched.
    pub route_id: RouteId,
    /// The agent the route's pattern named, if any.
    pub rule_agent: Option<String>,
    /// The effective requirement.
    pub requirement: Rc<Requirement>,
}

impl RequestMemo {
    /// The entry for this path and [`HeaderSnapshot::caller_key`], if remembered.
    pub fn get(&self, path: &str, caller: &[u8]) -> Option<&MemoEntry> {
        self.entries
            .iter()
            .find(|e| e.caller == caller && e.path == path)
    }

    /// Remembers an entry, in place of the oldest once full.
    pub fn put(&mut self, entry: MemoEntry) {
        if entry.path.len().saturating_add(entry.caller.len()) > REQUEST_MEMO_MAX_KEY {
            return;
        }
        if self.entries.len() < REQUEST_MEMO_SIZE {
            self.entries.push(entry);
        } else if let Some(slot) = self.entries.get_mut(self.next) {
            *slot = entry;
        }
        self.next = (self.next + 1) % REQUEST_MEMO_SIZE;
    }
}

/// One copy of a header map. Every host call costs a crossing of the VM boundary (a value read
/// also a call back into the VM to allocate it), so each map is read once, with one call, and
/// everything the filter needs from it comes from this copy.
#[derive(Default)]
pub struct HeaderSnapshot(pub Vec<(String, Vec<u8>)>);

impl HeaderSnapshot {
    /// Every value of a header (names compared case-insensitively).
    pub fn values(&self, name: &str) -> Vec<Vec<u8>> {
        self.0
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The first value of a header, as bytes (see [`HeaderSnapshot::first_text`]).
    pub fn first(&self, name: &str) -> Option<&[u8]> {
        self.0
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
    }

    /// The first value of a header, as text: what the host's single-value read answers
    /// (Envoy's `get_header_map_value` returns the first of several).
    pub fn first_text(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
    }

    /// The caller's headers ([`CALLER_HEADERS`]) in map order, each as its index in that list,
    /// its length and its bytes: equal keys mean equal values for every one of those names.
    pub fn caller_key(&self) -> Vec<u8> {
        let mut key = Vec::with_capacity(64);
        for (k, v) in &self.0 {
            if let Some(i) = CALLER_HEADERS
                .iter()
                .position(|name| k.eq_ignore_ascii_case(name))
            {
                key.push(u8::try_from(i).unwrap_or(u8::MAX));
                key.extend_from_slice(&u32::try_from(v.len()).unwrap_or(u32::MAX).to_le_bytes());
                key.extend_from_slice(v);
            }
        }
        key
    }

    /// Removes from this copy every header whose lowercase name `remove` selects; returns
    /// the names removed, once each.
    pub fn take_where(&mut self, remove: impl Fn(&str) -> bool) -> Vec<String> {
        let mut removed: Vec<String> = Vec::new();
        self.0.retain(|(k, _)| {
            // Envoy's names are lowercase already: copy one only when it is not.
            let lower = if k.bytes().any(|b| b.is_ascii_uppercase()) {
                Cow::Owned(k.to_ascii_lowercase())
            } else {
                Cow::Borrowed(k.as_str())
            };
            if !remove(&lower) {
                return true;
            }
            if !removed.iter().any(|r| *r == lower) {
                removed.push(lower.into_owned());
            }
            false
        });
        removed
    }
}

/// One edit of the response header map, as the host's single-header calls apply it (Envoy's
/// `replace` removes every entry of the name and appends one, `add` appends).
pub enum HeaderEdit<'a> {
    /// Envoy's `replace`: every entry of the name removed, one appended.
    Set(&'a str, &'a [u8]),
    /// Every entry of the name removed.
    Remove(&'a str),
    /// One entry appended.
    Add(&'a str, &'a [u8]),
}

/// The response headers after `edits`, applied in order to the upstream's copy: the map the
/// same edits made one host call each would leave (same entries, same order).
pub fn edited_headers<'a>(
    upstream: &'a HeaderSnapshot,
    edits: &[HeaderEdit<'a>],
) -> Vec<(&'a str, &'a [u8])> {
    let mut map: Vec<(&str, &[u8])> = upstream
        .0
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_slice()))
        .collect();
    for edit in edits {
        match *edit {
            HeaderEdit::Set(name, value) => {
                map.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
                map.push((name, value));
            }
            HeaderEdit::Remove(name) => map.retain(|(k, _)| !k.eq_ignore_ascii_case(name)),
            HeaderEdit::Add(name, value) => map.push((name, value)),
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::{
        edited_headers, HeaderEdit, HeaderSnapshot, MemoEntry, RequestMemo, REQUEST_MEMO_MAX_KEY,
        REQUEST_MEMO_SIZE,
    };
    use crate::envoy::routes::RouteId;
    use crate::Requirement;
    use std::rc::Rc;

    #[test]
    fn caller_keys_differ_when_any_caller_header_differs() {
        let base = snapshot(&[
            (":path", "/agents/a/card"),
            ("a2a-min-card-version", "7"),
            ("cache-control", "max-stale=10"),
        ]);
        let same = snapshot(&[
            (":path", "/other"),
            ("user-agent", "x"),
            ("A2A-Min-Card-Version", "7"),
            ("cache-control", "max-stale=10"),
        ]);
        assert_eq!(base.caller_key(), same.caller_key());
        for other in [
            snapshot(&[("a2a-min-card-version", "7")]),
            snapshot(&[
                ("a2a-min-card-version", "7"),
                ("cache-control", "max-stale=10"),
                ("a2a-card-pin", ""),
            ]),
            snapshot(&[
                ("a2a-min-card-version", "7"),
                ("cache-control", "max-stale=1"),
            ]),
            snapshot(&[
                ("a2a-min-card-version", "7c"),
                ("ache-control", "max-stale=10"),
            ]),
        ] {
            assert_ne!(base.caller_key(), other.caller_key());
        }
    }

    #[test]
    fn the_memo_keeps_the_most_recent_requests() {
        let mut memo = RequestMemo::default();
        let entry = |i: usize| MemoEntry {
            path: format!("/agents/{i}/card"),
            caller: vec![1, 2],
            route_id: RouteId::Listed(i),
            rule_agent: None,
            requirement: Rc::new(Requirement::default()),
        };
        for i in 0..REQUEST_MEMO_SIZE + 2 {
            memo.put(entry(i));
        }
        assert!(memo.get("/agents/0/card", &[1, 2]).is_none());
        assert!(memo.get("/agents/1/card", &[1, 2]).is_none());
        for i in 2..REQUEST_MEMO_SIZE + 2 {
            let hit = memo.get(&format!("/agents/{i}/card"), &[1, 2]);
            assert_eq!(hit.map(|e| e.route_id), Some(RouteId::Listed(i)));
        }
        assert!(memo.get("/agents/3/card", &[1]).is_none());
        assert_eq!(memo.entries.len(), REQUEST_MEMO_SIZE);
        let long = MemoEntry {
            caller: vec![7; REQUEST_MEMO_MAX_KEY],
            ..entry(99)
        };
        memo.put(long);
        assert!(memo
            .get("/agents/99/card", &[7; REQUEST_MEMO_MAX_KEY])
            .is_none());
        assert!(memo.get("/agents/2/card", &[1, 2]).is_some());
    }

    fn snapshot(pairs: &[(&str, &str)]) -> HeaderSnapshot {
        HeaderSnapshot(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.as_bytes().to_vec()))
                .collect(),
        )
    }

    #[test]
    fn edits_apply_as_the_single_header_calls_would() {
        let upstream = snapshot(&[
            (":status", "200"),
            ("cache-control", "max-age=600"),
            ("expires", "x"),
            ("vary", "accept"),
            ("Cache-Control", "public"),
            ("content-length", "5"),
        ]);
        let edits = [
            HeaderEdit::Set("a2a-card-verdict", b"valid"),
            HeaderEdit::Set("cache-control", b"max-age=9"),
            HeaderEdit::Remove("expires"),
            HeaderEdit::Remove("surrogate-control"),
            HeaderEdit::Add("vary", b"a2a-min-card-version"),
        ];
        let got: Vec<(&str, &str)> = edited_headers(&upstream, &edits)
            .into_iter()
            .map(|(k, v)| (k, std::str::from_utf8(v).unwrap_or("?")))
            .collect();
        assert_eq!(
            got,
            [
                (":status", "200"),
                ("vary", "accept"),
                ("content-length", "5"),
                ("a2a-card-verdict", "valid"),
                ("cache-control", "max-age=9"),
                ("vary", "a2a-min-card-version"),
            ]
        );
    }
}
