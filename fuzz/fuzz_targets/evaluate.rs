//! The whole gate with random cards and random requirements. Whatever the input, the decision's
//! JSON reads back as strict canonical JSON with the same verdict, and `valid` implies every
//! condition really holds per the card view: every required capability is declared, the version
//! is at least the floor, and the pin matches or the staleness is within tolerance.
#![no_main]

use cardgate::capability::Capability;
use cardgate::card::{AgentCard, Limits};
use cardgate::interface_choice::{self, Choice};
use cardgate::json::{self, Value};
use cardgate::version::Version;
use cardgate::{evaluate, jcs, CardHash, Observation, Requirement, WatermarkValue};
use libfuzzer_sys::{arbitrary, fuzz_target};

const WORDS: [&str; 8] = [
    "task.execute.v3",
    "extension:https://example.com/ext/v1",
    "capability:streaming",
    "capability:pushNotifications",
    "capability:extendedAgentCard",
    "binding:JSONRPC",
    "binding:GRPC",
    "protocol:1.0",
];

#[derive(arbitrary::Arbitrary, Debug)]
enum Cap<'a> {
    Known(u8),
    Free(&'a str),
}

#[derive(arbitrary::Arbitrary, Debug)]
enum Card<'a> {
    Raw(&'a [u8]),
    Built {
        version: &'a str,
        skills: Vec<Cap<'a>>,
        flags: u8,
        extensions: Vec<&'a str>,
        interfaces: Vec<(bool, &'a str)>,
        legacy: Option<(Option<&'a str>, &'a str)>,
        noise: Option<&'a str>,
    },
}

#[derive(arbitrary::Arbitrary, Debug)]
enum Lag<'a> {
    Ms(u32),
    Text(&'a str),
}

#[derive(arbitrary::Arbitrary, Debug)]
struct Input<'a> {
    card: Card<'a>,
    require: Vec<Cap<'a>>,
    min_version: Option<&'a str>,
    max_stale_ms: Option<u32>,
    /// 0: no pin, 1: the card's own hash, else a different one.
    pin: u8,
    lag_ms: Option<Lag<'a>>,
    age_s: Option<u16>,
}

fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

fn cap_text<'a>(c: &'a Cap<'a>) -> &'a str {
    match c {
        Cap::Known(i) => WORDS[usize::from(*i) % WORDS.len()],
        Cap::Free(t) => t,
    }
}

fn card_bytes(card: &Card) -> Vec<u8> {
    let (version, skills, flags, extensions, interfaces, legacy, noise) = match card {
        Card::Raw(raw) => return raw.to_vec(),
        Card::Built {
            version,
            skills,
            flags,
            extensions,
            interfaces,
            legacy,
            noise,
        } => (
            version, skills, flags, extensions, interfaces, legacy, noise,
        ),
    };
    let skill = |c: &Cap| {
        let id = cap_text(c);
        Value::Object(vec![(
            "id".into(),
            s(id.strip_prefix("capability:").unwrap_or(id)),
        )])
    };
    let mut caps = vec![
        ("streaming".into(), Value::Bool(flags & 1 != 0)),
        ("pushNotifications".into(), Value::Bool(flags & 2 != 0)),
    ];
    if flags & 4 != 0 {
        caps.push(("extendedAgentCard".into(), Value::Bool(flags & 8 != 0)));
    }
    caps.push((
        "extensions".into(),
        Value::Array(
            extensions
                .iter()
                .map(|u| Value::Object(vec![("uri".into(), s(u))]))
                .collect(),
        ),
    ));
    let mut doc: Vec<(String, Value)> = vec![
        ("name".into(), s("fuzzed agent")),
        ("version".into(), s(version)),
        ("capabilities".into(), Value::Object(caps)),
        (
            "skills".into(),
            Value::Array(skills.iter().map(skill).collect()),
        ),
    ];
    if flags & 16 != 0 {
        doc.push((
            "supportedInterfaces".into(),
            Value::Array(
                interfaces
                    .iter()
                    .map(|(grpc, v)| {
                        Value::Object(vec![
                            ("url".into(), s("https://agent.example/a2a")),
                            (
                                "protocolBinding".into(),
                                s(if *grpc { "GRPC" } else { "JSONRPC" }),
                            ),
                            ("protocolVersion".into(), s(v)),
                        ])
                    })
                    .collect(),
            ),
        ));
    }
    if let Some((transport, protocol)) = legacy {
        doc.push(("url".into(), s("https://agent.example/legacy")));
        if let Some(t) = transport {
            doc.push(("preferredTransport".into(), s(t)));
        }
        doc.push(("protocolVersion".into(), s(protocol)));
        doc.push((
            "supportsAuthenticatedExtendedCard".into(),
            Value::Bool(flags & 32 != 0),
        ));
    }
    if let Some(n) = noise {
        doc.push(("description".into(), s(n)));
    }
    let mut seen = std::collections::HashSet::new();
    doc.retain(|(k, _)| seen.insert(k.clone()));
    jcs::canonicalize(&Value::Object(doc)).into_bytes()
}

fuzz_target!(|input: Input| {
    let bytes = card_bytes(&input.card);
    let mut req = Requirement::default();
    for c in &input.require {
        if req.add_capability(cap_text(c)).is_err() {
            return;
        }
    }
    if let Some(v) = input.min_version {
        if req.set_min_version(v).is_err() {
            return;
        }
    }
    if let Some(ms) = input.max_stale_ms {
        req.set_max_stale_ms(u64::from(ms));
    }
    let doc = AgentCard::parse_document(&bytes, &Limits::default()).ok();
    let own_hash = doc.as_ref().map(CardHash::of_document);
    match (input.pin, &own_hash) {
        (0, _) => {}
        (1, Some(h)) => req.set_pin(h.as_str()).expect("a card hash is a valid pin"),
        _ => req
            .set_pin("sha256:0000000000000000000000000000000000000000000000000000000000000000")
            .expect("valid pin"),
    }
    let obs = Observation {
        lag_ms: input.lag_ms.map(|l| match l {
            Lag::Ms(ms) => WatermarkValue::Text(ms.to_string()),
            Lag::Text(t) => WatermarkValue::Text(t.to_string()),
        }),
        age_s: input.age_s.map(|a| WatermarkValue::Number(f64::from(a))),
        ..Observation::default()
    };

    let decision = evaluate(&bytes, &req, &obs);
    let out = decision.to_json();
    let back = json::parse(out.as_bytes(), 128).expect("decision JSON reads back");
    assert_eq!(jcs::canonicalize(&back), out, "decision JSON is canonical");
    let verdict = back.get("verdict").and_then(Value::as_str);
    let status = back.get("status").and_then(Value::as_f64);
    assert_eq!(status, Some(f64::from(decision.status())));
    assert_eq!(verdict == Some("valid"), decision.is_valid());
    assert_eq!(decision.is_valid(), decision.reasons().is_empty());
    assert_eq!(decision.is_valid(), decision.status() == 200);
    if !decision.is_valid() {
        assert!(back.get("type").and_then(Value::as_str).is_some());
        return;
    }

    // valid: every condition holds per the card view.
    let doc = doc.expect("a valid card parsed");
    let view = AgentCard::from_document(&doc).expect("a valid card reads as a card");
    for cap in &req.require {
        assert!(
            cap.declared_by(&view),
            "valid but {cap} is not declared: {out}"
        );
        if let Capability::Skill(id) = cap {
            assert!(view.skill_ids.contains(id));
        }
        // A required binding: every SDK's client picks an interface for it, at a required
        // protocol version when the requirement names any the card declares (and speaks that
        // version's generation to it).
        if let Capability::Binding(b) = cap {
            let protocols: Vec<&str> = req
                .require
                .iter()
                .filter_map(|c| match c {
                    Capability::Protocol(p) if c.declared_by(&view) => Some(p.as_str()),
                    _ => None,
                })
                .collect();
            for (sdk, reading) in &view.readings {
                for (client, choice) in interface_choice::choices(*sdk, reading, b) {
                    match choice {
                        Choice::Picked(v) => assert!(
                            protocols.is_empty()
                                || protocols
                                    .iter()
                                    .any(|p| v == *p || v.starts_with(&format!("{p}."))),
                            "valid but {sdk:?}{client} picks {v:?} for {cap}: {out}"
                        ),
                        // Spoken to in the other generation than its version declares: it
                        // serves the binding, but no required protocol version.
                        Choice::OtherWire(..) | Choice::JsOtherWire(..) => assert!(
                            protocols.is_empty(),
                            "valid but {sdk:?}{client} picks {choice:?} for {cap} with {protocols:?}: {out}"
                        ),
                        other => {
                            panic!("valid but {sdk:?}{client} picks {other:?} for {cap}: {out}")
                        }
                    }
                }
            }
        }
    }
    assert!(decision.missing_capabilities().is_empty());
    if let Some(min) = &req.min_version {
        let v = Version::parse(&view.version).expect("valid with a floor means comparable");
        assert!(v >= *min, "valid but {} < {min}", view.version);
    }
    assert_eq!(decision.card_hash(), own_hash.as_ref());
    match &req.pin {
        Some(pin) => assert_eq!(
            Some(pin),
            own_hash.as_ref(),
            "valid with a pin that differs"
        ),
        None => {
            let max = req
                .max_stale_ms
                .expect("valid without a pin needs a tolerance");
            let staleness = obs
                .staleness()
                .expect("valid means freshness was established");
            assert!(staleness.ms <= max);
            assert_eq!(decision.staleness_ms(), Some(staleness.ms));
        }
    }
});
