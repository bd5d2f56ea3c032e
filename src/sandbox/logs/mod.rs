//! CloudWatch Logs: the store of what the containers and clients wrote, its wire operations
//! (reads in `api.rs`, CreateLogGroup, CreateLogStream and PutLogEvents in `writes.rs`), filter
//! patterns, and the lines the simulated containers write.

pub mod api;
pub mod content;
pub mod filter;
pub mod store;
pub mod writes;
