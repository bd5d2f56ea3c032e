//! `sagedeck demo`'s OAuth-protected MCP server in the console: the demo registers it (the same
//! function `run_demo` calls), the hub reaches it and is refused with its challenge, and the
//! Tools tab lists it as needing a login, beside the demo's stdio server. Its token cache is in
//! the test process's own state directory (`common::private_state`), never the real home's.

use sagedeck::cli::console::demo_oauth_server;
use sagedeck::mcp::oauth::demo::SERVER_NAME;
use sagedeck::mcp::registry::demo_entry;
use sagedeck::mcp::{ConnectOptions, McpHub, ServerStatus, TransportKind};
use sagedeck::tui::ConsoleOptions;
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::theme::Theme;
use sagedeck::tui::widgets::toasts::Toasts;

use crate::common::{self, tui};

/// The state line under the OAuth server's name in the server list.
fn server_state(screen: &str) -> &str {
    let mut lines = screen.lines().skip_while(|l| !l.contains(SERVER_NAME));
    lines.nth(1).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_tools_tab_lists_the_oauth_server_as_needing_login() {
    let sb = common::sandbox_with(common::demo_config()).await;
    let mut opts = ConsoleOptions::default();
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_sagedeck"));
    opts.mcp.servers.push(demo_entry(exe, &sb.endpoint_url()));
    // A token cache left by an earlier demo, in this process's own state directory.
    let stale = common::private_state_dir().join(format!("oauth/{SERVER_NAME}.json"));
    std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
    std::fs::write(&stale, "{}").unwrap();
    let server = demo_oauth_server(&common::fleet(&sb).await, &mut opts)
        .await
        .expect("the demo's OAuth server starts");
    assert!(!stale.exists(), "the stale demo token cache is removed");
    let names: Vec<&str> = opts.mcp.names();
    assert_eq!(names, ["sagedeck-demo", SERVER_NAME]);
    let entry = opts.mcp.get(SERVER_NAME).unwrap();
    assert_eq!(entry.transport, TransportKind::Http);
    assert_eq!(entry.url.as_deref(), Some(server.url().as_str()));
    assert!(entry.oauth.approves_at_once, "the demo's own authorization server");

    let hub = McpHub::new(&opts.mcp, ConnectOptions::default());
    let _ = hub.connect(SERVER_NAME).await;
    let views = hub.servers();
    let view = views.iter().find(|v| v.name == SERVER_NAME).unwrap();
    assert!(
        matches!(&view.status, ServerStatus::Failed { class, .. } if class == "login_required"),
        "{:?}",
        view.status
    );
    let data = Data {
        context: tui::context(),
        loaded: true,
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    app.panes.tools.set_servers(views);
    app.tab = Tab::Tools;
    app.toasts = Toasts::default();
    let s = tui::render(&mut app, 120, 30);
    assert!(server_state(&s).contains("needs login (o)"), "{s}");
    hub.shutdown().await;
    server.shutdown().await;
}

/// The real `sagedeck demo` in tmux: the Tools tab says its OAuth server needs a login; `o` on it
/// logs in without a browser (the authorization server is the demo's own: the console follows
/// the URL), the server connects with OAuth and its tools are listed; the token is cached 0600
/// in the demo's state directory and on no screen.
#[test]
fn the_demo_logs_in_to_its_oauth_server_with_o() {
    use std::time::Duration;
    let t = crate::common::tmux::Tmux::start_sized(
        "demo-oauth",
        "demo --fast --no-traffic --backfill-hours 1 --update-secs 1",
        "",
        200,
        50,
    );
    t.keys(&["6"]);
    t.wait_for("the OAuth server needing a login", Duration::from_secs(60), |s| {
        server_state(s).contains("needs login (o)")
    });
    t.keys(&["Down", "o"]);
    let s = t.wait_for("the OAuth server logged in", Duration::from_secs(60), |s| {
        server_state(s).contains("OAuth until")
            && s.contains("classify_intent")
            && !s.contains("Waiting for the redirect")
    });
    let cache = t.home().join(format!(".local/state/sagedeck/oauth/{SERVER_NAME}.json"));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&cache).expect("the token cache").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&cache).unwrap()).unwrap();
    let token = v["credentials"]["token_response"]["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        token.starts_with("at-") && !s.contains(&token),
        "the token is on no screen"
    );
}
