//! CloudTrail: who changed an endpoint, from anywhere — the AWS console, a CI pipeline, another
//! operator's sagedeck. [`event`] parses one recorded call; [`read`] pages LookupEvents for one
//! endpoint, cached and paced (2 calls/s, one page per refresh).

pub mod event;
pub mod read;

pub use event::TrailEvent;
pub use read::{DELIVERY_NOTE, TrailCache, TrailRead, TrailStatus};
