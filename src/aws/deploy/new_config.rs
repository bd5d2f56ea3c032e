//! The configuration a deployment goes onto: a named one (`--config`), or one written for it
//! (`--model VARIANT=MODEL`: the live configuration copied whole with that variant's model
//! replaced, named from the old one and the time). And the facts the checks and the schedule
//! read from the endpoint and both configurations.

use std::sync::atomic::AtomicUsize;

use aws_sdk_sagemaker::operation::RequestId;
use aws_sdk_sagemaker::operation::create_endpoint_config::builders::CreateEndpointConfigFluentBuilder;
use aws_sdk_sagemaker::operation::describe_endpoint_config::DescribeEndpointConfigOutput;
use aws_sdk_sagemaker::types::ProductionVariant;
use serde_json::json;

use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::Audited;
use crate::aws::deploy::policy::{DeployFacts, VariantFacts};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::{AwsError, Fleet};

/// Longest endpoint configuration name AWS takes.
const MAX_CONFIG_NAME: usize = 63;

/// `--model VARIANT=MODEL`: the variant whose model is replaced, and the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSwap {
    /// Variant name.
    pub variant: String,
    /// The new model's name.
    pub model: String,
}

impl ModelSwap {
    /// Parses `VARIANT=MODEL`.
    pub fn parse(text: &str) -> Result<ModelSwap, String> {
        match text.split_once('=') {
            Some((v, m)) if !v.trim().is_empty() && !m.trim().is_empty() => Ok(ModelSwap {
                variant: v.trim().to_string(),
                model: m.trim().to_string(),
            }),
            _ => Err(format!("--model `{text}` is not VARIANT=MODEL")),
        }
    }
}

/// The name of a configuration written from `old` at `stamp` (`20261204174658`): the old name
/// without an earlier stamp, cut to fit, then `-STAMP`.
pub fn derived_config_name(old: &str, stamp: &str) -> String {
    let base = match old.rsplit_once('-') {
        Some((head, tail)) if tail.len() == 14 && tail.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => old,
    };
    let room = MAX_CONFIG_NAME - stamp.len() - 1;
    let base: String = base.chars().take(room).collect();
    format!("{}-{stamp}", base.trim_end_matches('-'))
}

/// A name for a configuration written from `old` now ([`derived_config_name`] at
/// [`stamp_now`]). When `old` was itself written this second, the name would be `old` again
/// (CreateEndpointConfig refuses it), so this waits for the clock's next second.
pub async fn fresh_config_name(old: &str) -> String {
    loop {
        let name = derived_config_name(old, &stamp_now());
        if name != old {
            return name;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Now as `YYYYMMDDHHMMSS` (UTC).
pub fn stamp_now() -> String {
    let now = aws_smithy_types::DateTime::from(std::time::SystemTime::now());
    now.fmt(aws_smithy_types::date_time::Format::DateTime)
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .take(14)
        .collect()
}

/// The variants of `config` with `swap`'s variant running its model; Err when the variant is not
/// there.
pub fn swapped_variants(
    config: &DescribeEndpointConfigOutput,
    swap: &ModelSwap,
) -> Result<Vec<ProductionVariant>, String> {
    let variants = config.production_variants();
    if !variants.iter().any(|v| v.variant_name() == Some(swap.variant.as_str())) {
        let names: Vec<&str> = variants.iter().filter_map(|v| v.variant_name()).collect();
        return Err(format!(
            "--model: no variant {} in {} (it has {})",
            swap.variant,
            config.endpoint_config_name().unwrap_or("the configuration"),
            names.join(", ")
        ));
    }
    Ok(variants
        .iter()
        .map(|v| {
            let mut v = v.clone();
            if v.variant_name() == Some(swap.variant.as_str()) {
                v.model_name = Some(swap.model.clone());
            }
            v
        })
        .collect())
}

/// The facts of one configuration's variants; with `live`, same-named variants keep the live
/// instance counts (RetainAllVariantProperties).
async fn variant_facts(
    fleet: &Fleet,
    variants: &[ProductionVariant],
    live: Option<&EndpointInfo>,
) -> Result<Vec<VariantFacts>, AwsError> {
    let mut out = Vec::new();
    for v in variants {
        let name = v.variant_name().unwrap_or_default().to_string();
        let kept = live.and_then(|i| i.variant(&name)).map(|l| l.current_instances);
        let marketplace = match v.model_name() {
            Some(m) => fleet.model_is_marketplace(m).await?,
            None => false,
        };
        out.push(VariantFacts {
            instance_type: v.instance_type().map(|t| t.as_str().to_string()),
            instances: kept.or(v.initial_instance_count()).unwrap_or(0),
            serverless: v.serverless_config().is_some(),
            marketplace,
            name,
        });
    }
    Ok(out)
}

impl Fleet {
    /// Whether `model` runs an AWS Marketplace model package.
    async fn model_is_marketplace(&self, model: &str) -> Result<bool, AwsError> {
        let out = self
            .sagemaker
            .describe_model()
            .model_name(model)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let mut containers = out.primary_container().into_iter().chain(out.containers());
        Ok(containers.any(|c| {
            c.model_package_name().is_some_and(|p| p.contains("aws-marketplace"))
                || c.image().is_some_and(|i| i.contains("marketplace"))
        }))
    }

    /// The facts of deploying `info` onto `new_variants` (configuration `new_config`).
    pub async fn deploy_facts(
        &self,
        info: &EndpointInfo,
        new_config: &str,
        new_variants: &[ProductionVariant],
        retain_all: bool,
    ) -> Result<DeployFacts, AwsError> {
        let current_config = info.config_name.clone().unwrap_or_default();
        let calls = AtomicUsize::new(0);
        let live = self.endpoint_config(&current_config, &calls).await?;
        let mut current = variant_facts(self, live.production_variants(), Some(info)).await?;
        for v in &mut current {
            v.marketplace = false;
        }
        let new = variant_facts(self, new_variants, retain_all.then_some(info)).await?;
        Ok(DeployFacts {
            endpoint: info.name.clone(),
            current_config,
            new_config: new_config.to_string(),
            current,
            new,
        })
    }

    /// The CreateEndpointConfig request of `name`: `from` copied whole with `variants` in place
    /// of its production variants (also what scale to zero writes for a variant's
    /// ManagedInstanceScaling).
    pub fn derived_config_request(
        &self,
        from: &DescribeEndpointConfigOutput,
        name: &str,
        variants: Vec<ProductionVariant>,
    ) -> CreateEndpointConfigFluentBuilder {
        let shadows = from.shadow_production_variants().to_vec();
        self.sagemaker
            .create_endpoint_config()
            .endpoint_config_name(name)
            .set_production_variants(Some(variants))
            .set_data_capture_config(from.data_capture_config().cloned())
            .set_kms_key_id(from.kms_key_id().map(str::to_string))
            .set_async_inference_config(from.async_inference_config().cloned())
            .set_explainer_config(from.explainer_config().cloned())
            .set_shadow_production_variants((!shadows.is_empty()).then_some(shadows))
            .set_execution_role_arn(from.execution_role_arn().map(str::to_string))
            .set_vpc_config(from.vpc_config().cloned())
            .set_enable_network_isolation(from.enable_network_isolation())
            .set_metrics_config(from.metrics_config().cloned())
    }

    /// Writes the configuration `name`: `from` copied whole with `variants` in place of its
    /// production variants. Audited (intent first, nothing sent when it cannot be written).
    pub async fn create_derived_config(
        &self,
        from: &DescribeEndpointConfigOutput,
        name: &str,
        variants: Vec<ProductionVariant>,
        audited: &Audited,
        reason: Option<String>,
    ) -> Result<(), crate::aws::deploy::send::DeployError> {
        let models: Vec<_> = variants
            .iter()
            .map(|v| json!({"variant": v.variant_name(), "model": v.model_name()}))
            .collect();
        let pending = audited
            .intent(Mutation {
                action: "deploy.config".into(),
                target: name.to_string(),
                before: json!({ "copied_from": from.endpoint_config_name() }),
                after: json!({ "endpoint_config": name, "variants": models }),
                reason,
            })
            .await?;
        let sent = self.derived_config_request(from, name, variants).send().await;
        match sent {
            Ok(out) => {
                let _ = audited.finish(&pending, Ok(out.request_id().map(str::to_string)));
                Ok(())
            }
            Err(e) => {
                let err = AwsError::from_sdk(e);
                let _ = audited.finish(&pending, Err(err.to_string()));
                Err(err.into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_derived_name_replaces_an_earlier_stamp_and_fits() {
        assert_eq!(derived_config_name("cfg-v1", "20261204174658"), "cfg-v1-20261204174658");
        assert_eq!(
            derived_config_name("cfg-v1-20261204174658", "20261205000000"),
            "cfg-v1-20261205000000"
        );
        let long = "x".repeat(80);
        assert_eq!(derived_config_name(&long, "20261204174658").len(), 63);
    }
}
