//! The Tools tab's OAuth login dialog: `o` on an HTTP server queues a [`McpJob::Login`], whose
//! steps come back as [`AppEvent::McpLogin`]: the dialog shows the URL to open (and whether a
//! browser was started at it) while the worker waits for the redirect; the UI never waits.
//! Esc cancels the login (closing its loopback port) or closes a failed one. `O` logs out.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::ToolsPane;
use crate::format::escape_line;
use crate::mcp::TransportKind;
use crate::mcp::oauth::LoginStep;
use crate::tui::event::{Job, McpJob};
use crate::tui::panes::Outbox;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::toasts::Level;
use crate::tui::widgets::{centered, describe::wrap, modal, title};

/// A login under way (or failed, until closed).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoginDialog {
    /// The server.
    pub server: String,
    /// The authorization URL, once known.
    pub url: Option<String>,
    /// Whether a browser was started at it.
    pub opened: bool,
    /// Why it failed.
    pub failed: Option<String>,
    /// The login job (cancelled by Esc).
    pub job: Option<u64>,
}

impl ToolsPane {
    /// The login dialog, while open.
    pub fn login_dialog(&self) -> Option<&LoginDialog> {
        self.login.as_ref()
    }

    /// `o`: logs in to the selected server (HTTP servers only); `O`: logs out of it.
    pub(super) fn start_login(&mut self, logout: bool, out: &mut Outbox) {
        let Some(s) = self.selected_server() else { return };
        if s.transport != TransportKind::Http {
            out.toast(
                Level::Warn,
                format!("{}: only streamable HTTP servers log in with OAuth", s.name),
            );
            return;
        }
        let server = s.name.clone();
        if logout {
            out.job(McpJob::Logout { server });
        } else {
            self.login = Some(LoginDialog {
                server: server.clone(),
                ..Default::default()
            });
            out.job(McpJob::Login { server });
        }
    }

    /// The dialog takes every key: Esc cancels the login or closes it.
    pub(super) fn on_login_key(&mut self, key: KeyEvent, out: &mut Outbox) {
        if key.code != KeyCode::Esc {
            return;
        }
        if let Some(d) = self.login.take()
            && d.failed.is_none()
            && let Some(id) = d.job
        {
            out.job(Job::Cancel(id));
            out.toast(Level::Info, format!("{}: login cancelled", d.server));
        }
    }

    /// A login job was queued: the dialog keeps its id.
    pub(super) fn login_submitted(&mut self, id: u64, server: &str) {
        if let Some(d) = self.login.as_mut().filter(|d| d.server == server) {
            d.job = Some(id);
        }
    }

    /// A step of a login (or a logout) from the worker.
    pub(super) fn login_step(&mut self, server: &str, step: &LoginStep, out: &mut Outbox) {
        let open = self.login.as_mut().filter(|d| d.server == server);
        match (step, open) {
            (LoginStep::Open { url, opened }, Some(d)) => {
                d.url = Some(url.clone());
                d.opened = *opened;
            }
            (LoginStep::Done(label), _) => {
                self.login = None;
                out.toast(Level::Info, format!("{server}: logged in · {label}"));
            }
            (LoginStep::LoggedOut, _) => out.toast(Level::Info, format!("{server}: logged out")),
            (LoginStep::Failed(why), Some(d)) => d.failed = Some(why.clone()),
            (LoginStep::Failed(why), None) => out.toast(Level::Error, format!("{server}: {why}")),
            (LoginStep::Open { .. }, None) => {}
        }
    }
}

/// Draws the dialog over `area`.
pub(super) fn render_login(d: &LoginDialog, f: &mut Frame, area: Rect, theme: &Theme) {
    let width = centered(area, 70, 10, 50, 1).width.saturating_sub(2).max(1) as usize;
    let muted = |t: String| Line::from(Span::styled(t, theme.fg(Role::Muted)));
    let mut lines: Vec<Line> = Vec::new();
    match (&d.failed, &d.url) {
        (Some(why), _) => {
            let text = format!("Login failed: {}", escape_line(why));
            lines.extend(
                wrap(&text, width)
                    .into_iter()
                    .map(|l| Line::from(Span::styled(l, theme.fg(Role::StatusError)))),
            );
            lines.push(Line::from(""));
            lines.push(muted("Esc closes".into()));
        }
        (None, None) => {
            lines.push(muted(format!(
                "Asking {} for its authorization server…",
                escape_line(&d.server)
            )));
            lines.push(Line::from(""));
            lines.push(muted("Esc cancels".into()));
        }
        (None, Some(url)) => {
            let how = if d.opened {
                "A browser was opened at this URL; if not, open it to log in:"
            } else {
                "Open this URL in a browser to log in:"
            };
            lines.push(Line::from(Span::styled(how, theme.fg(Role::Fg))));
            lines.push(Line::from(""));
            let url_style = theme.fg(Role::Accent).add_modifier(Modifier::BOLD);
            lines.extend(
                wrap(&escape_line(url), width)
                    .into_iter()
                    .map(|l| Line::from(Span::styled(l, url_style))),
            );
            lines.push(Line::from(""));
            lines.push(muted("Waiting for the redirect to this machine… Esc cancels".into()));
        }
    }
    let h = (lines.len() as u16 + 2).min(area.height);
    let rect = centered(area, 70, 10, 50, h);
    modal(
        f,
        rect,
        theme.border(true),
        title(format!(" OAuth login: {} ", escape_line(&d.server)), theme),
        Paragraph::new(lines).wrap(Wrap { trim: false }),
        theme,
    );
}
