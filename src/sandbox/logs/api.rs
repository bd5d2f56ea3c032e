//! CloudWatch Logs on its real wire protocol (awsJson1_1, `x-amz-target: Logs_20140328.<Op>`,
//! times in epoch milliseconds): DescribeLogGroups, DescribeLogStreams, FilterLogEvents and
//! GetLogEvents over [`crate::sandbox::logs::store::LogStore`], and the writes of `writes.rs`
//! (CreateLogGroup and CreateLogStream are recorded in CloudTrail; PutLogEvents, like the reads
//! of events, is a data event).
//!
//! Tokens: GetLogEvents answers `f/<seq>/s` and `b/<seq>/s` (56 digits, as AWS's look);
//! FilterLogEvents scans at most [`SCAN_BUDGET`] events per call, so a page can be empty while
//! `nextToken` says more remain, as AWS's can.

use axum::http::StatusCode;
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::cloudtrail::event::Source;
use crate::sandbox::cloudtrail::identity::Caller;
use crate::sandbox::http::wire::{ApiError, Protocol, decode_json, json_ok, parse_input};
use crate::sandbox::logs::filter::FilterPattern;
use crate::sandbox::logs::store::{LogData, LogEvent, LogGroup};
use crate::sandbox::logs::writes;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

/// Events FilterLogEvents examines per call before answering with what it found so far.
pub const SCAN_BUDGET: usize = 5_000;
const MAX_EVENTS_PER_PAGE: usize = 10_000;

fn logs_error(code: &str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code, message).lowercase_message()
}

fn invalid(message: impl Into<String>) -> ApiError {
    logs_error("InvalidParameterException", message)
}

/// Serves one CloudWatch Logs operation for `caller`.
pub fn handle(sb: &Sandbox, op: &str, body: &[u8], caller: &Caller) -> Response {
    let result = decode_json(body).and_then(|doc| {
        if matches!(op, "CreateLogGroup" | "CreateLogStream" | "PutLogEvents") {
            return write(sb, op, doc, caller);
        }
        let input: LogsInput = parse_input(doc)?;
        let data = sb.logs.data.lock();
        match op {
            "DescribeLogGroups" => describe_groups(sb, &data, &input),
            "DescribeLogStreams" => describe_streams(sb, &data, &input),
            "FilterLogEvents" => filter_events(&data, &input),
            "GetLogEvents" => get_events(&data, &input),
            other => Err(logs_error(
                "UnknownOperationException",
                format!("The sandbox does not implement CloudWatch Logs operation {other}."),
            )),
        }
    });
    match result {
        Ok(v) => json_ok(Protocol::AwsJson11, &v),
        Err(e) => e.into_response(Protocol::AwsJson11),
    }
}

/// Serves a write; the management ones (CreateLogGroup, CreateLogStream) are recorded in
/// CloudTrail.
fn write(sb: &Sandbox, op: &str, doc: Value, caller: &Caller) -> Result<Value, ApiError> {
    let now_ms = (now_epoch() * 1000.0).round() as i64;
    let input: writes::WriteInput = parse_input(doc.clone())?;
    let answer = match op {
        "CreateLogGroup" => writes::create_group(&sb.logs, &input, now_ms),
        "CreateLogStream" => writes::create_stream(&sb.logs, &input, now_ms),
        _ => return writes::put_events(&sb.logs, &input, now_ms),
    };
    crate::sandbox::cloudtrail::record_answer(sb, (Source::Logs, op), caller, &doc, &answer);
    answer
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct LogsInput {
    log_group_name: Option<String>,
    log_group_identifier: Option<String>,
    log_group_name_prefix: Option<String>,
    log_stream_name: Option<String>,
    log_stream_names: Option<Vec<String>>,
    log_stream_name_prefix: Option<String>,
    order_by: Option<String>,
    descending: Option<bool>,
    limit: Option<i64>,
    next_token: Option<String>,
    start_time: Option<i64>,
    end_time: Option<i64>,
    filter_pattern: Option<String>,
    start_from_head: Option<bool>,
}

fn group_arn(sb: &Sandbox, name: &str) -> String {
    format!(
        "arn:aws:logs:{}:{}:log-group:{name}",
        sb.config.region, sb.config.account
    )
}

/// The group named by `logGroupName` or `logGroupIdentifier` (name or ARN), exactly one.
fn the_group<'a>(data: &'a LogData, input: &LogsInput) -> Result<(&'a str, &'a LogGroup), ApiError> {
    let name = match (&input.log_group_name, &input.log_group_identifier) {
        (Some(_), Some(_)) => {
            return Err(invalid(
                "LogGroup name and LogGroup ARN are mutually exclusive parameters.",
            ));
        }
        (Some(n), None) => n.clone(),
        (None, Some(id)) => match id.split_once(":log-group:") {
            Some((_, rest)) => rest.trim_end_matches(":*").to_string(),
            None => id.clone(),
        },
        (None, None) => return Err(invalid("Either logGroupName or logGroupIdentifier is required.")),
    };
    data.groups
        .get_key_value(&name)
        .map(|(k, g)| (k.as_str(), g))
        .ok_or_else(|| logs_error("ResourceNotFoundException", "The specified log group does not exist."))
}

fn limit(input: &LogsInput, max: usize, default: usize) -> Result<usize, ApiError> {
    match input.limit {
        None => Ok(default),
        Some(n) if n >= 1 && n as usize <= max => Ok(n as usize),
        Some(n) => Err(invalid(format!(
            "1 validation error detected: Value '{n}' at 'limit' failed to satisfy constraint: Member must have value between 1 and {max}"
        ))),
    }
}

fn offset_token(input: &LogsInput) -> Result<usize, ApiError> {
    let Some(t) = &input.next_token else { return Ok(0) };
    B64.decode(t)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|s| s.strip_prefix("offset:").and_then(|n| n.parse().ok()))
        .ok_or_else(|| invalid("The specified nextToken is invalid."))
}

fn page<T>(items: Vec<T>, start: usize, n: usize) -> (Vec<T>, Option<String>) {
    let more = items.len() > start + n;
    let page = items.into_iter().skip(start).take(n).collect();
    (page, more.then(|| B64.encode(format!("offset:{}", start + n))))
}

fn describe_groups(sb: &Sandbox, data: &LogData, input: &LogsInput) -> Result<Value, ApiError> {
    let n = limit(input, 50, 50)?;
    let prefix = input.log_group_name_prefix.clone().unwrap_or_default();
    let items: Vec<Value> = data
        .groups
        .iter()
        .filter(|(name, _)| name.starts_with(&prefix))
        .map(|(name, g)| {
            let bytes: u64 = g.streams.values().map(|s| s.stored_bytes).sum();
            json!({
                "logGroupName": name, "creationTime": g.creation_ms, "metricFilterCount": 0,
                "arn": format!("{}:*", group_arn(sb, name)), "logGroupArn": group_arn(sb, name),
                "storedBytes": bytes, "logGroupClass": "STANDARD",
            })
        })
        .collect();
    let (items, token) = page(items, offset_token(input)?, n);
    Ok(with_token(json!({ "logGroups": items }), "nextToken", token))
}

fn with_token(mut v: Value, key: &str, token: Option<String>) -> Value {
    if let Some(t) = token {
        v[key] = json!(t);
    }
    v
}

fn describe_streams(sb: &Sandbox, data: &LogData, input: &LogsInput) -> Result<Value, ApiError> {
    let (group, g) = the_group(data, input)?;
    let n = limit(input, 50, 50)?;
    let by_time = match input.order_by.as_deref() {
        None | Some("LogStreamName") => false,
        Some("LastEventTime") if input.log_stream_name_prefix.is_some() => {
            return Err(invalid("Cannot order by LastEventTime with a logStreamNamePrefix."));
        }
        Some("LastEventTime") => true,
        Some(other) => {
            return Err(invalid(format!(
                "Invalid orderBy {other}: LogStreamName or LastEventTime."
            )));
        }
    };
    let prefix = input.log_stream_name_prefix.clone().unwrap_or_default();
    let mut streams: Vec<(&String, &crate::sandbox::logs::store::LogStream)> =
        g.streams.iter().filter(|(name, _)| name.starts_with(&prefix)).collect();
    if by_time {
        streams.sort_by_key(|(name, s)| (s.events.back().map(|e| e.timestamp), (*name).clone()));
    }
    if input.descending.unwrap_or(false) {
        streams.reverse();
    }
    let items: Vec<Value> = streams
        .into_iter()
        .map(|(name, s)| {
            let mut v = json!({
                "logStreamName": name, "creationTime": s.creation_ms, "storedBytes": 0,
                "arn": format!("{}:log-stream:{name}", group_arn(sb, group)),
            });
            if let (Some(first), Some(last)) = (s.events.front(), s.events.back()) {
                v["firstEventTimestamp"] = json!(first.timestamp);
                v["lastEventTimestamp"] = json!(last.timestamp);
                v["lastIngestionTime"] = json!(last.ingestion);
            }
            v
        })
        .collect();
    let (items, token) = page(items, offset_token(input)?, n);
    Ok(with_token(json!({ "logStreams": items }), "nextToken", token))
}

fn in_range(input: &LogsInput, e: &LogEvent) -> bool {
    input.start_time.is_none_or(|s| e.timestamp >= s) && input.end_time.is_none_or(|t| e.timestamp < t)
}

fn event_json(stream: &str, e: &LogEvent) -> Value {
    json!({
        "logStreamName": stream, "timestamp": e.timestamp, "message": e.message,
        "ingestionTime": e.ingestion, "eventId": format!("{:056}", e.seq),
    })
}

fn filter_events(data: &LogData, input: &LogsInput) -> Result<Value, ApiError> {
    let (_, g) = the_group(data, input)?;
    if input.log_stream_names.is_some() && input.log_stream_name_prefix.is_some() {
        return Err(invalid(
            "logStreamNames and logStreamNamePrefix are mutually exclusive.",
        ));
    }
    let n = limit(input, MAX_EVENTS_PER_PAGE, MAX_EVENTS_PER_PAGE)?;
    let pattern = FilterPattern::parse(input.filter_pattern.as_deref().unwrap_or(""))
        .map_err(|why| invalid(format!("Invalid filter pattern: {why}")))?;
    let after: (i64, u64) = match &input.next_token {
        None => (i64::MIN, 0),
        Some(t) => B64
            .decode(t)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|s| {
                let (ts, seq) = s.strip_prefix("after:")?.split_once('/')?;
                Some((ts.parse().ok()?, seq.parse().ok()?))
            })
            .ok_or_else(|| invalid("The specified nextToken is invalid."))?,
    };
    let mut candidates: Vec<(&str, &LogEvent)> = g
        .streams
        .iter()
        .filter(
            |(name, _)| match (&input.log_stream_names, &input.log_stream_name_prefix) {
                (Some(names), _) => names.contains(name),
                (_, Some(p)) => name.starts_with(p.as_str()),
                _ => true,
            },
        )
        .flat_map(|(name, s)| s.events.iter().map(move |e| (name.as_str(), e)))
        .filter(|(_, e)| in_range(input, e) && (e.timestamp, e.seq) > after)
        .collect();
    candidates.sort_by_key(|(_, e)| (e.timestamp, e.seq));
    let mut events = Vec::new();
    let mut last = None;
    for (scanned, (stream, e)) in candidates.iter().enumerate() {
        if events.len() == n || scanned == SCAN_BUDGET {
            break;
        }
        last = Some((e.timestamp, e.seq, scanned));
        if pattern.matches(&e.message) {
            events.push(event_json(stream, e));
        }
    }
    let token = last
        .filter(|(_, _, i)| i + 1 < candidates.len())
        .map(|(ts, seq, _)| B64.encode(format!("after:{ts}/{seq}")));
    Ok(with_token(
        json!({ "events": events, "searchedLogStreams": [] }),
        "nextToken",
        token,
    ))
}

fn parse_seq_token(t: &str) -> Option<(bool, u64)> {
    let (dir, rest) = t.split_once('/')?;
    let seq = rest.trim_end_matches("/s").parse().ok()?;
    match dir {
        "f" => Some((true, seq)),
        "b" => Some((false, seq)),
        _ => None,
    }
}

fn get_events(data: &LogData, input: &LogsInput) -> Result<Value, ApiError> {
    let (_, g) = the_group(data, input)?;
    let name = input
        .log_stream_name
        .as_deref()
        .ok_or_else(|| invalid("logStreamName is required."))?;
    let s = g
        .streams
        .get(name)
        .ok_or_else(|| logs_error("ResourceNotFoundException", "The specified log stream does not exist."))?;
    let n = limit(input, MAX_EVENTS_PER_PAGE, MAX_EVENTS_PER_PAGE)?;
    let (forward, at) = match &input.next_token {
        Some(t) => parse_seq_token(t).ok_or_else(|| invalid("The specified nextToken is invalid."))?,
        None if input.start_from_head.unwrap_or(false) => (true, 0),
        None => (false, u64::MAX),
    };
    let in_window = s.events.iter().filter(|e| in_range(input, e));
    let chosen: Vec<&LogEvent> = if forward {
        in_window.filter(|e| e.seq >= at).take(n).collect()
    } else {
        let before: Vec<&LogEvent> = in_window.filter(|e| e.seq < at).collect();
        before[before.len().saturating_sub(n)..].to_vec()
    };
    let fwd = chosen.last().map_or(
        if forward {
            at
        } else {
            at.min(s.events.back().map_or(0, |e| e.seq + 1))
        },
        |e| e.seq + 1,
    );
    let back = chosen.first().map_or(at, |e| e.seq);
    let events: Vec<Value> = chosen
        .iter()
        .map(|e| json!({ "timestamp": e.timestamp, "message": e.message, "ingestionTime": e.ingestion }))
        .collect();
    Ok(json!({
        "events": events,
        "nextForwardToken": format!("f/{fwd:056}/s"),
        "nextBackwardToken": format!("b/{back:056}/s"),
    }))
}
