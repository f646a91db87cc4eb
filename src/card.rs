//! Reading an Agent Card: only what the gate needs, strictly, and as the A2A SDKs read it.
//!
//! Accepts A2A v1.0 cards (ProtoJSON, camelCase or snake_case), v0.3/v1.0 hybrids and legacy
//! v0.3 cards, and ignores members it does not read. A member it does read must have the right
//! type and one spelling, or the card is malformed: a gate that skipped a mistyped `version`
//! would be checking a different card than the one the caller will use. Capabilities come from
//! [`crate::sdk_reading`]: a capability counts only when every SDK reading has it.

use crate::capability::{major_minor, Capability};
use crate::document::{Document, Kind, Node};
use crate::interface_choice::{self, V03Clients};
use crate::json::{self, pointer_token, JsonErrorKind};
use crate::reason::ReasonCode;
use crate::sdk_reading::{self, label, Interface, Label, Reading, Sdk};
use std::fmt;

/// Limits on what the gate will read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted body, in bytes.
    pub max_card_bytes: usize,
    /// Deepest accepted nesting of arrays and objects.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_card_bytes: 65_536,
            max_depth: 64,
        }
    }
}

/// Why a card could not be read: the malformed-card reason, where, and a message. Its JSON form
/// (the inspector's views) is `{"code", "path", "message"}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct CardDefect {
    /// The stable reason code.
    pub code: ReasonCode,
    /// JSON Pointer of the offending member (`""` for the document).
    pub path: String,
    /// Byte offset of a syntax-level problem.
    #[serde(skip)]
    pub offset: Option<usize>,
    /// A sentence saying what is wrong.
    pub message: String,
}

/// What the gate reads from a card: for capabilities, only what every A2A SDK reading of it
/// has (see [`crate::sdk_reading`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AgentCard {
    /// `name`.
    pub name: String,
    /// `version`: the agent's own version, not the protocol's.
    pub version: String,
    /// `skills[].id`, in order.
    pub skill_ids: Names,
    /// `capabilities.extensions[].uri`, in order.
    pub extension_uris: Names,
    /// `capabilities.streaming` is true in every SDK reading.
    pub streaming: bool,
    /// `capabilities.pushNotifications` is true in every SDK reading.
    pub push_notifications: bool,
    /// `capabilities.extendedAgentCard` is true in every SDK reading.
    pub extended_agent_card: bool,
    /// `Major.Minor` protocol versions every SDK reading offers an interface for.
    pub protocols: Vec<Label>,
    /// Per reading, what it offers, in [`Sdk::ALL`]'s order; kept to explain a capability one
    /// reading lacks.
    pub readings: [(Sdk, Reading); 3],
    /// Where the clients of the SDKs before 1.0 send each binding (their v0.3 members), for a
    /// caller that names `protocol:0.3`.
    pub v03: V03Clients,
}

/// A list of strings kept in one buffer (`skills[].id`, `capabilities.extensions[].uri`): two
/// allocations for the whole list instead of one per string.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Names {
    /// The strings, one after the other.
    text: String,
    /// Where each string ends in `text`.
    ends: Vec<usize>,
}

impl Names {
    /// The strings, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let s = self.text.get(start..end).unwrap_or_default();
            start = end;
            s
        })
    }

    /// How many strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No strings.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Whether `s` is one of the strings.
    pub fn contains(&self, s: &str) -> bool {
        self.iter().any(|x| x == s)
    }

    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * std::mem::size_of::<usize>()
    }
}

impl AgentCard {
    /// Reads the body into a strict I-JSON document, within `limits`. Whether that document is
    /// a usable card is [`AgentCard::from_document`]'s question.
    pub fn parse_document(bytes: &[u8], limits: &Limits) -> Result<Document, CardDefect> {
        if bytes.len() > limits.max_card_bytes {
            return Err(CardDefect {
                code: ReasonCode::BodyTooLarge,
                path: String::new(),
                offset: None,
                message: format!(
                    "card body is {} bytes, more than the limit of {} bytes",
                    bytes.len(),
                    limits.max_card_bytes
                ),
            });
        }
        json::parse_document(bytes, limits.max_depth).map_err(|e| {
            let code = match e.kind() {
                JsonErrorKind::Empty => ReasonCode::BodyEmpty,
                JsonErrorKind::InvalidUtf8 => ReasonCode::InvalidUtf8,
                JsonErrorKind::Syntax => ReasonCode::JsonSyntax,
                JsonErrorKind::TrailingData => ReasonCode::TrailingData,
                JsonErrorKind::DuplicateMember => ReasonCode::DuplicateMember,
                JsonErrorKind::LoneSurrogate => ReasonCode::LoneSurrogate,
                JsonErrorKind::NumberOutOfRange => ReasonCode::NumberOutOfRange,
                JsonErrorKind::TooDeep => ReasonCode::TooDeep,
            };
            let message = match e.kind() {
                JsonErrorKind::Empty => "card body is empty".to_string(),
                _ => format!("card is not valid I-JSON: {e}"),
            };
            CardDefect {
                code,
                path: e.path().to_string(),
                offset: Some(e.offset()),
                message,
            }
        })
    }

    /// Reads the card view from a parsed document.
    ///
    /// First the shape: every member the gate or an SDK reading looks at must have the JSON type
    /// both SDKs accept, and must not be spelled both in camelCase and in snake_case (the SDKs
    /// resolve that differently). Then each SDK reading; a reading that refuses the card makes
    /// it malformed. Capabilities are what every reading has.
    pub fn from_document(doc: &Document) -> Result<AgentCard, CardDefect> {
        let doc = doc.root();
        if doc.members().is_none() {
            return Err(defect(
                ReasonCode::NotAnObject,
                "",
                format!("card must be a JSON object, found {}", doc.type_name()),
            ));
        }
        let name = required_string(doc, "", "name")?;
        let version = required_string(doc, "", "version")?;
        let skills = required(doc, "", "skills")?;
        let skill_ids = array_of_strings(Some(skills), "/skills", "id", true)?;
        check_shape(doc)?;
        let caps = doc.get("capabilities").filter(|c| !c.is_null());
        let extension_uris = array_of_strings(
            caps.and_then(|c| c.get("extensions")),
            "/capabilities/extensions",
            "uri",
            false,
        )?;

        let readings = sdk_reading::read_all(doc).map_err(|refusal| {
            defect(ReasonCode::SdkRefusesCard, &refusal.path, refusal.message)
        })?;
        let all = |f: &dyn Fn(&Reading) -> bool| readings.iter().all(|(_, r)| f(r));
        let mut protocols: Vec<Label> = Vec::new();
        if let Some((_, first)) = readings.first() {
            for (_, version, _, _) in &first.interfaces {
                if let Some(mm) = major_minor(version) {
                    // A version spelled as this one (or as its `Major.Minor`) has its
                    // `Major.Minor`: the readings mostly share their spellings.
                    let same = |v: &Label| v == version || v == mm || major_minor(v) == Some(mm);
                    if !protocols.iter().any(|p| p == mm)
                        && all(&|r| r.interfaces.iter().any(|(_, v, _, _)| same(v)))
                    {
                        protocols.push(label(mm));
                    }
                }
            }
        }
        Ok(AgentCard {
            name,
            version,
            skill_ids,
            extension_uris,
            streaming: all(&|r| r.streaming),
            push_notifications: all(&|r| r.push_notifications),
            extended_agent_card: all(&|r| r.extended_agent_card),
            protocols,
            readings,
            v03: V03Clients::of(doc),
        })
    }

    /// Whether every SDK reading offers an interface spelled exactly `binding` for which every
    /// one of that SDK's clients picks an interface (which one, and its version, is
    /// `Capability::covered_by`'s). Asked per required binding rather than listed for every
    /// binding when the card is read: most requirements name none, and each answer runs the
    /// client models of [`interface_choice`] over every reading.
    pub fn declares_binding(&self, binding: &str) -> bool {
        !binding.is_empty()
            && self
                .readings
                .iter()
                .all(|(sdk, r)| interface_choice::usable(*sdk, r, binding))
    }

    /// The bindings [`AgentCard::declares_binding`] grants, in the first reading's card order,
    /// without repeats.
    pub fn bindings(&self) -> Vec<&str> {
        let mut bindings: Vec<&str> = Vec::new();
        for (binding, _, _, _) in &self.readings[0].1.interfaces {
            if !bindings.contains(&&**binding) && self.declares_binding(binding) {
                bindings.push(binding);
            }
        }
        bindings
    }

    /// About the heap bytes this view holds (string and list capacities), for hosts that bound
    /// memory.
    pub fn heap_bytes(&self) -> usize {
        let labels = |list: &[Label]| -> usize {
            list.iter().map(label_heap).sum::<usize>() + std::mem::size_of_val(list)
        };
        let readings: usize = self
            .readings
            .iter()
            .map(|(_, r)| {
                r.interfaces
                    .iter()
                    .map(|(b, v, _, _)| {
                        label_heap(b) + label_heap(v) + std::mem::size_of::<Interface>()
                    })
                    .sum::<usize>()
            })
            .sum();
        self.name.capacity()
            + self.version.capacity()
            + self.skill_ids.heap_bytes()
            + self.extension_uris.heap_bytes()
            + labels(&self.protocols)
            + readings
            + self.v03.heap_bytes()
    }

    /// Every capability the card grants, in the requirement syntax (`task.execute.v3`,
    /// `extension:<uri>`, `capability:streaming`, `binding:JSONRPC`, `protocol:1.0`), without
    /// repeats: skills, extensions, flags, bindings, protocols. A skill id a requirement would
    /// read as something else (`binding:GRPC`, `extension:x`, `capability:streaming`) or as
    /// nothing (`""`), and an extension without a URI, are left out: no requirement names them.
    pub fn granted_capabilities(&self) -> Vec<String> {
        let flags = [
            (self.streaming, "streaming"),
            (self.push_notifications, "pushNotifications"),
            (self.extended_agent_card, "extendedAgentCard"),
        ];
        capability_names(
            &self.skill_ids,
            &self.extension_uris,
            &flags,
            self.bindings().into_iter(),
            self.protocols.iter().map(|p| &**p),
        )
    }

    /// What one SDK reading alone would grant, in the same syntax and order (a binding only when
    /// `sdk`'s client picks an interface for it).
    pub fn reading_capabilities(&self, sdk: Sdk, reading: &Reading) -> Vec<String> {
        let flags = [
            (reading.streaming, "streaming"),
            (reading.push_notifications, "pushNotifications"),
            (reading.extended_agent_card, "extendedAgentCard"),
        ];
        capability_names(
            &self.skill_ids,
            &self.extension_uris,
            &flags,
            reading
                .interfaces
                .iter()
                .map(|(b, _, _, _)| &**b)
                .filter(|b| !b.is_empty() && interface_choice::serves(sdk, reading, b, &[])),
            reading
                .interfaces
                .iter()
                .filter_map(|(_, v, _, _)| major_minor(v)),
        )
    }

    /// The SDK readings that lack what `has` looks for, by label (empty when every one has it).
    pub fn readings_lacking(&self, has: impl Fn(Sdk, &Reading) -> bool) -> Vec<&'static str> {
        self.readings
            .iter()
            .filter(|(sdk, r)| !has(*sdk, r))
            .map(|(sdk, _)| sdk.label())
            .collect()
    }
}

fn capability_names<'a>(
    skills: &Names,
    extensions: &Names,
    flags: &[(bool, &str)],
    bindings: impl Iterator<Item = &'a str>,
    protocols: impl Iterator<Item = &'a str>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |name: String| {
        if !out.contains(&name) {
            out.push(name);
        }
    };
    // Only what a requirement can name: a skill id that reads as a skill (not "", not
    // `binding:GRPC`, which as a requirement means a binding), an extension with a URI.
    skills
        .iter()
        .filter(|s| matches!(Capability::parse(s), Ok(Capability::Skill(_))))
        .for_each(|s| push(s.to_owned()));
    extensions
        .iter()
        .filter(|u| !u.is_empty())
        .for_each(|u| push(format!("extension:{u}")));
    for (on, flag) in flags {
        if *on {
            push(format!("capability:{flag}"));
        }
    }
    bindings.for_each(|b| push(format!("binding:{b}")));
    protocols.for_each(|p| push(format!("protocol:{p}")));
    out
}

/// The JSON Pointer of element `.2` of the array at `.0` + `.1`, spelled only when a defect
/// names it (a valid card formats no paths).
struct Item<'a>(&'a str, &'a str, usize);

impl fmt::Display for Item<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}/{}", self.0, self.1, self.2)
    }
}

/// Members spelled two ways in protobuf JSON: (lowerCamelCase, snake_case).
const CAPABILITY_FLAGS: [(&str, &str); 3] = [
    ("streaming", "streaming"),
    ("pushNotifications", "push_notifications"),
    ("extendedAgentCard", "extended_agent_card"),
];
const INTERFACE_MEMBERS: [(&str, &str); 2] = [
    ("protocolBinding", "protocol_binding"),
    ("protocolVersion", "protocol_version"),
];

/// Member names a2a-sdk's protobuf reader (`json_format.ParseDict` on the upb backend) reads
/// otherwise than every other reader, in an object it parses as `message` (its fields as
/// [`sdk_reading`] models them):
///
/// - a name holding U+0000 is looked up as a field name only up to that character, so
///   `skills\u0000x` is a second spelling of `skills` (the last one in the document wins, `null`
///   clears it): `ambiguous_member`;
/// - a name in brackets (`[x]`, protobuf's extension syntax, also with one trailing line feed)
///   makes it refuse the card, as no A2A message has extensions: `sdk_refuses_card`.
fn proto_member_names(
    obj: Node<'_>,
    at: &dyn fmt::Display,
    message: &[sdk_reading::Field],
) -> Result<(), CardDefect> {
    // Both kinds of name are noted while the document is read: most cards have neither.
    if !obj.has_unusual_names() {
        return Ok(());
    }
    for (key, _) in obj.members().into_iter().flatten() {
        if let Some(nul) = key.find('\0') {
            let field = key.get(..nul).unwrap_or_default();
            if sdk_reading::is_proto_field(message, field) {
                let path = format!("{at}/{}", pointer_token(key));
                return Err(defect(
                    ReasonCode::AmbiguousMember,
                    &path,
                    format!(
                        "card member {path} holds U+0000 after the name {field:?}; a2a-sdk \
                         (protobuf) reads it as a second {at}/{field}, the other SDKs ignore it, \
                         so the gate cannot tell which value the caller will use"
                    ),
                ));
            }
        } else if is_protobuf_extension_name(key) {
            let path = format!("{at}/{}", pointer_token(key));
            return Err(defect(
                ReasonCode::SdkRefusesCard,
                &path,
                format!(
                    "a2a-sdk refuses the card: protobuf reads the member name {key:?} as an \
                     extension, and A2A messages have none"
                ),
            ));
        }
    }
    Ok(())
}

/// `json_format._VALID_EXTENSION_NAME.match`: `[`, then `[A-Za-z0-9._]*`, `]`, then the end or a
/// single line feed (Python's `$`).
pub(crate) fn is_protobuf_extension_name(key: &str) -> bool {
    let key = key.strip_suffix('\n').unwrap_or(key);
    key.strip_prefix('[')
        .and_then(|k| k.strip_suffix(']'))
        .is_some_and(|inner| {
            inner
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
        })
}

/// The heap a label holds (none for a usual spelling).
fn label_heap(label: &Label) -> usize {
    match label {
        std::borrow::Cow::Borrowed(_) => 0,
        std::borrow::Cow::Owned(s) => s.capacity(),
    }
}

/// The JSON types of every member an SDK reading looks at, and no member spelled twice.
fn check_shape(doc: Node<'_>) -> Result<(), CardDefect> {
    proto_member_names(doc, &"", &sdk_reading::CARD)?;
    for (i, skill) in doc.elements("skills").enumerate() {
        proto_member_names(skill, &Item("", "/skills", i), &sdk_reading::SKILL)?;
    }
    if let Some(caps) = nullable(doc, &"", "capabilities", "object")? {
        proto_member_names(caps, &"/capabilities", &sdk_reading::CAPABILITIES)?;
        for (i, ext) in caps.elements("extensions").enumerate() {
            proto_member_names(
                ext,
                &Item("", "/capabilities/extensions", i),
                &sdk_reading::EXTENSION,
            )?;
        }
        for (camel, snake) in CAPABILITY_FLAGS {
            unambiguous(caps, &"/capabilities", camel, snake)?;
            for key in [camel, snake] {
                nullable(caps, &"/capabilities", key, "boolean")?;
            }
        }
    }
    let list_key = unambiguous(doc, &"", "supportedInterfaces", "supported_interfaces")?;
    if let Some(list) = nullable(doc, &"", list_key, "array")? {
        for (i, item) in list.items().into_iter().flatten().enumerate() {
            let item_at = Item("/", list_key, i);
            if item.members().is_none() {
                return Err(wrong_type(&item_at.to_string(), "object", item));
            }
            proto_member_names(item, &item_at, &sdk_reading::INTERFACE)?;
            for (camel, snake) in INTERFACE_MEMBERS {
                unambiguous(item, &item_at, camel, snake)?;
                for key in [camel, snake] {
                    nullable(item, &item_at, key, "string")?;
                }
            }
        }
    }
    // Legacy v0.3 members.
    for key in ["url", "preferredTransport", "protocolVersion"] {
        nullable(doc, &"", key, "string")?;
    }
    nullable(doc, &"", "supportsAuthenticatedExtendedCard", "boolean")?;
    if let Some(list) = nullable(doc, &"", "additionalInterfaces", "array")? {
        for (i, item) in list.items().into_iter().flatten().enumerate() {
            let item_at = Item("", "/additionalInterfaces", i);
            if item.members().is_none() {
                return Err(wrong_type(&item_at.to_string(), "object", item));
            }
            for key in ["url", "transport"] {
                nullable(item, &item_at, key, "string")?;
            }
        }
    }
    Ok(())
}

/// `obj[key]` when present and not null; an error when it is not of `expected` type. Inlined:
/// `expected` is a literal at every call, so its `match` goes away.
#[inline(always)]
fn nullable<'d>(
    obj: Node<'d>,
    at: &dyn fmt::Display,
    key: &str,
    expected: &str,
) -> Result<Option<Node<'d>>, CardDefect> {
    let v = match obj.get(key) {
        None => return Ok(None),
        Some(v) if v.is_null() => return Ok(None),
        Some(v) => v,
    };
    let ok = match expected {
        "object" => v.members().is_some(),
        "array" => v.items().is_some(),
        "boolean" => v.as_bool().is_some(),
        _ => v.as_str().is_some(),
    };
    if ok {
        Ok(Some(v))
    } else {
        Err(wrong_type(
            &format!("{at}/{}", pointer_token(key)),
            expected,
            v,
        ))
    }
}

/// Refuses an object that has a member under both its camelCase and its snake_case name; returns
/// the name in use (the camelCase one when neither is there).
fn unambiguous<'a>(
    obj: Node<'_>,
    at: &dyn fmt::Display,
    camel: &'a str,
    snake: &'a str,
) -> Result<&'a str, CardDefect> {
    if camel == snake || obj.get(snake).is_none() {
        return Ok(camel);
    }
    if obj.get(camel).is_none() {
        return Ok(snake);
    }
    Err(defect(
        ReasonCode::AmbiguousMember,
        &format!("{at}/{snake}"),
        format!(
            "card member {at}/{camel} is also spelled {at}/{snake}; the A2A SDKs resolve the two \
             spellings differently (a2a-sdk takes the last one, @a2a-js/sdk the camelCase one or \
             neither), so the gate cannot tell which one the caller will use"
        ),
    ))
}

fn defect(code: ReasonCode, path: &str, message: String) -> CardDefect {
    CardDefect {
        code,
        path: path.to_string(),
        offset: None,
        message,
    }
}

fn wrong_type(path: &str, expected: &str, found: Node<'_>) -> CardDefect {
    defect(
        ReasonCode::WrongType,
        path,
        format!(
            "card member {path} must be {} {expected}, found {}",
            if expected.starts_with(['a', 'o']) {
                "an"
            } else {
                "a"
            },
            found.type_name()
        ),
    )
}

fn required<'d>(obj: Node<'d>, at: &str, key: &str) -> Result<Node<'d>, CardDefect> {
    obj.get(key).ok_or_else(|| {
        let path = format!("{at}/{}", pointer_token(key));
        defect(
            ReasonCode::MissingField,
            &path,
            format!("card has no {path} member, which the gate needs"),
        )
    })
}

fn required_string(obj: Node<'_>, at: &str, key: &str) -> Result<String, CardDefect> {
    let v = required(obj, at, key)?;
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| wrong_type(&format!("{at}/{}", pointer_token(key)), "string", v))
}

/// `list[].field` as strings; with `required`, every element must have the field.
fn array_of_strings(
    list: Option<Node<'_>>,
    at: &str,
    field: &str,
    required_field: bool,
) -> Result<Names, CardDefect> {
    let items = match list.map(|v| (v, v.kind())) {
        Some((_, Kind::Array(items))) => items,
        Some((v, kind)) if !matches!(kind, Kind::Null) => return Err(wrong_type(at, "array", v)),
        _ if !required_field => return Ok(Names::default()),
        _ => {
            return Err(defect(
                ReasonCode::MissingField,
                at,
                format!("card has no {at} member, which the gate needs"),
            ))
        }
    };
    // About 24 bytes a string (`task.execute.v3`, an extension URI) so the text rarely regrows.
    let mut out = Names {
        text: String::with_capacity(items.len() * 24),
        ends: Vec::with_capacity(items.len()),
    };
    for (i, item) in items.enumerate() {
        let item_at = Item("", at, i);
        if item.members().is_none() {
            return Err(wrong_type(&item_at.to_string(), "object", item));
        }
        match item.get(field).map(|v| (v, v.as_str())) {
            Some((_, Some(s))) => out.push(s),
            None => {
                return Err(defect(
                    ReasonCode::MissingField,
                    &format!("{item_at}/{field}"),
                    format!("card has no {item_at}/{field} member, which the gate needs"),
                ))
            }
            Some((other, None)) => {
                return Err(wrong_type(&format!("{item_at}/{field}"), "string", other))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<AgentCard, CardDefect> {
        AgentCard::parse_document(text.as_bytes(), &Limits::default())
            .and_then(|doc| AgentCard::from_document(&doc))
    }

    const V1: &str = r#"{"name":"W","version":"3","capabilities":{"streaming":true},
        "skills":[{"id":"task.execute.v3"}],
        "supportedInterfaces":[{"url":"https://w/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#;

    #[test]
    fn reads_v1_and_legacy_cards() {
        let c = read(V1).unwrap();
        assert_eq!(c.skill_ids.iter().collect::<Vec<_>>(), ["task.execute.v3"]);
        assert!(c.skill_ids.contains("task.execute.v3") && !c.skill_ids.contains("task"));
        assert!(c.extension_uris.is_empty() && !c.extension_uris.contains(""));
        assert!(c.streaming && !c.push_notifications);
        assert_eq!(c.bindings(), ["JSONRPC"]);
        assert_eq!(c.protocols, ["1.0"]);
        let legacy = read(
            r#"{"name":"L","version":"1","capabilities":{},"skills":[],"url":"https://l",
            "defaultInputModes":[],"defaultOutputModes":[],
            "protocolVersion":"0.3.0","supportsAuthenticatedExtendedCard":true,
            "additionalInterfaces":[{"url":"https://l/g","transport":"GRPC"}]}"#,
        )
        .unwrap();
        // @a2a-js/sdk's default resolver reads neither the legacy flag nor legacy interfaces.
        assert!(!legacy.extended_agent_card);
        // A legacy card's interfaces are not read by @a2a-js/sdk's default resolver.
        assert!(legacy.bindings().is_empty());
    }

    #[test]
    fn granted_capabilities_are_what_a_requirement_can_name() {
        let c = read(
            r#"{"name":"W","version":"3","capabilities":{"extensions":[{"uri":""},{"uri":"urn:x"}]},
            "skills":[{"id":"binding:GRPC"},{"id":""},{"id":"extension:urn:y"},
                      {"id":"capability:streaming"},{"id":"protocol:1.0"},{"id":"task.a"}],
            "supportedInterfaces":[{"url":"https://w/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#,
        )
        .unwrap();
        let granted = c.granted_capabilities();
        assert_eq!(
            granted,
            [
                "task.a",
                "extension:urn:x",
                "binding:JSONRPC",
                "protocol:1.0"
            ]
        );
        // Each one, required, is granted.
        for name in &granted {
            let cap = Capability::parse(name).unwrap();
            assert!(cap.covered_by(&c, &[], false), "{name}");
        }
    }

    #[test]
    fn names_the_defect() {
        let d = read(r#"{"name":"W","version":3,"capabilities":{},"skills":[]}"#).unwrap_err();
        assert_eq!(
            (d.code, d.path.as_str()),
            (ReasonCode::WrongType, "/version")
        );
        let d = read(r#"{"name":"W","version":"3","capabilities":{},"skills":[{"name":"x"}]}"#)
            .unwrap_err();
        assert_eq!(
            (d.code, d.path.as_str()),
            (ReasonCode::MissingField, "/skills/0/id")
        );
        let d =
            read(r#"{"name":"W","version":"3","capabilities":{"streaming":"true"},"skills":[]}"#)
                .unwrap_err();
        assert_eq!(
            (d.code, d.path.as_str()),
            (ReasonCode::WrongType, "/capabilities/streaming")
        );
        let d = read("[]").unwrap_err();
        assert_eq!(d.code, ReasonCode::NotAnObject);
        // a2a-sdk's protobuf reads a name up to U+0000: `skills\u0000` is a second `skills`.
        let d = read(
            r#"{"name":"W","version":"3","capabilities":{},"skills":[{"id":"a"}],"skills\u0000":[]}"#,
        )
        .unwrap_err();
        assert_eq!(
            (d.code, d.path.as_str()),
            (ReasonCode::AmbiguousMember, "/skills\0")
        );
        let d = read(
            r#"{"name":"W","version":"3","capabilities":{"streaming":true,"streaming\u0000x":null},"skills":[]}"#,
        )
        .unwrap_err();
        assert_eq!(d.code, ReasonCode::AmbiguousMember);
        let d = read(
            r#"{"name":"W","version":"3","capabilities":{},"skills":[{"id":"a","id\u0000":"b"}]}"#,
        )
        .unwrap_err();
        assert_eq!(d.path, "/skills/0/id\0");
        // camelCase names and names that are no field are looked up exactly.
        assert!(read(
            r#"{"name":"W","version":"3","capabilities":{"pushNotifications\u0000":null},"skills":[],"x\u0000":1}"#
        )
        .is_ok());
        // `[x]` is a protobuf extension name: a2a-sdk refuses the card.
        let d =
            read(r#"{"name":"W","version":"3","capabilities":{},"skills":[{"id":"a","[x]":1}]}"#)
                .unwrap_err();
        assert_eq!(
            (d.code, d.path.as_str()),
            (ReasonCode::SdkRefusesCard, "/skills/0/[x]")
        );
        assert!(is_protobuf_extension_name("[]") && is_protobuf_extension_name("[a.B_9]\n"));
        assert!(!is_protobuf_extension_name("[a b]") && !is_protobuf_extension_name("[x]\n\n"));
        let big = format!("{{\"name\":\"{}\"}}", "x".repeat(70_000));
        assert_eq!(read(&big).unwrap_err().code, ReasonCode::BodyTooLarge);
    }
}
