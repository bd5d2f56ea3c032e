//! A production variant's RoutingConfig as the configuration holds it: the strategy
//! (`LEAST_OUTSTANDING_REQUESTS`, `RANDOM`, `PREFIX_AWARE`) and, for prefix-aware routing, the
//! prefix length and the concurrency threshold (the members the SDK has).

use serde::Serialize;

/// How a variant routes requests to its instances.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RoutingInfo {
    /// `RoutingStrategy`.
    pub strategy: String,
    /// `PrefixAwareRoutingConfig.PrefixLength` (bytes of the body; characters of the messages on
    /// the OpenAI-compatible API).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_length: Option<i32>,
    /// `PrefixAwareRoutingConfig.ConcurrencyThreshold`: in-flight requests at which a shared
    /// prefix spills to another copy or instance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency_threshold: Option<i32>,
}

impl RoutingInfo {
    /// The routing of a configured variant, when it sets one.
    pub fn of(v: &aws_sdk_sagemaker::types::ProductionVariant) -> Option<RoutingInfo> {
        let r = v.routing_config()?;
        let prefix = r.prefix_aware_routing_config();
        Some(RoutingInfo {
            strategy: r.routing_strategy().map(|s| s.as_str().to_string()).unwrap_or_default(),
            prefix_length: prefix.and_then(|p| p.prefix_length()),
            concurrency_threshold: prefix.and_then(|p| p.concurrency_threshold()),
        })
    }

    /// `PREFIX_AWARE (prefix 512, threshold 4)`, or the strategy alone.
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        if let Some(n) = self.prefix_length {
            parts.push(format!("prefix {n}"));
        }
        if let Some(n) = self.concurrency_threshold {
            parts.push(format!("threshold {n}"));
        }
        if parts.is_empty() {
            self.strategy.clone()
        } else {
            format!("{} ({})", self.strategy, parts.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_sagemaker::types::{
        PrefixAwareRoutingConfig, ProductionVariant, ProductionVariantRoutingConfig, RoutingStrategy,
    };

    #[test]
    fn the_strategy_and_prefix_members_are_read() {
        let v = ProductionVariant::builder()
            .variant_name("AllTraffic")
            .routing_config(
                ProductionVariantRoutingConfig::builder()
                    .routing_strategy(RoutingStrategy::PrefixAware)
                    .prefix_aware_routing_config(
                        PrefixAwareRoutingConfig::builder()
                            .prefix_length(512)
                            .concurrency_threshold(4)
                            .build(),
                    )
                    .build(),
            )
            .build();
        let r = RoutingInfo::of(&v).unwrap();
        assert_eq!(r.text(), "PREFIX_AWARE (prefix 512, threshold 4)");
        assert_eq!(RoutingInfo::of(&ProductionVariant::builder().build()), None);
    }
}
