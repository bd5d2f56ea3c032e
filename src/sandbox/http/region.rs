//! Several regions behind one port: a request is served by the state of the region of its SigV4
//! credential scope (`Credential=AKID/DATE/REGION/SERVICE/aws4_request`); requests for a region
//! not configured (or unsigned) are served by the primary state. A SageMaker bearer token
//! (`Bearer sagemaker-api-key-…`) names its region in the same scope.

use std::sync::Arc;

use axum::http::HeaderMap;

use crate::sandbox::world::sandbox::Sandbox;

/// The region of a request's SigV4 credential scope, when signed.
pub fn signing_region(headers: &HeaderMap) -> Option<&str> {
    let auth = headers.get("authorization")?.to_str().ok()?;
    let scope = auth.split("Credential=").nth(1)?;
    scope.split(['/', ',']).nth(2)
}

/// The region of a request's SageMaker bearer token (the OpenAI-compatible paths), when it
/// carries one that decodes.
fn bearer_region(headers: &HeaderMap) -> Option<String> {
    let auth = headers.get("authorization")?.to_str().ok()?;
    crate::sandbox::runtime::openai::token::scope_region(auth)
}

/// The state that serves a request: its signing region's (a SigV4 signature's or a bearer
/// token's), else the primary.
pub fn for_request(primary: &Arc<Sandbox>, headers: &HeaderMap) -> Arc<Sandbox> {
    let bearer = bearer_region(headers);
    signing_region(headers)
        .or(bearer.as_deref())
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
    }
}
