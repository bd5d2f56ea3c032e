//! ListMetrics: the filtered, ordered listing of the metric store, with an opaque NextToken.

use base64::Engine;
use serde::Deserialize;

use crate::sandbox::cloudwatch::metrics::SeriesKey;
use crate::sandbox::cloudwatch::metrics::query::ListFilter;
use crate::sandbox::cloudwatch::params::{Dimension, invalid_value, metric_out, missing, parse, validation_error};
use crate::sandbox::http::wire::{ApiError, Out};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

/// ListMetrics page size.
const LIST_PAGE: usize = 500;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ListMetricsInput {
    namespace: Option<String>,
    metric_name: Option<String>,
    #[serde(default)]
    dimensions: Vec<Dimension>,
    next_token: Option<String>,
    recently_active: Option<String>,
}

const LIST_TOKEN_PREFIX: &str = "lm1.";

fn encode_list_token(key: &SeriesKey) -> String {
    let doc = serde_json::json!([key.namespace, key.name, key.dimensions]);
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(doc.to_string());
    format!("{LIST_TOKEN_PREFIX}{b64}")
}

fn decode_list_token(token: &str) -> Option<SeriesKey> {
    let b64 = token.strip_prefix(LIST_TOKEN_PREFIX)?;
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(b64).ok()?;
    let (ns, name, dims): (String, String, Vec<(String, String)>) = serde_json::from_slice(&raw).ok()?;
    Some(SeriesKey::from_owned(ns, name, dims))
}

/// ListMetrics: the filtered, ordered listing, a page at a time.
pub(super) fn list_metrics(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let input: ListMetricsInput = parse(doc)?;
    if input.dimensions.len() > 10 {
        return Err(invalid_value(
            "The collection Dimensions must not have a size greater than 10.".into(),
        ));
    }
    let mut dimensions = Vec::with_capacity(input.dimensions.len());
    for (i, d) in input.dimensions.into_iter().enumerate() {
        let name = d
            .name
            .ok_or_else(|| missing(&format!("Dimensions.member.{}.Name", i + 1)))?;
        dimensions.push((name, d.value));
    }
    let active_since = match input.recently_active.as_deref() {
        None => None,
        Some("PT3H") => Some(now_epoch() - 3.0 * 3600.0),
        Some(other) => {
            return Err(validation_error(format!(
                "1 validation error detected: Value '{other}' at 'recentlyActive' failed to satisfy constraint: Member must satisfy enum value set: [PT3H]"
            )));
        }
    };
    let after = match input.next_token.as_deref() {
        None | Some("") => None,
        Some(t) => Some(
            decode_list_token(t)
                .ok_or_else(|| invalid_value("The value for parameter NextToken is invalid.".into()))?,
        ),
    };
    let filter = ListFilter {
        namespace: input.namespace,
        metric_name: input.metric_name,
        dimensions,
        active_since,
    };
    let (keys, more) = sb.metrics.list(&filter, after.as_ref(), LIST_PAGE);
    let mut out = vec![(Out::str("Metrics"), Out::List(keys.iter().map(metric_out).collect()))];
    if more && let Some(last) = keys.last() {
        out.push((Out::str("NextToken"), Out::Str(encode_list_token(last))));
    }
    Ok(Out::Map(out))
}
