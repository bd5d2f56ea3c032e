//! A serverless variant's concurrency changed in place: MaxConcurrency and
//! ProvisionedConcurrency through UpdateEndpointWeightsAndCapacities' `ServerlessUpdateConfig`.
//! Planned and checked locally (1–200, provisioned at most max), then sent as every guarded
//! change is: described again right before sending and refused when the variant is not as it
//! was seen (compare-and-swap), the intent written to the audit log first, the result after,
//! and the desired configuration read back (another writer's change landing with it is a lost
//! race).

use std::sync::atomic::AtomicUsize;

use aws_sdk_sagemaker::operation::RequestId;
use aws_sdk_sagemaker::types::{DesiredWeightAndCapacity, ProductionVariantServerlessUpdateConfig};
use serde::Serialize;
use serde_json::json;

use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::{Applied, Audited, Difference, GuardError};
use crate::aws::config::Fleet;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::endpoints::shape::ServerlessInfo;
use crate::aws::error::AwsError;

/// The bounds AWS accepts for MaxConcurrency and ProvisionedConcurrency.
pub const CONCURRENCY_RANGE: std::ops::RangeInclusive<i32> = 1..=200;

/// A validated change of a serverless variant's concurrency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerlessPlan {
    /// Endpoint.
    pub endpoint: String,
    /// Variant.
    pub variant: String,
    /// The variant as seen (current and desired); it must still be so when the change is sent.
    pub before: ServerlessInfo,
    /// MaxConcurrency to send.
    pub max_concurrency: i32,
    /// ProvisionedConcurrency to send (None: left as it is).
    pub provisioned: Option<i32>,
}

impl ServerlessPlan {
    /// `max 10 → 20, provisioned 2 → 5` (the parts that change).
    pub fn text(&self) -> String {
        let mut parts = vec![format!(
            "max {} → {}",
            self.before.desired_max_concurrency, self.max_concurrency
        )];
        if let Some(p) = self.provisioned {
            let was = self
                .before
                .desired_provisioned
                .map_or("none".to_string(), |n| n.to_string());
            parts.push(format!("provisioned {was} → {p}"));
        }
        format!("{}/{}: {}", self.endpoint, self.variant, parts.join(", "))
    }
}

/// Checks a change of `variant` (the endpoint's only serverless variant when None) against the
/// endpoint as seen: a serverless variant, values in range, provisioned at most max, something
/// given.
pub fn plan_serverless(
    info: &EndpointInfo,
    variant: Option<&str>,
    max_concurrency: Option<i32>,
    provisioned: Option<i32>,
) -> Result<ServerlessPlan, String> {
    if max_concurrency.is_none() && provisioned.is_none() {
        return Err("give --max-concurrency and/or --provisioned".into());
    }
    let serverless: Vec<_> = info.variants.iter().filter(|v| v.serverless.is_some()).collect();
    let v = match variant {
        Some(name) => info
            .variant(name)
            .ok_or_else(|| format!("endpoint {} has no variant {name}", info.name))?,
        None => match serverless.as_slice() {
            [one] => *one,
            [] => return Err(format!("endpoint {} has no serverless variant", info.name)),
            _ => {
                return Err(format!(
                    "endpoint {} has several serverless variants: name one with --variant",
                    info.name
                ));
            }
        },
    };
    let Some(before) = v.serverless.clone() else {
        return Err(format!(
            "variant {} of {} is instance-backed: change its instances with `sagedeck weights {} --instances {}=N`",
            v.name, info.name, info.name, v.name
        ));
    };
    let max = max_concurrency.unwrap_or(before.desired_max_concurrency);
    for (what, n) in [("--max-concurrency", Some(max)), ("--provisioned", provisioned)] {
        if let Some(n) = n.filter(|n| !CONCURRENCY_RANGE.contains(n)) {
            return Err(format!("{what} must be between 1 and 200 (got {n})"));
        }
    }
    let effective_provisioned = provisioned.or(before.desired_provisioned);
    if let Some(p) = effective_provisioned.filter(|p| *p > max) {
        return Err(format!("provisioned concurrency {p} is above max concurrency {max}"));
    }
    Ok(ServerlessPlan {
        endpoint: info.name.clone(),
        variant: v.name.clone(),
        before,
        max_concurrency: max,
        provisioned,
    })
}

/// Where the variant's serverless figures differ from `seen` (the endpoint must be InService).
fn differences(plan: &ServerlessPlan, info: &EndpointInfo) -> Vec<Difference> {
    let diff = |field: &str, expected: String, actual: String| Difference {
        variant: plan.variant.clone(),
        field: field.to_string(),
        expected,
        actual,
    };
    let mut out = Vec::new();
    if info.status != "InService" {
        out.push(Difference {
            variant: String::new(),
            field: "status".into(),
            expected: "InService".into(),
            actual: info.status.clone(),
        });
    }
    let Some(now) = info.variant(&plan.variant).and_then(|v| v.serverless.clone()) else {
        out.push(diff("serverless", "present".into(), "missing".into()));
        return out;
    };
    let opt = |n: Option<i32>| n.map_or("none".to_string(), |n| n.to_string());
    let seen = &plan.before;
    let fields = [
        ("max_concurrency", Some(seen.max_concurrency), Some(now.max_concurrency)),
        (
            "desired_max_concurrency",
            Some(seen.desired_max_concurrency),
            Some(now.desired_max_concurrency),
        ),
        ("provisioned", seen.provisioned, now.provisioned),
        ("desired_provisioned", seen.desired_provisioned, now.desired_provisioned),
    ];
    for (field, want, got) in fields {
        if want != got {
            out.push(diff(field, opt(want), opt(got)));
        }
    }
    out
}

/// Where the endpoint, read right after the change was accepted, does not want what was asked.
fn lost(plan: &ServerlessPlan, info: &EndpointInfo) -> Vec<Difference> {
    let Some(now) = info.variant(&plan.variant).and_then(|v| v.serverless.clone()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut check = |field: &str, asked: i32, got: Option<i32>| {
        if got != Some(asked) {
            out.push(Difference {
                variant: plan.variant.clone(),
                field: field.to_string(),
                expected: asked.to_string(),
                actual: got.map_or("none".to_string(), |n| n.to_string()),
            });
        }
    };
    check(
        "desired_max_concurrency",
        plan.max_concurrency,
        Some(now.desired_max_concurrency),
    );
    if let Some(p) = plan.provisioned {
        check("desired_provisioned", p, now.desired_provisioned);
    }
    out
}

impl Fleet {
    /// Sends `plan` only if the variant is still as it was seen, with an intent line before and a
    /// result line after in `audited`'s log under `action` (see the module docs).
    pub async fn apply_serverless_guarded(
        &self,
        plan: &ServerlessPlan,
        audited: &Audited,
        action: &str,
        reason: Option<String>,
    ) -> Result<Applied, GuardError> {
        let _lock = audited.audit.lock_exclusive().await?;
        let calls = AtomicUsize::new(0);
        let info = self.describe_endpoint_info(&plan.endpoint, &calls).await?;
        let differences = differences(plan, &info);
        if !differences.is_empty() {
            let err = GuardError::Changed {
                endpoint: plan.endpoint.clone(),
                differences,
            };
            audited.refused(action, &plan.endpoint, &err.to_string(), reason);
            return Err(err);
        }
        let pending = audited.intent(Mutation {
            action: action.to_string(),
            target: format!("{}/{}", plan.endpoint, plan.variant),
            before: json!({ "variant": plan.variant, "serverless": plan.before }),
            after: json!({ "variant": plan.variant, "max_concurrency": plan.max_concurrency, "provisioned": plan.provisioned }),
            reason,
        }).await?;
        let update = ProductionVariantServerlessUpdateConfig::builder()
            .max_concurrency(plan.max_concurrency)
            .set_provisioned_concurrency(plan.provisioned)
            .build();
        let sent = self
            .sagemaker
            .update_endpoint_weights_and_capacities()
            .endpoint_name(&plan.endpoint)
            .desired_weights_and_capacities(
                DesiredWeightAndCapacity::builder()
                    .variant_name(&plan.variant)
                    .serverless_update_config(update)
                    .build(),
            )
            .send()
            .await;
        let out = match sent {
            Ok(out) => out,
            Err(e) => {
                let rid = e.request_id().map(str::to_string);
                let err = AwsError::from_sdk(e);
                let text = rid.map_or(err.to_string(), |r| format!("{err} (request id {r})"));
                let _ = audited.audit.finish(&pending, Err(text));
                return Err(GuardError::Aws(err));
            }
        };
        let request_id = out.request_id().map(str::to_string);
        let lost = match self.describe_endpoint_info(&plan.endpoint, &calls).await {
            Ok(now) => lost(plan, &now),
            Err(_) => Vec::new(),
        };
        let race = (!lost.is_empty()).then(|| GuardError::LostRace {
            endpoint: plan.endpoint.clone(),
            differences: lost,
        });
        let outcome = match &race {
            None => Ok(request_id.clone()),
            Some(e) => Err(format!(
                "sent (request id {}), then {e}",
                request_id.as_deref().unwrap_or("-")
            )),
        };
        let audit_warning = audited.audit.finish(&pending, outcome).err().map(|e| e.to_string());
        if let Some(e) = race {
            return Err(e);
        }
        Ok(Applied {
            before: info,
            request_id,
            audit_warning,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aws::endpoints::inventory::VariantInfo;

    fn info(serverless: Option<ServerlessInfo>) -> EndpointInfo {
        let v = VariantInfo {
            name: "AllTraffic".into(),
            model_name: Some("m".into()),
            instance_type: None,
            routing: None,
            current_weight: 1.0,
            desired_weight: 1.0,
            traffic_share: 1.0,
            current_instances: 0,
            desired_instances: 0,
            statuses: vec![],
            image: None,
            multi_model: false,
            model_data_url: None,
            serverless,
        };
        EndpointInfo {
            name: "sls".into(),
            arn: String::new(),
            status: "InService".into(),
            failure_reason: None,
            created: 0.0,
            modified: 0.0,
            config_name: None,
            variants: vec![v],
            multi_model: false,
            kind: Default::default(),
            shape: Default::default(),
            autoscaling: vec![],
            deploying: false,
        }
    }

    fn sls(max: i32, prov: Option<i32>) -> ServerlessInfo {
        ServerlessInfo {
            memory_mb: 2048,
            max_concurrency: max,
            desired_max_concurrency: max,
            provisioned: prov,
            desired_provisioned: prov,
        }
    }

    #[test]
    fn a_plan_checks_ranges_and_provisioned_below_max() {
        let e = info(Some(sls(10, Some(2))));
        let p = plan_serverless(&e, None, Some(20), Some(5)).unwrap();
        assert_eq!(p.text(), "sls/AllTraffic: max 10 → 20, provisioned 2 → 5");
        assert!(plan_serverless(&e, None, None, None).is_err());
        assert!(
            plan_serverless(&e, None, Some(201), None)
                .unwrap_err()
                .contains("between 1 and 200")
        );
        // Lowering max below the provisioned concurrency in place is refused.
        assert!(
            plan_serverless(&e, None, Some(1), None)
                .unwrap_err()
                .contains("above max")
        );
        assert!(plan_serverless(&e, Some("Nope"), Some(5), None).is_err());
        let instances = info(None);
        assert!(
            plan_serverless(&instances, Some("AllTraffic"), Some(5), None)
                .unwrap_err()
                .contains("instance-backed")
        );
    }

    #[test]
    fn a_variant_changed_since_it_was_seen_is_a_difference() {
        let e = info(Some(sls(10, None)));
        let p = plan_serverless(&e, None, Some(20), None).unwrap();
        assert!(differences(&p, &e).is_empty());
        let moved = info(Some(sls(12, None)));
        let d = differences(&p, &moved);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].to_string(), "AllTraffic max_concurrency 10 → 12");
        let wants = info(Some(ServerlessInfo {
            desired_max_concurrency: 20,
            ..sls(10, None)
        }));
        assert!(lost(&p, &wants).is_empty());
        assert_eq!(lost(&p, &moved).len(), 1);
    }
}
