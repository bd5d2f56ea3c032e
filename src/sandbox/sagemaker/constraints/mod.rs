//! The constraints of AWS's SageMaker API model (lengths, patterns, enums, ranges, required
//! members) on every request member the control plane reads, checked before an operation runs and
//! refused as AWS refuses them: one ValidationException listing every violation,
//! `N validation error(s) detected: Value 'X' at 'productionVariants.1.member.instanceType' failed
//! to satisfy constraint: Member must satisfy enum value set: [...]; ...`.
//!
//! The tables follow botocore's `service-2.json` (the same model aws-sdk-sagemaker is built from).
//! Beyond the model, a serverless `MemorySizeInMB` must be a multiple of 1024 (AWS's documented
//! 1024, 2048, ..., 6144); the sandbox words that refusal as an enum (UNVERIFIED).

use std::collections::HashMap;
use std::sync::OnceLock;

use parking_lot::RwLock;
use regex::Regex;
use serde_json::Value;

use crate::sandbox::http::wire::ApiError;
mod rule;
mod tables;

pub use rule::{Member, Pattern, Rule};
pub(crate) use rule::{opt, req};
use tables::input_of;
pub(crate) use tables::{CONTAINER, MODEL, NAME_CONTAINS, ORDER, RESOURCE_NAME, TAGS, list_input};

/// Checks a request of `op` against the model; every violation in one ValidationException.
pub fn check(op: &str, doc: &Value) -> Result<(), ApiError> {
    input_of(op).map_or(Ok(()), |members| check_against(members, doc))
}

/// Checks a request against an operation's input members; every violation in one
/// ValidationException.
pub fn check_against(members: &[Member], doc: &Value) -> Result<(), ApiError> {
    let mut found = Vec::new();
    check_members(members, doc, "", &mut found);
    match found.len() {
        0 => Ok(()),
        1 => Err(ApiError::validation(format!(
            "1 validation error detected: {}",
            found[0]
        ))),
        n => Err(ApiError::validation(format!(
            "{n} validation errors detected: {}",
            found.join("; ")
        ))),
    }
}

fn check_members(members: &[Member], doc: &Value, prefix: &str, found: &mut Vec<String>) {
    for m in members {
        let path = format!("{prefix}{}", lower_first(m.name));
        match doc.get(m.name) {
            None | Some(Value::Null) if m.required => found.push(format!(
                "Value null at '{path}' failed to satisfy constraint: Member must not be null"
            )),
            None | Some(Value::Null) => {}
            Some(v) => check_value(&m.rule, v, &path, found),
        }
    }
}

fn check_value(rule: &Rule, v: &Value, path: &str, found: &mut Vec<String>) {
    let mut violated = |constraint: String| {
        found.push(format!(
            "Value '{}' at '{path}' failed to satisfy constraint: Member must {constraint}",
            shown(v)
        ))
    };
    match rule {
        Rule::Text(min, max, pattern) => {
            let Some(s) = v.as_str() else { return };
            let len = s.chars().count();
            if len > *max {
                violated(format!("have length less than or equal to {max}"));
            }
            if len < *min {
                violated(format!("have length greater than or equal to {min}"));
            }
            if let Some(p) = pattern
                && !full_match(p.regex, s)
            {
                violated(format!("satisfy regular expression pattern: {}", p.shown));
            }
        }
        Rule::Enum(values) => {
            if v.as_str().is_some_and(|s| !values.contains(&s)) {
                violated(format!("satisfy enum value set: [{}]", values.join(", ")));
            }
        }
        Rule::Int(min, max) => check_number(v, min.map(|m| m as f64), max.map(|m| m as f64), violated),
        Rule::FloatMin(min) => check_number(v, Some(*min), None, violated),
        Rule::ServerlessMemory => {
            check_number(v, Some(1024.0), Some(6144.0), &mut violated);
            if v.as_f64()
                .is_some_and(|n| (1024.0..=6144.0).contains(&n) && n % 1024.0 != 0.0)
            {
                violated("satisfy enum value set: [1024, 2048, 3072, 4096, 5120, 6144]".into());
            }
        }
        Rule::List(min, max, member) => {
            let Some(items) = v.as_array() else { return };
            if items.len() > *max {
                violated(format!("have length less than or equal to {max}"));
            }
            if items.len() < *min {
                violated(format!("have length greater than or equal to {min}"));
            }
            for (i, item) in items.iter().enumerate() {
                check_value(member, item, &format!("{path}.{}.member", i + 1), found);
            }
        }
        Rule::Struct(members) => {
            if v.is_object() {
                check_members(members, v, &format!("{path}."), found);
            }
        }
        Rule::Map(max, key, value) => check_map(*max, key, value, v, path, found),
        Rule::Bool => {}
    }
}

/// Checks a number against its bounds (non-numbers are the decoder's to refuse).
fn check_number(v: &Value, min: Option<f64>, max: Option<f64>, mut violated: impl FnMut(String)) {
    let Some(n) = v.as_f64() else { return };
    if let Some(min) = min
        && n < min
    {
        violated(format!("have value greater than or equal to {}", number(min)));
    }
    if let Some(max) = max
        && n > max
    {
        violated(format!("have value less than or equal to {}", number(max)));
    }
}

fn check_map(max: usize, key: &Rule, value: &Rule, v: &Value, path: &str, found: &mut Vec<String>) {
    let Some(map) = v.as_object() else { return };
    let whole = shown(v);
    if map.len() > max {
        found.push(format!(
            "Value '{whole}' at '{path}' failed to satisfy constraint: Member must have length less than or equal to {max}"
        ));
    }
    for (k, val) in map {
        for (rule, item, what) in [(key, &Value::String(k.clone()), "keys"), (value, val, "values")] {
            let mut inner = Vec::new();
            check_value(rule, item, path, &mut inner);
            if !inner.is_empty() {
                let reasons: Vec<&str> = inner
                    .iter()
                    .filter_map(|m| m.split_once("failed to satisfy constraint: ").map(|(_, r)| r))
                    .collect();
                found.push(format!(
                    "Value '{whole}' at '{path}' failed to satisfy constraint: Map {what} must satisfy constraint: [{}]",
                    reasons.join(", ")
                ));
            }
        }
    }
}

/// A value as AWS's messages show it: strings bare, lists and maps abridged.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) if a.is_empty() => "[]".into(),
        Value::Array(_) => "[...]".into(),
        Value::Object(m) => {
            let pairs: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().map_or_else(|| v.to_string(), str::to_string)))
                .collect();
            format!("{{{}}}", pairs.join(", "))
        }
        other => other.to_string(),
    }
}

/// A bound as the model writes it (integers without a fraction).
fn number(n: f64) -> String {
    if n.fract() == 0.0 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// Whether the whole of `text` matches `pattern` (compiled once).
fn full_match(pattern: &'static str, text: &str) -> bool {
    static CACHE: OnceLock<RwLock<HashMap<&'static str, Regex>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(re) = cache.read().get(pattern) {
        return re.is_match(text);
    }
    let re = Regex::new(&format!("^(?:{pattern})$")).expect("the model's patterns compile");
    let matched = re.is_match(text);
    cache.write().insert(pattern, re);
    matched
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_violation_is_listed_with_its_member_path() {
        let doc = json!({
            "EndpointConfigName": "ok-name",
            "ProductionVariants": [
                {"VariantName": "A", "ModelName": "m", "InstanceType": "ml.t3.medium", "InitialInstanceCount": 1},
                {"VariantName": "B_", "ModelName": "m", "ServerlessConfig": {"MemorySizeInMB": 1111, "MaxConcurrency": 0}},
            ],
        });
        let e = check("CreateEndpointConfig", &doc).unwrap_err();
        assert!(e.message.starts_with("4 validation errors detected: "), "{}", e.message);
        for part in [
            "Value 'ml.t3.medium' at 'productionVariants.1.member.instanceType' failed to satisfy constraint: Member must satisfy enum value set: [ml.t2.medium, ",
            "Value 'B_' at 'productionVariants.2.member.variantName' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}",
            "Value '1111' at 'productionVariants.2.member.serverlessConfig.memorySizeInMB' failed to satisfy constraint: Member must satisfy enum value set: [1024, 2048, 3072, 4096, 5120, 6144]",
            "Value '0' at 'productionVariants.2.member.serverlessConfig.maxConcurrency' failed to satisfy constraint: Member must have value greater than or equal to 1",
        ] {
            assert!(e.message.contains(part), "{part}\n{}", e.message);
        }
        assert!(check("DescribeEndpoint", &json!({})).is_err());
        assert!(check("ListModels", &json!({"SortBy": "Status"})).is_err());
        assert!(check("ListEndpoints", &json!({"SortBy": "Status", "MaxResults": 100})).is_ok());
        assert!(
            check(
                "CreateModel",
                &json!({"ModelName": "m", "PrimaryContainer": {"Environment": {"1X": "v"}}})
            )
            .is_err()
        );
    }
}
