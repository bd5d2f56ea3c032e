//! CloudWatch in Smithy RPC v2 CBOR (the Rust SDK) and awsJson1_0 (boto3 / the AWS CLI): one
//! implementation per operation, fed by a typed request parsed from the decoded document and
//! answering an [`Out`] tree that is encoded in the protocol the request came in.
//!
//! Operations: GetMetricData (in `cloudwatch_query.rs`), PutMetricData, ListMetrics, and the
//! alarm operations (in `alarms/api.rs`). Anything else is the protocol's own
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

pub mod alarms;
pub mod metrics;
pub mod query;

use std::io::Read;

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use base64::Engine;
use serde::{Deserialize, Deserializer};

use crate::sandbox::cloudwatch::metrics::{ListFilter, SeriesKey};
use crate::sandbox::http::wire::{
    ApiError, Out, Protocol, bytes_response, decode_cbor, decode_json, json_ok, parse_input,
};
use crate::sandbox::world::sandbox::Sandbox;

/// Smithy namespace of CloudWatch's shapes (CBOR error `__type` prefix).
pub const NAMESPACE: &str = "com.amazonaws.cloudwatch";
/// Largest inflated request body accepted from a gzip `Content-Encoding`.
const MAX_INFLATED: u64 = 16 * 1024 * 1024;
/// ListMetrics page size.
const LIST_PAGE: usize = 500;
/// Units CloudWatch accepts, space-separated.
const UNITS: &str = "Seconds Microseconds Milliseconds Bytes Kilobytes Megabytes Gigabytes Terabytes Bits Kilobits \
    Megabits Gigabits Terabits Percent Count Bytes/Second Kilobytes/Second Megabytes/Second Gigabytes/Second \
    Terabytes/Second Bits/Second Kilobits/Second Megabits/Second Gigabits/Second Terabits/Second Count/Second None";

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
        "GetMetricData" => crate::sandbox::cloudwatch::query::get_metric_data,
        "PutMetricData" => put_metric_data,
        "ListMetrics" => list_metrics,
        "PutMetricAlarm" => crate::sandbox::cloudwatch::alarms::api::put_metric_alarm,
        "PutCompositeAlarm" => crate::sandbox::cloudwatch::alarms::api::put_composite_alarm,
        "DescribeAlarms" => crate::sandbox::cloudwatch::alarms::api::describe_alarms,
        "DeleteAlarms" => crate::sandbox::cloudwatch::alarms::api::delete_alarms,
        "SetAlarmState" => crate::sandbox::cloudwatch::alarms::api::set_alarm_state,
        "DescribeAlarmHistory" => crate::sandbox::cloudwatch::alarms::api::describe_alarm_history,
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

fn err(status: StatusCode, code: &str, message: String) -> ApiError {
    ApiError::new(status, code, message)
        .in_namespace(NAMESPACE)
        .lowercase_message()
}

/// `InvalidParameterValue` (400).
pub(crate) fn invalid_value(message: String) -> ApiError {
    err(StatusCode::BAD_REQUEST, "InvalidParameterValue", message)
}

/// `MissingParameter` (400) for a required parameter.
pub(crate) fn missing(parameter: &str) -> ApiError {
    err(
        StatusCode::BAD_REQUEST,
        "MissingParameter",
        format!("The parameter {parameter} is required."),
    )
}

/// `InvalidParameterCombination` (400).
pub(crate) fn invalid_combination(message: String) -> ApiError {
    err(StatusCode::BAD_REQUEST, "InvalidParameterCombination", message)
}

/// `InvalidNextToken` (400).
pub(crate) fn invalid_next_token(message: String) -> ApiError {
    err(StatusCode::BAD_REQUEST, "InvalidNextToken", message)
}

/// `ValidationError` (400): the awsQuery code of a schema constraint violation.
pub(crate) fn validation_error(message: String) -> ApiError {
    err(StatusCode::BAD_REQUEST, "ValidationError", message)
}

/// Parses a typed request; shape mismatches are `ValidationError`s.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(doc: serde_json::Value) -> Result<T, ApiError> {
    parse_input(doc).map_err(|e| validation_error(e.message))
}

/// A timestamp member: epoch seconds (CBOR tag 1 arrives as a number), or an ISO 8601 string.
pub(crate) fn de_time<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    use serde::de::Error;
    match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::Number(n)) => n.as_f64().map(Some).ok_or_else(|| D::Error::custom("bad timestamp")),
        Some(serde_json::Value::String(s)) => {
            if let Ok(f) = s.parse::<f64>() {
                return Ok(Some(f));
            }
            aws_smithy_types::DateTime::from_str(&s, aws_smithy_types::date_time::Format::DateTime)
                .map(|t| Some(t.as_secs_f64()))
                .map_err(|_| D::Error::custom(format!("invalid timestamp {s:?}")))
        }
        Some(other) => Err(D::Error::custom(format!("invalid timestamp {other}"))),
    }
}

/// A dimension `{Name, Value}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct Dimension {
    pub(crate) name: Option<String>,
    pub(crate) value: Option<String>,
}

/// Validates dimensions (names and values 1..=1024 chars, at most 30, unique names) into pairs.
pub(crate) fn dimension_pairs(dims: &[Dimension], path: &str) -> Result<Vec<(String, String)>, ApiError> {
    if dims.len() > 30 {
        return Err(invalid_value(format!(
            "The collection {path}.Dimensions must not have a size greater than 30."
        )));
    }
    let mut out: Vec<(String, String)> = Vec::with_capacity(dims.len());
    for (i, d) in dims.iter().enumerate() {
        let at = format!("{path}.Dimensions.member.{}", i + 1);
        let name = d.name.as_deref().ok_or_else(|| missing(&format!("{at}.Name")))?;
        let value = d.value.as_deref().ok_or_else(|| missing(&format!("{at}.Value")))?;
        for (field, s) in [("Name", name), ("Value", value)] {
            if s.is_empty() || s.chars().count() > 1024 {
                return Err(validation_error(format!(
                    "The value for parameter {at}.{field} must have a length between 1 and 1024."
                )));
            }
        }
        if out.iter().any(|(n, _)| n == name) {
            return Err(invalid_value(format!(
                "No metric may have duplicate dimension names ({name})."
            )));
        }
        out.push((name.to_string(), value.to_string()));
    }
    Ok(out)
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PutMetricDataInput {
    namespace: Option<String>,
    #[serde(default)]
    metric_data: Vec<MetricDatum>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct MetricDatum {
    metric_name: Option<String>,
    #[serde(default)]
    dimensions: Vec<Dimension>,
    #[serde(default, deserialize_with = "de_time")]
    timestamp: Option<f64>,
    value: Option<f64>,
    statistic_values: Option<StatisticSet>,
    values: Option<Vec<f64>>,
    counts: Option<Vec<f64>>,
    unit: Option<String>,
    storage_resolution: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct StatisticSet {
    sample_count: Option<f64>,
    sum: Option<f64>,
    minimum: Option<f64>,
    maximum: Option<f64>,
}

/// What one validated datum records.
enum Sample {
    Value(f64),
    Values(Vec<f64>, Vec<f64>),
    Stats { count: f64, sum: f64, min: f64, max: f64 },
}

fn put_metric_data(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let input: PutMetricDataInput = parse(doc)?;
    let namespace = input.namespace.ok_or_else(|| missing("Namespace"))?;
    if namespace.is_empty() || namespace.chars().count() > 255 || namespace.starts_with("AWS/") || namespace == "AWS" {
        return Err(invalid_value(format!(
            "The value {namespace} for parameter Namespace is invalid."
        )));
    }
    if input.metric_data.is_empty() {
        return Err(missing("MetricData"));
    }
    if input.metric_data.len() > 1000 {
        return Err(invalid_value(
            "The collection MetricData must not have a size greater than 1000.".into(),
        ));
    }
    let now = crate::sandbox::world::clock::now_epoch();
    let mut accepted = Vec::with_capacity(input.metric_data.len());
    for (i, datum) in input.metric_data.into_iter().enumerate() {
        let path = format!("MetricData.member.{}", i + 1);
        accepted.push(validate_datum(datum, &path, now)?);
    }
    for (name, dims, unit, ts, sample) in accepted {
        let key = SeriesKey::from_owned(namespace.clone(), name, dims);
        let handle = sb.metrics.series(&key, &unit);
        let mut series = handle.lock();
        match sample {
            Sample::Value(v) => series.record(ts, v),
            Sample::Values(values, counts) => series.record_values(ts, &values, &counts),
            Sample::Stats { count, sum, min, max } => series.record_stats(ts, count, sum, min, max),
        }
    }
    Ok(Out::Map(vec![]))
}

type Accepted = (String, Vec<(String, String)>, String, f64, Sample);

fn validate_datum(d: MetricDatum, path: &str, now: f64) -> Result<Accepted, ApiError> {
    let name = d.metric_name.ok_or_else(|| missing(&format!("{path}.MetricName")))?;
    if name.is_empty() || name.chars().count() > 255 {
        return Err(validation_error(format!(
            "The value for parameter {path}.MetricName must have a length between 1 and 255."
        )));
    }
    let dims = dimension_pairs(&d.dimensions, path)?;
    let unit = d.unit.unwrap_or_else(|| "None".to_string());
    if !UNITS.split_whitespace().any(|u| u == unit) {
        return Err(validation_error(format!(
            "The value {unit} for parameter {path}.Unit is not a valid unit (expected one of {}).",
            UNITS.split_whitespace().collect::<Vec<_>>().join(", ")
        )));
    }
    if let Some(r) = d.storage_resolution
        && r != 1.0
        && r != 60.0
    {
        return Err(invalid_value(format!(
            "The value {r} for parameter {path}.StorageResolution must be 1 or 60."
        )));
    }
    let ts = d.timestamp.unwrap_or(now);
    if ts > now + 2.0 * 3600.0 {
        return Err(invalid_value(format!(
            "The parameter {path}.Timestamp must specify a time no more than two hours in the future."
        )));
    }
    if ts < now - 14.0 * 86400.0 {
        return Err(invalid_value(format!(
            "The parameter {path}.Timestamp must specify a time within the past two weeks."
        )));
    }
    let given = [d.value.is_some(), d.statistic_values.is_some(), d.values.is_some()];
    if given.iter().filter(|g| **g).count() > 1 {
        return Err(invalid_combination(format!(
            "The parameters {path}.Value, {path}.StatisticValues and {path}.Values are mutually exclusive and you have specified more than one."
        )));
    }
    let sample = if let Some(v) = d.value {
        Sample::Value(v)
    } else if let Some(s) = d.statistic_values {
        let count = s
            .sample_count
            .ok_or_else(|| missing(&format!("{path}.StatisticValues.SampleCount")))?;
        let sum = s.sum.ok_or_else(|| missing(&format!("{path}.StatisticValues.Sum")))?;
        let min = s
            .minimum
            .ok_or_else(|| missing(&format!("{path}.StatisticValues.Minimum")))?;
        let max = s
            .maximum
            .ok_or_else(|| missing(&format!("{path}.StatisticValues.Maximum")))?;
        if count <= 0.0 || min > max {
            return Err(invalid_value(format!(
                "The parameter {path}.StatisticValues must have a positive SampleCount and Minimum <= Maximum."
            )));
        }
        Sample::Stats { count, sum, min, max }
    } else if let Some(values) = d.values {
        let counts = d.counts.unwrap_or_default();
        if !counts.is_empty() && counts.len() != values.len() {
            return Err(invalid_value(format!(
                "The parameters {path}.Values and {path}.Counts must be arrays of the same size."
            )));
        }
        if values.len() > 150 {
            return Err(invalid_value(format!(
                "The collection {path}.Values must not have a size greater than 150."
            )));
        }
        Sample::Values(values, counts)
    } else {
        return Err(missing(&format!("{path}.Value")));
    };
    Ok((name, dims, unit, ts, sample))
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ListMetricsInput {
    namespace: Option<String>,
    metric_name: Option<String>,
    #[serde(default)]
    dimensions: Vec<Dimension>,
    next_token: Option<String>,
    recently_active: Option<String>,
}

const LIST_TOKEN_PREFIX: &str = "lm1.";

fn encode_list_token(key: &SeriesKey) -> String {
    let doc = serde_json::json!([key.namespace, key.name, key.dimensions]);
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(doc.to_string());
    format!("{LIST_TOKEN_PREFIX}{b64}")
}

fn decode_list_token(token: &str) -> Option<SeriesKey> {
    let b64 = token.strip_prefix(LIST_TOKEN_PREFIX)?;
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(b64).ok()?;
    let (ns, name, dims): (String, String, Vec<(String, String)>) = serde_json::from_slice(&raw).ok()?;
    Some(SeriesKey::from_owned(ns, name, dims))
}

fn list_metrics(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let input: ListMetricsInput = parse(doc)?;
    if input.dimensions.len() > 10 {
        return Err(invalid_value(
            "The collection Dimensions must not have a size greater than 10.".into(),
        ));
    }
    let mut dimensions = Vec::with_capacity(input.dimensions.len());
    for (i, d) in input.dimensions.into_iter().enumerate() {
        let name = d
            .name
            .ok_or_else(|| missing(&format!("Dimensions.member.{}.Name", i + 1)))?;
        dimensions.push((name, d.value));
    }
    let active_since = match input.recently_active.as_deref() {
        None => None,
        Some("PT3H") => Some(crate::sandbox::world::clock::now_epoch() - 3.0 * 3600.0),
        Some(other) => {
            return Err(validation_error(format!(
                "1 validation error detected: Value '{other}' at 'recentlyActive' failed to satisfy constraint: Member must satisfy enum value set: [PT3H]"
            )));
        }
    };
    let after = match input.next_token.as_deref() {
        None | Some("") => None,
        Some(t) => Some(
            decode_list_token(t)
                .ok_or_else(|| invalid_value("The value for parameter NextToken is invalid.".into()))?,
        ),
    };
    let filter = ListFilter {
        namespace: input.namespace,
        metric_name: input.metric_name,
        dimensions,
        active_since,
    };
    let (keys, more) = sb.metrics.list(&filter, after.as_ref(), LIST_PAGE);
    let mut out = vec![(Out::str("Metrics"), Out::List(keys.iter().map(metric_out).collect()))];
    if more && let Some(last) = keys.last() {
        out.push((Out::str("NextToken"), Out::Str(encode_list_token(last))));
    }
    Ok(Out::Map(out))
}

/// `{Namespace, MetricName, Dimensions}` of a series.
pub(crate) fn metric_out(key: &SeriesKey) -> Out {
    let dims = key
        .dimensions
        .iter()
        .map(|(n, v)| Out::map([("Name", Out::Str(n.clone())), ("Value", Out::Str(v.clone()))]))
        .collect();
    Out::map([
        ("Namespace", Out::Str(key.namespace.clone())),
        ("MetricName", Out::Str(key.name.clone())),
        ("Dimensions", Out::List(dims)),
    ])
}
