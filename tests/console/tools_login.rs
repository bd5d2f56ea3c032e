//! The Tools tab's OAuth side: each HTTP server's auth state in the server list, the login dialog
//! (`o`: the job queued at once, the URL shown when the worker reports it, escaped; every key
//! taken while it is open; Esc cancels the job), a failed login explained, `O` logging out, and a
//! stdio server refused.

use crossterm::event::KeyCode;
use sagedeck::mcp::oauth::{AuthState, LoginStep};
use sagedeck::mcp::{ServerStatus, ServerView, TransportKind};
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::{AppEvent, Job, McpJob};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::theme::Theme;
use sagedeck::tui::widgets::toasts::Toasts;

use crate::common::tui::{self, key};

/// 2100-01-01 00:00 UTC: a token that stays valid for every run of this test.
const FAR: f64 = 4_102_444_800.0;

fn view(name: &str, transport: TransportKind, status: ServerStatus, auth: AuthState) -> ServerView {
    ServerView {
        name: name.into(),
        transport,
        target: format!("http://127.0.0.1:8000/{name}"),
        status,
        server: None,
        tools: vec![],
        auth,
    }
}

fn app() -> App {
    let data = Data {
        context: tui::context(),
        loaded: true,
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    let connected = ServerStatus::Connected {
        protocol_version: "2025-11-25".into(),
        connect_ms: 12.0,
    };
    app.panes.tools.set_servers(vec![
        view(
            "remote",
            TransportKind::Http,
            ServerStatus::Failed {
                class: "login_required".into(),
                reason: "HTTP 401: the server asks for an OAuth login: run `sagedeck tools login remote`".into(),
            },
            AuthState::NeedsLogin {
                why: "the server asks for one".into(),
            },
        ),
        view(
            "logged-in",
            TransportKind::Http,
            connected,
            AuthState::OAuth {
                valid_until: Some(FAR),
                refreshable: true,
                scopes: vec!["read".into()],
            },
        ),
        view("local", TransportKind::Stdio, ServerStatus::Idle, AuthState::None),
    ]);
    app.tab = Tab::Tools;
    app
}

fn screen(app: &mut App) -> String {
    app.toasts = Toasts::default();
    tui::render(app, 120, 30)
}

fn login_jobs(app: &mut App) -> Vec<(u64, Job)> {
    app.take_jobs()
        .into_iter()
        .filter(|(_, j)| {
            matches!(
                j,
                Job::Mcp(McpJob::Login { .. } | McpJob::Logout { .. }) | Job::Cancel(_)
            )
        })
        .collect()
}

#[test]
fn login_dialog_shows_the_url_and_esc_cancels() {
    let mut app = app();
    let s = screen(&mut app);
    assert!(s.contains("needs login (o)") && s.contains("OAuth until 00:00"), "{s}");
    app.on_key(key(KeyCode::Char('o')));
    let jobs = login_jobs(&mut app);
    let id = match jobs.as_slice() {
        [(id, Job::Mcp(McpJob::Login { server }))] if server == "remote" => *id,
        other => panic!("{other:?}"),
    };
    assert!(screen(&mut app).contains("Asking remote for its authorization server"));
    app.on_event(AppEvent::McpLogin {
        server: "remote".into(),
        step: LoginStep::Open {
            url: "http://127.0.0.1:9/authorize?client_id=c&state=s&x=\u{1b}[31mred".into(),
            opened: false,
        },
    });
    let s = screen(&mut app);
    insta::assert_snapshot!("oauth_login_dialog", s);
    assert!(
        s.contains("\\x1b[31mred") && !s.contains('\u{1b}'),
        "the URL is escaped"
    );
    // The dialog takes every key: `q` does not quit, `c` reconnects nothing.
    app.on_key(key(KeyCode::Char('q')));
    app.on_key(key(KeyCode::Char('c')));
    assert!(!app.quit && app.take_jobs().is_empty() && app.panes.tools.login_dialog().is_some());
    app.on_key(key(KeyCode::Esc));
    assert!(matches!(login_jobs(&mut app).as_slice(), [(_, Job::Cancel(t))] if *t == id));
    assert!(app.panes.tools.login_dialog().is_none());
}

#[test]
fn failures_are_explained_logins_reported_and_stdio_refused() {
    let mut app = app();
    app.on_key(key(KeyCode::Char('o')));
    login_jobs(&mut app);
    let why = "cannot reach the server: nothing answers at http://127.0.0.1:9/mcp (connection refused)";
    app.on_event(AppEvent::McpLogin {
        server: "remote".into(),
        step: LoginStep::Failed(why.into()),
    });
    let s = screen(&mut app);
    assert!(
        s.contains("Login failed: cannot reach the server") && s.contains("Esc closes"),
        "{s}"
    );
    app.on_key(key(KeyCode::Esc));
    assert!(login_jobs(&mut app).is_empty(), "a failed login has nothing to cancel");
    assert!(app.panes.tools.login_dialog().is_none());

    app.on_key(key(KeyCode::Char('o')));
    login_jobs(&mut app);
    app.on_event(AppEvent::McpLogin {
        server: "remote".into(),
        step: LoginStep::Done("OAuth: valid until 2100-01-01 00:00 UTC".into()),
    });
    assert!(app.panes.tools.login_dialog().is_none());
    let toasts: Vec<String> = app.toasts.log.iter().map(|t| t.text.clone()).collect();
    assert!(
        toasts
            .iter()
            .any(|t| t == "remote: logged in · OAuth: valid until 2100-01-01 00:00 UTC"),
        "{toasts:?}"
    );

    app.on_key(key(KeyCode::Char('O')));
    assert!(
        matches!(login_jobs(&mut app).as_slice(), [(_, Job::Mcp(McpJob::Logout { server }))] if server == "remote")
    );
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Down));
    assert_eq!(app.panes.tools.selected_server().unwrap().name, "local");
    app.on_key(key(KeyCode::Char('o')));
    assert!(login_jobs(&mut app).is_empty());
    assert!(app.panes.tools.login_dialog().is_none());
    let last = app.toasts.log.last().map(|t| t.text.clone()).unwrap_or_default();
    assert!(last.contains("only streamable HTTP servers"), "{last}");
}
