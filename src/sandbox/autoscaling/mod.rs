//! Application Auto Scaling (awsJson1_1, `x-amz-target: AnyScaleFrontendService.<Op>`) for
//! SageMaker variants, with target-tracking policies that act: when the tracked metric stays past
//! its target for the cooldown, the variant's instance count changes through Updating and an
//! activity is recorded.
//!
//! Inference components scale the same way on `inference-component/NAME` with
//! `sagemaker:inference-component:DesiredCopyCount` (MinCapacity 0 allowed): target tracking on
//! invocations (or concurrent requests) per copy scales their copies, in to zero once idle for the
//! scale-in cooldown, and a step policy fired by an alarm on `NoCapacityInvocationFailures` wakes
//! them (`component.rs` is the path into the component).
//!
//! Sandbox choices (documented): a resource id that names no existing endpoint variant (or
//! component) is refused with `ValidationException` `The target resource endpoint/X/variant/Y
//! does not exist.`; scale-in happens when the metric stays below 90% of the target; a
//! component's per-copy metric with no data in the window counts as 0 (idle).

pub mod activities;
pub mod api;
pub mod component;
pub mod evaluate;
pub mod metric_spec;
pub mod policies;
pub mod provisioned;
pub mod request;
pub mod step;
pub mod store;
pub mod targets;
pub mod tt_alarms;
