//! ListEndpoints read from sorted indexes: by CreationTime from the world's creation index, by
//! Name from the endpoints' own order, each page starting where the last one ended (its
//! NextToken names the last endpoint given), so a page costs its own size, not the fleet's.
//! Filters are applied while reading; sorting by Status sorts the whole list per page, as
//! before.

use std::ops::Bound;

use base64::Engine;
use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::sagemaker::params::{ListParams, at_millis, page, page_shape, passes};
use crate::sandbox::world::state::{Endpoint, World};

/// One ListEndpoints item.
fn summary(e: &Endpoint) -> Value {
    json!({
        "EndpointName": e.name, "EndpointArn": e.arn, "CreationTime": at_millis(e.creation_time),
        "LastModifiedTime": at_millis(e.last_modified), "EndpointStatus": e.status.as_str(),
    })
}

/// Whether an endpoint passes the request's filters.
fn keeps(params: &ListParams, e: &Endpoint) -> bool {
    passes(params, &e.name, e.creation_time, e.last_modified)
        && params.status_equals.as_deref().is_none_or(|s| e.status.as_str() == s)
}

/// The position a token names: `(creation time, name)` of the last endpoint given.
type Key = (f64, String);

fn encode(key: &Key) -> String {
    let text = format!("sandbox-after:{:016x}:{}", key.0.to_bits(), key.1);
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn decode(token: &str) -> Option<Key> {
    let raw = base64::engine::general_purpose::STANDARD.decode(token).ok()?;
    let text = String::from_utf8(raw).ok()?;
    let (bits, name) = text.strip_prefix("sandbox-after:")?.split_once(':')?;
    Some((f64::from_bits(u64::from_str_radix(bits, 16).ok()?), name.to_string()))
}

/// ListEndpoints over `world` (AWS's defaults: 10 per page, CreationTime descending).
pub fn list_endpoints(world: &World, params: &ListParams) -> Result<Value, ApiError> {
    let shape = page_shape(params)?;
    if shape.by == "Status" {
        let items: Vec<&Endpoint> = world.endpoints.values().filter(|e| keeps(params, e)).collect();
        let status_key = |e: &&Endpoint, by: &str| {
            let text = if by == "Status" {
                e.status.as_str()
            } else {
                e.name.as_str()
            };
            (text.to_string(), e.creation_time)
        };
        return page(params, items, "Endpoints", status_key, |e| summary(e));
    }
    let after = match &params.next_token {
        None => None,
        Some(t) => Some(decode(t).ok_or_else(|| ApiError::validation("Invalid pagination token.".to_string()))?),
    };
    let index = world.creation_index();
    let ordered: Box<dyn Iterator<Item = &Endpoint>> = if shape.by == "Name" {
        let from = after
            .as_ref()
            .map_or(Bound::Unbounded, |k| Bound::Excluded(k.1.clone()));
        let range = |r: (Bound<String>, Bound<String>)| world.endpoints.range(r).map(|(_, e)| e);
        if shape.descending {
            Box::new(range((Bound::Unbounded, from)).rev())
        } else {
            Box::new(range((from, Bound::Unbounded)))
        }
    } else {
        let cmp = |(t, n): &(f64, String), a: &Key| t.total_cmp(&a.0).then_with(|| n.as_str().cmp(&a.1));
        let (lo, hi) = match &after {
            None => (0, index.len()),
            Some(a) if shape.descending => (0, index.partition_point(|x| cmp(x, a).is_lt())),
            Some(a) => (index.partition_point(|x| cmp(x, a).is_le()), index.len()),
        };
        let by_name = |(_, n): &(f64, String)| world.endpoints.get(n);
        let slice = &index[lo..hi];
        if shape.descending {
            Box::new(slice.iter().rev().filter_map(by_name))
        } else {
            Box::new(slice.iter().filter_map(by_name))
        }
    };
    let mut kept = ordered.filter(|e| keeps(params, e));
    let items: Vec<&Endpoint> = kept.by_ref().take(shape.max).collect();
    let mut out = json!({ "Endpoints": items.iter().map(|e| summary(e)).collect::<Vec<_>>() });
    if let Some(last) = items.last()
        && kept.next().is_some()
    {
        out["NextToken"] = Value::String(encode(&(last.creation_time, last.name.clone())));
    }
    Ok(out)
}
