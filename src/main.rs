//! `cardgate`: the gate for pipelines and operators.
//!
//! Exit status: 0 valid (or success), 1 rejected card, 2 usage or input error (one line on stderr).

// Without `resolve` the re-resolution imports are unused; nothing else changes.
#![cfg_attr(not(feature = "resolve"), allow(unused_imports))]

use cardgate::policy::MAX_POLICY_BYTES;
use cardgate::resolution::Outcome;
use cardgate::watermark_sources::{observe, ResponseFields};
use cardgate::{
    api, evaluate_with, Answer, Decision, InputError, Limits, Observation, Policy, Requirement,
    Resolution, ResolutionLimits, Step, Timestamp, WatermarkSources, WatermarkValue,
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
      --card-name NAME         the card's expected name, exactly: another agent's card (or one
                               from before a rename) fails (b) as card_name_mismatch
      --policy FILE --agent ID take the requirement from a policy; flags given here override
                               its members (--require adds to its capabilities); --agent is
                               needed once the policy has agent rules
      --watermark-ms N         replica lag in ms (or --lag-ms N)
      --lag-s N                replica lag in seconds
      --synced-at RFC3339      last successful sync        --age-s N        HTTP Age (added to the lag)
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
      --timeout DUR            each fetch's limit (default and at most: what is left of the deadline)
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
  cardgate hash CARD.json|-              print the card hash (sha256 over RFC 8785, without signatures)
  cardgate canonicalize FILE.json|-      write the RFC 8785 canonical form (no trailing newline; 16 MiB max)
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
        Some("resolve") => resolve(rest),
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

/// Which command an argument list is for: `check` takes one card and watermark flags,
/// `resolve` takes URLs (the watermark comes from each response) and the resolution's bounds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Command {
    Check,
    Resolve,
}

/// The options `check` and `resolve` share, parsed.
struct Parsed {
    /// Card file (check) or URLs (resolve), in order.
    positional: Vec<OsString>,
    flags: Requirement,
    base_requirement: Option<Requirement>,
    sources: ObservationSources,
    policy_path: Option<OsString>,
    agent: Option<String>,
    limits: Limits,
    no_clock: bool,
    max_attempts: Option<usize>,
    deadline_ms: Option<u64>,
    timeout_ms: Option<u64>,
    /// `--cacert FILE` (resolve): the PEM file whose certificates are the only trusted roots.
    cacert: Option<OsString>,
    /// `--cert FILE` and `--key FILE` (resolve): a client certificate (mutual TLS).
    cert: Option<OsString>,
    key: Option<OsString>,
    /// `--header "Name: value"` and `--header @FILE` (resolve), in order: names lowercase,
    /// values trimmed.
    headers: Vec<(String, String)>,
    /// `--header @-` was given: the headers came from stdin.
    headers_from_stdin: bool,
    /// `--help` among the options: print the usage and exit 0.
    help: bool,
}

fn parse_args(args: &[OsString], command: Command) -> Result<Parsed, UsageError> {
    let mut p = Parsed {
        positional: Vec::new(),
        flags: Requirement::default(),
        base_requirement: None,
        sources: ObservationSources::default(),
        policy_path: None,
        agent: None,
        limits: Limits::default(),
        no_clock: false,
        max_attempts: None,
        deadline_ms: None,
        timeout_ms: None,
        cacert: None,
        cert: None,
        key: None,
        headers: Vec::new(),
        headers_from_stdin: false,
        help: false,
    };
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
            if inline.is_some() {
                return Err(UsageError("--no-clock takes no value".into()));
            }
            if p.no_clock {
                return Err(UsageError("--no-clock is given twice: give it once".into()));
            }
            p.no_clock = true;
            continue;
        }
        // `cardgate check --help`: the usage, whatever else was given.
        if name == "--help" {
            p.help = true;
            return Ok(p);
        }
        if !name.starts_with("--") || name == "-" {
            if command == Command::Check && !p.positional.is_empty() {
                return Err(UsageError(format!(
                    "unexpected argument {}: only one card per check",
                    shown(arg)
                )));
            }
            p.positional.push(arg.clone());
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
        let repeatable = matches!(name, "--require" | "--header");
        // Watermark figures (and `--observation`): `check` only; `resolve` reads each response.
        let watermark = matches!(
            name,
            "--watermark-ms"
                | "--lag-ms"
                | "--lag-s"
                | "--age-s"
                | "--synced-at"
                | "--consul-last-contact-ms"
                | "--consul-known-leader"
                | "--observation"
        );
        // Options of the HTTP side: `resolve` only.
        let bounds = matches!(
            name,
            "--max-attempts"
                | "--deadline"
                | "--timeout"
                | "--cacert"
                | "--cert"
                | "--key"
                | "--header"
        );
        let known = watermark
            || bounds
            || matches!(
                name,
                "--require"
                    | "--min-version"
                    | "--max-stale"
                    | "--pin"
                    | "--card-name"
                    | "--now"
                    | "--requirement"
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
        if watermark && command == Command::Resolve {
            return Err(UsageError(format!(
                "{name} does not apply to resolve: each source's watermark comes from its \
                 response headers (x-replica-lag-ms, x-replica-lag-s, x-replica-synced-at, \
                 X-Consul-LastContact and X-Consul-KnownLeader, Age)"
            )));
        }
        if bounds && command == Command::Check {
            return Err(UsageError(format!(
                "{name} applies to resolve only; see cardgate --help"
            )));
        }
        // Watermark figures and the clock are checked per figure (`ObservationSources::claim`).
        let per_figure = (watermark && name != "--observation") || name == "--now";
        if !repeatable && !per_figure {
            if seen.contains(&name) {
                return Err(UsageError(format!("{name} is given twice: give it once")));
            }
            seen.push(name);
        }
        let sources = &mut p.sources;
        match name {
            "--require" => p.flags.add_capability(&value()?).map_err(with_flag)?,
            "--min-version" => p.flags.set_min_version(&value()?).map_err(with_flag)?,
            "--max-stale" => p.flags.set_max_stale_ms(
                cardgate::duration::parse_duration(&value()?).map_err(with_flag)?,
            ),
            "--pin" => p.flags.set_pin(&value()?).map_err(with_flag)?,
            "--card-name" => p.flags.set_card_name(&value()?).map_err(with_flag)?,
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
                p.base_requirement = Some(
                    Requirement::from_json(&value()?)
                        .map_err(|e| UsageError(format!("--requirement: {e}")))?,
                )
            }
            "--observation" => {
                let given = Observation::from_json(&value()?)
                    .map_err(|e| UsageError(format!("--observation: {e}")))?;
                sources.add_json(given)?;
            }
            "--policy" => p.policy_path = Some(value_os()?),
            "--agent" => {
                let id = value()?;
                if id.is_empty() {
                    return Err(UsageError(
                        "--agent: an agent id is never empty (policies refuse one)".into(),
                    ));
                }
                p.agent = Some(id);
            }
            "--max-card-bytes" => {
                let v = value()?;
                p.limits.max_card_bytes = Some(&v)
                    .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| {
                        UsageError(format!(
                            "--max-card-bytes: {v:?} is not a whole number of bytes"
                        ))
                    })?;
            }
            "--max-attempts" => {
                let v = value()?;
                p.max_attempts = Some(v.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                    UsageError(format!(
                        "--max-attempts: {v:?} is not a whole number of at least 1"
                    ))
                })?);
            }
            "--cacert" => p.cacert = Some(value_os()?),
            "--cert" => p.cert = Some(value_os()?),
            "--key" => p.key = Some(value_os()?),
            "--header" => {
                let v = value()?;
                match v.strip_prefix('@') {
                    Some(path) => {
                        if path == "-" {
                            if p.headers_from_stdin {
                                return Err(UsageError("--header @- is given twice".into()));
                            }
                            p.headers_from_stdin = true;
                        }
                        p.headers.extend(header_file(path)?);
                    }
                    None => p.headers.push(request_header(&v, "--header")?),
                }
            }
            "--deadline" | "--timeout" => {
                let ms = cardgate::duration::parse_duration(&value()?).map_err(with_flag)?;
                if ms == 0 {
                    return Err(UsageError(format!("{name}: must be more than 0 ms")));
                }
                if name == "--deadline" {
                    p.deadline_ms = Some(ms);
                } else {
                    p.timeout_ms = Some(ms);
                }
            }
            _ => {}
        }
    }
    if p.headers_from_stdin && p.policy_path.as_deref() == Some(OsStr::new("-")) {
        return Err(UsageError(
            "--header @- and --policy - cannot both be read from stdin".into(),
        ));
    }
    Ok(p)
}

/// Largest file `--header @FILE` reads.
const MAX_HEADER_FILE_BYTES: usize = 64 << 10;

/// `--header @FILE` (`@-`: stdin): a header per line, each as `--header` takes it, as curl's
/// `-H @file` reads one, so that a credential stays off the command line (which `ps` and a
/// shell's history show). Lines end in LF or CR LF; blank lines are skipped. A line that is no
/// header is refused by its number, its text never shown; so is a file without a header.
fn header_file(path: &str) -> Result<Vec<(String, String)>, UsageError> {
    let bytes = read_whole(OsStr::new(path), MAX_HEADER_FILE_BYTES, "the header file")?;
    let text = std::str::from_utf8(&bytes).map_err(|_| {
        UsageError(format!(
            "--header @{path}: not UTF-8 text (a header value is ASCII)"
        ))
    })?;
    // A byte order mark (an editor's, on Windows) is not part of the first name.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut headers = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        headers.push(request_header(
            line,
            &format!("--header @{path}, line {}", i + 1),
        )?);
    }
    if headers.is_empty() {
        return Err(UsageError(format!(
            "--header @{path}: holds no header (\"Name: value\" per line)"
        )));
    }
    Ok(headers)
}

/// Header fields the HTTP client writes itself (framing and connection management): a
/// `--header` may not set them.
const CLIENT_HEADERS: [&str; 7] = [
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "te",
    "upgrade",
    "expect",
];

/// One `--header "Name: value"`: the name an RFC 9110 token (kept lowercase), the value with its
/// surrounding spaces and tabs trimmed and otherwise visible ASCII, spaces or tabs (no line
/// break can smuggle a second field in). A name the client writes itself ([`CLIENT_HEADERS`])
/// is refused; `accept`, `a2a-version` and `accept-encoding` replace the ones `resolve` sends.
/// `source` begins each message: the option, or the header file and line.
fn request_header(text: &str, source: &str) -> Result<(String, String), UsageError> {
    // The argument may hold a credential: messages name the header, never echo its value.
    let Some((name, value)) = text.split_once(':') else {
        return Err(UsageError(format!(
            "{source}: write it as \"Name: value\" (this one has no colon; not shown, as it \
             may hold a credential)"
        )));
    };
    if !cardgate::resolution::is_header_name(name) {
        return Err(UsageError(format!(
            "{source}: the name {name:?} is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~; \
             nothing before the colon but the name)"
        )));
    }
    let name = name.to_ascii_lowercase();
    if CLIENT_HEADERS.contains(&name.as_str()) {
        return Err(UsageError(format!(
            "{source} {name}: the HTTP client writes this header itself"
        )));
    }
    let value = value.trim_matches([' ', '\t']);
    if !value
        .bytes()
        .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
    {
        return Err(UsageError(format!(
            "{source} {name}: the value may hold visible ASCII, spaces and tabs only (no line \
             break, no control or non-ASCII character; the value is not shown)"
        )));
    }
    Ok((name, value.to_owned()))
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

/// `cardgate resolve URL [URL ...]`: asks each source in order and lets the core's
/// re-resolution rule decide (DESIGN.md "Re-resolution").
#[cfg(feature = "resolve")]
fn resolve(args: &[OsString]) -> Result<u8, UsageError> {
    let p = parse_args(args, Command::Resolve)?;
    if p.help {
        write_stdout(USAGE.as_bytes())?;
        return Ok(0);
    }
    if p.positional.is_empty() {
        return Err(UsageError(
            "resolve needs at least one URL; see cardgate --help".into(),
        ));
    }
    let urls = p
        .positional
        .iter()
        .map(|u| fetch::check_url(u))
        .collect::<Result<Vec<String>, String>>()
        .map_err(UsageError)?;
    let requirement = requirement_of(&p, false)?;
    // Read once, before any request: a bad file is bad input (exit 2), never a silent fallback.
    let tls = fetch::tls_config(p.cacert.as_deref(), p.cert.as_deref(), p.key.as_deref())
        .map_err(UsageError)?;
    let proxies = fetch::Proxies::from_env(|name| std::env::var_os(name)).map_err(UsageError)?;
    let defaults = ResolutionLimits::default();
    let limits = ResolutionLimits {
        max_attempts: p.max_attempts.unwrap_or(defaults.max_attempts),
        deadline_ms: p.deadline_ms.unwrap_or(defaults.deadline_ms),
    };
    let fixed_now = p.sources.observation.now;
    let card_limits = p.limits;
    let started = std::time::Instant::now();
    let elapsed = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut resolution = Resolution::new(limits, 0);
    let mut step = Step::TryNext;
    for url in &urls {
        if step != Step::TryNext {
            break;
        }
        let remaining = resolution.remaining_ms(elapsed());
        if remaining == 0 {
            resolution.stop(Outcome::DeadlinePassed);
            step = Step::Stop;
            break;
        }
        let timeout_ms = p.timeout_ms.map_or(remaining, |t| t.min(remaining));
        let asked_at = elapsed();
        let mut timed_out = false;
        let final_url;
        let answer = match fetch::get(
            url,
            timeout_ms,
            card_limits.max_card_bytes,
            tls.as_ref(),
            &proxies,
            &p.headers,
        ) {
            Err(failure) => {
                timed_out = failure.timed_out;
                final_url = failure.final_url;
                Answer::Failed(failure.reason)
            }
            Ok(fetched) => {
                final_url = fetched.final_url.clone();
                let now = match fixed_now {
                    Some(now) => now,
                    None => system_now()?,
                };
                let header = |name: &str| fetched.header(name);
                // The CLI's HTTP client hands over no trailers, as a caller's does not.
                let mut observation = observe(
                    &WatermarkSources::conventional(),
                    None,
                    None,
                    ResponseFields::headers(&header),
                    now,
                );
                if p.no_clock && fixed_now.is_none() {
                    observation.now = None;
                }
                Answer::Card(Box::new(match fetched.body {
                    fetch::Body::Whole(card) => {
                        evaluate_with(&card, &requirement, &observation, &card_limits)
                    }
                    fetch::Body::TooLarge {
                        start,
                        seen,
                        complete,
                    } => {
                        Decision::body_too_large(&start, seen, card_limits.max_card_bytes, complete)
                    }
                    fetch::Body::Encoded(decision) => *decision,
                }))
            }
        };
        // A fetch that timed out took its whole timeout: when that was what was left of the
        // deadline, the deadline has passed, even if the clock (whole milliseconds, a timer
        // that may fire a little early) reads a moment before it.
        let now = if timed_out {
            elapsed().max(asked_at.saturating_add(timeout_ms))
        } else {
            elapsed()
        };
        step = resolution.record_from(url, final_url.as_deref(), answer, now);
    }
    if step == Step::TryNext {
        resolution.stop(Outcome::SourcesExhausted);
    }
    report(&resolution.finish())
}

/// The HTTP side of `resolve`: one bounded GET per source (native builds only).
#[cfg(feature = "resolve")]
mod fetch {
    use cardgate::resolution;
    use std::ffi::{OsStr, OsString};
    use std::io::Read;
    use std::time::Duration;
    use ureq::tls::{Certificate, ClientCert, PemItem, PrivateKey, RootCerts, TlsConfig};

    /// What every request of `resolve` says, unless a `--header` of that name replaces it.
    const DEFAULT_HEADERS: [(&str, &str); 3] = [
        ("accept", "application/json"),
        ("a2a-version", "1.0"),
        ("accept-encoding", "identity"),
    ];

    /// Request headers not sent on when a redirect leaves the origin they were given for: the
    /// ones the Fetch standard drops (`Authorization`) and undici with it, as the npm package
    /// drops them from `options.headers`.
    const CROSS_ORIGIN_DROPPED: [&str; 3] = ["authorization", "cookie", "proxy-authorization"];

    /// The origin of an http(s) URL: scheme, host and port (the scheme's default when none is
    /// written), lowercase. `None` when it is not such a URL (never the same origin).
    fn origin(url: &str) -> Option<(String, String, u16)> {
        let uri: ureq::http::Uri = url.parse().ok()?;
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        let host = uri.host()?.to_ascii_lowercase();
        let port = uri
            .port_u16()
            .unwrap_or(if scheme == "https" { 443 } else { 80 });
        Some((scheme, host, port))
    }

    /// The proxies `resolve` goes through, read from the environment once, before any request,
    /// the way curl and httpx (a2a-sdk's HTTP client) read it. ureq's own reading is switched off:
    /// it takes the first of `ALL_PROXY`, `HTTPS_PROXY` and `HTTP_PROXY` that is set for every
    /// URL whatever its scheme (an `HTTPS_PROXY` carried plain `http://` requests too), and its
    /// `NO_PROXY` name `example.com` does not cover `registry.example.com`. Hand-written for
    /// those two rules; ureq still makes the CONNECT tunnel.
    pub struct Proxies {
        http: Option<ureq::Proxy>,
        https: Option<ureq::Proxy>,
        bypass: Vec<Bypass>,
    }

    /// One `NO_PROXY` entry.
    #[derive(Debug, PartialEq)]
    enum Bypass {
        /// `*`: every host.
        All,
        /// A host name and its subdomains (lowercase, without a leading `.`).
        Name(String),
        /// An address, or a range of them (`10.0.0.0/8`): the first `bits` bits of `net`.
        Net(std::net::IpAddr, u8),
    }

    impl Proxies {
        /// - an `https://` URL goes through `https_proxy` (else `HTTPS_PROXY`), an `http://` one
        ///   through `http_proxy` (else `HTTP_PROXY`), and either through `all_proxy` (else
        ///   `ALL_PROXY`) when its own is not set; an empty value is not set;
        /// - `no_proxy` (else `NO_PROXY`), comma-separated: `*` is every host; an IP address is
        ///   that address and `ADDRESS/BITS` the addresses in that range; any other entry is a
        ///   host name and its subdomains (a leading `.` or `*.` and a final `.` ignored, ASCII
        ///   case ignored). Ports are not read: an entry with one matches no host.
        ///
        /// A proxy value that is no http(s) proxy URL (not a URL, `socks5://`: this build has no
        /// SOCKS) or a value that is not UTF-8 is bad input, never a direct connection the user
        /// did not ask for. The message names the variable, not its value (it may hold a
        /// password).
        pub fn from_env(var: impl Fn(&str) -> Option<OsString>) -> Result<Proxies, String> {
            let value = |names: [&'static str; 2]| -> Result<Option<(&str, String)>, String> {
                for name in names {
                    if let Some(raw) = var(name).filter(|v| !v.is_empty()) {
                        let text = raw
                            .into_string()
                            .map_err(|_| format!("the environment's {name} is not UTF-8 text"))?;
                        return Ok(Some((name, text)));
                    }
                }
                Ok(None)
            };
            let proxy = |found: Option<(&str, String)>| -> Result<Option<ureq::Proxy>, String> {
                let Some((name, url)) = found else {
                    return Ok(None);
                };
                let proxy = ureq::Proxy::new(url.trim()).ok().filter(|p| {
                    matches!(
                        p.protocol(),
                        ureq::ProxyProtocol::Http | ureq::ProxyProtocol::Https
                    )
                });
                proxy.map(Some).ok_or_else(|| {
                    format!(
                        "the environment's {name} is not an http:// or https:// proxy URL (its \
                         value is not shown: it may hold a password)"
                    )
                })
            };
            let all = value(["all_proxy", "ALL_PROXY"])?;
            let http = value(["http_proxy", "HTTP_PROXY"])?.or_else(|| all.clone());
            let https = value(["https_proxy", "HTTPS_PROXY"])?.or(all);
            let bypass = value(["no_proxy", "NO_PROXY"])?
                .map(|(_, list)| list.split(',').filter_map(Bypass::parse).collect())
                .unwrap_or_default();
            Ok(Proxies {
                http: proxy(http)?,
                https: proxy(https)?,
                bypass,
            })
        }

        /// The proxy for a request to `url`, or `None` to connect directly.
        pub fn for_url(&self, url: &str) -> Option<ureq::Proxy> {
            let (scheme, host, _) = origin(url)?;
            let proxy = match scheme.as_str() {
                "https" => self.https.as_ref(),
                _ => self.http.as_ref(),
            }?;
            let host = host
                .strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .unwrap_or(&host);
            let bypassed = self.bypass.iter().any(|entry| entry.covers(host));
            (!bypassed).then(|| proxy.clone())
        }
    }

    impl Bypass {
        fn parse(entry: &str) -> Option<Bypass> {
            let entry = entry.trim();
            if entry == "*" {
                return Some(Bypass::All);
            }
            let bare = |s: &str| {
                s.strip_prefix('[')
                    .and_then(|s| s.strip_suffix(']'))
                    .unwrap_or(s)
                    .to_owned()
            };
            if let Some((net, bits)) = entry.split_once('/') {
                let net: std::net::IpAddr = bare(net).parse().ok()?;
                let bits: u8 = bits.parse().ok()?;
                let max = if net.is_ipv4() { 32 } else { 128 };
                return (bits <= max).then_some(Bypass::Net(net, bits));
            }
            if let Ok(address) = bare(entry).parse::<std::net::IpAddr>() {
                let bits = if address.is_ipv4() { 32 } else { 128 };
                return Some(Bypass::Net(address, bits));
            }
            let name = entry.strip_prefix('*').unwrap_or(entry);
            let name = name.strip_prefix('.').unwrap_or(name);
            let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
            (!name.is_empty()).then_some(Bypass::Name(name))
        }

        /// Whether this entry covers `host` (a name, or an address without brackets).
        fn covers(&self, host: &str) -> bool {
            match self {
                Bypass::All => true,
                Bypass::Name(name) => {
                    let host = host.to_ascii_lowercase();
                    let host = host.strip_suffix('.').unwrap_or(&host);
                    host == name
                        || host
                            .strip_suffix(name.as_str())
                            .is_some_and(|rest| rest.ends_with('.'))
                }
                Bypass::Net(net, bits) => {
                    let Ok(address) = host.parse::<std::net::IpAddr>() else {
                        return false;
                    };
                    let prefix = |a: &std::net::IpAddr| -> u128 {
                        let (value, width) = match a {
                            std::net::IpAddr::V4(v4) => (u128::from(u32::from(*v4)), 32),
                            std::net::IpAddr::V6(v6) => (u128::from(*v6), 128),
                        };
                        // The bits past the prefix shifted out (all of them for `/0`).
                        value
                            .checked_shr(width - u32::from(*bits).min(width))
                            .unwrap_or(0)
                    };
                    net.is_ipv4() == address.is_ipv4() && prefix(net) == prefix(&address)
                }
            }
        }
    }

    /// The TLS settings `--cacert`, `--cert` and `--key` ask for, read once before any
    /// request, or `None` without them (the built-in roots, no client certificate).
    /// - `--cacert FILE`: its certificates are the only trusted roots (curl's `--cacert`: they
    ///   replace the built-in ones);
    /// - `--cert FILE`: a client certificate for servers that ask for one (mutual TLS), the
    ///   chain leaf first, with its private key from `--key FILE` or, without `--key`, from the
    ///   `--cert` file itself.
    ///
    /// Refused (bad input): a file that cannot be read, a PEM block that does not parse, a
    /// `--cacert` or `--cert` without a certificate, no private key where one is needed, and
    /// `--key` without `--cert`: none may fall back silently to other settings.
    pub fn tls_config(
        cacert: Option<&OsStr>,
        cert: Option<&OsStr>,
        key: Option<&OsStr>,
    ) -> Result<Option<TlsConfig>, String> {
        if cacert.is_none() && cert.is_none() && key.is_none() {
            return Ok(None);
        }
        let mut builder = TlsConfig::builder();
        if let Some(path) = cacert {
            let (roots, _) = pem_file("--cacert", path)?;
            if roots.is_empty() {
                return Err(no_certificate("--cacert", path));
            }
            builder = builder.root_certs(RootCerts::new_with_certs(&roots));
        }
        match (cert, key) {
            (None, Some(_)) => {
                return Err("--key needs --cert (the certificate the key belongs to)".into())
            }
            (Some(cert), key) => {
                let (chain, key_beside) = pem_file("--cert", cert)?;
                if chain.is_empty() {
                    return Err(no_certificate("--cert", cert));
                }
                let key = match key {
                    Some(path) => pem_file("--key", path)?.1.ok_or_else(|| {
                        format!(
                            "--key: {} holds no PEM private key",
                            std::path::Path::new(path).display()
                        )
                    })?,
                    None => key_beside.ok_or_else(|| {
                        format!(
                            "--cert: {} holds no private key; give it with --key FILE",
                            std::path::Path::new(cert).display()
                        )
                    })?,
                };
                builder = builder.client_cert(Some(ClientCert::new_with_certs(&chain, key)));
            }
            (None, None) => {}
        }
        Ok(Some(builder.build()))
    }

    fn no_certificate(flag: &str, path: &OsStr) -> String {
        format!(
            "{flag}: {} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
            std::path::Path::new(path).display()
        )
    }

    /// The certificates of a PEM file, in order, and its first private key.
    fn pem_file(
        flag: &str,
        path: &OsStr,
    ) -> Result<(Vec<Certificate<'static>>, Option<PrivateKey<'static>>), String> {
        let shown = std::path::Path::new(path).display();
        let pem = std::fs::read(path).map_err(|e| format!("{flag}: cannot read {shown}: {e}"))?;
        let (mut certs, mut key) = (Vec::new(), None);
        for item in ureq::tls::parse_pem(&pem) {
            match item {
                Ok(PemItem::Certificate(cert)) => certs.push(cert),
                Ok(PemItem::PrivateKey(found)) => {
                    key.get_or_insert(found);
                }
                Ok(_) => {}
                Err(e) => return Err(format!("{flag}: {shown}: {e}")),
            }
        }
        Ok((certs, key))
    }

    /// What a source's 2xx answer carried.
    pub enum Body {
        /// The whole body, at most the limit.
        Whole(Vec<u8>),
        /// More than the limit: the first `limit + 1` bytes and the size seen (`complete`: exact,
        /// from an identity `Content-Length`; otherwise "at least").
        TooLarge {
            start: Vec<u8>,
            seen: usize,
            complete: bool,
        },
        /// A `Content-Encoding` other than identity: the body was not read; its `body_encoded`
        /// decision.
        Encoded(Box<cardgate::Decision>),
    }

    /// Why a source gave no answer to judge, and whether it ran out of time (a fetch that
    /// timed out took its whole timeout, however early the clock read afterwards says it ended).
    pub struct Failure {
        pub reason: String,
        pub timed_out: bool,
        /// The URL that answered (an error status) after redirects.
        pub final_url: Option<String>,
    }

    impl From<String> for Failure {
        fn from(reason: String) -> Failure {
            Failure {
                reason,
                timed_out: false,
                final_url: None,
            }
        }
    }

    /// A source's answer: its headers (lowercase names) and body.
    pub struct Fetched {
        headers: Vec<(String, Vec<u8>)>,
        pub body: Body,
        /// The URL that answered, when redirects led elsewhere.
        pub final_url: Option<String>,
    }

    impl Fetched {
        /// Every value of a response header (lowercase name), as bytes.
        pub fn header(&self, name: &str) -> Vec<Vec<u8>> {
            self.headers
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
                .collect()
        }
    }

    /// An absolute `http`/`https` URL with a host, as text; anything else is a usage error.
    pub fn check_url(arg: &std::ffi::OsStr) -> Result<String, String> {
        let shown = format!("{:?}", arg.to_string_lossy());
        let text = arg
            .to_str()
            .ok_or_else(|| format!("the URL {shown} is not UTF-8 text"))?;
        let uri: ureq::http::Uri = text
            .parse()
            .map_err(|e| format!("{shown} is not a URL: {e}"))?;
        match uri.scheme_str() {
            Some("http" | "https") => {}
            _ => return Err(format!("{shown} is not an http:// or https:// URL")),
        }
        if uri.host().is_none_or(str::is_empty) {
            return Err(format!("{shown} has no host"));
        }
        // User information (`user:password@`): resolve sends no credentials, and every attempt
        // and message would print them. Refused, as fetch() refuses such a URL in the npm
        // package, and named by its host alone.
        if let Some(authority) = uri.authority().filter(|a| a.as_str().contains('@')) {
            let host = authority.as_str().rsplit('@').next().unwrap_or_default();
            return Err(format!(
                "the URL for {host:?} carries user information (`user:password@`): resolve sends \
                 no credentials and would print them in the decision; give the URL without them"
            ));
        }
        Ok(text.to_owned())
    }

    /// The core's text for ureq's refusal to follow a redirect of the source `url`: past the
    /// bound (`TooManyRedirects`), or to a non-https URL from an https source
    /// (`RequireHttpsOnly(<to>)`, raised before connecting to `<to>`); `None` for other errors.
    pub fn redirect_failure(url: &str, e: &ureq::Error) -> Option<String> {
        match e {
            ureq::Error::TooManyRedirects => Some(resolution::too_many_redirects(url)),
            ureq::Error::RequireHttpsOnly(to) => Some(
                resolution::redirect_refusal(url, to, 0)
                    .unwrap_or_else(|| format!("{url} redirected to {to}, which is not https")),
            ),
            _ => None,
        }
    }

    /// `location` (a redirect's `Location`) resolved against `base`, the absolute http(s) URL that
    /// answered, as fetch resolves it for an http(s) URL (the WHATWG URL reference resolution, in
    /// the part a redirect uses): leading and trailing spaces and controls dropped, tabs and
    /// newlines removed, the fragment dropped (it is never sent); a URL with a scheme as it is;
    /// `//host/...` with the base's scheme; otherwise the path, with `\` read as `/` before the
    /// query, resolved against the base's and its `.` and `..` segments (`%2e` for a dot)
    /// removed; an empty reference, or one of a query alone, keeps the base's path. `None` when
    /// the result is not an http(s) URL with a host, or carries user information (fetch refuses
    /// to request such a URL).
    pub fn join(base: &str, location: &str) -> Option<String> {
        let cleaned: String = location
            .trim_matches(|c: char| c <= ' ')
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .collect();
        let location = cleaned.split('#').next().unwrap_or_default();
        let base_uri: ureq::http::Uri = base.parse().ok()?;
        let scheme = base_uri.scheme_str()?;
        let authority = base_uri.authority()?.as_str();
        let has_scheme = location.find(':').is_some_and(|i| {
            let name = &location[..i];
            name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        });
        let joined = if has_scheme {
            location.to_owned()
        } else {
            let (reference, query) = location
                .find('?')
                .map_or((location, ""), |i| location.split_at(i));
            let reference = reference.replace('\\', "/");
            if reference.starts_with("//") {
                format!("{scheme}:{reference}{query}")
            } else {
                let base_path = base_uri.path();
                let path = if reference.is_empty() {
                    base_path.to_owned()
                } else if reference.starts_with('/') {
                    reference
                } else {
                    let dir = base_path.rfind('/').map_or("/", |i| &base_path[..=i]);
                    format!("{dir}{reference}")
                };
                let query = match (location.is_empty(), base_uri.query()) {
                    (true, Some(q)) => format!("?{q}"),
                    _ => query.to_owned(),
                };
                format!(
                    "{scheme}://{authority}{}{query}",
                    without_dot_segments(&path)
                )
            }
        };
        let uri: ureq::http::Uri = percent_encoded(&joined).parse().ok()?;
        let scheme = uri.scheme_str()?;
        let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
        // User information (`user:password@`): fetch refuses to request such a URL, and ureq
        // would send it as credentials.
        let userinfo = uri.authority().is_some_and(|a| a.as_str().contains('@'));
        if !web || userinfo || uri.host().is_none_or(str::is_empty) {
            return None;
        }
        let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
        Some(format!(
            "{}://{}{}{query}",
            scheme.to_ascii_lowercase(),
            uri.authority()?.as_str(),
            without_dot_segments(uri.path())
        ))
    }

    /// `url` as fetch sends it: [`join`] of the URL with itself (dot segments removed, the bytes
    /// fetch percent-encodes encoded), or `url` when that gives no URL.
    pub fn as_fetch_sends(url: &str) -> String {
        join(url, url).unwrap_or_else(|| url.to_owned())
    }

    /// `url` with the bytes the WHATWG URL parser percent-encodes (Node 20): in the path
    /// (before the first `?`) controls, space, `"`, `<`, `>`, `` ` ``, `{`, `}` and every
    /// non-ASCII byte; in the query the same but `` ` ``, `{`, `}`, and `'` as well.
    fn percent_encoded(url: &str) -> String {
        let mut out = String::with_capacity(url.len());
        let mut in_query = false;
        for c in url.chars() {
            in_query |= c == '?';
            let mut bytes = [0u8; 4];
            for &b in c.encode_utf8(&mut bytes).as_bytes() {
                let encode = b <= 0x20
                    || b >= 0x7f
                    || matches!(b, b'"' | b'<' | b'>')
                    || if in_query {
                        b == b'\''
                    } else {
                        matches!(b, b'`' | b'{' | b'}')
                    };
                if encode {
                    out.push_str(&format!("%{b:02X}"));
                } else {
                    out.push(char::from(b));
                }
            }
        }
        out
    }

    /// A path without its `.` and `..` segments (RFC 3986 section 5.2.4; `%2e` in any case is a
    /// dot, as in the WHATWG URL parser).
    fn without_dot_segments(path: &str) -> String {
        let dot = |s: &str| s == "." || s.eq_ignore_ascii_case("%2e");
        let dots = |s: &str| {
            matches!(
                s.to_ascii_lowercase().as_str(),
                ".." | ".%2e" | "%2e." | "%2e%2e"
            )
        };
        let mut out: Vec<&str> = Vec::new();
        let segments: Vec<&str> = path.split('/').skip(1).collect();
        let last = segments.len().saturating_sub(1);
        for (i, segment) in segments.iter().enumerate() {
            if dots(segment) {
                out.pop();
                if i == last {
                    out.push("");
                }
            } else if dot(segment) {
                if i == last {
                    out.push("");
                }
            } else {
                out.push(segment);
            }
        }
        format!("/{}", out.join("/"))
    }

    /// GETs `url` within `timeout_ms` (connection, headers and body), reading at most
    /// `limit + 1` bytes. A transport failure, a non-2xx status or a 2xx without a whole card
    /// (204, 205, 206: `resolution::status_without_card`) is `Err` with the reason the
    /// resolution records.
    ///
    /// Redirects (DESIGN.md "Redirects") are followed here, one request per hop: only the
    /// statuses fetch follows (`resolution::follows_redirect`; any other 3xx is a non-2xx
    /// answer), the `Location` resolved against the URL that answered ([`join`]), and the core's
    /// `redirect_refusal` asked before each hop (at most `resolution::MAX_REDIRECTS`; from an
    /// https source never to anything but https), so a downgraded request is never sent. ureq's
    /// `https_only` stays on for an https source as a second guard.
    ///
    /// `tls` ([`tls_config`]): the trusted roots and a client certificate; without it, the
    /// Mozilla roots built into the binary (`webpki-roots`) and none. `proxies`: each hop's
    /// proxy ([`Proxies::for_url`]). `extra`: the `--header`s.
    pub fn get(
        url: &str,
        timeout_ms: u64,
        limit: usize,
        tls: Option<&TlsConfig>,
        proxies: &Proxies,
        extra: &[(String, String)],
    ) -> Result<Fetched, Failure> {
        let https = resolution::is_https(url);
        let mut config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .https_only(https)
            // Redirects are followed below, one request per hop, as the npm package does.
            .max_redirects(0)
            .max_redirects_will_error(false)
            // Each request's proxy is chosen below ([`Proxies`]), not from ureq's reading.
            .proxy(None)
            .user_agent(concat!("cardgate/", env!("CARGO_PKG_VERSION")));
        if let Some(tls) = tls {
            config = config.tls_config(tls.clone());
        }
        let agent: ureq::Agent = config.build().into();
        let started = std::time::Instant::now();
        let timed_out = |what: &str| Failure {
            reason: format!("timeout after {timeout_ms} ms{what}"),
            timed_out: true,
            final_url: None,
        };
        let failed = |e: ureq::Error| match e {
            ureq::Error::Timeout(_) => timed_out(""),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => timed_out(""),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                Failure::from("connection refused".to_owned())
            }
            other => {
                Failure::from(redirect_failure(url, &other).unwrap_or_else(|| other.to_string()))
            }
        };
        // The request goes where fetch (and httpx) would send it: `/a/../card` is `/card`, a
        // non-ASCII byte percent-encoded; ureq sends the path as written.
        let first = as_fetch_sends(url);
        let mut current = first.clone();
        let mut hop_headers: Vec<(String, String)> = extra.to_vec();
        let mut followed = 0;
        let response = loop {
            // One timeout for the whole chain and the body.
            let spent = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            let left = timeout_ms.saturating_sub(spent);
            if left == 0 {
                return Err(timed_out(""));
            }
            let mut request = agent
                .get(&current)
                .config()
                .timeout_global(Some(Duration::from_millis(left)))
                .proxy(proxies.for_url(&current))
                .build();
            // The gate judges the exact bytes served: ask for them unencoded. A `--header` of
            // the same name replaces a default (an encoded answer is then `body_encoded`).
            for (name, value) in DEFAULT_HEADERS {
                if !hop_headers.iter().any(|(n, _)| n == name) {
                    request = request.header(name, value);
                }
            }
            for (name, value) in &hop_headers {
                request = request.header(name.as_str(), value.as_str());
            }
            let response = request.call().map_err(&failed)?;
            let status = response.status().as_u16();
            if !resolution::follows_redirect(status) {
                break response;
            }
            let answered = (current != first).then(|| current.clone());
            let location = response
                .headers()
                .get("location")
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            let Some(to) = location.as_deref().and_then(|l| join(&current, l)) else {
                let why = match &location {
                    None => "without a Location header".to_owned(),
                    Some(l) => format!("with a Location that is not a URL: {l:?}"),
                };
                return Err(Failure {
                    reason: format!("{current} answered {status} {why}"),
                    timed_out: false,
                    final_url: answered,
                });
            };
            if let Some(why) = resolution::redirect_refusal(url, &to, followed) {
                return Err(Failure::from(why));
            }
            // Credentials stay with the origin they were given for (as fetch drops them).
            if origin(&to).is_none_or(|o| Some(o) != origin(&current)) {
                hop_headers.retain(|(name, _)| !CROSS_ORIGIN_DROPPED.contains(&name.as_str()));
            }
            current = to;
            followed += 1;
        };
        let final_url = (current != first).then(|| current.clone());
        let fail = |reason: String| Failure {
            reason,
            timed_out: false,
            final_url: final_url.clone(),
        };
        let status = response.status();
        if !status.is_success() {
            return Err(fail(match status.canonical_reason() {
                Some(reason) => format!("HTTP {} {reason}", status.as_u16()),
                None => format!("HTTP {}", status.as_u16()),
            }));
        }
        // A 204 or 205 has no content (fetch reads no body, whatever follows the headers) and a
        // 206 part of a card: a failed source, as in the npm package (the core's rule) and the
        // Envoy filter.
        if let Some(why) = resolution::status_without_card(status.as_u16()) {
            return Err(fail(why.to_owned()));
        }
        let headers: Vec<(String, Vec<u8>)> = response
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str().to_ascii_lowercase(), v.as_bytes().to_vec()))
            .collect();
        let single = |name: &str| {
            let mut values = headers.iter().filter(|(n, _)| n == name);
            match (values.next(), values.next()) {
                (Some((_, v)), None) => Some(String::from_utf8_lossy(v).trim().to_owned()),
                (None, _) => None,
                (Some(_), Some(_)) => Some(String::new()),
            }
        };
        // Both framings (RFC 9112 section 6.3: "ought to be handled as an error"): the filter
        // (Envoy) and the npm package (undici) refuse such an answer; a client that honours the
        // length would read other bytes than the chunks the gate would check.
        let has = |name: &str| headers.iter().any(|(n, _)| n == name);
        if has("transfer-encoding") && has("content-length") {
            return Err(fail(
                "the answer has both Transfer-Encoding and Content-Length (ambiguous framing)"
                    .to_owned(),
            ));
        }
        // A Transfer-Encoding other than one header saying `chunked` (any ASCII case): ureq
        // reads some of them (`chunked, identity` de-chunked, `identity` to the close, two
        // headers), httpx (h11: "Only Transfer-Encoding: chunked is supported") reads none,
        // and undici reads `chunked, identity` to the close, chunk sizes and all. The card
        // a2a-sdk would read is no card: a failed source.
        let values_of = |name: &str| -> Vec<&[u8]> {
            headers
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, v)| v.as_slice())
                .collect()
        };
        let transfer_codings = values_of("transfer-encoding");
        if let [first, ..] = transfer_codings.as_slice() {
            if transfer_codings.len() > 1 || !first.trim_ascii().eq_ignore_ascii_case(b"chunked") {
                let shown: Vec<String> = transfer_codings
                    .iter()
                    .map(|v| format!("{:?}", String::from_utf8_lossy(v)))
                    .collect();
                return Err(fail(format!(
                    "the answer's Transfer-Encoding is {} where only one `chunked` frames a \
                     body every caller reads alike (httpx reads no other)",
                    shown.join(" and ")
                )));
            }
        }
        // Every value of every `Content-Encoding` header counts; an empty one lists no coding
        // (`Decision::content_encoding`, the Envoy filter's rule).
        let codings = values_of("content-encoding");
        if let Some(decision) = cardgate::Decision::content_encoding(&codings) {
            return Ok(Fetched {
                body: Body::Encoded(Box::new(decision)),
                headers,
                final_url,
            });
        }
        let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
        let mut bytes = Vec::new();
        response
            .into_body()
            .into_reader()
            .take(cap)
            .read_to_end(&mut bytes)
            .map_err(|e| {
                // ureq's body reader reports its timeout as an io error wrapping
                // `ureq::Error::Timeout` (kind `Other`), not as `TimedOut`.
                let ureq_timeout = e
                    .get_ref()
                    .and_then(|inner| inner.downcast_ref::<ureq::Error>())
                    .is_some_and(|inner| matches!(inner, ureq::Error::Timeout(_)));
                if ureq_timeout || e.kind() == std::io::ErrorKind::TimedOut {
                    Failure {
                        final_url: final_url.clone(),
                        ..timed_out(" while reading the body")
                    }
                } else {
                    fail(format!("reading the body failed: {e}"))
                }
            })?;
        let body = if bytes.len() <= limit {
            Body::Whole(bytes)
        } else {
            let declared = single("content-length").and_then(|v| v.parse::<usize>().ok());
            let (seen, complete) = match declared {
                Some(n) if n >= bytes.len() => (n, true),
                _ => (bytes.len(), false),
            };
            Body::TooLarge {
                start: bytes,
                seen,
                complete,
            }
        };
        Ok(Fetched {
            headers,
            body,
            final_url,
        })
    }
}

#[cfg(all(test, feature = "resolve"))]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::fetch;
    use super::fetch::redirect_failure;

    // ureq 3.5.2 raises these while following redirects (run.rs: `https_only` is checked for each
    // hop's URL before connecting; the bound when a further 3xx arrives). End to end the https
    // path cannot run here: rustls with webpki roots trusts no local certificate.
    /// Each case checked against Node 20's `new URL(location, base)` (fragment dropped); the
    /// `ftp:` one fetch would refuse to fetch.
    #[test]
    fn redirect_locations_resolve_as_fetch_resolves_them() {
        let base = "http://a.example:8080/x/y/card.json?q=1";
        for (location, want) in [
            ("https://b.example/c", Some("https://b.example/c")),
            ("//b.example/c?d", Some("http://b.example/c?d")),
            ("/c", Some("http://a.example:8080/c")),
            ("c", Some("http://a.example:8080/x/y/c")),
            ("../c", Some("http://a.example:8080/x/c")),
            ("./c/.", Some("http://a.example:8080/x/y/c/")),
            ("../../../../c", Some("http://a.example:8080/c")),
            ("%2E%2e/c", Some("http://a.example:8080/x/c")),
            ("?z", Some("http://a.example:8080/x/y/card.json?z")),
            ("", Some("http://a.example:8080/x/y/card.json?q=1")),
            ("#f", Some("http://a.example:8080/x/y/card.json?q=1")),
            ("c#f", Some("http://a.example:8080/x/y/c")),
            (" \t/c\n ", Some("http://a.example:8080/c")),
            ("\\\\b.example\\c", Some("http://b.example/c")),
            ("/c?a\\b", Some("http://a.example:8080/c?a\\b")),
            ("ftp://b.example/c", None),
            ("http://", None),
            ("http://[::1/c", None),
            ("//user:pw@b.example/c", None),
            ("http://user@b.example/c", None),
            ("/a/b/../../c/./d", Some("http://a.example:8080/c/d")),
            ("HTTP://B.example/x/%2e%2E/c", Some("http://B.example/c")),
            (
                "/bäse?ä'`",
                Some("http://a.example:8080/b%C3%A4se?%C3%A4%27`"),
            ),
            (
                "/a`{}\"^|?q=\"<>",
                Some("http://a.example:8080/a%60%7B%7D%22^|?q=%22%3C%3E"),
            ),
        ] {
            assert_eq!(fetch::join(base, location).as_deref(), want, "{location:?}");
        }
        assert_eq!(
            fetch::as_fetch_sends("http://h:1/a/../b/./c?x#f"),
            "http://h:1/b/c?x"
        );
        assert_eq!(
            fetch::join("https://a/", "http://b/").as_deref(),
            Some("http://b/"),
            "the downgrade is the core's to refuse"
        );
    }

    #[test]
    fn ureq_redirect_refusals_read_as_the_core_says() {
        let asked = "https://registry.example/card";
        let why = redirect_failure(
            asked,
            &ureq::Error::RequireHttpsOnly("http://registry.example/card".into()),
        )
        .unwrap();
        assert_eq!(
            Some(why),
            cardgate::resolution::redirect_refusal(asked, "http://registry.example/card", 0)
        );
        assert_eq!(
            redirect_failure(asked, &ureq::Error::TooManyRedirects).as_deref(),
            Some("https://registry.example/card redirected more than 5 times (the limit)")
        );
        assert_eq!(redirect_failure(asked, &ureq::Error::RedirectFailed), None);
    }

    /// The environment as curl and httpx read it (their documentation: curl's `CURLOPT_PROXY`
    /// and `CURLOPT_NOPROXY`, httpx's "Environment Variables"), not as ureq's default does.
    #[test]
    fn proxies_follow_the_url_scheme_and_no_proxy_covers_subdomains() {
        fn env(
            pairs: &'static [(&'static str, &'static str)],
        ) -> impl Fn(&str) -> Option<std::ffi::OsString> {
            move |name| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.into())
            }
        }
        let proxy = |url: &str| ureq::Proxy::new(url).unwrap();
        let via = |pairs, url: &str| {
            fetch::Proxies::from_env(env(pairs))
                .unwrap()
                .for_url(url)
                .map(|p| p.host().to_owned())
        };
        let corp = Some("corp".to_owned());
        // Each scheme its own variable: an HTTPS_PROXY carries no plain http request (ureq's
        // default sends it through the first variable set).
        let https_only = &[("HTTPS_PROXY", "http://corp:3128")];
        assert_eq!(via(https_only, "https://r.example/card"), corp);
        assert_eq!(via(https_only, "http://r.example/card"), None);
        let http_only = &[("http_proxy", "corp:3128")];
        assert_eq!(via(http_only, "http://r.example/card"), corp);
        assert_eq!(via(http_only, "https://r.example/card"), None);
        // ALL_PROXY when the scheme's own is not set (or empty); lowercase first.
        let all = &[("ALL_PROXY", "http://corp:1"), ("https_proxy", "")];
        assert_eq!(via(all, "https://r.example/card"), corp);
        assert_eq!(via(all, "http://r.example/card"), corp);
        let cases = &[
            ("https_proxy", "http://corp:1"),
            ("HTTPS_PROXY", "http://other:1"),
        ];
        assert_eq!(via(cases, "https://r.example/card"), corp);
        let p = fetch::Proxies::from_env(env(&[("HTTPS_PROXY", "http://u:pw@corp:3128")]));
        assert_eq!(
            p.unwrap().for_url("https://r.example/"),
            Some(proxy("http://u:pw@corp:3128"))
        );
        // NO_PROXY: a name covers its subdomains; addresses, ranges, `*`.
        let no = &[
            ("HTTPS_PROXY", "http://corp:3128"),
            (
                "NO_PROXY",
                " example.com., .svc.local,*.k8s, 10.0.0.0/8,192.168.1.7, [::1], fd00::/8, a:80",
            ),
        ];
        for direct in [
            "https://example.com/card",
            "https://registry.EXAMPLE.com./card",
            "https://svc.local/",
            "https://a.svc.local/",
            "https://x.k8s/",
            "https://10.200.1.1/",
            "https://192.168.1.7:8443/",
            "https://[::1]:8443/",
            "https://[fd12::1]/",
        ] {
            assert_eq!(via(no, direct), None, "{direct}");
        }
        for proxied in [
            "https://notexample.com/",
            "https://example.com.evil/",
            "https://11.0.0.1/",
            "https://192.168.1.8/",
            "https://[::2]/",
            "https://a/",
        ] {
            assert_eq!(via(no, proxied), corp, "{proxied}");
        }
        let star = &[("HTTPS_PROXY", "http://corp:1"), ("no_proxy", "*")];
        assert_eq!(via(star, "https://anything.example/"), None);
        let zero = &[
            ("HTTPS_PROXY", "http://corp:1"),
            ("no_proxy", "0.0.0.0/0,::/0"),
        ];
        assert_eq!(via(zero, "https://1.2.3.4/"), None);
        assert_eq!(via(zero, "https://[2001:db8::1]/"), None);
        // A value that is no http(s) proxy is refused, without its value in the message.
        for bad in [
            &[("HTTPS_PROXY", "socks5://u:secret@corp:1080")][..],
            &[("all_proxy", "http://u:secret@[bad")][..],
        ] {
            let e = fetch::Proxies::from_env(env(bad)).err().unwrap();
            assert!(e.contains(bad[0].0) && !e.contains("secret"), "{e}");
        }
    }

    /// A proxy variable that is not UTF-8 is refused by its name, whichever it is.
    #[test]
    fn proxy_variables_that_are_not_utf8_are_bad_input() {
        use std::os::unix::ffi::OsStringExt;
        for var in ["HTTP_PROXY", "no_proxy", "ALL_PROXY"] {
            let e = fetch::Proxies::from_env(|name| {
                (name == var).then(|| std::ffi::OsString::from_vec(b"http://p\xff:1".to_vec()))
            })
            .err()
            .unwrap();
            assert_eq!(e, format!("the environment's {var} is not UTF-8 text"));
        }
    }

    /// The agent `get` builds refuses a non-https URL when the source is https: asked directly
    /// here (no TLS needed), the same check ureq applies to every redirect target.
    #[test]
    fn https_only_is_what_refuses_the_downgrade() {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .https_only(true)
            .build()
            .into();
        let e = agent.get("http://127.0.0.1:9/card").call().unwrap_err();
        assert!(
            matches!(&e, ureq::Error::RequireHttpsOnly(to) if to == "http://127.0.0.1:9/card"),
            "{e}"
        );
    }
}
