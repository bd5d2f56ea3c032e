//! Who made a call: the principal behind the access key of a request's SigV4 `Authorization`
//! header (`Credential=AKID/DATE/REGION/SERVICE/aws4_request`), so that two "people" using the
//! sandbox can be told apart. Any key is accepted, as everywhere in the sandbox; a small table
//! names the known ones, keys starting with `ASIA` are sessions of an assumed role (as AWS's
//! temporary credentials are), and any other key is a user named after it (`sandbox-<KEY>`).
//!
//! CloudTrail's `userIdentity`, STS GetCallerIdentity and LookupEvents' `Username` all read the
//! same [`Identity`].

use std::net::IpAddr;

use axum::http::HeaderMap;
use serde_json::{Value, json};

use crate::sandbox::world::hash::fxhash;

/// The key sagedeck and the tests sign with against the sandbox: alice's.
pub const ALICE_KEY: &str = "AKIDSANDBOX";
/// A teammate's key: bob's (the demo's second person, the tests' other operator).
pub const BOB_KEY: &str = "AKIDSANDBOXBOB";
/// A pipeline's session key: the role `deploy-pipeline`, session `ci-build`.
pub const CI_SESSION_KEY: &str = "ASIASANDBOXCI";

/// Known users: (access key, user name).
const USERS: &[(&str, &str)] = &[(ALICE_KEY, "alice"), (BOB_KEY, "bob")];
/// Known sessions: (access key, role name, session name).
const SESSIONS: &[(&str, &str, &str)] = &[(CI_SESSION_KEY, "deploy-pipeline", "ci-build")];
/// The role of a session key the table does not name.
const DEFAULT_ROLE: &str = "sandbox-role";

/// The kind of principal a key belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// An IAM user (a long-term `AKIA…` key).
    User {
        /// The user name.
        name: String,
    },
    /// A session of an assumed role (a temporary `ASIA…` key).
    AssumedRole {
        /// The role name.
        role: String,
        /// The role session name.
        session: String,
    },
    /// An unsigned request: no key, no principal.
    Unknown,
}

/// The principal behind one access key in one account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The access key id, when the request was signed.
    pub access_key: Option<String>,
    /// Who holds it.
    pub principal: Principal,
    /// The account of the principal.
    pub account: String,
}

impl Identity {
    /// The identity of `key` (None: unsigned) in `account`.
    pub fn of_key(key: Option<&str>, account: &str) -> Identity {
        let principal = match key {
            None => Principal::Unknown,
            Some(key) => principal_of(key),
        };
        Identity {
            access_key: key.map(str::to_string),
            principal,
            account: account.to_string(),
        }
    }

    /// The caller's ARN: `arn:aws:iam::ACCOUNT:user/NAME` or
    /// `arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`.
    pub fn arn(&self) -> String {
        let account = &self.account;
        match &self.principal {
            Principal::User { name } => format!("arn:aws:iam::{account}:user/{name}"),
            Principal::AssumedRole { role, session } => {
                format!("arn:aws:sts::{account}:assumed-role/{role}/{session}")
            }
            Principal::Unknown => format!("arn:aws:iam::{account}:root"),
        }
    }

    /// The principal id: `AIDA…` for a user, `AROA…:SESSION` for a role's session (GetCallerIdentity's
    /// `UserId`).
    pub fn principal_id(&self) -> String {
        match &self.principal {
            Principal::User { name } => unique_id("AIDA", name),
            Principal::AssumedRole { role, session } => format!("{}:{session}", unique_id("AROA", role)),
            Principal::Unknown => String::new(),
        }
    }

    /// The name LookupEvents reports and filters as `Username`: the user's name, or the role
    /// session's name.
    pub fn user_name(&self) -> Option<&str> {
        match &self.principal {
            Principal::User { name } => Some(name),
            Principal::AssumedRole { session, .. } => Some(session),
            Principal::Unknown => None,
        }
    }

    /// CloudTrail's `userIdentity` block; `issued` is the session's creation date (ISO 8601).
    pub fn user_identity(&self, issued: &str) -> Value {
        let account = &self.account;
        let mut v = match &self.principal {
            Principal::User { name } => json!({
                "type": "IAMUser", "principalId": self.principal_id(), "arn": self.arn(),
                "accountId": account, "userName": name,
            }),
            Principal::AssumedRole { role, .. } => json!({
                "type": "AssumedRole", "principalId": self.principal_id(), "arn": self.arn(),
                "accountId": account,
                "sessionContext": {
                    "sessionIssuer": {
                        "type": "Role", "principalId": unique_id("AROA", role),
                        "arn": format!("arn:aws:iam::{account}:role/{role}"),
                        "accountId": account, "userName": role,
                    },
                    "webIdFederationData": {},
                    "attributes": {"creationDate": issued, "mfaAuthenticated": "false"},
                },
            }),
            Principal::Unknown => json!({"type": "Unknown", "principalId": "", "accountId": account}),
        };
        if let Some(key) = &self.access_key {
            v["accessKeyId"] = json!(key);
        }
        v
    }
}

/// The principal of a key: the table's, else a session for `ASIA…`, else a user named after it.
fn principal_of(key: &str) -> Principal {
    if let Some((_, name)) = USERS.iter().find(|(k, _)| *k == key) {
        return Principal::User { name: name.to_string() };
    }
    if let Some((_, role, session)) = SESSIONS.iter().find(|(k, _, _)| *k == key) {
        return Principal::AssumedRole {
            role: role.to_string(),
            session: session.to_string(),
        };
    }
    if key.starts_with("ASIA") {
        return Principal::AssumedRole {
            role: DEFAULT_ROLE.to_string(),
            session: key.to_string(),
        };
    }
    Principal::User {
        name: format!("sandbox-{key}"),
    }
}

/// An IAM unique id: a prefix and 17 characters derived from `name` (stable across runs).
fn unique_id(prefix: &str, name: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut h = fxhash(name);
    let mut id = String::from(prefix);
    for i in 0..17 {
        if i == 12 {
            h = fxhash(&format!("{name}/{h}"));
        }
        id.push(ALPHABET[(h & 31) as usize] as char);
        h >>= 5;
    }
    id
}

/// The access key id named in a SigV4 `Authorization` header.
pub fn access_key(headers: &HeaderMap) -> Option<&str> {
    let auth = headers.get("authorization")?.to_str().ok()?;
    let cred = auth.split("Credential=").nth(1)?;
    cred.split('/').next().filter(|k| !k.is_empty())
}

/// The peer address of a request's connection, which the accept loop puts in its extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerIp(pub IpAddr);

/// A call's caller as CloudTrail sees it: the identity, the client's `User-Agent` and where the
/// call came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The principal behind the request's key.
    pub identity: Identity,
    /// The request's `User-Agent`, as sent.
    pub user_agent: Option<String>,
    /// The peer's address (`127.0.0.1` when unknown: the sandbox serves loopback).
    pub source_ip: String,
}

impl Caller {
    /// The caller of a request with `headers` from `peer`, in `account`.
    pub fn of_request(headers: &HeaderMap, peer: Option<PeerIp>, account: &str) -> Caller {
        let user_agent = headers
            .get("user-agent")
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        Caller {
            identity: Identity::of_key(access_key(headers), account),
            user_agent,
            source_ip: peer.map_or_else(|| "127.0.0.1".to_string(), |p| p.0.to_string()),
        }
    }

    /// A caller inside the sandbox itself (the demo's teammate) with `key` and `user_agent`.
    pub fn internal(key: &str, user_agent: &str, account: &str) -> Caller {
        Caller {
            identity: Identity::of_key(Some(key), account),
            user_agent: Some(user_agent.to_string()),
            source_ip: "127.0.0.1".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_users_sessions_and_derived_names() {
        let alice = Identity::of_key(Some(ALICE_KEY), "123456789012");
        assert_eq!(alice.arn(), "arn:aws:iam::123456789012:user/alice");
        assert_eq!(alice.user_name(), Some("alice"));
        assert!(alice.principal_id().starts_with("AIDA") && alice.principal_id().len() == 21);
        let bob = Identity::of_key(Some(BOB_KEY), "123456789012");
        assert_eq!(bob.arn(), "arn:aws:iam::123456789012:user/bob");
        assert_ne!(alice.principal_id(), bob.principal_id());
        let ci = Identity::of_key(Some(CI_SESSION_KEY), "1");
        assert_eq!(ci.arn(), "arn:aws:sts::1:assumed-role/deploy-pipeline/ci-build");
        assert_eq!(ci.user_name(), Some("ci-build"));
        assert!(ci.principal_id().starts_with("AROA") && ci.principal_id().ends_with(":ci-build"));
        let other = Identity::of_key(Some("ASIAXYZ"), "1");
        assert_eq!(other.arn(), "arn:aws:sts::1:assumed-role/sandbox-role/ASIAXYZ");
        let derived = Identity::of_key(Some("AKIAOTHER"), "1");
        assert_eq!(derived.arn(), "arn:aws:iam::1:user/sandbox-AKIAOTHER");
        assert_eq!(Identity::of_key(None, "1").user_name(), None);
    }

    #[test]
    fn user_identity_has_cloudtrails_fields() {
        let ci = Identity::of_key(Some(CI_SESSION_KEY), "1").user_identity("2026-12-04T00:00:00Z");
        assert_eq!(ci["type"], "AssumedRole");
        assert_eq!(ci["accessKeyId"], CI_SESSION_KEY);
        assert_eq!(
            ci["sessionContext"]["sessionIssuer"]["arn"],
            "arn:aws:iam::1:role/deploy-pipeline"
        );
        let bob = Identity::of_key(Some(BOB_KEY), "1").user_identity("x");
        assert_eq!(bob["type"], "IAMUser");
        assert_eq!(bob["userName"], "bob");
        assert!(bob.get("sessionContext").is_none());
    }

    #[test]
    fn callers_are_read_from_the_request() {
        let mut h = HeaderMap::new();
        h.insert(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDSANDBOXBOB/20261204/us-east-1/sagemaker/aws4_request, SignedHeaders=host, Signature=0"
                .parse()
                .unwrap(),
        );
        h.insert("user-agent", "Boto3/1.44.8 md/Botocore#1.44.8".parse().unwrap());
        let peer = PeerIp("127.0.0.2".parse().unwrap());
        let c = Caller::of_request(&h, Some(peer), "1");
        assert_eq!(c.identity.user_name(), Some("bob"));
        assert_eq!(c.user_agent.as_deref(), Some("Boto3/1.44.8 md/Botocore#1.44.8"));
        assert_eq!(c.source_ip, "127.0.0.2");
        let anonymous = Caller::of_request(&HeaderMap::new(), None, "1");
        assert_eq!(anonymous.identity.principal, Principal::Unknown);
        assert_eq!(anonymous.source_ip, "127.0.0.1");
    }
}
