//! Autoscaling of variants and inference components (`scope.rs` says which; the components'
//! reads, scale-to-zero doctor and plan in `zero/`): policies as specs (`spec.rs`), their lint (`lint/`), the check of an
//! endpoint's scaling, the changes (planned in `plan.rs` for both the CLI and the console, sent
//! by `change.rs`) and the Scaling view's reads (`view.rs`). The fleet's targets, policies and
//! activities are read in `endpoints/autoscaling.rs`, below the inventory and the timeline.

pub mod change;
pub mod check;
pub mod lint;
pub mod plan;
pub mod scope;
pub mod send;
pub mod spec;
pub mod view;
pub mod zero;
