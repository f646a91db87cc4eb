//! `cardgate`: the gate for pipelines and operators.
//!
//! Exit status: 0 valid (or success), 1 rejected card, 2 usage or input error (one line on stderr).

use cardgate::{
    api, evaluate_with, Decision, InputError, Limits, Observation, Policy, Requirement, Timestamp,
    WatermarkValue,
};
use std::ffi::{OsStr, OsString};
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
      --max-card-bytes N       body size limit (default 65536); at most N+1 bytes are read
      Each option but --require is given at most once, and each watermark figure (and the
      clock) once across flags and --observation: a second value is refused (exit 2).
  cardgate hash CARD.json|-              print the card hash (sha256 over RFC 8785, without signatures)
  cardgate canonicalize FILE.json|-      write the RFC 8785 canonical form (no trailing newline; 16 MiB max)
  cardgate policy check FILE             validate a policy file (1 MiB max)
  cardgate --version | --help

Inputs are read up to their limit plus one byte (so /dev/zero or an endless pipe ends at once);
an output that cannot be written (a full disk, a closed pipe) is exit 2.
";

/// Largest policy file read (a policy names a handful of agents; this is generous).
const MAX_POLICY_BYTES: usize = 1 << 20;
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

/// `--name=value` split at the first `=` (`None` for anything else). On Unix the value keeps
/// its bytes, so `--policy=<non-UTF-8 file name>` works.
fn split_inline(arg: &OsStr) -> Option<(&str, OsString)> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = arg.as_bytes();
        let eq = bytes.iter().position(|&b| b == b'=')?;
        let name = std::str::from_utf8(bytes.get(..eq)?).ok()?;
        let value = OsStr::from_bytes(bytes.get(eq + 1..)?).to_owned();
        name.starts_with("--").then_some((name, value))
    }
    #[cfg(not(unix))]
    {
        let (name, value) = arg.to_str()?.split_once('=')?;
        name.starts_with("--")
            .then(|| (name, OsString::from(value)))
    }
}

fn check(args: &[OsString]) -> Result<u8, UsageError> {
    let mut card_path: Option<OsString> = None;
    let mut flags = Requirement::default();
    let mut sources = ObservationSources::default();
    let mut policy_path: Option<OsString> = None;
    let mut agent = None;
    let mut limits = Limits::default();
    let mut base_requirement = None;
    let mut no_clock = false;
    // Single-valued options seen so far: a second one is refused rather than silently winning.
    let mut seen: Vec<&str> = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (name, inline) = match split_inline(arg) {
            Some((n, v)) => (n, Some(v)),
            None => match text_of(arg) {
                Some(n) => (n, None),
                // Not UTF-8: only a card file name can be that.
                None => ("", None),
            },
        };
        if name == "--no-clock" {
            no_clock = true;
            continue;
        }
        if !name.starts_with("--") || name == "-" {
            if card_path.replace(arg.clone()).is_some() {
                return Err(UsageError(format!(
                    "unexpected argument {}: only one card per check",
                    shown(arg)
                )));
            }
            continue;
        }
        let mut value_os = || -> Result<OsString, UsageError> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| UsageError(format!("{name} needs a value")))
        };
        let mut value = || -> Result<String, UsageError> {
            value_os()?.into_string().map_err(|v| {
                UsageError(format!("{name}: the value {} is not UTF-8 text", shown(&v)))
            })
        };
        let with_flag = |e: InputError| UsageError(format!("{name}: {}", e.message));
        let repeatable = name == "--require";
        let known = matches!(
            name,
            "--require"
                | "--min-version"
                | "--max-stale"
                | "--pin"
                | "--watermark-ms"
                | "--lag-ms"
                | "--lag-s"
                | "--age-s"
                | "--synced-at"
                | "--consul-last-contact-ms"
                | "--consul-known-leader"
                | "--now"
                | "--requirement"
                | "--observation"
                | "--policy"
                | "--agent"
                | "--max-card-bytes"
        );
        if !known {
            return Err(UsageError(format!(
                "unknown option {}; see cardgate --help",
                shown(OsStr::new(name))
            )));
        }
        // Watermark figures and the clock are checked per figure (`ObservationSources::claim`).
        let per_figure = matches!(
            name,
            "--watermark-ms"
                | "--lag-ms"
                | "--lag-s"
                | "--age-s"
                | "--synced-at"
                | "--consul-last-contact-ms"
                | "--consul-known-leader"
                | "--now"
        );
        if !repeatable && !per_figure {
            if seen.contains(&name) {
                return Err(UsageError(format!("{name} is given twice: give it once")));
            }
            seen.push(name);
        }
        match name {
            "--require" => flags.add_capability(&value()?).map_err(with_flag)?,
            "--min-version" => flags.set_min_version(&value()?).map_err(with_flag)?,
            "--max-stale" => flags.set_max_stale_ms(
                cardgate::duration::parse_duration(&value()?).map_err(with_flag)?,
            ),
            "--pin" => flags.set_pin(&value()?).map_err(with_flag)?,
            "--watermark-ms" | "--lag-ms" => sources.set_flag("lag_ms", name, value()?)?,
            "--lag-s" => sources.set_flag("lag_s", name, value()?)?,
            "--age-s" => sources.set_flag("age_s", name, value()?)?,
            "--synced-at" => sources.set_flag("synced_at", name, value()?)?,
            "--consul-last-contact-ms" => {
                sources.set_flag("consul_last_contact_ms", name, value()?)?
            }
            "--consul-known-leader" => sources.set_flag("consul_known_leader", name, value()?)?,
            "--now" => {
                let now = Timestamp::parse_rfc3339(&value()?).map_err(with_flag)?;
                sources.claim("now", name)?;
                sources.observation.now = Some(now);
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
                sources.add_json(given)?;
            }
            "--policy" => policy_path = Some(value_os()?),
            "--agent" => agent = Some(value()?),
            "--max-card-bytes" => {
                let v = value()?;
                limits.max_card_bytes = v.parse().map_err(|_| {
                    UsageError(format!(
                        "--max-card-bytes: {v:?} is not a whole number of bytes"
                    ))
                })?;
            }
            _ => {}
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
            if path == "-" && card_path == "-" {
                return Err(UsageError(
                    "the card and --policy cannot both be read from stdin".into(),
                ));
            }
            let bytes = read_whole(&path, MAX_POLICY_BYTES, "policy")?;
            let name = path.to_string_lossy();
            let policy =
                Policy::from_json(&bytes).map_err(|e| UsageError(policy_error(&name, &e)))?;
            if let Some(id) = &agent {
                if !policy.has_agent(id) {
                    note(format_args!(
                        "note: policy {name} has no rule for agent {id:?}; using its defaults"
                    ));
                }
            }
            policy.requirement_for(agent.as_deref()).overlay(&flags)
        }
        None if agent.is_some() => return Err(UsageError("--agent needs --policy".into())),
        None => flags,
    };
    let mut observation = sources.observation;
    if observation.now.is_none() && !no_clock {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_err(|_| UsageError("the system clock is before 1970".into()))?;
        // Nanoseconds: truncating the clock would shorten a synced_at lag.
        observation.now = Some(Timestamp::from_unix_nanos(
            i128::try_from(now.as_nanos()).unwrap_or(i128::MAX),
        ));
    }
    let decision = match read_input(&card_path, limits.max_card_bytes)? {
        Input::Whole(card) => evaluate_with(&card, &requirement, &observation, &limits),
        Input::TooLarge {
            start,
            seen,
            complete,
        } => Decision::body_too_large(&start, seen, limits.max_card_bytes, complete),
    };
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
