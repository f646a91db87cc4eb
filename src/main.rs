//! `cardgate`: the gate for pipelines and operators.
//!
//! Exit status: 0 valid (or success), 1 rejected card, 2 usage or input error (one line on stderr).

use cardgate::{
    api, evaluate_with, InputError, Limits, Observation, Policy, Requirement, Timestamp,
    WatermarkValue,
};
use std::io::{Read, Write};
use std::process::ExitCode;

const USAGE: &str = "\
cardgate: refuse stale or incomplete A2A Agent Cards before delegation

usage:
  cardgate check CARD.json|- [options]   print the decision JSON; exit 0 valid, 1 rejected, 2 bad input
      --require CAP            capability the caller will invoke (repeatable): a skill id,
                               extension:<uri>, capability:streaming|pushNotifications|extendedAgentCard,
                               binding:<protocolBinding>, protocol:<Major.Minor>
      --min-version V          lowest acceptable card version
      --max-stale DUR          staleness tolerance: 250ms, 10s, 2m, 1h (none given: only a pin passes)
      --pin sha256:HEX         pinned card hash (replaces the watermark check)
      --policy FILE --agent ID take the requirement from a policy; flags given here override it
      --watermark-ms N         replica lag in ms           --lag-s N        replica lag in seconds
      --synced-at RFC3339      last successful sync        --age-s N        HTTP Age (added to the lag)
      --consul-last-contact-ms N --consul-known-leader true|false
      --now RFC3339            the clock (default: this machine's)
      --no-clock               supply no clock (a synced_at watermark then fails as clock_missing)
      --requirement JSON       the requirement in its JSON form (DESIGN.md); flags above add to it
      --observation JSON       the observation in its JSON form; watermark flags add to it
      --max-card-bytes N       body size limit (default 65536)
  cardgate hash CARD.json|-              print the card hash (sha256 over RFC 8785, without signatures)
  cardgate canonicalize FILE.json|-      write the RFC 8785 canonical form (no trailing newline)
  cardgate policy check FILE             validate a policy file
  cardgate --version | --help
";

/// A failure that ends the program with status 2.
struct UsageError(String);

impl From<InputError> for UsageError {
    fn from(e: InputError) -> Self {
        UsageError(e.to_string())
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err(UsageError(message)) => {
            eprintln!("cardgate: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<u8, UsageError> {
    match args.first().map(String::as_str) {
        Some("check") => check(args.get(1..).unwrap_or_default()),
        Some("hash") => {
            let [path] = args.get(1..).unwrap_or_default() else {
                return Err(UsageError("usage: cardgate hash CARD.json|-".into()));
            };
            let bytes = read_input(path)?;
            let hash = api::card_hash(&bytes).map_err(|e| UsageError(format!("{path}: {e}")))?;
            println!("{hash}");
            Ok(0)
        }
        Some("canonicalize") => {
            let [path] = args.get(1..).unwrap_or_default() else {
                return Err(UsageError(
                    "usage: cardgate canonicalize FILE.json|-".into(),
                ));
            };
            let bytes = read_input(path)?;
            let canonical =
                api::canonicalize(&bytes).map_err(|e| UsageError(format!("{path}: {e}")))?;
            write_stdout(canonical.as_bytes())?;
            Ok(0)
        }
        Some("policy") => match args.get(1..).unwrap_or_default() {
            [sub, path] if sub == "check" => {
                let bytes = read_input(path)?;
                api::check_policy(&bytes).map_err(|e| UsageError(policy_error(path, &e)))?;
                println!("{path}: valid policy");
                Ok(0)
            }
            _ => Err(UsageError("usage: cardgate policy check FILE".into())),
        },
        Some("--version" | "-V") => {
            println!("cardgate {}", env!("CARGO_PKG_VERSION"));
            Ok(0)
        }
        Some("--help" | "-h" | "help") => {
            print!("{USAGE}");
            Ok(0)
        }
        Some(other) => Err(UsageError(format!(
            "unknown command {other:?}; see cardgate --help"
        ))),
        None => Err(UsageError("no command; see cardgate --help".into())),
    }
}

/// `first`'s members, with `second`'s filling the ones `first` lacks.
fn merge_observation(first: Observation, second: Observation) -> Observation {
    Observation {
        lag_ms: first.lag_ms.or(second.lag_ms),
        lag_s: first.lag_s.or(second.lag_s),
        synced_at: first.synced_at.or(second.synced_at),
        consul_last_contact_ms: first
            .consul_last_contact_ms
            .or(second.consul_last_contact_ms),
        consul_known_leader: first.consul_known_leader.or(second.consul_known_leader),
        age_s: first.age_s.or(second.age_s),
        now: first.now.or(second.now),
    }
}

fn policy_error(file: &str, e: &InputError) -> String {
    let at = if e.path.is_empty() {
        "(document)"
    } else {
        e.path.as_str()
    };
    format!("{file}: invalid policy at {at}: {}", e.message)
}

fn read_input(path: &str) -> Result<Vec<u8>, UsageError> {
    let mut bytes = Vec::new();
    let result = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
    };
    result.map_err(|e| UsageError(format!("cannot read {path}: {e}")))?;
    Ok(bytes)
}

fn write_stdout(bytes: &[u8]) -> Result<(), UsageError> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| UsageError(format!("cannot write output: {e}")))
}

fn check(args: &[String]) -> Result<u8, UsageError> {
    let mut card_path = None;
    let mut flags = Requirement::default();
    let mut observation = Observation::default();
    let mut policy_path = None;
    let mut agent = None;
    let mut limits = Limits::default();
    let mut base_requirement = None;
    let mut no_clock = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        if name == "--no-clock" {
            no_clock = true;
            continue;
        }
        if !name.starts_with("--") || name == "-" {
            if card_path.replace(arg.clone()).is_some() {
                return Err(UsageError(format!(
                    "unexpected argument {arg:?}: only one card per check"
                )));
            }
            continue;
        }
        let mut value = || -> Result<String, UsageError> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| UsageError(format!("{name} needs a value")))
        };
        let text = |v: String| Some(WatermarkValue::Text(v));
        let with_flag = |e: InputError| UsageError(format!("{name}: {}", e.message));
        match name {
            "--require" => flags.add_capability(&value()?).map_err(with_flag)?,
            "--min-version" => flags.set_min_version(&value()?).map_err(with_flag)?,
            "--max-stale" => flags.set_max_stale_ms(
                cardgate::duration::parse_duration(&value()?).map_err(with_flag)?,
            ),
            "--pin" => flags.set_pin(&value()?).map_err(with_flag)?,
            "--watermark-ms" | "--lag-ms" => observation.lag_ms = text(value()?),
            "--lag-s" => observation.lag_s = text(value()?),
            "--age-s" => observation.age_s = text(value()?),
            "--synced-at" => observation.synced_at = text(value()?),
            "--consul-last-contact-ms" => observation.consul_last_contact_ms = text(value()?),
            "--consul-known-leader" => observation.consul_known_leader = text(value()?),
            "--now" => {
                observation.now = Some(Timestamp::parse_rfc3339(&value()?).map_err(with_flag)?)
            }
            "--requirement" => {
                base_requirement = Some(
                    Requirement::from_json(&value()?)
                        .map_err(|e| UsageError(format!("--requirement: {e}")))?,
                )
            }
            "--observation" => {
                let given = Observation::from_json(&value()?)
                    .map_err(|e| UsageError(format!("--observation: {e}")))?;
                observation = merge_observation(given, observation);
            }
            "--policy" => policy_path = Some(value()?),
            "--agent" => agent = Some(value()?),
            "--max-card-bytes" => {
                let v = value()?;
                limits.max_card_bytes = v.parse().map_err(|_| {
                    UsageError(format!(
                        "--max-card-bytes: {v:?} is not a whole number of bytes"
                    ))
                })?;
            }
            _ => {
                return Err(UsageError(format!(
                    "unknown option {name}; see cardgate --help"
                )))
            }
        }
    }
    let card_path =
        card_path.ok_or_else(|| UsageError("check needs a card file or - for stdin".into()))?;
    let flags = match base_requirement {
        Some(base) => base.overlay(&flags),
        None => flags,
    };
    let requirement = match policy_path {
        Some(path) => {
            let bytes = read_input(&path)?;
            let policy =
                Policy::from_json(&bytes).map_err(|e| UsageError(policy_error(&path, &e)))?;
            if let Some(id) = &agent {
                if !policy.has_agent(id) {
                    eprintln!("cardgate: note: policy {path} has no rule for agent {id:?}; using its defaults");
                }
            }
            policy.requirement_for(agent.as_deref()).overlay(&flags)
        }
        None if agent.is_some() => return Err(UsageError("--agent needs --policy".into())),
        None => flags,
    };
    if observation.now.is_none() && !no_clock {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_err(|_| UsageError("the system clock is before 1970".into()))?;
        observation.now = Some(Timestamp::from_unix_ms(
            i64::try_from(now.as_millis()).unwrap_or(i64::MAX),
        ));
    }
    let card = read_input(&card_path)?;
    let decision = evaluate_with(&card, &requirement, &observation, &limits);
    let mut out = decision.to_json();
    out.push('\n');
    write_stdout(out.as_bytes())?;
    if decision.is_valid() {
        Ok(0)
    } else {
        let class = decision.error_class().map_or("rejected", |c| c.as_str());
        eprintln!("cardgate: rejected ({class}): {}", decision.detail());
        Ok(1)
    }
}
