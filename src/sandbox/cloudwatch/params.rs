//! What CloudWatch's operations share: the error codes clients look up (see `api.rs` on why they
//! are the awsQuery codes), typed request parsing, timestamps, dimensions, and a metric's output.

use axum::http::StatusCode;
use serde::{Deserialize, Deserializer};

use crate::sandbox::cloudwatch::metrics::SeriesKey;
use crate::sandbox::http::wire::{ApiError, Out, parse_input};

/// Smithy namespace of CloudWatch's shapes (CBOR error `__type` prefix).
pub const NAMESPACE: &str = "com.amazonaws.cloudwatch";

/// An error with CloudWatch's namespace and the awsQuery code header.
pub(crate) fn err(status: StatusCode, code: &str, message: String) -> ApiError {
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
