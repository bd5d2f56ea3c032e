//! The bearer token of the OpenAI-compatible paths, read as SageMaker reads it:
//! `Authorization: Bearer sagemaker-api-key-<base64>`, the base64 text a SigV4 query-presigned
//! `POST sagemaker.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Algorithm=AWS4-HMAC-SHA256&
//! X-Amz-Credential=AKID/DATE/REGION/sagemaker/aws4_request&X-Amz-Date=…&X-Amz-Expires=…&
//! X-Amz-SignedHeaders=host&X-Amz-Signature=…` without its scheme, then `&Version=1` (as
//! `sagemaker.core.token_generator` builds it).
//!
//! Checked: the prefix, the encoding, the host, the action, the algorithm, the credential scope
//! (service `sagemaker`, the serving region, `aws4_request`, its date the request's), the expiry
//! (1 to 43,200 s, not passed, not signed in the future) and the signature's shape. Any
//! credentials are accepted: the signature is not verified against a secret, as everywhere in the
//! sandbox. A missing token answers 401, any other refusal 403; the texts are the sandbox's
//! (AWS documents none; the 403 opens with the words Amazon Bedrock answers for its keys, built
//! the same way).

use axum::http::StatusCode;
use base64::Engine;

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::clock::iso8601;

/// What every SageMaker API key starts with.
pub const PREFIX: &str = "sagemaker-api-key-";
/// The longest lifetime a token may ask for, in seconds (12 hours).
pub const MAX_EXPIRES_SECS: u64 = 43_200;
/// The host the token's request is presigned for.
const HOST: &str = "sagemaker.amazonaws.com";
/// How far in the future a token's signing time may be (SigV4's clock skew).
const SKEW_SECS: f64 = 900.0;
/// The opening of every refusal of a token that is there but not good.
const INVALID: &str = "Authentication failed: Please make sure your API Key is valid.";

/// What a valid token says about itself (never its signature).
#[derive(Debug, Clone, PartialEq)]
pub struct TokenScope {
    /// The access key id that signed it.
    pub access_key: String,
    /// The region of its credential scope.
    pub region: String,
    /// When it stops being accepted, epoch seconds.
    pub expires_at: f64,
}

/// 401: no token at all.
fn missing(detail: &str) -> ApiError {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        "UnauthorizedException",
        format!(
            "Missing bearer token: {detail}. Send 'Authorization: Bearer sagemaker-api-key-…', a token from sagemaker.core.token_generator."
        ),
    )
}

/// 403: a token that is not one SageMaker accepts.
fn invalid(detail: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "AccessDeniedException",
        format!("{INVALID} ({detail})"),
    )
}

/// The region of a token's credential scope, when the header carries a decodable token (which
/// region's state serves the request; the full check is [`check`]).
pub fn scope_region(authorization: &str) -> Option<String> {
    let query = presigned_query(authorization).ok()?;
    let credential = param(&query, "X-Amz-Credential")?;
    credential.split('/').nth(2).map(str::to_string)
}

/// Checks the `Authorization` header of an OpenAI-compatible call served in `region` at `now`.
pub fn check(authorization: Option<&str>, region: &str, now: f64) -> Result<TokenScope, ApiError> {
    let header = authorization.ok_or_else(|| missing("the request has no Authorization header"))?;
    let query = presigned_query(header)?;
    let get = |name: &str| param(&query, name).ok_or_else(|| invalid(format!("the presigned request has no {name}")));
    let action = get("Action")?;
    if action != "CallWithBearerToken" {
        return Err(invalid(format!("Action is {action}, not CallWithBearerToken")));
    }
    let algorithm = get("X-Amz-Algorithm")?;
    if algorithm != "AWS4-HMAC-SHA256" {
        return Err(invalid(format!("X-Amz-Algorithm is {algorithm}, not AWS4-HMAC-SHA256")));
    }
    if get("Version")? != "1" {
        return Err(invalid("the token's Version is not 1"));
    }
    let date = get("X-Amz-Date")?;
    let signed_at =
        parse_amz_date(&date).ok_or_else(|| invalid(format!("X-Amz-Date {date} is not YYYYMMDDTHHMMSSZ")))?;
    let scope = check_credential(&get("X-Amz-Credential")?, &date, region)?;
    if !get("X-Amz-SignedHeaders")?.split(';').any(|h| h == "host") {
        return Err(invalid("X-Amz-SignedHeaders does not sign host"));
    }
    let signature = get("X-Amz-Signature")?;
    if signature.len() != 64 || !signature.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(invalid("X-Amz-Signature is not 64 hexadecimal digits"));
    }
    let expires_in = check_expires(&get("X-Amz-Expires")?)?;
    let expires_at = signed_at + expires_in as f64;
    if signed_at > now + SKEW_SECS {
        return Err(invalid(format!(
            "the token is signed at {}, in the future",
            iso8601(signed_at)
        )));
    }
    if now >= expires_at {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "AccessDeniedException",
            format!("{INVALID} (the token expired at {})", iso8601(expires_at)),
        ));
    }
    Ok(TokenScope {
        access_key: scope,
        region: region.to_string(),
        expires_at,
    })
}

/// The presigned request's query, from `Bearer sagemaker-api-key-<base64>`.
fn presigned_query(header: &str) -> Result<Vec<(String, String)>, ApiError> {
    let (scheme, token) = header.trim().split_once(' ').unwrap_or((header, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(missing("the Authorization header is not a Bearer token"));
    }
    let encoded = token
        .trim()
        .strip_prefix(PREFIX)
        .ok_or_else(|| invalid("the token does not start with sagemaker-api-key-"))?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| invalid("the token is not base64 text"))?;
    let (host, query) = decoded
        .split_once("/?")
        .ok_or_else(|| invalid("the token is not a presigned request URL"))?;
    if host != HOST {
        return Err(invalid(format!("the token is presigned for {host}, not {HOST}")));
    }
    serde_urlencoded::from_str::<Vec<(String, String)>>(query)
        .map_err(|_| invalid("the token's query string does not decode"))
}

fn param(query: &[(String, String)], name: &str) -> Option<String> {
    query.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

/// `AKID/DATE/REGION/sagemaker/aws4_request`: the access key, when the scope is right.
fn check_credential(credential: &str, amz_date: &str, region: &str) -> Result<String, ApiError> {
    let parts: Vec<&str> = credential.split('/').collect();
    let [key, date, scope_region, service, terminator] = parts[..] else {
        return Err(invalid("X-Amz-Credential is not AKID/DATE/REGION/SERVICE/aws4_request"));
    };
    if key.is_empty() || terminator != "aws4_request" {
        return Err(invalid("X-Amz-Credential is not AKID/DATE/REGION/SERVICE/aws4_request"));
    }
    if service != "sagemaker" {
        return Err(invalid(format!(
            "the credential scope is for service {service}, not sagemaker"
        )));
    }
    if scope_region != region {
        return Err(invalid(format!(
            "the credential scope is for region {scope_region}; this endpoint is in {region}"
        )));
    }
    if !amz_date.starts_with(date) || date.len() != 8 {
        return Err(invalid(format!(
            "the credential scope's date {date} is not X-Amz-Date's"
        )));
    }
    Ok(key.to_string())
}

/// `X-Amz-Expires`: whole seconds, 1 to [`MAX_EXPIRES_SECS`].
fn check_expires(text: &str) -> Result<u64, ApiError> {
    match text.parse::<u64>() {
        Ok(n) if (1..=MAX_EXPIRES_SECS).contains(&n) => Ok(n),
        _ => Err(invalid(format!(
            "X-Amz-Expires {text} is not a number of seconds from 1 to {MAX_EXPIRES_SECS}"
        ))),
    }
}

/// `YYYYMMDDTHHMMSSZ` as epoch seconds.
fn parse_amz_date(text: &str) -> Option<f64> {
    if text.len() != 16 || !text.is_ascii() || &text[8..9] != "T" || !text.ends_with('Z') {
        return None;
    }
    let iso = format!(
        "{}-{}-{}T{}:{}:{}Z",
        &text[0..4],
        &text[4..6],
        &text[6..8],
        &text[9..11],
        &text[11..13],
        &text[13..15]
    );
    aws_smithy_types::DateTime::from_str(&iso, aws_smithy_types::date_time::Format::DateTime)
        .ok()
        .map(|d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token as `sagemaker.core.token_generator` lays it out (the signature's value is not
    /// checked, only its shape).
    fn token(credential: &str, date: &str, expires: &str) -> String {
        let url = format!(
            "sagemaker.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={}&X-Amz-Date={date}&X-Amz-Expires={expires}&X-Amz-SignedHeaders=host&X-Amz-Signature={}&Version=1",
            credential.replace('/', "%2F"),
            "a".repeat(64)
        );
        format!(
            "Bearer {PREFIX}{}",
            base64::engine::general_purpose::STANDARD.encode(url)
        )
    }

    const SIGNED: f64 = 1_796_385_600.0; // 2026-12-04T12:00:00Z

    #[test]
    fn a_well_formed_token_is_accepted_until_it_expires() {
        let t = token(
            "AKID/20261204/us-east-1/sagemaker/aws4_request",
            "20261204T120000Z",
            "3600",
        );
        let scope = check(Some(&t), "us-east-1", SIGNED + 10.0).unwrap();
        assert_eq!(scope.access_key, "AKID");
        assert_eq!(scope.expires_at, SIGNED + 3600.0);
        let expired = check(Some(&t), "us-east-1", SIGNED + 3600.0).unwrap_err();
        assert_eq!(expired.status, StatusCode::FORBIDDEN);
        assert!(expired.message.contains("expired"), "{}", expired.message);
        assert_eq!(scope_region(&t).as_deref(), Some("us-east-1"));
    }

    #[test]
    fn a_token_of_temporary_credentials_is_read_as_the_generator_writes_it() {
        // sagemaker-core 2.27 with AKIDSANDBOX and a session token `tok/en+=`, 900 s.
        let url = "sagemaker.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDSANDBOX%2F20261204%2Fus-east-1%2Fsagemaker%2Faws4_request&X-Amz-Date=20261204T210139Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Security-Token=tok%2Fen%2B%3D&X-Amz-Signature=3c2e341f294d1fcd2914908a806fadf83cac1acf9be5573313583d50dc982189&Version=1";
        let t = format!(
            "Bearer {PREFIX}{}",
            base64::engine::general_purpose::STANDARD.encode(url)
        );
        let signed = 1_796_418_099.0; // 2026-12-04T21:01:39Z
        let scope = check(Some(&t), "us-east-1", signed + 899.0).unwrap();
        assert_eq!(
            (scope.access_key.as_str(), scope.expires_at),
            ("AKIDSANDBOX", signed + 900.0)
        );
        assert!(check(Some(&t), "us-east-1", signed + 900.0).is_err());
    }

    #[test]
    fn scope_lifetime_and_shape_are_checked() {
        let refused = |t: &str| check(Some(t), "us-east-1", SIGNED).unwrap_err();
        let bedrock = token("AKID/20261204/us-east-1/bedrock/aws4_request", "20261204T120000Z", "60");
        assert!(refused(&bedrock).message.contains("service bedrock"));
        let other_region = token(
            "AKID/20261204/eu-west-1/sagemaker/aws4_request",
            "20261204T120000Z",
            "60",
        );
        assert!(refused(&other_region).message.contains("eu-west-1"));
        let too_long = token(
            "AKID/20261204/us-east-1/sagemaker/aws4_request",
            "20261204T120000Z",
            "43201",
        );
        assert!(refused(&too_long).message.contains("43200"));
        assert_eq!(refused("Bearer sagemaker-api-key-!!!").status, StatusCode::FORBIDDEN);
        assert_eq!(refused("Basic abc").status, StatusCode::UNAUTHORIZED);
        assert_eq!(
            check(None, "us-east-1", SIGNED).unwrap_err().status,
            StatusCode::UNAUTHORIZED
        );
    }
}
