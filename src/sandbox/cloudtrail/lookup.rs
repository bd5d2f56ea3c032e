//! LookupEvents over the region's history: one lookup attribute at most (as AWS allows),
//! StartTime/EndTime (inclusive; the last 90 days by default), MaxResults 1–50 (default 50),
//! newest first, paged by an opaque `NextToken` bound to the query that made it.
//!
//! AWS documents the error codes, not their texts: the messages here are the sandbox's.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::cloudtrail::event::TrailEvent;
use crate::sandbox::cloudtrail::store::TrailStore;
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::hash::fxhash;

/// How far back LookupEvents looks: 90 days.
pub const LOOKBACK_SECS: f64 = 90.0 * 86_400.0;
/// The largest page.
pub const MAX_RESULTS: i64 = 50;
/// The attribute keys LookupEvents takes.
pub const ATTRIBUTE_KEYS: [&str; 8] = [
    "EventId",
    "EventName",
    "ReadOnly",
    "Username",
    "ResourceType",
    "ResourceName",
    "EventSource",
    "AccessKeyId",
];

/// A LookupEvents request.
#[derive(Debug, Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
pub struct LookupInput {
    lookup_attributes: Option<Vec<Attribute>>,
    start_time: Option<f64>,
    end_time: Option<f64>,
    event_category: Option<String>,
    max_results: Option<i64>,
    next_token: Option<String>,
}

/// One lookup attribute.
#[derive(Debug, Deserialize, Default, Clone)]
#[serde(rename_all = "PascalCase", default)]
struct Attribute {
    attribute_key: String,
    attribute_value: String,
}

fn error(code: &str, message: impl Into<String>) -> ApiError {
    ApiError::new(axum::http::StatusCode::BAD_REQUEST, code, message)
}

/// A checked query: the one attribute, the window, the page size and where it resumes.
struct Query {
    attribute: Option<Attribute>,
    start: f64,
    end: f64,
    insights: bool,
    page: usize,
    below: Option<u64>,
    fingerprint: u64,
}

impl LookupInput {
    /// Checks the request as AWS does, at `now`.
    fn check(&self, now: f64) -> Result<Query, ApiError> {
        let attrs = self.lookup_attributes.clone().unwrap_or_default();
        if attrs.len() > 1 {
            return Err(error(
                "InvalidLookupAttributesException",
                "You can specify only one lookup attribute.",
            ));
        }
        let attribute = attrs.into_iter().next();
        if let Some(a) = &attribute {
            if !ATTRIBUTE_KEYS.contains(&a.attribute_key.as_str()) {
                return Err(error(
                    "InvalidLookupAttributesException",
                    format!(
                        "The attribute key {:?} is not valid: use one of {}.",
                        a.attribute_key,
                        ATTRIBUTE_KEYS.join(", ")
                    ),
                ));
            }
            if a.attribute_value.is_empty() || a.attribute_value.len() > 2000 {
                return Err(error(
                    "InvalidLookupAttributesException",
                    "The attribute value must be 1 to 2000 characters long.",
                ));
            }
        }
        let insights = match self.event_category.as_deref() {
            None => false,
            Some("insight") => true,
            Some(other) => {
                return Err(error(
                    "InvalidEventCategoryException",
                    format!("The event category {other:?} is not valid: the only category is insight."),
                ));
            }
        };
        let end = self.end_time.unwrap_or(now);
        let start = self.start_time.unwrap_or(now - LOOKBACK_SECS);
        if start > end {
            return Err(error(
                "InvalidTimeRangeException",
                "The start time must be before the end time.",
            ));
        }
        let page = match self.max_results {
            None => MAX_RESULTS,
            Some(n) if (1..=MAX_RESULTS).contains(&n) => n,
            Some(_) => {
                return Err(error(
                    "InvalidMaxResultsException",
                    "MaxResults must be between 1 and 50.",
                ));
            }
        } as usize;
        let fingerprint = fxhash(&format!(
            "{:?}/{:?}/{:?}/{:?}",
            attribute.as_ref().map(|a| (&a.attribute_key, &a.attribute_value)),
            self.start_time,
            self.end_time,
            self.event_category
        ));
        let below = match &self.next_token {
            None => None,
            Some(t) => Some(decode_token(t, fingerprint).ok_or_else(|| {
                error(
                    "InvalidNextTokenException",
                    "The token is not valid, or was made for a request with other parameters.",
                )
            })?),
        };
        Ok(Query {
            attribute,
            start,
            end,
            insights,
            page,
            below,
            fingerprint,
        })
    }
}

fn encode_token(seq: u64, fingerprint: u64) -> String {
    B64.encode(format!("trail/{seq}/{fingerprint:016x}"))
}

fn decode_token(token: &str, fingerprint: u64) -> Option<u64> {
    let text = String::from_utf8(B64.decode(token).ok()?).ok()?;
    let mut parts = text.strip_prefix("trail/")?.split('/');
    let seq = parts.next()?.parse().ok()?;
    (parts.next()? == format!("{fingerprint:016x}")).then_some(seq)
}

/// Whether `e` matches the attribute (none: every event).
fn matches(attribute: Option<&Attribute>, e: &TrailEvent) -> bool {
    let Some(a) = attribute else { return true };
    let v = a.attribute_value.as_str();
    match a.attribute_key.as_str() {
        "EventId" => e.id == v,
        "EventName" => e.name == v,
        "ReadOnly" => (if e.read_only { "true" } else { "false" }) == v,
        "Username" => e.username.as_deref() == Some(v),
        "ResourceType" => e.resources.iter().any(|r| r.kind == v),
        "ResourceName" => e.resources.iter().any(|r| r.name == v || r.arn == v),
        "EventSource" => e.source == v,
        "AccessKeyId" => e.access_key.as_deref() == Some(v),
        _ => false,
    }
}

/// LookupEvents' `Event` for one event.
fn event_json(e: &TrailEvent) -> Value {
    let resources: Vec<Value> = e
        .resources
        .iter()
        .map(|r| json!({"ResourceType": r.kind, "ResourceName": r.name}))
        .collect();
    let mut v = json!({
        "EventId": e.id, "EventName": e.name, "ReadOnly": e.read_only.to_string(),
        "EventTime": e.time, "EventSource": e.source, "Resources": resources,
        "CloudTrailEvent": e.record,
    });
    if let Some(key) = &e.access_key {
        v["AccessKeyId"] = json!(key);
    }
    if let Some(user) = &e.username {
        v["Username"] = json!(user);
    }
    v
}

/// Answers one checked LookupEvents request over `store` at `now`.
pub fn lookup(store: &TrailStore, input: &LookupInput, now: f64) -> Result<Value, ApiError> {
    let q = input.check(now)?;
    if q.insights {
        // The sandbox records no Insights events.
        return Ok(json!({"Events": []}));
    }
    let mut page: Vec<Value> = Vec::new();
    let mut last = None;
    let mut more = false;
    store.scan(
        now,
        q.below,
        |e| e.time >= q.start && e.time <= q.end && matches(q.attribute.as_ref(), e),
        |e| {
            if page.len() == q.page {
                more = true;
                return false;
            }
            page.push(event_json(e));
            last = Some(e.seq);
            true
        },
    );
    let mut out = json!({ "Events": page });
    if let (true, Some(seq)) = (more, last) {
        out["NextToken"] = json!(encode_token(seq, q.fingerprint));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(v: Value) -> LookupInput {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn requests_are_checked_as_aws_does() {
        let code = |v: Value| input(v).check(1000.0).err().map(|e| e.code);
        let two = json!({"LookupAttributes": [
            {"AttributeKey": "EventName", "AttributeValue": "a"},
            {"AttributeKey": "Username", "AttributeValue": "b"}]});
        assert_eq!(code(two).as_deref(), Some("InvalidLookupAttributesException"));
        let bad_key = json!({"LookupAttributes": [{"AttributeKey": "Nope", "AttributeValue": "a"}]});
        assert_eq!(code(bad_key).as_deref(), Some("InvalidLookupAttributesException"));
        assert_eq!(
            code(json!({"MaxResults": 51})).as_deref(),
            Some("InvalidMaxResultsException")
        );
        assert_eq!(
            code(json!({"MaxResults": 0})).as_deref(),
            Some("InvalidMaxResultsException")
        );
        assert_eq!(
            code(json!({"StartTime": 10, "EndTime": 5})).as_deref(),
            Some("InvalidTimeRangeException")
        );
        assert_eq!(
            code(json!({"NextToken": "x"})).as_deref(),
            Some("InvalidNextTokenException")
        );
        assert_eq!(
            code(json!({"EventCategory": "data"})).as_deref(),
            Some("InvalidEventCategoryException")
        );
        assert_eq!(code(json!({"MaxResults": 50})), None);
    }

    #[test]
    fn tokens_are_bound_to_their_query() {
        let token = encode_token(41, 7);
        assert_eq!(decode_token(&token, 7), Some(41));
        assert_eq!(decode_token(&token, 8), None);
    }
}
