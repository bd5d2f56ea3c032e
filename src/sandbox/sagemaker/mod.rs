//! The SageMaker control plane: models, endpoint configurations, endpoints, their lifecycles and
//! deployments.

pub mod control;
pub mod deploy;
pub mod endpoints;
