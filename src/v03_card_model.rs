//! Whether the resolvers of the SDKs before 1.0 read a card at all.
//!
//! A caller that names only `protocol:0.3` may be on a2a-sdk 0.3.x or @a2a-js/sdk 0.3.x (DESIGN.md,
//! "Callers on a pre-1.0 SDK"). When its resolver refuses the card it raises, and such a caller has
//! no card, no client and none of the card's capabilities. The 1.x readings
//! ([`crate::sdk_reading`]) accept many cards these resolvers refuse, so the gate checks them on
//! their own ([`crate::capability::Capability::covered_by`]):
//!
//! - PyPI a2a-sdk 0.3: `A2ACardResolver` hands the fetched JSON to pydantic,
//!   `AgentCard.model_validate(response.json())`, and raises `A2AClientJSONError` when that fails.
//!   A v1.0 card has no `url`; `description`, `defaultInputModes`, `defaultOutputModes`,
//!   `capabilities`, `skills`, each skill's `name`, `description` and `tags` are required there,
//!   and so on. The model is a2a-sdk 0.3.26's `a2a/types.py` (pydantic 2.14, lax mode, Python
//!   input), read from its source; the tables below restate its fields. What it does, as checked
//!   against the real library (`tests/sdk_parity/v03_picks.py` and the unit tests below):
//!   - a member is looked up by its camelCase alias first, even when that holds `null`, else by
//!     its snake_case field name (`validate_by_alias` and `validate_by_name`; `in_`'s alias is
//!     `in`); other members are ignored;
//!   - a field without a default is required, and one not typed `X | None` refuses `null`;
//!   - `str` takes a JSON string only; `bool` a JSON boolean, the numbers 0 and 1, or one of
//!     `0 off f false n no 1 on t true y yes` in any letter case; a list a JSON array, a dict or
//!     a model a JSON object;
//!   - a security scheme is a union tried member by member: it is accepted when one of the five
//!     scheme models accepts it, and each model's `type` is a `Literal` with that model's name as
//!     its default (so an object without `type` and without a `description` of another type is
//!     read as `mutualTLS`: a v1.0 scheme such as `{"apiKeySecurityScheme": {...}}` passes).
//! - npm @a2a-js/sdk 0.3.11 to 0.3.14: its resolver converts a card it takes for proto JSON
//!   (`isProtoAgentCard`, as the 1.x readings' test) with ts-proto's `AgentCard.fromJSON` and then
//!   `FromProto.agentCard`, and that conversion throws on a security scheme naming none of the five
//!   schemes it converts (or `null`), on an OAuth 2 scheme without a flow it converts, and on a
//!   `null` element of a list of messages (`js_conversion_refusal`). 0.3.7 to 0.3.10 use such
//!   a card as fetched.
//!
//! No library here runs pydantic's or ts-proto's rules, and the walk needs only JSON types, so
//! it is written here.

use crate::document::{JsonType, Kind, Node};
use crate::sdk_reading::js_is_proto;
use std::borrow::Cow;

/// A field's type in the model.
#[derive(Clone, Copy)]
enum Ty {
    /// `str`
    Str,
    /// `bool` (lax: see the module's text)
    Bool,
    /// `list[str]`
    Strs,
    /// `dict[str, Any]`
    Object,
    /// `dict[str, str]` (OAuth scopes)
    StrMap,
    /// `list[dict[str, list[str]]]` (`security`)
    Requirements,
    /// A nested model.
    Model(&'static [Field]),
    /// A list of a nested model.
    Models(&'static [Field]),
    /// `dict[str, SecurityScheme]`
    Schemes,
    /// A `str` enum: one of these values, exactly.
    OneOf(&'static [&'static str]),
}

/// One field: its snake_case name, its camelCase alias, its type and whether it is required.
struct Field(&'static str, &'static str, Ty, bool);

const REQUIRED: bool = true;
const OPTIONAL: bool = false;

/// `AgentCard` (`url`, which a v1.0 card lacks, is looked at first by [`refusal`]).
const CARD: &[Field] = &[
    Field("url", "url", Ty::Str, REQUIRED),
    Field("name", "name", Ty::Str, REQUIRED),
    Field("description", "description", Ty::Str, REQUIRED),
    Field("version", "version", Ty::Str, REQUIRED),
    Field(
        "capabilities",
        "capabilities",
        Ty::Model(CAPABILITIES),
        REQUIRED,
    ),
    Field(
        "default_input_modes",
        "defaultInputModes",
        Ty::Strs,
        REQUIRED,
    ),
    Field(
        "default_output_modes",
        "defaultOutputModes",
        Ty::Strs,
        REQUIRED,
    ),
    Field("skills", "skills", Ty::Models(SKILL), REQUIRED),
    Field(
        "additional_interfaces",
        "additionalInterfaces",
        Ty::Models(INTERFACE),
        OPTIONAL,
    ),
    Field("documentation_url", "documentationUrl", Ty::Str, OPTIONAL),
    Field("icon_url", "iconUrl", Ty::Str, OPTIONAL),
    Field(
        "preferred_transport",
        "preferredTransport",
        Ty::Str,
        OPTIONAL,
    ),
    Field("protocol_version", "protocolVersion", Ty::Str, OPTIONAL),
    Field("provider", "provider", Ty::Model(PROVIDER), OPTIONAL),
    Field("security", "security", Ty::Requirements, OPTIONAL),
    Field("security_schemes", "securitySchemes", Ty::Schemes, OPTIONAL),
    Field("signatures", "signatures", Ty::Models(SIGNATURE), OPTIONAL),
    Field(
        "supports_authenticated_extended_card",
        "supportsAuthenticatedExtendedCard",
        Ty::Bool,
        OPTIONAL,
    ),
];

/// `AgentCapabilities`
const CAPABILITIES: &[Field] = &[
    Field("extensions", "extensions", Ty::Models(EXTENSION), OPTIONAL),
    Field(
        "push_notifications",
        "pushNotifications",
        Ty::Bool,
        OPTIONAL,
    ),
    Field(
        "state_transition_history",
        "stateTransitionHistory",
        Ty::Bool,
        OPTIONAL,
    ),
    Field("streaming", "streaming", Ty::Bool, OPTIONAL),
];

/// `AgentExtension`
const EXTENSION: &[Field] = &[
    Field("uri", "uri", Ty::Str, REQUIRED),
    Field("description", "description", Ty::Str, OPTIONAL),
    Field("params", "params", Ty::Object, OPTIONAL),
    Field("required", "required", Ty::Bool, OPTIONAL),
];

/// `AgentInterface`
const INTERFACE: &[Field] = &[
    Field("transport", "transport", Ty::Str, REQUIRED),
    Field("url", "url", Ty::Str, REQUIRED),
];

/// `AgentProvider`
const PROVIDER: &[Field] = &[
    Field("organization", "organization", Ty::Str, REQUIRED),
    Field("url", "url", Ty::Str, REQUIRED),
];

/// `AgentSkill`
const SKILL: &[Field] = &[
    Field("id", "id", Ty::Str, REQUIRED),
    Field("name", "name", Ty::Str, REQUIRED),
    Field("description", "description", Ty::Str, REQUIRED),
    Field("tags", "tags", Ty::Strs, REQUIRED),
    Field("examples", "examples", Ty::Strs, OPTIONAL),
    Field("input_modes", "inputModes", Ty::Strs, OPTIONAL),
    Field("output_modes", "outputModes", Ty::Strs, OPTIONAL),
    Field("security", "security", Ty::Requirements, OPTIONAL),
];

/// `AgentCardSignature`
const SIGNATURE: &[Field] = &[
    Field("protected", "protected", Ty::Str, REQUIRED),
    Field("signature", "signature", Ty::Str, REQUIRED),
    Field("header", "header", Ty::Object, OPTIONAL),
];

/// The five members of the `SecurityScheme` union: each model's `type` literal and its fields.
const SCHEMES: [(&str, &[Field]); 5] = [
    (
        "apiKey",
        &[
            Field(
                "in_",
                "in",
                Ty::OneOf(&["cookie", "header", "query"]),
                REQUIRED,
            ),
            Field("name", "name", Ty::Str, REQUIRED),
            Field("description", "description", Ty::Str, OPTIONAL),
        ],
    ),
    (
        "http",
        &[
            Field("scheme", "scheme", Ty::Str, REQUIRED),
            Field("bearer_format", "bearerFormat", Ty::Str, OPTIONAL),
            Field("description", "description", Ty::Str, OPTIONAL),
        ],
    ),
    (
        "oauth2",
        &[
            Field("flows", "flows", Ty::Model(FLOWS), REQUIRED),
            Field("description", "description", Ty::Str, OPTIONAL),
            Field(
                "oauth2_metadata_url",
                "oauth2MetadataUrl",
                Ty::Str,
                OPTIONAL,
            ),
        ],
    ),
    (
        "openIdConnect",
        &[
            Field("open_id_connect_url", "openIdConnectUrl", Ty::Str, REQUIRED),
            Field("description", "description", Ty::Str, OPTIONAL),
        ],
    ),
    (
        "mutualTLS",
        &[Field("description", "description", Ty::Str, OPTIONAL)],
    ),
];

/// `OAuthFlows`
const FLOWS: &[Field] = &[
    Field(
        "authorization_code",
        "authorizationCode",
        Ty::Model(AUTHORIZATION_CODE),
        OPTIONAL,
    ),
    Field(
        "client_credentials",
        "clientCredentials",
        Ty::Model(TOKEN_FLOW),
        OPTIONAL,
    ),
    Field("implicit", "implicit", Ty::Model(IMPLICIT), OPTIONAL),
    Field("password", "password", Ty::Model(TOKEN_FLOW), OPTIONAL),
];

/// `AuthorizationCodeOAuthFlow`
const AUTHORIZATION_CODE: &[Field] = &[
    Field("authorization_url", "authorizationUrl", Ty::Str, REQUIRED),
    Field("token_url", "tokenUrl", Ty::Str, REQUIRED),
    Field("scopes", "scopes", Ty::StrMap, REQUIRED),
    Field("refresh_url", "refreshUrl", Ty::Str, OPTIONAL),
];

/// `ClientCredentialsOAuthFlow` and `PasswordOAuthFlow` (the same fields).
const TOKEN_FLOW: &[Field] = &[
    Field("token_url", "tokenUrl", Ty::Str, REQUIRED),
    Field("scopes", "scopes", Ty::StrMap, REQUIRED),
    Field("refresh_url", "refreshUrl", Ty::Str, OPTIONAL),
];

/// `ImplicitOAuthFlow`
const IMPLICIT: &[Field] = &[
    Field("authorization_url", "authorizationUrl", Ty::Str, REQUIRED),
    Field("scopes", "scopes", Ty::StrMap, REQUIRED),
    Field("refresh_url", "refreshUrl", Ty::Str, OPTIONAL),
];

/// Why a2a-sdk 0.3 refuses a card without `url` (every v1.0 card): [`refusal`]'s answer, kept
/// as a constant so that the common case reads nothing else and allocates nothing.
pub const NO_URL: &str = "a2a-sdk 0.3 refuses the card: /url is required";

/// Why a pre-1.0 SDK's resolver refuses the card `doc`, naming the SDK, for the decision's
/// message (`a2a-sdk 0.3 refuses the card: /skills/0/tags is required`), or `None` when both
/// read it.
pub fn refusal(doc: Node<'_>) -> Option<Cow<'static, str>> {
    if doc.json_type() == JsonType::Object && doc.get("url").is_none() {
        return Some(Cow::Borrowed(NO_URL));
    }
    if let Err(miss) = model(doc, CARD) {
        return Some(Cow::Owned(format!("a2a-sdk 0.3 refuses the card: {miss}")));
    }
    if !js_is_proto(doc) {
        return None;
    }
    js_conversion_refusal(doc).err().map(|miss| {
        Cow::Owned(format!("@a2a-js/sdk 0.3.11 and later refuse the card (their conversion from proto JSON throws): {miss}"))
    })
}

/// The first of a member's two spellings (camelCase, then snake_case) whose value `takes`, with
/// the name it has: how ts-proto's `fromJSON` picks a member (`isSet`, `isObject`,
/// `Array.isArray`).
fn first_of<'d>(
    obj: Node<'d>,
    names: [&'static str; 2],
    takes: impl Fn(Node<'d>) -> bool,
) -> Option<(&'static str, Node<'d>)> {
    names
        .into_iter()
        .find_map(|name| obj.get(name).filter(|v| takes(*v)).map(|v| (name, v)))
}

/// An array (`Array.isArray`).
fn is_array(v: Node<'_>) -> bool {
    v.json_type() == JsonType::Array
}

/// The security scheme members ts-proto's `SecurityScheme.fromJSON` tries, in its order, and
/// whether the scheme is OAuth 2 (whose flows `FromProto` converts next).
const JS_SCHEMES: [(&str, bool); 10] = [
    ("apiKeySecurityScheme", false),
    ("api_key_security_scheme", false),
    ("httpAuthSecurityScheme", false),
    ("http_auth_security_scheme", false),
    ("oauth2SecurityScheme", true),
    ("oauth2_security_scheme", true),
    ("openIdConnectSecurityScheme", false),
    ("open_id_connect_security_scheme", false),
    ("mtlsSecurityScheme", false),
    ("mtls_security_scheme", false),
];

/// The OAuth flow members `OAuthFlows.fromJSON` tries.
const JS_FLOWS: [&str; 6] = [
    "authorizationCode",
    "authorization_code",
    "clientCredentials",
    "client_credentials",
    "implicit",
    "password",
];

/// Where @a2a-js/sdk 0.3.11's conversion of a proto-shaped card throws (its `fromJSON` reads a
/// member unless it is absent or `null`, camelCase before snake_case; `isObject` is true of
/// arrays too):
/// - each value of `securitySchemes` (else `security_schemes`), when that is an object or array,
///   must be an object with one of [`JS_SCHEMES`] set; an OAuth 2 one needs `flows` set, with one
///   of [`JS_FLOWS`] set (`FromProto.securityScheme` and `oauthFlows` throw on anything else);
///   (a scheme keyed `__proto__` sets the map's prototype instead, and is not converted);
/// - no element of `additionalInterfaces` (else `additional_interfaces`), `skills`,
///   `signatures`, `security`, `capabilities.extensions` or a skill's `security` is `null`
///   (`fromJSON` reads a member of each element);
/// - the v0.3 members pydantic may leave unread (behind a camelCase `null`) and `fromJSON` passes
///   to `globalThis.String`: `protocolVersion`, `preferredTransport`, `documentationUrl` (each
///   else its snake_case spelling), an additional interface's `url` and `transport`, a skill's
///   input and output modes, are values `String()` does not throw on ([`stringifies`]).
fn js_conversion_refusal(doc: Node<'_>) -> Result<(), Miss> {
    // `isObject`: an object or an array.
    let container = |v: Node<'_>| matches!(v.json_type(), JsonType::Object | JsonType::Array);
    let schemes = first_of(doc, ["securitySchemes", "security_schemes"], container);
    if let Some((name, schemes)) = schemes {
        let refused = |key: String| {
            Miss::at("names no security scheme it converts (or an OAuth 2 one without a flow)")
                .within(key)
                .within(name)
        };
        match schemes.kind() {
            Kind::Object(members) => {
                for (key, scheme) in members {
                    // `acc["__proto__"] = ...` sets the map's prototype: no entry, nothing
                    // converted (but `fromJSON` still reads a member of the value).
                    let entry = key != "__proto__" || scheme.is_null();
                    if entry && !js_scheme_converts(scheme) {
                        return Err(refused(key.to_owned()));
                    }
                }
            }
            Kind::Array(items) => {
                for (i, scheme) in items.enumerate() {
                    if !js_scheme_converts(scheme) {
                        return Err(refused(i.to_string()));
                    }
                }
            }
            _ => {}
        }
    }
    let interfaces = first_of(
        doc,
        ["additionalInterfaces", "additional_interfaces"],
        is_array,
    );
    if let Some((name, list)) = interfaces {
        no_null_element(Some(list)).map_err(|m| m.within(name))?;
        for (i, entry) in list.items().into_iter().flatten().enumerate() {
            for member in ["url", "transport"] {
                stringifies(set(entry, member))
                    .map_err(|m| m.within(member).within(i).within(name))?;
            }
        }
    }
    // The v0.3 members pydantic does not read behind a camelCase `null` (the 1.x readings read
    // the others, and refuse a value that is not a string).
    for (camel, snake) in [
        ("protocolVersion", "protocol_version"),
        ("preferredTransport", "preferred_transport"),
        ("documentationUrl", "documentation_url"),
    ] {
        if let Some((name, value)) = first_of(doc, [camel, snake], |v| !v.is_null()) {
            stringifies(Some(value)).map_err(|m| m.within(name))?;
        }
    }
    for (i, skill) in doc.elements("skills").enumerate() {
        for (camel, snake) in [
            ("inputModes", "input_modes"),
            ("outputModes", "output_modes"),
        ] {
            let Some((name, list)) = first_of(skill, [camel, snake], is_array) else {
                continue;
            };
            for (j, mode) in list.items().into_iter().flatten().enumerate() {
                stringifies(Some(mode))
                    .map_err(|m| m.within(j).within(name).within(i).within("skills"))?;
            }
        }
    }
    for name in ["skills", "signatures", "security"] {
        no_null_element(doc.get(name)).map_err(|m| m.within(name))?;
    }
    let extensions = doc.get("capabilities").and_then(|c| c.get("extensions"));
    no_null_element(extensions).map_err(|m| m.within("extensions").within("capabilities"))?;
    for (i, skill) in doc.elements("skills").enumerate() {
        no_null_element(skill.get("security"))
            .map_err(|m| m.within("security").within(i).within("skills"))?;
    }
    Ok(())
}

/// Whether `FromProto` converts the security scheme `scheme`: an object with one of
/// [`JS_SCHEMES`] set, the first of which, when OAuth 2, has `flows` with one of [`JS_FLOWS`].
fn js_scheme_converts(scheme: Node<'_>) -> bool {
    if scheme.json_type() != JsonType::Object {
        return false;
    }
    match JS_SCHEMES
        .iter()
        .find_map(|&(k, oauth)| set(scheme, k).map(|v| (v, oauth)))
    {
        None => false,
        Some((_, false)) => true,
        Some((oauth2, true)) => set(oauth2, "flows")
            .is_some_and(|flows| JS_FLOWS.iter().any(|k| set(flows, k).is_some())),
    }
}

/// `globalThis.String(v)` does not throw. It throws on an object with its own `toString`
/// member (never a function in JSON: neither it nor the inherited `valueOf` gives a primitive),
/// and on an array holding one at any depth (`join` converts each element).
fn stringifies(v: Option<Node<'_>>) -> Result<(), Miss> {
    fn throws(v: Node<'_>) -> bool {
        match v.kind() {
            Kind::Object(_) => v.get("toString").is_some(),
            Kind::Array(mut items) => items.any(throws),
            _ => false,
        }
    }
    match v.filter(|v| throws(*v)) {
        Some(_) => Err(Miss::at(
            "is a value JavaScript's String() throws on (an object with its own toString member)",
        )),
        None => Ok(()),
    }
}

/// The member `key` of `obj` unless it is absent or `null` (ts-proto's `isSet`).
fn set<'d>(obj: Node<'d>, key: &str) -> Option<Node<'d>> {
    obj.get(key).filter(|v| !v.is_null())
}

/// No element of the array `list` (when it is one) is `null`.
fn no_null_element(list: Option<Node<'_>>) -> Result<(), Miss> {
    match list
        .and_then(Node::items)
        .and_then(|mut items| items.position(|x| x.is_null()))
    {
        Some(i) => Err(Miss::at("is null, which the conversion reads a member of").within(i)),
        None => Ok(()),
    }
}

/// Where a reader refuses a value, and why. Built only on a refusal.
struct Miss {
    /// The path's steps, innermost first.
    steps: Vec<String>,
    what: &'static str,
}

impl Miss {
    fn at(what: &'static str) -> Miss {
        Miss {
            steps: Vec::new(),
            what,
        }
    }

    fn within(mut self, step: impl ToString) -> Miss {
        self.steps.push(step.to_string());
        self
    }
}

impl std::fmt::Display for Miss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.steps.is_empty() {
            return write!(f, "the card {}", self.what);
        }
        // A JSON Pointer (RFC 6901): `~` and `/` in a member name escaped.
        for step in self.steps.iter().rev() {
            write!(f, "/{}", step.replace('~', "~0").replace('/', "~1"))?;
        }
        write!(f, " {}", self.what)
    }
}

/// The member pydantic takes for `field`: the alias when present (even `null`), else the name.
fn member<'d>(obj: Node<'d>, field: &Field) -> Option<(&'static str, Node<'d>)> {
    let Field(name, alias, ..) = *field;
    match obj.get(alias) {
        Some(v) => Some((alias, v)),
        None if name != alias => obj.get(name).map(|v| (name, v)),
        None => None,
    }
}

/// A model: `obj` must be an object whose fields each validate.
fn model(obj: Node<'_>, fields: &[Field]) -> Result<(), Miss> {
    if obj.json_type() != JsonType::Object {
        return Err(Miss::at("is not an object"));
    }
    for field in fields {
        match member(obj, field) {
            None if field.3 => return Err(Miss::at("is required").within(field.1)),
            Some((_, v)) if v.is_null() && field.3 => {
                return Err(Miss::at("is null").within(field.1))
            }
            None => {}
            Some((_, v)) if v.is_null() => {}
            Some((key, v)) => value(v, field.2).map_err(|m| m.within(key))?,
        }
    }
    Ok(())
}

/// One non-null value of type `ty`.
fn value(v: Node<'_>, ty: Ty) -> Result<(), Miss> {
    let ok = match ty {
        Ty::Str => v.is_string(),
        Ty::Bool => lax_bool(v),
        Ty::Strs => strings(v),
        Ty::Object => v.json_type() == JsonType::Object,
        Ty::OneOf(values) => v.as_str().is_some_and(|s| values.contains(&s)),
        Ty::StrMap => v
            .members()
            .is_some_and(|mut m| m.all(|(_, x)| x.is_string())),
        Ty::Requirements => {
            let Some(items) = v.items() else {
                return Err(Miss::at("is not a list"));
            };
            for (i, item) in items.enumerate() {
                let ok = item
                    .members()
                    .is_some_and(|mut m| m.all(|(_, x)| strings(x)));
                if !ok {
                    return Err(Miss::at("is not an object of lists of strings").within(i));
                }
            }
            true
        }
        Ty::Model(fields) => return model(v, fields),
        Ty::Models(fields) => {
            let Some(items) = v.items() else {
                return Err(Miss::at("is not a list"));
            };
            for (i, item) in items.enumerate() {
                model(item, fields).map_err(|m| m.within(i))?;
            }
            true
        }
        Ty::Schemes => {
            let Some(members) = v.members() else {
                return Err(Miss::at("is not an object"));
            };
            for (name, scheme) in members {
                if !SCHEMES
                    .iter()
                    .any(|(kind, fields)| security_scheme(scheme, kind, fields))
                {
                    return Err(
                        Miss::at("is none of the five security schemes it reads").within(name)
                    );
                }
            }
            true
        }
    };
    if ok {
        Ok(())
    } else {
        Err(Miss::at(match ty {
            Ty::Str => "is not a string",
            Ty::Bool => "is not a boolean pydantic reads",
            Ty::Strs => "is not a list of strings",
            Ty::OneOf(_) => "is not one of the values it reads",
            Ty::StrMap => "is not an object of strings",
            _ => "is not an object",
        }))
    }
}

/// Whether `scheme` is a security scheme of the model `kind` with `fields`: its `type`, absent or
/// exactly `kind`, and its fields.
fn security_scheme(scheme: Node<'_>, kind: &str, fields: &[Field]) -> bool {
    let typed = match scheme.get("type") {
        None => true,
        Some(t) => t.as_str() == Some(kind),
    };
    typed && model(scheme, fields).is_ok()
}

/// A JSON array of strings.
fn strings(v: Node<'_>) -> bool {
    v.items()
        .is_some_and(|mut items| items.all(|x| x.is_string()))
}

/// A value pydantic's lax `bool` takes: a boolean, the number 0 or 1 (`1.0` too: a JSON number is
/// an int or a float there, and either is taken when it equals 0 or 1), or one of its words in
/// any ASCII letter case (no other letter's lower case is one of theirs).
fn lax_bool(v: Node<'_>) -> bool {
    const WORDS: [&str; 12] = [
        "0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes",
    ];
    match v.json_type() {
        JsonType::Bool => true,
        JsonType::Number => v.as_f64().is_some_and(|n| n == 0.0 || n == 1.0),
        JsonType::String => v
            .as_str()
            .is_some_and(|s| WORDS.iter().any(|w| w.eq_ignore_ascii_case(s))),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::refusal;

    /// A dual card the model accepts; each case edits it.
    const BASE: &str = r#"{"url":"https://a.example/a2a","name":"W","description":"d","version":"1",
        "capabilities":{},"defaultInputModes":["t"],"defaultOutputModes":["t"],
        "skills":[{"id":"s","name":"n","description":"d","tags":["t"]}]}"#;

    fn refused(text: &str) -> Option<String> {
        let doc = crate::json::parse_document(text.as_bytes(), 64).expect("test JSON parses");
        refusal(doc.root()).map(|why| why.into_owned())
    }

    /// BASE with `edit` merged at the top level (a member set to JSON `"DROP"` is removed).
    fn card(edit: &str) -> String {
        let mut base: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(BASE).expect("BASE");
        let edit: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(edit).expect("edit");
        for (k, v) in edit {
            if v == "DROP" {
                base.remove(&k);
            } else {
                base.insert(k, v);
            }
        }
        serde_json::to_string(&base).expect("card")
    }

    #[test]
    fn the_base_card_and_its_lenient_variants_are_read() {
        for edit in [
            "{}",
            r#"{"defaultInputModes":"DROP","default_input_modes":["x"]}"#,
            r#"{"default_input_modes":5}"#,
            r#"{"protocolVersion":null,"preferredTransport":null,"provider":null,"iconUrl":null}"#,
            r#"{"supportsAuthenticatedExtendedCard":"yEs"}"#,
            r#"{"supportsAuthenticatedExtendedCard":1}"#,
            r#"{"supportsAuthenticatedExtendedCard":0.0}"#,
            r#"{"capabilities":{"streaming":"OFF","pushNotifications":null,"extensions":[{"uri":"u","params":{}}]}}"#,
            r#"{"securitySchemes":{"k":{"apiKeySecurityScheme":{"location":"header","name":"k"}}}}"#,
            r#"{"securitySchemes":{"k":{"type":"apiKey","in_":"header","name":"x"}}}"#,
            r#"{"securitySchemes":{"k":{"type":"oauth2","flows":{}}}}"#,
            r#"{"securitySchemes":{"k":{"type":"oauth2","flows":{},"oauth2MetadataUrl":null,"oauth2_metadata_url":5}}}"#,
            r#"{"securitySchemes":{"k":{"type":"oauth2","flows":{"password":{"tokenUrl":"t","scopes":{"a":"b"}}}}}}"#,
            r#"{"securitySchemes":{"k":{"type":"mutualTLS","description":null}}}"#,
            r#"{"security":[{"k":["a"]},{}]}"#,
            r#"{"signatures":[{"protected":"p","signature":"s","header":{"kid":"k"}}]}"#,
            r#"{"additionalInterfaces":[{"transport":"GRPC","url":"g:443"}]}"#,
            r#"{"name":""}"#,
        ] {
            assert_eq!(refused(&card(edit)), None, "{edit}");
        }
    }

    #[test]
    fn what_the_model_refuses_is_named_with_its_path() {
        for (edit, why) in [
            (r#"{"url":"DROP"}"#, "/url is required"),
            (r#"{"url":5}"#, "/url is not a string"),
            (r#"{"description":"DROP"}"#, "/description is required"),
            (r#"{"description":null}"#, "/description is null"),
            (
                r#"{"defaultInputModes":null,"default_input_modes":["x"]}"#,
                "/defaultInputModes is null",
            ),
            (
                r#"{"defaultOutputModes":"t"}"#,
                "/defaultOutputModes is not a list of strings",
            ),
            (r#"{"capabilities":[]}"#, "/capabilities is not an object"),
            (r#"{"skills":{}}"#, "/skills is not a list"),
            (
                r#"{"skills":[{"id":"s","name":"n","description":"d"}]}"#,
                "/skills/0/tags is required",
            ),
            (
                r#"{"skills":[{"id":"s","name":"n","description":"d","tags":[],"inputModes":"x"}]}"#,
                "/skills/0/inputModes is not a list of strings",
            ),
            (
                r#"{"provider":{"organization":"o"}}"#,
                "/provider/url is required",
            ),
            (
                r#"{"capabilities":{"extensions":[{"uri":5}]}}"#,
                "/capabilities/extensions/0/uri is not a string",
            ),
            (
                r#"{"capabilities":{"extensions":[{"uri":"u","params":[]}]}}"#,
                "/capabilities/extensions/0/params is not an object",
            ),
            (
                r#"{"capabilities":{"streaming":2}}"#,
                "/capabilities/streaming is not a boolean pydantic reads",
            ),
            (
                r#"{"capabilities":{"streaming":" true"}}"#,
                "/capabilities/streaming is not a boolean pydantic reads",
            ),
            (
                r#"{"supportsAuthenticatedExtendedCard":[]}"#,
                "/supportsAuthenticatedExtendedCard is not a boolean pydantic reads",
            ),
            (
                r#"{"signatures":[{"protected":"p","signature":"s","header":[]}]}"#,
                "/signatures/0/header is not an object",
            ),
            (
                r#"{"security":[{"schemes":{"k":{"list":[]}}}]}"#,
                "/security/0 is not an object of lists of strings",
            ),
            (
                r#"{"securitySchemes":[]}"#,
                "/securitySchemes is not an object",
            ),
            (
                r#"{"securitySchemes":{"k":"x"}}"#,
                "/securitySchemes/k is none of the five security schemes it reads",
            ),
            (
                r#"{"securitySchemes":{"k":{"type":null}}}"#,
                "/securitySchemes/k is none of the five security schemes it reads",
            ),
            (
                r#"{"securitySchemes":{"k":{"description":5}}}"#,
                "/securitySchemes/k is none of the five security schemes it reads",
            ),
            (
                r#"{"securitySchemes":{"k":{"type":"apiKey","in":"Header","name":"x"}}}"#,
                "/securitySchemes/k is none of the five security schemes it reads",
            ),
            (
                r#"{"securitySchemes":{"k":{"type":"apiKey","in":null,"in_":"header","name":"x"}}}"#,
                "/securitySchemes/k is none of the five security schemes it reads",
            ),
            (
                r#"{"securitySchemes":{"k":{"type":"http"}}}"#,
                "/securitySchemes/k is none of the five security schemes it reads",
            ),
            (
                r#"{"securitySchemes":{"k":{"type":"oauth2"}}}"#,
                "/securitySchemes/k is none of the five security schemes it reads",
            ),
            (
                r#"{"securitySchemes":{"k":{"type":"oauth2","flows":{"implicit":{"authorizationUrl":"u","scopes":{"a":1}}}}}}"#,
                "/securitySchemes/k is none of the five security schemes it reads",
            ),
            (
                r#"{"securitySchemes":{"k":{"type":"oauth2","flows":{},"oauth2MetadataUrl":5}}}"#,
                "/securitySchemes/k is none of the five security schemes it reads",
            ),
            (
                r#"{"additionalInterfaces":[{"transport":"GRPC"}]}"#,
                "/additionalInterfaces/0/url is required",
            ),
        ] {
            assert_eq!(
                refused(&card(edit)),
                Some(format!("a2a-sdk 0.3 refuses the card: {why}")),
                "{edit}"
            );
        }
    }

    #[test]
    fn a_top_level_value_that_is_not_an_object_is_refused() {
        assert_eq!(
            refused("[]").as_deref(),
            Some("a2a-sdk 0.3 refuses the card: the card is not an object")
        );
    }

    #[test]
    fn a_proto_shaped_card_is_refused_where_the_js_conversion_throws() {
        let js = |why: &str| {
            Some(format!(
                "@a2a-js/sdk 0.3.11 and later refuse the card (their conversion from proto JSON throws): {why}"
            ))
        };
        let scheme = "/securitySchemes/k names no security scheme it converts (or an OAuth 2 one without a flow)";
        const STRING: &str =
            "is a value JavaScript's String() throws on (an object with its own toString member)";
        for (edit, want) in [
            (
                r#"{"securitySchemes":{"k":{"apiKeySecurityScheme":{"location":"header","name":"k"}}}}"#,
                None,
            ),
            (
                r#"{"securitySchemes":{"k":{"apiKeySecurityScheme":null,"mtls_security_scheme":{}}}}"#,
                None,
            ),
            (
                r#"{"securitySchemes":{"k":{"oauth2SecurityScheme":{"flows":{"implicit":{}}}}}}"#,
                None,
            ),
            (r#"{"securitySchemes":{"k":{}}}"#, js(scheme)),
            (
                r#"{"securitySchemes":{"k":{"apiKeySecurityScheme":null}}}"#,
                js(scheme),
            ),
            (
                r#"{"securitySchemes":{"k":{"oauth2SecurityScheme":{"flows":{"deviceCode":{}}}}}}"#,
                js(scheme),
            ),
            (
                r#"{"securitySchemes":{"k":{"oauth2_security_scheme":{}}}}"#,
                js(scheme),
            ),
            // A scheme keyed __proto__ becomes the map's prototype: not converted (a null one pydantic
            // refuses first).
            (r#"{"securitySchemes":{"__proto__":{}}}"#, None),
            (r#"{"securitySchemes":{"k":{"mtlsSecurityScheme":{}},"__proto__":null}}"#, Some("a2a-sdk 0.3 refuses the card: /securitySchemes/__proto__ is none of the five security schemes it reads".into())),
            // String() throws on an object with its own toString, in members pydantic leaves
            // unread behind a camelCase null; not on one it never converts.
            (
                r#"{"securitySchemes":{"k":{"mtlsSecurityScheme":{}}},"protocolVersion":null,"protocol_version":{"toString":0}}"#,
                js(&format!("/protocol_version {STRING}")),
            ),
            (
                r#"{"securitySchemes":{"k":{"mtlsSecurityScheme":{}}},"preferredTransport":null,"preferred_transport":[1,[{"toString":"x"}]]}"#,
                js(&format!("/preferred_transport {STRING}")),
            ),
            (
                r#"{"securitySchemes":{"k":{"mtlsSecurityScheme":{}}},"additionalInterfaces":null,"additional_interfaces":[{"url":"u","transport":{"toString":null}}]}"#,
                js(&format!("/additional_interfaces/0/transport {STRING}")),
            ),
            (
                r#"{"securitySchemes":{"k":{"mtlsSecurityScheme":{}}},"preferredTransport":null,"preferred_transport":{"valueOf":0},"capabilities":{"extensions":[{"uri":"u","params":{"toString":0}}]}}"#,
                None,
            ),
            // A v0.3 scheme first: not proto-shaped, so not converted.
            (
                r#"{"securitySchemes":{"a":{"type":"mutualTLS"},"k":{}}}"#,
                None,
            ),
            // pydantic takes the camelCase null and reads no interfaces; the conversion takes
            // the snake_case list, and reads a member of its null.
            (
                r#"{"securitySchemes":{"k":{"mtlsSecurityScheme":{}}},"additionalInterfaces":null,"additional_interfaces":[null]}"#,
                js("/additional_interfaces/0 is null, which the conversion reads a member of"),
            ),
        ] {
            assert_eq!(refused(&card(edit)), want, "{edit}");
        }
    }
}
