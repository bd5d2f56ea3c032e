//! The token cache of one server: `STATE/oauth/NAME.json`, readable by its owner only, written
//! whole through `local::private`. It holds rmcp's stored credentials (client id, tokens, granted
//! scopes, when they were received) and the origin they were granted for: a server entry whose
//! URL now names another origin finds no token here, so a token never travels to another origin.

use std::path::{Path, PathBuf};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};

/// One server's cached OAuth credentials (a [`CredentialStore`] for rmcp).
#[derive(Debug, Clone)]
pub struct TokenCache {
    path: PathBuf,
    origin: String,
}

#[derive(Serialize, Deserialize)]
struct CacheFile {
    /// `scheme://host:port` of the server the tokens were granted for.
    origin: String,
    credentials: StoredCredentials,
}

/// The directory of the token caches: `$XDG_STATE_HOME/sagedeck/oauth`.
pub fn cache_dir() -> Option<PathBuf> {
    crate::local::dirs::state_dir().map(|d| d.join("oauth"))
}

/// `scheme://host:port` of `url` (None when it is not a URL with a host).
pub fn origin_of(url: &str) -> Option<String> {
    let u = reqwest::Url::parse(url).ok()?;
    u.host_str()?;
    Some(u.origin().ascii_serialization())
}

/// A file name for a server name: letters, digits, `-` and `_` kept, any other byte as `%XX`.
fn file_name(server: &str) -> String {
    let mut out = String::new();
    for b in server.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    format!("{out}.json")
}

fn store_error(what: &str, path: &Path, e: impl std::fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(format!("{what} {}: {e}", path.display()))
}

impl TokenCache {
    /// The cache of `server` at `url` in `dir`.
    pub fn in_dir(dir: &Path, server: &str, url: &str) -> TokenCache {
        TokenCache {
            path: dir.join(file_name(server)),
            origin: origin_of(url).unwrap_or_default(),
        }
    }

    /// The cache of `server` at `url` in the state directory (None without a home directory).
    pub fn for_server(server: &str, url: &str) -> Option<TokenCache> {
        cache_dir().map(|d| TokenCache::in_dir(&d, server, url))
    }

    /// Where it is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The credentials cached for this origin; None when there are none, they were granted for
    /// another origin, or the file cannot be read as a cache.
    pub fn read(&self) -> Option<StoredCredentials> {
        let text = std::fs::read(&self.path).ok()?;
        let file: CacheFile = serde_json::from_slice(&text).ok()?;
        (file.origin == self.origin && !self.origin.is_empty()).then_some(file.credentials)
    }

    /// Whether a cache file exists for this server, whatever origin it holds.
    pub fn exists(&self) -> bool {
        self.path.exists()
    }

    /// Deletes the cache; whether there was one.
    pub fn remove(&self) -> std::io::Result<bool> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}

#[async_trait::async_trait]
impl CredentialStore for TokenCache {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self.read())
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let file = CacheFile {
            origin: self.origin.clone(),
            credentials,
        };
        let bytes = serde_json::to_vec_pretty(&file).map_err(|e| store_error("cannot encode", &self.path, e))?;
        crate::local::private::write_private(&self.path, &bytes).map_err(|e| store_error("cannot write", &self.path, e))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.remove()
            .map(|_| ())
            .map_err(|e| store_error("cannot delete", &self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bound_to_the_origin() {
        let dir = tempfile::tempdir().unwrap();
        let here = TokenCache::in_dir(dir.path(), "my server/1", "http://127.0.0.1:8000/mcp");
        assert!(here.path().ends_with("my%20server%2F1.json"));
        here.save(StoredCredentials::new("cid".into(), None, vec!["read".into()], Some(1)))
            .await
            .unwrap();
        assert_eq!(here.load().await.unwrap().unwrap().client_id, "cid");
        let same = TokenCache::in_dir(dir.path(), "my server/1", "http://127.0.0.1:8000/other");
        assert!(same.read().is_some(), "another path of the same origin");
        for other in [
            "http://127.0.0.1:8001/mcp",
            "https://127.0.0.1:8000/mcp",
            "http://localhost:8000/mcp",
        ] {
            let moved = TokenCache::in_dir(dir.path(), "my server/1", other);
            assert!(moved.read().is_none(), "{other} is another origin");
        }
        here.clear().await.unwrap();
        assert!(!here.exists());
        assert!(!here.remove().unwrap(), "removing twice is not an error");
    }
}
