//! Changing an endpoint: variant weights and capacities, a serverless variant's concurrency, the compare-and-swap guard that sends
//! them, and the audit record every change writes first (a minted bearer token's in `token.rs`).

pub mod audit;
pub mod guard;
pub mod redact;
pub mod serverless;
pub mod team;
pub mod token;
pub mod weights;
