//! Inference components through the fleet layer and `sagedeck components` over the wire: the
//! inventory (paging, filters, an adapter, the describe cache), the endpoint's kind in
//! `endpoints --json`, copies set with each refusal, rolling updates to success and rolled back
//! by an alarm; invoking by component, the zero-copy class and the wake (`invoke.rs`); every
//! region's components in one listing (`regions.rs`).

mod changes;
mod inventory;
mod invoke;
mod regions;
mod rolling;
mod setup;
