//! Changing an endpoint: variant weights and capacities, the compare-and-swap guard that sends
//! them, and the audit record every change writes first.

pub mod audit;
pub mod guard;
pub mod weights;
