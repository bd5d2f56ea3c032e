//! What the operations share: the request input, the service's errors, variant resource ids, the
//! variant's current count and paging.

use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::store::TargetKey;
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::sandbox::Sandbox;

/// An error in Application Auto Scaling's namespace.
pub(crate) fn aas_error(code: &str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code, message).in_namespace("com.amazonaws.applicationautoscaling")
}

/// ObjectNotFoundException for a target not registered.
pub(crate) fn no_target(key: &TargetKey) -> ApiError {
    aas_error(
        "ObjectNotFoundException",
        format!(
            "No scalable target registered for service namespace: {}, resource ID: {}, scalable dimension: {}",
            key.0, key.1, key.2
        ),
    )
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
pub(super) struct TargetInput {
    pub(super) service_namespace: String,
    pub(super) resource_id: String,
    pub(super) scalable_dimension: String,
    pub(super) min_capacity: Option<i64>,
    pub(super) max_capacity: Option<i64>,
    #[serde(rename = "RoleARN")]
    pub(super) role_arn: Option<String>,
    pub(super) suspended_state: Option<Value>,
    pub(super) resource_ids: Option<Vec<String>>,
    pub(super) max_results: Option<usize>,
    pub(super) next_token: Option<String>,
    pub(super) policy_name: Option<String>,
    pub(super) policy_names: Option<Vec<String>>,
    pub(super) policy_type: Option<String>,
    pub(super) target_tracking_scaling_policy_configuration: Option<Value>,
    pub(super) step_scaling_policy_configuration: Option<Value>,
}

impl TargetInput {
    /// The target this request names.
    pub(super) fn key(&self) -> TargetKey {
        (
            self.service_namespace.clone(),
            self.resource_id.clone(),
            self.scalable_dimension.clone(),
        )
    }
}

/// Splits `endpoint/NAME/variant/VARIANT`.
pub fn parse_variant_resource(resource_id: &str) -> Option<(&str, &str)> {
    let rest = resource_id.strip_prefix("endpoint/")?;
    let (endpoint, variant) = rest.split_once("/variant/")?;
    Some((endpoint, variant))
}

/// The variant's desired instance count (a component's desired copy count, a serverless
/// variant's desired provisioned concurrency for that dimension) now.
pub(crate) fn current_count(sb: &Sandbox, resource_id: &str, dimension: &str) -> Option<i64> {
    if let Some(component) = super::component::parse_component_resource(resource_id) {
        return super::component::component_copies(sb, component);
    }
    if dimension == super::store::PROVISIONED_DIMENSION {
        return super::provisioned::provisioned_concurrency(sb, resource_id);
    }
    let (endpoint, variant) = parse_variant_resource(resource_id)?;
    let world = sb.world.read();
    world
        .endpoints
        .get(endpoint)?
        .variant(variant)
        .map(|v| v.desired_instances as i64)
}

/// A page of `items` under `member`, with a NextToken when more remain.
pub(crate) fn paged(
    items: Vec<Value>,
    member: &str,
    max: Option<usize>,
    token: Option<&str>,
    default: usize,
) -> Result<Value, ApiError> {
    let start = match token {
        Some(t) => t
            .parse::<usize>()
            .map_err(|_| aas_error("InvalidNextTokenException", "The NextToken is invalid."))?,
        None => 0,
    };
    let max = max.unwrap_or(default).clamp(1, 50.max(default));
    let end = (start + max).min(items.len());
    let mut out = json!({ member: items.get(start..end).unwrap_or(&[]) });
    if end < items.len() {
        out["NextToken"] = end.to_string().into();
    }
    Ok(out)
}
