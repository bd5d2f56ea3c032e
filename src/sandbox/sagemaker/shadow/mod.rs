//! Shadow variants in the control plane: CreateEndpointConfig's `ShadowProductionVariants` (one
//! production variant and one shadow), the shadow's live variant built beside the endpoint's at
//! CreateEndpoint, and `DescribeEndpoint.ShadowProductionVariants`, which follows an
//! UpdateEndpoint to a configuration whose shadow differs (removed, replaced, or added) once the
//! deployment puts it in service.
//!
//! The shadow receives a sampled copy of production traffic (`runtime/shadow.rs`): the share is
//! the shadow's InitialVariantWeight over the production variant's, at most 1 (a sandbox reading
//! of AWS's "traffic sampling percentage", UNVERIFIED). The refusal texts are the sandbox's.

use serde_json::Value;

use crate::sandbox::cloudwatch::metrics::MetricStore;
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::config::SandboxConfig;
use crate::sandbox::world::resources::{ConfigVariant, EndpointConfig};
use crate::sandbox::world::state::World;

/// One production variant and at most one shadow, neither serverless nor hosting components.
pub fn check_config(production: &[ConfigVariant], shadows: &[ConfigVariant]) -> Result<(), ApiError> {
    if shadows.is_empty() {
        return Ok(());
    }
    if production.len() != 1 || shadows.len() != 1 {
        return Err(ApiError::validation(format!(
            "An endpoint configuration with shadow variants must have exactly one production variant and one shadow variant (got {} and {}).",
            production.len(),
            shadows.len()
        )));
    }
    if let Some(v) = production.iter().chain(shadows).find(|v| v.model_name.is_empty()) {
        return Err(ApiError::validation(format!(
            "Variant \"{}\" has no ModelName: shadow variants cannot be used with inference components.",
            v.name
        )));
    }
    Ok(())
}

/// Builds (or clears) the live shadow variants of endpoint `name` on `config`.
pub fn register(
    world: &mut World,
    (settings, metrics): (&SandboxConfig, &MetricStore),
    name: &str,
    config: &EndpointConfig,
    now: f64,
) {
    if config.shadow_variants.is_empty() {
        world.shadows.remove(name);
        return;
    }
    let as_config = EndpointConfig {
        variants: config.shadow_variants.clone(),
        shadow_variants: Vec::new(),
        ..config.clone()
    };
    let mut variants = world.variants_for((settings, metrics), name, &as_config, now);
    for v in &mut variants {
        v.statuses.clear();
    }
    world.shadows.insert(name.to_string(), variants);
}

/// Endpoint `name` went from configuration `before` to `after` (an UpdateEndpoint that
/// completed): its live shadow is built again from `after` when the shadows differ; an
/// unchanged shadow keeps its instances and series.
pub fn follow(
    world: &mut World,
    (settings, metrics): (&SandboxConfig, &MetricStore),
    name: &str,
    (before, after): (&str, &str),
    now: f64,
) {
    let Some(after) = world.configs.get(after).cloned() else {
        return;
    };
    let unchanged = world
        .configs
        .get(before)
        .is_some_and(|b| b.shadow_variants == after.shadow_variants);
    let missing = !world.shadows.contains_key(name) && !after.shadow_variants.is_empty();
    if !unchanged || missing {
        register(world, (settings, metrics), name, &after, now);
    }
}

/// The share of production traffic the shadow `shadow_weight` is sent (0..=1).
pub fn sampled_share(production_weight: f64, shadow_weight: f64) -> f64 {
    if production_weight <= 0.0 {
        return 0.0;
    }
    (shadow_weight / production_weight).clamp(0.0, 1.0)
}

/// DescribeEndpoint's ShadowProductionVariants: each shadow's summary as `summary` renders it.
pub fn summaries(
    world: &World,
    endpoint: &str,
    summary: impl Fn(&crate::sandbox::world::state::Variant) -> Value,
) -> Option<Value> {
    let shadows = world.shadows.get(endpoint)?;
    Some(Value::Array(shadows.iter().map(summary).collect()))
}
