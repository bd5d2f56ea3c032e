//! Autoscaling's path into an inference component: its desired copy count, read and set
//! through the world's component records (`World::component_copies`,
//! `World::set_component_desired_copies`); the copies then start or stop, and the variant's
//! instances follow them within its ManagedInstanceScaling, as the world runs them.

use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

/// Splits `inference-component/NAME`.
pub fn parse_component_resource(resource_id: &str) -> Option<&str> {
    resource_id.strip_prefix("inference-component/")
}

/// The component's desired copy count now (None: no such component).
pub(crate) fn component_copies(sb: &Sandbox, name: &str) -> Option<i64> {
    sb.world
        .read()
        .component_copies(name)
        .map(|(desired, _)| i64::from(desired))
}

/// Sets a component's desired copies (autoscaling's path into the world). Returns false when the
/// component cannot be scaled now (unknown, an adapter, or Creating, Deleting or Failed).
pub fn scale_component(sb: &Sandbox, name: &str, copies: i64) -> bool {
    let Ok(copies) = i32::try_from(copies) else {
        return false;
    };
    let now = now_epoch();
    let mut world = sb.world.write();
    world.advance(now);
    world.set_component_desired_copies(name, copies, now).is_ok()
}
