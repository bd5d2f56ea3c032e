//! OAuth 2.1 for HTTP MCP servers, through rmcp's authorization support. `sagedeck tools login
//! SERVER` ([`login`]) follows the server's 401 challenge to its protected-resource metadata and
//! authorization server, registers sagedeck dynamically where offered (else uses the entry's
//! `oauth.clientId`), sends the user to the authorization URL with PKCE and the `resource`
//! indicator, and takes the code on a loopback redirect. The tokens are cached per server in the
//! state directory (0600, [`cache`]); a connection to a server with a cached token sends it
//! (refreshed before it expires) to that server's origin only. Tokens are never printed or logged.

pub mod cache;
pub mod demo;
pub mod login;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::{AuthClient, AuthorizationManager, OAuthClientConfig, StoredCredentials};
use serde::Serialize;

use super::connect::ConnectError;
use super::registry::{ServerEntry, TransportKind};
pub use cache::TokenCache;
pub use login::{LoginError, LoginOptions, LoginResult, LoginStep, PendingLogin};

/// How sagedeck authenticates to a server, as `tools list` and the Tools pane show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AuthState {
    /// No authentication (stdio, or an open HTTP server).
    None,
    /// An `Authorization` header from the registry.
    StaticHeader,
    /// A cached OAuth token.
    #[serde(rename = "oauth")]
    OAuth {
        /// When the access token expires (seconds since the epoch), when the server said.
        valid_until: Option<f64>,
        /// Whether a refresh token is held (an expired token is then renewed on next use).
        refreshable: bool,
        /// The scopes granted.
        scopes: Vec<String>,
    },
    /// The server wants an OAuth login that sagedeck does not have (or no longer has).
    NeedsLogin {
        /// Why, in a few words.
        why: String,
    },
}

impl AuthState {
    /// The few words the console's server list shows (None when there is no authentication).
    pub fn short_label(&self) -> Option<String> {
        let now = crate::format::now_epoch();
        Some(match self {
            AuthState::None => return None,
            AuthState::StaticHeader => "static header".into(),
            AuthState::OAuth {
                valid_until: Some(t), ..
            } if *t > now => {
                let at = crate::format::time_text(*t);
                format!("OAuth until {}", at.get(11..).unwrap_or(&at))
            }
            AuthState::OAuth { refreshable: true, .. } | AuthState::OAuth { valid_until: None, .. } => "OAuth".into(),
            AuthState::OAuth { .. } | AuthState::NeedsLogin { .. } => "needs login (o)".into(),
        })
    }

    /// One short line: `none`, `static header`, `OAuth: valid until …`, `needs login (…)`.
    pub fn label(&self) -> String {
        let now = crate::format::now_epoch();
        match self {
            AuthState::None => "none".into(),
            AuthState::StaticHeader => "static header".into(),
            AuthState::OAuth {
                valid_until: Some(t), ..
            } if *t > now => format!("OAuth: valid until {} UTC", crate::format::time_text(*t)),
            AuthState::OAuth {
                valid_until: Some(_),
                refreshable: true,
                ..
            } => "OAuth: expired, refreshed on next use".into(),
            AuthState::OAuth {
                valid_until: Some(_), ..
            } => "OAuth: expired, needs login".into(),
            AuthState::OAuth { valid_until: None, .. } => "OAuth: logged in (no expiry given)".into(),
            AuthState::NeedsLogin { why } => format!("needs login ({why})"),
        }
    }
}

/// Whether the registry gives `entry` an `Authorization` header (OAuth is then not used).
pub fn has_static_authorization(entry: &ServerEntry) -> bool {
    entry.headers.keys().any(|k| k.eq_ignore_ascii_case("authorization"))
}

/// The cache of an HTTP entry (None for stdio and SSE entries, or without a state directory).
pub fn cache_of(entry: &ServerEntry) -> Option<TokenCache> {
    let url = entry
        .url
        .as_deref()
        .filter(|_| entry.transport == TransportKind::Http)?;
    TokenCache::for_server(&entry.name, url)
}

/// What is known of `entry`'s authentication without asking the network.
pub fn auth_state(entry: &ServerEntry) -> AuthState {
    if entry.transport != TransportKind::Http {
        return AuthState::None;
    }
    if has_static_authorization(entry) {
        return AuthState::StaticHeader;
    }
    let cache = cache_of(entry);
    let moved = cache.as_ref().is_some_and(|c| c.exists() && c.read().is_none());
    state_of(cache.and_then(|c| c.read()), entry, moved)
}

/// The state of an HTTP entry without a static header, from its cached credentials.
fn state_of(creds: Option<StoredCredentials>, entry: &ServerEntry, moved: bool) -> AuthState {
    use oauth2::TokenResponse;
    let Some(token) = creds.as_ref().and_then(|c| c.token_response.as_ref()) else {
        return match (moved, entry.oauth.client_id.is_some()) {
            (true, _) => AuthState::NeedsLogin {
                why: "the token was granted to another origin".into(),
            },
            (false, true) => AuthState::NeedsLogin {
                why: "not logged in".into(),
            },
            (false, false) => AuthState::None,
        };
    };
    let received = creds.as_ref().and_then(|c| c.token_received_at);
    let valid_until = token
        .expires_in()
        .zip(received)
        .map(|(ttl, at)| (at as f64) + ttl.as_secs_f64());
    AuthState::OAuth {
        valid_until,
        refreshable: token.refresh_token().is_some(),
        scopes: creds.map(|c| c.granted_scopes).unwrap_or_default(),
    }
}

/// The OAuth side of a streamable HTTP connection to `entry`: an rmcp [`AuthClient`] around
/// `client` when a token is cached for the entry's origin (discovery runs again to know the
/// token endpoint for refreshes), else None (the connection goes without, and a 401 challenge is
/// explained as a login to make).
pub async fn authorized(
    entry: &ServerEntry,
    client: reqwest::Client,
) -> Result<Option<AuthClient<reqwest::Client>>, ConnectError> {
    if has_static_authorization(entry) {
        return Ok(None);
    }
    let Some(cache) = cache_of(entry).filter(|c| c.read().is_some_and(|c| c.token_response.is_some())) else {
        return Ok(None);
    };
    let url = entry.url.clone().unwrap_or_default();
    let fail = |e: rmcp::transport::AuthError| ConnectError::Protocol(format!("OAuth: {e}"));
    let mut manager = AuthorizationManager::new(url.as_str()).await.map_err(fail)?;
    manager.set_credential_store(cache);
    if !manager.initialize_from_store().await.map_err(fail)? {
        return Ok(None);
    }
    if let (Some(id), Some(secret)) = (&entry.oauth.client_id, &entry.oauth.client_secret) {
        let config = OAuthClientConfig::new(id.clone(), url.clone()).with_client_secret(secret.expose());
        manager.configure_client(config).map_err(fail)?;
    }
    Ok(Some(AuthClient::new(client, manager)))
}

/// Seconds since the epoch of `t` (0 before it).
pub fn epoch(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::registry::{OAuthSettings, Secret};
    use oauth2::basic::BasicTokenType;
    use oauth2::{AccessToken, RefreshToken};
    use rmcp::transport::auth::{OAuthTokenResponse, VendorExtraTokenFields};

    fn entry(headers: &[(&str, &str)], client_id: Option<&str>) -> ServerEntry {
        ServerEntry {
            name: "s".into(),
            transport: TransportKind::Http,
            command: None,
            args: vec![],
            env: Default::default(),
            cwd: None,
            url: Some("http://127.0.0.1:1/mcp".into()),
            headers: headers.iter().map(|(k, v)| (k.to_string(), Secret::new(*v))).collect(),
            oauth: OAuthSettings {
                client_id: client_id.map(str::to_string),
                ..Default::default()
            },
        }
    }

    fn creds(ttl: Option<u64>, refresh: bool, received: u64) -> StoredCredentials {
        let mut t = OAuthTokenResponse::new(
            AccessToken::new("at-secret".into()),
            BasicTokenType::Bearer,
            VendorExtraTokenFields::default(),
        );
        t.set_expires_in(ttl.map(Duration::from_secs).as_ref());
        if refresh {
            t.set_refresh_token(Some(RefreshToken::new("rt-secret".into())));
        }
        StoredCredentials::new("cid".into(), Some(t), vec!["read".into()], Some(received))
    }

    #[test]
    fn states_and_labels() {
        let now = crate::format::now_epoch() as u64;
        assert_eq!(
            auth_state(&entry(&[("authorization", "Bearer x")], None)),
            AuthState::StaticHeader
        );
        let plain = entry(&[], None);
        assert_eq!(state_of(None, &plain, false), AuthState::None);
        let configured = entry(&[], Some("sagedeck"));
        assert_eq!(
            state_of(None, &configured, false).label(),
            "needs login (not logged in)"
        );
        assert!(state_of(None, &plain, true).label().contains("another origin"));
        let valid = state_of(Some(creds(Some(3600), true, now)), &plain, false);
        assert!(valid.label().starts_with("OAuth: valid until "), "{}", valid.label());
        assert!(valid.label().ends_with(" UTC"));
        let stale = state_of(Some(creds(Some(60), true, now - 120)), &plain, false);
        assert_eq!(stale.label(), "OAuth: expired, refreshed on next use");
        let dead = state_of(Some(creds(Some(60), false, now - 120)), &plain, false);
        assert_eq!(dead.label(), "OAuth: expired, needs login");
        let json = serde_json::to_string(&valid).unwrap();
        assert!(
            json.contains("\"kind\":\"oauth\"") && !json.contains("secret"),
            "{json}"
        );
    }
}
