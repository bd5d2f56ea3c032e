//! OAuth 2.1 against the Python `mcp` SDK's resource server (TokenVerifier + AuthSettings) and
//! its own small authorization server (`tests/mcp_peers/oauth_server.py`), through the real
//! binary: `tools login` (the printed URL followed by an HTTP client the server approves at
//! once), calls, a refresh before expiry, a step-up on 403, `tools logout`; the tokens never in
//! any file but the 0600 cache nor in any output, and never sent to another origin (a recorder
//! on a third port keeps the headers it got); and the console in tmux logging in from its Tools
//! tab.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;
use tokio::process::Child;

use crate::common::{CliRun, cli_command, poll_until, run_cli_in, sandbox};
use crate::peers::python_peer;
use sagedeck::sandbox::SandboxHandle;

/// The peer: authorization server, resource server and recorder ports (killed on drop).
struct OAuthPeer {
    _child: Child,
    auth: u16,
    rs: u16,
    rec: u16,
}

impl OAuthPeer {
    async fn start(extra: &[&str]) -> OAuthPeer {
        let (child, line) = python_peer("oauth_server.py", extra).await;
        let ports: Vec<u16> = line.split_whitespace().skip(1).filter_map(|p| p.parse().ok()).collect();
        assert_eq!(ports.len(), 3, "unexpected first line {line:?}");
        OAuthPeer {
            _child: child,
            auth: ports[0],
            rs: ports[1],
            rec: ports[2],
        }
    }

    fn mcp_url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.rs)
    }

    async fn get(&self, port: u16, path: &str) -> Value {
        reqwest::get(format!("http://127.0.0.1:{port}{path}"))
            .await
            .expect("peer answers")
            .json()
            .await
            .expect("JSON")
    }

    async fn stats(&self) -> Value {
        self.get(self.auth, "/stats").await
    }

    /// The Authorization headers the recorder got (one entry per request).
    async fn recorded(&self) -> Vec<Value> {
        let seen = self.get(self.rec, "/seen").await;
        seen.as_array().cloned().unwrap_or_default()
    }

    async fn control(&self, what: &str, query: &str) {
        let r = reqwest::Client::new()
            .post(format!("http://127.0.0.1:{}/control/{what}?{query}", self.rs))
            .send()
            .await
            .expect("control route");
        assert!(r.status().is_success());
    }
}

/// A user's machine: a HOME (state and config under it) and an mcpServers file.
pub(crate) struct Machine {
    home: tempfile::TempDir,
    pub(crate) sb: SandboxHandle,
}

impl Machine {
    async fn new() -> Machine {
        Machine::on(sandbox().await)
    }

    /// A machine whose commands reach the sandbox `sb`.
    pub(crate) fn on(sb: SandboxHandle) -> Machine {
        Machine {
            home: tempfile::tempdir().unwrap(),
            sb,
        }
    }

    pub(crate) fn config(&self, servers: Value) -> String {
        let path = self.home.path().join("mcp.json");
        std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
        path.to_string_lossy().into_owned()
    }

    pub(crate) async fn run(&self, args: &[&str]) -> CliRun {
        let mut all: Vec<&str> = args.to_vec();
        let cfg = self.home.path().join("mcp.json");
        let cfg = cfg.to_string_lossy().into_owned();
        all.extend(["--mcp-config", cfg.as_str()]);
        run_cli_in(&self.sb, self.home.path(), &all, &[]).await
    }

    pub(crate) fn cache(&self, server: &str) -> std::path::PathBuf {
        self.home
            .path()
            .join(format!(".local/state/sagedeck/oauth/{server}.json"))
    }

    /// `tools login SERVER --no-browser`, the browser played by an HTTP client that follows the
    /// printed URL to the authorization server (which approves at once) and its redirect back.
    /// Returns the authorization URL and the run.
    pub(crate) async fn login(&self, server: &str) -> (String, CliRun) {
        let cfg = self.home.path().join("mcp.json").to_string_lossy().into_owned();
        let args = [
            "tools",
            "login",
            server,
            "--no-browser",
            "--wait",
            "60",
            "--mcp-config",
            &cfg,
        ];
        let mut child = cli_command(&self.sb, self.home.path(), &args, &[])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("sagedeck starts");
        let mut out = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let url = tokio::time::timeout(Duration::from_secs(60), out.next_line())
            .await
            .expect("the login prints its URL")
            .expect("stdout")
            .unwrap_or_default();
        let browser = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        if url.starts_with("http") {
            let approved = browser.get(&url).send().await.expect("authorization server answers");
            assert_eq!(approved.status().as_u16(), 302, "{url}");
            let back = approved.headers()["location"].to_str().unwrap().to_string();
            let page = browser.get(&back).send().await.expect("the loopback redirect answers");
            assert!(page.text().await.unwrap().contains("logged in"));
        }
        let done = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
            .await
            .expect("the login ends")
            .expect("output");
        let run = CliRun {
            code: done.status.code().unwrap_or(-1),
            stdout: format!("{url}\n{}", String::from_utf8_lossy(&done.stdout)),
            stderr: String::from_utf8_lossy(&done.stderr).into_owned(),
        };
        (url, run)
    }
}

pub(crate) fn query(url: &str, key: &str) -> Option<String> {
    reqwest::Url::parse(url)
        .ok()?
        .query_pairs()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

/// Every file under `dir` but `except` (paths).
fn files(dir: &Path, except: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, except, out);
        } else if p != except {
            out.push(p);
        }
    }
}

/// The tokens the cache holds now, checked private (0600 in a 0700 directory).
pub(crate) fn cached_tokens(path: &Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).expect("the token cache").permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{}", path.display());
    let dir_mode = std::fs::metadata(path.parent().unwrap()).unwrap().permissions().mode();
    assert_eq!(dir_mode & 0o777, 0o700);
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let t = &v["credentials"]["token_response"];
    let tokens: Vec<String> = ["access_token", "refresh_token"]
        .iter()
        .filter_map(|k| t[*k].as_str().map(str::to_string))
        .collect();
    assert_eq!(tokens.len(), 2, "{v}");
    tokens
}

/// No token in any file of the machine but the cache, nor in any output.
fn tokens_stay_in_the_cache(m: &Machine, tokens: &[String], outputs: &[&CliRun]) {
    let mut all = Vec::new();
    files(m.home.path(), &m.cache("radio"), &mut all);
    assert!(
        all.iter().any(|p| p.ends_with("audit.jsonl")),
        "the audit log was written: {all:?}"
    );
    for p in &all {
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
        for t in tokens {
            assert!(!text.contains(t.as_str()), "a token is in {}", p.display());
        }
    }
    for r in outputs {
        for t in tokens {
            assert!(
                !r.stdout.contains(t.as_str()) && !r.stderr.contains(t.as_str()),
                "a token was printed"
            );
        }
    }
}

#[tokio::test]
async fn login_call_refresh_logout() {
    let peer = OAuthPeer::start(&["--ttl", "16"]).await;
    let m = Machine::new().await;
    let header = json!({"Authorization": "Bearer not-a-token"});
    m.config(json!({"radio": {"url": peer.mcp_url()}, "static": {"url": peer.mcp_url(), "headers": header}}));

    let before = m.run(&["tools", "list"]).await;
    assert_eq!(before.code, 3, "{}", before.stderr);
    assert!(
        before
            .stderr
            .contains("radio: HTTP 401: the server asks for an OAuth login: run `sagedeck tools login radio`"),
        "{}",
        before.stderr
    );
    assert!(before.stdout.contains("auth: needs login"), "{}", before.stdout);
    // A refused static header is the header's problem, not a login to make.
    assert!(
        before.stderr.contains("static: HTTP 401: unauthorized (token?"),
        "{}",
        before.stderr
    );
    assert!(before.stdout.contains("auth: static header"), "{}", before.stdout);
    let refused = m.run(&["tools", "login", "static", "--no-browser"]).await;
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("Authorization header"), "{}", refused.stderr);

    let (url, login) = m.login("radio").await;
    assert_eq!(login.code, 0, "{}\n{}", login.stdout, login.stderr);
    assert!(
        login.stderr.contains("logged in · OAuth: valid until"),
        "{}",
        login.stderr
    );
    assert_eq!(query(&url, "code_challenge_method").as_deref(), Some("S256"));
    assert_eq!(query(&url, "resource"), Some(peer.mcp_url()), "the resource indicator");
    let stats = peer.stats().await;
    assert_eq!(stats["registrations"], 1, "dynamic registration: {stats}");
    assert_eq!(stats["authorizations"][0]["scopes"], json!(["radio:read"]), "{stats}");
    assert_eq!(stats["token_grants"], 1);

    let list = m.run(&["tools", "list", "--json"]).await;
    assert_eq!(list.code, 3, "the static header is still refused: {}", list.stderr);
    let v = list.json();
    let radio = v.as_array().unwrap().iter().find(|s| s["name"] == "radio").unwrap();
    assert_eq!(radio["status"], "connected", "{v}");
    assert_eq!(radio["auth"]["kind"], "oauth", "{v}");
    assert_eq!(radio["auth"]["scopes"], json!(["radio:read"]));
    let call = m.run(&["tools", "call", "radio", "whoami"]).await;
    assert_eq!(call.code, 0, "{}", call.stderr);
    assert!(call.stdout.contains("scopes radio:read"), "{}", call.stdout);
    let first = cached_tokens(&m.cache("radio"));

    // Half the 16 s lifetime left (8 s: room for a loaded machine), the next call refreshes
    // first, never sending an expired token.
    let mut runs = Vec::new();
    poll_until("a refresh", Duration::from_secs(60), || {
        let (m, peer) = (&m, &peer);
        async move {
            let r = m
                .run(&["tools", "call", "radio", "top_song", "--arg", "sign=WZPZ"])
                .await;
            assert_eq!(r.code, 0, "{}", r.stderr);
            assert!(r.stdout.contains("In the end, on WZPZ"));
            (peer.stats().await["refreshes"].as_u64() >= Some(1)).then_some(r)
        }
    })
    .await;
    runs.push(call);
    let stats = peer.stats().await;
    assert_eq!(
        stats["expired_presented"], 0,
        "a token was used past its expiry: {stats}"
    );
    let second = cached_tokens(&m.cache("radio"));
    assert_ne!(first, second, "the refreshed tokens replaced the old ones");
    let mut tokens = first.clone();
    tokens.extend(second);
    tokens_stay_in_the_cache(&m, &tokens, &[&before, &login, &list, &runs[0]]);

    let out = m.run(&["tools", "logout", "radio"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("logged out"));
    assert!(!m.cache("radio").exists());
    let after = m.run(&["tools", "list"]).await;
    assert_eq!(after.code, 3);
    assert!(after.stdout.contains("auth: needs login"), "{}", after.stdout);
}

#[tokio::test]
async fn step_up_and_other_origins_never_get_the_token() {
    let peer = OAuthPeer::start(&[]).await;
    let m = Machine::new().await;
    m.config(json!({"radio": {"url": peer.mcp_url()}}));
    let (_, login) = m.login("radio").await;
    assert_eq!(login.code, 0, "{}", login.stderr);
    let tokens = cached_tokens(&m.cache("radio"));

    // Step-up: the server now asks for radio:admin too; 403, then a login asking for both.
    peer.control("require", "scope=radio:admin").await;
    let denied = m.run(&["tools", "call", "radio", "whoami"]).await;
    assert_eq!(denied.code, 3, "{}", denied.stderr);
    assert!(
        denied.stderr.contains("HTTP 403") && denied.stderr.contains("tools login radio"),
        "{}",
        denied.stderr
    );
    let (_, again) = m.login("radio").await;
    assert_eq!(again.code, 0, "{}", again.stderr);
    let stats = peer.stats().await;
    assert_eq!(
        stats["authorizations"][1]["scopes"],
        json!(["radio:read", "radio:admin"]),
        "{stats}"
    );
    let call = m.run(&["tools", "call", "radio", "whoami"]).await;
    assert_eq!(call.code, 0, "{}", call.stderr);
    assert!(call.stdout.contains("radio:admin"), "{}", call.stdout);
    let mut all_tokens = tokens;
    all_tokens.extend(cached_tokens(&m.cache("radio")));

    // The same server name at another origin: no token is sent there.
    let rec = format!("http://127.0.0.1:{}/mcp", peer.rec);
    m.config(json!({"radio": {"url": rec}}));
    let moved = m.run(&["tools", "list"]).await;
    assert_eq!(moved.code, 3, "{}", moved.stderr);
    assert!(moved.stdout.contains("needs login"), "{}", moved.stdout);
    let seen = peer.recorded().await;
    assert!(!seen.is_empty(), "the recorder was asked");
    assert!(seen.iter().all(|r| r["authorization"].is_null()), "{seen:?}");

    // The server redirects to another origin, which answers 401: the token does not follow.
    m.config(json!({"radio": {"url": peer.mcp_url()}}));
    peer.control("redirect", &format!("to={rec}")).await;
    let before = peer.recorded().await.len();
    let redirected = m.run(&["tools", "call", "radio", "whoami"]).await;
    assert_eq!(redirected.code, 3, "{}", redirected.stderr);
    let seen = peer.recorded().await;
    assert!(seen[before..].iter().all(|r| r["authorization"].is_null()), "{seen:?}");
    tokens_stay_in_the_cache(&m, &all_tokens, &[&login, &denied, &again, &call, &moved, &redirected]);
}

#[tokio::test]
async fn preregistered_client_where_registration_is_not_offered() {
    let peer = OAuthPeer::start(&["--no-dcr"]).await;
    let m = Machine::new().await;
    m.config(json!({"radio": {"url": peer.mcp_url()}}));
    let (url, refused) = m.login("radio").await;
    assert!(
        url.is_empty() || !url.starts_with("http"),
        "no URL without a client: {url}"
    );
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("\"clientId\""),
        "says what to set: {}",
        refused.stderr
    );

    m.config(json!({"radio": {"url": peer.mcp_url(), "oauth": {"clientId": "sagedeck-preregistered"}}}));
    let (url, login) = m.login("radio").await;
    assert_eq!(login.code, 0, "{}", login.stderr);
    assert_eq!(query(&url, "client_id").as_deref(), Some("sagedeck-preregistered"));
    assert_eq!(peer.stats().await["registrations"], 0);
    let call = m.run(&["tools", "call", "radio", "whoami"]).await;
    assert_eq!(call.code, 0, "{}", call.stderr);
    assert!(call.stdout.contains("client sagedeck-preregistered"), "{}", call.stdout);
}

/// The authorization URL the console's login dialog shows, its wrapped lines joined (the
/// dialog's columns are those of its title row's corners).
fn dialog_url(screen: &str) -> Option<String> {
    let rows: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let top = rows
        .iter()
        .position(|r| r.iter().collect::<String>().contains("┌ OAuth login:"))?;
    let left = rows[top].iter().position(|c| *c == '┌')?;
    let right = rows[top].iter().rposition(|c| *c == '┐')?;
    let text = |r: &Vec<char>| {
        r.get(left + 1..right)
            .map(|c| c.iter().collect::<String>().trim().to_string())
    };
    let body: Vec<String> = rows[top + 1..]
        .iter()
        .map_while(|r| text(r).filter(|_| r.get(left) == Some(&'│')))
        .collect();
    let start = body.iter().position(|l| l.contains("in a browser to log in"))?;
    let end = body.iter().position(|l| l.contains("Waiting for the redirect"))?;
    let url: String = body.get(start + 1..end)?.concat();
    url.starts_with("http://").then_some(url)
}

/// The real console in tmux: the Tools tab says the server needs a login, `o` shows the URL
/// while the worker waits for the redirect (the UI goes on: the dialog is drawn and Esc-free
/// keys are taken), the redirect logs in and the server connects with OAuth.
#[tokio::test(flavor = "multi_thread")]
async fn console_logs_in_from_the_tools_tab() {
    use crate::common::tmux::Tmux;
    let peer = OAuthPeer::start(&[]).await;
    let sb = sandbox().await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    std::fs::write(
        &cfg,
        json!({"mcpServers": {"radio": {"url": peer.mcp_url()}}}).to_string(),
    )
    .unwrap();
    let args = format!("--endpoint-url {} --mcp-config {}", sb.endpoint_url(), cfg.display());
    let t = Tmux::start_sized("oauth-login", &args, "", 200, 50);
    let wait = |what: &str, pred: &(dyn Fn(&str) -> bool + Sync)| {
        tokio::task::block_in_place(|| t.wait_for(what, Duration::from_secs(60), pred))
    };
    t.keys(&["6"]);
    wait("the server needing a login", &|s| s.contains("needs login (o)"));
    t.keys(&["o"]);
    let s = wait("the authorization URL", &|s| dialog_url(s).is_some());
    let url = dialog_url(&s).unwrap();
    assert!(url.contains("code_challenge_method=S256"), "{url}");
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let approved = browser.get(&url).send().await.expect("authorization server answers");
    let back = approved.headers()["location"].to_str().unwrap().to_string();
    let page = browser
        .get(&back)
        .send()
        .await
        .expect("the console's loopback redirect answers");
    assert!(page.text().await.unwrap().contains("logged in"));
    let s = wait("the server connected with OAuth", &|s| {
        s.contains("OAuth until") && s.contains("top_song") && !s.contains("Waiting for the redirect")
    });
    assert!(!s.contains("needs login"), "{s}");
    let cache = t.home().join(".local/state/sagedeck/oauth/radio.json");
    let tokens = cached_tokens(&cache);
    let mut all = Vec::new();
    files(t.home(), &cache, &mut all);
    for p in &all {
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
        assert!(
            tokens.iter().all(|tok| !text.contains(tok.as_str())),
            "a token is in {}",
            p.display()
        );
    }
    assert!(
        tokens.iter().all(|tok| !s.contains(tok.as_str())),
        "a token is on the screen"
    );

    // Step-up on the live session: the server now wants radio:admin; the call says to log in
    // again, and `o` asks for both scopes.
    peer.control("require", "scope=radio:admin").await;
    t.keys(&["Enter", "Enter", "C-s"]);
    wait("the call refused for a scope", &|s| s.contains("HTTP 403"));
    t.keys(&["Escape", "Escape", "o"]);
    let s = wait("the step-up URL", &|s| dialog_url(s).is_some());
    let approved = browser.get(dialog_url(&s).unwrap()).send().await.unwrap();
    let back = approved.headers()["location"].to_str().unwrap().to_string();
    browser.get(&back).send().await.expect("the redirect answers");
    wait("logged in again", &|s| {
        s.contains("OAuth until") && !s.contains("Waiting for the redirect")
    });
    let stats = peer.stats().await;
    assert_eq!(
        stats["authorizations"][1]["scopes"],
        json!(["radio:read", "radio:admin"]),
        "{stats}"
    );
}
