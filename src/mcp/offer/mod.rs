//! What `sagedeck mcp serve` offers beside its tools, for the on-call engineer behind an agent:
//! each served endpoint as a resource (`sagemaker://REGION/endpoints/NAME`: status, kind, its
//! variants with their weights and instances, as JSON read through the fleet layer at each
//! read; subscribed to, it is watched for changes in `watch.rs`), a resource template for any
//! endpoint of the region by name, the `triage_endpoint`
//! prompt (`prompts.rs`), and the tools that ask their client for a missing choice through
//! elicitation before they invoke (`ask.rs`).

pub mod ask;
pub mod prompts;
pub mod watch;

use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use serde_json::{Value, json};

use super::tools_config::ToolsConfig;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::{AwsError, Fleet};

/// The MIME type of an endpoint's resource.
pub const ENDPOINT_MIME: &str = "application/json";

/// `sagemaker://REGION/endpoints/NAME`.
pub fn endpoint_uri(region: &str, name: &str) -> String {
    format!("sagemaker://{region}/endpoints/{name}")
}

/// The endpoint an URI of `region` names: `sagemaker://REGION/endpoints/NAME`, NAME in
/// SageMaker's alphabet (letters, digits, hyphens).
pub fn endpoint_of(uri: &str, region: &str) -> Result<String, String> {
    let prefix = endpoint_uri(region, "");
    let Some(name) = uri.strip_prefix(&prefix) else {
        return Err(format!(
            "`{uri}` is not an endpoint of this server: its resources are {prefix}NAME"
        ));
    };
    let ok = !name.is_empty() && name.len() <= 63 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if !ok {
        return Err(format!(
            "`{name}` is not an endpoint name (letters, digits and hyphens)"
        ));
    }
    Ok(name.to_string())
}

/// An endpoint's resource: what an agent or an engineer reads about it (the fleet layer's
/// description, trimmed to what triage needs) and the tools served on it.
pub fn endpoint_json(info: &EndpointInfo, region: &str, tools: &[String]) -> Value {
    let variants: Vec<Value> = (info.variants.iter())
        .map(|v| {
            json!({
                "name": v.name, "model": v.model_name, "instance_type": v.instance_type,
                "current_weight": v.current_weight, "desired_weight": v.desired_weight,
                "traffic_share": v.traffic_share, "current_instances": v.current_instances,
                "desired_instances": v.desired_instances, "statuses": v.statuses,
            })
        })
        .collect();
    json!({
        "endpoint": info.name, "region": region, "arn": info.arn, "status": info.status,
        "failure_reason": info.failure_reason, "kind": info.kind, "config": info.config_name,
        "modified": info.modified, "variants": variants, "tools": tools,
    })
}

/// The resources and template of a server over `fleet`, for the endpoints its tools call.
#[derive(Debug, Clone)]
pub struct Offer {
    fleet: Fleet,
    /// Each endpoint the tools call, with the tools that call it, in the file's order.
    endpoints: Vec<(String, Vec<String>)>,
}

impl Offer {
    /// The offer of `config`'s tools over `fleet`.
    pub fn new(fleet: Fleet, config: &ToolsConfig) -> Offer {
        let mut endpoints: Vec<(String, Vec<String>)> = Vec::new();
        for t in &config.tools {
            match endpoints.iter_mut().find(|(e, _)| *e == t.endpoint) {
                Some((_, tools)) => tools.push(t.name.clone()),
                None => endpoints.push((t.endpoint.clone(), vec![t.name.clone()])),
            }
        }
        Offer { fleet, endpoints }
    }

    /// The fleet it reads.
    pub fn fleet(&self) -> &Fleet {
        &self.fleet
    }

    /// The region its URIs name.
    pub fn region(&self) -> &str {
        &self.fleet.region
    }

    /// One resource per endpoint a tool calls.
    pub fn resources(&self) -> Vec<Resource> {
        (self.endpoints.iter())
            .map(|(e, tools)| {
                Resource::new(endpoint_uri(self.region(), e), e.clone())
                    .with_description(format!(
                        "Status, kind, variants, weights and instances of {e} (served as {})",
                        tools.join(", ")
                    ))
                    .with_mime_type(ENDPOINT_MIME)
            })
            .collect()
    }

    /// The template for any endpoint of the region by name.
    pub fn templates(&self) -> Vec<ResourceTemplate> {
        let uri = format!("{}{{name}}", endpoint_uri(self.region(), ""));
        vec![
            ResourceTemplate::new(uri, "endpoint")
                .with_title("Any SageMaker endpoint")
                .with_description(format!(
                    "Status, kind, variants, weights and instances of any endpoint in {} by name",
                    self.region()
                ))
                .with_mime_type(ENDPOINT_MIME),
        ]
    }

    /// The tools served on `endpoint`.
    fn tools_of(&self, endpoint: &str) -> Vec<String> {
        (self.endpoints.iter())
            .find(|(e, _)| e == endpoint)
            .map(|(_, t)| t.clone())
            .unwrap_or_default()
    }

    /// `endpoint`'s resource as JSON, described now; an endpoint SageMaker does not know is
    /// the resource-not-found error (-32002).
    pub async fn describe(&self, endpoint: &str) -> Result<Value, ErrorData> {
        let uri = endpoint_uri(self.region(), endpoint);
        match self.fleet.endpoint(endpoint).await {
            Ok(info) => Ok(endpoint_json(&info, self.region(), &self.tools_of(endpoint))),
            Err(AwsError::NotFound(m)) => Err(ErrorData::resource_not_found(
                format!("no endpoint {endpoint} in {}: {m}", self.region()),
                Some(json!({"uri": uri})),
            )),
            Err(e) => Err(ErrorData::internal_error(
                format!("cannot describe {endpoint}: {e}"),
                Some(json!({"uri": uri, "class": e.class()})),
            )),
        }
    }

    /// Reads `uri`: the endpoint's JSON, pretty-printed.
    pub async fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let name =
            endpoint_of(uri, self.region()).map_err(|e| ErrorData::resource_not_found(e, Some(json!({"uri": uri}))))?;
        let value = self.describe(&name).await?;
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        let contents = ResourceContents::text(text, uri).with_mime_type(ENDPOINT_MIME);
        Ok(ReadResourceResult::new(vec![contents]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_name_an_endpoint_of_the_region() {
        let uri = endpoint_uri("us-east-1", "llm-tgi-chat");
        assert_eq!(uri, "sagemaker://us-east-1/endpoints/llm-tgi-chat");
        assert_eq!(endpoint_of(&uri, "us-east-1").unwrap(), "llm-tgi-chat");
        assert!(
            endpoint_of(&uri, "eu-west-1")
                .unwrap_err()
                .contains("not an endpoint of this server")
        );
        for bad in ["", "a/b", "a b", "x\u{1b}[2J"] {
            let e = endpoint_of(&endpoint_uri("us-east-1", bad), "us-east-1").unwrap_err();
            assert!(e.contains("not an endpoint name"), "{bad}: {e}");
        }
    }
}
