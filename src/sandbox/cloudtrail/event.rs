//! One call as CloudTrail records it: the event record (the JSON LookupEvents hands back as
//! `CloudTrailEvent`) and the fields LookupEvents filters on.
//!
//! `requestParameters` and `responseElements` carry the API's members with CloudTrail's names
//! (the wire's PascalCase with a lower-case first letter: `endpointName`,
//! `desiredWeightsAndCapacities`), except container environments, which CloudTrail hides
//! (`HIDDEN_DUE_TO_SECURITY_REASONS`: they may hold secrets). Read-only calls carry no
//! `responseElements`, as CloudTrail records none for them; refused calls carry `errorCode` and
//! `errorMessage` instead.

use serde_json::{Map, Value, json};

use crate::sandbox::cloudtrail::identity::Caller;
use crate::sandbox::http::wire::next_request_id;

/// The services whose calls are recorded, by their CloudTrail event source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `sagemaker.amazonaws.com` (the control plane; runtime invocations are data events).
    SageMaker,
    /// `application-autoscaling.amazonaws.com`.
    AutoScaling,
    /// `logs.amazonaws.com` (log group and stream management; PutLogEvents is a data event).
    Logs,
}

impl Source {
    /// The event source.
    pub fn event_source(self) -> &'static str {
        match self {
            Source::SageMaker => "sagemaker.amazonaws.com",
            Source::AutoScaling => "application-autoscaling.amazonaws.com",
            Source::Logs => "logs.amazonaws.com",
        }
    }
}

/// What one served call was: the caller, the request as decoded, and its answer (the output
/// document, or the error's code and message).
pub struct Call<'a> {
    /// The service.
    pub source: Source,
    /// The operation (`UpdateEndpointWeightsAndCapacities`).
    pub name: &'a str,
    /// Who called.
    pub caller: &'a Caller,
    /// The request document.
    pub request: &'a Value,
    /// The output document, or (errorCode, errorMessage).
    pub answer: Result<&'a Value, (&'a str, &'a str)>,
}

/// A resource an event names, as LookupEvents lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// `AWS::SageMaker::Endpoint`, ...
    pub kind: &'static str,
    /// The resource's name (what LookupEvents shows as ResourceName).
    pub name: String,
    /// Its ARN (a ResourceName lookup matches it too).
    pub arn: String,
}

/// One recorded event.
#[derive(Debug, Clone)]
pub struct TrailEvent {
    /// Order of recording (newer is larger).
    pub seq: u64,
    /// `eventID`.
    pub id: String,
    /// `eventName`.
    pub name: String,
    /// `eventSource`.
    pub source: &'static str,
    /// `eventTime`, epoch seconds.
    pub time: f64,
    /// `readOnly`.
    pub read_only: bool,
    /// The caller's access key id.
    pub access_key: Option<String>,
    /// LookupEvents' `Username`.
    pub username: Option<String>,
    /// The resources it names.
    pub resources: Vec<Resource>,
    /// The whole record, as the JSON text LookupEvents returns.
    pub record: String,
}

/// Where an event happened: region, account, and the time of the call (epoch seconds).
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// `awsRegion`.
    pub region: &'a str,
    /// `recipientAccountId` and the resources' account.
    pub account: &'a str,
    /// `eventTime`.
    pub time: f64,
}

/// Whether an operation only reads (CloudTrail's `readOnly`).
pub fn is_read_only(name: &str) -> bool {
    ["Describe", "List", "Get", "Search", "Lookup"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// CloudTrail's time format: `2026-12-04T12:00:00Z`.
pub fn trail_time(epoch: f64) -> String {
    let dt = aws_smithy_types::DateTime::from_secs(epoch.floor() as i64);
    dt.fmt(aws_smithy_types::date_time::Format::DateTime)
        .map(|t| match t.split_once('.') {
            Some((whole, _)) => format!("{whole}Z"),
            None => t,
        })
        .unwrap_or_default()
}

/// The event of `call` at `place`, numbered `seq`.
pub fn build(call: &Call<'_>, place: Place<'_>, seq: u64) -> TrailEvent {
    let read_only = is_read_only(call.name);
    let id = event_id();
    let resources = resources_of(call, place);
    let identity = &call.caller.identity;
    let issued = trail_time((place.time / 3600.0).floor() * 3600.0);
    let mut record = json!({
        "eventVersion": "1.09",
        "userIdentity": identity.user_identity(&issued),
        "eventTime": trail_time(place.time),
        "eventSource": call.source.event_source(),
        "eventName": call.name,
        "awsRegion": place.region,
        "sourceIPAddress": call.caller.source_ip,
        "userAgent": call.caller.user_agent.clone().unwrap_or_default(),
        "requestParameters": non_empty(camel(call.request)),
        "responseElements": Value::Null,
        "requestID": next_request_id(),
        "eventID": id,
        "readOnly": read_only,
        "eventType": "AwsApiCall",
        "managementEvent": true,
        "recipientAccountId": place.account,
        "eventCategory": "Management",
    });
    match call.answer {
        Ok(out) if !read_only => record["responseElements"] = non_empty(camel(out)),
        Ok(_) => {}
        Err((code, message)) => {
            record["errorCode"] = json!(code);
            record["errorMessage"] = json!(message);
        }
    }
    if !resources.is_empty() {
        record["resources"] = resources
            .iter()
            .map(|r| json!({"accountId": place.account, "type": r.kind, "ARN": r.arn}))
            .collect();
    }
    TrailEvent {
        seq,
        id,
        name: call.name.to_string(),
        source: call.source.event_source(),
        time: place.time,
        read_only,
        access_key: identity.access_key.clone(),
        username: identity.user_name().map(str::to_string),
        resources,
        record: record.to_string(),
    }
}

/// A random event id in the UUID (version 4) form CloudTrail uses.
fn event_id() -> String {
    let mut b: [u8; 16] = rand::random();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// `Null` for an empty object (CloudTrail writes `null` where there is nothing to show).
fn non_empty(v: Value) -> Value {
    match &v {
        Value::Object(o) if o.is_empty() => Value::Null,
        _ => v,
    }
}

/// The members of a request or answer with CloudTrail's names: the first letter of every key
/// lower-cased, container environments hidden.
pub fn camel(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, v) in o {
                let value = if k == "Environment" {
                    json!("HIDDEN_DUE_TO_SECURITY_REASONS")
                } else {
                    camel(v)
                };
                out.insert(lower_first(k), value);
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(camel).collect()),
        other => other.clone(),
    }
}

fn lower_first(k: &str) -> String {
    let mut chars = k.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The SageMaker resources a request names by member, with their CloudTrail types and ARN kinds.
const SAGEMAKER_MEMBERS: &[(&str, &str, &str)] = &[
    ("EndpointName", "AWS::SageMaker::Endpoint", "endpoint"),
    (
        "EndpointConfigName",
        "AWS::SageMaker::EndpointConfig",
        "endpoint-config",
    ),
    ("ModelName", "AWS::SageMaker::Model", "model"),
    (
        "InferenceComponentName",
        "AWS::SageMaker::InferenceComponent",
        "inference-component",
    ),
];

/// The resources a call names: SageMaker's by member or tagged ARN; Application Auto Scaling's
/// scalable target and the endpoint or component behind it; a log group.
fn resources_of(call: &Call<'_>, place: Place<'_>) -> Vec<Resource> {
    let text = |k: &str| call.request.get(k).and_then(Value::as_str);
    let sagemaker = |kind: &'static str, arn_kind: &str, name: &str| Resource {
        kind,
        name: name.to_string(),
        arn: format!(
            "arn:aws:sagemaker:{}:{}:{arn_kind}/{}",
            place.region,
            place.account,
            name.to_ascii_lowercase()
        ),
    };
    let mut out = Vec::new();
    match call.source {
        Source::SageMaker => {
            for (member, kind, arn_kind) in SAGEMAKER_MEMBERS {
                if let Some(name) = text(member) {
                    out.push(sagemaker(kind, arn_kind, name));
                }
            }
            if let Some((arn_kind, name)) = text("ResourceArn").and_then(|a| a.rsplit(':').next()?.split_once('/'))
                && let Some((_, kind, _)) = SAGEMAKER_MEMBERS.iter().find(|(_, _, k)| *k == arn_kind)
            {
                out.push(sagemaker(kind, arn_kind, name));
            }
        }
        Source::AutoScaling => {
            if let Some(id) = text("ResourceId") {
                out.push(Resource {
                    kind: "AWS::ApplicationAutoScaling::ScalableTarget",
                    name: id.to_string(),
                    arn: format!(
                        "arn:aws:application-autoscaling:{}:{}:scalable-target/{id}",
                        place.region, place.account
                    ),
                });
                let mut parts = id.split('/');
                match (parts.next(), parts.next()) {
                    (Some("endpoint"), Some(ep)) => out.push(sagemaker("AWS::SageMaker::Endpoint", "endpoint", ep)),
                    (Some("inference-component"), Some(ic)) => {
                        out.push(sagemaker(
                            "AWS::SageMaker::InferenceComponent",
                            "inference-component",
                            ic,
                        ));
                    }
                    _ => {}
                }
            }
        }
        Source::Logs => {
            if let Some(group) = text("logGroupName") {
                out.push(Resource {
                    kind: "AWS::Logs::LogGroup",
                    name: group.to_string(),
                    arn: format!("arn:aws:logs:{}:{}:log-group:{group}", place.region, place.account),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::cloudtrail::identity::{BOB_KEY, Caller};

    fn place() -> Place<'static> {
        Place {
            region: "us-east-1",
            account: "123456789012",
            time: 1_796_400_000.25,
        }
    }

    #[test]
    fn a_change_is_recorded_with_cloudtrails_names() {
        let caller = Caller::internal(BOB_KEY, "aws-cli/2.22.0", "123456789012");
        let request = json!({"EndpointName": "ep", "DesiredWeightsAndCapacities": [{"VariantName": "Canary", "DesiredWeight": 2.0}]});
        let answer = json!({"EndpointArn": "arn:aws:sagemaker:us-east-1:123456789012:endpoint/ep"});
        let call = Call {
            source: Source::SageMaker,
            name: "UpdateEndpointWeightsAndCapacities",
            caller: &caller,
            request: &request,
            answer: Ok(&answer),
        };
        let e = build(&call, place(), 7);
        assert!(!e.read_only);
        assert_eq!(e.username.as_deref(), Some("bob"));
        assert_eq!(e.resources[0].name, "ep");
        let r: Value = serde_json::from_str(&e.record).unwrap();
        assert_eq!(r["eventTime"], "2026-12-04T16:00:00Z");
        assert_eq!(
            r["requestParameters"]["desiredWeightsAndCapacities"][0]["variantName"],
            "Canary"
        );
        assert_eq!(r["responseElements"]["endpointArn"], answer["EndpointArn"]);
        assert_eq!(r["userIdentity"]["arn"], "arn:aws:iam::123456789012:user/bob");
        assert_eq!(r["resources"][0]["type"], "AWS::SageMaker::Endpoint");
        assert_eq!(r["eventID"], e.id);
        assert!(r.get("errorCode").is_none());
    }

    #[test]
    fn refusals_and_reads_and_secrets() {
        let caller = Caller::internal("AKIDSANDBOX", "ua", "1");
        let request = json!({"ModelName": "m", "PrimaryContainer": {"Environment": {"TOKEN": "s3cr3t"}}});
        let call = Call {
            source: Source::SageMaker,
            name: "CreateModel",
            caller: &caller,
            request: &request,
            answer: Err(("ValidationException", "bad")),
        };
        let r: Value = serde_json::from_str(&build(&call, place(), 1).record).unwrap();
        assert_eq!(r["errorCode"], "ValidationException");
        assert_eq!(r["responseElements"], Value::Null);
        assert_eq!(
            r["requestParameters"]["primaryContainer"]["environment"],
            "HIDDEN_DUE_TO_SECURITY_REASONS"
        );
        assert!(!r.to_string().contains("s3cr3t"));
        assert!(is_read_only("DescribeEndpoint") && !is_read_only("UpdateEndpoint"));
    }

    #[test]
    fn scaling_targets_name_their_endpoint() {
        let caller = Caller::internal("AKIDSANDBOX", "ua", "1");
        let request = json!({"ResourceId": "endpoint/ep/variant/AllTraffic", "ServiceNamespace": "sagemaker"});
        let call = Call {
            source: Source::AutoScaling,
            name: "RegisterScalableTarget",
            caller: &caller,
            request: &request,
            answer: Ok(&json!({})),
        };
        let e = build(&call, place(), 1);
        let names: Vec<&str> = e.resources.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["endpoint/ep/variant/AllTraffic", "ep"]);
        let r: Value = serde_json::from_str(&e.record).unwrap();
        assert_eq!(r["requestParameters"]["serviceNamespace"], "sagemaker");
        assert_eq!(r["responseElements"], Value::Null);
    }
}
