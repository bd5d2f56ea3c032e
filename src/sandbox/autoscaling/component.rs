//! Autoscaling's path into an inference component: its desired copy count, read and set. The
//! world's component records are the IC core's; this file is the only one of autoscaling that
//! knows them.

use crate::sandbox::world::sandbox::Sandbox;

/// Splits `inference-component/NAME`.
pub fn parse_component_resource(resource_id: &str) -> Option<&str> {
    resource_id.strip_prefix("inference-component/")
}

/// The component's desired copy count now (None: no such component).
pub(crate) fn component_copies(_sb: &Sandbox, _name: &str) -> Option<i64> {
    None
}

/// Sets a component's desired copies (autoscaling's path into the world). Returns false when the
/// component cannot be scaled now.
pub fn scale_component(_sb: &Sandbox, _name: &str, _copies: i64) -> bool {
    false
}
