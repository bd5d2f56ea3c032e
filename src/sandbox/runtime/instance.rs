//! Which instance of the routed variant answers a call: a session's own; under a variant's
//! `RoutingConfig{RoutingStrategy: PREFIX_AWARE}` (with two or more instances) the one the
//! request's prefix hashes to — `PrefixAwareRoutingConfig.PrefixLength` bytes of the body (the
//! characters of the messages' text on the OpenAI-compatible paths), with the `PrefixAwareId`
//! hint — so requests sharing a prefix land together; otherwise any. The sandbox keeps no
//! in-flight counts, so `ConcurrencyThreshold` never moves a request.

use std::sync::Arc;

use serde_json::Value;

use crate::sandbox::logs::store::instance_id;
use crate::sandbox::runtime::request::{InvokeRequest, Outcome};
use crate::sandbox::world::hash::fxhash;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::variant::VariantSim;

/// The index of the instance of `variant` (simulated by `sim`) that answers `req`.
pub fn pick(sb: &Sandbox, req: &InvokeRequest<'_>, variant: &str, sim: &Arc<VariantSim>) -> usize {
    let count = sim.instance_count().max(1);
    if let Some(pinned) = req.instance {
        return pinned.min(count - 1);
    }
    match prefix_length(sb, req.endpoint, variant) {
        Some(len) if count > 1 => {
            let prefix = prefix_of(req, len);
            (fxhash(&format!("{}\u{0}{prefix}", req.prefix_aware_id.unwrap_or(""))) % count as u64) as usize
        }
        _ => rand::random::<u32>() as usize % count,
    }
}

/// The variant's prefix length when its RoutingConfig is PREFIX_AWARE.
fn prefix_length(sb: &Sandbox, endpoint: &str, variant: &str) -> Option<usize> {
    let world = sb.world.read();
    let config_name = &world.endpoints.get(endpoint)?.config_name;
    let config = world.configs.get(config_name)?;
    let routing = config
        .variants
        .iter()
        .find(|v| v.name == variant)?
        .extra
        .get("RoutingConfig")?;
    if routing.get("RoutingStrategy")?.as_str()? != "PREFIX_AWARE" {
        return None;
    }
    let len = routing.pointer("/PrefixAwareRoutingConfig/PrefixLength")?.as_u64()?;
    Some(len as usize)
}

/// The prefix a request is routed by: `len` bytes of the body, or on the OpenAI-compatible paths
/// `len` characters of the messages' text.
fn prefix_of(req: &InvokeRequest<'_>, len: usize) -> String {
    if req.openai {
        let text: String = serde_json::from_slice::<Value>(req.body)
            .ok()
            .and_then(|v| v.get("messages")?.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|m| m.get("content")?.as_str().map(str::to_string))
            .collect();
        return text.chars().take(len).collect();
    }
    String::from_utf8_lossy(&req.body[..len.min(req.body.len())]).into_owned()
}

/// The sandbox's own `x-sandbox-instance-id` header: the id of the instance that answered (its
/// log stream is `VARIANT/ID`), which AWS does not disclose.
pub fn header(endpoint: &str, outcome: &Outcome) -> Option<(&'static str, String)> {
    let variant = outcome.variant.as_deref()?;
    Some((
        "x-sandbox-instance-id",
        instance_id(endpoint, variant, outcome.instance),
    ))
}
