//! Inference components through the fleet layer and `sagedeck components` over the wire: the
//! inventory (paging, filters, an adapter, the describe cache), the endpoint's kind in
//! `endpoints --json`, copies set with each refusal, rolling updates to success and rolled back
//! by an alarm; invoking by component, the zero-copy class and the wake (`invoke.rs`).

mod changes;
mod inventory;
mod invoke;
mod rolling;
mod setup;
