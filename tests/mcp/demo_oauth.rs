//! `sagedeck demo`'s OAuth-protected MCP server (`sagedeck-demo-oauth`), started in-process as
//! the demo starts it (the demo tools over the sandbox's demo fleet, behind its own
//! authorization server): `tools login` through the real binary, a call, a refresh, `tools
//! logout`; the resource server's 401 challenges; PKCE with a wrong verifier refused at /token.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{CliRun, demo_config, fleet, poll_until, sandbox_with};
use crate::oauth::{Machine, cached_tokens, query};
use sagedeck::mcp::oauth::demo::grants::{ACCESS_TTL, SCOPE, s256};
use sagedeck::mcp::oauth::demo::{DemoOAuthServer, SERVER_NAME};
use sagedeck::mcp::server::ToolServer;
use sagedeck::mcp::tools_config::ToolsConfig;
use sagedeck::sandbox::SandboxHandle;

/// A call of the demo's `classify_intent` through the OAuth server.
async fn call(m: &Machine) -> CliRun {
    let args = [
        "tools",
        "call",
        SERVER_NAME,
        "classify_intent",
        "--arg",
        "user_input=refund",
    ];
    m.run(&args).await
}

async fn demo_server(sb: &SandboxHandle, ttl: Duration) -> DemoOAuthServer {
    let tools = ToolServer::new(fleet(sb).await, ToolsConfig::demo());
    DemoOAuthServer::start(tools, ttl).await.expect("binds loopback")
}

#[tokio::test]
async fn login_call_refresh_logout_on_the_demo_server() {
    let m = Machine::on(sandbox_with(demo_config()).await);
    // A 16 s token: the client refreshes it with 8 s left.
    let server = demo_server(&m.sb, Duration::from_secs(16)).await;
    assert!(server.resource_addr.ip().is_loopback() && server.issuer_addr.ip().is_loopback());
    m.config(json!({ "sagedeck-demo-oauth": {"url": server.url()} }));

    let before = m.run(&["tools", "list"]).await;
    assert_eq!(before.code, 3, "{}", before.stderr);
    assert!(
        before.stderr.contains("run `sagedeck tools login sagedeck-demo-oauth`"),
        "{}",
        before.stderr
    );
    assert!(before.stdout.contains("auth: needs login"), "{}", before.stdout);

    let (url, login) = m.login(SERVER_NAME).await;
    assert_eq!(login.code, 0, "{}\n{}", login.stdout, login.stderr);
    assert!(url.starts_with(&server.issuer_url()), "{url}");
    assert_eq!(query(&url, "code_challenge_method").as_deref(), Some("S256"));
    assert_eq!(query(&url, "resource"), Some(server.url()), "the resource indicator");
    assert!(
        query(&url, "scope").is_some_and(|s| s.split(' ').any(|x| x == SCOPE)),
        "{url}"
    );
    assert!(
        login.stderr.contains("logged in · OAuth: valid until"),
        "{}",
        login.stderr
    );

    let list = m.run(&["tools", "list", "--json"]).await;
    assert_eq!(list.code, 0, "{}", list.stderr);
    let v = list.json();
    assert_eq!(v[0]["status"], "connected", "{v}");
    assert_eq!(v[0]["auth"]["kind"], "oauth", "{v}");
    assert_eq!(v[0]["auth"]["scopes"], json!([SCOPE]));
    let first = cached_tokens(&m.cache(SERVER_NAME));
    let r = call(&m).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("mcp-intent-classifier-prod"), "{}", r.stdout);

    poll_until("a refresh", Duration::from_secs(60), || {
        let (m, server) = (&m, &server);
        async move {
            let r = call(m).await;
            assert_eq!(r.code, 0, "a call before, during or after the refresh: {}", r.stderr);
            (server.grants.refreshes() >= 1).then_some(())
        }
    })
    .await;
    assert_ne!(
        cached_tokens(&m.cache(SERVER_NAME)),
        first,
        "the refreshed tokens replaced the old ones"
    );
    for t in &first {
        for out in [&before, &login, &list, &r] {
            assert!(!out.stdout.contains(t.as_str()) && !out.stderr.contains(t.as_str()));
        }
    }

    let out = m.run(&["tools", "logout", SERVER_NAME]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!m.cache(SERVER_NAME).exists());
    let after = m.run(&["tools", "list"]).await;
    assert_eq!(after.code, 3);
    assert!(after.stdout.contains("auth: needs login"), "{}", after.stdout);
    server.shutdown().await;
}

/// An `initialize` POST to the resource server with this Authorization header.
async fn initialize(url: &str, auth: Option<&str>) -> reqwest::Response {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let mut req = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .json(&body);
    if let Some(a) = auth {
        req = req.header("authorization", a);
    }
    req.send().await.expect("the resource server answers")
}

fn challenge(r: &reqwest::Response) -> String {
    r.headers()["www-authenticate"].to_str().unwrap().to_string()
}

#[tokio::test]
async fn missing_and_invalid_tokens_get_the_challenge() {
    let sb = sandbox_with(demo_config()).await;
    let server = demo_server(&sb, ACCESS_TTL).await;
    let metadata = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        server.resource_addr
    );
    let missing = initialize(&server.url(), None).await;
    assert_eq!(missing.status().as_u16(), 401);
    let c = challenge(&missing);
    assert!(c.starts_with("Bearer "), "{c}");
    assert!(c.contains(&format!("resource_metadata=\"{metadata}\"")), "{c}");
    assert!(c.contains("scope=\"tools:call\"") && !c.contains("error="), "{c}");
    for bad in ["Bearer at-not-a-token", "Basic dXNlcjpwYXNz", "Bearer"] {
        let r = initialize(&server.url(), Some(bad)).await;
        assert_eq!(r.status().as_u16(), 401, "{bad}");
        assert!(challenge(&r).contains("resource_metadata="), "{bad}");
    }
    let invalid = initialize(&server.url(), Some("Bearer at-not-a-token")).await;
    assert!(challenge(&invalid).contains("error=\"invalid_token\""));

    // RFC 9728 metadata at the path derived from /mcp and at the bare well-known path.
    for path in [
        metadata.clone(),
        format!("http://{}/.well-known/oauth-protected-resource", server.resource_addr),
    ] {
        let m: Value = reqwest::get(&path).await.unwrap().json().await.unwrap();
        assert_eq!(m["resource"], server.url(), "{m}");
        assert_eq!(m["authorization_servers"], json!([server.issuer_url()]));
        assert_eq!(m["scopes_supported"], json!([SCOPE]));
    }
    let meta: Value = reqwest::get(format!(
        "{}/.well-known/oauth-authorization-server",
        server.issuer_url()
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(meta["issuer"], server.issuer_url());
    assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));
    assert!(meta["registration_endpoint"].is_string(), "{meta}");
    server.shutdown().await;
}

/// Registers a client, authorizes (the server approves at once) and returns (client, code).
async fn authorized_code(server: &DemoOAuthServer, verifier: &str, redirect: &str) -> (String, String) {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let reg: Value = (http.post(format!("{}/register", server.issuer_url())))
        .json(&json!({"client_name": "t", "redirect_uris": [redirect]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let client = reg["client_id"].as_str().expect("a client id").to_string();
    let (pkce, resource) = (s256(verifier), server.url());
    let params = [
        ("response_type", "code"),
        ("client_id", client.as_str()),
        ("redirect_uri", redirect),
        ("code_challenge", pkce.as_str()),
        ("code_challenge_method", "S256"),
        ("scope", SCOPE),
        ("resource", resource.as_str()),
        ("state", "st"),
    ];
    let authorize = reqwest::Url::parse_with_params(&format!("{}/authorize", server.issuer_url()), params).unwrap();
    let r = http.get(authorize).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 302);
    let back = r.headers()["location"].to_str().unwrap().to_string();
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("sagedeck demo: approved, return to the console")
    );
    assert!(back.starts_with(redirect), "{back}");
    assert_eq!(query(&back, "state").as_deref(), Some("st"));
    (client, query(&back, "code").expect("a code"))
}

#[tokio::test]
async fn pkce_with_a_wrong_verifier_is_refused_at_token() {
    let sb = sandbox_with(demo_config()).await;
    let server = demo_server(&sb, ACCESS_TTL).await;
    let redirect = "http://127.0.0.1:9/callback";
    let token = |client: String, code: String, verifier: &'static str| {
        let form = [
            ("grant_type", "authorization_code".to_string()),
            ("client_id", client),
            ("code", code),
            ("redirect_uri", redirect.to_string()),
            ("code_verifier", verifier.to_string()),
            ("resource", server.url()),
        ];
        let url = format!("{}/token", server.issuer_url());
        let body = serde_urlencoded::to_string(form).unwrap();
        async move {
            let req = reqwest::Client::new()
                .post(url)
                .header("content-type", "application/x-www-form-urlencoded");
            req.body(body).send().await.unwrap()
        }
    };
    let (client, code) = authorized_code(&server, "the-right-verifier-of-43-characters-or-more", redirect).await;
    let wrong = token(client, code, "another-verifier-of-43-characters-or-more-x").await;
    assert_eq!(wrong.status().as_u16(), 400);
    let body: Value = wrong.json().await.unwrap();
    assert_eq!(body["error"], "invalid_grant", "{body}");

    // The same exchange with the right verifier succeeds, and its token opens the server.
    let (client, code) = authorized_code(&server, "the-right-verifier-of-43-characters-or-more", redirect).await;
    let right = token(client, code, "the-right-verifier-of-43-characters-or-more").await;
    assert_eq!(right.status().as_u16(), 200);
    let t: Value = right.json().await.unwrap();
    assert_eq!(t["expires_in"], ACCESS_TTL.as_secs());
    let bearer = format!("Bearer {}", t["access_token"].as_str().unwrap());
    let ok = initialize(&server.url(), Some(&bearer)).await;
    assert_eq!(ok.status().as_u16(), 200, "{:?}", ok.headers());
    server.shutdown().await;
}
