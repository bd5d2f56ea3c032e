//! Fault injection: rules that make chosen endpoints, variants or operations throttle, fail with a
//! chosen error, answer slowly, hang or drop the connection, for a count or a duration. Set them at
//! start (`--fault SPEC`), over the local admin route (`/_sandbox/faults`, `http/admin.rs`), or from
//! tests. The errors the faults answer with are in `errors.rs`.

pub mod errors;

use parking_lot::Mutex;
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::sandbox::world::clock::now_epoch;

/// What an injected fault does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FaultKind {
    /// ThrottlingException (400).
    Throttle,
    /// InternalFailure (500).
    InternalFailure,
    /// ServiceUnavailable (503).
    ServiceUnavailable,
    /// ModelError (424) carrying the container's status and message.
    ModelError {
        /// OriginalStatusCode.
        status: u16,
        /// OriginalMessage (a default is used when absent).
        #[serde(default)]
        message: Option<String>,
    },
    /// ModelNotReadyException (429).
    ModelNotReady,
    /// The normal answer, after an extra delay.
    Slow {
        /// Extra delay in milliseconds.
        ms: u64,
    },
    /// No answer at all (until the client gives up).
    Hang,
    /// The connection is cut before the response completes.
    Drop,
    /// ExpiredTokenException: the caller's session credentials have expired.
    ExpiredToken,
    /// UpdateEndpoint is accepted, then the deployment fails and rolls back: Updating →
    /// RollingBack → InService on the previous configuration with FailureReason set.
    DeploymentFailure {
        /// FailureReason (a default health-check failure text when absent).
        #[serde(default)]
        message: Option<String>,
    },
    /// UpdateEndpoint is accepted, the deployment fails at its first bake and its rollback fails
    /// part-way: UpdateRollbackFailed, with instances of both configurations serving.
    RollbackFailure {
        /// Unused; kept for the short form's `message=`.
        #[serde(default)]
        message: Option<String>,
    },
    /// A TGI-style container's tool call comes back cut short (malformed JSON).
    MalformedToolCall,
    /// A TGI-style container's tool call names a tool that was not offered.
    UnknownTool,
    /// An asynchronous endpoint's queued request expires when an instance would take it, as
    /// if its RequestTTLSeconds had passed (operation `AsyncQueue`, the queue's own).
    QueueExpiry,
}

impl FaultKind {
    /// The model fault this kind injects into a generator's answer, if it is one.
    pub fn llm_fault(&self) -> Option<crate::sandbox::world::containers::llm::LlmFault> {
        match self {
            FaultKind::MalformedToolCall => Some(crate::sandbox::world::containers::llm::LlmFault::MalformedToolCall),
            FaultKind::UnknownTool => Some(crate::sandbox::world::containers::llm::LlmFault::UnknownTool),
            _ => None,
        }
    }
}

/// One fault rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FaultSpec {
    /// Endpoint it applies to (absent or `*` = every endpoint).
    #[serde(default)]
    pub endpoint: Option<String>,
    /// Variant it applies to (runtime only; absent = every variant).
    #[serde(default)]
    pub variant: Option<String>,
    /// Operation it applies to (default `InvokeEndpoint`, which also covers the streaming call;
    /// a control-plane operation such as `DescribeEndpoint`; `*` = all).
    #[serde(default)]
    pub operation: Option<String>,
    /// What it does.
    pub kind: FaultKind,
    /// How many matching requests it affects (absent = unlimited).
    #[serde(default)]
    pub count: Option<u32>,
    /// For how many seconds from now it applies (absent = until removed).
    #[serde(default)]
    pub duration_secs: Option<f64>,
    /// Probability that a matching request is affected (default 1).
    #[serde(default)]
    pub probability: Option<f64>,
}

impl FaultSpec {
    /// Parses the short form used on the command line:
    /// `kind=throttle,endpoint=NAME,variant=V,operation=OP,count=N,duration=30s,probability=0.5,
    /// status=500,message=TEXT,ms=2000`.
    pub fn parse_short(spec: &str) -> Result<FaultSpec, String> {
        let mut kind = None;
        let mut f = FaultSpec {
            endpoint: None,
            variant: None,
            operation: None,
            kind: FaultKind::Throttle,
            count: None,
            duration_secs: None,
            probability: None,
        };
        let (mut status, mut message, mut ms) = (None, None, None);
        for part in spec.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("fault spec part `{part}` is not key=value"))?;
            let bad = |what: &str| format!("fault spec: `{v}` is not a valid {what} for `{k}`");
            match k.trim() {
                "kind" | "type" => kind = Some(v.trim().to_string()),
                "endpoint" => f.endpoint = Some(v.to_string()),
                "variant" => f.variant = Some(v.to_string()),
                "operation" | "op" => f.operation = Some(v.to_string()),
                "count" => f.count = Some(v.parse().map_err(|_| bad("count"))?),
                "duration" => {
                    let secs = v.strip_suffix('s').unwrap_or(v);
                    f.duration_secs = Some(secs.parse().map_err(|_| bad("duration in seconds"))?);
                }
                "probability" | "p" => f.probability = Some(v.parse().map_err(|_| bad("probability"))?),
                "status" => status = Some(v.parse::<u16>().map_err(|_| bad("HTTP status"))?),
                "message" => message = Some(v.to_string()),
                "ms" => ms = Some(v.parse::<u64>().map_err(|_| bad("millisecond count"))?),
                other => return Err(format!("fault spec: unknown key `{other}`")),
            }
        }
        f.kind = match kind.as_deref() {
            Some("throttle") | Some("throttling") => FaultKind::Throttle,
            Some("500") | Some("internal") | Some("internal_failure") => FaultKind::InternalFailure,
            Some("503") | Some("unavailable") | Some("service_unavailable") => FaultKind::ServiceUnavailable,
            Some("model_error") | Some("model") => FaultKind::ModelError {
                status: status.unwrap_or(500),
                message,
            },
            Some("not_ready") | Some("model_not_ready") => FaultKind::ModelNotReady,
            Some("slow") => FaultKind::Slow { ms: ms.unwrap_or(2000) },
            Some("hang") => FaultKind::Hang,
            Some("drop") => FaultKind::Drop,
            Some("expired_token") | Some("expired") => FaultKind::ExpiredToken,
            Some("deployment_failure") | Some("deploy_fail") => {
                f.operation.get_or_insert_with(|| "UpdateEndpoint".to_string());
                FaultKind::DeploymentFailure { message }
            }
            Some("rollback_failure") | Some("update_rollback_failed") => {
                f.operation.get_or_insert_with(|| "UpdateEndpoint".to_string());
                FaultKind::RollbackFailure { message }
            }
            Some("malformed_tool_call") | Some("malformed") => FaultKind::MalformedToolCall,
            Some("unknown_tool") => FaultKind::UnknownTool,
            Some("queue_expiry") => {
                f.operation.get_or_insert_with(|| "AsyncQueue".to_string());
                FaultKind::QueueExpiry
            }
            Some(other) => {
                return Err(format!(
                    "fault spec: unknown kind `{other}` (throttle, internal, unavailable, model_error, not_ready, slow, hang, drop, expired_token, deployment_failure, rollback_failure, malformed_tool_call, unknown_tool, queue_expiry)"
                ));
            }
            None => return Err("fault spec needs kind=...".into()),
        };
        Ok(f)
    }

    fn matches(&self, operation: &str, endpoint: Option<&str>, variant: Option<&str>) -> bool {
        let op_ok = match self.operation.as_deref() {
            None => operation == "InvokeEndpoint",
            Some("*") => true,
            Some(op) => op == operation,
        };
        let ep_ok = match self.endpoint.as_deref() {
            None | Some("*") => true,
            Some(name) => endpoint == Some(name),
        };
        let var_ok = match self.variant.as_deref() {
            None | Some("*") => true,
            Some(name) => variant == Some(name),
        };
        op_ok && ep_ok && var_ok
    }
}

#[derive(Debug, Clone, Serialize)]
struct ActiveFault {
    id: u64,
    #[serde(flatten)]
    spec: FaultSpec,
    /// Remaining count (None = unlimited).
    remaining: Option<u32>,
    /// Expiry in epoch seconds.
    until: Option<f64>,
    /// How many requests it has affected.
    hits: u64,
}

/// The active fault rules.
#[derive(Default)]
pub struct Faults {
    rules: Mutex<Vec<ActiveFault>>,
    next_id: std::sync::atomic::AtomicU64,
}

impl Faults {
    /// Adds a rule and returns its id.
    pub fn add(&self, spec: FaultSpec) -> u64 {
        let id = self.next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let until = spec.duration_secs.map(|d| now_epoch() + d);
        let remaining = spec.count;
        self.rules.lock().push(ActiveFault {
            id,
            spec,
            remaining,
            until,
            hits: 0,
        });
        id
    }

    /// Removes every rule.
    pub fn clear(&self) {
        self.rules.lock().clear();
    }

    /// Removes one rule; false when there was none with that id.
    pub fn remove(&self, id: u64) -> bool {
        let mut rules = self.rules.lock();
        let before = rules.len();
        rules.retain(|r| r.id != id);
        rules.len() != before
    }

    /// The first rule that fires for this request, consuming one of its count.
    pub fn take(&self, operation: &str, endpoint: Option<&str>, variant: Option<&str>) -> Option<FaultKind> {
        let mut rules = self.rules.lock();
        if rules.is_empty() {
            return None;
        }
        let now = now_epoch();
        // Expired rules go; used-up ones stay listed (with their hits) but no longer fire.
        rules.retain(|r| r.until.is_none_or(|u| u > now));
        for r in rules.iter_mut() {
            if r.remaining == Some(0) || !r.spec.matches(operation, endpoint, variant) {
                continue;
            }
            let p = r.spec.probability.unwrap_or(1.0);
            if p < 1.0 && rand::rng().random::<f64>() >= p {
                continue;
            }
            if let Some(n) = r.remaining.as_mut() {
                *n -= 1;
            }
            r.hits += 1;
            return Some(r.spec.kind.clone());
        }
        None
    }

    /// The rules as JSON (the admin route's listing).
    pub fn list_json(&self) -> serde_json::Value {
        serde_json::to_value(&*self.rules.lock()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_form_parses_and_counts_down() {
        let f = FaultSpec::parse_short("kind=model_error,status=400,endpoint=a,count=2").unwrap();
        assert_eq!(
            f.kind,
            FaultKind::ModelError {
                status: 400,
                message: None
            }
        );
        let faults = Faults::default();
        faults.add(f);
        assert!(faults.take("InvokeEndpoint", Some("b"), None).is_none());
        assert!(faults.take("InvokeEndpoint", Some("a"), None).is_some());
        assert!(faults.take("InvokeEndpoint", Some("a"), None).is_some());
        assert!(faults.take("InvokeEndpoint", Some("a"), None).is_none());
        assert!(FaultSpec::parse_short("kind=nope").is_err());
        let f = FaultSpec::parse_short("kind=malformed_tool_call,endpoint=llm").unwrap();
        assert_eq!(
            f.kind.llm_fault(),
            Some(crate::sandbox::world::containers::llm::LlmFault::MalformedToolCall)
        );
        let f = FaultSpec::parse_short("kind=unknown_tool").unwrap();
        assert_eq!(
            f.kind.llm_fault(),
            Some(crate::sandbox::world::containers::llm::LlmFault::UnknownTool)
        );
        assert_eq!(FaultKind::Throttle.llm_fault(), None);
        assert!(FaultSpec::parse_short("count=3").is_err());
    }

    #[test]
    fn operation_scoping() {
        let faults = Faults::default();
        faults.add(FaultSpec::parse_short("kind=throttle,operation=DescribeEndpoint").unwrap());
        assert!(faults.take("InvokeEndpoint", Some("a"), None).is_none());
        assert_eq!(
            faults.take("DescribeEndpoint", Some("a"), None),
            Some(FaultKind::Throttle)
        );
    }
}
