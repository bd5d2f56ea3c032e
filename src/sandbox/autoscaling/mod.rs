//! Application Auto Scaling (awsJson1_1, `x-amz-target: AnyScaleFrontendService.<Op>`) for
//! SageMaker variants, with target-tracking policies that act: when the tracked metric stays past
//! its target for the cooldown, the variant's instance count changes through Updating and an
//! activity is recorded.
//!
//! Sandbox choices (documented): a resource id that names no existing endpoint variant is refused
//! with `ValidationException` `The target resource endpoint/X/variant/Y does not exist.`; scale-in
//! happens when the metric stays below 90% of the target.

pub mod activities;
pub mod api;
pub mod evaluate;
pub mod metric_spec;
pub mod policies;
pub mod request;
pub mod step;
pub mod store;
pub mod targets;
pub mod tt_alarms;
