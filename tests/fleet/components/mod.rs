//! Inference components through the fleet layer and `sagedeck components` over the wire: the
//! inventory (paging, filters, an adapter, the describe cache), the endpoint's kind in
//! `endpoints --json`, copies set with each refusal, rolling updates to success and rolled back
//! by an alarm.

mod changes;
mod inventory;
mod rolling;
mod setup;
