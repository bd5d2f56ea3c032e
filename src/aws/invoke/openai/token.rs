//! The bearer token of SageMaker's OpenAI-compatible API, minted locally from AWS credentials
//! exactly as AWS's own generator builds it (`sagemaker.core.token_generator` in the
//! `sagemaker-core` Python package, over botocore's `SigV4QueryAuth`): a SigV4 query-presigned
//! `POST https://sagemaker.amazonaws.com/?Action=CallWithBearerToken` for service `sagemaker` in
//! the region's scope with an expiry, its URL without the scheme plus `&Version=1`, base64,
//! prefixed `sagemaker-api-key-`. The token is a credential: [`BearerToken`]'s `Debug` and
//! `Display` never show it, and only [`BearerToken::expose`] hands it out, for the one header or
//! the one line that must carry it.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{SignableBody, SignableRequest, SignatureLocation, SigningSettings, sign};
use aws_sigv4::sign::v4;
use base64::Engine;
use tokio::sync::Mutex;

use crate::aws::config::Fleet;
use crate::aws::error::AwsError;

/// What every token starts with.
pub const TOKEN_PREFIX: &str = "sagemaker-api-key-";
/// The longest life AWS gives a token: 12 hours.
pub const MAX_TOKEN_LIFE: Duration = Duration::from_secs(43_200);
/// The host the presigned request is addressed to, whatever the region.
const TOKEN_HOST: &str = "sagemaker.amazonaws.com";
/// A token is renewed when less than this share of its life is left (and at least a minute).
const RENEW_SHARE: f64 = 0.2;

/// A minted bearer token. `Debug` and `Display` show only its expiry and region.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken {
    secret: String,
    /// When AWS stops accepting it.
    pub expires_at: SystemTime,
    /// Its life from its minting to its end.
    pub life: Duration,
    /// The region whose scope it was signed in.
    pub region: String,
}

impl BearerToken {
    /// The token itself, for the `Authorization` header or the `OPENAI_API_KEY` line; never
    /// for a log, a transcript or the audit log.
    pub fn expose(&self) -> &str {
        &self.secret
    }

    /// Whether it still has more than its renewal margin of life at `now`.
    pub fn is_fresh_at(&self, now: SystemTime) -> bool {
        let margin = self
            .life
            .mul_f64(RENEW_SHARE)
            .max(Duration::from_secs(60))
            .min(self.life / 2);
        self.expires_at.duration_since(now).is_ok_and(|left| left > margin)
    }
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BearerToken({self})")
    }
}

impl std::fmt::Display for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let until = humantime::format_rfc3339_seconds(self.expires_at);
        write!(f, "{TOKEN_PREFIX}… ({}, until {until})", self.region)
    }
}

/// The query string's percent-encoding (botocore's `percent_encode`: all but `A-Za-z0-9-_.~`).
fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Mints a token from `credentials` for `region`, signed at `now`, living `life` (1 s to 12 h).
/// The same inputs give AWS's generator's string, byte for byte.
pub fn mint(credentials: &Credentials, region: &str, now: SystemTime, life: Duration) -> Result<BearerToken, AwsError> {
    if life < Duration::from_secs(1) || life > MAX_TOKEN_LIFE {
        return Err(AwsError::Validation(format!(
            "a token lives from 1 s to 12 h (43200 s); {} s asked",
            life.as_secs()
        )));
    }
    let life = Duration::from_secs(life.as_secs());
    let identity = credentials.clone().into();
    let mut settings = SigningSettings::default();
    settings.signature_location = SignatureLocation::QueryParams;
    settings.expires_in = Some(life);
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name("sagemaker")
        .time(now)
        .settings(settings)
        .build()
        .map_err(|e| AwsError::Config(format!("cannot sign the token: {e}")))?
        .into();
    let url = format!("https://{TOKEN_HOST}/?Action=CallWithBearerToken");
    let request = SignableRequest::new("POST", &url, std::iter::empty(), SignableBody::Bytes(&[]))
        .map_err(|e| AwsError::Config(format!("cannot sign the token: {e}")))?;
    let (instructions, _) = sign(request, &params)
        .map_err(|e| AwsError::Config(format!("cannot sign the token: {e}")))?
        .into_parts();
    let signed: Vec<(&str, &str)> = instructions.params().iter().map(|(k, v)| (*k, v.as_ref())).collect();
    // botocore's order: the operation's parameters, its auth parameters, then the signature.
    let order = [
        "X-Amz-Algorithm",
        "X-Amz-Credential",
        "X-Amz-Date",
        "X-Amz-Expires",
        "X-Amz-SignedHeaders",
        "X-Amz-Security-Token",
        "X-Amz-Signature",
    ];
    let mut presigned = format!("{TOKEN_HOST}/?Action=CallWithBearerToken");
    for name in order {
        if let Some((_, value)) = signed.iter().find(|(k, _)| *k == name) {
            presigned.push_str(&format!("&{name}={}", encode(value)));
        }
    }
    presigned.push_str("&Version=1");
    let secret = format!(
        "{TOKEN_PREFIX}{}",
        base64::engine::general_purpose::STANDARD.encode(presigned)
    );
    let mut expires_at = now + life;
    if let Some(creds_end) = credentials.expiry() {
        expires_at = expires_at.min(creds_end);
    }
    Ok(BearerToken {
        secret,
        expires_at,
        life: expires_at.duration_since(now).unwrap_or_default(),
        region: region.to_string(),
    })
}

/// Hands out a fresh token, minting a new one from the fleet's credentials when the last one is
/// near its end (or the credentials it was signed with were renewed).
#[derive(Clone)]
pub struct TokenSource {
    fleet: Fleet,
    life: Duration,
    current: Arc<Mutex<Option<BearerToken>>>,
    gate: Option<(MintGate, MintNotice)>,
}

/// What a mint is for, told to the [`MintGate`] before it happens (never the token).
#[derive(Debug, Clone, PartialEq)]
pub struct MintNotice {
    /// The endpoint the token is for.
    pub endpoint: String,
    /// Its inference component, when the calls go to one.
    pub component: Option<String>,
    /// The OpenAI-compatible base URL the token is used on.
    pub base_url: String,
    /// When the token will end.
    pub until: SystemTime,
}

/// Told how a mint went (`Ok`, or the error text).
pub type MintFinish = Box<dyn FnOnce(Result<(), String>) + Send>;

/// Asked before every mint of a [`TokenSource`]: `Err` refuses it (nothing is minted, the error
/// is the call's), `Ok` carries what to tell once it is done. The audit log's record of a
/// minted token goes through this (`aws::change::token`).
pub type MintGate = Arc<dyn Fn(&MintNotice) -> Result<MintFinish, String> + Send + Sync>;

impl std::fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSource").field("life", &self.life).finish()
    }
}

impl TokenSource {
    /// Tokens of `life` from the fleet's credentials.
    pub fn new(fleet: Fleet, life: Duration) -> TokenSource {
        TokenSource {
            fleet,
            life,
            current: Arc::new(Mutex::new(None)),
            gate: None,
        }
    }

    /// The source with every mint asked of `gate` first, told `notice` (its `until` set at each
    /// mint).
    pub fn gated(mut self, gate: MintGate, notice: MintNotice) -> TokenSource {
        self.gate = Some((gate, notice));
        self
    }

    /// A token with life left: the last one, or a new one.
    pub async fn token(&self) -> Result<BearerToken, AwsError> {
        let mut current = self.current.lock().await;
        if let Some(t) = current.as_ref().filter(|t| t.is_fresh_at(SystemTime::now())) {
            return Ok(t.clone());
        }
        let finish = match &self.gate {
            Some((gate, notice)) => {
                let notice = MintNotice {
                    until: SystemTime::now() + self.life,
                    ..notice.clone()
                };
                Some(gate(&notice).map_err(AwsError::Config)?)
            }
            None => None,
        };
        let minted = self.fleet.mint_bearer_token(self.life).await;
        if let Some(finish) = finish {
            finish(minted.as_ref().map(|_| ()).map_err(|e| e.to_string()));
        }
        let fresh = minted?;
        *current = Some(fresh.clone());
        Ok(fresh)
    }

    /// Forgets the held token (after a 401: the next call mints anew).
    pub async fn forget(&self) {
        *self.current.lock().await = None;
    }
}

impl Fleet {
    /// Mints a token of `life` from the session's credentials (the SDK's credential chain, as
    /// the runtime client signs with), for the fleet's region.
    pub async fn mint_bearer_token(&self, life: Duration) -> Result<BearerToken, AwsError> {
        use aws_credential_types::provider::ProvideCredentials;
        let provider = self
            .credentials
            .as_ref()
            .ok_or_else(|| AwsError::Config("no AWS credentials to mint a token with".into()))?;
        let credentials = provider
            .provide_credentials()
            .await
            .map_err(|e| AwsError::Config(format!("no AWS credentials to mint a token with: {e}")))?;
        if self.region.is_empty() {
            return Err(AwsError::Config(crate::aws::error::NO_REGION.into()));
        }
        mint(&credentials, &self.region, SystemTime::now(), life)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-04T21:00:00Z.
    fn fixed_time() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_418_000)
    }

    /// The expected strings were made once by AWS's generator, `_generate_token` of
    /// `sagemaker/core/token_generator/token_generator.py` in `sagemaker-core` 2.27.0 (botocore
    /// 1.44), with `botocore.auth.get_current_datetime` replaced by a function returning
    /// `datetime(2026, 12, 4, 21, 0, 0)`:
    /// `_generate_token(Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"), "us-west-2", 3600)`
    /// and `_generate_token(Credentials("ASIAEXAMPLE", "secret/with+chars",
    /// "FwoGZXIvYXdzE+session/token=="), "eu-west-1", 43200)`.
    const AWS_STATIC: &str = "sagemaker-api-key-c2FnZW1ha2VyLmFtYXpvbmF3cy5jb20vP0FjdGlvbj1DYWxsV2l0aEJlYXJlclRva2VuJlgtQW16LUFsZ29yaXRobT1BV1M0LUhNQUMtU0hBMjU2JlgtQW16LUNyZWRlbnRpYWw9QUtJREVYQU1QTEUlMkYyMDI2MTIwNCUyRnVzLXdlc3QtMiUyRnNhZ2VtYWtlciUyRmF3czRfcmVxdWVzdCZYLUFtei1EYXRlPTIwMjYxMjA0VDIxMDAwMFomWC1BbXotRXhwaXJlcz0zNjAwJlgtQW16LVNpZ25lZEhlYWRlcnM9aG9zdCZYLUFtei1TaWduYXR1cmU9Y2MzZWFjNTVjODdmNDY2Zjc3OWJjYThiOTJmYjg0YTJkMzA4YzQ0MzM0MDc2MjAyYmQ0NjA1ZTExMDJiY2EzOSZWZXJzaW9uPTE=";
    const AWS_SESSION: &str = "sagemaker-api-key-c2FnZW1ha2VyLmFtYXpvbmF3cy5jb20vP0FjdGlvbj1DYWxsV2l0aEJlYXJlclRva2VuJlgtQW16LUFsZ29yaXRobT1BV1M0LUhNQUMtU0hBMjU2JlgtQW16LUNyZWRlbnRpYWw9QVNJQUVYQU1QTEUlMkYyMDI2MTIwNCUyRmV1LXdlc3QtMSUyRnNhZ2VtYWtlciUyRmF3czRfcmVxdWVzdCZYLUFtei1EYXRlPTIwMjYxMjA0VDIxMDAwMFomWC1BbXotRXhwaXJlcz00MzIwMCZYLUFtei1TaWduZWRIZWFkZXJzPWhvc3QmWC1BbXotU2VjdXJpdHktVG9rZW49RndvR1pYSXZZWGR6RSUyQnNlc3Npb24lMkZ0b2tlbiUzRCUzRCZYLUFtei1TaWduYXR1cmU9N2E4YTlmZWVkZjNkZjFiN2Q4Y2UyOTdlZTE5MzQ1YjdjZDQ0YTZmMjA4Y2Q1NGY3ZWZiY2JhMjhkYmVjMzg4NiZWZXJzaW9uPTE=";

    #[test]
    fn the_token_is_aws_generators_byte_for_byte() {
        let creds = Credentials::new(
            "AKIDEXAMPLE",
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            None,
            None,
            "t",
        );
        let t = mint(&creds, "us-west-2", fixed_time(), Duration::from_secs(3600)).unwrap();
        assert_eq!(t.expose(), AWS_STATIC);
        assert_eq!(t.expires_at, fixed_time() + Duration::from_secs(3600));
        let creds = Credentials::new(
            "ASIAEXAMPLE",
            "secret/with+chars",
            Some("FwoGZXIvYXdzE+session/token==".into()),
            None,
            "t",
        );
        let t = mint(&creds, "eu-west-1", fixed_time(), MAX_TOKEN_LIFE).unwrap();
        assert_eq!(t.expose(), AWS_SESSION);
    }

    #[test]
    fn the_secret_never_shows_in_debug_or_display() {
        let creds = Credentials::new(
            "AKIDEXAMPLE",
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            None,
            None,
            "t",
        );
        let t = mint(&creds, "us-west-2", fixed_time(), Duration::from_secs(3600)).unwrap();
        for shown in [format!("{t}"), format!("{t:?}"), format!("{:?}", Some(&t))] {
            assert!(!shown.contains(&t.expose()[TOKEN_PREFIX.len()..]), "{shown}");
            assert!(!shown.contains("c2FnZW1ha2Vy"), "{shown}");
        }
        assert_eq!(
            t.to_string(),
            "sagemaker-api-key-… (us-west-2, until 2026-12-04T22:00:00Z)"
        );
    }

    #[test]
    fn lives_are_bounded_and_renewed_before_the_end() {
        let creds = Credentials::new("A", "S", None, None, "t");
        assert!(mint(&creds, "us-east-1", fixed_time(), Duration::ZERO).is_err());
        assert!(
            mint(
                &creds,
                "us-east-1",
                fixed_time(),
                MAX_TOKEN_LIFE + Duration::from_secs(1)
            )
            .is_err()
        );
        let t = mint(&creds, "us-east-1", fixed_time(), Duration::from_secs(3600)).unwrap();
        assert!(t.is_fresh_at(fixed_time() + Duration::from_secs(2000)));
        assert!(!t.is_fresh_at(fixed_time() + Duration::from_secs(3000)));
        assert!(!t.is_fresh_at(fixed_time() + Duration::from_secs(4000)));
        let short = Credentials::new(
            "A",
            "S",
            Some("T".into()),
            Some(fixed_time() + Duration::from_secs(600)),
            "t",
        );
        let t = mint(&short, "us-east-1", fixed_time(), Duration::from_secs(3600)).unwrap();
        assert_eq!(t.expires_at, fixed_time() + Duration::from_secs(600));
    }
}
