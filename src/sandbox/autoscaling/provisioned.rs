//! Autoscaling's path into a serverless variant's provisioned concurrency
//! (`sagemaker:variant:DesiredProvisionedConcurrency` on `endpoint/E/variant/V`, tracked on
//! `SageMakerVariantProvisionedConcurrencyUtilization`): the desired value read and set as
//! UpdateEndpointWeightsAndCapacities' `ServerlessUpdateConfig` sets it (Updating, then InService
//! with the new provisioned containers warm).

use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::{EndpointStatus, Transition};

/// Splits `endpoint/NAME/variant/VARIANT` (as `request.rs` does; that file reads through this one).
fn parse_variant_resource(resource_id: &str) -> Option<(&str, &str)> {
    resource_id.strip_prefix("endpoint/")?.split_once("/variant/")
}

/// A serverless variant's desired provisioned concurrency (0 when it has none); None when the
/// resource is not a serverless variant.
pub(crate) fn provisioned_concurrency(sb: &Sandbox, resource_id: &str) -> Option<i64> {
    let (endpoint, variant) = parse_variant_resource(resource_id)?;
    let world = sb.world.read();
    let s = world.endpoints.get(endpoint)?.variant(variant)?.sim.serverless.get()?;
    Some(i64::from(s.desired().provisioned.unwrap_or(0)))
}

/// Sets a serverless variant's desired provisioned concurrency (within 1..=MaxConcurrency) and
/// starts the update; false when the endpoint cannot be updated now.
pub fn scale_provisioned(sb: &Sandbox, resource_id: &str, to: i64) -> bool {
    let Some((endpoint, variant)) = parse_variant_resource(resource_id) else {
        return false;
    };
    let now = now_epoch();
    let mut world = sb.world.write();
    world.advance(now);
    let Some(ep) = world.endpoints.get_mut(endpoint) else {
        return false;
    };
    if ep.status != EndpointStatus::InService {
        return false;
    }
    let Some(v) = ep.variants.iter_mut().find(|v| v.name == variant) else {
        return false;
    };
    let Some(s) = v.sim.serverless.get() else {
        return false;
    };
    let mut wanted = s.desired();
    wanted.provisioned = Some((to.max(1) as i32).min(wanted.max_concurrency));
    s.set_desired(wanted);
    v.statuses = vec![("Updating".to_string(), now)];
    ep.status = EndpointStatus::Updating;
    ep.last_modified = now;
    ep.transition = Some(Transition::Update {
        until: now + sb.config.timing.update.as_secs_f64(),
    });
    world.track(endpoint);
    true
}
