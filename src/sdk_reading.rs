//! What each A2A SDK makes of a card: the capabilities a caller's client ends up with.
//!
//! Callers never use the bytes; they use the card their SDK parses out of them. The three
//! readings modelled here are the ones callers run (DESIGN.md, "How the SDKs read a card", has
//! the rules and where each comes from):
//!
//! - [`Sdk::Python`]: PyPI `a2a-sdk` 1.3.0, `a2a.client.card_resolver.parse_agent_card`: three
//!   compatibility steps on the dict, then protobuf `ParseDict` (lowerCamel and snake_case names
//!   both accepted, the last one in the document wins, `null` clears).
//! - [`Sdk::JsDefault`]: npm `@a2a-js/sdk` 1.3.0, `DefaultAgentCardResolver.normalizeAgentCard`
//!   as `ClientFactory` uses it (no `legacyCompat`): `AgentCard.fromJSON` for proto-shaped
//!   cards, otherwise the object as is (camelCase only).
//! - [`Sdk::JsLegacyCompat`]: the same resolver with `legacyCompat: {enabled: true}`: v0.3 cards
//!   go through `toCoreAgentCard`.
//!
//! The gate grants a capability only when every reading has it (the intersection). These
//! functions run on a document [`crate::card`] has already checked: every member they read has
//! the JSON type the gate accepts, and no member is spelled both ways. They never panic.
//!
//! No library does this: the rules are the SDKs' own code paths, restated for the members the
//! gate reads, and checked against the real SDKs by `tests/sdk_parity/`.

use std::borrow::Cow;

use crate::document::{JsonType, Kind, Members, Node};
pub use crate::interface_url::Url;
use std::fmt;

/// One SDK reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sdk {
    /// PyPI `a2a-sdk` (`parse_agent_card`).
    Python,
    /// npm `@a2a-js/sdk`, `DefaultAgentCardResolver` without `legacyCompat` (`ClientFactory`'s).
    JsDefault,
    /// npm `@a2a-js/sdk`, `DefaultAgentCardResolver` with `legacyCompat` enabled.
    JsLegacyCompat,
}

impl Sdk {
    /// Every reading the gate intersects.
    pub const ALL: [Sdk; 3] = [Sdk::Python, Sdk::JsDefault, Sdk::JsLegacyCompat];

    /// How messages name the reading.
    pub fn label(self) -> &'static str {
        match self {
            Sdk::Python => "a2a-sdk (Python)",
            Sdk::JsDefault => "@a2a-js/sdk default resolver",
            Sdk::JsLegacyCompat => "@a2a-js/sdk with legacyCompat",
        }
    }
}

/// The capability-bearing part of a card as one SDK reads it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reading {
    /// `capabilities.streaming`.
    pub streaming: bool,
    /// `capabilities.pushNotifications`.
    pub push_notifications: bool,
    /// `capabilities.extendedAgentCard`.
    pub extended_agent_card: bool,
    /// Each interface as the SDK holds it.
    pub interfaces: Vec<Interface>,
    /// An interface's `protocolBinding` is not a string at all (absent or `null` where the
    /// reading takes the object as is): `@a2a-js/sdk`'s `ClientFactory` throws on it, so no
    /// binding can be used ([`crate::interface_choice`]).
    pub untyped_binding: bool,
}

impl Reading {
    /// Whether an interface has exactly this `protocolBinding`.
    pub fn offers_binding(&self, binding: &str) -> bool {
        self.interfaces.iter().any(|(b, _, _, _)| b == binding)
    }
}

/// An interface as an SDK holds it: `(protocolBinding, protocolVersion, url, tenanted)`, the
/// strings `""` when unset, what its `url` is to a client ([`Url`]: none, or one that only some
/// transports can send to), and whether it names a `tenant` (`tenanted`; a v0.3 card's
/// interfaces have none).
pub type Interface = (Label, Label, Url, bool);

/// A binding or protocol version as an SDK reads it. The usual spellings are static, so a
/// reading of a usual card allocates one list per SDK and no string.
pub type Label = Cow<'static, str>;

/// `s` as a [`Label`]: borrowed when it is a usual spelling, else owned.
pub fn label(s: &str) -> Label {
    const USUAL: [&str; 9] = [
        "",
        "JSONRPC",
        "GRPC",
        "HTTP+JSON",
        "0.3",
        "0.3.0",
        "1.0",
        "1.0.0",
        "1",
    ];
    // One length check before the bytes: most spellings differ in length.
    match USUAL.iter().find(|u| u.len() == s.len() && **u == s) {
        Some(u) => Cow::Borrowed(*u),
        None => Cow::Owned(s.to_owned()),
    }
}

/// A reading the SDK refuses: the card raises an error in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// JSON Pointer of the member that makes the SDK refuse.
    pub path: String,
    /// Why, in the SDK's terms.
    pub message: String,
}

/// Reads `doc` as `sdk` does.
pub fn read(doc: Node<'_>, sdk: Sdk) -> Result<Reading, Refusal> {
    match sdk {
        Sdk::Python => Ok(python(doc)?),
        Sdk::JsDefault => Ok(js(doc, false)),
        Sdk::JsLegacyCompat => {
            if js_is_legacy(doc) {
                js_legacy_check(doc)?;
            }
            Ok(js(doc, true))
        }
    }
}

/// Every reading in [`Sdk::ALL`]'s order, or the first refusal: what [`read`] gives for each,
/// with the legacy-compat reading of a card that is not v0.3-shaped taken from the default one
/// (both resolvers then read it the same way), so it is not read twice.
pub fn read_all(doc: Node<'_>) -> Result<[(Sdk, Reading); 3], Refusal> {
    let (python, list) = python_and_list(doc)?;
    // A proto-shaped card's interfaces are read alike by both: when @a2a-js/sdk reads the same
    // list, Python's reading of it is copied, not read again.
    let default = js_sharing(doc, false, list.map(|l| (l, &*python.interfaces)));
    let legacy = if js_is_legacy(doc) {
        js_legacy_check(doc)?;
        js_to_core(doc)
    } else {
        default.clone()
    };
    Ok([
        (Sdk::Python, python),
        (Sdk::JsDefault, default),
        (Sdk::JsLegacyCompat, legacy),
    ])
}

/// `obj[camel]` (even `null`), else `obj[snake]`: in the 1.x readings both spellings are refused
/// upstream, so at most one is there; pydantic (a2a-sdk 0.3) reads them in this order.
#[inline]
pub(crate) fn either<'d>(obj: Option<Node<'d>>, camel: &str, snake: &str) -> Option<Node<'d>> {
    let obj = obj?;
    obj.get(camel).or_else(|| obj.get(snake))
}

/// A member as ts-proto's `fromJSON` takes it (`isSet`): the camelCase one unless it is absent or
/// `null`, else the snake_case one unless absent or `null`.
pub(crate) fn proto_member<'d>(obj: Node<'d>, camel: &str, snake: &str) -> Option<Node<'d>> {
    let set = |name| obj.get(name).filter(|v| !v.is_null());
    set(camel).or_else(|| set(snake))
}

/// A boolean member as a proto3 field ends up: `null` or absent is `false`.
#[inline]
pub(crate) fn flag(v: Option<Node<'_>>) -> bool {
    v.and_then(Node::as_bool) == Some(true)
}

/// A string member as a proto3 field ends up: `null` or absent is `""`.
#[inline]
fn string(v: Option<Node<'_>>) -> Label {
    label(v.and_then(Node::as_str).unwrap_or_default())
}

#[inline]
fn has(obj: Node<'_>, key: &str) -> bool {
    obj.get(key).is_some()
}

// ---------------------------------------------------------------------------------------------
// PyPI a2a-sdk 1.3.0

fn python(doc: Node<'_>) -> Result<Reading, Refusal> {
    python_and_list(doc).map(|(reading, _)| reading)
}

/// [`python`], and the list its interfaces were read from by [`proto_interfaces`] (`Some(None)`
/// for no list), or `None` when they were built from the legacy members.
#[allow(clippy::type_complexity)]
fn python_and_list(doc: Node<'_>) -> Result<(Reading, Option<Option<Node<'_>>>), Refusal> {
    let caps = doc.get("capabilities");

    // Step 1, `_handle_extended_card_compatibility`: the legacy flag, when truthy, sets
    // `capabilities.extendedAgentCard = true` unless that camelCase key is already there.
    let legacy_flag = flag(doc.get("supportsAuthenticatedExtendedCard"));
    let extended_agent_card = if legacy_flag {
        match caps {
            Some(c) if c.is_null() => {
                return Err(Refusal {
                    path: "/capabilities".into(),
                    message: "a2a-sdk refuses the card: supportsAuthenticatedExtendedCard is true \
                              and capabilities is null (TypeError in its compatibility step)"
                        .into(),
                })
            }
            Some(c) if has(c, "extendedAgentCard") => flag(c.get("extendedAgentCard")),
            Some(c) if c.get("extended_agent_card").is_some_and(|v| !v.is_null()) => {
                return Err(Refusal {
                    path: "/capabilities/extended_agent_card".into(),
                    message: "a2a-sdk refuses the card: supportsAuthenticatedExtendedCard adds \
                              capabilities.extendedAgentCard next to extended_agent_card, and \
                              protobuf refuses two values for one optional field"
                        .into(),
                });
            }
            // Absent capabilities become `{}`; an `extended_agent_card: null` is cleared before
            // the added `extendedAgentCard: true` is read.
            _ => true,
        }
    } else {
        flag(either(caps, "extendedAgentCard", "extended_agent_card"))
    };

    // Step 2, `_handle_connection_fields_compatibility`: interfaces are built from the legacy
    // members only when the camelCase key `supportedInterfaces` is absent (a null or an empty
    // list counts as present) and `url` is truthy; the built list is added last, so it also
    // overrides a `supported_interfaces`.
    let url_truthy = doc
        .get("url")
        .and_then(Node::as_str)
        .is_some_and(|s| !s.is_empty());
    let mut proto_list = None;
    let interfaces = if !has(doc, "supportedInterfaces") && url_truthy {
        let transport = match doc.get("preferredTransport") {
            None => Cow::Borrowed("JSONRPC"),
            other => string(other),
        };
        let version = match doc.get("protocolVersion") {
            None => Cow::Borrowed("0.3.0"),
            other => string(other),
        };
        let mut list = vec![(transport, version.clone(), Url::of(doc.get("url")), false)];
        if let Some(extra) = doc.get("additionalInterfaces").and_then(Node::items) {
            for item in extra {
                list.push((
                    string(item.get("transport")),
                    version.clone(),
                    Url::of(item.get("url")),
                    false,
                ));
            }
        }
        list
    } else {
        // Step 4, ParseDict: whichever spelling is there; `null` clears the list.
        let list = either(Some(doc), "supportedInterfaces", "supported_interfaces");
        proto_list = Some(list);
        proto_interfaces(list)
    };

    // Step 3, `_handle_security_compatibility`.
    python_security(doc)?;
    // Step 4, ParseDict: the JSON types protobuf accepts, in every message of the card.
    python_message(doc, &"", &CARD)?;

    let caps = caps.filter(|c| !c.is_null());
    let reading = Reading {
        streaming: flag(caps.and_then(|c| c.get("streaming"))),
        push_notifications: flag(either(caps, "pushNotifications", "push_notifications")),
        extended_agent_card,
        interfaces,
        // Protobuf reads an absent or `null` binding as "".
        untyped_binding: false,
    };
    Ok((reading, proto_list))
}

/// `_handle_security_compatibility`, as far as it refuses cards: `security` (of the card, of each
/// skill) is read as v0.3 requirements (`[{scheme: [scopes]}]`) unless that object has the key
/// `securityRequirements`, and `securitySchemes` must be a map of objects (the v0.3 `type` is
/// popped from each). What protobuf then finds inside a scheme is not modelled.
fn python_security(doc: Node<'_>) -> Result<(), Refusal> {
    if !has(doc, "securityRequirements") {
        python_legacy_security(doc.get("security"), "/security")?;
    }
    for (i, skill) in doc.elements("skills").enumerate() {
        let security = skill.get("security").filter(|v| !v.is_null());
        if security.is_some() && !has(skill, "securityRequirements") {
            python_legacy_security(security, &format!("/skills/{i}/security"))?;
        }
    }
    let schemes = match doc.get("securitySchemes").map(|v| (v, v.kind())) {
        None | Some((_, Kind::Null)) => return Ok(()),
        Some((_, Kind::Object(members))) => members,
        Some((v, _)) => {
            return Err(Refusal {
                path: "/securitySchemes".into(),
                message: format!(
                    "a2a-sdk refuses the card: securitySchemes must be an object (a map of \
                     schemes), found {}",
                    v.type_name()
                ),
            })
        }
    };
    for (name, scheme) in schemes {
        let at = Child(&"/securitySchemes", Step::Key(name));
        if scheme.members().is_none() {
            return Err(Refusal {
                path: at.to_string(),
                message: format!(
                    "a2a-sdk refuses the card: a security scheme must be an object, found {}",
                    scheme.type_name()
                ),
            });
        }
        // The v0.3 `type` is popped and, when known, the rest becomes that scheme's message;
        // otherwise the rest is read as a v1.0 `SecurityScheme` (one of five wrappers).
        let fields: &[Field] = match scheme.get("type").map(|t| (t, t.kind())) {
            Some((_, Kind::String("apiKey"))) => &API_KEY_SCHEME_V03,
            Some((_, Kind::String("http"))) => &HTTP_AUTH_SCHEME,
            Some((_, Kind::String("oauth2"))) => &OAUTH2_SCHEME,
            Some((_, Kind::String("openIdConnect"))) => &OPEN_ID_CONNECT_SCHEME,
            Some((_, Kind::String("mutualTLS"))) => &MTLS_SCHEME,
            Some((t, Kind::Array(_) | Kind::Object(_))) => {
                return Err(Refusal {
                    path: Child(&at, Step::Key("type")).to_string(),
                    message: format!(
                        "a2a-sdk refuses the card: a security scheme's type must be hashable \
                         (it looks it up in a dict), found {}",
                        t.type_name()
                    ),
                })
            }
            _ => &SECURITY_SCHEME,
        };
        python_message(scheme, &at, fields)?;
    }
    Ok(())
}

/// What a protobuf field holds, as far as `ParseDict` checks JSON types.
#[derive(Clone, Copy)]
enum Shape {
    /// `string`: a string (or `null`).
    Str,
    /// `bool`: `true` or `false` (or `null`).
    Bool,
    /// `repeated string`: a list of strings (or `null`; a `null` element is refused).
    Strs,
    /// A message: an object (or `null`). (protobuf also takes a string or a list, iterated as
    /// member names; the gate does not.)
    Msg(&'static [Field]),
    /// `repeated` message: a list of objects (or `null`).
    Msgs(&'static [Field]),
    /// `map<string, message>`: an object of objects (or `null`).
    Map(&'static [Field]),
    /// `map<string, string>`: an object of strings (or `null`).
    StrMap,
    /// `google.protobuf.Struct` whose own message depth is `.0` (the card is 1): an object (or
    /// `null`), anything inside that [`PROTOBUF_MAX_DEPTH`] lets through ([`python_struct`]).
    Struct(u8),
    /// Checked elsewhere (`securitySchemes`, by `python_security`).
    Unchecked,
}

/// One field: its JSON (lowerCamel) name, its proto (snake_case) name, its shape, and its oneof
/// group within the message (0: none; a proto3 `optional` field is a group of its own): two
/// non-null values in one group refuse the card.
#[derive(Clone, Copy)]
pub(crate) struct Field(&'static str, &'static str, Shape, u8);

/// Whether `name` is the proto (snake_case) name of one of `message`'s fields, the name upb
/// looks a member up by (`securitySchemes`, listed only to leave it to [`python_security`], is
/// not one).
pub(crate) fn is_proto_field(message: &[Field], name: &str) -> bool {
    message
        .iter()
        .any(|f| f.1 == name && !matches!(f.2, Shape::Unchecked))
}

const API_KEY_SCHEME: [Field; 3] = [
    Field("description", "description", Shape::Str, 0),
    Field("location", "location", Shape::Str, 0),
    Field("name", "name", Shape::Str, 0),
];
/// A v0.3 `apiKey` scheme: a2a-sdk renames `in` to `location` before protobuf reads it.
const API_KEY_SCHEME_V03: [Field; 4] = [
    Field("description", "description", Shape::Str, 0),
    Field("location", "location", Shape::Str, 0),
    Field("name", "name", Shape::Str, 0),
    Field("in", "in", Shape::Str, 0),
];
const HTTP_AUTH_SCHEME: [Field; 3] = [
    Field("description", "description", Shape::Str, 0),
    Field("scheme", "scheme", Shape::Str, 0),
    Field("bearerFormat", "bearer_format", Shape::Str, 0),
];
// The five flow messages of `OAuthFlows`, each with its own fields (a member another flow has,
// such as `authorizationUrl` in `clientCredentials`, is unknown there and ignored by protobuf).
const AUTHORIZATION_URL: Field = Field("authorizationUrl", "authorization_url", Shape::Str, 0);
const DEVICE_AUTHORIZATION_URL: Field = Field(
    "deviceAuthorizationUrl",
    "device_authorization_url",
    Shape::Str,
    0,
);
const TOKEN_URL: Field = Field("tokenUrl", "token_url", Shape::Str, 0);
const REFRESH_URL: Field = Field("refreshUrl", "refresh_url", Shape::Str, 0);
const SCOPES: Field = Field("scopes", "scopes", Shape::StrMap, 0);
const PKCE_REQUIRED: Field = Field("pkceRequired", "pkce_required", Shape::Bool, 0);
const AUTHORIZATION_CODE_FLOW: [Field; 5] = [
    AUTHORIZATION_URL,
    TOKEN_URL,
    REFRESH_URL,
    SCOPES,
    PKCE_REQUIRED,
];
const CLIENT_CREDENTIALS_FLOW: [Field; 3] = [TOKEN_URL, REFRESH_URL, SCOPES];
const IMPLICIT_FLOW: [Field; 3] = [AUTHORIZATION_URL, REFRESH_URL, SCOPES];
const PASSWORD_FLOW: [Field; 3] = [TOKEN_URL, REFRESH_URL, SCOPES];
const DEVICE_CODE_FLOW: [Field; 4] = [DEVICE_AUTHORIZATION_URL, TOKEN_URL, REFRESH_URL, SCOPES];
/// `OAuthFlows`: one flow at most (a oneof), unlike v0.3, where several could be listed.
const OAUTH_FLOWS: [Field; 5] = [
    Field(
        "authorizationCode",
        "authorization_code",
        Shape::Msg(&AUTHORIZATION_CODE_FLOW),
        1,
    ),
    Field(
        "clientCredentials",
        "client_credentials",
        Shape::Msg(&CLIENT_CREDENTIALS_FLOW),
        1,
    ),
    Field("implicit", "implicit", Shape::Msg(&IMPLICIT_FLOW), 1),
    Field("password", "password", Shape::Msg(&PASSWORD_FLOW), 1),
    Field(
        "deviceCode",
        "device_code",
        Shape::Msg(&DEVICE_CODE_FLOW),
        1,
    ),
];
const OAUTH2_SCHEME: [Field; 3] = [
    Field("description", "description", Shape::Str, 0),
    Field("flows", "flows", Shape::Msg(&OAUTH_FLOWS), 0),
    Field("oauth2MetadataUrl", "oauth2_metadata_url", Shape::Str, 0),
];
const OPEN_ID_CONNECT_SCHEME: [Field; 2] = [
    Field("description", "description", Shape::Str, 0),
    Field("openIdConnectUrl", "open_id_connect_url", Shape::Str, 0),
];
const MTLS_SCHEME: [Field; 1] = [Field("description", "description", Shape::Str, 0)];
const SECURITY_SCHEME: [Field; 5] = [
    Field(
        "apiKeySecurityScheme",
        "api_key_security_scheme",
        Shape::Msg(&API_KEY_SCHEME),
        1,
    ),
    Field(
        "httpAuthSecurityScheme",
        "http_auth_security_scheme",
        Shape::Msg(&HTTP_AUTH_SCHEME),
        1,
    ),
    Field(
        "oauth2SecurityScheme",
        "oauth2_security_scheme",
        Shape::Msg(&OAUTH2_SCHEME),
        1,
    ),
    Field(
        "openIdConnectSecurityScheme",
        "open_id_connect_security_scheme",
        Shape::Msg(&OPEN_ID_CONNECT_SCHEME),
        1,
    ),
    Field(
        "mtlsSecurityScheme",
        "mtls_security_scheme",
        Shape::Msg(&MTLS_SCHEME),
        1,
    ),
];
const STRING_LIST: [Field; 1] = [Field("list", "list", Shape::Strs, 0)];
const SECURITY_REQUIREMENT: [Field; 1] = [Field("schemes", "schemes", Shape::Map(&STRING_LIST), 0)];
const PROVIDER: [Field; 2] = [
    Field("url", "url", Shape::Str, 0),
    Field("organization", "organization", Shape::Str, 0),
];
const SIGNATURE: [Field; 3] = [
    Field("protected", "protected", Shape::Str, 0),
    Field("signature", "signature", Shape::Str, 0),
    // card (1) > signature (2) > header (3)
    Field("header", "header", Shape::Struct(3), 0),
];
pub(crate) const INTERFACE: [Field; 4] = [
    Field("url", "url", Shape::Str, 0),
    Field("protocolBinding", "protocol_binding", Shape::Str, 0),
    Field("tenant", "tenant", Shape::Str, 0),
    Field("protocolVersion", "protocol_version", Shape::Str, 0),
];
pub(crate) const EXTENSION: [Field; 4] = [
    Field("uri", "uri", Shape::Str, 0),
    Field("description", "description", Shape::Str, 0),
    Field("required", "required", Shape::Bool, 0),
    // card (1) > capabilities (2) > extension (3) > params (4)
    Field("params", "params", Shape::Struct(4), 0),
];
pub(crate) const CAPABILITIES: [Field; 4] = [
    Field("streaming", "streaming", Shape::Bool, 1),
    Field("pushNotifications", "push_notifications", Shape::Bool, 2),
    Field("extensions", "extensions", Shape::Msgs(&EXTENSION), 0),
    Field("extendedAgentCard", "extended_agent_card", Shape::Bool, 3),
];
pub(crate) const SKILL: [Field; 8] = [
    Field("id", "id", Shape::Str, 0),
    Field("name", "name", Shape::Str, 0),
    Field("description", "description", Shape::Str, 0),
    Field("tags", "tags", Shape::Strs, 0),
    Field("examples", "examples", Shape::Strs, 0),
    Field("inputModes", "input_modes", Shape::Strs, 0),
    Field("outputModes", "output_modes", Shape::Strs, 0),
    Field(
        "securityRequirements",
        "security_requirements",
        Shape::Msgs(&SECURITY_REQUIREMENT),
        0,
    ),
];
pub(crate) const CARD: [Field; 15] = [
    Field("name", "name", Shape::Str, 0),
    Field("description", "description", Shape::Str, 0),
    Field(
        "supportedInterfaces",
        "supported_interfaces",
        Shape::Msgs(&INTERFACE),
        0,
    ),
    Field("provider", "provider", Shape::Msg(&PROVIDER), 0),
    Field("version", "version", Shape::Str, 0),
    Field("documentationUrl", "documentation_url", Shape::Str, 1),
    Field("capabilities", "capabilities", Shape::Msg(&CAPABILITIES), 0),
    // a2a-sdk's step 3 maps `securitySchemes` (checked by `python_security`); a
    // `security_schemes` reaches protobuf as it is.
    Field("securitySchemes", "securitySchemes", Shape::Unchecked, 0),
    Field(
        "security_schemes",
        "security_schemes",
        Shape::Map(&SECURITY_SCHEME),
        0,
    ),
    Field(
        "securityRequirements",
        "security_requirements",
        Shape::Msgs(&SECURITY_REQUIREMENT),
        0,
    ),
    Field("defaultInputModes", "default_input_modes", Shape::Strs, 0),
    Field("defaultOutputModes", "default_output_modes", Shape::Strs, 0),
    Field("skills", "skills", Shape::Msgs(&SKILL), 0),
    Field("signatures", "signatures", Shape::Msgs(&SIGNATURE), 0),
    Field("iconUrl", "icon_url", Shape::Str, 2),
];

/// `a == b`, told apart by length and first byte before the bytes are compared (a message's
/// field names often share a length: `name`, `tags`).
#[inline(always)]
fn same_name(a: &str, b: &[u8]) -> bool {
    crate::document::same_bytes(a.as_bytes(), b)
}

/// protobuf `ParseDict` on one message object (after the compatibility steps, which only remove
/// members or add well-typed ones): every member it takes for a field (by JSON name, by proto
/// name, or by proto name up to a U+0000, the upb lookup) must have a JSON type that field
/// accepts; a proto3 `optional` field must not get two non-null values; a member name in
/// extension syntax (`[x]`) refuses the card. Other members are ignored, as with
/// `ignore_unknown_fields`.
fn python_message(obj: Node<'_>, at: &dyn fmt::Display, fields: &[Field]) -> Result<(), Refusal> {
    let members = match obj.members_by_bytes() {
        Some(m) => m,
        None => return Ok(()),
    };
    let mut group_seen = [false; 4];
    let unusual = obj.has_unusual_names();
    let mut next = 0;
    for (key, value) in members {
        let proto_name = match unusual.then(|| key.iter().position(|&b| b == 0)).flatten() {
            Some(nul) => key.get(..nul).unwrap_or_default(),
            None => key,
        };
        // A name matches at most one field (test `field_names_are_unique`), so the search may
        // go in any order: the field after the last one found first, since cards mostly list
        // their members in the message's order, then all of them.
        let found = match fields.get(next) {
            Some(f) if field_matches(f, key, proto_name) => Some(next),
            _ => fields
                .iter()
                .position(|f| field_matches(f, key, proto_name)),
        };
        let field = match found.and_then(|i| {
            next = i + 1;
            fields.get(i)
        }) {
            Some(found) => found,
            None if unusual
                && crate::card::is_protobuf_extension_name(
                    std::str::from_utf8(key).unwrap_or_default(),
                ) =>
            {
                let key = std::str::from_utf8(key).unwrap_or_default();
                let here = Child(at, Step::Name(key.as_bytes()));
                return Err(Refusal {
                    path: here.to_string(),
                    message: format!(
                        "a2a-sdk refuses the card: protobuf reads the member name {key:?} as an \
                         extension, and A2A messages have none"
                    ),
                });
            }
            None => continue,
        };
        let json_type = value.json_type();
        if json_type == JsonType::Null {
            continue;
        }
        let here = Child(at, Step::Name(key));
        if field.3 > 0 {
            if let Some(seen) = group_seen.get_mut(usize::from(field.3)) {
                if *seen {
                    return Err(Refusal {
                        path: here.to_string(),
                        message: format!(
                            "a2a-sdk refuses the card: {here} is a second value for a oneof \
                             (or optional) field that already has one ({}), which protobuf \
                             refuses",
                            field.0
                        ),
                    });
                }
                *seen = true;
            }
        }
        // The scalar shapes are told by the JSON type alone.
        match (field.2, json_type) {
            (Shape::Str, JsonType::String) | (Shape::Bool, JsonType::Bool) => {}
            (shape, _) => python_value(value, &here, shape)?,
        }
    }
    Ok(())
}

/// Whether member name `key` (`proto_name` up to a U+0000) is `f`'s, by JSON name, by proto name
/// or by proto name up to the U+0000 (the upb lookup).
#[inline(always)]
fn field_matches(f: &Field, key: &[u8], proto_name: &[u8]) -> bool {
    same_name(f.0, key)
        || same_name(f.1, key)
        || (proto_name.len() < key.len() && same_name(f.1, proto_name))
}

/// One step of a JSON Pointer below a parent, spelled only when a refusal names it.
enum Step<'a> {
    Key(&'a str),
    /// A member name read as bytes (it is UTF-8: a document's names are `str`s).
    Name(&'a [u8]),
    Index(usize),
}

struct Child<'a>(&'a dyn fmt::Display, Step<'a>);

impl fmt::Display for Child<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Step::Key(key) => write!(f, "{}/{}", self.0, crate::json::pointer_token(key)),
            Step::Name(key) => {
                let key = std::str::from_utf8(key).unwrap_or_default();
                write!(f, "{}/{}", self.0, crate::json::pointer_token(key))
            }
            Step::Index(i) => write!(f, "{}/{i}", self.0),
        }
    }
}

/// One non-null value against its field's shape.
#[inline]
fn python_value(v: Node<'_>, at: &dyn fmt::Display, shape: Shape) -> Result<(), Refusal> {
    let bad = |path: &dyn fmt::Display, want: &str, found: Node<'_>| {
        Err(Refusal {
            message: format!(
                "a2a-sdk refuses the card: protobuf wants {want} at {path}, found {}",
                found.type_name()
            ),
            path: path.to_string(),
        })
    };
    // The commonest shape, told without reading the string.
    if let Shape::Str = shape {
        return if v.is_string() {
            Ok(())
        } else {
            bad(at, "a string", v)
        };
    }
    match (shape, v.kind()) {
        (Shape::Unchecked, _) | (Shape::Str, Kind::String(_)) | (Shape::Bool, Kind::Bool(_)) => {
            Ok(())
        }
        (Shape::Struct(_), Kind::Object(_)) if struct_fits(v, shape) => Ok(()),
        (Shape::Struct(depth), Kind::Object(_)) => python_struct(v, at, usize::from(depth)),
        (Shape::Str, _) => bad(at, "a string", v),
        (Shape::Bool, _) => bad(at, "true or false", v),
        // ParseDict iterates a string or an array given for a message as its member names: a
        // string, or an array of strings naming no field, is an empty message to a2a-sdk (it
        // takes the card), other items make it refuse; no other reading does that. The gate
        // refuses all of them, and must not say that a2a-sdk refuses the card.
        (Shape::Msg(_), Kind::Array(_) | Kind::String(_)) => Err(Refusal {
            message: format!(
                "a2a-sdk's protobuf reads the {} at {at} as a message made of its member names \
                 (a string, or an array of strings naming no field nor an extension, becomes \
                 an empty message there; other items make it refuse the card) and no other \
                 reading does: the gate wants an object",
                v.type_name()
            ),
            path: at.to_string(),
        }),
        (
            Shape::Struct(_) | Shape::Msg(_),
            Kind::Array(_) | Kind::String(_) | Kind::Number(_) | Kind::Bool(_) | Kind::Null,
        ) => bad(at, "an object", v),
        (Shape::Msg(fields), Kind::Object(_)) => python_message(v, at, fields),
        (Shape::Strs, Kind::Array(items)) => {
            for (i, item) in items.enumerate() {
                if !item.is_string() {
                    return bad(
                        &Child(at, Step::Index(i)),
                        "a string (a list element)",
                        item,
                    );
                }
            }
            Ok(())
        }
        (Shape::Msgs(fields), Kind::Array(items)) => {
            for (i, item) in items.enumerate() {
                let item_at = Child(at, Step::Index(i));
                if item.members().is_none() {
                    return bad(&item_at, "an object (a list element)", item);
                }
                python_message(item, &item_at, fields)?;
            }
            Ok(())
        }
        (Shape::Strs | Shape::Msgs(_), _) => bad(at, "a list", v),
        (Shape::Map(fields), Kind::Object(members)) => {
            for (key, item) in members {
                let item_at = Child(at, Step::Key(key));
                if item.members().is_none() {
                    return bad(&item_at, "an object (a map value)", item);
                }
                python_message(item, &item_at, fields)?;
            }
            Ok(())
        }
        (Shape::Map(_), _) => bad(at, "an object (a map)", v),
        (Shape::StrMap, Kind::Object(members)) => {
            for (key, item) in members {
                if !item.is_string() {
                    return bad(&Child(at, Step::Key(key)), "a string (a map value)", item);
                }
            }
            Ok(())
        }
        (Shape::StrMap, _) => bad(at, "an object (a map)", v),
    }
}

/// protobuf's `ParseDict` refuses a message nested deeper than this (`max_recursion_depth`, the
/// card's own message being 1), also inside a `Struct`, where every member or element is a
/// `Value` message one level below its container and every object or list a `Struct` or
/// `ListValue` one level below its `Value`: two levels per JSON level.
const PROTOBUF_MAX_DEPTH: usize = 100;

/// Whether a `Struct` field's object cannot reach [`PROTOBUF_MAX_DEPTH`] whatever it holds: its
/// contents span fewer slots than the levels it would take (each level of JSON nesting is at
/// least one slot), so the common small `params` or `header` is not walked.
#[inline]
fn struct_fits(v: Node<'_>, shape: Shape) -> bool {
    let Shape::Struct(depth) = shape else {
        return false;
    };
    let (doc, at) = v.position();
    // A container at message depth m holds values at m + 1 and containers at m + 2: k more
    // levels of JSON below this object reach at most depth + 2k + 1 (k < the slots inside).
    let slots = doc.end_of(at) - at;
    usize::from(depth) + 2 * slots < PROTOBUF_MAX_DEPTH
}

/// A `Struct` (or `ListValue`) at message depth `depth` and everything in it against
/// [`PROTOBUF_MAX_DEPTH`]: a2a-sdk refuses the card beyond it (49 nested objects or lists, the
/// innermost not empty, in an extension's `params`; 50 in a signature's `header`).
fn python_struct(v: Node<'_>, at: &dyn fmt::Display, depth: usize) -> Result<(), Refusal> {
    let too_deep = |path: &dyn fmt::Display, depth: usize| Refusal {
        path: path.to_string(),
        message: format!(
            "a2a-sdk refuses the card: protobuf reads {path} as a message nested {depth} \
             levels deep (a Struct's values count two levels per JSON level), beyond its \
             limit of {PROTOBUF_MAX_DEPTH}"
        ),
    };
    if depth > PROTOBUF_MAX_DEPTH {
        return Err(too_deep(at, depth));
    }
    let child = |i: Step<'_>, item: Node<'_>| {
        let here = Child(at, i);
        if depth + 1 > PROTOBUF_MAX_DEPTH {
            return Err(too_deep(&here, depth + 1));
        }
        match item.kind() {
            Kind::Object(_) | Kind::Array(_) => python_struct(item, &here, depth + 2),
            _ => Ok(()),
        }
    };
    match v.kind() {
        Kind::Object(members) => {
            for (key, item) in members {
                child(Step::Key(key), item)?;
            }
        }
        Kind::Array(items) => {
            for (i, item) in items.enumerate() {
                child(Step::Index(i), item)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// `_map_legacy_security` then protobuf: `null`, `[]`, `{}` and `""` are read as no requirement;
/// otherwise every element must be an object whose every value (the scopes) is `null` or a list
/// of strings. The v1.0 shape `[{"schemes": {"bearer": {"list": []}}}]` is refused (its scopes
/// are an object).
fn python_legacy_security(v: Option<Node<'_>>, at: &str) -> Result<(), Refusal> {
    let refuse = |path: String, what: &str| Refusal {
        path,
        message: format!(
            "a2a-sdk refuses the card: it reads {at} as v0.3 security requirements \
             ([{{\"scheme\": [\"scope\", ...]}}]) and {what}"
        ),
    };
    let items = match v.map(|v| (v, v.kind())) {
        None | Some((_, Kind::Null)) => return Ok(()),
        Some((_, Kind::Array(items))) => items,
        Some((_, Kind::Object(members))) if members.len() == 0 => return Ok(()),
        Some((_, Kind::String(""))) => return Ok(()),
        Some((v, _)) => {
            return Err(refuse(at.to_string(), &format!("found {}", v.type_name())));
        }
    };
    for (i, item) in items.enumerate() {
        let members = match item.members() {
            Some(m) => m,
            None => {
                return Err(refuse(
                    format!("{at}/{i}"),
                    &format!("an element is {}", item.type_name()),
                ))
            }
        };
        for (scheme, scopes) in members {
            let ok = match scopes.kind() {
                Kind::Null => true,
                Kind::Array(mut list) => list.all(|s| s.as_str().is_some()),
                _ => false,
            };
            if !ok {
                return Err(refuse(
                    format!("{at}/{i}/{}", crate::json::pointer_token(scheme)),
                    "the scopes of a scheme are not a list of strings (the v1.0 shape belongs in \
                     securityRequirements)",
                ));
            }
        }
    }
    Ok(())
}

/// Whether `a` and `b` are the same value of one document (or both absent).
fn same_node(a: Option<Node<'_>>, b: Option<Node<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            let ((da, ia), (db, ib)) = (a.position(), b.position());
            std::ptr::eq(da, db) && ia == ib
        }
        _ => false,
    }
}

/// Whether an interface's `tenant` member names a tenant: anything but absent, `null` or `""`
/// (a2a-sdk's `ClientFactory` decorates the transport when the parsed `tenant` is truthy; a value
/// that is not a string is counted as one, fail closed).
fn tenanted(tenant: Option<Node<'_>>) -> bool {
    tenant.is_some_and(|t| !t.is_null() && t.as_str() != Some(""))
}

/// A protobuf JSON list of `AgentInterface`s (both readers agree on this shape: camelCase or
/// snake_case member names, `null` as unset).
fn proto_interfaces(list: Option<Node<'_>>) -> Vec<Interface> {
    list.and_then(Node::items)
        .into_iter()
        .flatten()
        .map(|item| {
            (
                string(either(Some(item), "protocolBinding", "protocol_binding")),
                string(either(Some(item), "protocolVersion", "protocol_version")),
                Url::of(item.get("url")).with_tenant(item.get("tenant")),
                tenanted(item.get("tenant")),
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// npm @a2a-js/sdk 1.3.0

fn js(doc: Node<'_>, legacy_compat: bool) -> Reading {
    js_sharing(doc, legacy_compat, None)
}

/// [`js`], given `read`: a list of interfaces and what [`proto_interfaces`] made of it, which
/// `AgentCard.fromJSON` takes instead of reading that list again.
#[allow(clippy::type_complexity)]
fn js_sharing(
    doc: Node<'_>,
    legacy_compat: bool,
    read: Option<(Option<Node<'_>>, &[Interface])>,
) -> Reading {
    if legacy_compat && js_is_legacy(doc) {
        js_to_core(doc)
    } else if js_is_proto(doc) {
        js_from_json(doc, read)
    } else {
        js_raw(doc)
    }
}

/// The object used as is: only camelCase names exist, legacy members mean nothing.
fn js_raw(doc: Node<'_>) -> Reading {
    let caps = doc.get("capabilities");
    let get = |key: &str| caps.and_then(|c| c.get(key));
    let mut untyped_binding = false;
    let interfaces = doc
        .elements("supportedInterfaces")
        .map(|i| {
            let binding = i.get("protocolBinding");
            untyped_binding |= binding.and_then(Node::as_str).is_none();
            (
                string(binding),
                string(i.get("protocolVersion")),
                Url::of(i.get("url")).with_tenant(i.get("tenant")),
                tenanted(i.get("tenant")),
            )
        })
        .collect();
    Reading {
        streaming: flag(get("streaming")),
        push_notifications: flag(get("pushNotifications")),
        extended_agent_card: flag(get("extendedAgentCard")),
        interfaces,
        untyped_binding,
    }
}

/// `AgentCard.fromJSON`: camelCase first, then snake_case, whatever the order; `null` unset;
/// v0.3 top-level members dropped.
#[allow(clippy::type_complexity)]
fn js_from_json(doc: Node<'_>, read: Option<(Option<Node<'_>>, &[Interface])>) -> Reading {
    let caps = doc.get("capabilities").filter(|c| !c.is_null());
    // A list is taken only when it is an array: a null camelCase list falls through to the
    // snake_case one.
    let list = match doc.get("supportedInterfaces") {
        Some(v) if v.items().is_some() => Some(v),
        _ => doc.get("supported_interfaces"),
    };
    let set = |obj: Option<Node<'_>>, camel: &str, snake: &str| {
        flag(obj.and_then(|o| proto_member(o, camel, snake)))
    };
    Reading {
        streaming: flag(caps.and_then(|c| c.get("streaming"))),
        push_notifications: set(caps, "pushNotifications", "push_notifications"),
        extended_agent_card: set(caps, "extendedAgentCard", "extended_agent_card"),
        interfaces: match read {
            Some((read_list, interfaces)) if same_node(read_list, list) => interfaces.to_vec(),
            _ => proto_interfaces(list),
        },
        // `fromJSON` reads an absent or `null` binding as "".
        untyped_binding: false,
    }
}

/// `toCoreAgentCard` (v0.3 to v1.0): the main interface is built from `url`,
/// `preferredTransport ?? "JSONRPC"` and `protocolVersion || "0.3"` whatever else the card has;
/// additional interfaces are always `"0.3"`; flags are camelCase only, and `extendedAgentCard`
/// comes from `supportsAuthenticatedExtendedCard` alone.
fn js_to_core(doc: Node<'_>) -> Reading {
    let caps = doc.get("capabilities");
    let get = |key: &str| caps.and_then(|c| c.get(key));
    let binding = match doc.get("preferredTransport").and_then(Node::as_str) {
        Some(s) => label(s),
        None => Cow::Borrowed("JSONRPC"),
    };
    let version = match doc.get("protocolVersion").and_then(Node::as_str) {
        Some(s) if !s.is_empty() => label(s),
        _ => Cow::Borrowed("0.3"),
    };
    let mut interfaces = vec![(binding, version, Url::of(doc.get("url")), false)];
    let mut untyped_binding = false;
    if let Some(extra) = doc.get("additionalInterfaces").and_then(Node::items) {
        for item in extra {
            let transport = item.get("transport");
            untyped_binding |= transport.and_then(Node::as_str).is_none();
            interfaces.push((
                string(transport),
                Cow::Borrowed("0.3"),
                Url::of(item.get("url")),
                false,
            ));
        }
    }
    Reading {
        streaming: flag(get("streaming")),
        push_notifications: flag(get("pushNotifications")),
        extended_agent_card: flag(doc.get("supportsAuthenticatedExtendedCard")),
        interfaces,
        untyped_binding,
    }
}

/// `toCoreAgentCard`'s own refusals (`src/compat/v0_3/translate/agent_card.ts`, `security.ts`,
/// `_validate.ts`), in the order it meets them: what it requires (`requireObject`,
/// `requireArray`), the security scheme types it knows, and the TypeErrors its JavaScript throws
/// on JSON values (`x ? x.map(f) : []` on a truthy non-list, `[...x]` on a truthy value that is
/// not a list or a string, a property read on a `null` element). The resolver then throws, so a
/// caller with `legacyCompat` on gets no card.
fn js_legacy_check(doc: Node<'_>) -> Result<(), Refusal> {
    // `additionalInterfaces?.map(toCoreAgentInterface)`: `?.` passes over `null` only.
    let extra = doc.get("additionalInterfaces").filter(|v| !v.is_null());
    if let Some(extra) = extra {
        js_mapped(extra, "/additionalInterfaces", js_element_read)?;
    }
    // `requireObject(compat.capabilities, ...)` then `toCoreAgentCapabilities`.
    let caps = match doc.get("capabilities") {
        Some(c) if matches!(c.kind(), Kind::Object(_) | Kind::Array(_)) => c,
        _ => {
            return Err(js_legacy_refusal(
                "/capabilities",
                "agentCard.capabilities is required",
            ))
        }
    };
    js_truthy_mapped(
        caps.get("extensions"),
        "/capabilities/extensions",
        js_element_read,
    )?;
    // `securitySchemes ? Object.entries(securitySchemes).map(toCoreSecurityScheme) : {}`.
    if let Some(schemes) = doc.get("securitySchemes").filter(|v| js_truthy(*v)) {
        js_entries(schemes, "/securitySchemes", js_legacy_scheme)?;
    }
    js_truthy_mapped(doc.get("security"), "/security", js_legacy_requirement)?;
    for key in ["defaultInputModes", "defaultOutputModes"] {
        js_require_array(
            doc.get(key),
            &format!("/{key}"),
            &format!("agentCard.{key}"),
        )?;
    }
    js_require_array(doc.get("skills"), "/skills", "agentCard.skills")?;
    for (i, skill) in doc.elements("skills").enumerate() {
        let at = format!("/skills/{i}");
        if skill.is_null() {
            return Err(js_type_error(&at, "a skill is null"));
        }
        // Members of a list or a primitive read as `undefined`.
        let skill = skill.members().map(|_| skill);
        js_require_array(
            skill.and_then(|s| s.get("tags")),
            &format!("{at}/tags"),
            "skill.tags",
        )?;
        let Some(skill) = skill else { continue };
        for key in ["examples", "inputModes", "outputModes"] {
            js_spread(skill.get(key), &format!("{at}/{key}"))?;
        }
        js_truthy_mapped(
            skill.get("security"),
            &format!("{at}/security"),
            js_legacy_requirement,
        )?;
    }
    js_truthy_mapped(doc.get("signatures"), "/signatures", js_element_read)
}

fn js_legacy_refusal(path: &str, what: &str) -> Refusal {
    Refusal {
        path: path.to_owned(),
        message: format!(
            "@a2a-js/sdk with legacyCompat refuses the card: its v0.3 conversion (toCoreAgentCard) \
             throws \"{what}\""
        ),
    }
}

fn js_type_error(path: &str, what: &str) -> Refusal {
    js_legacy_refusal(path, &format!("TypeError: {what}"))
}

/// JavaScript truthiness of a member (`undefined` when absent).
fn js_truthy(v: Node<'_>) -> bool {
    match v.kind() {
        Kind::Null => false,
        Kind::Bool(b) => b,
        Kind::Number(n) => n != 0.0,
        Kind::String(s) => !s.is_empty(),
        Kind::Array(_) | Kind::Object(_) => true,
    }
}

/// `requireArray(value, name)`.
fn js_require_array(v: Option<Node<'_>>, path: &str, name: &str) -> Result<(), Refusal> {
    match v.and_then(Node::items) {
        Some(_) => Ok(()),
        None => Err(js_legacy_refusal(
            path,
            &format!("{name} is required and must be an array"),
        )),
    }
}

/// `v.map(f)`: `v` must be a list (no other JSON value has `map`), `f` runs on each element.
fn js_mapped(
    v: Node<'_>,
    path: &str,
    f: fn(Node<'_>, &str) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    let Some(items) = v.items() else {
        return Err(js_type_error(
            path,
            &format!("{} has no map", v.type_name()),
        ));
    };
    for (i, item) in items.enumerate() {
        f(item, &format!("{path}/{i}"))?;
    }
    Ok(())
}

/// `v ? v.map(f) : []`.
fn js_truthy_mapped(
    v: Option<Node<'_>>,
    path: &str,
    f: fn(Node<'_>, &str) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    match v.filter(|v| js_truthy(*v)) {
        Some(v) => js_mapped(v, path, f),
        None => Ok(()),
    }
}

/// `v ? [...v] : []`: a truthy `v` must be iterable (a list or a string).
fn js_spread(v: Option<Node<'_>>, path: &str) -> Result<(), Refusal> {
    match v.filter(|v| js_truthy(*v)).map(Node::kind) {
        None | Some(Kind::Array(_) | Kind::String(_)) => Ok(()),
        Some(_) => Err(js_type_error(
            path,
            "spread of a value that is not iterable",
        )),
    }
}

/// `Object.entries(v)` then `f` on each value: an object's members, a list's elements, a
/// string's characters (each a one-character string); `null` throws; other values have none.
fn js_entries(
    v: Node<'_>,
    path: &str,
    f: fn(Node<'_>, &str) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    match v.kind() {
        Kind::Null => Err(js_type_error(path, "Object.entries(null)")),
        Kind::Object(members) => {
            for (key, value) in members {
                f(
                    value,
                    &format!("{path}/{}", crate::json::pointer_token(key)),
                )?;
            }
            Ok(())
        }
        Kind::Array(items) => {
            for (i, item) in items.enumerate() {
                f(item, &format!("{path}/{i}"))?;
            }
            Ok(())
        }
        // A character is a string: it has no `type` (a scheme) and is iterable (scopes).
        Kind::String(s) if !s.is_empty() => f(v, &format!("{path}/0")),
        _ => Ok(()),
    }
}

/// An element whose members are read: it must not be `null`.
fn js_element_read(v: Node<'_>, path: &str) -> Result<(), Refusal> {
    if v.is_null() {
        Err(js_type_error(path, "a property read on null"))
    } else {
        Ok(())
    }
}

/// `toCoreSecurityScheme`: the v0.3 `type` must be one of five (a string, exactly), and an
/// `oauth2` scheme needs `flows` with one of its four flows truthy (`toCoreOAuthFlows`).
fn js_legacy_scheme(scheme: Node<'_>, path: &str) -> Result<(), Refusal> {
    js_element_read(scheme, path)?;
    let kind = scheme
        .members()
        .and_then(|_| scheme.get("type"))
        .and_then(Node::as_str);
    match kind {
        Some("apiKey" | "http" | "openIdConnect" | "mutualTLS") => Ok(()),
        Some("oauth2") => {
            let at = format!("{path}/flows");
            let flows = scheme.get("flows").filter(|f| !f.is_null());
            let Some(flows) = flows else {
                return Err(js_type_error(&at, "a property read on undefined or null"));
            };
            let any = flows.members().is_some()
                && [
                    "authorizationCode",
                    "clientCredentials",
                    "implicit",
                    "password",
                ]
                .iter()
                .any(|k| flows.get(k).is_some_and(js_truthy));
            if any {
                Ok(())
            } else {
                Err(js_legacy_refusal(
                    &at,
                    "OAuthFlows must declare at least one flow",
                ))
            }
        }
        _ => Err(js_legacy_refusal(
            &format!("{path}/type"),
            "Unsupported v0.3 security scheme type",
        )),
    }
}

/// `toCoreSecurityRequirement`: `Object.entries(requirement)`, each value spread (`[...scopes]`).
fn js_legacy_requirement(requirement: Node<'_>, path: &str) -> Result<(), Refusal> {
    js_entries(requirement, path, |scopes, at| match scopes.kind() {
        Kind::Array(_) | Kind::String(_) => Ok(()),
        _ => Err(js_type_error(at, "spread of scopes that are not iterable")),
    })
}

/// `isLegacyAgentCard` (`src/compat/v0_3/client/card-resolver.ts`).
fn js_is_legacy(doc: Node<'_>) -> bool {
    let list = doc.get("supportedInterfaces");
    if list
        .and_then(Node::items)
        .is_some_and(|items| items.len() > 0)
    {
        return false;
    }
    if doc.get("url").and_then(Node::as_str).is_some() && list.is_none() {
        return true;
    }
    if [
        "preferredTransport",
        "additionalInterfaces",
        "supportsAuthenticatedExtendedCard",
    ]
    .iter()
    .any(|k| has(doc, k))
    {
        return true;
    }
    doc.get("protocolVersion")
        .and_then(Node::as_str)
        .is_some_and(js_is_legacy_version)
}

/// `isLegacyVersion`: empty or blank, or `parseVersion` gives `0.3 <= v < 1.0`.
pub(crate) fn js_is_legacy_version(version: &str) -> bool {
    let trimmed = version.trim_matches(is_js_whitespace);
    if trimmed.is_empty() {
        return true;
    }
    let mut segments = trimmed.split('.');
    let major = match segments.next().and_then(js_parse_int) {
        Some(m) if m >= 0.0 => m,
        _ => return false,
    };
    let minor = match segments.next() {
        None => 0.0,
        Some(s) => match js_parse_int(s) {
            Some(m) if m >= 0.0 => m,
            _ => return false,
        },
    };
    major == 0.0 && minor >= 3.0
}

/// ECMAScript `Number.parseInt(s, 10)`, `None` for `NaN` and for results that are not finite.
fn js_parse_int(s: &str) -> Option<f64> {
    let s = s.trim_start_matches(is_js_whitespace);
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..)?),
        Some(b'+') => (false, s.get(1..)?),
        _ => (false, s),
    };
    let end = digits
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(digits.len());
    let run = digits.get(..end)?;
    if run.is_empty() {
        return None;
    }
    // Only the sign, finiteness and comparisons with 0 and 3 matter here. A run of at most 15
    // digits is below 2^53, so its double is its integer, read here (versions are short: this
    // runs for every interface of a card). A longer run is read by the JSON reader's exact float
    // parser (`str::parse` would link core's dec2flt, 16 KB, into the wasm modules); a run too
    // long for a finite double is `None`.
    #[allow(clippy::cast_precision_loss)] // at most 15 digits: exact
    let value = if run.len() <= 15 {
        run.bytes().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')) as f64
    } else {
        crate::watermark_sources::parse_f64(run)?
    };
    if !value.is_finite() {
        return None;
    }
    Some(if negative { -value } else { value })
}

/// ECMAScript WhiteSpace and LineTerminator (what `String.prototype.trim` removes).
fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}' | '\u{a}' | '\u{b}' | '\u{c}' | '\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `isProtoAgentCard`: proto-shaped `security`, `securitySchemes` or skill `security`.
pub(crate) fn js_is_proto(doc: Node<'_>) -> bool {
    if js_has_proto_security(doc.get("security"))
        || js_has_proto_schemes(doc.get("securitySchemes"))
    {
        return true;
    }
    doc.elements("skills")
        .any(|s| js_has_proto_security(s.get("security")))
}

/// A non-empty array whose first element is an object with a `schemes` member.
fn js_has_proto_security(v: Option<Node<'_>>) -> bool {
    v.and_then(Node::items)
        .and_then(|mut items| items.next())
        .is_some_and(|first| first.get("schemes").is_some())
}

/// An object (or array) whose first value, in JavaScript property order, is an object or array
/// without a `type` member.
fn js_has_proto_schemes(v: Option<Node<'_>>) -> bool {
    let first = match v.map(Node::kind) {
        Some(Kind::Array(mut items)) => items.next(),
        Some(Kind::Object(members)) => js_first_property(members),
        _ => None,
    };
    match first.map(|f| (f, f.kind())) {
        Some((f, Kind::Object(_))) => !has(f, "type"),
        Some((_, Kind::Array(_))) => true,
        _ => false,
    }
}

/// The first value of `Object.values`: integer-like keys (array indices) come first, in
/// ascending order, then the other keys in insertion order.
fn js_first_property(members: Members<'_>) -> Option<Node<'_>> {
    members
        .clone()
        .filter_map(|(k, v)| array_index(k).map(|i| (i, v)))
        .min_by_key(|(i, _)| *i)
        .map(|(_, v)| v)
        .or_else(|| members.clone().next().map(|(_, v)| v))
}

/// `Some(i)` when `key` is an ECMAScript array index: the canonical decimal form of an integer
/// below 2^32 - 1.
fn array_index(key: &str) -> Option<u32> {
    if key.is_empty() || key.len() > 10 || (key.len() > 1 && key.starts_with('0')) {
        return None;
    }
    if !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = key.parse().ok()?;
    u32::try_from(n).ok().filter(|n| *n != u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;
    use crate::json;

    fn doc(text: &str) -> Document {
        json::parse_document(text.as_bytes(), 64).unwrap()
    }

    /// a2a-sdk's extended-card compatibility step: the legacy flag sets the camelCase member
    /// only when that key is absent, so `extendedAgentCard: false` (or `null`) stays.
    #[test]
    fn python_legacy_extended_card_flag_yields_to_the_camel_case_member() {
        let python_flag = |caps: &str| {
            let d = doc(&format!(
                r#"{{"name":"W","version":"1","supportsAuthenticatedExtendedCard":true,"capabilities":{caps},"skills":[]}}"#
            ));
            read(d.root(), Sdk::Python).map(|r| r.extended_agent_card)
        };
        assert_eq!(python_flag(r#"{"extendedAgentCard":false}"#), Ok(false));
        assert_eq!(python_flag(r#"{"extendedAgentCard":null}"#), Ok(false));
        assert_eq!(python_flag("{}"), Ok(true));
        assert_eq!(python_flag(r#"{"streaming":true}"#), Ok(true));
    }

    /// `js_parse_int` reads a short digit run itself and a long one with the exact float
    /// reader: both give the double of the decimal integer (leading zeros, signs, trailing
    /// junk and whitespace as `parseInt`), and a run past `f64` is not finite (`None`).
    #[test]
    fn js_parse_int_short_and_long_runs() {
        let exact = |s: &str| crate::watermark_sources::parse_f64(s).unwrap();
        for run in [
            "0",
            "3",
            "0003",
            "309",
            "123456789012345",
            "999999999999999",
            "000000000000003",
            "1234567890123456",
            "9007199254740993",
            "00000000000000000000003",
        ] {
            assert_eq!(js_parse_int(run), Some(exact(run)), "{run}");
            assert_eq!(
                js_parse_int(&format!(" -{run}x")),
                Some(-exact(run)),
                "{run}"
            );
            assert_eq!(
                js_parse_int(&format!("+{run}.5")),
                Some(exact(run)),
                "{run}"
            );
        }
        assert_eq!(
            js_parse_int("9007199254740993"),
            Some(9_007_199_254_740_992.0)
        );
        assert_eq!(js_parse_int(&"9".repeat(309)), None);
        assert_eq!(
            js_parse_int(&"9".repeat(308)).map(f64::is_finite),
            Some(true)
        );
        assert_eq!(js_parse_int("x3"), None);
        assert_eq!(js_parse_int("-"), None);
        assert!(js_is_legacy_version("0.3") && js_is_legacy_version("0.000000000000003"));
        assert!(!js_is_legacy_version("0.2") && !js_is_legacy_version("1.0"));
        assert!(!js_is_legacy_version(&format!("0.{}", "9".repeat(309))));
    }

    /// No member name matches two fields of one message (`python_message` relies on it to start
    /// its search anywhere): every field's names are distinct from every other field's.
    #[test]
    fn field_names_are_unique() {
        let messages: [&[Field]; 22] = [
            &API_KEY_SCHEME,
            &API_KEY_SCHEME_V03,
            &HTTP_AUTH_SCHEME,
            &AUTHORIZATION_CODE_FLOW,
            &CLIENT_CREDENTIALS_FLOW,
            &IMPLICIT_FLOW,
            &PASSWORD_FLOW,
            &DEVICE_CODE_FLOW,
            &OAUTH_FLOWS,
            &OAUTH2_SCHEME,
            &OPEN_ID_CONNECT_SCHEME,
            &MTLS_SCHEME,
            &SECURITY_SCHEME,
            &STRING_LIST,
            &SECURITY_REQUIREMENT,
            &PROVIDER,
            &SIGNATURE,
            &INTERFACE,
            &EXTENSION,
            &CAPABILITIES,
            &SKILL,
            &CARD,
        ];
        for fields in messages {
            for (i, a) in fields.iter().enumerate() {
                for b in fields.iter().skip(i + 1) {
                    for (x, y) in [(a.0, b.0), (a.0, b.1), (a.1, b.0), (a.1, b.1)] {
                        assert_ne!(x, y, "{} and {}", a.0, b.0);
                    }
                }
            }
        }
    }

    /// `read_all` is `read` for each SDK, whether or not the card is v0.3-shaped (the cards of
    /// the shared vectors: v1.0, legacy, hybrid, snake_case, refused).
    #[test]
    fn read_all_is_read_for_each_sdk() {
        let mut cases = 0;
        for file in [
            include_str!("../tests/vectors/sdk_parity.json"),
            include_str!("../tests/vectors/cards.json"),
            include_str!("../tests/vectors/capabilities.json"),
            include_str!("../tests/vectors/sdk_security.json"),
            include_str!("../tests/vectors/sdk_legacy_compat.json"),
        ] {
            let vectors = json::parse(file.as_bytes(), 64).unwrap();
            for case in vectors
                .get("cases")
                .and_then(json::Value::as_array)
                .unwrap()
            {
                let Some(card) = case.get("card") else {
                    continue;
                };
                let d = Document::from_value(card);
                let each: Result<Vec<_>, _> = Sdk::ALL
                    .into_iter()
                    .map(|sdk| read(d.root(), sdk).map(|r| (sdk, r)))
                    .collect();
                match (read_all(d.root()), each) {
                    (Ok(all), Ok(each)) => assert_eq!(all.to_vec(), each),
                    (Err(a), Err(e)) => assert_eq!(a, e),
                    (a, e) => panic!("{:?}: {a:?} vs {e:?}", case.get("name")),
                }
                cases += 1;
            }
        }
        assert!(cases > 50, "{cases}");
    }

    /// `toCoreAgentCard`'s refusals on JSON values, as @a2a-js/sdk 1.3.0 throws them (each
    /// checked with `normalizeAgentCard` of a legacyCompat resolver): JavaScript truthiness
    /// decides what is mapped or spread, a string's entries are its characters, a list passes
    /// `requireObject`. Only the legacy reading refuses; the default one reads the card.
    #[test]
    fn the_legacy_conversion_refuses_what_its_javascript_throws_on() {
        // A v0.3 card with one member set to (or added as) `value`.
        let legacy = |member: &str, value: &str| {
            let mut card = json::parse(
                br#"{"url":"https://a","capabilities":{},"defaultInputModes":[],
                    "defaultOutputModes":[],"skills":[{"id":"s","tags":[]}]}"#,
                64,
            )
            .unwrap();
            if let json::Value::Object(members) = &mut card {
                members.retain(|(k, _)| k != member);
                members.push((
                    member.to_owned(),
                    json::parse(value.as_bytes(), 64).unwrap(),
                ));
            }
            let d = Document::from_value(&card);
            assert!(read(d.root(), Sdk::JsDefault).is_ok(), "{member}: {value}");
            read(d.root(), Sdk::JsLegacyCompat)
                .map(|_| ())
                .map_err(|r| r.path)
        };
        // Falsy values are not mapped or spread; a number has no entries; strings are
        // iterable; a list passes requireObject (and has no `extensions`).
        for (member, ok) in [
            ("signatures", "0"),
            ("security", r#""""#),
            ("securitySchemes", "false"),
            ("securitySchemes", "7"),
            ("additionalInterfaces", "null"),
            ("security", r#"[{"b":"read"}]"#),
            ("security", r#"["ab", 1]"#),
            (
                "skills",
                r#"[{"id":"s","tags":[],"examples":"text","inputModes":0}]"#,
            ),
            ("securitySchemes", r#"[{"type":"http"}]"#),
            ("capabilities", "[]"),
        ] {
            assert_eq!(legacy(member, ok), Ok(()), "{member}: {ok}");
        }
        for (member, bad, path) in [
            ("signatures", "{}", "/signatures"),
            ("signatures", "[null]", "/signatures/0"),
            ("security", "[null]", "/security/0"),
            ("security", r#"[{"b":{}}]"#, "/security/0/b"),
            ("securitySchemes", r#""x""#, "/securitySchemes/0/type"),
            ("securitySchemes", r#"{"a":null}"#, "/securitySchemes/a"),
            (
                "securitySchemes",
                r#"{"a":{"type":"oauth2"}}"#,
                "/securitySchemes/a/flows",
            ),
            (
                "securitySchemes",
                r#"{"a":{"type":"oauth2","flows":{"implicit":0}}}"#,
                "/securitySchemes/a/flows",
            ),
            (
                "skills",
                r#"[{"id":"s","tags":[],"outputModes":{}}]"#,
                "/skills/0/outputModes",
            ),
            ("skills", r#"["s"]"#, "/skills/0/tags"),
            ("skills", "[null]", "/skills/0"),
            (
                "capabilities",
                r#"{"extensions":true}"#,
                "/capabilities/extensions",
            ),
            ("capabilities", r#""yes""#, "/capabilities"),
            ("additionalInterfaces", "false", "/additionalInterfaces"),
        ] {
            assert_eq!(legacy(member, bad), Err(path.to_owned()), "{member}: {bad}");
        }
    }

    fn bindings(r: &Reading) -> Vec<&str> {
        r.interfaces.iter().map(|(b, _, _, _)| &**b).collect()
    }

    #[test]
    fn python_builds_legacy_interfaces_only_without_the_camel_case_list() {
        let d = doc(r#"{"url":"https://a","preferredTransport":"GRPC",
            "supported_interfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#);
        let p = read(d.root(), Sdk::Python).unwrap();
        assert_eq!(
            p.interfaces,
            [("GRPC".into(), "0.3.0".into(), Url::PlainBase, false)]
        );
        let d =
            doc(r#"{"url":"https://a","preferredTransport":"GRPC","supportedInterfaces":null}"#);
        assert!(read(d.root(), Sdk::Python).unwrap().interfaces.is_empty());
        let d = doc(r#"{"url":"","preferredTransport":"GRPC"}"#);
        assert!(read(d.root(), Sdk::Python).unwrap().interfaces.is_empty());
        let d = doc(r#"{"url":"https://a","preferredTransport":null,"protocolVersion":null}"#);
        assert_eq!(
            read(d.root(), Sdk::Python).unwrap().interfaces,
            [(Label::from(""), Label::from(""), Url::PlainBase, false)]
        );
    }

    #[test]
    fn javascript_paths() {
        // Legacy card: only the compat reading converts it (with the members its conversion
        // requires).
        const V03: &str = r#""defaultInputModes":[],"defaultOutputModes":[],"skills":[]"#;
        let d = doc(&format!(
            r#"{{"url":"https://a","capabilities":{{}},{V03}}}"#
        ));
        assert!(read(d.root(), Sdk::JsDefault)
            .unwrap()
            .interfaces
            .is_empty());
        assert_eq!(
            read(d.root(), Sdk::JsLegacyCompat).unwrap().interfaces,
            [("JSONRPC".into(), "0.3".into(), Url::PlainBase, false)]
        );
        // Proto-shaped security: fromJSON reads snake_case.
        let d = doc(
            r#"{"security":[{"schemes":{}}],"supported_interfaces":[{"protocol_binding":"GRPC"}]}"#,
        );
        assert_eq!(bindings(&read(d.root(), Sdk::JsDefault).unwrap()), ["GRPC"]);
        let d = doc(r#"{"supported_interfaces":[{"protocol_binding":"GRPC"}]}"#);
        assert!(read(d.root(), Sdk::JsDefault)
            .unwrap()
            .interfaces
            .is_empty());
        // The compat conversion ignores capabilities.extendedAgentCard.
        let d = doc(&format!(
            r#"{{"supportsAuthenticatedExtendedCard":false,
                "capabilities":{{"extendedAgentCard":true}},{V03}}}"#
        ));
        assert!(
            !read(d.root(), Sdk::JsLegacyCompat)
                .unwrap()
                .extended_agent_card
        );
        assert!(read(d.root(), Sdk::JsDefault).unwrap().extended_agent_card);
        assert!(read(d.root(), Sdk::Python).unwrap().extended_agent_card);
    }

    #[test]
    fn python_refusals() {
        let d = doc(r#"{"supportsAuthenticatedExtendedCard":true,"capabilities":null}"#);
        assert_eq!(
            read(d.root(), Sdk::Python).unwrap_err().path,
            "/capabilities"
        );
        let d = doc(
            r#"{"supportsAuthenticatedExtendedCard":true,"capabilities":{"extended_agent_card":false}}"#,
        );
        assert!(read(d.root(), Sdk::Python).is_err());
        let d = doc(
            r#"{"supportsAuthenticatedExtendedCard":true,"capabilities":{"extended_agent_card":null}}"#,
        );
        assert!(read(d.root(), Sdk::Python).unwrap().extended_agent_card);
    }

    #[test]
    fn python_reads_security_as_v0_3() {
        let refused = |text: &str| read(doc(text).root(), Sdk::Python).err().map(|r| r.path);
        // The v1.0 shape under the v0.3 name: its scopes are an object.
        assert_eq!(
            refused(r#"{"security":[{"schemes":{"b":{"list":[]}}}]}"#).as_deref(),
            Some("/security/0/schemes")
        );
        assert_eq!(
            refused(r#"{"skills":[{"id":"a","security":[null]}]}"#).as_deref(),
            Some("/skills/0/security/0")
        );
        assert_eq!(
            refused(r#"{"securitySchemes":{"b":[]}}"#).as_deref(),
            Some("/securitySchemes/b")
        );
        assert_eq!(
            refused(r#"{"securitySchemes":[]}"#).as_deref(),
            Some("/securitySchemes")
        );
        // Inside a scheme: v0.3 OAuth flows are a oneof in v1.0; `in` becomes `location`.
        assert_eq!(
            refused(
                r#"{"securitySchemes":{"o":{"type":"oauth2","flows":{"password":{"scopes":{}},"implicit":{}}}}}"#
            )
            .as_deref(),
            Some("/securitySchemes/o/flows/implicit")
        );
        assert_eq!(
            refused(r#"{"securitySchemes":{"k":{"type":"apiKey","in":5}}}"#).as_deref(),
            Some("/securitySchemes/k/in")
        );
        assert_eq!(
            refused(r#"{"securitySchemes":{"k":{"type":[]}}}"#).as_deref(),
            Some("/securitySchemes/k/type")
        );
        assert_eq!(
            refused(r#"{"security_schemes":{"h":{"httpAuthSecurityScheme":{"scheme":5}}}}"#)
                .as_deref(),
            Some("/security_schemes/h/httpAuthSecurityScheme/scheme")
        );
        for fine in [
            r#"{"securitySchemes":{"o":{"type":"oauth2","flows":{"password":{"scopes":{"r":"R"}},"implicit":null}}}}"#,
            r#"{"securitySchemes":{"x":{"type":"bogus","mtlsSecurityScheme":{}}},"security_schemes":{"h":{"type":"http","scheme":5}}}"#,
            r#"{"security":[{"b":["read"]},{"c":null}],"securitySchemes":{"b":{"type":"http"}}}"#,
            r#"{"security":{},"skills":[{"id":"a","security":""}]}"#,
            r#"{"security":[{"schemes":[]}],"securitySchemes":null}"#,
            // With securityRequirements, `security` is dropped unread.
            r#"{"security":5,"securityRequirements":[]}"#,
        ] {
            assert_eq!(refused(fine), None, "{fine}");
        }
    }

    #[test]
    fn python_checks_every_message_field_type() {
        let refused = |text: &str| read(doc(text).root(), Sdk::Python).err().map(|r| r.path);
        for (text, path) in [
            (
                r#"{"skills":[{"id":"a","tags":["x",null]}]}"#,
                "/skills/0/tags/1",
            ),
            (r#"{"description":5}"#, "/description"),
            (r#"{"default_input_modes":"text"}"#, "/default_input_modes"),
            (r#"{"provider":{"url\u0000x":5}}"#, "/provider/url\0x"),
            (r#"{"signatures":[{"[x]":1}]}"#, "/signatures/0/[x]"),
            (
                r#"{"securityRequirements":[{"schemes":{"b":{"list":[1]}}}]}"#,
                "/securityRequirements/0/schemes/b/list/0",
            ),
            (
                r#"{"documentationUrl":"a","documentation_url":"b"}"#,
                "/documentation_url",
            ),
            (
                r#"{"capabilities":{"extensions":[{"uri":"u","params":[]}]}}"#,
                "/capabilities/extensions/0/params",
            ),
        ] {
            assert_eq!(refused(text).as_deref(), Some(path), "{text}");
        }
        for fine in [
            r#"{"documentationUrl":"a","documentation_url":null,"iconUrl":null}"#,
            r#"{"provider":null,"signatures":null,"skills":[{"id":"a","tags":null}]}"#,
            r#"{"unknown":[null],"capabilities":{"extensions":[{"uri":"u","params":{"[x]":1}}]}}"#,
        ] {
            assert_eq!(refused(fine), None, "{fine}");
        }
    }

    /// ParseDict's 100 nested messages, two per JSON level inside a Struct (a2a-sdk 1.3.0 with
    /// protobuf 7.36.2: 48 nested objects in `params` read, 49 refused; `header` one deeper).
    #[test]
    fn python_refuses_structs_nested_past_protobufs_limit() {
        let refused = |text: &str| read(doc(text).root(), Sdk::Python).err().map(|r| r.path);
        let nest = |levels: usize, inner: &str| {
            "{\"a\":".repeat(levels - 1) + inner + &"}".repeat(levels - 1)
        };
        let params = |v: &str| {
            format!(r#"{{"capabilities":{{"extensions":[{{"uri":"u","params":{v}}}]}}}}"#)
        };
        let header = |v: &str| format!(r#"{{"signatures":[{{"header":{v}}}]}}"#);
        // params at message depth 4: the 48th object holds a value at depth 99.
        assert_eq!(refused(&params(&nest(48, "{\"a\":1}"))), None);
        assert_eq!(
            refused(&params(&nest(49, "{}"))),
            None,
            "an empty 49th object is depth 100"
        );
        let deep = "/capabilities/extensions/0/params".to_owned() + &"/a".repeat(49);
        assert_eq!(refused(&params(&nest(49, "{\"a\":1}"))), Some(deep));
        assert_eq!(
            refused(&params(&nest(50, "{}"))),
            Some("/capabilities/extensions/0/params".to_owned() + &"/a".repeat(49))
        );
        // Lists count as objects do; the list inside the Struct is one more level.
        let lists = |n: usize| "[".repeat(n) + "1" + &"]".repeat(n);
        assert_eq!(refused(&params(&format!(r#"{{"a":{}}}"#, lists(47)))), None);
        assert!(refused(&params(&format!(r#"{{"a":{}}}"#, lists(48)))).is_some());
        // header at message depth 3.
        assert_eq!(refused(&header(&nest(49, "{\"a\":1}"))), None);
        assert_eq!(
            refused(&header(&nest(50, "{}"))),
            Some("/signatures/0/header".to_owned() + &"/a".repeat(49))
        );
        // Deep data protobuf does not read as messages (an unknown member) is not counted.
        assert_eq!(refused(&format!(r#"{{"x":{}}}"#, nest(60, "{}"))), None);
    }

    #[test]
    fn legacy_versions_as_javascript_parses_them() {
        for v in [
            "", "  ", "0.3", "0.3.0", "0.9", "0.3x", " 0.4 ", "+0.3", "-0.3",
        ] {
            assert!(js_is_legacy_version(v), "{v:?}");
        }
        for v in ["1.0", "0.2", "abc", "0.-3", "1", ".3"] {
            assert!(!js_is_legacy_version(v), "{v:?}");
        }
        let d = doc(r#"{"b":null,"1":true}"#);
        let first = js_first_property(d.root().members().unwrap());
        assert_eq!(first.and_then(Node::as_bool), Some(true));
        assert_eq!(array_index("01"), None);
        assert_eq!(array_index("4294967295"), None);
        assert_eq!(array_index("4294967294"), Some(4294967294));
    }
}
