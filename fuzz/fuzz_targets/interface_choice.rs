//! The interface each SDK's client picks (`cardgate::interface_choice`) over any interface list:
//! never a panic (a2a-sdk's PEP 440 reading runs on every card with a required binding, on the
//! request path), and a pick is always one of the interfaces offering the binding (exactly for
//! a2a-sdk, by ASCII upper case for @a2a-js/sdk, which throws on an untyped binding). `serves`
//! and `unserved` agree with `choices` (every client of an SDK: a2a-sdk before and since 1.2.3,
//! with `packaging` before and since 26.1).
//!
//! Versions are free text or assembled from PEP 440's pieces (epochs, pre/post/dev and local
//! parts, separators, Python whitespace, the letters old `packaging` read as ASCII, runs of digits
//! past Python's 4,300-digit `int()` limit),
//! so the grammar's deep paths are common.
#![no_main]

use cardgate::interface_choice::{choices, serves, unserved, Choice};
use cardgate::sdk_reading::{label, Reading, Sdk, Url};
use libfuzzer_sys::{arbitrary, fuzz_target};

#[derive(arbitrary::Arbitrary, Debug)]
struct Input<'a> {
    /// Binding, version, what the interface's url is (an index into [`URLS`]), and whether it
    /// names a tenant.
    interfaces: Vec<(Spelled<'a>, Spelled<'a>, u8, bool)>,
    untyped_binding: bool,
    binding: Spelled<'a>,
    protocols: Vec<Spelled<'a>>,
}

#[derive(arbitrary::Arbitrary, Debug)]
enum Spelled<'a> {
    Text(&'a str),
    /// Indices into [`PIECES`].
    Pieces(Vec<u8>),
}

const PIECES: [&str; 36] = [
    "0", "1", "3", "00", "01", "10", ".", ".", "v", "V", "!", "a", "b", "c", "rc", "pre",
    "preview", "alpha", "beta", "post", "rev", "r", "dev", "+", "-", "_", " ", "\u{3000}",
    "\u{85}", "JSONRPC", "grpc", "\u{df}", "\u{17f}", "\u{212a}", "\u{131}", "\u{130}",
];

impl Spelled<'_> {
    fn text(&self) -> String {
        match self {
            Spelled::Text(t) => (*t).to_owned(),
            Spelled::Pieces(p) => p
                .iter()
                .take(24)
                .map(|&i| match i {
                    // A number just under and just over Python's int() digit limit.
                    254 => "9".repeat(4300),
                    255 => "1".repeat(4301),
                    _ => PIECES[usize::from(i) % PIECES.len()].to_owned(),
                })
                .collect(),
        }
    }
}

const URLS: [Url; 4] = [Url::Missing, Url::Other, Url::Plain, Url::PlainBase];

fn js_upper(s: &str) -> String {
    s.to_ascii_uppercase()
}

fuzz_target!(|input: Input| {
    let reading = Reading {
        interfaces: input
            .interfaces
            .iter()
            .take(8)
            .map(|(b, v, url, tenanted)| {
                (
                    label(&b.text()),
                    label(&v.text()),
                    URLS[usize::from(*url) % URLS.len()],
                    *tenanted,
                )
            })
            .collect(),
        untyped_binding: input.untyped_binding,
        ..Reading::default()
    };
    let binding = input.binding.text();
    let protocols: Vec<String> = input.protocols.iter().take(3).map(Spelled::text).collect();
    let protocols: Vec<&str> = protocols.iter().map(String::as_str).collect();
    let readings: Vec<(Sdk, Reading)> = [Sdk::Python, Sdk::JsDefault, Sdk::JsLegacyCompat]
        .into_iter()
        .map(|sdk| (sdk, reading.clone()))
        .collect();
    for (sdk, r) in &readings {
        let mut every_client_picks = true;
        for (client, picked) in choices(*sdk, r, &binding) {
            // Serving without a required protocol version: a pick it can send to, in either
            // generation.
            every_client_picks &= matches!(
                picked,
                Choice::Picked(_) | Choice::OtherWire(..) | Choice::JsOtherWire(..)
            );
            // The picked version; whether its url serves the binding; which interfaces it can
            // be (`Some(true)`: one that names a tenant, `Some(false)`: one that names none).
            let (version, with_url, tenant) = match picked {
                Choice::Picked(version) => (version, true, None),
                Choice::UnusableUrl(version, _) => (version, false, None),
                // A pick that drops its tenant is of an interface that names one.
                Choice::DropsTenant(version) => (version, true, Some(true)),
                // A pick spoken to in the other generation than its version declares serves
                // the binding (no required protocol version); spoken to in v0.3, it is of an
                // interface without a tenant (else the pick drops it).
                Choice::OtherWire(version, legacy) | Choice::JsOtherWire(version, legacy) => {
                    (version, true, legacy.then_some(false))
                }
                Choice::NoInterface | Choice::Unknown(_) => continue,
            };
            if matches!(picked, Choice::OtherWire(..)) {
                assert_eq!(*sdk, Sdk::Python, "only a2a-sdk's transports are OtherWire");
            }
            if matches!(picked, Choice::JsOtherWire(..)) {
                assert_ne!(
                    *sdk,
                    Sdk::Python,
                    "only @a2a-js/sdk's transports are JsOtherWire"
                );
            }
            let offered = r.interfaces.iter().any(|(b, v, url, tenanted)| {
                v == version
                    && url.serves(&binding) == with_url
                    && tenant.is_none_or(|t| *tenanted == t)
                    && match sdk {
                        Sdk::Python => b == &binding,
                        // Beyond ASCII the gate matches only the exact spelling, or the ten
                        // letters that upper-case to ASCII (checked by the unit tests).
                        _ => {
                            b == &binding
                                || js_upper(b) == js_upper(&binding)
                                || !b.is_ascii()
                                || !binding.is_ascii()
                        }
                    }
            });
            assert!(
                offered,
                "{sdk:?}{client} picked {picked:?} for {binding:?} in {:?}",
                r.interfaces
            );
            if *sdk != Sdk::Python {
                assert!(
                    !r.untyped_binding,
                    "@a2a-js/sdk's factory throws on an untyped binding"
                );
            }
        }
        // Without a required protocol version, serving is every client picking an interface
        // it can send to (with its tenant, if it names one), in either generation.
        assert_eq!(serves(*sdk, r, &binding, &[]), every_client_picks);
        // With protocols, serving means being served without them too.
        if serves(*sdk, r, &binding, &protocols) {
            assert!(serves(*sdk, r, &binding, &[]));
        }
    }
    let all_serve = readings
        .iter()
        .all(|(sdk, r)| serves(*sdk, r, &binding, &protocols));
    assert_eq!(
        unserved(&readings, &binding, &protocols).is_none(),
        all_serve
    );
});
