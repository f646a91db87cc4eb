//! `cardgate`: the gate for pipelines and operators.
//!
//! Exit status: 0 valid (or success), 1 rejected card, 2 usage or input error (one line on stderr).

use cardgate::policy::MAX_POLICY_BYTES;
use cardgate::{
    api, evaluate_with, Decision, InputError, Limits, Observation, Policy, Requirement, Timestamp,
    WatermarkValue,
};
use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::process::ExitCode;

mod args;
#[cfg(feature = "resolve")]
mod fetch;
#[cfg(feature = "resolve")]
mod proxy;
#[cfg(feature = "resolve")]
mod resolve;
#[cfg(feature = "resolve")]
mod tls;
#[cfg(feature = "resolve")]
mod url;

use args::{parse_args, Command, Parsed};

const USAGE: &str = "\
cardgate: refuse stale or incomplete A2A Agent Cards before delegation

usage:
  cardgate check CARD.json|- [options]   print the decision JSON; exit 0 valid, 1 rejected,
                                         2 bad input
      --require CAP            capability the caller will invoke (repeatable): a skill id,
                               extension:<uri>,
                               capability:streaming|pushNotifications|extendedAgentCard,
                               binding:<protocolBinding>, protocol:<Major.Minor>
      --min-version V          lowest acceptable card version
      --max-stale DUR          staleness tolerance: 250ms, 10s, 2m, 1h (none given: only a
                               pin passes)
      --pin sha256:HEX         pinned card hash (replaces the watermark check)
      --card-name NAME         the card's expected name, exactly: another agent's card (or one
                               from before a rename) fails (b) as card_name_mismatch
      --policy FILE --agent ID take the requirement from a policy; flags given here override
                               its members (--require adds to its capabilities); --agent is
                               needed once the policy has agent rules
      --watermark-ms N         replica lag in ms (or --lag-ms N)
      --lag-s N                replica lag in seconds
      --synced-at RFC3339      last successful sync
      --age-s N                HTTP Age (added to the lag)
      --consul-last-contact-ms N --consul-known-leader true|false
      --now RFC3339            the clock (default: this machine's)
      --no-clock               never read this machine's clock: only --now (or an --observation
                               now) is a clock; without one a synced_at watermark is clock_missing
      --requirement JSON       the requirement in its JSON form (DESIGN.md); flags above add to it
      --observation JSON       the observation in its JSON form; watermark flags add to it
      --max-card-bytes N       body size limit (default 65536); at most N+1 bytes are read
      Each option but --require is given at most once, and each watermark figure (and the
      clock) once across flags and --observation: a second value is refused (exit 2).
  cardgate resolve URL [URL ...] [options]
                               re-resolution: GET each card URL in order (a replica, then the
                               primary) until the gate's rule accepts one (a stale or malformed
                               card, or a failed source, moves on; a fresh card lacking a
                               capability stops); print the final decision with every attempt;
                               exit 0 valid, 1 rejected, 2 bad input
      the requirement and clock options of check (--require, --min-version, --max-stale, --pin,
      --card-name, --requirement, --policy, --agent, --now, --no-clock, --max-card-bytes); the
      watermark is each response's headers (x-replica-lag-ms, x-replica-lag-s,
      x-replica-synced-at, X-Consul-LastContact, X-Consul-KnownLeader, Age), so watermark flags
      do not apply
      --max-attempts N         most sources asked, the first included (default 3)
      --deadline DUR           no source is asked after this, from the start (default 5s)
      --timeout DUR            each fetch's limit (default and at most: what is left of the
                               deadline)
      --cacert FILE            trust only the certificates in this PEM file for https sources
                               (a private CA); default: the Mozilla roots built into cardgate
      --cert FILE [--key FILE] a client certificate (PEM, leaf first) for servers that ask for
                               one (mutual TLS); its key from --key, or else from the same file
      --header 'NAME: VALUE'   send this request header too (repeatable), e.g. a registry's
                               Authorization; Authorization, Cookie and Proxy-Authorization are
                               not sent on to another origin when a source redirects
      --header @FILE           the headers of FILE, one per line (@-: stdin), to keep a
                               credential off the command line
      redirects: at most 5 per source, never from an https URL to http (either is a failed
      source); an attempt records the URL that answered as final_url
      proxies, as curl reads them: https_proxy (HTTPS_PROXY) for https URLs, http_proxy
      (HTTP_PROXY) for http, else all_proxy (ALL_PROXY); no_proxy (NO_PROXY): *, addresses,
      CIDR ranges, names with their subdomains
  cardgate hash CARD.json|-              print the card hash (sha256 over RFC 8785, without
                                         signatures)
  cardgate canonicalize FILE.json|-      write the RFC 8785 canonical form (no trailing newline;
                                         16 MiB max)
  cardgate policy check FILE             validate a policy file (1 MiB max)
  cardgate --version | --help

An option's value is the next argument or follows `=` (--max-stale=10s). Inputs are read up to
their limit plus one byte (so /dev/zero or an endless pipe ends at once); an output that cannot
be written (a full disk, a closed pipe) is exit 2.
";

/// Largest document `canonicalize` reads.
const MAX_DOCUMENT_BYTES: usize = 16 << 20;

/// A failure that ends the program with status 2.
struct UsageError(String);

impl From<InputError> for UsageError {
    fn from(e: InputError) -> Self {
        UsageError(e.to_string())
    }
}

/// A diagnostic on stderr. A stderr that cannot be written to is not worth aborting over.
fn note(message: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "cardgate: {message}");
}

fn main() -> ExitCode {
    // `args_os`: an argument that is not UTF-8 (a file name, typically) must not abort.
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err(UsageError(message)) => {
            note(format_args!("{message}"));
            ExitCode::from(2)
        }
    }
}

/// An argument as text, or `None` when it is not UTF-8.
fn text_of(arg: &OsStr) -> Option<&str> {
    arg.to_str()
}

/// An argument for messages (lossy: a non-UTF-8 byte shows as U+FFFD).
fn shown(arg: &OsStr) -> String {
    format!("{:?}", arg.to_string_lossy())
}

fn run(args: &[OsString]) -> Result<u8, UsageError> {
    let rest = args.get(1..).unwrap_or_default();
    let Some(command) = args.first() else {
        return Err(UsageError("no command; see cardgate --help".into()));
    };
    match text_of(command) {
        Some("check") => check(rest),
        #[cfg(feature = "resolve")]
        Some("resolve") => resolve::resolve(rest),
        #[cfg(not(feature = "resolve"))]
        Some("resolve") => Err(UsageError(
            "this cardgate was built without the `resolve` feature".into(),
        )),
        Some("hash") => {
            let [path] = rest else {
                return Err(UsageError("usage: cardgate hash CARD.json|-".into()));
            };
            let limit = Limits::default().max_card_bytes;
            let bytes = match read_input(path, limit)? {
                Input::Whole(bytes) => bytes,
                Input::TooLarge { seen, complete, .. } => {
                    return Err(UsageError(format!(
                        "{}: card body is {}{seen} bytes, more than the limit of {limit} bytes",
                        path.to_string_lossy(),
                        if complete { "" } else { "at least " }
                    )))
                }
            };
            let hash = api::card_hash(&bytes)
                .map_err(|e| UsageError(format!("{}: {e}", path.to_string_lossy())))?;
            write_stdout(format!("{hash}\n").as_bytes())?;
            Ok(0)
        }
        Some("canonicalize") => {
            let [path] = rest else {
                return Err(UsageError(
                    "usage: cardgate canonicalize FILE.json|-".into(),
                ));
            };
            let bytes = read_whole(path, MAX_DOCUMENT_BYTES, "document")?;
            let canonical = api::canonicalize(&bytes)
                .map_err(|e| UsageError(format!("{}: {e}", path.to_string_lossy())))?;
            write_stdout(canonical.as_bytes())?;
            Ok(0)
        }
        Some("policy") => match rest {
            [sub, path] if text_of(sub) == Some("check") => {
                let bytes = read_whole(path, MAX_POLICY_BYTES, "policy")?;
                let name = path.to_string_lossy();
                api::check_policy(&bytes).map_err(|e| UsageError(policy_error(&name, &e)))?;
                write_stdout(format!("{name}: valid policy\n").as_bytes())?;
                Ok(0)
            }
            _ => Err(UsageError("usage: cardgate policy check FILE".into())),
        },
        Some("--version" | "-V") => {
            write_stdout(format!("cardgate {}\n", env!("CARGO_PKG_VERSION")).as_bytes())?;
            Ok(0)
        }
        Some("--help" | "-h" | "help") => {
            write_stdout(USAGE.as_bytes())?;
            Ok(0)
        }
        _ => Err(UsageError(format!(
            "unknown command {}; see cardgate --help",
            shown(command)
        ))),
    }
}

/// The observation members, each set at most once across flags and `--observation`.
#[derive(Default)]
struct ObservationSources {
    observation: Observation,
    /// Member name -> where it came from (a flag, or `--observation`), for the message.
    given: Vec<(&'static str, String)>,
}

impl ObservationSources {
    /// Records that `member` was supplied by `source`; a second supply is an error, whatever
    /// the values (an upstream or a script must not get to choose which figure the gate uses).
    fn claim(&mut self, member: &'static str, source: &str) -> Result<(), UsageError> {
        if let Some((_, first)) = self.given.iter().find(|(m, _)| *m == member) {
            return Err(UsageError(format!(
                "the watermark {member} is given twice ({first}, then {source}): give each figure once"
            )));
        }
        self.given.push((member, source.to_owned()));
        Ok(())
    }

    fn set_flag(
        &mut self,
        member: &'static str,
        flag: &str,
        value: String,
    ) -> Result<(), UsageError> {
        self.claim(member, flag)?;
        let v = Some(WatermarkValue::Text(value));
        let o = &mut self.observation;
        match member {
            "lag_ms" => o.lag_ms = v,
            "lag_s" => o.lag_s = v,
            "age_s" => o.age_s = v,
            "synced_at" => o.synced_at = v,
            "consul_last_contact_ms" => o.consul_last_contact_ms = v,
            "consul_known_leader" => o.consul_known_leader = v,
            _ => {}
        }
        Ok(())
    }

    /// Adds an `--observation` document: every member it has must not be given elsewhere.
    fn add_json(&mut self, given: Observation) -> Result<(), UsageError> {
        let source = "--observation";
        let o = &mut self.observation;
        let mut members: Vec<&'static str> = Vec::new();
        macro_rules! take {
            ($field:ident) => {
                if given.$field.is_some() {
                    members.push(stringify!($field));
                    o.$field = given.$field;
                }
            };
        }
        take!(lag_ms);
        take!(lag_s);
        take!(synced_at);
        take!(consul_last_contact_ms);
        take!(consul_known_leader);
        take!(age_s);
        take!(now);
        for member in members {
            self.claim(member, source)?;
        }
        Ok(())
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

/// What a bounded read got.
enum Input {
    /// The whole input, at most the limit.
    Whole(Vec<u8>),
    /// More than the limit: the first `limit + 1` bytes, and the size seen (`complete`: the
    /// exact size, from a regular file's length; otherwise "at least").
    TooLarge {
        start: Vec<u8>,
        seen: usize,
        complete: bool,
    },
}

/// Reads `path` (`-`: stdin) but never more than `limit + 1` bytes, so `/dev/zero` or an
/// endless pipe ends at once.
fn read_input(path: &OsStr, limit: usize) -> Result<Input, UsageError> {
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut bytes = Vec::new();
    let mut exact_len = None;
    let result = if path == "-" {
        exact_len = stdin_file_len();
        std::io::stdin()
            .lock()
            .take(cap)
            .read_to_end(&mut bytes)
            .map(|_| ())
    } else {
        std::fs::File::open(path).and_then(|f| {
            exact_len = f
                .metadata()
                .ok()
                .filter(|m| m.is_file())
                .and_then(|m| usize::try_from(m.len()).ok());
            f.take(cap).read_to_end(&mut bytes).map(|_| ())
        })
    };
    result.map_err(|e| UsageError(format!("cannot read {}: {e}", path.to_string_lossy())))?;
    if bytes.len() <= limit {
        return Ok(Input::Whole(bytes));
    }
    let (seen, complete) = match exact_len {
        Some(len) if len >= bytes.len() => (len, true),
        _ => (bytes.len(), false),
    };
    Ok(Input::TooLarge {
        start: bytes,
        seen,
        complete,
    })
}

/// The size of stdin when it is a regular file (`< card.json`), so that an oversized card read
/// from it is reported exactly; a pipe or a terminal has no size.
fn stdin_file_len() -> Option<usize> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let file = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned().ok()?);
        let meta = file.metadata().ok()?;
        meta.is_file()
            .then(|| usize::try_from(meta.len()).ok())
            .flatten()
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// [`read_input`] for inputs where too large is a usage error.
fn read_whole(path: &OsStr, limit: usize, what: &str) -> Result<Vec<u8>, UsageError> {
    match read_input(path, limit)? {
        Input::Whole(bytes) => Ok(bytes),
        Input::TooLarge { seen, complete, .. } => Err(UsageError(format!(
            "{}: {what} is {}{seen} bytes, more than the limit of {limit} bytes",
            path.to_string_lossy(),
            if complete { "" } else { "at least " }
        ))),
    }
}

fn write_stdout(bytes: &[u8]) -> Result<(), UsageError> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| UsageError(format!("cannot write output: {e}")))
}

/// The requirement from `--requirement`, the flags and `--policy`/`--agent`. `stdin_taken`: the
/// command reads stdin for something else (a card), so the policy cannot come from there.
fn requirement_of(p: &Parsed, stdin_taken: bool) -> Result<Requirement, UsageError> {
    let flags = match &p.base_requirement {
        Some(base) => base.overlay(&p.flags),
        None => p.flags.clone(),
    };
    match &p.policy_path {
        Some(path) => {
            if path == "-" && stdin_taken {
                return Err(UsageError(
                    "the card and --policy cannot both be read from stdin".into(),
                ));
            }
            let bytes = read_whole(path, MAX_POLICY_BYTES, "policy")?;
            let name = path.to_string_lossy();
            let policy =
                Policy::from_json(&bytes).map_err(|e| UsageError(policy_error(&name, &e)))?;
            let Some(id) = &p.agent else {
                // Without the agent the card is for, a policy with agent rules has no one rule
                // to apply: its defaults alone would be a silent guess (looser than the agent's
                // rule, as for worker-7 in policies/incident.json).
                if !policy.agents.is_empty() {
                    return Err(UsageError(format!(
                        "--policy {name} has rules for {} agent(s): give --agent ID, the agent \
                         whose card this is (an id without a rule takes the defaults)",
                        policy.agents.len()
                    )));
                }
                return Ok(policy.defaults.overlay(&flags));
            };
            // A path reads `/`, `\` and dot segments as structure before an `{id}` is read
            // (`/agents/worker-7//card` is worker-7's), so the filter reaches an id holding them
            // only when it is a policy agent's, escaped (`team%2Fw7`): any other such id would
            // be read otherwise here.
            let ids = policy.agent_ids();
            // The policy's own spelling of the id, when it has a rule for it.
            let own = ids.known(id).map(str::to_owned);
            let segment = !id.contains(['/', '\\']) && id != "." && id != "..";
            if !segment && own.is_none() {
                return Err(UsageError(format!(
                    "--agent: {id:?} is not one path segment (it holds `/` or `\\`, or is `.` or `..`) and names no agent of policy {name}"
                )));
            }
            // The rule every host applies to this id (the Envoy filter to the same id in a card
            // path): `WORKER-7`, `wörker-7` or `worker-7 ` are held to worker-7's rule, so the
            // CLI never judges a card by looser defaults than the filter would.
            let rule = policy
                .rule_for_agent_with(&ids, id)
                .map_err(|e| UsageError(format!("--agent: policy {name}: {e}")))?;
            let quoted = |ids: &[String]| {
                let quoted: Vec<String> = ids.iter().map(|id| format!("{id:?}")).collect();
                quoted.join(", ")
            };
            match (rule.defaults, rule.read_as.as_slice()) {
                (false, [found]) if found == id => {}
                (defaults, [found, also @ ..])
                    if own.as_ref() == Some(found) && (defaults || !also.is_empty()) =>
                {
                    let held = match (defaults, also.is_empty()) {
                        (true, true) => "the defaults".to_owned(),
                        (true, false) => format!("the defaults and the rules of {}", quoted(also)),
                        (false, _) => format!("the rules of {}", quoted(also)),
                    };
                    note(format_args!(
                        "note: policy {name}: agent {id:?} takes the rule for {found:?} and {held} too: an upstream may read the id as theirs (trimmed, cut at ?, # or ;, or compared accent- and case-insensitively), as the Envoy filter does"
                    ))
                }
                (false, read_as) => note(format_args!(
                    "note: policy {name} has no rule named {id:?}; using the rule for {}, as the Envoy filter does",
                    quoted(read_as)
                )),
                (true, []) => note(format_args!(
                    "note: policy {name} has no rule for agent {id:?}; using its defaults"
                )),
                (true, read_as) => note(format_args!(
                    "note: policy {name} has no rule named {id:?}, which may be read as {}; using its defaults tightened with their rules, as the Envoy filter does",
                    quoted(read_as)
                )),
            }
            Ok(rule.requirement.overlay(&flags))
        }
        None if p.agent.is_some() => Err(UsageError("--agent needs --policy".into())),
        None => Ok(flags),
    }
}

/// This machine's clock.
fn system_now() -> Result<Timestamp, UsageError> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| UsageError("the system clock is before 1970".into()))?;
    // Nanoseconds: truncating the clock would shorten a synced_at lag.
    Ok(Timestamp::from_unix_nanos(
        i128::try_from(now.as_nanos()).unwrap_or(i128::MAX),
    ))
}

/// Prints the decision and turns it into the exit status (0 valid, 1 rejected).
fn report(decision: &Decision) -> Result<u8, UsageError> {
    let mut out = decision.to_json();
    out.push('\n');
    write_stdout(out.as_bytes())?;
    if decision.is_valid() {
        Ok(0)
    } else {
        let class = decision.error_class().map_or("rejected", |c| c.as_str());
        note(format_args!("rejected ({class}): {}", decision.detail()));
        Ok(1)
    }
}

fn check(args: &[OsString]) -> Result<u8, UsageError> {
    let p = parse_args(args, Command::Check)?;
    if p.help {
        write_stdout(USAGE.as_bytes())?;
        return Ok(0);
    }
    let card_path = p
        .positional
        .first()
        .cloned()
        .ok_or_else(|| UsageError("check needs a card file or - for stdin".into()))?;
    let requirement = requirement_of(&p, card_path == "-")?;
    let mut observation = p.sources.observation;
    let limits = p.limits;
    let input = read_input(&card_path, limits.max_card_bytes)?;
    // The clock is read once the card is in hand, as the Envoy filter reads it at the end of
    // the body and `resolve` after each fetch: a card that arrived late (a slow pipe) is judged
    // at the time it is judged, so a `synced_at` watermark's age includes the wait.
    if observation.now.is_none() && !p.no_clock {
        observation.now = Some(system_now()?);
    }
    let decision = match input {
        Input::Whole(card) => evaluate_with(&card, &requirement, &observation, &limits),
        Input::TooLarge {
            start,
            seen,
            complete,
        } => Decision::body_too_large(&start, seen, limits.max_card_bytes, complete),
    };
    report(&decision)
}
