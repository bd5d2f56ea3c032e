//! CloudWatch Logs' writes: CreateLogGroup, CreateLogStream and PutLogEvents, with AWS's limits
//! and ordering rules, into the store FilterLogEvents and GetLogEvents read.
//!
//! PutLogEvents: at most 10,000 events and 1,048,576 bytes (each event's UTF-8 message plus 26
//! bytes) per batch, in chronological order, spanning at most 24 hours
//! (InvalidParameterException otherwise, nothing stored); events more than 2 hours in the future
//! or older than 14 days are rejected one by one and named in `rejectedLogEventsInfo`
//! (`tooNewLogEventStartIndex`, `tooOldLogEventEndIndex`), the rest stored. Sequence tokens are
//! accepted and ignored, as AWS has done since 2023. The group and stream must exist
//! (ResourceNotFoundException).

use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::logs::store::{LogStore, WriteError};

/// Events in one PutLogEvents batch at most.
pub const MAX_BATCH_EVENTS: usize = 10_000;
/// Bytes in one batch at most, counting [`EVENT_OVERHEAD`] per event.
pub const MAX_BATCH_BYTES: usize = 1_048_576;
/// Bytes counted per event beside its message.
pub const EVENT_OVERHEAD: usize = 26;
const HOUR_MS: i64 = 3_600_000;
/// The span of one batch at most.
pub const MAX_SPAN_MS: i64 = 24 * HOUR_MS;
/// How far in the future an event may be.
pub const MAX_AHEAD_MS: i64 = 2 * HOUR_MS;
/// How old an event may be.
pub const MAX_AGE_MS: i64 = 14 * 24 * HOUR_MS;

/// A write request (the members of the three operations).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct WriteInput {
    log_group_name: Option<String>,
    log_stream_name: Option<String>,
    log_events: Option<Vec<InputEvent>>,
}

/// One event of a PutLogEvents batch.
#[derive(Deserialize, Default)]
#[serde(default)]
struct InputEvent {
    timestamp: Option<i64>,
    message: Option<String>,
}

fn logs_error(code: &str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code, message).lowercase_message()
}

fn invalid(message: impl Into<String>) -> ApiError {
    logs_error("InvalidParameterException", message)
}

fn not_found(what: WriteError) -> ApiError {
    match what {
        WriteError::NoGroup => logs_error("ResourceNotFoundException", "The specified log group does not exist."),
        WriteError::NoStream => logs_error("ResourceNotFoundException", "The specified log stream does not exist."),
        WriteError::Exists => logs_error(
            "ResourceAlreadyExistsException",
            "The specified log stream already exists",
        ),
    }
}

/// A required name member checked against the API model's length and pattern.
fn name<'a>(
    value: &'a Option<String>,
    member: &str,
    allowed: impl Fn(char) -> bool,
    pattern: &str,
) -> Result<&'a str, ApiError> {
    let v = value
        .as_deref()
        .ok_or_else(|| invalid(format!("1 validation error detected: Value null at '{member}' failed to satisfy constraint: Member must not be null")))?;
    if v.is_empty() || v.chars().count() > 512 {
        return Err(invalid(format!(
            "1 validation error detected: Value '{v}' at '{member}' failed to satisfy constraint: Member must have length between 1 and 512"
        )));
    }
    if !v.chars().all(allowed) {
        return Err(invalid(format!(
            "1 validation error detected: Value '{v}' at '{member}' failed to satisfy constraint: Member must satisfy regular expression pattern: {pattern}"
        )));
    }
    Ok(v)
}

fn group_name(input: &WriteInput) -> Result<&str, ApiError> {
    name(
        &input.log_group_name,
        "logGroupName",
        |c| c.is_ascii_alphanumeric() || "._-/#".contains(c),
        r"[\.\-_/#A-Za-z0-9]+",
    )
}

fn stream_name(input: &WriteInput) -> Result<&str, ApiError> {
    name(
        &input.log_stream_name,
        "logStreamName",
        |c| c != ':' && c != '*',
        "[^:*]*",
    )
}

/// CreateLogGroup.
pub fn create_group(store: &LogStore, input: &WriteInput, now_ms: i64) -> Result<Value, ApiError> {
    let group = group_name(input)?;
    if !store.create_group(group, now_ms) {
        return Err(logs_error(
            "ResourceAlreadyExistsException",
            "The specified log group already exists",
        ));
    }
    Ok(json!({}))
}

/// CreateLogStream.
pub fn create_stream(store: &LogStore, input: &WriteInput, now_ms: i64) -> Result<Value, ApiError> {
    let (group, stream) = (group_name(input)?, stream_name(input)?);
    store.create_stream(group, stream, now_ms).map_err(not_found)?;
    Ok(json!({}))
}

/// A batch's events, checked as a whole: count, size, messages, order and span.
fn checked_batch(input: &WriteInput) -> Result<Vec<(i64, String)>, ApiError> {
    let events = input.log_events.as_deref().unwrap_or_default();
    if events.is_empty() || events.len() > MAX_BATCH_EVENTS {
        return Err(invalid(format!(
            "1 validation error detected: Value at 'logEvents' failed to satisfy constraint: Member must have length between 1 and {MAX_BATCH_EVENTS}"
        )));
    }
    let mut batch = Vec::with_capacity(events.len());
    let mut bytes = 0;
    for (i, e) in events.iter().enumerate() {
        let (Some(ts), Some(msg)) = (e.timestamp, e.message.as_deref()) else {
            return Err(invalid(format!(
                "1 validation error detected: Value null at 'logEvents.{}.member.timestamp' or 'message' failed to satisfy constraint: Member must not be null",
                i + 1
            )));
        };
        if msg.is_empty() {
            return Err(invalid(format!(
                "1 validation error detected: Value '' at 'logEvents.{}.member.message' failed to satisfy constraint: Member must have length greater than or equal to 1",
                i + 1
            )));
        }
        bytes += msg.len() + EVENT_OVERHEAD;
        batch.push((ts, msg.to_string()));
    }
    if bytes > MAX_BATCH_BYTES {
        return Err(invalid(format!(
            "Upload too large: {bytes} bytes exceeds limit of {MAX_BATCH_BYTES}"
        )));
    }
    if batch.windows(2).any(|w| w[1].0 < w[0].0) {
        return Err(invalid(
            "Log events in a single PutLogEvents request must be in chronological order.",
        ));
    }
    if let (Some(first), Some(last)) = (batch.first(), batch.last())
        && last.0 - first.0 > MAX_SPAN_MS
    {
        return Err(invalid(
            "The batch of log events in a single PutLogEvents request cannot span more than 24 hours.",
        ));
    }
    Ok(batch)
}

/// PutLogEvents at `now_ms`.
pub fn put_events(store: &LogStore, input: &WriteInput, now_ms: i64) -> Result<Value, ApiError> {
    let (group, stream) = (group_name(input)?, stream_name(input)?);
    let batch = checked_batch(input)?;
    // The batch is in order: the too old ones lead, the too new ones trail.
    let too_old = batch.partition_point(|(ts, _)| *ts < now_ms - MAX_AGE_MS);
    let too_new = batch.partition_point(|(ts, _)| *ts <= now_ms + MAX_AHEAD_MS);
    let kept = &batch[too_old..too_new.max(too_old)];
    store.put(group, stream, kept, now_ms).map_err(not_found)?;
    let mut out = json!({ "nextSequenceToken": format!("{:056}", now_ms) });
    let mut rejected = serde_json::Map::new();
    if too_old > 0 {
        rejected.insert("tooOldLogEventEndIndex".into(), json!(too_old));
    }
    if too_new < batch.len() {
        rejected.insert("tooNewLogEventStartIndex".into(), json!(too_new));
    }
    if !rejected.is_empty() {
        out["rejectedLogEventsInfo"] = Value::Object(rejected);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(v: Value) -> WriteInput {
        serde_json::from_value(v).unwrap()
    }

    fn events(ts: &[i64]) -> Value {
        ts.iter().map(|t| json!({"timestamp": t, "message": "m"})).collect()
    }

    #[test]
    fn batches_are_checked_as_aws_does() {
        let store = LogStore::default();
        let now = 100 * 24 * HOUR_MS;
        let put = |ts: &[i64]| {
            let req = input(json!({"logGroupName": "/g", "logStreamName": "s", "logEvents": events(ts)}));
            put_events(&store, &req, now)
        };
        assert_eq!(put(&[now]).unwrap_err().code, "ResourceNotFoundException");
        create_group(&store, &input(json!({"logGroupName": "/g"})), now).unwrap();
        let again = create_group(&store, &input(json!({"logGroupName": "/g"})), now);
        assert_eq!(again.unwrap_err().code, "ResourceAlreadyExistsException");
        assert_eq!(
            put(&[now]).unwrap_err().message,
            "The specified log stream does not exist."
        );
        create_stream(&store, &input(json!({"logGroupName": "/g", "logStreamName": "s"})), now).unwrap();
        let order = put(&[now, now - 1]).unwrap_err();
        assert!(order.message.contains("chronological order"), "{order:?}");
        let span = put(&[now - MAX_SPAN_MS - 1, now]).unwrap_err();
        assert!(span.message.contains("24 hours"), "{span:?}");
        let old = put(&[now - MAX_AGE_MS - 2, now - MAX_AGE_MS - 1]).unwrap();
        assert_eq!(old["rejectedLogEventsInfo"], json!({"tooOldLogEventEndIndex": 2}));
        let out = put(&[now - 1, now, now + MAX_AHEAD_MS + 1]).unwrap();
        assert_eq!(out["rejectedLogEventsInfo"], json!({"tooNewLogEventStartIndex": 2}));
        assert_eq!(store.data.lock().groups["/g"].streams["s"].events.len(), 2);
        let bad = create_group(&store, &input(json!({"logGroupName": "a b"})), now).unwrap_err();
        assert!(bad.message.contains("regular expression pattern"), "{bad:?}");
    }

    #[test]
    fn a_batch_is_bounded_in_count_and_bytes() {
        let many = input(json!({"logGroupName": "/g", "logStreamName": "s", "logEvents": events(&[1; 10_001])}));
        assert!(checked_batch(&many).is_err());
        let big = "x".repeat(MAX_BATCH_BYTES / 2);
        let two = input(json!({"logGroupName": "/g", "logStreamName": "s",
            "logEvents": [{"timestamp": 1, "message": big}, {"timestamp": 1, "message": big}]}));
        assert!(checked_batch(&two).unwrap_err().message.starts_with("Upload too large"));
        let empty = input(json!({"logGroupName": "/g", "logStreamName": "s", "logEvents": []}));
        assert!(checked_batch(&empty).is_err());
    }
}
