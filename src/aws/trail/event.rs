//! One CloudTrail event as the timeline shows it, parsed from LookupEvents' `CloudTrailEvent`
//! JSON: who (the principal's ARN shortened to `role/session` or the user, and the client that
//! made the call — sagedeck, the AWS console, the CLI, an SDK — from the user agent), what (the
//! event name and the parameters that matter: weights, configuration, copies, scaling), when,
//! from where (source IP, region), and whether AWS refused it (errorCode).

use serde::Serialize;
use serde_json::Value;

/// The event sources the timeline reads.
pub const SOURCES: [&str; 2] = ["sagemaker.amazonaws.com", "application-autoscaling.amazonaws.com"];

/// One control-plane call CloudTrail recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrailEvent {
    /// CloudTrail's eventId (unique).
    pub id: String,
    /// When the call was made (epoch seconds).
    pub epoch: f64,
    /// The API operation (`UpdateEndpointWeightsAndCapacities`).
    pub name: String,
    /// The service (`sagemaker.amazonaws.com`).
    pub source: String,
    /// The caller's ARN as CloudTrail names it (or its user name when it has no ARN).
    pub principal: String,
    /// The caller shortened: `role/session` for an assumed role, the user name for a user.
    pub who: String,
    /// The client that made the call: `sagedeck`, `console`, `aws-cli`, `boto3`, `sdk`, or
    /// `-` when CloudTrail recorded no user agent.
    pub client: String,
    /// The parameters that matter, in one line (`weights Stable=9 Canary=1`), empty when none.
    pub detail: String,
    /// The caller's IP address (or the AWS service that called on its behalf).
    pub source_ip: String,
    /// The region the call was made in.
    pub region: String,
    /// AWS's errorCode and errorMessage when it refused the call.
    pub error: Option<String>,
    /// The call's request id, when CloudTrail recorded one (the audit log keeps the same id).
    pub request_id: Option<String>,
    /// Whether the call only read.
    pub read_only: bool,
}

impl TrailEvent {
    /// Parses one `CloudTrailEvent` document; None when it is not JSON or names no event.
    pub fn parse(text: &str) -> Option<TrailEvent> {
        let v: Value = serde_json::from_str(text).ok()?;
        let s = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        let name = s("eventName")?;
        let identity = v.get("userIdentity").cloned().unwrap_or(Value::Null);
        let principal = principal_of(&identity);
        let error = s("errorCode").map(|code| match s("errorMessage") {
            Some(m) if !m.is_empty() => format!("{code}: {m}"),
            _ => code,
        });
        let read_only = match v.get("readOnly") {
            Some(Value::Bool(b)) => *b,
            Some(Value::String(t)) => t == "true",
            _ => is_read_name(&name),
        };
        Some(TrailEvent {
            id: s("eventID").or_else(|| s("eventId")).unwrap_or_default(),
            epoch: s("eventTime").as_deref().and_then(epoch_of).unwrap_or(0.0),
            detail: detail_of(&name, v.get("requestParameters").unwrap_or(&Value::Null)),
            who: shorten(&principal),
            principal,
            client: client_of(s("userAgent").as_deref().unwrap_or("")),
            source: s("eventSource").unwrap_or_default(),
            source_ip: s("sourceIPAddress").unwrap_or_else(|| "-".into()),
            region: s("awsRegion").unwrap_or_else(|| "-".into()),
            request_id: s("requestID").or_else(|| s("requestId")),
            error,
            read_only,
            name,
        })
    }

    /// What happened, in one line: `UpdateEndpointWeightsAndCapacities: weights Stable=9
    /// Canary=1`, `refused` and AWS's error after it when AWS refused the call.
    pub fn summary(&self) -> String {
        let mut out = self.name.clone();
        if !self.detail.is_empty() {
            out.push_str(": ");
            out.push_str(&self.detail);
        }
        if let Some(e) = &self.error {
            out.push_str(&format!(" — refused: {e}"));
        }
        out
    }

    /// From where and through what: `from 203.0.113.7 in us-east-1 via console`.
    pub fn origin(&self) -> String {
        format!("from {} in {} via {}", self.source_ip, self.region, self.client)
    }
}

/// The caller's ARN (a federated or root caller without one: its type and name).
fn principal_of(identity: &Value) -> String {
    let get = |k: &str| identity.get(k).and_then(Value::as_str);
    if let Some(arn) = get("arn").filter(|a| !a.is_empty()) {
        return arn.to_string();
    }
    if let Some(arn) = identity
        .pointer("/sessionContext/sessionIssuer/arn")
        .and_then(Value::as_str)
    {
        return arn.to_string();
    }
    match (get("type"), get("userName").or_else(|| get("invokedBy"))) {
        (_, Some(name)) => name.to_string(),
        (Some(t), None) => t.to_string(),
        (None, None) => "-".into(),
    }
}

/// `arn:aws:sts::1:assumed-role/Admin/alice` → `Admin/alice`; `arn:aws:iam::1:user/ops/bob` →
/// `bob`; `arn:aws:iam::1:root` → `root`; anything else unchanged.
pub fn shorten(principal: &str) -> String {
    let Some(resource) = principal.strip_prefix("arn:").and_then(|r| r.splitn(5, ':').nth(4)) else {
        return principal.to_string();
    };
    if let Some(rest) = resource.strip_prefix("assumed-role/") {
        return rest.to_string();
    }
    if resource.starts_with("user/") || resource.starts_with("role/") {
        return resource.rsplit('/').next().unwrap_or(resource).to_string();
    }
    resource.to_string()
}

/// The client a user agent names: sagedeck's own calls carry `app/sagedeck`; the console's come
/// from `console.amazonaws.com` (or AWS Internal, as CloudTrail writes some of them).
pub fn client_of(agent: &str) -> String {
    let a = agent.to_ascii_lowercase();
    let name = if a.is_empty() {
        "-"
    } else if a.contains("app/sagedeck") || a.starts_with("sagedeck") {
        "sagedeck"
    } else if a.contains("console.amazonaws.com") || a.contains("signin.amazonaws.com") || a == "aws internal" {
        "console"
    } else if a.contains("aws-cli") {
        "aws-cli"
    } else if a.contains("boto3") || a.contains("botocore") {
        "boto3"
    } else if a.contains("cloudformation") {
        "cloudformation"
    } else if a.contains("aws-sdk") || a.contains("aws-internal") {
        "sdk"
    } else {
        "other"
    };
    name.to_string()
}

/// Whether an operation only reads (for events whose readOnly CloudTrail left out).
fn is_read_name(name: &str) -> bool {
    ["Describe", "List", "Get", "Search"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// `2026-12-04T23:10:00Z` as epoch seconds.
fn epoch_of(text: &str) -> Option<f64> {
    aws_smithy_types::DateTime::from_str(text, aws_smithy_types::date_time::Format::DateTime)
        .ok()
        .map(|d| d.as_secs_f64())
}

/// A number as short text: `9`, `0.5`.
fn num(v: &Value) -> Option<String> {
    let f = v.as_f64()?;
    Some(if f.fract() == 0.0 {
        format!("{f:.0}")
    } else {
        format!("{f}")
    })
}

/// The parameters that matter of a call, in one line (empty when none does).
fn detail_of(name: &str, p: &Value) -> String {
    let s = |k: &str| p.get(k).and_then(Value::as_str);
    let n = |k: &str| p.get(k).and_then(num);
    match name {
        "UpdateEndpointWeightsAndCapacities" => weights_of(p),
        "CreateEndpoint" | "UpdateEndpoint" => {
            let mut out = format!("config {}", s("endpointConfigName").unwrap_or("-"));
            if p.get("deploymentConfig").is_some_and(|d| !d.is_null()) {
                out.push_str(" with a deployment config");
            }
            if p.get("retainDeploymentConfig") == Some(&Value::Bool(true)) {
                out.push_str(" retaining the deployment config");
            }
            out
        }
        "UpdateInferenceComponentRuntimeConfig" => match p.pointer("/desiredRuntimeConfig/copyCount").and_then(num) {
            Some(c) => format!("{} copies {c}", s("inferenceComponentName").unwrap_or("-")),
            None => s("inferenceComponentName").unwrap_or_default().to_string(),
        },
        "CreateInferenceComponent" | "UpdateInferenceComponent" | "DeleteInferenceComponent" => {
            let model = p.pointer("/specification/modelName").and_then(Value::as_str);
            match (s("inferenceComponentName"), model) {
                (Some(ic), Some(m)) => format!("{ic} model {m}"),
                (Some(ic), None) => ic.to_string(),
                _ => String::new(),
            }
        }
        "RegisterScalableTarget" => {
            let mut out = format!("scaling {}", s("resourceId").unwrap_or("-"));
            if let (Some(lo), Some(hi)) = (n("minCapacity"), n("maxCapacity")) {
                out.push_str(&format!(" min {lo} max {hi}"));
            }
            out
        }
        "PutScalingPolicy" => {
            let target = p
                .pointer("/targetTrackingScalingPolicyConfiguration/targetValue")
                .and_then(num)
                .map(|t| format!(" target {t}"))
                .unwrap_or_default();
            format!("scaling policy {}{target}", s("policyName").unwrap_or("-"))
        }
        "DeleteScalingPolicy" => format!("scaling policy {} removed", s("policyName").unwrap_or("-")),
        "DeregisterScalableTarget" => format!("scaling {} removed", s("resourceId").unwrap_or("-")),
        _ => String::new(),
    }
}

/// `weights Stable=9 Canary=1 instances Canary=2` from DesiredWeightsAndCapacities.
fn weights_of(p: &Value) -> String {
    let list = p
        .get("desiredWeightsAndCapacities")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let pick = |key: &str| -> Vec<String> {
        list.iter()
            .filter_map(|v| {
                let name = v.get("variantName").and_then(Value::as_str)?;
                Some(format!("{name}={}", v.get(key).and_then(num)?))
            })
            .collect()
    };
    let mut parts = Vec::new();
    for (key, label) in [("desiredWeight", "weights"), ("desiredInstanceCount", "instances")] {
        let got = pick(key);
        if !got.is_empty() {
            parts.push(format!("{label} {}", got.join(" ")));
        }
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_weight_change_by_an_assumed_role_through_the_console() {
        let text = r#"{"eventVersion":"1.08","eventID":"e-1","eventTime":"2026-12-04T23:10:00Z",
            "eventSource":"sagemaker.amazonaws.com","eventName":"UpdateEndpointWeightsAndCapacities",
            "awsRegion":"eu-west-1","sourceIPAddress":"203.0.113.7","userAgent":"console.amazonaws.com",
            "userIdentity":{"type":"AssumedRole","arn":"arn:aws:sts::123456789012:assumed-role/Admin/alice"},
            "requestParameters":{"endpointName":"ep","desiredWeightsAndCapacities":[
                {"variantName":"Stable","desiredWeight":9.0},{"variantName":"Canary","desiredWeight":1.0}]},
            "requestID":"r-1","readOnly":false}"#;
        let e = TrailEvent::parse(text).unwrap();
        assert_eq!(e.who, "Admin/alice");
        assert_eq!(e.client, "console");
        assert_eq!(
            e.summary(),
            "UpdateEndpointWeightsAndCapacities: weights Stable=9 Canary=1"
        );
        assert_eq!(e.origin(), "from 203.0.113.7 in eu-west-1 via console");
        assert_eq!(e.request_id.as_deref(), Some("r-1"));
        assert_eq!(e.epoch, 1_796_425_800.0);
        assert!(!e.read_only);
    }

    #[test]
    fn a_refused_call_by_a_user_through_sagedeck() {
        let text = r#"{"eventID":"e-2","eventTime":"2026-12-04T23:10:00Z","eventName":"UpdateEndpoint",
            "eventSource":"sagemaker.amazonaws.com","userAgent":"aws-sdk-rust/1.3 app/sagedeck",
            "userIdentity":{"type":"IAMUser","arn":"arn:aws:iam::123456789012:user/ops/bob"},
            "requestParameters":{"endpointName":"ep","endpointConfigName":"cfg-2"},
            "errorCode":"ValidationException","errorMessage":"Could not find endpoint config"}"#;
        let e = TrailEvent::parse(text).unwrap();
        assert_eq!((e.who.as_str(), e.client.as_str()), ("bob", "sagedeck"));
        assert_eq!(
            e.summary(),
            "UpdateEndpoint: config cfg-2 — refused: ValidationException: Could not find endpoint config"
        );
        assert_eq!(e.source_ip, "-");
    }

    #[test]
    fn scaling_and_copies_name_their_figures() {
        let p = serde_json::json!({"resourceId":"endpoint/ep/variant/AllTraffic","minCapacity":1,"maxCapacity":4});
        assert_eq!(
            detail_of("RegisterScalableTarget", &p),
            "scaling endpoint/ep/variant/AllTraffic min 1 max 4"
        );
        let p = serde_json::json!({"inferenceComponentName":"ic","desiredRuntimeConfig":{"copyCount":3}});
        assert_eq!(detail_of("UpdateInferenceComponentRuntimeConfig", &p), "ic copies 3");
        assert_eq!(shorten("arn:aws:iam::1:root"), "root");
        assert_eq!(client_of("aws-cli/2.15 Python/3.11"), "aws-cli");
        assert_eq!(client_of("Boto3/1.35 md/Botocore#1.35"), "boto3");
        assert!(TrailEvent::parse("not json").is_none());
    }
}
