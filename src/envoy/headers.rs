//! Header maps as the filter sees them: one copy of a map read with one host call, the edits
//! a forwarded answer makes to its response headers (written back with one single-header call
//! per header written), and the memo of recent card requests' routes and requirements. Plain Rust, unit-tested natively; the host
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
    super::caller::CARD_NAME,
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
///
/// The copy is the host's buffer itself, in the proxy-wasm pairs format (a little-endian `u32`
/// count, then each entry's name and value lengths as `u32`s, then each name and value followed
/// by a NUL), with the entries' places in it: one allocation for the bytes and one for the index,
/// where a `String` and a `Vec` per header would be two per entry (and as many frees).
///
/// A copy is *whole* when the host answered and every entry it announced was read; the default
/// (no map read) is not.
#[derive(Default)]
pub struct HeaderSnapshot {
    bytes: Vec<u8>,
    entries: Vec<Entry>,
    whole: bool,
}

/// Where one header's name and value are in [`HeaderSnapshot::bytes`].
#[derive(Clone, Copy)]
struct Entry {
    name: (usize, usize),
    value: (usize, usize),
}

/// A little-endian `u32` at `at`, as a length.
fn length_at(bytes: &[u8], at: usize) -> Option<usize> {
    let word: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    usize::try_from(u32::from_le_bytes(word)).ok()
}

impl HeaderSnapshot {
    /// The copy of a map the host returned in the proxy-wasm pairs format (an empty buffer is an
    /// empty map). A malformed buffer (never seen from a host) keeps the entries before the
    /// fault and is not [whole](HeaderSnapshot::is_whole); entries whose name is not UTF-8 are
    /// kept (and written back as they are) but match no name.
    pub fn from_pairs_bytes(bytes: Vec<u8>) -> HeaderSnapshot {
        if bytes.is_empty() {
            return HeaderSnapshot {
                whole: true,
                ..HeaderSnapshot::default()
            };
        }
        let count = length_at(&bytes, 0).unwrap_or(0);
        let mut entries = Vec::with_capacity(count.min(bytes.len() / 10));
        let mut at = count
            .checked_mul(8)
            .and_then(|n| n.checked_add(4))
            .unwrap_or(usize::MAX);
        for i in 0..count {
            let (Some(name_len), Some(value_len)) =
                (length_at(&bytes, 4 + i * 8), length_at(&bytes, 8 + i * 8))
            else {
                break;
            };
            // name NUL value NUL
            let name = (at, name_len);
            let Some(value_at) = at.checked_add(name_len).and_then(|n| n.checked_add(1)) else {
                break;
            };
            let Some(end) = value_at
                .checked_add(value_len)
                .and_then(|n| n.checked_add(1))
            else {
                break;
            };
            if end > bytes.len() {
                break;
            }
            entries.push(Entry {
                name,
                value: (value_at, value_len),
            });
            at = end;
        }
        let whole = length_at(&bytes, 0).is_some() && entries.len() == count;
        HeaderSnapshot {
            bytes,
            entries,
            whole,
        }
    }

    /// Whether this is the host's whole map: the host answered, and every entry it announced was
    /// read. The filter fails closed on a map that is not (it could not tell a card route, or
    /// strip an upstream's verdict headers).
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// A copy made from pairs.
    #[cfg(test)]
    pub fn from_pairs(pairs: &[(&str, &[u8])]) -> HeaderSnapshot {
        let pairs: Vec<(&[u8], &[u8])> = pairs.iter().map(|(k, v)| (k.as_bytes(), *v)).collect();
        HeaderSnapshot::from_pairs_bytes(serialize_pairs(&pairs))
    }

    fn slice(&self, (at, len): (usize, usize)) -> &[u8] {
        self.bytes
            .get(at..at.saturating_add(len))
            .unwrap_or_default()
    }

    /// Every entry, in map order: name and value as bytes.
    pub fn pairs(&self) -> impl Iterator<Item = (&[u8], &[u8])> + '_ {
        self.entries
            .iter()
            .map(|e| (self.slice(e.name), self.slice(e.value)))
    }

    /// Every value of a header, borrowed (names compared case-insensitively).
    pub fn values_of<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.pairs()
            .filter(move |(k, _)| k.eq_ignore_ascii_case(name.as_bytes()))
            .map(|(_, v)| v)
    }

    /// Every value of a header (names compared case-insensitively).
    pub fn values(&self, name: &str) -> Vec<Vec<u8>> {
        self.values_of(name).map(<[u8]>::to_vec).collect()
    }

    /// The first value of a header, as bytes (see [`HeaderSnapshot::first_text`]).
    pub fn first(&self, name: &str) -> Option<&[u8]> {
        self.pairs()
            .find(|(k, _)| k.eq_ignore_ascii_case(name.as_bytes()))
            .map(|(_, v)| v)
    }

    /// The first value of a header, as text: what the host's single-value read answers
    /// (Envoy's `get_header_map_value` returns the first of several).
    pub fn first_text(&self, name: &str) -> Option<String> {
        self.first(name)
            .map(|v| String::from_utf8_lossy(v).into_owned())
    }

    /// `:status` as a number, when it reads as one (a response map).
    pub fn status(&self) -> Option<u16> {
        self.first(":status")
            .and_then(|s| std::str::from_utf8(s).ok())
            .and_then(|s| s.parse().ok())
    }

    /// The caller's headers ([`CALLER_HEADERS`]) in map order, each as its index in that list,
    /// its length and its bytes: equal keys mean equal values for every one of those names.
    pub fn caller_key(&self) -> Vec<u8> {
        let mut key = Vec::with_capacity(64);
        for (k, v) in self.pairs() {
            if let Some(i) = CALLER_HEADERS
                .iter()
                .position(|name| k.eq_ignore_ascii_case(name.as_bytes()))
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
        let bytes = &self.bytes;
        self.entries.retain(|e| {
            let name = bytes
                .get(e.name.0..e.name.0.saturating_add(e.name.1))
                .unwrap_or_default();
            let Ok(name) = std::str::from_utf8(name) else {
                return true;
            };
            // Envoy's names are lowercase already: copy one only when it is not.
            let lower = if name.bytes().any(|b| b.is_ascii_uppercase()) {
                Cow::Owned(name.to_ascii_lowercase())
            } else {
                Cow::Borrowed(name)
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

/// A map in the proxy-wasm pairs format (what the host's whole-map calls read and write).
#[cfg(test)]
pub fn serialize_pairs(pairs: &[(&[u8], &[u8])]) -> Vec<u8> {
    let size = pairs
        .iter()
        .fold(4usize, |n, (k, v)| n.saturating_add(k.len() + v.len() + 10));
    let mut bytes = Vec::with_capacity(size);
    let len32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
    bytes.extend_from_slice(&len32(pairs.len()));
    for (k, v) in pairs {
        bytes.extend_from_slice(&len32(k.len()));
        bytes.extend_from_slice(&len32(v.len()));
    }
    for (k, v) in pairs {
        bytes.extend_from_slice(k);
        bytes.push(0);
        bytes.extend_from_slice(v);
        bytes.push(0);
    }
    bytes
}

/// One edit of the response header map, as the host's single-header calls apply it (Envoy's
/// `replace` removes every entry of the name and appends one, `add` appends).
#[derive(Clone, Copy)]
pub enum HeaderEdit<'a> {
    /// Envoy's `replace`: every entry of the name removed, one appended.
    Set(&'a str, &'a [u8]),
    /// Every entry of the name removed.
    Remove(&'a str),
    /// One entry appended.
    Add(&'a str, &'a [u8]),
}

/// One single-header host call on a header map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderCall<'a> {
    /// `proxy_add_header_map_value`: one entry appended.
    Add(&'a str, &'a [u8]),
    /// `proxy_replace_header_map_value`, made only where the name has exactly one entry (so
    /// that every host's `replace` leaves the same map).
    Replace(&'a str, &'a [u8]),
    /// `proxy_remove_header_map_value`: every entry of the name removed.
    Remove(&'a str),
}

/// The single-header calls that make `edits` to the map `upstream` holds, as few as the copy
/// allows: a `Set` of a name the map lacks is an add, of a name it has once a replace, of a
/// name it has several times a remove and an add; a `Remove` of a name it lacks is no call.
/// The map they leave is the one the edits made one at a time leave (Envoy's `replace` removes
/// every entry of the name and appends one), but for where a replaced entry sits among entries of
/// other names (which HTTP leaves without meaning).
pub fn header_calls<'a>(
    upstream: &HeaderSnapshot,
    edits: &[HeaderEdit<'a>],
) -> Vec<HeaderCall<'a>> {
    let mut calls = Vec::with_capacity(edits.len());
    for (i, edit) in edits.iter().enumerate() {
        let name = match *edit {
            HeaderEdit::Set(name, _) | HeaderEdit::Remove(name) | HeaderEdit::Add(name, _) => name,
        };
        // How many entries of the name the map holds now: the upstream's, then the edits before.
        let mut count = upstream.values_of(name).count();
        for before in edits.get(..i).unwrap_or_default() {
            match *before {
                HeaderEdit::Set(n, _) if n.eq_ignore_ascii_case(name) => count = 1,
                HeaderEdit::Remove(n) if n.eq_ignore_ascii_case(name) => count = 0,
                HeaderEdit::Add(n, _) if n.eq_ignore_ascii_case(name) => count += 1,
                _ => {}
            }
        }
        match (*edit, count) {
            (HeaderEdit::Set(name, value), 0) | (HeaderEdit::Add(name, value), _) => {
                calls.push(HeaderCall::Add(name, value))
            }
            (HeaderEdit::Set(name, value), 1) => calls.push(HeaderCall::Replace(name, value)),
            (HeaderEdit::Set(name, value), _) => {
                calls.push(HeaderCall::Remove(name));
                calls.push(HeaderCall::Add(name, value));
            }
            (HeaderEdit::Remove(_), 0) => {}
            (HeaderEdit::Remove(name), _) => calls.push(HeaderCall::Remove(name)),
        }
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::{
        header_calls, serialize_pairs, HeaderCall, HeaderEdit, HeaderSnapshot, MemoEntry,
        RequestMemo, REQUEST_MEMO_MAX_KEY, REQUEST_MEMO_SIZE,
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

    /// The pairs format as the proxy-wasm ABI lays it out, written by hand here (not by
    /// `serialize_pairs`): count, lengths, then each name and value with a NUL after it.
    fn host_buffer(pairs: &[(&[u8], &[u8])]) -> Vec<u8> {
        let mut head = (pairs.len() as u32).to_le_bytes().to_vec();
        let mut data: Vec<u8> = Vec::new();
        for (k, v) in pairs {
            head.extend((k.len() as u32).to_le_bytes());
            head.extend((v.len() as u32).to_le_bytes());
            data.extend(k.iter().chain(b"\0").chain(v.iter()).chain(b"\0"));
        }
        head.extend(data);
        head
    }

    #[test]
    fn a_host_map_reads_back_entry_for_entry() {
        let pairs: [(&[u8], &[u8]); 6] = [
            (b":status", b"200"),
            (b"Cache-Control", b"max-age=60"),
            (b"x-empty", b""),
            (b"x-bytes", b"\xff\x00\xfe"),
            (b"\xc3(", b"not a UTF-8 name"),
            (b"cache-control", b"public"),
        ];
        let buffer = host_buffer(&pairs);
        assert_eq!(serialize_pairs(&pairs), buffer, "the same layout");
        let snapshot = HeaderSnapshot::from_pairs_bytes(buffer.clone());
        assert_eq!(snapshot.pairs().collect::<Vec<_>>(), pairs);
        assert_eq!(
            snapshot.values("cache-control"),
            [b"max-age=60".to_vec(), b"public".to_vec()]
        );
        assert_eq!(snapshot.first("X-BYTES"), Some(&b"\xff\x00\xfe"[..]));
        assert_eq!(snapshot.first("x-empty"), Some(&b""[..]));
        assert_eq!(snapshot.first_text(":status").as_deref(), Some("200"));
        assert_eq!(snapshot.status(), Some(200));
        // A status that is not a number (or not one of 16 bits) is none.
        for junk in [&b"2OO"[..], b"", b"200 OK", b"70000", b"\xff"] {
            let map = HeaderSnapshot::from_pairs(&[(":status", junk)]);
            assert_eq!(map.status(), None, "{junk:?}");
        }
        assert_eq!(
            HeaderSnapshot::from_pairs(&[(":status", b"503")]).status(),
            Some(503)
        );
        assert_eq!(snapshot.first("x-missing"), None);
        // Cut anywhere, or with a count larger than the entries: never a panic, and only whole
        // entries before the cut.
        // A cut copy is never whole (the filter fails closed on it).
        assert!(snapshot.is_whole());
        for cut in 1..buffer.len() {
            let partial = HeaderSnapshot::from_pairs_bytes(buffer[..cut].to_vec());
            let got: Vec<_> = partial.pairs().collect();
            assert!(
                got.len() < pairs.len() && got[..] == pairs[..got.len()],
                "{cut}"
            );
            assert!(!partial.is_whole(), "{cut}");
        }
        let mut lying = buffer.clone();
        lying[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let lying = HeaderSnapshot::from_pairs_bytes(lying);
        assert_eq!(lying.pairs().count(), 0);
        assert!(!lying.is_whole());
        // An empty buffer is the host's empty map; no map read at all is not whole.
        let empty = HeaderSnapshot::from_pairs_bytes(Vec::new());
        assert_eq!(empty.pairs().count(), 0);
        assert!(empty.is_whole());
        assert!(HeaderSnapshot::from_pairs_bytes(0u32.to_le_bytes().to_vec()).is_whole());
        assert!(!HeaderSnapshot::default().is_whole());
        // Removal: by lowercase name; a name that is not UTF-8 is never selected.
        let mut snapshot = snapshot;
        let removed = snapshot.take_where(|k| k == "cache-control" || !k.is_ascii());
        assert_eq!(removed, ["cache-control"]);
        let left: Vec<_> = snapshot.pairs().map(|(k, _)| k).collect();
        assert_eq!(left, [&b":status"[..], b"x-empty", b"x-bytes", b"\xc3("]);
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
        let pairs: Vec<(&str, &[u8])> = pairs.iter().map(|(k, v)| (*k, v.as_bytes())).collect();
        HeaderSnapshot::from_pairs(&pairs)
    }

    /// The edits applied one at a time, each as Envoy applies it (`replace`: every entry of
    /// the name removed, one appended).
    fn edited_headers<'a>(
        upstream: &'a HeaderSnapshot,
        edits: &[HeaderEdit<'a>],
    ) -> Vec<(&'a [u8], &'a [u8])> {
        let mut map: Vec<(&[u8], &[u8])> = upstream.pairs().collect();
        for edit in edits {
            match *edit {
                HeaderEdit::Set(name, value) => {
                    map.retain(|(k, _)| !k.eq_ignore_ascii_case(name.as_bytes()));
                    map.push((name.as_bytes(), value));
                }
                HeaderEdit::Remove(name) => {
                    map.retain(|(k, _)| !k.eq_ignore_ascii_case(name.as_bytes()))
                }
                HeaderEdit::Add(name, value) => map.push((name.as_bytes(), value)),
            }
        }
        map
    }

    /// The map `calls` leave, made one at a time on the upstream's copy (a replace modelled as
    /// Envoy's `setCopy`: every entry removed, one appended).
    fn after_calls<'a>(
        upstream: &'a HeaderSnapshot,
        calls: &[HeaderCall<'a>],
    ) -> Vec<(&'a [u8], &'a [u8])> {
        let mut map: Vec<(&[u8], &[u8])> = upstream.pairs().collect();
        for call in calls {
            match *call {
                HeaderCall::Add(name, value) => map.push((name.as_bytes(), value)),
                HeaderCall::Replace(name, value) => {
                    assert_eq!(
                        map.iter()
                            .filter(|(k, _)| k.eq_ignore_ascii_case(name.as_bytes()))
                            .count(),
                        1,
                        "a replace only where the name has one entry"
                    );
                    map.retain(|(k, _)| !k.eq_ignore_ascii_case(name.as_bytes()));
                    map.push((name.as_bytes(), value));
                }
                HeaderCall::Remove(name) => {
                    map.retain(|(k, _)| !k.eq_ignore_ascii_case(name.as_bytes()))
                }
            }
        }
        map
    }

    #[test]
    fn single_header_calls_leave_the_edited_map() {
        let upstream = snapshot(&[
            (":status", "200"),
            ("Vary", "accept"),
            ("x-a", "1"),
            ("x-b", "2"),
            ("x-a", "3"),
        ]);
        let names = ["x-a", "X-B", "vary", "x-c"];
        let values: [&[u8]; 2] = [b"p", b""];
        let mut all: Vec<HeaderEdit> = Vec::new();
        for n in names {
            all.push(HeaderEdit::Remove(n));
            for v in values {
                all.push(HeaderEdit::Set(n, v));
                all.push(HeaderEdit::Add(n, v));
            }
        }
        let mut most = 0;
        for a in &all {
            for b in &all {
                for c in &all {
                    let edits = [*a, *b, *c];
                    let calls = header_calls(&upstream, &edits);
                    assert_eq!(
                        after_calls(&upstream, &calls),
                        edited_headers(&upstream, &edits)
                    );
                    most = most.max(calls.len());
                }
            }
        }
        // Set x-a (held twice: remove, add), Add x-a, Set x-a (held twice again).
        assert_eq!(most, 5);
        // What a valid answer writes, on an upstream with one Cache-Control and no Expires:
        // one call per header written.
        let upstream = snapshot(&[(":status", "200"), ("cache-control", "max-age=60")]);
        let edits = [
            HeaderEdit::Set("a2a-card-verdict", b"valid"),
            HeaderEdit::Set("cache-control", b"max-age=9"),
            HeaderEdit::Remove("expires"),
            HeaderEdit::Add("vary", b"a2a-min-card-version"),
        ];
        assert_eq!(
            header_calls(&upstream, &edits),
            [
                HeaderCall::Add("a2a-card-verdict", b"valid"),
                HeaderCall::Replace("cache-control", b"max-age=9"),
                HeaderCall::Add("vary", b"a2a-min-card-version"),
            ]
        );
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
        let calls = header_calls(&upstream, &edits);
        // Cache-Control held twice: removed, then added; Expires held: removed;
        // Surrogate-Control absent: no call.
        assert_eq!(
            calls,
            [
                HeaderCall::Add("a2a-card-verdict", b"valid"),
                HeaderCall::Remove("cache-control"),
                HeaderCall::Add("cache-control", b"max-age=9"),
                HeaderCall::Remove("expires"),
                HeaderCall::Add("vary", b"a2a-min-card-version"),
            ]
        );
        let got: Vec<(&str, &str)> = after_calls(&upstream, &calls)
            .into_iter()
            .map(|(k, v)| {
                (
                    std::str::from_utf8(k).unwrap_or("?"),
                    std::str::from_utf8(v).unwrap_or("?"),
                )
            })
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
