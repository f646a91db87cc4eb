//! Reading an Agent Card: only what the gate needs, strictly.
//!
//! Accepts A2A v1.0 cards (ProtoJSON, camelCase), v0.3/v1.0 hybrids and legacy v0.3 cards, and
//! ignores members it does not read. A member it does read must have the right type, or the card
//! is malformed: a gate that skipped a mistyped `version` would be checking a different card
//! than the one the caller will use.

use crate::json::{self, pointer_token, JsonErrorKind, Value};
use crate::reason::ReasonCode;

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

/// Why a card could not be read: the malformed-card reason, where, and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardDefect {
    /// The stable reason code.
    pub code: ReasonCode,
    /// JSON Pointer of the offending member (`""` for the document).
    pub path: String,
    /// Byte offset of a syntax-level problem.
    pub offset: Option<usize>,
    /// A sentence saying what is wrong.
    pub message: String,
}

/// One way of reaching the agent, from `supportedInterfaces` or legacy fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// `JSONRPC`, `GRPC`, `HTTP+JSON` or a URI.
    pub protocol_binding: String,
    /// `Major.Minor` (or as declared), if declared.
    pub protocol_version: Option<String>,
}

/// What the gate reads from a card.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentCard {
    /// `name`.
    pub name: String,
    /// `version`: the agent's own version, not the protocol's.
    pub version: String,
    /// `skills[].id`, in order.
    pub skill_ids: Vec<String>,
    /// `capabilities.extensions[].uri`, in order.
    pub extension_uris: Vec<String>,
    /// `capabilities.streaming == true`.
    pub streaming: bool,
    /// `capabilities.pushNotifications == true`.
    pub push_notifications: bool,
    /// `capabilities.extendedAgentCard == true` (legacy: `supportsAuthenticatedExtendedCard`).
    pub extended_agent_card: bool,
    /// Interfaces, v1.0 first then legacy v0.3 ones.
    pub interfaces: Vec<Interface>,
}

impl AgentCard {
    /// Reads the body into a strict I-JSON document, within `limits`. Whether that document is
    /// a usable card is [`AgentCard::from_value`]'s question.
    pub fn parse_document(bytes: &[u8], limits: &Limits) -> Result<Value, CardDefect> {
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
        json::parse(bytes, limits.max_depth).map_err(|e| {
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
    pub fn from_value(doc: &Value) -> Result<AgentCard, CardDefect> {
        if doc.as_object().is_none() {
            return Err(defect(
                ReasonCode::NotAnObject,
                "",
                format!("card must be a JSON object, found {}", doc.type_name()),
            ));
        }
        let name = required_string(doc, "", "name")?;
        let version = required_string(doc, "", "version")?;
        let caps = required(doc, "", "capabilities")?;
        if caps.as_object().is_none() {
            return Err(wrong_type("/capabilities", "object", caps));
        }
        let flag = |key: &str| -> Result<bool, CardDefect> {
            match caps.get(key) {
                None | Some(Value::Null) => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(other) => Err(wrong_type(
                    &format!("/capabilities/{key}"),
                    "boolean",
                    other,
                )),
            }
        };
        let streaming = flag("streaming")?;
        let push_notifications = flag("pushNotifications")?;
        let mut extended_agent_card = flag("extendedAgentCard")?;
        match doc.get("supportsAuthenticatedExtendedCard") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => extended_agent_card |= *b,
            Some(other) => {
                return Err(wrong_type(
                    "/supportsAuthenticatedExtendedCard",
                    "boolean",
                    other,
                ))
            }
        }
        let extension_uris = array_of_strings(
            caps.get("extensions"),
            "/capabilities/extensions",
            "uri",
            false,
        )?;
        let skills = required(doc, "", "skills")?;
        let skill_ids = array_of_strings(Some(skills), "/skills", "id", true)?;

        let mut interfaces = Vec::new();
        if let Some(list) = optional_array(doc, "supportedInterfaces")? {
            for (i, item) in list.iter().enumerate() {
                let at = format!("/supportedInterfaces/{i}");
                if item.as_object().is_none() {
                    return Err(wrong_type(&at, "object", item));
                }
                let binding = optional_string(item, &at, "protocolBinding")?;
                let version = optional_string(item, &at, "protocolVersion")?;
                if let Some(binding) = binding {
                    interfaces.push(Interface {
                        protocol_binding: binding,
                        protocol_version: version,
                    });
                }
            }
        } else {
            // Legacy v0.3 card: `url` + `preferredTransport` (default JSONRPC) is the main
            // interface, `additionalInterfaces` the others, all at the top-level
            // `protocolVersion`. On a v1.0 card these leftovers are ignored: a v1.0 caller
            // connects through `supportedInterfaces` only.
            let legacy_protocol = optional_string(doc, "", "protocolVersion")?;
            let preferred = optional_string(doc, "", "preferredTransport")?;
            if optional_string(doc, "", "url")?.is_some() || preferred.is_some() {
                interfaces.push(Interface {
                    protocol_binding: preferred.unwrap_or_else(|| "JSONRPC".to_string()),
                    protocol_version: legacy_protocol.clone(),
                });
            }
            if let Some(list) = optional_array(doc, "additionalInterfaces")? {
                for (i, item) in list.iter().enumerate() {
                    let at = format!("/additionalInterfaces/{i}");
                    if item.as_object().is_none() {
                        return Err(wrong_type(&at, "object", item));
                    }
                    if let Some(transport) = optional_string(item, &at, "transport")? {
                        interfaces.push(Interface {
                            protocol_binding: transport,
                            protocol_version: legacy_protocol.clone(),
                        });
                    }
                }
            }
        }
        Ok(AgentCard {
            name,
            version,
            skill_ids,
            extension_uris,
            streaming,
            push_notifications,
            extended_agent_card,
            interfaces,
        })
    }
}

fn defect(code: ReasonCode, path: &str, message: String) -> CardDefect {
    CardDefect {
        code,
        path: path.to_string(),
        offset: None,
        message,
    }
}

fn wrong_type(path: &str, expected: &str, found: &Value) -> CardDefect {
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

fn required<'a>(obj: &'a Value, at: &str, key: &str) -> Result<&'a Value, CardDefect> {
    obj.get(key).ok_or_else(|| {
        let path = format!("{at}/{}", pointer_token(key));
        defect(
            ReasonCode::MissingField,
            &path,
            format!("card has no {path} member, which the gate needs"),
        )
    })
}

fn required_string(obj: &Value, at: &str, key: &str) -> Result<String, CardDefect> {
    let v = required(obj, at, key)?;
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| wrong_type(&format!("{at}/{}", pointer_token(key)), "string", v))
}

fn optional_string(obj: &Value, at: &str, key: &str) -> Result<Option<String>, CardDefect> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(wrong_type(
            &format!("{at}/{}", pointer_token(key)),
            "string",
            other,
        )),
    }
}

fn optional_array<'a>(obj: &'a Value, key: &str) -> Result<Option<&'a [Value]>, CardDefect> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(other) => Err(wrong_type(
            &format!("/{}", pointer_token(key)),
            "array",
            other,
        )),
    }
}

/// `list[].field` as strings; with `required`, every element must have the field.
fn array_of_strings(
    list: Option<&Value>,
    at: &str,
    field: &str,
    required_field: bool,
) -> Result<Vec<String>, CardDefect> {
    let items = match list {
        None | Some(Value::Null) if !required_field => return Ok(Vec::new()),
        None | Some(Value::Null) => {
            return Err(defect(
                ReasonCode::MissingField,
                at,
                format!("card has no {at} member, which the gate needs"),
            ))
        }
        Some(Value::Array(items)) => items,
        Some(other) => return Err(wrong_type(at, "array", other)),
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let item_at = format!("{at}/{i}");
        if item.as_object().is_none() {
            return Err(wrong_type(&item_at, "object", item));
        }
        match item.get(field) {
            Some(Value::String(s)) => out.push(s.clone()),
            None => {
                return Err(defect(
                    ReasonCode::MissingField,
                    &format!("{item_at}/{field}"),
                    format!("card has no {item_at}/{field} member, which the gate needs"),
                ))
            }
            Some(other) => return Err(wrong_type(&format!("{item_at}/{field}"), "string", other)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<AgentCard, CardDefect> {
        AgentCard::parse_document(text.as_bytes(), &Limits::default())
            .and_then(|doc| AgentCard::from_value(&doc))
    }

    const V1: &str = r#"{"name":"W","version":"3","capabilities":{"streaming":true},
        "skills":[{"id":"task.execute.v3"}],
        "supportedInterfaces":[{"url":"https://w/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#;

    #[test]
    fn reads_v1_and_legacy_cards() {
        let c = read(V1).unwrap();
        assert_eq!(c.skill_ids, ["task.execute.v3"]);
        assert!(c.streaming && !c.push_notifications);
        assert_eq!(c.interfaces[0].protocol_binding, "JSONRPC");
        let legacy = read(
            r#"{"name":"L","version":"1","capabilities":{},"skills":[],"url":"https://l",
            "protocolVersion":"0.3.0","supportsAuthenticatedExtendedCard":true,
            "additionalInterfaces":[{"url":"https://l/g","transport":"GRPC"}]}"#,
        )
        .unwrap();
        assert!(legacy.extended_agent_card);
        let bindings: Vec<_> = legacy
            .interfaces
            .iter()
            .map(|i| i.protocol_binding.as_str())
            .collect();
        assert_eq!(bindings, ["JSONRPC", "GRPC"]);
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
        let big = format!("{{\"name\":\"{}\"}}", "x".repeat(70_000));
        assert_eq!(read(&big).unwrap_err().code, ReasonCode::BodyTooLarge);
    }
}
