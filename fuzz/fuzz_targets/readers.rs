//! The input readers: requirement, observation, policy and the Envoy filter configuration
//! (`cardgate::envoy::config`, compiled natively with feature `envoy`). Any bytes give a value
//! or an error with a JSON Pointer path, never a panic; what a reader accepts it accepts again
//! in canonical form (member order and spelling do not matter) with the same result.
#![no_main]

use cardgate::envoy::config::FilterConfig;
use cardgate::json;
use cardgate::{jcs, Observation, Policy, Requirement};
use libfuzzer_sys::fuzz_target;

fn path_ok(path: &str) -> bool {
    path.is_empty() || path.starts_with('/')
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let canonical = json::parse(bytes, 64).ok().map(|v| jcs::canonicalize(&v));
    let text = std::str::from_utf8(bytes).ok();
    match selector % 4 {
        0 => {
            let Some(text) = text else { return };
            match Requirement::from_json(text) {
                Ok(r) => {
                    let again = Requirement::from_json(canonical.as_deref().unwrap_or_default());
                    assert_eq!(again.as_ref().ok(), Some(&r));
                    // Tightening with itself never conflicts and keeps the pin; without a pin
                    // that replaces the watermark it changes nothing. (With one, tighten reads
                    // the second copy's max_stale as a demand for a watermark and switches to
                    // pin_mode with_watermark: stricter, never looser.)
                    let twice = r.tighten(&r).expect("a requirement agrees with itself");
                    assert_eq!(twice.pin, r.pin);
                    if r.pin.is_none() || r.pin_with_watermark() {
                        assert_eq!(twice, r);
                    }
                    // Overlaying with an empty requirement changes nothing.
                    assert_eq!(r.overlay(&Requirement::default()), r);
                }
                Err(e) => assert!(path_ok(&e.path), "{e}"),
            }
        }
        1 => {
            let Some(text) = text else { return };
            match Observation::from_json(text) {
                Ok(o) => {
                    // Same figure or same reason (messages quote values as written: -0 vs 0).
                    let again = Observation::from_json(canonical.as_deref().unwrap_or_default());
                    let outcome = |o: &Observation| o.staleness().map(|s| s.ms).map_err(|u| u.code);
                    assert_eq!(again.ok().as_ref().map(outcome), Some(outcome(&o)));
                }
                Err(e) => assert!(path_ok(&e.path), "{e}"),
            }
        }
        2 => match Policy::from_json(bytes) {
            Ok(p) => {
                let again = Policy::from_json(canonical.as_deref().unwrap_or_default().as_bytes());
                let again = again.expect("canonical policy reads");
                for (agent, _) in &p.agents {
                    assert!(p.has_agent(agent));
                    assert_eq!(
                        again.requirement_for(Some(agent)),
                        p.requirement_for(Some(agent))
                    );
                }
                assert_eq!(again.requirement_for(None), p.requirement_for(None));
            }
            Err(e) => assert!(path_ok(&e.path), "{e}"),
        },
        _ => match FilterConfig::from_json(bytes) {
            Ok(c) => {
                if let Some(canonical) = &canonical {
                    let again = FilterConfig::from_json(canonical.as_bytes());
                    assert!(again.is_ok(), "canonical config refused: {canonical}");
                }
                // Routing any path never panics.
                let _ = c.match_path("/agents/worker-7/card?x=1");
                let _ = c.match_path("/.well-known/agent-card.json");
            }
            Err(e) => assert!(path_ok(&e.path), "{e}"),
        },
    }
});
