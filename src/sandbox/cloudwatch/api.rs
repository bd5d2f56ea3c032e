//! CloudWatch in Smithy RPC v2 CBOR (the Rust SDK) and awsJson1_0 (boto3 / the AWS CLI): one
//! implementation per operation, fed by a typed request parsed from the decoded document and
//! answering an [`Out`] tree that is encoded in the protocol the request came in.
//!
//! Operations: GetMetricData (in `query.rs`), PutMetricData (`put.rs`), ListMetrics (`list.rs`),
//! and the alarm operations (in `alarms/api/`). Anything else is the protocol's own
//! `UnknownOperationException`.
//!
//! Error codes. CloudWatch is `awsQueryCompatible`: clients look errors up by their awsQuery code
//! (`InvalidParameterValue`, `MissingParameter`, `InvalidParameterCombination`,
//! `InvalidNextToken`, `ValidationError` for schema violations such as a query Id not matching
//! its pattern), not by the Smithy shape name (`InvalidParameterValueException`). The Rust SDK
//! takes the code from the `x-amzn-query-error: Code;Sender` header (which wins over the CBOR
//! `__type`), and botocore takes it from that header when present, else from `__type`. So every
//! error here carries the awsQuery code as its code: the CBOR `__type` is
//! `com.amazonaws.cloudwatch#<Code>`, the JSON `__type` is `<Code>`, and both protocols get the
//! `x-amzn-query-error` header. Either way `err.code()` in the Rust SDK and
//! `e.response["Error"]["Code"]` in boto3 show the documented CloudWatch code, and the Rust SDK
//! maps it to its typed error (e.g. `InvalidParameterValueException`) where the operation models
//! one.

use std::io::Read;

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use crate::sandbox::cloudwatch::alarms::api as alarms;
use crate::sandbox::cloudwatch::params::{NAMESPACE, err, invalid_value};
use crate::sandbox::cloudwatch::{list, put, query};
use crate::sandbox::http::wire::{ApiError, Out, Protocol, bytes_response, decode_cbor, decode_json, json_ok};
use crate::sandbox::world::sandbox::Sandbox;

/// Largest inflated request body accepted from a gzip `Content-Encoding`.
const MAX_INFLATED: u64 = 16 * 1024 * 1024;

/// Serves one CloudWatch operation in the protocol it arrived in.
pub fn handle(sb: &Sandbox, protocol: Protocol, op: &str, headers: &HeaderMap, body: &[u8]) -> Response {
    match serve(sb, protocol, op, headers, body) {
        Ok(out) => match protocol {
            Protocol::RpcV2Cbor => {
                let mut resp = bytes_response(StatusCode::OK, "application/cbor", out.to_cbor());
                resp.headers_mut()
                    .insert("smithy-protocol", HeaderValue::from_static("rpc-v2-cbor"));
                resp
            }
            _ => json_ok(Protocol::AwsJson10, &out.to_json()),
        },
        Err(e) => error_response(protocol, e),
    }
}

type OpFn = fn(&Sandbox, serde_json::Value) -> Result<Out, ApiError>;

fn serve(sb: &Sandbox, protocol: Protocol, op: &str, headers: &HeaderMap, body: &[u8]) -> Result<Out, ApiError> {
    let run: OpFn = match op {
        "GetMetricData" => query::get_metric_data,
        "PutMetricData" => put::put_metric_data,
        "ListMetrics" => list::list_metrics,
        "PutMetricAlarm" => alarms::put_metric_alarm,
        "PutCompositeAlarm" => alarms::put_composite_alarm,
        "DescribeAlarms" => alarms::describe_alarms,
        "DeleteAlarms" => alarms::delete_alarms,
        "SetAlarmState" => alarms::set_alarm_state,
        "DescribeAlarmHistory" => alarms::describe_alarm_history,
        _ => return Err(unknown_operation(protocol, op)),
    };
    let inflated;
    let body = if is_gzip(headers) {
        inflated = gunzip(body)?;
        &inflated[..]
    } else {
        body
    };
    let doc = match protocol {
        Protocol::RpcV2Cbor => decode_cbor(body)?,
        _ => decode_json(body)?,
    };
    run(sb, doc)
}

/// Encodes an error: CloudWatch namespace, `message` member, and the awsQuery code header in
/// both protocols (see the module docs).
fn error_response(protocol: Protocol, e: ApiError) -> Response {
    let e = if e.namespace == "smithy.framework" {
        e
    } else {
        e.in_namespace(NAMESPACE)
    };
    let e = e.lowercase_message();
    let query_error = format!("{};{}", e.code, if e.sender_fault { "Sender" } else { "Receiver" });
    let protocol = if protocol == Protocol::RpcV2Cbor {
        protocol
    } else {
        Protocol::AwsJson10
    };
    let mut resp = e.into_response(protocol);
    if let Ok(v) = HeaderValue::from_str(&query_error) {
        resp.headers_mut().insert("x-amzn-query-error", v);
    }
    resp
}

fn unknown_operation(protocol: Protocol, op: &str) -> ApiError {
    let op = if op.is_empty() { "(none)" } else { op };
    let msg = format!("The sandbox does not implement CloudWatch operation {op}");
    match protocol {
        // Smithy RPC v2 routing failure: 404 with the framework's UnknownOperationException.
        Protocol::RpcV2Cbor => {
            ApiError::new(StatusCode::NOT_FOUND, "UnknownOperationException", msg).in_namespace("smithy.framework")
        }
        _ => ApiError::new(StatusCode::BAD_REQUEST, "UnknownOperationException", msg),
    }
}

fn is_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all("content-encoding")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|e| e.trim().eq_ignore_ascii_case("gzip"))
}

fn gunzip(body: &[u8]) -> Result<Vec<u8>, ApiError> {
    let mut out = Vec::new();
    let mut reader = flate2::read::MultiGzDecoder::new(body).take(MAX_INFLATED + 1);
    reader.read_to_end(&mut out).map_err(|e| {
        err(
            StatusCode::BAD_REQUEST,
            "SerializationException",
            format!("Invalid gzip body: {e}"),
        )
    })?;
    if out.len() as u64 > MAX_INFLATED {
        return Err(invalid_value(format!(
            "The inflated request body exceeds {MAX_INFLATED} bytes."
        )));
    }
    Ok(out)
}
