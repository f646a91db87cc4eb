//! The url form of condition (c) (`cardgate::interface_url`): `Url::of_text` never panics and
//! classifies every url as a plain restatement of the documented form (DESIGN.md, "Which
//! interface a client picks") does, written here with string operations and no speed tricks.
//! The gate's version reads bytes once through a class table; the two must agree.
//!
//! Inputs are free text or assembled from the pieces where the form's rules sit (schemes, hosts
//! with IPv4 shorthands, IPv6, `xn--` labels, ports, escapes, dot segments, queries, fragments).
#![no_main]

use cardgate::sdk_reading::Url;
use libfuzzer_sys::{arbitrary, fuzz_target};
use std::net::{Ipv4Addr, Ipv6Addr};

#[derive(arbitrary::Arbitrary, Debug)]
enum Input<'a> {
    Text(&'a str),
    /// Indices into [`PIECES`].
    Pieces(Vec<u8>),
}

const PIECES: [&str; 48] = [
    "http://",
    "https://",
    "HTTPS://",
    "ws://",
    "wss://",
    "ftp://",
    "http:",
    "//",
    "agent.example",
    "a-b",
    "_x",
    "xn--",
    "XN--a",
    ".",
    "..",
    "127.0.0.1",
    "127.1",
    "1.2.3.256",
    "010",
    "0x7f",
    "[",
    "]",
    "::1",
    "::ffff:1.2.3.4",
    "%25",
    ":",
    ":8080",
    ":0",
    ":65536",
    "/",
    "//",
    "/./",
    "/../",
    "?",
    "#",
    "?a=1",
    "#f",
    "%2e",
    "%2E",
    "%41",
    "%",
    "'",
    " ",
    "\\",
    "|",
    "\u{e9}",
    "@",
    "a2a",
];

fn text(input: &Input<'_>) -> String {
    match input {
        Input::Text(t) => (*t).to_owned(),
        Input::Pieces(p) => p
            .iter()
            .take(32)
            .map(|&i| PIECES[usize::from(i) % PIECES.len()])
            .collect(),
    }
}

/// The form, restated plainly.
fn reference(s: &str) -> Url {
    let Some((scheme, rest)) = s.split_once("://") else {
        return Url::Other;
    };
    if !["http", "https", "ws", "wss"]
        .iter()
        .any(|k| scheme.eq_ignore_ascii_case(k))
    {
        return Url::Other;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    if !authority_ok(authority) || !tail_ok(tail) {
        return Url::Other;
    }
    if tail.contains(['?', '#']) || s.ends_with("//") {
        Url::Plain
    } else {
        Url::PlainBase
    }
}

fn authority_ok(authority: &str) -> bool {
    let (host, port) = if let Some(inner) = authority.strip_prefix('[') {
        let Some((address, after)) = inner.split_once(']') else {
            return false;
        };
        // Only the canonical text (what `fetch` puts in `Host`; httpx sends it as written).
        if address.contains('.')
            || address
                .parse::<Ipv6Addr>()
                .map(|ip| ip.to_string())
                .ok()
                .as_deref()
                != Some(address)
        {
            return false;
        }
        if after.is_empty() {
            return true;
        }
        match after.strip_prefix(':') {
            Some(port) => return port_ok(port),
            None => return false,
        }
    } else {
        match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty()
        || !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
        || host
            .split('.')
            .any(|l| l.len() >= 4 && l[..4].eq_ignore_ascii_case("xn--"))
    {
        return false;
    }
    let trimmed = host.strip_suffix('.').unwrap_or(host);
    let last = trimmed.rsplit('.').next().unwrap_or("");
    let host_ok = match last.chars().next() {
        None => false,
        Some(c) if c.is_ascii_digit() => host.parse::<Ipv4Addr>().is_ok(),
        Some(_) => true,
    };
    host_ok && port.is_none_or(port_ok)
}

fn port_ok(port: &str) -> bool {
    (1..=5).contains(&port.len())
        && port.chars().all(|c| c.is_ascii_digit())
        && port.parse::<u32>().is_ok_and(|p| (1..=65535).contains(&p))
}

fn tail_ok(tail: &str) -> bool {
    const ALLOWED: &str = "-._~!$&()*+,;=:@/?#[]%";
    let b = tail.as_bytes();
    for (i, c) in tail.char_indices() {
        if !(c.is_ascii_alphanumeric() || ALLOWED.contains(c)) {
            return false;
        }
        if c == '%' {
            let hex = b.get(i + 1..i + 3);
            let ok = hex.is_some_and(|h| {
                h.iter().all(u8::is_ascii_hexdigit) && !h.eq_ignore_ascii_case(b"2e")
            });
            if !ok {
                return false;
            }
        }
    }
    let path_end = tail.find(['?', '#']).unwrap_or(tail.len());
    let (path, after) = tail.split_at(path_end);
    if path.split('/').any(|seg| seg == "." || seg == "..") {
        return false;
    }
    !(after == "?" || after.starts_with("?#"))
}

fuzz_target!(|input: Input| {
    let s = text(&input);
    if s.trim().is_empty() {
        return;
    }
    assert_eq!(Url::of_text(&s), reference(&s), "{s:?}");
});
