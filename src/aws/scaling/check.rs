//! Reading what the autoscaling lint needs: an endpoint's variants, its scalable targets and
//! policies (in full, as [`PolicySpec`]s), and ListMetrics answers for every metric the policies
//! name; then linting it.

use std::sync::atomic::AtomicUsize;

use aws_sdk_applicationautoscaling::types::ServiceNamespace;
use aws_sdk_cloudwatch::types::DimensionFilter;
use serde::Serialize;

use crate::aws::config::Fleet;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::error::AwsError;
use crate::aws::scaling::lint::{Finding, LintInput, MetricCheck, TargetBounds, lint, lint_request, metrics_of};
use crate::aws::scaling::spec::{MetricRef, PolicySpec, split_variant_resource, variant_resource_id};

/// The result of a check.
#[derive(Debug, Clone, Serialize)]
pub struct ScalingCheck {
    /// Endpoint.
    pub endpoint: String,
    /// Policies checked.
    pub policies_checked: usize,
    /// Scalable targets checked.
    pub targets_checked: usize,
    /// What is wrong (empty: nothing).
    pub findings: Vec<Finding>,
}

/// The autoscaling state of one endpoint as the lint and the change commands see it.
#[derive(Debug, Clone)]
pub struct EndpointScaling {
    /// The endpoint.
    pub info: EndpointInfo,
    /// Scalable targets of its variants.
    pub targets: Vec<TargetBounds>,
    /// Policies of its variants.
    pub policies: Vec<PolicySpec>,
}

impl EndpointScaling {
    /// The policies of one variant.
    pub fn policies_of<'a>(&'a self, variant: &'a str) -> impl Iterator<Item = &'a PolicySpec> + 'a {
        self.policies.iter().filter(move |p| p.variant() == Some(variant))
    }

    /// What the lint looks at: this state and the ListMetrics answers for its policies.
    pub fn lint_input(&self, metrics: Vec<MetricCheck>) -> LintInput {
        LintInput {
            endpoint: self.info.name.clone(),
            variants: self
                .info
                .variants
                .iter()
                .map(|v| (v.name.clone(), v.desired_instances))
                .collect(),
            targets: self.targets.clone(),
            policies: self.policies.clone(),
            metrics,
            asynchronous: self.info.kind.is_async(),
        }
    }

    /// The scalable target of one variant.
    pub fn target_of(&self, variant: &str) -> Option<&TargetBounds> {
        self.targets.iter().find(|t| t.variant == variant)
    }
}

impl Fleet {
    /// The endpoint, its variants' scalable targets and their policies in full.
    pub async fn endpoint_scaling(&self, endpoint: &str) -> Result<EndpointScaling, AwsError> {
        let info = self.describe_endpoint_info(endpoint, &AtomicUsize::new(0)).await?;
        let ids: Vec<String> = info
            .variants
            .iter()
            .map(|v| variant_resource_id(endpoint, &v.name))
            .collect();
        let mut targets = Vec::new();
        let mut token = None;
        loop {
            let page = self
                .autoscaling
                .describe_scalable_targets()
                .service_namespace(ServiceNamespace::Sagemaker)
                .set_resource_ids(Some(ids.clone()))
                .set_next_token(token)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            targets.extend(page.scalable_targets().iter().filter_map(|t| {
                let (e, v) = split_variant_resource(t.resource_id())?;
                (e == endpoint).then(|| TargetBounds {
                    variant: v.to_string(),
                    min: t.min_capacity(),
                    max: t.max_capacity(),
                })
            }));
            token = page.next_token().map(str::to_string);
            if token.is_none() {
                break;
            }
        }
        let mut policies = Vec::new();
        for id in &ids {
            let mut token = None;
            loop {
                let page = self
                    .autoscaling
                    .describe_scaling_policies()
                    .service_namespace(ServiceNamespace::Sagemaker)
                    .resource_id(id)
                    .set_next_token(token)
                    .send()
                    .await
                    .map_err(AwsError::from_sdk)?;
                policies.extend(page.scaling_policies().iter().map(PolicySpec::from_sdk));
                token = page.next_token().map(str::to_string);
                if token.is_none() {
                    break;
                }
            }
        }
        Ok(EndpointScaling {
            info,
            targets,
            policies,
        })
    }

    /// Metrics listed by ListMetrics under `namespace` (any when `None`) with this name and
    /// exactly these dimensions: their namespaces.
    async fn listed_namespaces(&self, namespace: Option<&str>, m: &MetricRef) -> Result<Vec<String>, AwsError> {
        let mut out = Vec::new();
        let mut token = None;
        loop {
            let mut req = self
                .cloudwatch
                .list_metrics()
                .set_namespace(namespace.map(str::to_string))
                .metric_name(&m.metric_name);
            for d in &m.dimensions {
                req = req.dimensions(DimensionFilter::builder().name(&d.name).value(&d.value).build());
            }
            let page = req.set_next_token(token).send().await.map_err(AwsError::from_sdk)?;
            for listed in page.metrics() {
                let exact = listed.dimensions().len() == m.dimensions.len();
                if let (true, Some(ns)) = (exact, listed.namespace())
                    && !out.iter().any(|o| o == ns)
                {
                    out.push(ns.to_string());
                }
            }
            token = page.next_token().map(str::to_string);
            if token.is_none() {
                return Ok(out);
            }
        }
    }

    /// ListMetrics answers for every metric `policies` name (each metric asked once).
    pub async fn metric_checks(&self, policies: &[&PolicySpec]) -> Result<Vec<MetricCheck>, AwsError> {
        let mut out: Vec<MetricCheck> = Vec::new();
        for p in policies {
            let Some(tt) = &p.target_tracking_scaling_policy_configuration else {
                continue;
            };
            for m in metrics_of(tt) {
                if m.metric.metric_name.is_empty() || out.iter().any(|c| c.metric == m.metric) {
                    continue;
                }
                let listed = !m.metric.namespace.is_empty()
                    && !self
                        .listed_namespaces(Some(&m.metric.namespace), &m.metric)
                        .await?
                        .is_empty();
                let elsewhere = if listed {
                    Vec::new()
                } else {
                    self.listed_namespaces(None, &m.metric).await?
                };
                out.push(MetricCheck {
                    metric: m.metric,
                    listed,
                    elsewhere,
                });
            }
        }
        Ok(out)
    }

    /// Lints the autoscaling of `endpoint`, or, with `request`, that PutScalingPolicy request
    /// against it (nothing is sent).
    pub async fn check_scaling(&self, endpoint: &str, request: Option<&PolicySpec>) -> Result<ScalingCheck, AwsError> {
        let s = self.endpoint_scaling(endpoint).await?;
        let mut named: Vec<&PolicySpec> = s.policies.iter().collect();
        named.extend(request);
        let metrics = self.metric_checks(&named).await?;
        let input = s.lint_input(metrics);
        let (findings, policies_checked) = match request {
            Some(r) => (lint_request(&input, r), 1),
            None => (lint(&input), s.policies.len()),
        };
        Ok(ScalingCheck {
            endpoint: endpoint.to_string(),
            policies_checked,
            targets_checked: s.targets.len(),
            findings,
        })
    }
}
