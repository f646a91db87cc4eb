//! Whether an interface's `url` is one the caller's client can send to, and to the same place
//! whatever SDK the caller runs (condition (c), [`crate::interface_choice`]).
//!
//! The A2A clients take an interface's `url` as they find it. @a2a-js/sdk hands it to `fetch`,
//! which reads it by the WHATWG URL Standard; a2a-sdk hands it to httpx, which reads it by
//! RFC 3986. The two part ways on text a registry can serve: `" https://a.example/a2a"` is an
//! absolute URL to `fetch` (it trims spaces) and a relative one to httpx (which then sends
//! nowhere); `"https://a.example/a2a "` is `/a2a` to one and `/a2a%20` to the other;
//! `"http:a.example"`, `"https://a.example/%2e%2e/x"`, `"https://127.1/"`, a `\` or an empty
//! query differ the same way; a relative url sends nowhere under Node.js and to the page's own
//! origin in a browser. For the REST binding both SDKs append a path such as `/message:send`,
//! after dropping one trailing `/` (a2a-sdk) or every one (@a2a-js/sdk), so a query, a fragment
//! or a doubled trailing `/` moves the request.
//!
//! So for the two HTTP bindings (`JSONRPC`, `HTTP+JSON`) the gate accepts only the plain absolute
//! form that both read alike ([`Url::of`]) and refuses what lies outside it (fail closed), even
//! where one of the two would have coped. `tests/sdk_parity/url_differential.py` checks over
//! random urls that every one accepted here gives the same scheme, host, port and request target
//! under Node's `URL` and `Request` and under httpx. The form allows the schemes `http`, `https`,
//! `ws` and `wss` (the WHATWG "special" ones with a network host, whose hosts both read alike):
//! which scheme a transport speaks is the caller's business (the seed's planner reached
//! `wss://worker-7.internal/a2a`), where the url leads is the gate's. For any other binding
//! (`GRPC`, a custom URI) the gate does not know the transport's rules: any url with something
//! besides whitespace is taken as given.
//!
//! No library does this: a URL parser gives one reading, and what matters here is where two
//! readings agree.

use crate::document::Node;
use crate::interface_choice::{upper_case, upper_cases_to_ascii};
use std::net::{Ipv4Addr, Ipv6Addr};

/// What an interface's `url` is to the clients that would send to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Url {
    /// Absent, not a string, empty or only whitespace: no client can send to it.
    #[default]
    Missing,
    /// Text outside the plain absolute form: possibly fine for a `GRPC` or custom transport,
    /// not for an HTTP one.
    Other,
    /// A plain absolute URL that `fetch` and httpx read alike: a JSON-RPC endpoint, not a REST
    /// base (it has a query or fragment, or ends in `//`, or the interface's tenant is not plain:
    /// [`Url::with_tenant`]).
    Plain,
    /// A plain absolute URL that is also a REST base both SDKs extend alike.
    PlainBase,
}

impl Url {
    /// The `url` member as it is, for any binding.
    pub fn of(v: Option<Node<'_>>) -> Url {
        v.and_then(Node::as_str).map_or(Url::Missing, Url::of_str)
    }

    /// A `url` member's text, for any binding.
    pub fn of_str(s: &str) -> Url {
        // Most urls start with a letter: no need to trim (Unicode white space) to know.
        if s.as_bytes().first().is_some_and(u8::is_ascii_graphic) || !s.trim().is_empty() {
            Url::of_text(s)
        } else {
            Url::Missing
        }
    }

    /// This url with the interface's `tenant` member: both SDKs' REST clients put a tenant in
    /// the path (`/{tenant}/message:send`), a2a-sdk as it is and @a2a-js/sdk through
    /// `encodeURIComponent`, so a REST base keeps only a tenant that both write alike: absent,
    /// `null`, `""`, or ASCII letters, digits and `-._~!*()` (what `encodeURIComponent` leaves,
    /// but `'`), and not `.` or `..`. JSON-RPC carries the tenant in its body.
    pub fn with_tenant(self, tenant: Option<Node<'_>>) -> Url {
        let plain = match tenant {
            None => true,
            Some(t) if t.is_null() => true,
            Some(t) => t.as_str().is_some_and(|t| {
                t != "."
                    && t != ".."
                    && t.bytes().all(|c| {
                        c.is_ascii_alphanumeric()
                            || matches!(c, b'-' | b'.' | b'_' | b'~' | b'!' | b'*' | b'(' | b')')
                    })
            }),
        };
        match self {
            Url::PlainBase if !plain => Url::Plain,
            url => url,
        }
    }

    /// [`Url::of`] for text with something besides whitespace (public for the `url_form` fuzz
    /// target, which checks it against a plain restatement of the form).
    pub fn of_text(s: &str) -> Url {
        match plain(s) {
            None => Url::Other,
            Some(Tail::Base) if !s.ends_with("//") => Url::PlainBase,
            Some(_) => Url::Plain,
        }
    }

    /// Whether a client for `binding` (as the caller requires it) can send to this url.
    pub fn serves(self, binding: &str) -> bool {
        match http_binding(binding) {
            Some(Rest::No) => matches!(self, Url::Plain | Url::PlainBase),
            Some(Rest::Yes) => self == Url::PlainBase,
            None => self != Url::Missing,
        }
    }

    /// Why a client for `binding` cannot send to this url, for the decision's message (`None`
    /// when it can).
    pub fn unusable_because(self, binding: &str) -> Option<&'static str> {
        if self.serves(binding) {
            return None;
        }
        Some(match self {
            Url::Missing => "which has no url",
            Url::Other => {
                "whose url is not a plain absolute URL (which both SDKs would send to alike)"
            }
            Url::Plain | Url::PlainBase => {
                "whose url or tenant the SDKs' REST clients would join to their paths differently (a query, a fragment or a doubled trailing '/' in the url; a tenant beyond ASCII letters, digits and -._~!*())"
            }
        })
    }
}

/// Whether a REST client (which appends paths to the url) serves the binding.
enum Rest {
    No,
    Yes,
}

/// The HTTP bindings, spelled in any way `String.prototype.toUpperCase` makes `JSONRPC` or
/// `HTTP+JSON` of: any ASCII case, and the long `\u{17f}`, which upper-cases to `S`
/// (@a2a-js/sdk upper-cases the required binding to find its transport factory and the
/// interface, so a requirement `binding:HTTP+J\u{17f}ON` gets its REST transport, which appends
/// its paths to the url; a2a-sdk matches exactly, and the stricter reading is the safe one for a
/// spelling it would not match).
fn http_binding(binding: &str) -> Option<Rest> {
    if upper_cases_as(binding, "JSONRPC") {
        Some(Rest::No)
    } else if upper_cases_as(binding, "HTTP+JSON") {
        Some(Rest::Yes)
    } else {
        None
    }
}

/// Whether `binding` upper-cases (`toUpperCase`) to the ASCII `upper`.
fn upper_cases_as(binding: &str, upper: &str) -> bool {
    if binding.is_ascii() {
        binding.eq_ignore_ascii_case(upper)
    } else {
        upper_cases_to_ascii(binding) && upper_case(binding).eq(upper.bytes())
    }
}

/// `http://`, `https://`, `ws://` or `wss://` (any ASCII case), a host and optional port, then a
/// path, query and fragment of [`TAIL_CHARS`]: no `.` or `..` path segment (WHATWG removes
/// them, and httpx's own removal is not followed here) and no empty query (`fetch` drops a bare
/// `?`, httpx sends it). One pass over the bytes: this runs on every interface of every reading.
fn plain(s: &str) -> Option<Tail> {
    let b = s.as_bytes();
    let colon = b.iter().position(|&c| c == b':')?;
    let (scheme, after) = b.split_at(colon);
    let known = match scheme.len() {
        2 => scheme.eq_ignore_ascii_case(b"ws"),
        3 => scheme.eq_ignore_ascii_case(b"wss"),
        4 => scheme.eq_ignore_ascii_case(b"http"),
        5 => scheme.eq_ignore_ascii_case(b"https"),
        _ => false,
    };
    let rest = after.strip_prefix(b"://")?;
    let end = rest
        .iter()
        .position(|&c| matches!(c, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    if known && authority_ok(authority) {
        tail_ok(tail)
    } else {
        None
    }
}

/// What follows a plain url's authority, when [`tail_ok`] takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tail {
    /// A path alone: a REST base.
    Base,
    /// A query or a fragment.
    QueryOrFragment,
}

/// `host[:port]`: a bracketed IPv6 address in its canonical form, a dotted-quad IPv4 address, or
/// a name of ASCII letters, digits, `-`, `.` and `_`.
fn authority_ok(authority: &[u8]) -> bool {
    if let Some(inner) = authority.strip_prefix(b"[") {
        let Some(close) = inner.iter().position(|&c| c == b']') else {
            return false;
        };
        let (address, after) = inner.split_at(close);
        // Only the form WHATWG writes (lower case, no leading zeros, the first longest run of
        // zeros compressed, no dotted IPv4 part): `fetch` sends that form in `Host`, httpx the
        // text as written, and a server or proxy that routes by `Host` tells them apart. Rust
        // writes an address that way too, but an IPv4-mapped one dotted: those are refused.
        let address_ok = std::str::from_utf8(address).is_ok_and(|a| {
            !a.contains('.') && a.parse::<Ipv6Addr>().is_ok_and(|ip| ip.to_string() == a)
        });
        return address_ok
            && match after.get(1..) {
                Some([]) => true,
                Some([b':', port @ ..]) => port_ok(port),
                _ => false,
            };
    }
    match authority.iter().position(|&c| c == b':') {
        Some(colon) => {
            let (host, port) = authority.split_at(colon);
            name_ok(host) && port_ok(port.get(1..).unwrap_or_default())
        }
        None => name_ok(authority),
    }
}

/// A host name both read as the same name, or a dotted-quad address.
///
/// WHATWG reads a host whose last label is a number (decimal, or `0x` hexadecimal) as an IPv4
/// address in any of its shorter or octal forms (`127.1`, `0x7f.1`, `010.0.0.1`), which httpx
/// refuses or leaves to the resolver, so a last label that starts with a digit must belong to a
/// plain dotted quad. A label starting `xn--` is punycode, which the two check and convert by
/// different IDNA rules (httpx refuses a host with one and an `_` elsewhere; WHATWG does not).
fn name_ok(host: &[u8]) -> bool {
    for (i, &c) in host.iter().enumerate() {
        if class(c) & HOST == 0
            || ((c | 0x20) == b'x'
                && (i == 0 || host.get(i - 1) == Some(&b'.'))
                && host
                    .get(i..i + 4)
                    .is_some_and(|p| p.eq_ignore_ascii_case(b"xn--")))
        {
            return false;
        }
    }
    let trimmed = host.strip_suffix(b".").unwrap_or(host);
    let last = match trimmed.iter().rposition(|&c| c == b'.') {
        Some(dot) => trimmed.get(dot + 1..).unwrap_or_default(),
        None => trimmed,
    };
    match last.first() {
        Some(first) if first.is_ascii_digit() => {
            std::str::from_utf8(host).is_ok_and(|h| h.parse::<Ipv4Addr>().is_ok())
        }
        Some(_) => true,
        None => false,
    }
}

/// A port both read as the same number: 1 to 65535, in at most five digits.
fn port_ok(port: &[u8]) -> bool {
    (1..=5).contains(&port.len())
        && port.iter().all(u8::is_ascii_digit)
        && port
            .iter()
            .fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'))
            .wrapping_sub(1)
            < 65535
}

/// The characters allowed after the authority: RFC 3986's unreserved characters, its
/// sub-delimiters but `'` (which WHATWG percent-encodes in a query), `:`, `@`, `/`, `?`, `#`,
/// `[`, `]`, and `%` (with two hex digits, not `2e`, which WHATWG reads as a dot in a path).
const TAIL_CHARS: &[u8] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&()*+,;=:@/?#[]%";

/// A byte's classes ([`class`]): one table lookup per byte instead of a chain of comparisons
/// (this runs on every interface of every reading).
const HOST: u8 = 1;
/// In [`TAIL_CHARS`].
const TAIL: u8 = 2;
/// In [`TAIL_CHARS`] and needing no further look: not `%`, `/`, `?` or `#`.
const TAIL_PLAIN: u8 = 4;

static CLASSES: [u8; 256] = classes();

// Evaluated at compile time (a `static`), and a byte is always below 256.
#[allow(clippy::indexing_slicing)]
const fn classes() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut rest = TAIL_CHARS;
    while let [c, more @ ..] = rest {
        table[*c as usize] |= TAIL;
        if !matches!(*c, b'%' | b'/' | b'?' | b'#') {
            table[*c as usize] |= TAIL_PLAIN;
        }
        if c.is_ascii_alphanumeric() || matches!(*c, b'-' | b'_' | b'.') {
            table[*c as usize] |= HOST;
        }
        rest = more;
    }
    table
}

#[inline]
fn class(c: u8) -> u8 {
    CLASSES.get(usize::from(c)).copied().unwrap_or(0)
}

/// The path, query and fragment (see [`plain`]).
fn tail_ok(tail: &[u8]) -> Option<Tail> {
    let mut in_path = true;
    let mut segment = 0;
    for (i, &c) in tail.iter().enumerate() {
        let class = class(c);
        if class & TAIL_PLAIN != 0 {
            continue;
        }
        if class & TAIL == 0 {
            return None;
        }
        if c == b'%' && !escape_ok(tail.get(i + 1..i + 3)) {
            return None;
        }
        if in_path && matches!(c, b'/' | b'?' | b'#') {
            if dot_segment(tail.get(segment..i)) {
                return None;
            }
            segment = i + 1;
            if c != b'/' {
                in_path = false;
                if c == b'?' && matches!(tail.get(i + 1), None | Some(b'#')) {
                    return None;
                }
            }
        }
    }
    if !in_path {
        Some(Tail::QueryOrFragment)
    } else if dot_segment(tail.get(segment..)) {
        None
    } else {
        Some(Tail::Base)
    }
}

fn dot_segment(segment: Option<&[u8]>) -> bool {
    matches!(segment, Some(b".") | Some(b".."))
}

/// Two hex digits after a `%`, and not `2e` (a dot).
fn escape_ok(hex: Option<&[u8]>) -> bool {
    match hex {
        Some([a, b]) => {
            a.is_ascii_hexdigit()
                && b.is_ascii_hexdigit()
                && !(*a == b'2' && matches!(b, b'e' | b'E'))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> Url {
        if s.trim().is_empty() {
            Url::Missing
        } else {
            Url::of_text(s)
        }
    }

    #[test]
    fn plain_urls_serve_both_http_bindings() {
        for s in [
            "https://agent.example/a2a/v1",
            "HTTPS://Agent.Example:8443/A2A",
            "http://127.0.0.1:8080/",
            "http://[::1]:8080/jsonrpc",
            "http://[2001:db8::1:0:0:1]/",
            "http://[::]/",
            "https://a_b.example./x/%41~/[0]",
            "https://agent.example",
            "https://agent.example/a2a/",
            "https://1password.example/a",
            "https://boxn--x.example/a",
            "wss://worker-7.internal/a2a",
            "WS://worker-7.internal:8080/a2a/v3",
        ] {
            assert_eq!(kind(s), Url::PlainBase, "{s:?}");
            assert!(
                kind(s).serves("JSONRPC") && kind(s).serves("HTTP+JSON"),
                "{s:?}"
            );
            assert!(kind(s).serves("GRPC") && kind(s).serves("urn:x"), "{s:?}");
        }
    }

    #[test]
    fn queries_fragments_and_doubled_slashes_serve_json_rpc_only() {
        for s in [
            "https://agent.example/a2a?tenant=1",
            "https://agent.example/a2a#x",
            "https://agent.example/a2a//",
            "https://agent.example/?a=/../b",
        ] {
            assert_eq!(kind(s), Url::Plain, "{s:?}");
            assert!(
                kind(s).serves("jsonrpc") && !kind(s).serves("http+json"),
                "{s:?}"
            );
        }
    }

    #[test]
    fn what_the_sdks_read_apart_serves_no_http_binding() {
        for s in [
            " https://agent.example/a2a",
            "https://agent.example/a2a ",
            "https://agent.example/a2a\n",
            "https://agent.example/a\tb",
            "/a2a",
            "a2a",
            "//agent.example/a2a",
            "agent.example:8080",
            "http:agent.example",
            "http:/agent.example",
            "http://",
            "http:///a",
            "ftp://agent.example/",
            "grpc://agent.example/",
            "file:///etc/passwd",
            "http:/x://agent.example/",
            "javascript:alert(1)",
            "https://user:pw@agent.example/",
            "https://agent.example\\@evil/",
            "https://agent.example/a\\b",
            "https://agent.example:0/",
            "https://agent.example:65536/",
            "https://agent.example:/",
            "https://agent.example:+1/",
            "https://agent.example:000080/",
            "https://127.1/",
            "https://0x7f.0.0.1/",
            "https://010.0.0.1/",
            "https://1.2.3.256/",
            "https://127.0.0.1./",
            "https://agent.example.123/",
            "https://agent.example.0x1/",
            "https://[::1/",
            "http://[::ffff:1.2.3.4]/",
            "http://[::ffff:7f00:1]/",
            "http://[0:0::1]/",
            "http://[0000::0001]/",
            "http://[::FFFF:7F00:1]/",
            "http://[2001:db8:0:0:1:0:0:1]/",
            "http://[2001:db8::0:1]/",
            "https://[fe80::1%25eth0]/",
            "https://[::1]x/",
            "https://[1.2.3.4]/",
            "https://xn--bcher-kva.example/",
            "https://agent.XN--bcher-kva.example/",
            "https://b\u{fc}cher.example/",
            "https://agent.example/b\u{fc}cher",
            "https://agent.example/%2e%2e/admin",
            "https://agent.example/%2E/a",
            "https://agent.example/../a",
            "https://agent.example/a/./b",
            "https://agent.example/a/..",
            "https://agent.example/%zz",
            "https://agent.example/%4",
            "https://agent.example/%4g",
            "https://agent.example/%g4",
            "https://agent.example/a?",
            "https://agent.example/a?#f",
            "https://agent.example/a?x='1'",
            "https://agent.example/a|b",
            "https://agent.example/{a}",
            "https://agent.example/a\"b",
            "https://agent.example/a<b>",
            "https://agent.example/a^b",
            "https://agent.example/a`b",
            "https://a%41.example/",
            "https://a!.example/",
        ] {
            assert_eq!(kind(s), Url::Other, "{s:?}");
            assert!(
                !kind(s).serves("JSONRPC") && !kind(s).serves("HTTP+JSON"),
                "{s:?}"
            );
            assert!(kind(s).serves("GRPC"), "{s:?}");
        }
    }

    #[test]
    fn a_rest_base_keeps_only_a_plain_tenant() {
        let doc = |json: &str| crate::json::parse_document(json.as_bytes(), 8);
        for (tenant, base) in [
            ("null", true),
            (r#""""#, true),
            (r#""acme-1_x.y~z!*()""#, true),
            (r#""a/b""#, false),
            (r#""a?b""#, false),
            (r#""a b""#, false),
            (r#""%41""#, false),
            (r#""'""#, false),
            (r#"".""#, false),
            (r#""..""#, false),
            (r#""\u00e9""#, false),
            ("5", false),
            ("[]", false),
        ] {
            let d = doc(tenant).unwrap_or_else(|e| panic!("{tenant}: {e:?}"));
            let url = Url::PlainBase.with_tenant(Some(d.root()));
            assert_eq!(url == Url::PlainBase, base, "{tenant}");
            assert!(url.serves("JSONRPC"), "{tenant}");
            assert_eq!(Url::Other.with_tenant(Some(d.root())), Url::Other);
        }
        assert_eq!(Url::PlainBase.with_tenant(None), Url::PlainBase);
    }

    #[test]
    fn a_binding_upper_casing_to_an_http_one_is_that_one() {
        // @a2a-js/sdk upper-cases a required `HTTP+J\u{17f}ON` to `HTTP+JSON`: its REST
        // transport appends paths to the url, so the REST rules apply.
        let query = kind("https://agent.example/a2a?x=1");
        assert_eq!(query, Url::Plain);
        for rest in ["HTTP+J\u{17f}ON", "http+j\u{17f}on"] {
            assert!(!query.serves(rest), "{rest:?}");
            assert!(Url::PlainBase.serves(rest), "{rest:?}");
        }
        let other = kind(" https://agent.example/a2a");
        assert!(query.serves("J\u{17f}ONRPC") && !other.serves("J\u{17f}ONRPC"));
        // Other letters do not upper-case to ASCII: custom bindings, any url.
        assert!(other.serves("HTTP+J\u{15a}ON") && other.serves("HTTP+JSON\u{17f}"));
    }

    #[test]
    fn no_url_serves_nothing() {
        for s in ["", " ", "\t\n"] {
            assert_eq!(kind(s), Url::Missing);
            for binding in ["JSONRPC", "HTTP+JSON", "GRPC", "urn:x"] {
                assert!(!kind(s).serves(binding));
                assert_eq!(kind(s).unusable_because(binding), Some("which has no url"));
            }
        }
        assert_eq!(Url::of(None), Url::Missing);
    }

    #[test]
    fn messages_say_why() {
        assert_eq!(Url::PlainBase.unusable_because("HTTP+JSON"), None);
        assert!(Url::Other
            .unusable_because("JSONRPC")
            .is_some_and(|m| m.contains("plain absolute")));
        assert!(Url::Plain
            .unusable_because("HTTP+JSON")
            .is_some_and(|m| m.contains("REST")));
        assert_eq!(Url::Other.unusable_because("GRPC"), None);
    }
}
