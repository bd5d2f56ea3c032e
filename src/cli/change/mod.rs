//! The commands that change an endpoint's traffic and capacity: `weights` and `autoscaling`.

pub mod autoscaling;
pub mod weights;
