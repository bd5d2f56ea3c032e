//! The demo's authorization server on its own loopback port: RFC 8414 metadata, dynamic client
//! registration (RFC 7591), `/authorize` approving at once (a redirect carrying the code, and a
//! tiny page for a browser that shows it), and `/token` (authorization_code with PKCE S256 and
//! the `resource` indicator, refresh_token).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::grants::{AuthorizeRequest, Grants, OAuthError, SCOPE};

/// What the routes share.
#[derive(Clone)]
pub struct Issuer {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// Clients, codes and tokens.
    pub grants: Arc<Grants>,
}

/// The authorization server's routes.
pub fn router(issuer: Issuer) -> axum::Router {
    axum::Router::new()
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(issuer)
}

fn no_store(status: StatusCode, body: Value) -> Response {
    (status, [(header::CACHE_CONTROL, "no-store")], axum::Json(body)).into_response()
}

fn refused(status: StatusCode, e: &OAuthError) -> Response {
    no_store(status, e.body())
}

async fn metadata(State(i): State<Issuer>) -> Response {
    axum::Json(json!({
        "issuer": i.url,
        "authorization_endpoint": format!("{}/authorize", i.url),
        "token_endpoint": format!("{}/token", i.url),
        "registration_endpoint": format!("{}/register", i.url),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": [SCOPE],
    }))
    .into_response()
}

async fn register(State(i): State<Issuer>, body: axum::body::Bytes) -> Response {
    let meta: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let uris: Vec<String> = (meta["redirect_uris"].as_array().into_iter().flatten())
        .filter_map(|u| u.as_str().map(str::to_string))
        .collect();
    match i.grants.register(uris.clone()) {
        Ok(id) => {
            let mut answer = json!({
                "client_id": id, "client_id_issued_at": crate::format::now_epoch() as u64,
                "redirect_uris": uris, "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            });
            if let Some(name) = meta["client_name"].as_str() {
                answer["client_name"] = json!(name);
            }
            no_store(StatusCode::CREATED, answer)
        }
        Err(e) => refused(StatusCode::BAD_REQUEST, &e),
    }
}

/// The page a browser shows while it follows the redirect (or when it does not).
const APPROVED_PAGE: &str =
    "<!doctype html><title>sagedeck demo</title><p>sagedeck demo: approved, return to the console.</p>\n";

async fn authorize(State(i): State<Issuer>, Query(q): Query<HashMap<String, String>>) -> Response {
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    let req = AuthorizeRequest {
        client_id: get("client_id"),
        redirect_uri: get("redirect_uri"),
        response_type: get("response_type"),
        code_challenge: get("code_challenge"),
        code_challenge_method: get("code_challenge_method"),
        scope: q.get("scope").cloned(),
        resource: q.get("resource").cloned(),
    };
    // Never redirect to a URI the client did not register (RFC 6749 §4.1.2.1).
    if !i.grants.redirect_allowed(&req.client_id, &req.redirect_uri) {
        let e = OAuthError {
            error: "invalid_client",
            description: "unknown client_id, or a redirect_uri it did not register".into(),
        };
        return refused(StatusCode::BAD_REQUEST, &e);
    }
    let mut back = match reqwest::Url::parse(&req.redirect_uri) {
        Ok(u) => u,
        Err(_) => return (StatusCode::BAD_REQUEST, "bad redirect_uri\n").into_response(),
    };
    {
        let mut pairs = back.query_pairs_mut();
        match i.grants.authorize(&req) {
            Ok(code) => pairs.append_pair("code", &code),
            Err(e) => pairs
                .append_pair("error", e.error)
                .append_pair("error_description", &e.description),
        };
        if let Some(state) = q.get("state") {
            pairs.append_pair("state", state);
        }
    }
    let headers = [
        (header::LOCATION, back.to_string()),
        (header::CONTENT_TYPE, "text/html; charset=utf-8".into()),
        (header::CACHE_CONTROL, "no-store".into()),
    ];
    (StatusCode::FOUND, headers, APPROVED_PAGE).into_response()
}

async fn token(State(i): State<Issuer>, body: axum::body::Bytes) -> Response {
    let Ok(pairs) = serde_urlencoded::from_bytes::<Vec<(String, String)>>(&body) else {
        let e = OAuthError {
            error: "invalid_request",
            description: "the body is not application/x-www-form-urlencoded".into(),
        };
        return refused(StatusCode::BAD_REQUEST, &e);
    };
    let form: HashMap<String, String> = pairs.into_iter().collect();
    match i.grants.token(&form) {
        Ok(t) => no_store(StatusCode::OK, t),
        Err(e) => refused(StatusCode::BAD_REQUEST, &e),
    }
}
