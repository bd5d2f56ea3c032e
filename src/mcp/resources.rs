//! Resources and prompts on a connection: listing resources, resource templates and prompts
//! (every page), reading a resource (text and binary contents), a template filled with
//! arguments (RFC 6570 expansion, [`fill_template`]), getting a prompt's messages, and
//! subscribing to a resource's updates (`resources/subscribe`; the updates arrive as
//! [`super::events::ServerEvent::ResourceUpdated`]).

use std::time::Duration;

use base64::Engine;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResult, Prompt, ReadResourceRequestParams, Resource, ResourceContents,
    ResourceTemplate, SubscribeRequestParams, UnsubscribeRequestParams,
};
use serde::Serialize;
use serde_json::{Map, Value};

use super::call::CallError;
use super::client::McpConnection;
use super::events::LogSource;
use super::result::{Block, render_block};

/// One part of a read resource, as sagedeck shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadPart {
    /// The part's URI.
    pub uri: String,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its text (a textual part).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Decoded size in bytes (a binary part).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<usize>,
    /// The bytes as base64 (a binary part).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
}

impl ReadPart {
    /// The part of `c`.
    pub fn of(c: &ResourceContents) -> ReadPart {
        match c {
            ResourceContents::TextResourceContents {
                uri, mime_type, text, ..
            } => ReadPart {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: Some(text.clone()),
                size: None,
                base64: None,
            },
            ResourceContents::BlobResourceContents {
                uri, mime_type, blob, ..
            } => ReadPart {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: None,
                size: Some(decoded(blob).map(|b| b.len()).unwrap_or(0)),
                base64: Some(blob.trim().to_string()),
            },
            #[allow(unreachable_patterns)]
            _ => ReadPart {
                uri: String::new(),
                mime_type: None,
                text: None,
                size: None,
                base64: None,
            },
        }
    }

    /// The part's bytes: its text, or its decoded blob (None: the base64 is invalid).
    pub fn bytes(&self) -> Option<Vec<u8>> {
        match (&self.text, &self.base64) {
            (Some(t), _) => Some(t.as_bytes().to_vec()),
            (None, Some(b)) => decoded(b),
            (None, None) => Some(Vec::new()),
        }
    }

    /// One line naming a binary part (`[binary image/png, 68 bytes]`); None for text.
    pub fn binary_line(&self) -> Option<String> {
        let size = self.size?;
        let mime = self.mime_type.as_deref().unwrap_or("application/octet-stream");
        Some(format!("[binary {mime}, {size} bytes]"))
    }
}

fn decoded(b64: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(b64.trim()).ok()
}

/// One message of a prompt: its role and its content block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptLine {
    /// `user` or `assistant`.
    pub role: String,
    /// The content, rendered as a tool result's is.
    pub content: Block,
}

/// A prompt's messages.
pub fn prompt_lines(r: &GetPromptResult) -> Vec<PromptLine> {
    r.messages
        .iter()
        .map(|m| PromptLine {
            role: serde_json::to_value(&m.role)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            content: render_block(&m.content),
        })
        .collect()
}

/// What a server offers besides tools (each list empty when it does not offer it).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Catalog {
    /// Its resources.
    pub resources: Vec<Resource>,
    /// Its resource templates.
    pub templates: Vec<ResourceTemplate>,
    /// Its prompts.
    pub prompts: Vec<Prompt>,
}

async fn within<T>(
    limit: Duration,
    f: impl std::future::Future<Output = Result<T, rmcp::ServiceError>>,
) -> Result<T, CallError> {
    match tokio::time::timeout(limit, f).await {
        Ok(r) => r.map_err(CallError::from),
        Err(_) => Err(CallError::Timeout {
            after: limit,
            progress: 0,
        }),
    }
}

impl McpConnection {
    /// The resources, templates and prompts the server offers, each listed whole.
    pub async fn catalog(&self, limit: Duration) -> Result<Catalog, CallError> {
        let mut c = Catalog::default();
        if self.info().has_resources {
            c.resources = self.list_resources(limit).await?;
            c.templates = self.list_resource_templates(limit).await?;
        }
        if self.info().has_prompts {
            c.prompts = self.list_prompts(limit).await?;
        }
        Ok(c)
    }

    /// Every resource (following `nextCursor`).
    pub async fn list_resources(&self, limit: Duration) -> Result<Vec<Resource>, CallError> {
        within(limit, self.peer.list_all_resources()).await
    }

    /// Every resource template.
    pub async fn list_resource_templates(&self, limit: Duration) -> Result<Vec<ResourceTemplate>, CallError> {
        within(limit, self.peer.list_all_resource_templates()).await
    }

    /// Reads a resource: each of its parts.
    pub async fn read_resource(&self, uri: &str, limit: Duration) -> Result<Vec<ReadPart>, CallError> {
        let r = within(limit, self.peer.read_resource(ReadResourceRequestParams::new(uri))).await?;
        Ok(r.contents.iter().map(ReadPart::of).collect())
    }

    /// Every prompt.
    pub async fn list_prompts(&self, limit: Duration) -> Result<Vec<Prompt>, CallError> {
        within(limit, self.peer.list_all_prompts()).await
    }

    /// Gets a prompt with its arguments (strings, as the protocol wants them).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        limit: Duration,
    ) -> Result<GetPromptResult, CallError> {
        let mut params = GetPromptRequestParams::new(name);
        if !arguments.is_empty() {
            params = params.with_arguments(arguments);
        }
        within(limit, self.peer.get_prompt(params)).await
    }

    /// Asks for `notifications/resources/updated` about `uri`.
    #[allow(deprecated)]
    pub async fn subscribe_resource(&self, uri: &str, limit: Duration) -> Result<(), CallError> {
        within(limit, self.peer.subscribe(SubscribeRequestParams::new(uri))).await?;
        self.shared.log.push(LogSource::Client, format!("subscribed to {uri}"));
        Ok(())
    }

    /// Stops the updates about `uri`.
    #[allow(deprecated)]
    pub async fn unsubscribe_resource(&self, uri: &str, limit: Duration) -> Result<(), CallError> {
        within(limit, self.peer.unsubscribe(UnsubscribeRequestParams::new(uri))).await?;
        self.shared
            .log
            .push(LogSource::Client, format!("unsubscribed from {uri}"));
        Ok(())
    }
}

/// Characters kept as they are by a simple expansion: RFC 3986 unreserved.
fn unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~".contains(c)
}

/// Characters a reserved expansion (`{+x}`, `{#x}`) also keeps.
fn reserved(c: char) -> bool {
    ":/?#[]@!$&'()*+,;=%".contains(c)
}

fn encode(value: &str, keep_reserved: bool) -> String {
    let mut out = String::new();
    for c in value.chars() {
        if unreserved(c) || (keep_reserved && reserved(c)) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// Expands one `{...}` expression of a URI template (RFC 6570 levels 1 to 3, plus `{/x}`).
fn expand(expr: &str, args: &Map<String, Value>, used: &mut Vec<String>) -> String {
    let (op, names) = match expr.chars().next() {
        Some(c @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => (Some(c), &expr[1..]),
        _ => (None, expr),
    };
    let (first, sep, named, keep) = match op {
        None => ("", ",", false, false),
        Some('+') => ("", ",", false, true),
        Some('#') => ("#", ",", false, true),
        Some('.') => (".", ".", false, false),
        Some('/') => ("/", "/", false, false),
        Some(';') => (";", ";", true, false),
        Some('?') => ("?", "&", true, false),
        _ => ("&", "&", true, false),
    };
    let mut parts = Vec::new();
    for name in names.split(',').map(|n| n.trim_end_matches('*')) {
        let Some(v) = args.get(name) else { continue };
        used.push(name.to_string());
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let value = encode(&text, keep);
        parts.push(if named { format!("{name}={value}") } else { value });
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("{first}{}", parts.join(sep))
    }
}

/// Fills a URI template with `args`; every argument must be used by the template.
pub fn fill_template(template: &str, args: &Map<String, Value>) -> Result<String, String> {
    let mut out = String::new();
    let mut used = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            return Err(format!("the template `{template}` has an unclosed `{{`"));
        };
        out.push_str(&expand(&rest[open + 1..open + close], args, &mut used));
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    if let Some(unused) = args.keys().find(|k| !used.contains(k)) {
        return Err(format!("the template `{template}` has no variable `{unused}`"));
    }
    Ok(out)
}

/// The variable names of a URI template, in order.
pub fn template_variables(template: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in template.split('{').skip(1) {
        let Some(expr) = piece.split('}').next() else { continue };
        let expr = expr.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        out.extend(expr.split(',').map(|n| n.trim_end_matches('*').to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn m(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn templates_expand_as_rfc_6570_says() {
        let a = m(json!({"city": "San José", "path": "a/b", "n": 3}));
        assert_eq!(
            fill_template("weather://{city}/now", &m(json!({"city": "San José"}))).unwrap(),
            "weather://San%20Jos%C3%A9/now"
        );
        assert_eq!(
            fill_template("file:///{+path}", &m(json!({"path": "a/b"}))).unwrap(),
            "file:///a/b"
        );
        assert_eq!(
            fill_template("x://q{?city,n}", &m(json!({"city": "a b", "n": 3}))).unwrap(),
            "x://q?city=a%20b&n=3"
        );
        assert!(fill_template("x://{city}", &a).unwrap_err().contains("no variable"));
        assert!(fill_template("x://{city", &a).is_err());
        assert_eq!(
            template_variables("x://{city}/{+path}{?a,b}"),
            ["city", "path", "a", "b"]
        );
    }

    #[test]
    fn binary_parts_carry_size_and_base64() {
        let p = ReadPart::of(&ResourceContents::blob("aGVsbG8=", "x://b").with_mime_type("image/png"));
        assert_eq!((p.size, p.base64.as_deref()), (Some(5), Some("aGVsbG8=")));
        assert_eq!(p.bytes().unwrap(), b"hello");
        assert_eq!(p.binary_line().unwrap(), "[binary image/png, 5 bytes]");
        let t = ReadPart::of(&ResourceContents::text("hi", "x://t"));
        assert!(t.binary_line().is_none() && t.text.as_deref() == Some("hi"));
    }
}
