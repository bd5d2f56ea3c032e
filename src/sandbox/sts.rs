//! A minimal AWS STS: GetCallerIdentity over awsQuery (`POST /`, a form-urlencoded body with
//! `Action=GetCallerIdentity&Version=2011-06-15`), answered with the real service's XML. The
//! caller is the principal of the access key of the request's SigV4 `Authorization` header (any
//! key is accepted, as everywhere in the sandbox), as CloudTrail names it
//! (`cloudtrail/identity.rs`): `arn:aws:iam::ACCOUNT:user/alice` for the default key,
//! `user/sandbox-<KEY>` for a key the sandbox does not know.

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use crate::sandbox::cloudtrail::identity::{Identity, access_key};
use crate::sandbox::faults::errors::fault_error;
use crate::sandbox::http::wire::{ApiError, Protocol, XmlNode, bytes_response, next_request_id, xml_document};
use crate::sandbox::world::sandbox::Sandbox;

const XMLNS: &str = "https://sts.amazonaws.com/doc/2011-06-15/";

/// The operation of an awsQuery call (a form-urlencoded body with an `Action`); None when the
/// request is not one.
pub fn query_action(headers: &HeaderMap, body: &[u8]) -> Option<String> {
    let form = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/x-www-form-urlencoded"));
    if form { action(body) } else { None }
}

/// The `Action` parameter of a form body (percent- and `+`-decoded, as every form field).
pub fn action(body: &[u8]) -> Option<String> {
    let fields: Vec<(String, String)> = serde_urlencoded::from_bytes(body).ok()?;
    fields.into_iter().find(|(k, _)| k == "Action").map(|(_, v)| v)
}

/// Serves one STS awsQuery request for operation `op`.
pub fn handle(sb: &Sandbox, op: &str, headers: &HeaderMap) -> Response {
    if let Some(kind) = sb.faults.take(op, None, None)
        && let Some(e) = fault_error(&kind, sb, "")
    {
        return e.in_namespace(XMLNS).into_response(Protocol::AwsQuery);
    }
    if op != "GetCallerIdentity" {
        let message = format!("The sandbox does not implement STS action {op}.");
        return ApiError::new(StatusCode::BAD_REQUEST, "InvalidAction", message)
            .in_namespace(XMLNS)
            .into_response(Protocol::AwsQuery);
    }
    let account = &sb.config.account;
    let identity = Identity::of_key(Some(access_key(headers).unwrap_or("anonymous")), account);
    let result = XmlNode::Parent(
        "GetCallerIdentityResult",
        vec![
            XmlNode::text("Arn", &identity.arn()),
            XmlNode::text("UserId", &identity.principal_id()),
            XmlNode::text("Account", account),
        ],
    );
    let metadata = XmlNode::Parent("ResponseMetadata", vec![XmlNode::text("RequestId", &next_request_id())]);
    let body = xml_document(false, "GetCallerIdentityResponse", Some(XMLNS), &[result, metadata]);
    bytes_response(StatusCode::OK, "text/xml", body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_and_keys_are_read_from_the_request() {
        assert_eq!(
            action(b"Action=GetCallerIdentity&Version=2011-06-15").as_deref(),
            Some("GetCallerIdentity")
        );
        assert_eq!(action(b"Version=2011-06-15"), None);
        assert_eq!(
            action(b"Version=2011-06-15&%41ction=Get%43allerIdentity").as_deref(),
            Some("GetCallerIdentity"),
            "names and values are percent-decoded"
        );
        assert_eq!(action(b"Action=Assume+Role%20X").as_deref(), Some("Assume Role X"));
        let mut h = HeaderMap::new();
        h.insert(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDX/20260101/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=0"
                .parse()
                .unwrap(),
        );
        assert_eq!(access_key(&h), Some("AKIDX"));
    }
}
