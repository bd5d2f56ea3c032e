//! The commands that change an endpoint's traffic and capacity: `weights`, `serverless` and `autoscaling`.

pub mod autoscaling;
pub mod serverless;
pub mod weights;
