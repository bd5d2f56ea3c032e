//! Subscriptions to an endpoint's resource (`resources/subscribe`, 2025-11-25): while a session
//! is subscribed to `sagemaker://REGION/endpoints/NAME`, the endpoint is described every
//! [`WATCH_EVERY`] through the fleet layer and `notifications/resources/updated` is sent when its
//! status, kind, or a variant's weights, instances or statuses change. Each session (a clone of
//! the server) keeps its own subscriptions; they end with `resources/unsubscribe` or when the
//! session's transport closes.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::{Peer, RoleServer};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{Offer, endpoint_of};

/// How often a subscribed endpoint is described.
pub const WATCH_EVERY: Duration = Duration::from_secs(1);

/// One session's subscriptions: URI → what stops its watch. A clone starts empty (each session
/// gets a clone of the server).
#[derive(Debug, Default)]
pub struct Subscriptions(Mutex<HashMap<String, CancellationToken>>);

impl Clone for Subscriptions {
    fn clone(&self) -> Subscriptions {
        Subscriptions::default()
    }
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        if let Ok(m) = self.0.lock() {
            m.values().for_each(CancellationToken::cancel);
        }
    }
}

/// What a change is judged on: the resource without its last-modified time.
fn watched(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("modified");
    }
    v
}

impl Subscriptions {
    /// Starts watching `uri` for `peer` (a second subscription to it changes nothing).
    pub fn subscribe(&self, offer: &Offer, uri: &str, peer: Peer<RoleServer>) -> Result<(), rmcp::ErrorData> {
        let name = endpoint_of(uri, offer.region())
            .map_err(|e| rmcp::ErrorData::resource_not_found(e, Some(serde_json::json!({"uri": uri}))))?;
        let Ok(mut map) = self.0.lock() else {
            return Err(rmcp::ErrorData::internal_error("the subscriptions are unusable", None));
        };
        if map.contains_key(uri) {
            return Ok(());
        }
        let stop = CancellationToken::new();
        map.insert(uri.to_string(), stop.clone());
        let (offer, uri) = (offer.clone(), uri.to_string());
        tokio::spawn(async move {
            let mut last = offer.describe(&name).await.ok().map(|v| watched(&v));
            let mut tick = tokio::time::interval(WATCH_EVERY);
            tick.tick().await;
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tick.tick() => {}
                }
                let now = offer.describe(&name).await.ok().map(|v| watched(&v));
                if now.is_some() && now != last {
                    let note = ResourceUpdatedNotificationParam::new(uri.clone());
                    if peer.notify_resource_updated(note).await.is_err() {
                        return; // the session is gone
                    }
                    last = now;
                }
            }
        });
        Ok(())
    }

    /// Stops watching `uri`.
    pub fn unsubscribe(&self, uri: &str) {
        if let Some(stop) = self.0.lock().ok().and_then(|mut m| m.remove(uri)) {
            stop.cancel();
        }
    }
}
