//! A minimal AWS STS: GetCallerIdentity over awsQuery (`POST /`, a form-urlencoded body with
//! `Action=GetCallerIdentity&Version=2011-06-15`), answered with the real service's XML. The
//! caller is named after the access key of the request's SigV4 `Authorization` header (any key is
//! accepted, as everywhere in the sandbox): `arn:aws:iam::ACCOUNT:user/sandbox-<KEY>`.

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use super::Sandbox;
use super::faults::fault_error;
use super::wire::{bytes_response, next_request_id, xml_escape};

const XMLNS: &str = "https://sts.amazonaws.com/doc/2011-06-15/";

/// Whether a request looks like an awsQuery call (form-urlencoded POST with an `Action`).
pub fn is_query_request(headers: &HeaderMap, body: &[u8]) -> bool {
    let form = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/x-www-form-urlencoded"));
    form && action(body).is_some()
}

/// The `Action` parameter of a form body.
pub fn action(body: &[u8]) -> Option<String> {
    std::str::from_utf8(body)
        .ok()?
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == "Action")
        .map(|(_, v)| v.to_string())
}

/// The access key id named in a SigV4 `Authorization` header.
fn access_key(headers: &HeaderMap) -> Option<String> {
    let auth = headers.get("authorization")?.to_str().ok()?;
    let cred = auth.split("Credential=").nth(1)?;
    cred.split('/').next().map(str::to_string)
}

fn error(status: StatusCode, kind: &str, code: &str, message: &str) -> Response {
    let body = format!(
        "<ErrorResponse xmlns=\"{XMLNS}\"><Error><Type>{kind}</Type><Code>{}</Code><Message>{}</Message></Error><RequestId>{}</RequestId></ErrorResponse>",
        xml_escape(code),
        xml_escape(message),
        next_request_id()
    );
    bytes_response(status, "text/xml", body.into_bytes())
}

/// Serves one STS awsQuery request.
pub fn handle(sb: &Sandbox, headers: &HeaderMap, body: &[u8]) -> Response {
    let op = action(body).unwrap_or_default();
    if let Some(kind) = sb.faults.take(&op, None, None)
        && let Some(e) = fault_error(&kind, sb, "")
    {
        let kind = if e.status.is_server_error() {
            "Receiver"
        } else {
            "Sender"
        };
        return error(e.status, kind, &e.code, &e.message);
    }
    if op != "GetCallerIdentity" {
        return error(
            StatusCode::BAD_REQUEST,
            "Sender",
            "InvalidAction",
            &format!("The sandbox does not implement STS action {op}."),
        );
    }
    let key = access_key(headers).unwrap_or_else(|| "anonymous".into());
    let account = &sb.config.account;
    let body = format!(
        "<GetCallerIdentityResponse xmlns=\"{XMLNS}\">\n  <GetCallerIdentityResult>\n    <Arn>arn:aws:iam::{account}:user/sandbox-{}</Arn>\n    <UserId>{}</UserId>\n    <Account>{account}</Account>\n  </GetCallerIdentityResult>\n  <ResponseMetadata>\n    <RequestId>{}</RequestId>\n  </ResponseMetadata>\n</GetCallerIdentityResponse>\n",
        xml_escape(&key),
        xml_escape(&key),
        next_request_id()
    );
    bytes_response(StatusCode::OK, "text/xml", body.into_bytes())
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
        let mut h = HeaderMap::new();
        h.insert(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDX/20260101/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=0"
                .parse()
                .unwrap(),
        );
        assert_eq!(access_key(&h).as_deref(), Some("AKIDX"));
    }
}
