//! The left side of the Invoke pane: the request form (content types, variant, target model,
//! repeat), the body editor under it, and the model completions while the model is typed.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui_textarea::WrapMode;

use crate::tui::panes::invoke::form::{BodyCheck, Field, Form};
use crate::tui::panes::invoke::model_completions;
use crate::tui::data::Data;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::{modal, title};

const LABEL: usize = 14;
const COMPLETIONS_SHOWN: usize = 6;

/// Draws the request side in `area`: the form, the body editor, and the model completions while
/// the model field has the focus. `notice`: why the last request was not sent.
pub(super) fn render(
    form: &mut Form,
    (focus, notice): (Option<Field>, Option<&str>),
    f: &mut Frame,
    area: Rect,
    data: &Data,
    theme: &Theme,
) {
    let [form_area, body_area] = Layout::vertical([Constraint::Length(8), Constraint::Min(3)]).areas(area);
    render_form(form, focus, notice, f, form_area, data, theme);
    render_body(form, focus == Some(Field::Body), f, body_area, theme);
    if focus == Some(Field::Model) {
        render_completions(form, f, body_area, data, theme);
    }
}

fn render_form(
    form: &Form,
    focus: Option<Field>,
    notice: Option<&str>,
    f: &mut Frame,
    area: Rect,
    data: &Data,
    theme: &Theme,
) {
    let fields = FormRows { focus, theme };
    let lines = vec![
        fields.row(
            "Content-Type",
            Field::ContentType,
            fields.value(&form.content_type, Field::ContentType, "(required)"),
        ),
        fields.row("Accept", Field::Accept, fields.value(&form.accept, Field::Accept, "(none)")),
        fields.row("Variant", Field::Variant, variant_choices(form, theme)),
        match form.hosts_components {
            true => fields.row("Component", Field::Component, component_choices(form, theme)),
            false => fields.row("Target model", Field::Model, fields.model_value(form, data)),
        },
        fields.row("Repeat", Field::Repeat, fields.value(&form.repeat, Field::Repeat, "(1)")),
        Line::from(form_status(notice, data, theme)),
    ];
    let block = form_block(form, focus, data, theme);
    f.render_widget(Paragraph::new(lines).style(theme.base()).block(block), area);
}

/// The request form's frame: the endpoint, and its status unless InService.
fn form_block(form: &Form, focus: Option<Field>, data: &Data, theme: &Theme) -> Block<'static> {
    let focused = focus.is_some_and(|x| x != Field::Body);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(title(format!(" Request · {} ", form.endpoint), theme));
    match data.endpoint(&form.endpoint).map(|e| e.status.as_str()) {
        Some(status) if status != "InService" => block.title(Span::styled(format!("{status} "), theme.status(status))),
        _ => block,
    }
}

/// The rows of the request form: a label, then the field's value (with a cursor when focused,
/// or its placeholder when empty).
struct FormRows<'a> {
    focus: Option<Field>,
    theme: &'a Theme,
}

impl FormRows<'_> {
    fn row(&self, name: &str, field: Field, spans: Vec<Span<'static>>) -> Line<'static> {
        let style = if self.focus == Some(field) {
            self.theme.fg(Role::Accent).add_modifier(Modifier::BOLD)
        } else {
            self.theme.fg(Role::Muted)
        };
        let mut s = vec![Span::styled(format!(" {name:<LABEL$}"), style)];
        s.extend(spans);
        Line::from(s)
    }

    fn value(&self, text: &str, field: Field, placeholder: &str) -> Vec<Span<'static>> {
        let theme = self.theme;
        if self.focus == Some(field) {
            vec![
                Span::styled(text.to_string(), theme.fg(Role::Fg)),
                Span::styled("█", theme.fg(Role::Accent)),
            ]
        } else if text.is_empty() {
            vec![Span::styled(placeholder.to_string(), theme.fg(Role::Muted))]
        } else {
            vec![Span::styled(text.to_string(), theme.fg(Role::Fg))]
        }
    }

    /// The target model of a multi-model endpoint (its hint counts the catalog once read).
    fn model_value(&self, form: &Form, data: &Data) -> Vec<Span<'static>> {
        if !form.multi_model {
            return vec![Span::styled("— (not a multi-model endpoint)", self.theme.fg(Role::Muted))];
        }
        let count = data.catalogs.get(&form.endpoint).map(|c| c.models.len());
        let hint = match count {
            Some(n) => format!("(pick one of {n} models: m)"),
            None => "(type a model key: m)".to_string(),
        };
        self.value(&form.model, Field::Model, &hint)
    }
}

/// The components a request on an IC endpoint may name, the chosen one selected.
fn component_choices(form: &Form, theme: &Theme) -> Vec<Span<'static>> {
    if form.components.is_empty() {
        return vec![Span::styled("(reading the endpoint's components…)", theme.fg(Role::Muted))];
    }
    let mut spans = Vec::new();
    for (i, c) in form.components.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", theme.fg(Role::Muted)));
        }
        let name = crate::format::escape_text(c).into_owned();
        let style = if form.component.as_ref() == Some(c) {
            theme.fg(Role::Accent).add_modifier(Modifier::BOLD)
        } else {
            theme.fg(Role::Muted)
        };
        spans.push(Span::styled(name, style));
    }
    spans
}

/// The variants a request may target ("by weight" first), the chosen one selected.
fn variant_choices(form: &Form, theme: &Theme) -> Vec<Span<'static>> {
    let mut variants = Vec::new();
    let options = std::iter::once(None).chain(form.variants.iter().map(Some));
    for (i, o) in options.enumerate() {
        if i > 0 {
            variants.push(Span::styled(" · ", theme.fg(Role::Muted)));
        }
        let name = o.cloned().unwrap_or_else(|| "by weight".into());
        let chosen = o.cloned() == form.variant;
        let style = if chosen { theme.selection() } else { theme.fg(Role::Muted) };
        variants.push(Span::styled(name, style));
    }
    variants
}

/// The form's last line: why the request was not sent, read-only, or how to send.
fn form_status(notice: Option<&str>, data: &Data, theme: &Theme) -> Span<'static> {
    match notice {
        Some(n) => Span::styled(format!(" {n}"), theme.fg(Role::StatusError).add_modifier(Modifier::BOLD)),
        None if data.read_only => Span::styled(" read-only: sending is disabled", theme.fg(Role::Readonly)),
        None => Span::styled(" Ctrl-S or F5 sends · i or Enter edits the body", theme.fg(Role::Muted)),
    }
}

fn render_body(form: &mut Form, focused: bool, f: &mut Frame, area: Rect, theme: &Theme) {
    let (state, style) = match &form.check {
        BodyCheck::Json => ("JSON ✓".to_string(), theme.fg(Role::StatusOk)),
        BodyCheck::Text(n) => (format!("text, {n} bytes"), theme.fg(Role::Muted)),
        BodyCheck::Hex(n) => (format!("binary, {n} bytes (hex:)"), theme.fg(Role::Muted)),
        BodyCheck::File(p) => (format!("file {p}, read when sent"), theme.fg(Role::Muted)),
        BodyCheck::Empty => ("empty".to_string(), theme.fg(Role::StatusWarn)),
        BodyCheck::Invalid { .. } => ("invalid".to_string(), theme.fg(Role::StatusError)),
    };
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(Line::from(vec![
            title(" Body · ", theme),
            Span::styled(format!("{state} "), style.add_modifier(Modifier::BOLD)),
        ]));
    block = match &form.check {
        BodyCheck::Invalid { message, line, column } => block.title_bottom(Span::styled(
            format!(" line {line}, column {column}: {message} "),
            theme.fg(Role::StatusError).add_modifier(Modifier::BOLD),
        )),
        _ if form.kind == crate::tui::panes::invoke::form::PayloadKind::Image => block.title_bottom(Span::styled(
            " binary body: hex:ffd8… bytes, or @/path/to/file.jpg ",
            theme.fg(Role::Muted),
        )),
        _ => block,
    };
    form.body.set_block(block);
    form.body.set_style(theme.base());
    form.body.set_cursor_line_style(Style::default());
    form.body.set_wrap_mode(WrapMode::WordOrGlyph);
    form.body.set_line_number_style(theme.fg(Role::Muted));
    form.body.set_cursor_style(if focused {
        Style::default().add_modifier(Modifier::REVERSED)
    } else {
        Style::default()
    });
    f.render_widget(&form.body, area);
}

fn render_completions(form: &Form, f: &mut Frame, body_area: Rect, data: &Data, theme: &Theme) {
    let found = model_completions(data, form);
    if found.is_empty() {
        return;
    }
    let height = (found.len().min(COMPLETIONS_SHOWN) as u16 + 2).min(body_area.height);
    let longest = found.iter().map(|m| m.chars().count()).max().unwrap_or(0) as u16;
    let room = body_area.width.saturating_sub(LABEL as u16 + 2);
    let rect = Rect {
        x: body_area.x + LABEL as u16 + 1,
        y: body_area.y,
        width: (longest + 4).max(16).min(room),
        height,
    };
    let skip = form.model_pick.saturating_sub(COMPLETIONS_SHOWN - 1);
    let lines: Vec<Line> = found
        .iter()
        .enumerate()
        .skip(skip)
        .take(COMPLETIONS_SHOWN)
        .map(|(i, m)| {
            let style = if i == form.model_pick {
                theme.selection()
            } else {
                theme.fg(Role::Fg)
            };
            Line::from(Span::styled(m.clone(), style))
        })
        .collect();
    let heading = title(format!(" {} matches ", found.len()), theme);
    modal(f, rect, theme.border(true), heading, Paragraph::new(lines), theme);
}
