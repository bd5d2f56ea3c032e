//! Clients built from aws-config with the AWS CLI's conventions: the default credential chain
//! (environment, profiles, SSO, IMDS), `--profile`, `--region`, `--endpoint-url` (for every
//! service, as the CLI's), the usual `AWS_*` variables, explicit timeouts and adaptive retries.

use std::time::Duration;

use aws_config::BehaviorVersion;
use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_credential_types::provider::ProvideCredentials;

use crate::aws::error::{AwsError, NO_REGION, no_credentials_text};

/// Static credentials for a local emulator (the sandbox accepts any signature).
pub const LOCAL_ACCESS_KEY: (&str, &str) = ("AKIDSANDBOX", "sandbox-secret");

/// The SDK configuration for a local emulator at `url` (the embedded sandbox): static
/// credentials ([`LOCAL_ACCESS_KEY`]), us-east-1, `url` for every service, a 3 s connect
/// timeout. The one place such a configuration is built: the demo, the tests and the benches
/// use it, through [`Fleet::for_url`] or directly for raw SDK clients.
pub async fn local_sdk_config(url: &str) -> aws_config::SdkConfig {
    local_sdk_config_in(url, "us-east-1").await
}

/// [`local_sdk_config`] signing for `region` (the sandbox serves one fleet per region, chosen
/// by the request's signing region).
pub async fn local_sdk_config_in(url: &str, region: &str) -> aws_config::SdkConfig {
    aws_config::defaults(BehaviorVersion::latest())
        .app_name(app_name())
        .region(aws_config::Region::new(region.to_string()))
        .credentials_provider(aws_credential_types::Credentials::new(
            LOCAL_ACCESS_KEY.0,
            LOCAL_ACCESS_KEY.1,
            None,
            None,
            "sagedeck-local",
        ))
        .endpoint_url(url)
        .timeout_config(TimeoutConfig::builder().connect_timeout(Duration::from_secs(3)).build())
        .load()
        .await
}

/// `sagedeck`, in every call's user agent (`app/sagedeck`): CloudTrail records it, so the
/// timeline tells sagedeck's own calls from the console's and the CLI's.
pub fn app_name() -> aws_config::AppName {
    aws_config::AppName::new("sagedeck").expect("a valid app name")
}

/// How to reach AWS (or anything that speaks its protocols).
#[derive(Debug, Clone, Default)]
pub struct AwsOptions {
    /// Named profile (`--profile`; else `AWS_PROFILE`; else `default`).
    pub profile: Option<String>,
    /// Region (`--region`; else `AWS_REGION` / the profile's).
    pub region: Option<String>,
    /// Endpoint URL for every service (`--endpoint-url`; else `AWS_ENDPOINT_URL`).
    pub endpoint_url: Option<String>,
    /// TCP/TLS connect timeout (default 3 s).
    pub connect_timeout: Option<Duration>,
    /// Read timeout of one attempt (default 60 s, long enough for slow models).
    pub read_timeout: Option<Duration>,
    /// SDK attempts for control-plane calls, adaptive mode (default 3).
    pub max_attempts: Option<u32>,
}

/// The service clients, and where they point.
#[derive(Clone)]
pub struct Fleet {
    /// SageMaker control plane.
    pub sagemaker: aws_sdk_sagemaker::Client,
    /// SageMaker Runtime. The SDK's own retries are off here: the fleet layer's retry policy
    /// makes every attempt, so each one is counted and classified.
    pub runtime: aws_sdk_sagemakerruntime::Client,
    /// CloudWatch.
    pub cloudwatch: aws_sdk_cloudwatch::Client,
    /// Application Auto Scaling.
    pub autoscaling: aws_sdk_applicationautoscaling::Client,
    /// S3 (path-style when an endpoint URL is forced).
    pub s3: aws_sdk_s3::Client,
    /// STS (GetCallerIdentity: the principal named in the audit log).
    pub sts: aws_sdk_sts::Client,
    /// CloudWatch Logs (container logs, the team's audit trail).
    pub logs: aws_sdk_cloudwatchlogs::Client,
    /// CloudTrail (who changed what). The SDK's own retries are off here: LookupEvents is
    /// throttled at 2 calls/s, and the trail reader paces, counts and backs off every call.
    pub cloudtrail: aws_sdk_cloudtrail::Client,
    /// Endpoint configurations and models described so far (they never change once created).
    pub describe_cache: std::sync::Arc<crate::aws::cache::DescribeCache>,
    /// The control-plane budget of this account and region (shared by every clone).
    pub budget: std::sync::Arc<crate::aws::budget::CallBudget>,
    /// Profile in use (for the header and the audit log).
    pub profile: String,
    /// Region in use.
    pub region: String,
    /// Endpoint URL override, if any.
    pub endpoint_url: Option<String>,
    /// The credentials the clients sign with (the OpenAI API's bearer tokens are minted from them).
    pub credentials: Option<aws_credential_types::provider::SharedCredentialsProvider>,
}

impl std::fmt::Debug for Fleet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fleet")
            .field("profile", &self.profile)
            .field("region", &self.region)
            .field("endpoint_url", &self.endpoint_url)
            .finish()
    }
}

impl Fleet {
    /// Builds the clients from a loaded SDK configuration (tests and embedders use this with a
    /// configuration of their own; `connect` is the CLI's way in).
    /// The fleet layer on a local emulator at `url` (the embedded sandbox): static credentials,
    /// us-east-1, the URL for every service, a short connect timeout.
    pub async fn for_url(url: &str) -> Fleet {
        Fleet::from_sdk_config(&local_sdk_config(url).await, "sandbox".into(), Some(url.to_string()))
    }

    /// The fleet layer on an SDK configuration built elsewhere.
    pub fn from_sdk_config(conf: &aws_config::SdkConfig, profile: String, endpoint_url: Option<String>) -> Fleet {
        let runtime_conf = aws_sdk_sagemakerruntime::config::Builder::from(conf)
            .retry_config(aws_sdk_sagemakerruntime::config::retry::RetryConfig::disabled())
            .build();
        let trail_conf = aws_sdk_cloudtrail::config::Builder::from(conf)
            .retry_config(aws_sdk_cloudtrail::config::retry::RetryConfig::disabled())
            .build();
        let s3_conf = aws_sdk_s3::config::Builder::from(conf)
            .force_path_style(endpoint_url.is_some())
            .build();
        Fleet {
            sagemaker: aws_sdk_sagemaker::Client::new(conf),
            runtime: aws_sdk_sagemakerruntime::Client::from_conf(runtime_conf),
            cloudwatch: aws_sdk_cloudwatch::Client::new(conf),
            autoscaling: aws_sdk_applicationautoscaling::Client::new(conf),
            s3: aws_sdk_s3::Client::from_conf(s3_conf),
            sts: aws_sdk_sts::Client::new(conf),
            logs: aws_sdk_cloudwatchlogs::Client::new(conf),
            cloudtrail: aws_sdk_cloudtrail::Client::from_conf(trail_conf),
            describe_cache: Default::default(),
            budget: Default::default(),
            profile,
            region: conf.region().map(|r| r.to_string()).unwrap_or_default(),
            endpoint_url,
            credentials: conf.credentials_provider(),
        }
    }

    /// This fleet with a control-plane budget of `per_second` calls (a new bucket, shared by the
    /// clones made from the result). The budget paces SageMaker's calls, so its client retries
    /// throttling in the SDK's standard mode (three attempts, backing off) rather than adaptive
    /// mode, whose own client-side limiter would hold calls past their deadlines unseen.
    pub fn with_budget(mut self, per_second: f64) -> Fleet {
        self.budget = std::sync::Arc::new(crate::aws::budget::CallBudget::new(per_second));
        let conf = self.sagemaker.config().to_builder();
        let retry = aws_sdk_sagemaker::config::retry::RetryConfig::standard().with_max_attempts(3);
        self.sagemaker = aws_sdk_sagemaker::Client::from_conf(conf.retry_config(retry).build());
        self
    }

    /// Loads configuration and credentials; fails with one line saying what to set.
    pub async fn connect(opts: &AwsOptions) -> Result<Fleet, AwsError> {
        let mut loader = aws_config::defaults(BehaviorVersion::latest()).app_name(app_name());
        if let Some(p) = &opts.profile {
            loader = loader.profile_name(p);
        }
        if let Some(r) = &opts.region {
            loader = loader.region(aws_config::Region::new(r.clone()));
        }
        if let Some(u) = &opts.endpoint_url {
            loader = loader.endpoint_url(u);
        }
        let timeouts = TimeoutConfig::builder()
            .connect_timeout(opts.connect_timeout.unwrap_or(Duration::from_secs(3)))
            .read_timeout(opts.read_timeout.unwrap_or(Duration::from_secs(60)))
            .build();
        let conf = loader
            .timeout_config(timeouts)
            .retry_config(RetryConfig::adaptive().with_max_attempts(opts.max_attempts.unwrap_or(3)))
            .load()
            .await;
        if conf.region().is_none() {
            return Err(AwsError::Config(NO_REGION.into()));
        }
        let provider = conf
            .credentials_provider()
            .ok_or_else(|| AwsError::Config(no_credentials_text("no credential provider")))?;
        match tokio::time::timeout(Duration::from_secs(10), provider.provide_credentials()).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                return Err(AwsError::Config(no_credentials_text(&crate::aws::error::chain_text(
                    &e,
                ))));
            }
            Err(_) => {
                return Err(AwsError::Config(no_credentials_text(
                    "timed out looking for credentials",
                )));
            }
        }
        let endpoint_url = opts
            .endpoint_url
            .clone()
            .or_else(|| std::env::var("AWS_ENDPOINT_URL").ok());
        let profile = opts
            .profile
            .clone()
            .or_else(|| std::env::var("AWS_PROFILE").ok())
            .unwrap_or_else(|| "default".into());
        Ok(Fleet::from_sdk_config(&conf, profile, endpoint_url))
    }
}
