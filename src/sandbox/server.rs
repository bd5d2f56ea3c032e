//! One HTTP front door for every emulated service: requests are routed by `x-amz-target`, by the
//! Smithy RPC v2 path, by the SageMaker Runtime path, by the admin prefix, awsQuery form posts to
//! STS, and otherwise to S3.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;

use super::wire::{ApiError, Protocol};
use super::{Sandbox, autoscaling, cloudwatch, control, faults, logs_api, runtime, s3, sts};

/// Largest request body accepted (above SageMaker's 6 MB payload limit so that limit can be
/// answered with the real ValidationError rather than a transport failure).
const BODY_LIMIT: usize = 64 * 1024 * 1024;

/// The router serving every protocol on one port.
pub fn router(sandbox: Arc<Sandbox>) -> Router {
    Router::new()
        .fallback(dispatch)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(sandbox)
}

async fn dispatch(
    State(sb): State<Arc<Sandbox>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let sb = super::regions::for_request(&sb, &headers);
    let path = uri.path().to_string();
    if let Some(target) = headers.get("x-amz-target").and_then(|v| v.to_str().ok()) {
        let (service, op) = target.split_once('.').unwrap_or((target, ""));
        sb.count_request(op);
        return match service {
            "SageMaker" => control::handle(&sb, op, &body).await,
            "AnyScaleFrontendService" => autoscaling::handle(&sb, op, &body),
            "GraniteServiceVersion20100801" => cloudwatch::handle(&sb, Protocol::AwsJson10, op, &headers, &body),
            "Logs_20140328" => logs_api::handle(&sb, op, &body),
            _ => ApiError::new(
                StatusCode::BAD_REQUEST,
                "UnknownOperationException",
                format!("The sandbox does not serve the service of target {target}"),
            )
            .into_response(Protocol::AwsJson11),
        };
    }
    if let Some(rest) = path.strip_prefix("/service/") {
        // Smithy RPC v2 CBOR: /service/{service}/operation/{op}
        let mut parts = rest.split('/');
        let service = parts.next().unwrap_or("");
        let op = match (parts.next(), parts.next()) {
            (Some("operation"), Some(op)) => op,
            _ => "",
        };
        sb.count_request(op);
        if service == "GraniteServiceVersion20100801" {
            return cloudwatch::handle(&sb, Protocol::RpcV2Cbor, op, &headers, &body);
        }
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            "UnknownOperationException",
            format!("The sandbox does not serve service {service} (operation {op})"),
        )
        .in_namespace("smithy.framework")
        .into_response(Protocol::RpcV2Cbor);
    }
    if let Some(rest) = path.strip_prefix("/endpoints/") {
        sb.count_request(match rest.rsplit('/').next() {
            Some("invocations-response-stream") => "InvokeEndpointWithResponseStream",
            Some("async-invocations") => "InvokeEndpointAsync",
            _ => "InvokeEndpoint",
        });
        return runtime::handle(sb.clone(), &method, rest, &headers, body).await;
    }
    if let Some(rest) = path.strip_prefix("/_sandbox/") {
        return faults::admin(&sb, &method, rest, uri.query(), &body);
    }
    if method == Method::POST
        && path == "/"
        && let Some(op) = sts::query_action(&headers, &body)
    {
        // awsQuery (STS): the operation is the form's Action.
        sb.count_request(&op);
        return sts::handle(&sb, &op, &headers);
    }
    if method == Method::GET || method == Method::HEAD {
        sb.count_request(if uri.query().is_some_and(|q| q.contains("list-type=2")) {
            "ListObjectsV2"
        } else {
            "S3"
        });
        return s3::handle(&sb, &method, &path, uri.query());
    }
    let mut resp = ApiError::new(
        StatusCode::BAD_REQUEST,
        "UnknownOperationException",
        format!("The sandbox has no operation for {method} {path}"),
    )
    .into_response(Protocol::RestJson1);
    resp.headers_mut().remove("x-amzn-errortype");
    resp
}
