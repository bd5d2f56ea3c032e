//! Autoscaling of variants: policies as specs (`spec.rs`), their lint (`lint/`), the check of an
//! endpoint's scaling, the changes (planned in `plan.rs` for both the CLI and the console, sent
//! by `change.rs`) and the Scaling view's reads (`view.rs`). The fleet's targets, policies and
//! activities are read in `endpoints/autoscaling.rs`, below the inventory and the timeline.

pub mod change;
pub mod check;
pub mod lint;
pub mod plan;
pub mod spec;
pub mod view;
