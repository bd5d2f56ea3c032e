//! Tags on the control plane's resources: AddTags, ListTags and DeleteTags (awsJson1_1 like the
//! rest of SageMaker) on models, endpoint configurations and endpoints, and the `Tags` given to
//! CreateModel, CreateEndpointConfig and CreateEndpoint, kept by resource ARN in the world.
//!
//! The model's constraints (ARN pattern, at most 50 tags a request, key 1-128 and value 0-256
//! characters of its pattern, 1-50 keys to delete, ListTags MaxResults >= 50) are checked in
//! `constraints.rs`. Here, with texts the sandbox chooses (UNVERIFIED):
//! - a key starting with `aws:` (any case): `Tag keys starting with "aws:" are reserved for AWS
//!   use: KEY.`
//! - more than 50 tags on a resource after AddTags: `Adding these tags would give resource "ARN"
//!   N tags; a resource has at most 50.`
//! - an ARN of no model, endpoint configuration or endpoint of this account and region: `Could not
//!   find model "ARN".` (endpoint configuration, endpoint) as the Describe operations say, or
//!   `The sandbox has no SageMaker resource "ARN".` for other resource types.
//!
//! A resource's tags are replaced by those of its Create* (none when none are given), so a name
//! deleted and created again starts with its own tags. A key added again takes the new value and
//! keeps its place; ListTags lists tags in the order they were first added.

use base64::Engine;
use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::resources::Tags;
use crate::sandbox::world::sandbox::Sandbox;

/// The most tags a resource may carry.
pub const MAX_TAGS: usize = 50;

/// Serves AddTags, ListTags and DeleteTags.
pub fn handle(sb: &Sandbox, op: &str, doc: &Value) -> Result<Value, ApiError> {
    let arn = doc.get("ResourceArn").and_then(Value::as_str).unwrap_or_default();
    let arn = resource_of(sb, arn)?;
    match op {
        "AddTags" => add(sb, &arn, doc),
        "ListTags" => list(sb, &arn, doc),
        _ => delete(sb, &arn, doc),
    }
}

/// The `Tags` of a Create* request, checked (empty when none are given); None for other
/// operations.
pub fn given_at_create(op: &str, doc: &Value) -> Result<Option<Tags>, ApiError> {
    if !matches!(
        op,
        "CreateModel" | "CreateEndpointConfig" | "CreateEndpoint" | "CreateInferenceComponent"
    ) {
        return Ok(None);
    }
    let tags = tags_of(doc)?;
    let mut kept = Tags::new();
    merge(&mut kept, tags);
    Ok(Some(kept))
}

/// Keeps the tags given at creation under the ARN the Create* answered with.
pub fn keep_created(sb: &Sandbox, answer: &Value, tags: Tags) {
    let arn = ["ModelArn", "EndpointConfigArn", "EndpointArn", "InferenceComponentArn"]
        .iter()
        .find_map(|k| answer.get(*k).and_then(Value::as_str));
    if let Some(arn) = arn {
        sb.world.write().tags.insert(arn.to_string(), tags);
    }
}

/// The canonical ARN of an existing model, endpoint configuration or endpoint.
fn resource_of(sb: &Sandbox, arn: &str) -> Result<String, ApiError> {
    let wanted = arn.to_ascii_lowercase();
    let world = sb.world.read();
    let kind = wanted
        .split(':')
        .nth(5)
        .and_then(|r| r.split_once('/'))
        .map_or("", |(kind, _)| kind);
    let (found, what) = match kind {
        "model" => (world.models.values().any(|m| m.arn == wanted), "model"),
        "endpoint-config" => (
            world.configs.values().any(|c| c.arn == wanted),
            "endpoint configuration",
        ),
        "endpoint" => (world.endpoints.values().any(|e| e.arn == wanted), "endpoint"),
        "inference-component" => (
            world.components.items.values().any(|c| c.arn == wanted),
            "inference component",
        ),
        _ => {
            return Err(ApiError::validation(format!(
                "The sandbox has no SageMaker resource \"{arn}\"."
            )));
        }
    };
    if found {
        Ok(wanted)
    } else {
        Err(ApiError::validation(format!("Could not find {what} \"{arn}\".")))
    }
}

/// The `Tags` member of a request, with reserved keys refused.
fn tags_of(doc: &Value) -> Result<Tags, ApiError> {
    let items = doc.get("Tags").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut tags = Tags::new();
    for t in items {
        let key = t.get("Key").and_then(Value::as_str).unwrap_or_default();
        let value = t.get("Value").and_then(Value::as_str).unwrap_or_default();
        if key.to_ascii_lowercase().starts_with("aws:") {
            return Err(ApiError::validation(format!(
                "Tag keys starting with \"aws:\" are reserved for AWS use: {key}."
            )));
        }
        tags.push((key.to_string(), value.to_string()));
    }
    Ok(tags)
}

/// Adds `new` to `tags`: a key already there takes the new value in its place.
fn merge(tags: &mut Tags, new: Tags) {
    for (k, v) in new {
        match tags.iter_mut().find(|(key, _)| *key == k) {
            Some(slot) => slot.1 = v,
            None => tags.push((k, v)),
        }
    }
}

fn tags_json(tags: &[(String, String)]) -> Vec<Value> {
    tags.iter().map(|(k, v)| json!({"Key": k, "Value": v})).collect()
}

fn add(sb: &Sandbox, arn: &str, doc: &Value) -> Result<Value, ApiError> {
    let new = tags_of(doc)?;
    let mut world = sb.world.write();
    let mut merged = world.tags.get(arn).cloned().unwrap_or_default();
    merge(&mut merged, new.clone());
    if merged.len() > MAX_TAGS {
        return Err(ApiError::validation(format!(
            "Adding these tags would give resource \"{arn}\" {} tags; a resource has at most {MAX_TAGS}.",
            merged.len()
        )));
    }
    world.tags.insert(arn.to_string(), merged);
    Ok(json!({ "Tags": tags_json(&new) }))
}

fn list(sb: &Sandbox, arn: &str, doc: &Value) -> Result<Value, ApiError> {
    let max = doc.get("MaxResults").and_then(Value::as_u64).unwrap_or(50) as usize;
    let start = match doc.get("NextToken").and_then(Value::as_str) {
        None => 0,
        Some(t) => decode_token(t).ok_or_else(|| ApiError::validation("Invalid pagination token."))?,
    };
    let world = sb.world.read();
    let tags = world.tags.get(arn).map(Vec::as_slice).unwrap_or_default();
    let end = start.saturating_add(max).min(tags.len());
    let mut out = json!({ "Tags": tags_json(tags.get(start..end).unwrap_or_default()) });
    if end < tags.len() {
        out["NextToken"] = base64::engine::general_purpose::STANDARD
            .encode(format!("sandbox-tags:{end}"))
            .into();
    }
    Ok(out)
}

fn decode_token(t: &str) -> Option<usize> {
    let raw = base64::engine::general_purpose::STANDARD.decode(t).ok()?;
    String::from_utf8(raw).ok()?.strip_prefix("sandbox-tags:")?.parse().ok()
}

fn delete(sb: &Sandbox, arn: &str, doc: &Value) -> Result<Value, ApiError> {
    let keys: Vec<&str> = doc
        .get("TagKeys")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(tags) = sb.world.write().tags.get_mut(arn) {
        tags.retain(|(k, _)| !keys.contains(&k.as_str()));
    }
    Ok(json!({}))
}
