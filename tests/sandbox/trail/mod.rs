//! CloudTrail in the sandbox over the wire: calls recorded with the principal of their access key
//! (`record.rs`), LookupEvents' filters, paging, refusals and throttling (`lookup.rs`), and the
//! same from boto3 (`boto3.rs`, `tests/compat/trail_calls.py`).

mod boto3;
mod lookup;
mod record;

use aws_credential_types::Credentials;
use aws_credential_types::provider::SharedCredentialsProvider;
use aws_sdk_cloudtrail::types::{Event, LookupAttribute, LookupAttributeKey};
use sagedeck::sandbox::{SandboxConfig, SandboxHandle, TrailConfig};
use serde_json::Value;

use crate::common::sdk_config;

/// `config` with LookupEvents unthrottled (the tests that page a lot; throttling has its own).
pub(crate) fn unthrottled(config: SandboxConfig) -> SandboxConfig {
    SandboxConfig {
        trail: TrailConfig {
            lookups_per_second: f64::INFINITY,
            ..TrailConfig::default()
        },
        ..config
    }
}

/// SDK configuration for the sandbox signed with `key` (and a session token for `ASIA…` keys).
pub(crate) async fn signed_by(sb: &SandboxHandle, key: &str) -> aws_config::SdkConfig {
    let token = key.starts_with("ASIA").then(|| "sandbox-session-token".to_string());
    let creds = Credentials::new(key, "sandbox-secret", token, None, "trail-tests");
    sdk_config(sb)
        .await
        .to_builder()
        .credentials_provider(SharedCredentialsProvider::new(creds))
        .build()
}

/// One lookup attribute.
pub(crate) fn attr(key: &str, value: &str) -> LookupAttribute {
    LookupAttribute::builder()
        .attribute_key(LookupAttributeKey::from(key))
        .attribute_value(value)
        .build()
        .expect("key and value")
}

/// Every event LookupEvents finds for `attribute` (all pages), newest first.
pub(crate) async fn lookup_all(ct: &aws_sdk_cloudtrail::Client, attribute: Option<LookupAttribute>) -> Vec<Event> {
    let mut out = Vec::new();
    let mut token = None;
    loop {
        let page = ct
            .lookup_events()
            .set_lookup_attributes(attribute.clone().map(|a| vec![a]))
            .set_next_token(token)
            .send()
            .await
            .expect("LookupEvents answers");
        out.extend(page.events().iter().cloned());
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            return out;
        }
    }
}

/// The record of an event (its `CloudTrailEvent` JSON).
pub(crate) fn record(e: &Event) -> Value {
    serde_json::from_str(e.cloud_trail_event().expect("CloudTrailEvent")).expect("CloudTrailEvent is JSON")
}
