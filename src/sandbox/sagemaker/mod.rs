//! The SageMaker control plane (awsJson1_1, `x-amz-target: SageMaker.<Op>`): models, endpoint
//! configurations, endpoints, their lifecycles and deployments. `control.rs` dispatches.

pub mod components;
pub mod configs;
pub mod constraints;
pub mod control;
pub mod deploy;
pub mod endpoints;
pub mod instance_types;
pub mod listing;
pub mod models;
pub mod params;
pub mod routing;
pub mod serverless;
pub mod shadow;
pub mod tags;
