//! What the control-plane operations share: required names and their pattern, and listing
//! (filters, sorting, paging with an opaque NextToken).

use base64::Engine;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;

/// A required string member.
pub fn name_of(doc: &Value, member: &str) -> Result<String, ApiError> {
    doc.get(member)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| {
            ApiError::validation(format!(
                "1 validation error detected: Value null at '{}' failed to satisfy constraint: Member must not be null",
                lower_first(member)
            ))
        })
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// Checks a resource name against SageMaker's pattern `^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$`.
pub fn check_name(member: &str, name: &str) -> Result<(), ApiError> {
    let ok = !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if ok {
        Ok(())
    } else {
        Err(ApiError::validation(format!(
            "1 validation error detected: Value '{name}' at '{}' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){{0,62}}",
            lower_first(member)
        )))
    }
}

/// Common list parameters (MaxResults, NextToken, sorting, name and time filters).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListParams {
    /// Page size (1-100, default 10).
    pub max_results: Option<i64>,
    /// Continuation token.
    pub next_token: Option<String>,
    /// Name | CreationTime (| Status for endpoints).
    pub sort_by: Option<String>,
    /// Ascending | Descending.
    pub sort_order: Option<String>,
    /// Substring filter on the name.
    pub name_contains: Option<String>,
    /// Created before.
    pub creation_time_before: Option<f64>,
    /// Created after.
    pub creation_time_after: Option<f64>,
    /// Modified before (endpoints).
    pub last_modified_time_before: Option<f64>,
    /// Modified after (endpoints).
    pub last_modified_time_after: Option<f64>,
    /// Status filter (endpoints).
    pub status_equals: Option<String>,
}

/// What a list request asks of its page: its size, the sort key and the order.
pub struct PageShape {
    /// Items per page (MaxResults, 1-100, default 10).
    pub max: usize,
    /// `Name`, `CreationTime` (the default) or `Status`.
    pub by: String,
    /// Descending (the default) or ascending.
    pub descending: bool,
}

/// The page a list request asks for, its MaxResults, SortBy and SortOrder checked.
pub fn page_shape(params: &ListParams) -> Result<PageShape, ApiError> {
    let max = params.max_results.unwrap_or(10);
    if !(1..=100).contains(&max) {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value '{max}' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and 100"
        )));
    }
    let by = params.sort_by.clone().unwrap_or_else(|| "CreationTime".into());
    if !["Name", "CreationTime", "Status"].contains(&by.as_str()) {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value '{by}' at 'sortBy' failed to satisfy enum value set: [Name, CreationTime, Status]"
        )));
    }
    let descending = match params.sort_order.as_deref() {
        None | Some("Descending") => true,
        Some("Ascending") => false,
        Some(other) => {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{other}' at 'sortOrder' failed to satisfy enum value set: [Ascending, Descending]"
            )));
        }
    };
    Ok(PageShape {
        max: max as usize,
        by,
        descending,
    })
}

/// Sorts, pages and wraps items into `{ <key>: [...], NextToken }`.
pub fn page<T>(
    params: &ListParams,
    mut items: Vec<T>,
    key: &str,
    sort_key: impl Fn(&T, &str) -> (String, f64),
    to_json: impl Fn(&T) -> Value,
) -> Result<Value, ApiError> {
    let PageShape { max, by, descending } = page_shape(params)?;
    items.sort_by(|a, b| {
        let (sa, ta) = sort_key(a, &by);
        let (sb_, tb) = sort_key(b, &by);
        let ord = if by == "CreationTime" {
            ta.total_cmp(&tb).then(sa.cmp(&sb_))
        } else {
            sa.cmp(&sb_).then(ta.total_cmp(&tb))
        };
        if descending { ord.reverse() } else { ord }
    });
    let start = match &params.next_token {
        None => 0,
        Some(t) => decode_token(t).ok_or_else(|| ApiError::validation("Invalid pagination token.".to_string()))?,
    };
    let end = (start + max).min(items.len());
    let slice: Vec<Value> = items.get(start..end).unwrap_or(&[]).iter().map(to_json).collect();
    let mut out = json!({ key: slice });
    if end < items.len() {
        out["NextToken"] = Value::String(encode_token(end));
    }
    Ok(out)
}

fn encode_token(offset: usize) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("sandbox-offset:{offset}"))
}

fn decode_token(t: &str) -> Option<usize> {
    let raw = base64::engine::general_purpose::STANDARD.decode(t).ok()?;
    String::from_utf8(raw)
        .ok()?
        .strip_prefix("sandbox-offset:")?
        .parse()
        .ok()
}

/// A timestamp at the millisecond AWS keeps: a time a client read from an answer (given at the
/// millisecond, [`at_millis`]) and sends back (boto3 to the millisecond, the Rust SDK to the
/// nanosecond) names the same instant.
fn millis(t: f64) -> i64 {
    (t * 1000.0).round() as i64
}

/// A timestamp as an answer gives it: at the millisecond, as AWS does.
pub fn at_millis(t: f64) -> f64 {
    millis(t) as f64 / 1000.0
}

/// Whether an item passes the name and time filters (the time filters strict, at the
/// millisecond: `LastModifiedTimeAfter` an endpoint's own LastModifiedTime leaves it out).
pub fn passes(params: &ListParams, name: &str, created: f64, modified: f64) -> bool {
    let (created, modified) = (millis(created), millis(modified));
    params
        .name_contains
        .as_deref()
        .is_none_or(|s| name.to_ascii_lowercase().contains(&s.to_ascii_lowercase()))
        && params.creation_time_before.is_none_or(|t| created < millis(t))
        && params.creation_time_after.is_none_or(|t| created > millis(t))
        && params.last_modified_time_before.is_none_or(|t| modified < millis(t))
        && params.last_modified_time_after.is_none_or(|t| modified > millis(t))
}
