//! Inference components: the models an inference-components endpoint hosts, each with its
//! compute reservation and its copies. `inventory.rs` lists and describes them (ListInferenceComponents
//! paged, DescribeInferenceComponent for the detail, settled ones remembered in the describe
//! cache); `change.rs` types the changes made to them (copies now, a rolling update of the
//! specification) and sends them through the guard and the audit log; `rolling.rs` follows a
//! rolling update to its outcome.

pub mod inventory;

pub use inventory::{
    Component, ComponentFilter, ComponentInventory, Copies, DeploymentSummary, Placement, Reservation,
};
