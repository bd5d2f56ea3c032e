//! CloudTrail: every control-plane call the sandbox serves (SageMaker, Application Auto Scaling,
//! CloudWatch Logs' group and stream management) recorded as a CloudTrail event with the
//! principal of the caller's access key, and LookupEvents over them.
//!
//! `identity.rs` maps access keys to principals, `event.rs` builds an event's record, `store.rs`
//! keeps a region's bounded history, `lookup.rs` filters and pages it, `api.rs` serves it.

pub mod api;
pub mod event;
pub mod identity;
pub mod lookup;
pub mod store;

use serde_json::Value;

use crate::sandbox::cloudtrail::event::{Call, Place, Source};
use crate::sandbox::cloudtrail::identity::Caller;
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

/// Records `call` in the history of the region `sb` serves, now.
pub fn record(sb: &Sandbox, call: &Call<'_>) {
    let place = Place {
        region: &sb.config.region,
        account: &sb.config.account,
        time: now_epoch(),
    };
    sb.trail.record(call, place);
}

/// Records `source`'s operation `name`, called by `caller` with `request`, and its answer.
pub fn record_answer(
    sb: &Sandbox,
    (source, name): (Source, &str),
    caller: &Caller,
    request: &Value,
    answer: &Result<Value, ApiError>,
) {
    let call = Call {
        source,
        name,
        caller,
        request,
        answer: answer.as_ref().map_err(|e| (e.code.as_str(), e.message.as_str())),
    };
    record(sb, &call);
}
