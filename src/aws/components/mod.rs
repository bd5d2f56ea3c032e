//! Inference components: the models an inference-components endpoint hosts, each with its
//! compute reservation and its copies. `inventory.rs` lists and describes them
//! (ListInferenceComponents paged, DescribeInferenceComponent for the detail, settled ones
//! remembered in the describe cache); `change.rs` types the changes made to them (copies now, a
//! rolling update of the specification, its policy in `policy.rs`) and sends them through the
//! guard and the audit log; `follow.rs` follows a rolling update to its outcome and copies until
//! they are placed; `wake.rs` wakes one from zero copies and follows it until it serves
//! (`--wait-for-capacity`); `regions.rs` lists them in every profile × region of the fleet.

pub mod change;
pub mod follow;
pub mod inventory;
pub mod policy;
pub mod regions;
pub mod wake;

pub use change::{ComponentChange, ComponentSnapshot};
pub use follow::{RolloutOutcome, RolloutReport};
pub use inventory::{
    Component, ComponentFilter, ComponentInventory, Copies, DeploymentSummary, Placement, Reservation,
};
pub use policy::{BatchSize, RollingUpdate};
