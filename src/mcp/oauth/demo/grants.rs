//! What the demo's authorization server remembers: the clients it registered, the codes it
//! issued (each bound to its client, redirect URI, PKCE challenge, scopes and resource), and the
//! access and refresh tokens. Tokens and codes are 32 random bytes; nothing is written anywhere.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use parking_lot::Mutex;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The scope the demo's tools ask for.
pub const SCOPE: &str = "tools:call";
/// How long an access token lives (short, so that a refresh shows within a demo).
pub const ACCESS_TTL: Duration = Duration::from_secs(300);
/// How long an authorization code may wait for its exchange.
const CODE_TTL: Duration = Duration::from_secs(60);

/// A random token with a prefix saying what it is (`at-`, `rt-`, `code-`, `client-`).
pub fn random_token(prefix: &str) -> String {
    let bytes: [u8; 32] = rand::random();
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// The PKCE S256 challenge of a verifier (RFC 7636 §4.2).
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// An OAuth error answer: the `error` code and a description.
#[derive(Debug, Clone, PartialEq)]
pub struct OAuthError {
    /// `invalid_request`, `invalid_client`, `invalid_grant`, `invalid_target`, …
    pub error: &'static str,
    /// What was wrong.
    pub description: String,
}

impl OAuthError {
    fn new(error: &'static str, description: impl Into<String>) -> OAuthError {
        OAuthError {
            error,
            description: description.into(),
        }
    }

    /// The JSON body of RFC 6749 §5.2.
    pub fn body(&self) -> Value {
        json!({"error": self.error, "error_description": self.description})
    }
}

/// What an authorization request asks for (its query parameters).
#[derive(Debug, Clone, Default)]
pub struct AuthorizeRequest {
    /// `client_id`.
    pub client_id: String,
    /// `redirect_uri`.
    pub redirect_uri: String,
    /// `response_type` (only `code`).
    pub response_type: String,
    /// `code_challenge`.
    pub code_challenge: String,
    /// `code_challenge_method` (only `S256`).
    pub code_challenge_method: String,
    /// `scope`, space-separated.
    pub scope: Option<String>,
    /// `resource` (RFC 8707).
    pub resource: Option<String>,
}

struct Code {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    scopes: Vec<String>,
    resource: Option<String>,
    expires: Instant,
}

struct Access {
    scopes: Vec<String>,
    resource: Option<String>,
    expires: Instant,
}

struct Refresh {
    client_id: String,
    scopes: Vec<String>,
    resource: Option<String>,
}

#[derive(Default)]
struct Inner {
    clients: HashMap<String, Vec<String>>,
    codes: HashMap<String, Code>,
    access: HashMap<String, Access>,
    refresh: HashMap<String, Refresh>,
    refreshes: u64,
}

/// How a bearer token fares at the resource server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Valid, for this resource, with the scope.
    Valid,
    /// Unknown, expired, or granted for another resource.
    Invalid,
    /// Valid but without the scope.
    InsufficientScope,
}

/// The authorization server's memory.
pub struct Grants {
    resource: String,
    ttl: Duration,
    inner: Mutex<Inner>,
}

impl Grants {
    /// Grants for the protected resource `resource` (its URL), access tokens living `ttl`.
    pub fn new(resource: String, ttl: Duration) -> Grants {
        Grants {
            resource,
            ttl,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// How many refresh grants were answered.
    pub fn refreshes(&self) -> u64 {
        self.inner.lock().refreshes
    }

    /// Registers a public client for these redirect URIs (RFC 7591): its id.
    pub fn register(&self, redirect_uris: Vec<String>) -> Result<String, OAuthError> {
        if redirect_uris.is_empty() || !redirect_uris.iter().all(|u| u.starts_with("http://127.0.0.1:")) {
            return Err(OAuthError::new(
                "invalid_redirect_uri",
                "the demo accepts loopback redirects only (http://127.0.0.1:PORT/...)",
            ));
        }
        let id = random_token("client-");
        self.inner.lock().clients.insert(id.clone(), redirect_uris);
        Ok(id)
    }

    /// Whether `client_id` is registered with `redirect_uri` (only then may the server redirect).
    pub fn redirect_allowed(&self, client_id: &str, redirect_uri: &str) -> bool {
        (self.inner.lock().clients.get(client_id)).is_some_and(|uris| uris.iter().any(|u| u == redirect_uri))
    }

    /// Approves an authorization request at once: the code to send back to the redirect URI.
    pub fn authorize(&self, req: &AuthorizeRequest) -> Result<String, OAuthError> {
        if req.response_type != "code" {
            return Err(OAuthError::new("unsupported_response_type", "only `code` is supported"));
        }
        if req.code_challenge.is_empty() || req.code_challenge_method != "S256" {
            return Err(OAuthError::new("invalid_request", "PKCE with S256 is required"));
        }
        self.check_resource(req.resource.as_deref())?;
        let mut scopes: Vec<String> = (req.scope.as_deref().unwrap_or_default().split_whitespace())
            .filter(|s| *s == SCOPE)
            .map(str::to_string)
            .collect();
        if scopes.is_empty() {
            scopes.push(SCOPE.into());
        }
        let code = random_token("code-");
        let grant = Code {
            client_id: req.client_id.clone(),
            redirect_uri: req.redirect_uri.clone(),
            challenge: req.code_challenge.clone(),
            scopes,
            resource: req.resource.clone(),
            expires: Instant::now() + CODE_TTL,
        };
        self.inner.lock().codes.insert(code.clone(), grant);
        Ok(code)
    }

    fn check_resource(&self, resource: Option<&str>) -> Result<(), OAuthError> {
        match resource {
            Some(r) if r != self.resource => Err(OAuthError::new(
                "invalid_target",
                format!("this server protects {} only", self.resource),
            )),
            _ => Ok(()),
        }
    }

    /// The token endpoint: `authorization_code` (PKCE checked) or `refresh_token`.
    pub fn token(&self, form: &HashMap<String, String>) -> Result<Value, OAuthError> {
        let get = |k: &str| form.get(k).map(String::as_str).unwrap_or_default();
        match get("grant_type") {
            "authorization_code" => self.exchange(
                get("code"),
                get("client_id"),
                get("redirect_uri"),
                get("code_verifier"),
                form.get("resource"),
            ),
            "refresh_token" => self.refresh(get("refresh_token"), get("client_id"), form.get("resource")),
            other => Err(OAuthError::new(
                "unsupported_grant_type",
                format!("`{other}`: authorization_code or refresh_token"),
            )),
        }
    }

    fn exchange(
        &self,
        code: &str,
        client_id: &str,
        redirect_uri: &str,
        verifier: &str,
        resource: Option<&String>,
    ) -> Result<Value, OAuthError> {
        // A code is used once, whatever the outcome.
        let grant = self.inner.lock().codes.remove(code);
        let Some(g) = grant.filter(|g| g.expires > Instant::now()) else {
            return Err(OAuthError::new("invalid_grant", "unknown, used or expired code"));
        };
        if g.client_id != client_id || g.redirect_uri != redirect_uri {
            return Err(OAuthError::new(
                "invalid_grant",
                "the code was issued to another client or redirect",
            ));
        }
        if s256(verifier) != g.challenge {
            return Err(OAuthError::new(
                "invalid_grant",
                "the PKCE code_verifier does not match the challenge",
            ));
        }
        if resource.is_some() && resource != g.resource.as_ref() {
            return Err(OAuthError::new(
                "invalid_target",
                "not the resource the code was issued for",
            ));
        }
        Ok(self.issue(g.client_id, g.scopes, g.resource))
    }

    fn refresh(&self, token: &str, client_id: &str, resource: Option<&String>) -> Result<Value, OAuthError> {
        let mut inner = self.inner.lock();
        let Some(r) = inner.refresh.remove(token) else {
            return Err(OAuthError::new("invalid_grant", "unknown or used refresh token"));
        };
        if r.client_id != client_id || (resource.is_some() && resource != r.resource.as_ref()) {
            return Err(OAuthError::new(
                "invalid_grant",
                "the refresh token was issued to another client or resource",
            ));
        }
        inner.refreshes += 1;
        drop(inner);
        Ok(self.issue(r.client_id, r.scopes, r.resource))
    }

    /// A new access token and (rotated) refresh token.
    fn issue(&self, client_id: String, scopes: Vec<String>, resource: Option<String>) -> Value {
        let (access, refresh) = (random_token("at-"), random_token("rt-"));
        let body = json!({
            "access_token": access, "token_type": "Bearer", "expires_in": self.ttl.as_secs(),
            "refresh_token": refresh, "scope": scopes.join(" "),
        });
        let mut inner = self.inner.lock();
        let expires = Instant::now() + self.ttl;
        let a = Access {
            scopes: scopes.clone(),
            resource: resource.clone(),
            expires,
        };
        inner.access.insert(access, a);
        inner.access.retain(|_, a| a.expires > Instant::now());
        let r = Refresh {
            client_id,
            scopes,
            resource,
        };
        inner.refresh.insert(refresh, r);
        body
    }

    /// Checks a bearer token for this resource and the [`SCOPE`].
    pub fn check(&self, token: &str) -> Verdict {
        let inner = self.inner.lock();
        match inner.access.get(token) {
            Some(a) if a.expires > Instant::now() && a.resource.as_ref().is_none_or(|r| *r == self.resource) => {
                if a.scopes.iter().any(|s| s == SCOPE) {
                    Verdict::Valid
                } else {
                    Verdict::InsufficientScope
                }
            }
            _ => Verdict::Invalid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESOURCE: &str = "http://127.0.0.1:1/mcp";

    fn form(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn code_for(g: &Grants, verifier: &str) -> (String, String) {
        let redirect = "http://127.0.0.1:9/callback".to_string();
        let client = g.register(vec![redirect.clone()]).unwrap();
        let req = AuthorizeRequest {
            client_id: client.clone(),
            redirect_uri: redirect,
            response_type: "code".into(),
            code_challenge: s256(verifier),
            code_challenge_method: "S256".into(),
            scope: Some(SCOPE.into()),
            resource: Some(RESOURCE.into()),
        };
        (client, g.authorize(&req).unwrap())
    }

    #[test]
    fn pkce_code_and_refresh() {
        // RFC 7636 appendix B.
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let g = Grants::new(RESOURCE.into(), ACCESS_TTL);
        let (client, code) = code_for(&g, "right-verifier");
        let base = [
            ("grant_type", "authorization_code"),
            ("client_id", client.as_str()),
            ("redirect_uri", "http://127.0.0.1:9/callback"),
            ("code", code.as_str()),
            ("resource", RESOURCE),
        ];
        let mut wrong = form(&base);
        wrong.insert("code_verifier".into(), "wrong".into());
        assert_eq!(g.token(&wrong).unwrap_err().error, "invalid_grant");
        let (client, code) = code_for(&g, "right-verifier");
        let mut ok = form(&[
            ("grant_type", "authorization_code"),
            ("client_id", client.as_str()),
            ("redirect_uri", "http://127.0.0.1:9/callback"),
            ("code", code.as_str()),
            ("resource", RESOURCE),
        ]);
        ok.insert("code_verifier".into(), "right-verifier".into());
        let t = g.token(&ok).unwrap();
        assert_eq!(t["scope"], SCOPE);
        assert_eq!(g.check(t["access_token"].as_str().unwrap()), Verdict::Valid);
        assert_eq!(g.token(&ok).unwrap_err().error, "invalid_grant", "a code is used once");
        assert_eq!(g.check("at-nope"), Verdict::Invalid);
        let rt = t["refresh_token"].as_str().unwrap();
        let again = g
            .token(&form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", rt),
                ("client_id", client.as_str()),
            ]))
            .unwrap();
        assert_ne!(again["access_token"], t["access_token"]);
        assert_eq!(g.refreshes(), 1);
        let reused = form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", rt),
            ("client_id", client.as_str()),
        ]);
        assert_eq!(
            g.token(&reused).unwrap_err().error,
            "invalid_grant",
            "refresh tokens rotate"
        );
    }

    #[test]
    fn refusals() {
        let g = Grants::new(RESOURCE.into(), ACCESS_TTL);
        assert!(g.register(vec!["https://evil.example/cb".into()]).is_err());
        let client = g.register(vec!["http://127.0.0.1:9/callback".into()]).unwrap();
        assert!(g.redirect_allowed(&client, "http://127.0.0.1:9/callback"));
        assert!(!g.redirect_allowed(&client, "http://127.0.0.1:8/callback"));
        let mut req = AuthorizeRequest {
            client_id: client,
            redirect_uri: "http://127.0.0.1:9/callback".into(),
            response_type: "code".into(),
            code_challenge: s256("v"),
            code_challenge_method: "plain".into(),
            ..Default::default()
        };
        assert_eq!(g.authorize(&req).unwrap_err().error, "invalid_request");
        req.code_challenge_method = "S256".into();
        req.resource = Some("http://127.0.0.1:2/mcp".into());
        assert_eq!(g.authorize(&req).unwrap_err().error, "invalid_target");
    }
}
