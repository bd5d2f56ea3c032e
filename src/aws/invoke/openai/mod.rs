//! SageMaker's OpenAI-compatible API: every real-time endpoint and inference component answers
//! Chat Completions at `…/endpoints/EP/openai/v1/chat/completions` (and
//! `…/endpoints/EP/inference-components/IC/openai/v1/…`) on the runtime host, authenticated by a
//! bearer token minted locally from AWS credentials ([`token`]). The SDK has no operation for it,
//! so [`chat`] speaks it over reqwest, with the fleet layer's retries and error classes.

pub mod chat;
pub mod token;

use aws_sdk_sagemakerruntime::config::endpoint::{DefaultResolver, Params, ResolveEndpoint};

pub use chat::{ChatCall, ChatOutcome, OpenAiClient};
pub use token::{BearerToken, MAX_TOKEN_LIFE, MintFinish, MintGate, MintNotice, TokenSource, mint};

use crate::aws::config::Fleet;
use crate::aws::error::AwsError;

impl Fleet {
    /// The runtime URL the SDK sends InvokeEndpoint to: `--endpoint-url` (or
    /// `AWS_ENDPOINT_URL`) when set, else the region's, as the SDK's own endpoint rules resolve it.
    pub async fn runtime_url(&self) -> Result<String, AwsError> {
        let params = Params::builder()
            .region(self.region.clone())
            .set_endpoint(self.endpoint_url.clone())
            .use_fips(false)
            .use_dual_stack(false)
            .build()
            .map_err(|e| AwsError::Config(format!("no runtime endpoint: {e}")))?;
        let endpoint = DefaultResolver::new()
            .resolve_endpoint(&params)
            .await
            .map_err(|e| AwsError::Config(format!("no runtime endpoint for region `{}`: {e}", self.region)))?;
        Ok(endpoint.url().trim_end_matches('/').to_string())
    }

    /// The OpenAI base URL of an endpoint, or of one of its inference components
    /// (`…/openai/v1`; clients append `/chat/completions`).
    pub async fn openai_base_url(&self, endpoint: &str, component: Option<&str>) -> Result<String, AwsError> {
        let root = self.runtime_url().await?;
        Ok(base_url_at(&root, endpoint, component))
    }
}

/// `ROOT/endpoints/EP[/inference-components/IC]/openai/v1`.
pub fn base_url_at(root: &str, endpoint: &str, component: Option<&str>) -> String {
    match component {
        Some(ic) => format!("{root}/endpoints/{endpoint}/inference-components/{ic}/openai/v1"),
        None => format!("{root}/endpoints/{endpoint}/openai/v1"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_base_url_is_the_runtime_host_the_sdk_resolves() {
        let conf = aws_config::SdkConfig::builder()
            .region(aws_config::Region::new("eu-west-1"))
            .behavior_version(aws_config::BehaviorVersion::latest())
            .build();
        let fleet = Fleet::from_sdk_config(&conf, "p".into(), None);
        assert_eq!(
            fleet.openai_base_url("llm", None).await.unwrap(),
            "https://runtime.sagemaker.eu-west-1.amazonaws.com/endpoints/llm/openai/v1"
        );
        let fleet = Fleet::from_sdk_config(&conf, "p".into(), Some("http://127.0.0.1:4566".into()));
        assert_eq!(
            fleet.openai_base_url("llm", Some("ic-a")).await.unwrap(),
            "http://127.0.0.1:4566/endpoints/llm/inference-components/ic-a/openai/v1"
        );
    }
}
