//! Container logs of an endpoint from CloudWatch Logs: the group
//! `/aws/sagemaker/Endpoints/<endpoint>`, one stream per variant and instance
//! (`<variant>/<instance-id>`). Streams through DescribeLogStreams, lines through FilterLogEvents
//! (every page, merged by time, the filter pattern applied by CloudWatch), and follow mode by
//! polling FilterLogEvents from the newest line seen, paging with its tokens and dropping the
//! events already shown (by eventId), as `aws logs tail --follow` does. Same client
//! configuration, hence the same adaptive retries, as every other control-plane call.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

use crate::aws::{AwsError, Fleet};

/// Events fetched at most by one read (the newest are kept when there are more).
pub const MAX_LINES: usize = 10_000;

/// The log group of an endpoint.
pub fn log_group(endpoint: &str) -> String {
    format!("/aws/sagemaker/Endpoints/{endpoint}")
}

/// One log stream: a variant's instance.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StreamInfo {
    /// Stream name (`variant/instance-id`).
    pub name: String,
    /// Variant.
    pub variant: String,
    /// Instance id.
    pub instance: String,
    /// Newest event, epoch milliseconds.
    pub last_event_ms: Option<i64>,
}

/// One log line.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LogLine {
    /// Event time, epoch milliseconds.
    pub timestamp_ms: i64,
    /// Stream (`variant/instance-id`).
    pub stream: String,
    /// The line.
    pub message: String,
    /// CloudWatch's event id.
    pub event_id: String,
}

/// What to read.
#[derive(Debug, Clone, Default)]
pub struct LogQuery {
    /// Endpoint.
    pub endpoint: String,
    /// Only this variant's streams.
    pub variant: Option<String>,
    /// From (epoch milliseconds, inclusive).
    pub start_ms: Option<i64>,
    /// CloudWatch filter pattern.
    pub filter: Option<String>,
}

/// Lines read, with the calls it took.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LogRead {
    /// Lines, oldest first.
    pub lines: Vec<LogLine>,
    /// FilterLogEvents pages read (empty ones included).
    pub pages: usize,
    /// Whether older lines were dropped past [`MAX_LINES`].
    pub truncated: bool,
}

fn split_stream(name: &str) -> (String, String) {
    match name.split_once('/') {
        Some((v, i)) => (v.to_string(), i.to_string()),
        None => (name.to_string(), String::new()),
    }
}

impl Fleet {
    /// The endpoint's log streams (of one variant when given), by name.
    pub async fn log_streams(&self, endpoint: &str, variant: Option<&str>) -> Result<Vec<StreamInfo>, AwsError> {
        let mut out = Vec::new();
        let mut token = None;
        loop {
            let resp = self
                .logs
                .describe_log_streams()
                .log_group_name(log_group(endpoint))
                .set_log_stream_name_prefix(variant.map(|v| format!("{v}/")))
                .set_next_token(token)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            for s in resp.log_streams() {
                let name = s.log_stream_name().unwrap_or_default().to_string();
                let (variant, instance) = split_stream(&name);
                out.push(StreamInfo {
                    name,
                    variant,
                    instance,
                    last_event_ms: s.last_event_timestamp(),
                });
            }
            token = resp.next_token().map(str::to_string);
            if token.is_none() {
                return Ok(out);
            }
        }
    }

    /// Every line matching the query, merged by time across streams (all pages; empty pages are
    /// followed while CloudWatch returns a token).
    pub async fn log_lines(&self, q: &LogQuery, calls: &AtomicUsize) -> Result<LogRead, AwsError> {
        let mut read = LogRead::default();
        let mut token = None;
        loop {
            calls.fetch_add(1, Ordering::Relaxed);
            let resp = self
                .logs
                .filter_log_events()
                .log_group_name(log_group(&q.endpoint))
                .set_log_stream_name_prefix(q.variant.as_ref().map(|v| format!("{v}/")))
                .set_start_time(q.start_ms)
                .set_filter_pattern(q.filter.clone())
                .set_next_token(token)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            read.pages += 1;
            read.lines.extend(resp.events().iter().map(|e| LogLine {
                timestamp_ms: e.timestamp().unwrap_or_default(),
                stream: e.log_stream_name().unwrap_or_default().to_string(),
                message: e.message().unwrap_or_default().trim_end().to_string(),
                event_id: e.event_id().unwrap_or_default().to_string(),
            }));
            if read.lines.len() > MAX_LINES {
                read.truncated = true;
                read.lines.drain(..read.lines.len() - MAX_LINES);
            }
            token = resp.next_token().map(str::to_string);
            if token.is_none() {
                break;
            }
        }
        read.lines.sort_by_key(|l| l.timestamp_ms);
        Ok(read)
    }
}

/// Follow mode: each [`LogFollower::poll`] returns the lines that appeared since the last one.
#[derive(Debug)]
pub struct LogFollower {
    query: LogQuery,
    seen_at_newest: HashSet<String>,
    /// FilterLogEvents calls made so far.
    pub calls: AtomicUsize,
}

impl LogFollower {
    /// Follows from `query.start_ms` (or everything CloudWatch has).
    pub fn new(query: LogQuery) -> Self {
        LogFollower {
            query,
            seen_at_newest: HashSet::new(),
            calls: AtomicUsize::new(0),
        }
    }

    /// New lines since the previous poll, oldest first.
    pub async fn poll(&mut self, fleet: &Fleet) -> Result<Vec<LogLine>, AwsError> {
        let read = fleet.log_lines(&self.query, &self.calls).await?;
        let fresh: Vec<LogLine> = read
            .lines
            .into_iter()
            .filter(|l| !self.seen_at_newest.contains(&l.event_id))
            .collect();
        if let Some(newest) = fresh.last().map(|l| l.timestamp_ms) {
            // Next poll starts at the newest millisecond seen; its events are remembered so
            // they are not shown twice.
            if self.query.start_ms != Some(newest) {
                self.seen_at_newest.clear();
            }
            self.query.start_ms = Some(newest);
            self.seen_at_newest.extend(
                fresh
                    .iter()
                    .filter(|l| l.timestamp_ms == newest)
                    .map(|l| l.event_id.clone()),
            );
        }
        Ok(fresh)
    }
}

/// Whether a line reports an error or belongs to a stack trace (human output highlights it).
pub fn is_error_line(message: &str) -> bool {
    const MARKS: [&str; 8] = [
        "ERROR",
        "Traceback (most recent call last)",
        "Exception",
        "Error:",
        "\"level\":\"ERROR\"",
        "  File \"",
        "Worker died",
        "no worker to serve",
    ];
    MARKS.iter().any(|m| message.contains(m))
}

/// Marks error lines and every line of a Python stack trace, per stream: from
/// `Traceback (most recent call last):` through the indented frames to the exception line.
#[derive(Debug, Default)]
pub struct ErrorMarker {
    in_trace: HashSet<String>,
}

impl ErrorMarker {
    /// Whether this line (seen in time order) is an error or part of a stack trace.
    pub fn mark(&mut self, line: &LogLine) -> bool {
        if line.message.contains("Traceback (most recent call last)") {
            self.in_trace.insert(line.stream.clone());
            return true;
        }
        if self.in_trace.contains(&line.stream) {
            if !line.message.starts_with(char::is_whitespace) {
                self.in_trace.remove(&line.stream);
            }
            return true;
        }
        is_error_line(&line.message)
    }
}
