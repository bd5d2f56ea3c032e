//! CloudWatch Logs: the store of what the containers wrote, its wire operations, filter
//! patterns, and the lines the simulated containers write.

pub mod api;
pub mod content;
pub mod filter;
pub mod store;
