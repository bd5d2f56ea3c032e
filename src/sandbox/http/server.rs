//! One HTTP front door for every emulated service: requests are routed by `x-amz-target`, by the
//! Smithy RPC v2 path, by the SageMaker Runtime path, by the admin prefix, awsQuery form posts to
//! STS, and otherwise to S3.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::sandbox::autoscaling::api as autoscaling;
use crate::sandbox::cloudwatch::api as cloudwatch;
use crate::sandbox::http::admin;
use crate::sandbox::http::wire::{ApiError, Protocol};
use crate::sandbox::logs::api as logs_api;
use crate::sandbox::runtime::errors::{MAX_PAYLOAD, payload_too_large};
use crate::sandbox::runtime::http as runtime;
use crate::sandbox::sagemaker::control;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::{s3, sts};

/// Largest SageMaker Runtime body read: 1 MiB above the 6,291,456-byte invoke limit, so bodies
/// just above it get SageMaker's own ValidationError; larger ones get it from `Content-Length`
/// (or the bytes read so far) without being read whole.
pub const RUNTIME_BODY_LIMIT: usize = MAX_PAYLOAD + 1024 * 1024;
/// Largest control-plane body (awsJson, Smithy RPC v2 CBOR, awsQuery): 1 MiB, PutMetricData's
/// own limit; larger ones are answered 413.
pub const CONTROL_BODY_LIMIT: usize = 1024 * 1024;
/// Largest S3 object PutObject takes in one request (the sandbox's limit).
pub const S3_BODY_LIMIT: usize = 64 * 1024 * 1024;
/// Largest body on the admin routes and S3 reads.
pub const ADMIN_BODY_LIMIT: usize = 64 * 1024;

/// The router serving every protocol on one port.
pub fn router(sandbox: Arc<Sandbox>) -> Router {
    Router::new()
        .fallback(dispatch)
        .layer(DefaultBodyLimit::disable())
        .with_state(sandbox)
}

/// The body limit of a request, from its route.
fn body_limit(headers: &HeaderMap, path: &str) -> usize {
    if headers.contains_key("x-amz-target") || path.starts_with("/service/") || path == "/" {
        CONTROL_BODY_LIMIT
    } else if path.starts_with("/endpoints/") {
        RUNTIME_BODY_LIMIT
    } else if !path.starts_with("/_sandbox/") {
        // S3 (PutObject): objects as large as an invocation's payload and more.
        S3_BODY_LIMIT
    } else {
        ADMIN_BODY_LIMIT
    }
}

/// Reads the body up to the route's limit within `deadline`; over the limit, the answer the real
/// service would give; past the deadline, 408 and the connection closed.
async fn read_body(
    headers: &HeaderMap,
    path: &str,
    body: axum::body::Body,
    deadline: std::time::Duration,
) -> Result<Bytes, Box<Response>> {
    let limit = body_limit(headers, path);
    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    let read = match declared {
        Some(n) if n > limit => Err(n),
        _ => match tokio::time::timeout(deadline, axum::body::to_bytes(body, limit)).await {
            Ok(read) => read.map_err(|_| limit + 1),
            Err(_) => return Err(Box::new(body_timeout(deadline))),
        },
    };
    read.map_err(|len| Box::new(too_large(limit, len, path)))
}

/// The answer to a body that did not arrive within `deadline`: 408, and the connection closes.
fn body_timeout(deadline: std::time::Duration) -> Response {
    let mut resp = untyped_error(
        StatusCode::REQUEST_TIMEOUT,
        "RequestTimeout",
        format!("The request body did not arrive within {} s", deadline.as_secs_f64()),
    );
    resp.headers_mut().insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    resp
}

/// The answer to a body of `len` bytes over `limit`.
fn too_large(limit: usize, len: usize, path: &str) -> Response {
    if limit == RUNTIME_BODY_LIMIT {
        return payload_too_large(len).into_response(Protocol::RestJson1);
    }
    untyped_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        "RequestEntityTooLarge",
        format!("Request body of {len} bytes exceeds the sandbox's limit of {limit} bytes for {path}"),
    )
}

/// A restJson1 error for a request no service claims: no `x-amzn-errortype` header, since no
/// service answers it.
fn untyped_error(status: StatusCode, code: &str, message: String) -> Response {
    let mut resp = ApiError::new(status, code, message).into_response(Protocol::RestJson1);
    resp.headers_mut().remove("x-amzn-errortype");
    resp
}

/// The refusal, if any, of an admin request: what a web page could send is refused, a foreign
/// `Origin` (403) and a POST whose content type is not JSON (415: no "simple" cross-origin form
/// or text/plain POST).
fn admin_guard(method: &Method, headers: &HeaderMap) -> Option<Response> {
    let text = |h: &str| headers.get(h).and_then(|v| v.to_str().ok());
    if let Some(origin) = text("origin") {
        let own = text("host").map(|h| format!("http://{h}"));
        let loopback = text("host").is_some_and(|h| {
            let host = h.rsplit_once(':').map_or(h, |(host, _)| host);
            host == "localhost" || host == "[::1]" || host.starts_with("127.")
        });
        if !(loopback && own.as_deref() == Some(origin)) {
            return Some(plain(
                StatusCode::FORBIDDEN,
                "the sandbox's admin routes refuse cross-origin requests\n",
            ));
        }
    }
    let json = text("content-type").is_some_and(|c| {
        c.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    });
    (method == Method::POST && !json).then(|| {
        plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the sandbox's admin routes take Content-Type: application/json\n",
        )
    })
}

/// A plain-text answer.
fn plain(status: StatusCode, text: &'static str) -> Response {
    (status, [(axum::http::header::CONTENT_TYPE, "text/plain")], text).into_response()
}

/// Routes a request to the service its wire format names, after the admin guard and the body
/// limit.
async fn dispatch(State(sb): State<Arc<Sandbox>>, req: axum::extract::Request) -> Response {
    let (parts, body) = req.into_parts();
    let (method, uri, headers) = (parts.method, parts.uri, parts.headers);
    let primary = sb;
    let sb = crate::sandbox::http::region::for_request(&primary, &headers);
    let path = uri.path().to_string();
    if path.starts_with("/_sandbox/")
        && let Some(refused) = admin_guard(&method, &headers)
    {
        return refused;
    }
    let body = match read_body(&headers, &path, body, sb.config.connections.body_read_timeout).await {
        Ok(b) => b,
        Err(refused) => return *refused,
    };
    if let Some(target) = headers.get("x-amz-target").and_then(|v| v.to_str().ok()) {
        return by_target(&sb, target, &headers, &body).await;
    }
    if let Some(rest) = path.strip_prefix("/service/") {
        return rpc_v2(&sb, rest, &headers, &body);
    }
    if let Some(rest) = path.strip_prefix("/endpoints/") {
        sb.count_request(
            "sagemaker-runtime",
            match rest.rsplit('/').next() {
                Some("invocations-response-stream") => "InvokeEndpointWithResponseStream",
                Some("async-invocations") => "InvokeEndpointAsync",
                Some("completions") => "OpenAIChatCompletions",
                _ => "InvokeEndpoint",
            },
        );
        return runtime::handle(sb.clone(), &method, rest, &headers, body).await;
    }
    if let Some(rest) = path.strip_prefix("/_sandbox/") {
        return admin::handle((&primary, &sb), &method, rest, uri.query(), &body);
    }
    if method == Method::POST
        && path == "/"
        && let Some(op) = sts::query_action(&headers, &body)
    {
        // awsQuery (STS): the operation is the form's Action.
        sb.count_request("sts", &op);
        return sts::handle(&sb, &op, &headers);
    }
    let signed_for_s3 = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("/s3/aws4_request"));
    if method == Method::PUT && signed_for_s3 {
        sb.count_request(
            "s3",
            if path.trim_matches('/').contains('/') {
                "PutObject"
            } else {
                "CreateBucket"
            },
        );
        return s3::handle_put(&sb, &path, &headers, &body);
    }
    if method == Method::GET || method == Method::HEAD {
        sb.count_request(
            "s3",
            if uri.query().is_some_and(|q| q.contains("list-type=2")) {
                "ListObjectsV2"
            } else {
                "S3"
            },
        );
        return s3::handle(&sb, &method, &path, uri.query());
    }
    untyped_error(
        StatusCode::BAD_REQUEST,
        "UnknownOperationException",
        format!("The sandbox has no operation for {method} {path}"),
    )
}

/// The service a target's prefix names, as boto3 names its client (what the call counts say).
fn service_name(target_prefix: &str) -> &'static str {
    match target_prefix {
        "SageMaker" => "sagemaker",
        "AnyScaleFrontendService" => "application-autoscaling",
        "GraniteServiceVersion20100801" => "cloudwatch",
        "Logs_20140328" => "logs",
        _ => "unknown",
    }
}

/// awsJson: the service and operation are named by `x-amz-target` (`Service.Operation`); a
/// SageMaker call past the region's throttle is answered ThrottlingException.
async fn by_target(sb: &Sandbox, target: &str, headers: &HeaderMap, body: &Bytes) -> Response {
    let (service, op) = target.split_once('.').unwrap_or((target, ""));
    sb.count_request(service_name(service), op);
    match service {
        "SageMaker" if !sb.throttle.admit() => {
            sb.calls.count_throttled("sagemaker", op);
            ApiError::throttling().into_response(Protocol::AwsJson11)
        }
        "SageMaker" => control::handle(sb, op, body).await,
        "AnyScaleFrontendService" => autoscaling::handle(sb, op, body),
        "GraniteServiceVersion20100801" => cloudwatch::handle(sb, Protocol::AwsJson10, op, headers, body),
        "Logs_20140328" => logs_api::handle(sb, op, body),
        _ => ApiError::new(
            StatusCode::BAD_REQUEST,
            "UnknownOperationException",
            format!("The sandbox does not serve the service of target {target}"),
        )
        .into_response(Protocol::AwsJson11),
    }
}

/// Smithy RPC v2 CBOR: `/service/{service}/operation/{op}` (`rest` follows `/service/`); only
/// CloudWatch speaks it.
fn rpc_v2(sb: &Sandbox, rest: &str, headers: &HeaderMap, body: &Bytes) -> Response {
    let mut parts = rest.split('/');
    let service = parts.next().unwrap_or("");
    let op = match (parts.next(), parts.next()) {
        (Some("operation"), Some(op)) => op,
        _ => "",
    };
    sb.count_request(service_name(service), op);
    if service == "GraniteServiceVersion20100801" {
        return cloudwatch::handle(sb, Protocol::RpcV2Cbor, op, headers, body);
    }
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "UnknownOperationException",
        format!("The sandbox does not serve service {service} (operation {op})"),
    )
    .in_namespace("smithy.framework")
    .into_response(Protocol::RpcV2Cbor)
}
