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
use crate::sandbox::sagemaker::instance_types::{
    PRODUCTION_VARIANT_ACCELERATOR_TYPES, PRODUCTION_VARIANT_INSTANCE_TYPES,
};

/// A regular expression of the model, and how AWS's messages show it.
pub struct Pattern {
    regex: &'static str,
    shown: &'static str,
}

/// What the model allows for one member.
pub enum Rule {
    /// A string of `min..=max` characters matching the pattern, if any.
    Text(usize, usize, Option<&'static Pattern>),
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// An integer within the bounds.
    Int(Option<i64>, Option<i64>),
    /// A number at least this.
    FloatMin(f64),
    /// A list of `min..=max` members, each checked by the rule.
    List(usize, usize, &'static Rule),
    /// A structure with these members.
    Struct(&'static [Member]),
    /// A string map of at most this many entries, keys and values checked by the rules.
    Map(usize, &'static Rule, &'static Rule),
    /// A serverless memory size: 1024 to 6144 MB in steps of 1024.
    ServerlessMemory,
}

/// One member of a structure.
pub struct Member {
    name: &'static str,
    required: bool,
    rule: Rule,
}

pub(crate) const fn opt(name: &'static str, rule: Rule) -> Member {
    Member {
        name,
        required: false,
        rule,
    }
}

pub(crate) const fn req(name: &'static str, rule: Rule) -> Member {
    Member {
        name,
        required: true,
        rule,
    }
}

const NAME: Pattern = Pattern {
    regex: "[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}",
    shown: "^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}",
};
const MODEL_NAME: Pattern = Pattern {
    regex: r"[a-zA-Z0-9]([\-a-zA-Z0-9]*[a-zA-Z0-9])?",
    shown: r"^[a-zA-Z0-9]([\-a-zA-Z0-9]*[a-zA-Z0-9])?",
};
pub(crate) const NAME_CONTAINS: Pattern = Pattern {
    regex: "[a-zA-Z0-9-]+",
    shown: "[a-zA-Z0-9-]+",
};
const ROLE_ARN: Pattern = Pattern {
    regex: r"arn:aws[a-z\-]*:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+",
    shown: r"^arn:aws[a-z\-]*:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+$",
};
/// The pattern of a SageMaker resource ARN (AddTags, ListTags, DeleteTags).
const RESOURCE_ARN: Pattern = Pattern {
    regex: "arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:.+",
    shown: "arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:.+",
};
const TAG_TEXT: Pattern = Pattern {
    regex: r"([\p{L}\p{Z}\p{N}_.:/=+\-@]*)",
    shown: r"^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$",
};
const IMAGE: Pattern = Pattern {
    regex: r"[\S]+",
    shown: r"[\S]+",
};
const URL: Pattern = Pattern {
    regex: "(https|s3)://([^/]+)/?(.*)",
    shown: "^(https|s3)://([^/]+)/?(.*)$",
};
const ENV_KEY: Pattern = Pattern {
    regex: "[a-zA-Z_][a-zA-Z0-9_]*",
    shown: "[a-zA-Z_][a-zA-Z0-9_]*",
};
const KMS_KEY: Pattern = Pattern {
    regex: "[a-zA-Z0-9:/_-]*",
    shown: "[a-zA-Z0-9:/_-]*",
};

pub(crate) const RESOURCE_NAME: Rule = Rule::Text(0, 63, Some(&NAME));
pub(crate) const MODEL: Rule = Rule::Text(0, 63, Some(&MODEL_NAME));
const TAG_KEY: Rule = Rule::Text(1, 128, Some(&TAG_TEXT));
const TAG: Rule = Rule::Struct(&[req("Key", TAG_KEY), req("Value", Rule::Text(0, 256, Some(&TAG_TEXT)))]);
pub(crate) const TAGS: Rule = Rule::List(0, 50, &TAG);
const ROLE: Rule = Rule::Text(20, 2048, Some(&ROLE_ARN));
pub(crate) const ORDER: Rule = Rule::Enum(&["Ascending", "Descending"]);

pub(crate) const CONTAINER: Rule = Rule::Struct(&[
    opt("ContainerHostname", RESOURCE_NAME),
    opt("Image", Rule::Text(0, 255, Some(&IMAGE))),
    opt("Mode", Rule::Enum(&["SingleModel", "MultiModel"])),
    opt("ModelDataUrl", Rule::Text(0, 1024, Some(&URL))),
    opt(
        "Environment",
        Rule::Map(100, &Rule::Text(0, 1024, Some(&ENV_KEY)), &Rule::Text(0, 1024, None)),
    ),
]);

const SERVERLESS: Rule = Rule::Struct(&[
    req("MemorySizeInMB", Rule::ServerlessMemory),
    req("MaxConcurrency", Rule::Int(Some(1), Some(200))),
    opt("ProvisionedConcurrency", Rule::Int(Some(1), Some(200))),
]);

const VARIANT: Rule = Rule::Struct(&[
    req("VariantName", RESOURCE_NAME),
    opt("ModelName", MODEL),
    opt("InitialInstanceCount", Rule::Int(Some(1), None)),
    opt("InstanceType", Rule::Enum(&PRODUCTION_VARIANT_INSTANCE_TYPES)),
    opt("InitialVariantWeight", Rule::FloatMin(0.0)),
    opt("AcceleratorType", Rule::Enum(&PRODUCTION_VARIANT_ACCELERATOR_TYPES)),
    opt("ServerlessConfig", SERVERLESS),
    opt("VolumeSizeInGB", Rule::Int(Some(1), Some(512))),
    opt("ModelDataDownloadTimeoutInSeconds", Rule::Int(Some(60), Some(3600))),
    opt(
        "ContainerStartupHealthCheckTimeoutInSeconds",
        Rule::Int(Some(60), Some(3600)),
    ),
    opt(
        "VariantInstanceProvisionTimeoutInSeconds",
        Rule::Int(Some(300), Some(3600)),
    ),
    opt("ManagedInstanceScaling", MANAGED_SCALING),
    opt("RoutingConfig", ROUTING),
]);

const MANAGED_SCALING: Rule = Rule::Struct(&[
    opt("Status", Rule::Enum(&["ENABLED", "DISABLED"])),
    opt("MinInstanceCount", Rule::Int(Some(0), None)),
    opt("MaxInstanceCount", Rule::Int(Some(1), None)),
]);

const ROUTING: Rule = Rule::Struct(&[opt(
    "RoutingStrategy",
    Rule::Enum(&["LEAST_OUTSTANDING_REQUESTS", "RANDOM", "PREFIX_AWARE"]),
)]);

const DESIRED: Rule = Rule::Struct(&[
    req("VariantName", RESOURCE_NAME),
    opt("DesiredWeight", Rule::FloatMin(0.0)),
    opt("DesiredInstanceCount", Rule::Int(Some(0), None)),
]);

const VARIANT_PROPERTY: Rule = Rule::Struct(&[req(
    "VariantPropertyType",
    Rule::Enum(&["DesiredInstanceCount", "DesiredWeight", "DataCaptureConfig"]),
)]);

/// The list members every List* operation shares, with its own sort keys.
macro_rules! list_input {
    ($($sort:literal),*; $($extra:expr),*) => {
        &[
            opt("SortBy", Rule::Enum(&[$($sort),*])),
            opt("SortOrder", ORDER),
            opt("NextToken", Rule::Text(0, 8192, None)),
            opt("MaxResults", Rule::Int(Some(1), Some(100))),
            opt("NameContains", Rule::Text(0, 63, Some(&NAME_CONTAINS))),
            $($extra),*
        ]
    };
}
pub(crate) use list_input;

const ENDPOINT_STATUS: Rule = Rule::Enum(&[
    "OutOfService",
    "Creating",
    "Updating",
    "SystemUpdating",
    "RollingBack",
    "InService",
    "Deleting",
    "Failed",
    "UpdateRollbackFailed",
]);

/// The input members of an operation the sandbox serves (None for others).
fn input_of(op: &str) -> Option<&'static [Member]> {
    Some(match op {
        "CreateModel" => {
            const {
                &[
                    req("ModelName", MODEL),
                    opt("PrimaryContainer", CONTAINER),
                    opt("Containers", Rule::List(0, 15, &CONTAINER)),
                    opt("ExecutionRoleArn", ROLE),
                    opt("Tags", TAGS),
                ]
            }
        }
        "DescribeModel" | "DeleteModel" => const { &[req("ModelName", MODEL)] },
        "CreateEndpointConfig" => {
            const {
                &[
                    req("EndpointConfigName", RESOURCE_NAME),
                    req("ProductionVariants", Rule::List(1, 10, &VARIANT)),
                    opt("ShadowProductionVariants", Rule::List(1, 10, &VARIANT)),
                    opt("KmsKeyId", Rule::Text(0, 2048, Some(&KMS_KEY))),
                    opt("ExecutionRoleArn", ROLE),
                    opt("Tags", TAGS),
                ]
            }
        }
        "DescribeEndpointConfig" | "DeleteEndpointConfig" => const { &[req("EndpointConfigName", RESOURCE_NAME)] },
        "CreateEndpoint" => {
            const {
                &[
                    req("EndpointName", RESOURCE_NAME),
                    req("EndpointConfigName", RESOURCE_NAME),
                    opt("Tags", TAGS),
                ]
            }
        }
        "DescribeEndpoint" | "DeleteEndpoint" => const { &[req("EndpointName", RESOURCE_NAME)] },
        "UpdateEndpoint" => {
            const {
                &[
                    req("EndpointName", RESOURCE_NAME),
                    req("EndpointConfigName", RESOURCE_NAME),
                    opt("ExcludeRetainedVariantProperties", Rule::List(0, 3, &VARIANT_PROPERTY)),
                ]
            }
        }
        "UpdateEndpointWeightsAndCapacities" => {
            const {
                &[
                    req("EndpointName", RESOURCE_NAME),
                    req("DesiredWeightsAndCapacities", Rule::List(1, usize::MAX, &DESIRED)),
                ]
            }
        }
        "ListModels" | "ListEndpointConfigs" => const { list_input!("Name", "CreationTime";) },
        "ListEndpoints" => {
            const { list_input!("Name", "CreationTime", "Status"; opt("StatusEquals", ENDPOINT_STATUS)) }
        }
        "AddTags" => {
            const {
                &[
                    req("ResourceArn", Rule::Text(0, 256, Some(&RESOURCE_ARN))),
                    req("Tags", TAGS),
                ]
            }
        }
        "ListTags" => {
            const {
                &[
                    req("ResourceArn", Rule::Text(0, 256, Some(&RESOURCE_ARN))),
                    opt("NextToken", Rule::Text(0, 8192, None)),
                    opt("MaxResults", Rule::Int(Some(50), None)),
                ]
            }
        }
        "DeleteTags" => {
            const {
                &[
                    req("ResourceArn", Rule::Text(0, 256, Some(&RESOURCE_ARN))),
                    req("TagKeys", Rule::List(1, 50, &TAG_KEY)),
                ]
            }
        }
        _ => return None,
    })
}

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
