//! The options of `check` and `resolve`, and `--header`'s request headers (from an argument or
//! a file).

use super::{read_whole, shown, text_of, ObservationSources, UsageError};
use cardgate::{InputError, Limits, Observation, Requirement, Timestamp};
use std::ffi::{OsStr, OsString};

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
pub(crate) enum Command {
    Check,
    Resolve,
}

/// The options `check` and `resolve` share, parsed.
pub(crate) struct Parsed {
    /// Card file (check) or URLs (resolve), in order.
    pub(crate) positional: Vec<OsString>,
    pub(crate) flags: Requirement,
    pub(crate) base_requirement: Option<Requirement>,
    pub(crate) sources: ObservationSources,
    pub(crate) policy_path: Option<OsString>,
    pub(crate) agent: Option<String>,
    pub(crate) limits: Limits,
    pub(crate) no_clock: bool,
    pub(crate) max_attempts: Option<usize>,
    pub(crate) deadline_ms: Option<u64>,
    pub(crate) timeout_ms: Option<u64>,
    /// `--cacert FILE` (resolve): the PEM file whose certificates are the only trusted roots.
    pub(crate) cacert: Option<OsString>,
    /// `--cert FILE` and `--key FILE` (resolve): a client certificate (mutual TLS).
    pub(crate) cert: Option<OsString>,
    pub(crate) key: Option<OsString>,
    /// `--header "Name: value"` and `--header @FILE` (resolve), in order: names lowercase,
    /// values trimmed.
    pub(crate) headers: Vec<(String, String)>,
    /// `--header @-` was given: the headers came from stdin.
    pub(crate) headers_from_stdin: bool,
    /// `--help` among the options: print the usage and exit 0.
    pub(crate) help: bool,
}

pub(crate) fn parse_args(args: &[OsString], command: Command) -> Result<Parsed, UsageError> {
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
