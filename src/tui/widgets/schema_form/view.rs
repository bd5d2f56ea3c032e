//! Drawing the schema form: one line per field (indented by nesting, required fields starred),
//! the value or a placeholder, the field's first problem beside it; the cursor row highlighted,
//! and a text cursor while editing.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Kind, Node, SchemaForm};
use crate::tui::theme::{Role, Theme};

fn type_name(n: &Node) -> &'static str {
    match n.kind {
        Kind::Text => "string",
        Kind::Number => "number",
        Kind::Integer => "integer",
        Kind::Bool => "boolean",
        Kind::Enum(_) => "enum",
        Kind::Object => "object",
        Kind::Array => "array",
        Kind::Choice => "one of",
        Kind::Json => "JSON",
    }
}

/// The value as shown, and whether it is a placeholder.
pub fn value_text(n: &Node) -> (String, bool) {
    match &n.kind {
        Kind::Text | Kind::Number | Kind::Integer | Kind::Json => {
            if n.text.is_empty() {
                ("—".into(), true)
            } else {
                (n.text.clone(), false)
            }
        }
        Kind::Bool => match n.flag {
            Some(b) => (b.to_string(), false),
            None => ("—".into(), true),
        },
        Kind::Enum(values) => match n.pick.and_then(|i| values.get(i)) {
            Some(serde_json::Value::String(s)) => (format!("‹ {s} ›"), false),
            Some(v) => (format!("‹ {v} ›"), false),
            None => (format!("‹ — › {} options", values.len()), true),
        },
        Kind::Object => (format!("{{{} fields}}", n.children.len()), true),
        Kind::Array => (
            format!(
                "[{} item{}]",
                n.children.len(),
                if n.children.len() == 1 { "" } else { "s" }
            ),
            true,
        ),
        Kind::Choice => {
            let label = n
                .pick
                .and_then(|i| n.choices.get(i))
                .map(|c| c.0.clone())
                .unwrap_or_default();
            (
                format!("‹ {label} › {}/{}", n.pick.unwrap_or(0) + 1, n.choices.len()),
                false,
            )
        }
    }
}

impl SchemaForm {
    /// One line about the cursor's field: name, type, required, description.
    pub fn help_line(&self) -> Option<String> {
        let n = self.current()?;
        let mut s = format!("{} · {}", n.key, type_name(n));
        if n.required {
            s.push_str(" · required");
        }
        if let Some(d) = n.schema.get("default") {
            s.push_str(&format!(" · default {d}"));
        }
        if let Some(d) = &n.description {
            s.push_str(" — ");
            s.push_str(d);
        }
        Some(s)
    }

    /// Draws the rows that fit, keeping the cursor visible.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        if self.rows.is_empty() {
            f.render_widget(
                Paragraph::new(Span::styled("this tool takes no arguments", theme.fg(Role::Muted))).style(theme.base()),
                area,
            );
            return;
        }
        let h = area.height.max(1) as usize;
        let top = self.cursor.saturating_sub(h.saturating_sub(1));
        let label_w = (0..self.rows.len())
            .filter_map(|i| {
                let n = self.node_at(i)?;
                Some(self.rows[i].depth * 2 + n.key.chars().count() + usize::from(n.required))
            })
            .max()
            .unwrap_or(8)
            .clamp(8, 24);
        let mut lines = Vec::new();
        for (i, row) in self.rows.iter().enumerate().skip(top).take(h) {
            let Some(n) = self.node_at(i) else { continue };
            let here = focused && i == self.cursor;
            let mut label = format!(
                "{}{}{}",
                "  ".repeat(row.depth),
                n.key,
                if n.required { "*" } else { "" }
            );
            let w = label.chars().count();
            if w < label_w {
                label.push_str(&" ".repeat(label_w - w));
            }
            let label_style = if n.required {
                theme.fg(Role::Fg).add_modifier(Modifier::BOLD)
            } else {
                theme.fg(Role::Fg)
            };
            let (value, placeholder) = value_text(n);
            let mut value_style = if placeholder {
                theme.fg(Role::Muted)
            } else {
                theme.fg(Role::Accent)
            };
            let mut spans = vec![Span::styled(format!("{label} "), label_style)];
            if here && self.editing {
                value_style = theme.fg(Role::Fg);
                spans.push(Span::styled(n.text.clone(), value_style));
                spans.push(Span::styled("▏", theme.fg(Role::Accent).add_modifier(Modifier::BOLD)));
            } else {
                spans.push(Span::styled(value, value_style));
            }
            if let Some(e) = self.row_errors.get(&row.path).and_then(|e| e.first())
                && !self.rows[..i].iter().any(|r| r.path == row.path)
            {
                spans.push(Span::styled(
                    format!("  ✗ {e}"),
                    theme.fg(Role::StatusError).add_modifier(Modifier::BOLD),
                ));
            }
            let mut line = Line::from(spans);
            if here {
                line = line.style(theme.selection());
            }
            lines.push(line);
        }
        f.render_widget(Paragraph::new(lines).style(theme.base().patch(Style::default())), area);
    }
}
