//! Several regions behind one port: each further region is a whole emulated state of its own
//! (fleet, metrics, logs, autoscaling, faults, request counts), chosen per request from the
//! region of the SigV4 credential scope (`Credential=AKID/DATE/REGION/SERVICE/aws4_request`).
//! Requests for a region not configured (or unsigned) are served by the primary state.

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::HeaderMap;

use crate::sandbox::world::config::SandboxConfig;
use crate::sandbox::world::sandbox::Sandbox;

/// One further region and its fleet.
#[derive(Debug, Clone, Default)]
pub struct RegionFleet {
    /// Region name (`eu-west-1`).
    pub region: String,
    /// Account id in its ARNs (default: the primary's).
    pub account: Option<String>,
    /// Whether to seed the demo fleet there.
    pub demo_fleet: bool,
    /// Generated endpoints there.
    pub endpoints: usize,
}

impl RegionFleet {
    /// Parses `REGION[=N]` (N generated endpoints; without it, the demo fleet).
    pub fn parse(spec: &str) -> Result<RegionFleet, String> {
        let (region, n) = match spec.split_once('=') {
            Some((r, n)) => (
                r,
                Some(
                    n.parse::<usize>()
                        .map_err(|_| format!("bad endpoint count in {spec:?}"))?,
                ),
            ),
            None => (spec, None),
        };
        if region.is_empty() || !region.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(format!("bad region in {spec:?}: use REGION or REGION=N"));
        }
        Ok(RegionFleet {
            region: region.to_string(),
            account: None,
            demo_fleet: n.is_none(),
            endpoints: n.unwrap_or(0),
        })
    }
}

/// The other regions' states for a primary configuration.
pub fn build(primary: &SandboxConfig) -> HashMap<String, Arc<Sandbox>> {
    primary
        .extra_regions
        .iter()
        .filter(|r| r.region != primary.region)
        .map(|r| {
            let config = SandboxConfig {
                region: r.region.clone(),
                account: r.account.clone().unwrap_or_else(|| primary.account.clone()),
                demo_fleet: r.demo_fleet,
                extra_endpoints: r.endpoints,
                seed: primary.seed ^ crate::sandbox::world::variant::fxhash(&r.region),
                traffic_rate: None,
                extra_regions: Vec::new(),
                timing: primary.timing.clone(),
                ..primary.clone()
            };
            (r.region.clone(), Sandbox::new(config))
        })
        .collect()
}

/// The region of a request's SigV4 credential scope, when signed.
pub fn signing_region(headers: &HeaderMap) -> Option<&str> {
    let auth = headers.get("authorization")?.to_str().ok()?;
    let scope = auth.split("Credential=").nth(1)?;
    scope.split(['/', ',']).nth(2)
}

/// The state that serves a request: its signing region's, else the primary.
pub fn for_request(primary: &Arc<Sandbox>, headers: &HeaderMap) -> Arc<Sandbox> {
    signing_region(headers)
        .and_then(|r| primary.regions.get(r))
        .cloned()
        .unwrap_or_else(|| primary.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_from_the_credential_scope() {
        let mut h = HeaderMap::new();
        h.insert(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=AKID/20261204/eu-west-1/sagemaker/aws4_request, SignedHeaders=host, Signature=x"
                .parse()
                .unwrap(),
        );
        assert_eq!(signing_region(&h), Some("eu-west-1"));
        assert_eq!(signing_region(&HeaderMap::new()), None);
        assert_eq!(RegionFleet::parse("ap-south-1=20").unwrap().endpoints, 20);
        assert!(RegionFleet::parse("eu-west-1").unwrap().demo_fleet);
        assert!(RegionFleet::parse("x=y").is_err());
    }
}
