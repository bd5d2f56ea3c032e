//! Inference components: the records of the components and of the instances that host them
//! (an IC endpoint's variants), and the store the control plane, the runtime and Application
//! Auto Scaling work on. Lifecycles and placement are in `lifecycle.rs`, rolling updates of a
//! component's specification in `rolling.rs`.

pub mod gauges;
pub mod lifecycle;
pub mod records;
pub mod rolling;

use std::collections::BTreeMap;

pub use crate::sandbox::world::components::records::{
    ComponentSpec, ComponentStatus, Host, InferenceComponent, Phase, Resources, Rollout,
};

/// Every inference component of a region and the variants hosting them.
#[derive(Debug, Default)]
pub struct Components {
    /// Components by name.
    pub items: BTreeMap<String, InferenceComponent>,
    /// Hosting variants by (endpoint, variant).
    pub hosts: BTreeMap<(String, String), Host>,
}

impl Components {
    /// The host of a component.
    pub fn host_of(&self, ic: &InferenceComponent) -> Option<&Host> {
        self.hosts.get(&(ic.endpoint.clone(), ic.variant.clone()))
    }

    /// Whether an endpoint hosts inference components (its variants have no model).
    pub fn is_ic_endpoint(&self, endpoint: &str) -> bool {
        self.hosts.keys().any(|(e, _)| e == endpoint)
    }

    /// The components of an endpoint.
    pub fn on_endpoint<'a>(&'a self, endpoint: &'a str) -> impl Iterator<Item = &'a InferenceComponent> + 'a {
        self.items.values().filter(move |c| c.endpoint == endpoint)
    }

    /// The copies of a component as `(desired, current)`; an adapter reports its base's.
    pub fn copies(&self, name: &str) -> Option<(i32, i32)> {
        let ic = self.items.get(name)?;
        match ic.spec.base.as_deref().and_then(|b| self.items.get(b)) {
            Some(base) => Some((base.desired_copies, base.current_copies)),
            None => Some((ic.desired_copies, ic.current_copies)),
        }
    }

    /// Sets a component's desired copies (UpdateInferenceComponentRuntimeConfig, Application
    /// Auto Scaling): the component turns Updating until its copies reach the new count.
    /// Returns the previous desired count; refuses an unknown component, an adapter (its copies
    /// are its base's), a negative count and a component that is Creating, Deleting or Failed.
    pub fn set_desired_copies(&mut self, name: &str, copies: i32, now: f64) -> Result<i32, String> {
        let ic = self
            .items
            .get_mut(name)
            .ok_or_else(|| format!("Inference component {name} not found."))?;
        if ic.spec.base.is_some() {
            return Err(format!(
                "Inference component {name} is an adapter: its copies follow its base component."
            ));
        }
        if copies < 0 {
            return Err(format!("CopyCount must be >= 0 (got {copies})."));
        }
        if matches!(
            ic.status,
            ComponentStatus::Creating | ComponentStatus::Deleting | ComponentStatus::Failed
        ) {
            return Err(format!(
                "Cannot update inference component {name} while it is {}.",
                ic.status.as_str()
            ));
        }
        let old = ic.desired_copies;
        if old != copies {
            ic.desired_copies = copies;
            ic.status = ComponentStatus::Updating;
            ic.last_modified = now;
        }
        Ok(old)
    }

    /// Removes an endpoint's hosts (the endpoint is gone).
    pub fn forget_endpoint(&mut self, endpoint: &str) {
        self.hosts.retain(|(e, _), _| e != endpoint);
    }
}
