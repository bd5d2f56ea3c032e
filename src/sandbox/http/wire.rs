//! Wire encodings shared by the sandbox's protocol front ends: the protocol enum, API errors in
//! each protocol's own error shape, and an output tree that encodes to JSON or CBOR with the
//! type distinctions CBOR needs (timestamps as tag 1, doubles as floats).

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The wire protocols the sandbox speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `application/x-amz-json-1.0` with `x-amz-target` (CloudWatch for boto3 / the AWS CLI).
    AwsJson10,
    /// `application/x-amz-json-1.1` with `x-amz-target` (SageMaker, Application Auto Scaling).
    AwsJson11,
    /// REST + JSON (SageMaker Runtime).
    RestJson1,
    /// Smithy RPC v2 CBOR (CloudWatch for the Rust SDK).
    RpcV2Cbor,
    /// REST + XML (S3).
    RestXml,
    /// awsQuery: form-urlencoded requests, XML answers (STS).
    AwsQuery,
}

/// A service error, encoded in whichever protocol the request came in.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Error code (`ValidationException`, `ModelError`, ...).
    pub code: String,
    /// Human message.
    pub message: String,
    /// Namespace used for CBOR `__type` (`com.amazonaws.cloudwatch`) and restJson error type.
    pub namespace: &'static str,
    /// Extra members of the error structure (ModelError's OriginalStatusCode, ...).
    pub fields: BTreeMap<String, serde_json::Value>,
    /// Whether the fault is the caller's (`Sender`) or the service's (`Receiver`).
    pub sender_fault: bool,
    /// Name of the message member: SageMaker uses `Message`, CloudWatch `message`.
    pub message_key: &'static str,
}

impl ApiError {
    /// A new error with the given status, code and message.
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code: code.to_string(),
            message: message.into(),
            namespace: "com.amazonaws.sagemaker",
            fields: BTreeMap::new(),
            sender_fault: status.is_client_error(),
            message_key: "Message",
        }
    }

    /// `ValidationException` (HTTP 400), the control planes' catch-all for bad input.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "ValidationException", message)
    }

    /// `ThrottlingException` (HTTP 400, `Rate exceeded`), as SageMaker answers a call over its
    /// rate: the code the SDKs' retry classifiers treat as throttling.
    pub fn throttling() -> Self {
        Self::new(StatusCode::BAD_REQUEST, "ThrottlingException", "Rate exceeded")
    }

    /// Adds a structure member to the error body.
    pub fn with_field(mut self, key: &str, value: impl Into<serde_json::Value>) -> Self {
        self.fields.insert(key.to_string(), value.into());
        self
    }

    /// Sets the namespace used in fully qualified error types.
    pub fn in_namespace(mut self, ns: &'static str) -> Self {
        self.namespace = ns;
        self
    }

    /// Uses `message` rather than `Message` as the message member.
    pub fn lowercase_message(mut self) -> Self {
        self.message_key = "message";
        self
    }

    /// Encodes the error in the given protocol's shape.
    pub fn into_response(self, protocol: Protocol) -> Response {
        match protocol {
            Protocol::AwsJson10 | Protocol::AwsJson11 | Protocol::RestJson1 => {
                let mut body = serde_json::Map::new();
                body.insert("__type".into(), self.code.clone().into());
                body.insert(self.message_key.into(), self.message.clone().into());
                for (k, v) in &self.fields {
                    body.insert(k.clone(), v.clone());
                }
                let ct = match protocol {
                    Protocol::AwsJson10 => "application/x-amz-json-1.0",
                    Protocol::AwsJson11 => "application/x-amz-json-1.1",
                    _ => "application/json",
                };
                let mut resp = bytes_response(
                    self.status,
                    ct,
                    serde_json::to_vec(&serde_json::Value::Object(body)).unwrap_or_default(),
                );
                if protocol == Protocol::RestJson1 {
                    let value = format!("{}:http://internal.amazon.com/coral/{}/", self.code, self.namespace);
                    if let Ok(v) = HeaderValue::from_str(&value) {
                        resp.headers_mut().insert("x-amzn-errortype", v);
                    }
                }
                resp
            }
            Protocol::RpcV2Cbor => {
                let mut map = vec![
                    (
                        Out::str("__type"),
                        Out::Str(format!("{}#{}", self.namespace, self.code)),
                    ),
                    (Out::str(self.message_key), Out::Str(self.message.clone())),
                ];
                for (k, v) in &self.fields {
                    map.push((Out::Str(k.clone()), Out::from_json(v)));
                }
                let mut resp = bytes_response(self.status, "application/cbor", Out::Map(map).to_cbor());
                resp.headers_mut()
                    .insert("smithy-protocol", HeaderValue::from_static("rpc-v2-cbor"));
                let fault = if self.sender_fault { "Sender" } else { "Receiver" };
                if let Ok(v) = HeaderValue::from_str(&format!("{};{}", self.code, fault)) {
                    resp.headers_mut().insert("x-amzn-query-error", v);
                }
                resp
            }
            Protocol::AwsQuery => {
                let fault = if self.sender_fault { "Sender" } else { "Receiver" };
                let error = XmlNode::Parent(
                    "Error",
                    vec![
                        XmlNode::text("Type", fault),
                        XmlNode::text("Code", &self.code),
                        XmlNode::text("Message", &self.message),
                    ],
                );
                let children = [error, XmlNode::text("RequestId", &next_request_id())];
                let body = xml_document(false, "ErrorResponse", Some(self.namespace), &children);
                bytes_response(self.status, "text/xml", body)
            }
            Protocol::RestXml => {
                let children = [
                    XmlNode::text("Code", &self.code),
                    XmlNode::text("Message", &self.message),
                    XmlNode::text("RequestId", &next_request_id()),
                ];
                let body = xml_document(true, "Error", None, &children);
                bytes_response(self.status, "application/xml", body)
            }
        }
    }
}

/// One element of an XML answer: a text element, or an element with children.
#[derive(Debug, Clone)]
pub enum XmlNode<'a> {
    /// `<name>text</name>` (the text escaped).
    Text(&'a str, String),
    /// `<name>children</name>`.
    Parent(&'a str, Vec<XmlNode<'a>>),
}

impl<'a> XmlNode<'a> {
    /// A text element.
    pub fn text(name: &'a str, text: &str) -> XmlNode<'a> {
        XmlNode::Text(name, text.to_string())
    }
}

fn write_nodes(w: &mut quick_xml::Writer<Vec<u8>>, nodes: &[XmlNode<'_>]) -> std::io::Result<()> {
    for node in nodes {
        match node {
            XmlNode::Text(name, text) => {
                w.create_element(*name)
                    .write_text_content(quick_xml::events::BytesText::new(text))?;
            }
            XmlNode::Parent(name, children) => {
                w.create_element(*name)
                    .write_inner_content(|w| write_nodes(w, children))?;
            }
        }
    }
    Ok(())
}

/// An XML document written with quick-xml: `root` (with `xmlns` when given) holding `children`,
/// after an `<?xml version="1.0" encoding="UTF-8"?>` line when `declaration`.
pub fn xml_document(declaration: bool, root: &str, xmlns: Option<&str>, children: &[XmlNode<'_>]) -> Vec<u8> {
    let mut w = quick_xml::Writer::new(Vec::new());
    // Writing into a Vec cannot fail.
    if declaration {
        let decl = quick_xml::events::BytesDecl::new("1.0", Some("UTF-8"), None);
        let _ = w.write_event(quick_xml::events::Event::Decl(decl));
        let _ = w.write_event(quick_xml::events::Event::Text(quick_xml::events::BytesText::new("\n")));
    }
    let mut element = w.create_element(root);
    if let Some(ns) = xmlns {
        element = element.with_attribute(("xmlns", ns));
    }
    let _ = element.write_inner_content(|w| write_nodes(w, children));
    w.into_inner()
}

static REQUEST_COUNTER: AtomicU64 = AtomicU64::new(1);

/// A fresh request id in AWS's UUID-like shape.
pub fn next_request_id() -> String {
    let n = REQUEST_COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(
        "5a6d0e5c-{:04x}-4{:03x}-8{:03x}-{:012x}",
        (n >> 24) & 0xffff,
        (n >> 12) & 0xfff,
        n & 0xfff,
        n
    )
}

/// A response with a body, content type and a request id header.
pub fn bytes_response(status: StatusCode, content_type: &str, body: Vec<u8>) -> Response {
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = status;
    let headers = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(content_type) {
        headers.insert(header::CONTENT_TYPE, v);
    }
    if let Ok(v) = HeaderValue::from_str(&next_request_id()) {
        headers.insert("x-amzn-requestid", v);
    }
    resp
}

/// A JSON success response in awsJson 1.0/1.1.
pub fn json_ok(protocol: Protocol, value: &serde_json::Value) -> Response {
    let ct = match protocol {
        Protocol::AwsJson10 => "application/x-amz-json-1.0",
        Protocol::AwsJson11 => "application/x-amz-json-1.1",
        _ => "application/json",
    };
    bytes_response(StatusCode::OK, ct, serde_json::to_vec(value).unwrap_or_default())
}

/// An output document that keeps the distinctions CBOR needs and JSON does not.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// A map with string keys, in insertion order.
    Map(Vec<(Out, Out)>),
    /// A list.
    List(Vec<Out>),
    /// A text string.
    Str(String),
    /// An integer.
    Int(i64),
    /// A double (always a CBOR float).
    Float(f64),
    /// A timestamp in epoch seconds (CBOR tag 1; a JSON number).
    Timestamp(f64),
    /// A boolean.
    Bool(bool),
}

impl Out {
    /// A string node.
    pub fn str(s: &str) -> Out {
        Out::Str(s.to_string())
    }

    /// A map from `(key, value)` pairs.
    pub fn map<const N: usize>(pairs: [(&str, Out); N]) -> Out {
        Out::Map(pairs.into_iter().map(|(k, v)| (Out::str(k), v)).collect())
    }

    /// Converts a JSON value (numbers become Int when integral, else Float).
    pub fn from_json(v: &serde_json::Value) -> Out {
        match v {
            serde_json::Value::Null => Out::Map(vec![]),
            serde_json::Value::Bool(b) => Out::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Out::Int(i),
                None => Out::Float(n.as_f64().unwrap_or(0.0)),
            },
            serde_json::Value::String(s) => Out::Str(s.clone()),
            serde_json::Value::Array(a) => Out::List(a.iter().map(Out::from_json).collect()),
            serde_json::Value::Object(o) => Out::Map(
                o.iter()
                    .map(|(k, v)| (Out::Str(k.clone()), Out::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// The JSON form: timestamps as epoch-seconds numbers.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Out::Map(m) => {
                let mut o = serde_json::Map::new();
                for (k, v) in m {
                    if let Out::Str(k) = k {
                        o.insert(k.clone(), v.to_json());
                    }
                }
                serde_json::Value::Object(o)
            }
            Out::List(l) => serde_json::Value::Array(l.iter().map(Out::to_json).collect()),
            Out::Str(s) => serde_json::Value::String(s.clone()),
            Out::Int(i) => (*i).into(),
            Out::Float(f) | Out::Timestamp(f) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Out::Bool(b) => (*b).into(),
        }
    }

    fn to_cbor_value(&self) -> ciborium::Value {
        use ciborium::Value as V;
        match self {
            Out::Map(m) => V::Map(m.iter().map(|(k, v)| (k.to_cbor_value(), v.to_cbor_value())).collect()),
            Out::List(l) => V::Array(l.iter().map(Out::to_cbor_value).collect()),
            Out::Str(s) => V::Text(s.clone()),
            Out::Int(i) => V::Integer((*i).into()),
            Out::Float(f) => V::Float(*f),
            Out::Timestamp(t) => V::Tag(1, Box::new(V::Float(*t))),
            Out::Bool(b) => V::Bool(*b),
        }
    }

    /// The CBOR encoding: exactly one data item.
    pub fn to_cbor(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        // Writing into a Vec cannot fail.
        let _ = ciborium::into_writer(&self.to_cbor_value(), &mut buf);
        buf
    }
}

/// Converts a decoded CBOR value into JSON so one request parser serves both protocols:
/// tag-1 timestamps become epoch-second numbers, byte strings become base64 text.
pub fn cbor_to_json(v: ciborium::Value) -> serde_json::Value {
    use base64::Engine;
    use ciborium::Value as V;
    match v {
        V::Integer(i) => {
            let n: i128 = i.into();
            serde_json::Value::from(n as i64)
        }
        V::Float(f) => serde_json::Number::from_f64(f)
            .map(serde_json::Value::Number)
            .unwrap_or(serde_json::Value::Null),
        V::Text(s) => serde_json::Value::String(s),
        V::Bytes(b) => serde_json::Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
        V::Bool(b) => serde_json::Value::Bool(b),
        V::Null => serde_json::Value::Null,
        V::Tag(_, inner) => cbor_to_json(*inner),
        V::Array(a) => serde_json::Value::Array(a.into_iter().map(cbor_to_json).collect()),
        V::Map(m) => {
            let mut o = serde_json::Map::new();
            for (k, v) in m {
                let key = match k {
                    V::Text(s) => s,
                    other => format!("{other:?}"),
                };
                o.insert(key, cbor_to_json(v));
            }
            serde_json::Value::Object(o)
        }
        _ => serde_json::Value::Null,
    }
}

/// Decodes a CBOR request body (empty body = empty map).
pub fn decode_cbor(body: &[u8]) -> Result<serde_json::Value, ApiError> {
    if body.is_empty() {
        return Ok(serde_json::Value::Object(Default::default()));
    }
    let v: ciborium::Value = ciborium::from_reader(body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "SerializationException",
            format!("Invalid CBOR body: {e}"),
        )
    })?;
    Ok(cbor_to_json(v))
}

/// Decodes a JSON request body (empty body = empty object).
pub fn decode_json(body: &[u8]) -> Result<serde_json::Value, ApiError> {
    if body.iter().all(|b| b.is_ascii_whitespace()) {
        return Ok(serde_json::Value::Object(Default::default()));
    }
    serde_json::from_slice(body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "SerializationException",
            format!("Invalid JSON body: {e}"),
        )
    })
}

/// Deserializes a typed request from a decoded document; a mismatch is a ValidationException.
pub fn parse_input<T: serde::de::DeserializeOwned>(doc: serde_json::Value) -> Result<T, ApiError> {
    serde_json::from_value(doc).map_err(|e| ApiError::validation(format!("1 validation error detected: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cbor_round_trip_keeps_tags_and_floats() {
        let out = Out::map([
            ("T", Out::Timestamp(1700000000.5)),
            ("V", Out::Float(1.0)),
            ("N", Out::Int(3)),
        ]);
        let bytes = out.to_cbor();
        let v: ciborium::Value = ciborium::from_reader(&bytes[..]).unwrap();
        let map = v.as_map().unwrap();
        assert!(matches!(map[0].1, ciborium::Value::Tag(1, _)));
        assert!(matches!(map[1].1, ciborium::Value::Float(_)));
        let json = cbor_to_json(v);
        assert_eq!(json["T"], serde_json::json!(1700000000.5));
        assert_eq!(json["N"], serde_json::json!(3));
    }

    #[test]
    fn xml_documents_escape_text() {
        let doc = xml_document(true, "Error", Some("urn:x"), &[XmlNode::text("Message", "a<b>&\"'")]);
        let text = String::from_utf8(doc).unwrap();
        assert_eq!(
            text,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error xmlns=\"urn:x\"><Message>a&lt;b&gt;&amp;&quot;&apos;</Message></Error>"
        );
    }
}
