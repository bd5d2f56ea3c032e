//! A production variant's `RoutingConfig` beyond what the API model's constraints check:
//! `PrefixAwareRoutingConfig` with both its members when the strategy is `PREFIX_AWARE`, and only
//! then (the API reference says so of both members; the refusals' texts are the sandbox's). The
//! configuration is kept as given, echoed by DescribeEndpointConfig and in DescribeEndpoint's
//! variant summaries, and read by the runtime's instance choice (`runtime/instance.rs`).

use serde_json::Value;

use crate::sandbox::http::wire::ApiError;

/// Checks the `RoutingConfig` among a variant's other members, if it has one.
pub fn check(variant: &str, members: &serde_json::Map<String, Value>) -> Result<(), ApiError> {
    let Some(routing) = members.get("RoutingConfig") else {
        return Ok(());
    };
    let strategy = routing.get("RoutingStrategy").and_then(Value::as_str).unwrap_or("");
    let prefix = routing.get("PrefixAwareRoutingConfig");
    match (strategy, prefix) {
        ("PREFIX_AWARE", None) => Err(ApiError::validation(format!(
            "RoutingConfig of variant \"{variant}\": PrefixAwareRoutingConfig (PrefixLength, ConcurrencyThreshold) is required when RoutingStrategy is PREFIX_AWARE."
        ))),
        ("PREFIX_AWARE", Some(p)) => {
            let missing: Vec<&str> = ["PrefixLength", "ConcurrencyThreshold"]
                .into_iter()
                .filter(|m| p.get(*m).is_none())
                .collect();
            match missing.is_empty() {
                true => Ok(()),
                false => Err(ApiError::validation(format!(
                    "RoutingConfig of variant \"{variant}\": PrefixAwareRoutingConfig needs {} when RoutingStrategy is PREFIX_AWARE.",
                    missing.join(" and ")
                ))),
            }
        }
        (other, Some(_)) => Err(ApiError::validation(format!(
            "RoutingConfig of variant \"{variant}\": PrefixAwareRoutingConfig is only valid when RoutingStrategy is PREFIX_AWARE, not {other}."
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    fn check(routing: serde_json::Value) -> Result<(), String> {
        let members = json!({ "RoutingConfig": routing });
        super::check("AllTraffic", members.as_object().unwrap()).map_err(|e| e.message)
    }

    #[test]
    fn prefix_aware_needs_its_config_and_only_it_takes_one() {
        let full = json!({"PrefixLength": 2048, "ConcurrencyThreshold": 8});
        assert!(check(json!({"RoutingStrategy": "PREFIX_AWARE", "PrefixAwareRoutingConfig": full})).is_ok());
        assert!(check(json!({"RoutingStrategy": "RANDOM"})).is_ok());
        assert!(
            check(json!({"RoutingStrategy": "PREFIX_AWARE"}))
                .unwrap_err()
                .contains("required")
        );
        let half = json!({"RoutingStrategy": "PREFIX_AWARE", "PrefixAwareRoutingConfig": {"PrefixLength": 2048}});
        assert!(check(half).unwrap_err().contains("ConcurrencyThreshold"));
        let wrong = json!({"RoutingStrategy": "RANDOM", "PrefixAwareRoutingConfig": full});
        assert!(check(wrong).unwrap_err().contains("only valid"));
    }
}
